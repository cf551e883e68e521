#!/usr/bin/env bash
# Browser tests of the web page: installs Debian's Chromium (if missing) and
# playwright-core (pinned in tests/browser/package-lock.json), builds the binary and
# drives the page in headless Chromium. Used by .ci/run; needs root or sudo for apt.
# UPDATE_SCREENSHOTS=1 also refreshes docs/screenshots/.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
cargo build --locked --bin gaps
(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
SERVICE_BIN="$PWD/target/debug/gaps" node tests/browser/e2e.mjs
