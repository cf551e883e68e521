#!/usr/bin/env bash
# Quotas cost: the open service and then the same service with tokens and a rate limit,
# in one run, each loaded by scripts/load.py at 1,000 POST/s for 30 s (then as many
# GETs): open; 10 tokens (load0..load9, 100 jobs/s each, under their quota of 150/s);
# the same plus one greedy token at 400 jobs/s, over its quota (429 for the excess).
#
#   scripts/quota-bench.sh [BIN]
set -e
cd "$(dirname "$0")/.."
G=${1:-target/release/gaps}
run() { # $1 label, rest env
  label=$1; shift
  d=$(mktemp -d); port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  env "$@" GAPS_LOG__FILTER=warn GAPS_DEEPEN__ENABLED=false $G serve --listen 127.0.0.1:$port --database sqlite://$d/g.db 2>$d/log &
  pid=$!; sleep 2
  echo "== $label"
  python3 scripts/load.py --base http://127.0.0.1:$port "${LOADARGS[@]}"
  kill $pid; wait $pid || true; rm -rf $d
}
LOADARGS=(--seconds 30 --threads 20 --rate 1000 --drain 300)
run open
TOKENS=$(python3 -c 'print(",".join([f"load{i}:secret{i}" for i in range(10)]+["greedy:secret"]))')
QUOTA=(GAPS_AUTH__TOKENS=$TOKENS GAPS_LIMITS__RATE_PER_S=150 GAPS_LIMITS__RATE_BURST=150)
LOADARGS=(--seconds 30 --threads 20 --rate 1000 --tokens 10 --drain 300)
run "10 tokens, quota 150/s each" "${QUOTA[@]}"
LOADARGS=(--seconds 30 --threads 20 --rate 1000 --tokens 10 --greedy-rate 400 --drain 300)
run "10 tokens and a greedy one at 400/s" "${QUOTA[@]}"
