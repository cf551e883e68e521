#!/usr/bin/env bash
# The paper's Morpion experiment: a record's endgame proved from K = FROM down to TO
# (step STEP), with dfs_it and with plain DFS, one CSV row per (K, method).
# Resumable: rows already in OUT are skipped.
#   scripts/morpion-table.sh GAPS RECORD OUT [FROM TO STEP PLAIN_MS]
# PLAIN_MS caps each plain DFS run (its tree explodes; a capped run gives a lower bound).
set -euo pipefail
gaps=$1 record=$2 out=$3
from=${4:-145} to=${5:-100} step=${6:-5} plain_ms=${7:-120000}
[ -s "$out" ] || echo "record,from,method,best,proved,nodes,elapsed_ms,threads" > "$out"
name=$(basename "$record" .json)
for ((k = from; k >= to; k -= step)); do
  for method in it plain; do
    grep -q "^$name,$k,$method," "$out" && continue
    limit=()
    [ "$method" = plain ] && limit=(--time-ms "$plain_ms")
    "$gaps" morpion prove --record "$record" --from "$k" --method "$method" --threads 2 \
      "${limit[@]}" --json 2>/dev/null |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print(",".join(str(x) for x in [sys.argv[1], d["from"], d["method"], d["best"], str(d["proved"]).lower(), d["nodes"], d["elapsed_ms"], d["threads"]]))' "$name" >> "$out"
    tail -1 "$out"
  done
done
