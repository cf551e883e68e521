#!/usr/bin/env bash
# Runs the cargo-fuzz targets in fuzz/ (notation, request_json, replay), each for
# SECONDS (default 600), one after the other, growing fuzz/corpus/<target>/. Installs
# cargo-fuzz from crates.io on first use. The project's stable toolchain builds
# libFuzzer targets with RUSTC_BOOTSTRAP=1 (cargo fuzz needs unstable flags).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# A crash leaves its input in fuzz/artifacts/<target>/; after the fix, copy it to
# fuzz/regressions/<target>/, where `cargo test` (tests/fuzz_corpus.rs) replays it.
# `cargo fuzz cmin <target>` (same environment) shrinks a corpus before committing it.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(notation request_json replay)
command -v cargo-fuzz > /dev/null || cargo install cargo-fuzz --locked
export RUSTC_BOOTSTRAP=1
for target in "${targets[@]}"; do
    echo "== $target: ${seconds} s"
    cargo fuzz run -O "$target" -- -max_total_time="$seconds" -print_final_stats=1 2>&1 \
        | grep -E "^(Done|stat::|==)|SUMMARY|panicked|crash-|Test unit written" || true
    if [ -n "$(ls -A "artifacts/$target" 2>/dev/null)" ]; then
        echo "$target: crash inputs in fuzz/artifacts/$target" >&2
        exit 1
    fi
done
