#!/usr/bin/env bash
# Builds the image from `Dockerfile` and checks it as a user would, then runs
# `compose.yaml` (PostgreSQL and three nodes) and checks that nothing is lost
# (docs/http.md, "Docker"; called by .ci/run).
#
#   scripts/docker-test.sh                # the image from the release binary built here
#   scripts/docker-test.sh --from-source  # the plain `docker build .` (compiles inside)
#   scripts/docker-test.sh --binary target/debug/gaps  # the image from a binary built already
#
# CI passes --binary with the binary that `cargo test` built (the test profile: optimised,
# with debug assertions): what this checks is the image and compose.yaml, which are the
# same around either build, and a release build with LTO would cost CI about ten minutes.
#
# What it does where nothing is set up (as root; a Debian machine):
# - installs Debian's docker.io and docker-compose (and debootstrap, jq) when absent, and
#   starts `dockerd --storage-driver=vfs` when no engine answers (stopped again at the
#   end);
# - makes the base images the Dockerfile names when they cannot be pulled:
#   `debian:bookworm-slim` from `debootstrap --variant=minbase bookworm`, and with
#   --from-source `rust:1-bookworm` (that base with build-essential, the machine's Rust
#   toolchain and its CA bundle, so that cargo reaches the crate registry through the
#   same TLS inspection as the machine); `postgres:15` from scripts/docker/postgres
#   (Debian's PostgreSQL honouring the official image's variables);
# - builds `gaps:latest`: by default `--target prebuilt` from a context holding only
#   target/release/gaps, stripped (built here with `cargo build --release` when older
#   than the sources); with --from-source the whole context, compiled in the image;
# - the image: its size, a container on a volume, its start time to /healthz, the
#   process's uid (not root), a job posted and its verdict read, the container
#   restarted and the job still there, `gaps health` inside it;
# - compose: three nodes on PostgreSQL, a job posted to node-1 read from node-2; a
#   batch posted, node-2 stopped (`docker stop`) and node-3 killed (`docker kill`)
#   while it runs, every one of its jobs done in the end (the killed node's taken back
#   when its lease ends).
set -euo pipefail
cd "$(dirname "$0")/.."
from_source=false
binary=
case "${1:-}" in
    --from-source) from_source=true ;;
    --binary) binary=${2:?--binary needs a path} ;;
    '') ;;
    *) echo "usage: $0 [--from-source | --binary PATH]" >&2; exit 2 ;;
esac
work=target/docker
mkdir -p "$work"
port=18080
project=gapsci
compose_file=compose.yaml
started_engine=false
dockerd_pid=
say() { printf '[docker-test] %s\n' "$*"; }
fail() { say "FAILED: $*"; exit 1; }

# ---- the engine and the tools ----
need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v docker-compose >/dev/null || need+=(docker-compose)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v jq >/dev/null || need+=(jq)
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"; } \
        >"$work/apt.log" 2>&1 || { tail -20 "$work/apt.log"; fail "apt-get install ${need[*]}"; }
fi

cleanup() {
    set +e
    docker rm -f gaps-test >/dev/null 2>&1
    docker volume rm gaps-test-data >/dev/null 2>&1
    docker-compose -p "$project" -f "$compose_file" down -v >/dev/null 2>&1
    if $started_engine; then
        kill "$dockerd_pid" 2>/dev/null
        wait "$dockerd_pid" 2>/dev/null
    fi
}
trap cleanup EXIT
if ! docker info >/dev/null 2>&1; then
    say "starting dockerd (vfs storage)"
    started_engine=true
    dockerd --storage-driver=vfs >"$work/dockerd.log" 2>&1 &
    dockerd_pid=$!
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    docker info >/dev/null 2>&1 || { tail -20 "$work/dockerd.log"; fail "dockerd did not start"; }
fi

# ---- base images ----
have_image() { docker image inspect "$1" >/dev/null 2>&1; }
pull() { timeout 60 docker pull -q "$1" >/dev/null 2>&1; }
if ! have_image debian:bookworm-slim && ! pull debian:bookworm-slim; then
    say "making debian:bookworm-slim with debootstrap"
    rootfs=$work/bookworm
    rm -rf "$rootfs"
    debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian \
        >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log"; fail debootstrap; }
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" -c . | docker import -c 'CMD ["bash"]' - debian:bookworm-slim >/dev/null
    rm -rf "$rootfs"
