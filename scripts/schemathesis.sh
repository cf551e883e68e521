#!/usr/bin/env bash
# Schema fuzzing of the running service from its own /openapi.json with schemathesis:
# every check, the stateful phase included. Installs schemathesis (PyPI, pinned) into
# target/schemathesis-venv on first use, starts `gaps serve` on a temporary database
# with small time caps (so generated jobs end quickly), runs, stops the service.
#
#   scripts/schemathesis.sh [--gaps BIN] [--max-examples N] [--seconds S]
#
# Exits non-zero on any failure or server error. Extra arguments after `--` go to `st run`.
# scripts/schemathesis/hooks.py teaches it the `gaps-position` format of positions.
set -euo pipefail
cd "$(dirname "$0")/.."

gaps=target/release/gaps
max_examples=100
seconds=
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --gaps) gaps=$2; shift 2 ;;
        --max-examples) max_examples=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done

venv=target/schemathesis-venv
if [ ! -x "$venv/bin/st" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'schemathesis==4.32.5'
fi
[ -x "$gaps" ] || cargo build --release --locked

dir=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
GAPS_SOLVER__THREADS=2 GAPS_LIMITS__MAX_TIME_MS=2000 GAPS_LIMITS__DEFAULT_TIME_MS=500 \
GAPS_LIMITS__MAX_WAIT_MS=1000 GAPS_SERVER__REQUEST_TIMEOUT_MS=5000 \
GAPS_LIMITS__MAX_BATCH_DEALS=20 GAPS_DEEPEN__ENABLED=false \
    "$gaps" serve --listen "127.0.0.1:$port" --database "sqlite://$dir/gaps.db" \
    > "$dir/server.log" 2>&1 &
server=$!
cleanup() {
    status=$?
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    if grep -q "panicked" "$dir/server.log"; then
        echo "the service panicked; its log:" >&2
        cat "$dir/server.log" >&2
    elif [ "$status" -ne 0 ]; then
        echo "the service's errors and warnings:" >&2
        grep -E "ERROR|WARN" "$dir/server.log" >&2 || true
    fi
    rm -rf "$dir"
}
trap cleanup EXIT
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break
    sleep 0.1
done

# Every check but one: `use_after_free` expects a resource to be gone after a
# successful DELETE, while `DELETE /v1/jobs/{id}` cancels a job (docs/http.md)
# and the job stays readable in state `cancelled`, as its documented answer says.
args=(run "http://127.0.0.1:$port/openapi.json" --checks all --exclude-checks use_after_free
      --max-examples "$max_examples" --workers 2 --generation-database none)
[ -n "$seconds" ] && args+=(--max-time "$seconds")
SCHEMATHESIS_HOOKS=hooks PYTHONPATH=scripts/schemathesis \
    "$venv/bin/st" "${args[@]}" "${extra[@]}"
