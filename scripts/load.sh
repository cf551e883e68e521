#!/usr/bin/env bash
# Load test of the HTTP service with the solver pool saturated (figures in docs/performance.md).
# Needs `oha` (cargo install oha). Not part of CI: it takes about a minute and measures.
#   scripts/load.sh [RATE] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=${1:-1000}
SECS=${2:-30}
PORT=18181
BASE="http://127.0.0.1:$PORT"
DIR=$(mktemp -d)
cargo build --release --quiet
GAPS_LOG__FILTER=warn ./target/release/gaps serve --listen "127.0.0.1:$PORT" \
  --database "sqlite://$DIR/load.db" &
PID=$!
trap 'kill $PID 2>/dev/null; rm -rf "$DIR"' EXIT
until curl -sf "$BASE/healthz" >/dev/null; do sleep 0.1; done

# Saturate every solver thread: long common searches (time limit 120 s each).
curl -sf -X POST "$BASE/v1/batches" -H 'content-type: application/json' \
  -d '{"variant": "common", "count": 20, "seed": 1000, "limits": {"time_ms": 120000}}' >/dev/null
sleep 1
echo "solvers busy: $(curl -s "$BASE/metrics" | awk '/^gaps_solvers_busy /{print $2}') of $(curl -s "$BASE/metrics" | awk '/^gaps_solvers /{print $2}')"

# 1. POST /v1/jobs at RATE/s for SECS s (each is a new queued job: the pool is busy).
BEFORE=$(curl -s "$BASE/metrics" | awk '/^gaps_jobs_submitted_total /{print $2}')
oha --no-tui -q "$RATE" -z "${SECS}s" -m POST -H 'content-type: application/json' \
  -d '{"deal": {"seed": 7, "suits": 4, "ranks": 13}, "variant": "common", "limits": {"time_ms": 1000}}' \
  "$BASE/v1/jobs" | sed -n '1,/Details/p;/Status code distribution/,$p'
AFTER=$(curl -s "$BASE/metrics" | awk '/^gaps_jobs_submitted_total /{print $2}')
STORED=$(curl -s "$BASE/metrics" | awk '/^gaps_jobs\{state="queued"\}/{q=$2} /^gaps_jobs\{state="running"\}/{r=$2} /^gaps_jobs\{state="done"\}/{d=$2} END{print q+r+d}')
echo "accepted by POST: $((AFTER - BEFORE)); stored jobs (all states, batch included): $STORED"

# 2. GET /v1/jobs/{id} at RATE/s for SECS s while the pool is still saturated.
ID=$(curl -s "$BASE/v1/jobs?limit=1" | sed 's/.*"id":"\([^"]*\)".*/\1/')
oha --no-tui -q "$RATE" -z "${SECS}s" "$BASE/v1/jobs/$ID" \
  | sed -n '1,/Details/p;/Status code distribution/,$p'
echo "solvers busy at the end: $(curl -s "$BASE/metrics" | awk '/^gaps_solvers_busy /{print $2}')"
