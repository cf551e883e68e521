#!/usr/bin/env bash
# The first rounds of PySolFC's board games that the 10-minute tables left unknown
# (docs/data/pysol-GAME-1-1000-10min.csv), searched again by the board search's
# exhaustive mode (`--algorithm exact --redeals 0`, docs/engine.md, "Exhaustive search
# (`exact`)"): each game to a win (its line replayed), a proof of loss (every position
# of the round reached), the node budget, or `memory_limit` once its visited set fills
# TABLE_MB and it can spill no more to its file in SPILL (docs/engine.md, "A visited
# set on disk"), one game at a time on one thread. One line a game in
# docs/data/pysol-GAME-1-1000-exact.csv (`gaps winrate --out`: deal, verdict, nodes,
# seconds, algorithm, stopped). Resumable: a game the file holds is skipped, so run it
# again after a stop (a game cut short by a stop is searched again from its start:
# a search is not resumable).
#
# Usage: scripts/board-unknowns.sh [GAMES...]   (default: jungle free-parking galary)
# Environment: GAPS (binary; copy it so that rebuilding the tree does not change the
# run), NODES (budget a game, default 2.4e9: about 80 min at 0.5M positions/s),
# TABLE_MB (memory of the visited set, default 16000), SPILL (directory, default
# target/board-spill).
set -euo pipefail
cd "$(dirname "$0")/.."
gaps=${GAPS:-target/release/gaps}
nodes=${NODES:-2400000000}
table_mb=${TABLE_MB:-16000}
spill=${SPILL:-target/board-spill}
[ -x "$gaps" ] || cargo build --release --locked
mkdir -p "$spill"
games=("$@")
[ ${#games[@]} -gt 0 ] || games=(jungle free-parking galary)
for game in "${games[@]}"; do
    out="docs/data/pysol-$game-1-1000-exact.csv"
    for number in $(awk -F, '$2 == "unknown" { print $1 }' "docs/data/pysol-$game-1-1000-10min.csv" | sort -n); do
        if [ -f "$out" ] && awk -F, -v n="$number" '$1 == n { found = 1 } END { exit !found }' "$out"; then
            continue
        fi
        echo "== $game $number ($(date -u +%H:%M))" >&2
        "$gaps" winrate --pysol "$game" --seed "$number" --deals 1 --redeals 0 \
            --algorithm exact --nodes "$nodes" --table-mb "$table_mb" --spill-dir "$spill" \
            --threads 1 --out "$out" > /dev/null
    done
done
