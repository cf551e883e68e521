#!/usr/bin/env bash
# The Python package (python/, docs/python.md) as a user gets it: builds its abi3 wheel
# with maturin, installs it into a fresh virtual environment, and runs python/tests
# with pytest there (outside the source tree, so that the installed package is the
# one imported), against the binary GAPS_BIN for the command line's answers.
#
#   scripts/python-tests.sh [--release] [PYTEST ARGS...]
#
# maturin and pytest (PyPI, pinned) are installed into target/python-tools on first
# use. Without --release the wheel is a debug build (the engine optimised all the
# same: Cargo.toml, [profile.dev.package.gaps-engine]).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
profile=()
if [ "${1:-}" = --release ]; then
    profile=(--release)
    shift
fi
tools=target/python-tools
if [ ! -x "$tools/bin/maturin" ]; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install --quiet 'maturin==1.16.0'
fi
gaps=${GAPS_BIN:-$root/target/debug/gaps}
[ -x "$gaps" ] || cargo build --locked
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tools/bin/maturin" build --locked "${profile[@]}" --manifest-path python/Cargo.toml \
    --out "$work/wheels" --quiet
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet 'pytest==9.2.0' "$work"/wheels/*.whl
cd "$work"
GAPS_BIN=$gaps "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests" "$@"