fi
if $from_source && ! have_image rust:1-bookworm && ! pull rust:1-bookworm; then
    say "making rust:1-bookworm from the machine's toolchain"
    rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
    cargo_home=${CARGO_HOME:-$HOME/.cargo}
    docker rm -f gaps-rust-base >/dev/null 2>&1 || true
    docker run --name gaps-rust-base --network host \
        -v "$rustup_home:/host/rustup:ro" -v "$cargo_home:/host/cargo:ro" \
        -v /etc/ssl/certs/ca-certificates.crt:/host/ca.crt:ro debian:bookworm-slim bash -c '
            set -e
            apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
                build-essential ca-certificates >/dev/null
            cp /host/ca.crt /etc/ssl/certs/ca-certificates.crt
            mkdir -p /usr/local/rustup /usr/local/cargo
            cp -a /host/rustup/toolchains /host/rustup/settings.toml /usr/local/rustup/
            cp -a /host/cargo/bin /usr/local/cargo/
            rm -rf /var/lib/apt/lists/*' >"$work/rust-base.log" 2>&1 ||
        { tail -20 "$work/rust-base.log"; fail "making rust:1-bookworm"; }
    docker commit -c 'ENV RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        gaps-rust-base rust:1-bookworm >/dev/null
    docker rm gaps-rust-base >/dev/null
fi
if ! have_image postgres:15 && ! pull postgres:15; then
    say "building the postgres:15 stand-in (scripts/docker/postgres)"
    docker build -q --network host -t postgres:15 scripts/docker/postgres >"$work/postgres.log" 2>&1 ||
        { tail -20 "$work/postgres.log"; fail "building postgres:15"; }
fi

# ---- the image ----
if $from_source; then
    began=$(date +%s)
    say "docker build . (from source)"
    docker build --network host -t gaps:latest . >"$work/build.log" 2>&1 ||
        { tail -30 "$work/build.log"; fail "docker build"; }
else
    if [ -n "$binary" ]; then
        [ -x "$binary" ] || fail "--binary $binary: no such executable"
    else
        binary=target/release/gaps
        if [ ! -x "$binary" ] ||
            [ -n "$(find src engine/src migrations Cargo.lock -newer "$binary" -print -quit)" ]; then
            say "cargo build --release"
            cargo build --release --locked --bin gaps
        fi
    fi
    context=$work/context
    rm -rf "$context" && mkdir -p "$context"
    objcopy --strip-debug "$binary" "$context/gaps"
    cp Dockerfile "$context/"
    say "docker build --target prebuilt ($binary)"
    began=$(date +%s)
    docker build --network host --target prebuilt -t gaps:latest -f Dockerfile "$context" \
        >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; fail "docker build"; }
fi
say "image built in $(($(date +%s) - began)) s; size $(docker image inspect -f '{{.Size}}' gaps:latest | awk '{printf "%.1f MB", $1 / 1e6}')"

# ---- one container, as a user runs it ----
base=http://127.0.0.1:$port
wait_healthy() { # url, seconds
    for _ in $(seq 1 $(($2 * 20))); do curl -sf -o /dev/null "$1/healthz" && return 0; sleep 0.05; done
    return 1
}
job_of() { # base url, job id: the job, once finished
    curl -sf "$1/v1/jobs/$2?wait_ms=20000"
}
docker rm -f gaps-test >/dev/null 2>&1 || true
docker volume rm gaps-test-data >/dev/null 2>&1 || true
t0=$(date +%s%N)
docker run -d --name gaps-test -p "$port:8080" -v gaps-test-data:/data gaps:latest >/dev/null
wait_healthy "$base" 30 || { docker logs gaps-test | tail -20; fail "no /healthz"; }
say "started: /healthz answered $((($(date +%s%N) - t0) / 1000000)) ms after docker run"
pid=$(docker inspect -f '{{.State.Pid}}' gaps-test)
uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
[ "$uid" != 0 ] || fail "the process runs as root"
say "the process runs as uid $uid"
posted=$(curl -sf -X POST "$base/v1/jobs?wait_ms=20000" -H 'content-type: application/json' \
    -d '{"deal": {"seed": 7, "suits": 4, "ranks": 13}, "variant": "basic", "limits": {"time_ms": 10000}}')
id=$(jq -r .id <<<"$posted")
verdict=$(job_of "$base" "$id" | jq -r .verdict)
case $verdict in solvable | unsolvable) ;; *) fail "job $id: verdict $verdict" ;; esac
say "job $id: $verdict"
docker restart gaps-test >/dev/null
wait_healthy "$base" 30 || fail "no /healthz after docker restart"
again=$(job_of "$base" "$id" | jq -r .verdict)
[ "$again" = "$verdict" ] || fail "after docker restart, job $id says $again"
say "after docker restart the job is still there ($again)"
docker exec gaps-test /usr/local/bin/gaps health || fail "gaps health inside the container"
docker rm -f gaps-test >/dev/null
docker volume rm gaps-test-data >/dev/null

# ---- compose: PostgreSQL and three nodes ----
say "docker-compose up (postgres, node-1, node-2, node-3)"
dc() { docker-compose -p "$project" -f "$compose_file" "$@"; }
dc down -v >/dev/null 2>&1 || true
dc up -d --no-build >"$work/compose.log" 2>&1 || { tail -20 "$work/compose.log"; fail "compose up"; }
wait_healthy http://127.0.0.1:8080 60 || { dc logs --tail 20; fail "node-1 has no /healthz"; }
wait_healthy http://127.0.0.1:8081 60 || { dc logs --tail 20; fail "node-2 has no /healthz"; }
posted=$(curl -sf -X POST http://127.0.0.1:8080/v1/jobs -H 'content-type: application/json' \
    -d '{"deal": {"seed": 11, "suits": 4, "ranks": 13}, "variant": "basic", "limits": {"time_ms": 10000}}')
id=$(jq -r .id <<<"$posted")
seen=$(job_of http://127.0.0.1:8081 "$id" | jq -r '.state + " " + (.verdict // "")')
case $seen in "done solvable" | "done unsolvable") ;; *) fail "job $id read from node-2: $seen" ;; esac
say "job $id posted to node-1, read from node-2: $seen"
# Jobs that run their whole 3 s (8x13 `basic` deals under the exhaustive search), so
# that each node holds some when node-2 is stopped and node-3 killed.
batch=$(curl -sf -X POST http://127.0.0.1:8080/v1/batches -H 'content-type: application/json' \
    -d '{"variant": "basic", "algorithm": "exact", "suits": 8, "ranks": 13, "seed": 0, "count": 24, "limits": {"time_ms": 3000}}' | jq -r .id)
for _ in $(seq 1 100); do
    [ "$(curl -sf "http://127.0.0.1:8080/v1/batches/$batch" | jq -r .running)" -ge 4 ] && break
    sleep 0.1
done
running=$(curl -sf "http://127.0.0.1:8080/v1/batches/$batch" | jq -r '"\(.running) running, \(.done) done"')
dc stop node-2 >/dev/null 2>&1
dc kill node-3 >/dev/null 2>&1
say "batch $batch ($running): node-2 stopped, node-3 killed"
for _ in $(seq 1 180); do
    view=$(curl -sf "http://127.0.0.1:8080/v1/batches/$batch")
    [ "$(jq -r .finished <<<"$view")" = true ] && break
    sleep 1
done
counts=$(jq -r '"\(.done) done, \(.failed) failed, \(.cancelled) cancelled of \(.count)"' <<<"$view")
[ "$(jq -r '.finished and .done == .count' <<<"$view")" = true ] || fail "batch $batch: $counts"
by=$(curl -sf "http://127.0.0.1:8080/v1/batches/$batch/results" | jq -r .node_id | sort | uniq -c | xargs)
retried=$(curl -sf "http://127.0.0.1:8080/v1/jobs?batch=$batch&limit=100" | jq '[.jobs[] | select(.attempts > 1)] | length')
say "batch $batch: $counts (finished by node: $by; $retried taken back and run again)"
say "passed"
