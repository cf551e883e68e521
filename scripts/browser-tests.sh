#!/usr/bin/env bash
# Browser tests of the web page: installs Debian's Chromium (if missing) and
# playwright-core (pinned in tests/browser/package-lock.json) and drives the page in
# headless Chromium. Used by .ci/run; needs root or sudo for apt.
# It uses target/debug/gaps as it is when no source is newer (in CI, the binary that
# `cargo test` built with the test profile), and builds it otherwise: a second build
# of every dependency in the dev profile costs CI minutes and tests nothing more.
# UPDATE_SCREENSHOTS=1 also refreshes docs/screenshots/.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
if [ ! -x target/debug/gaps ] ||
  [ -n "$(find src engine/src engine/tests/data migrations .sqlx Cargo.toml engine/Cargo.toml Cargo.lock -newer target/debug/gaps -print -quit 2>/dev/null)" ]; then
  cargo build --locked --bin gaps
fi
(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
SERVICE_BIN="$PWD/target/debug/gaps" node tests/browser/e2e.mjs
