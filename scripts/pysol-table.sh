#!/usr/bin/env bash
# The win rates of PySolFC's Gaps games (docs/pysol.md, "Win rates"): games 1..1000 of
# each game the engine solves, first round alone and as played (the game's own
# redeals), at most 60 s a game on every core. Resumable: each run appends to its CSV
# under docs/data and skips the games it holds (`gaps winrate --out`), so run it again
# after a stop. Then prints the table (scripts/pysol-table.py).
#
# Usage: scripts/pysol-table.sh [GAMES...]   (default: every solved game, fastest first)
set -euo pipefail
cd "$(dirname "$0")/.."
gaps=${GAPS:-target/release/gaps}
[ -x "$gaps" ] || cargo build --release --locked
games=("$@")
[ ${#games[@]} -gt 0 ] || games=(line-up paganini red-moon blue-moon house-of-commons spaces station montana galary free-parking jungle spaces-and-aces)
run() { # GAME REDEALS FILE
    echo "== $1 --redeals $2 -> $3" >&2
    "$gaps" winrate --pysol "$1" --redeals "$2" --deals 1000 --time-ms 60000 --json \
        --out "docs/data/$3" > /dev/null
}
for game in "${games[@]}"; do
    case $game in
        montana | spaces | station) first=pysol-montana-1-1000-60s.csv; redeals=2 ;;
        blue-moon | red-moon) first=pysol-$game-1-1000-60s.csv; redeals=2 ;;
        paganini | house-of-commons) first=pysol-$game-1-1000-60s.csv; redeals=1 ;;
        line-up | spaces-and-aces) first=pysol-$game-1-1000-60s.csv; redeals=0 ;;
        # Played on their own boards (one game a core, docs/pysol.md).
        galary | free-parking) first=pysol-$game-1-1000-60s.csv; redeals=2 ;;
        jungle) first=pysol-$game-1-1000-60s.csv; redeals=1 ;;
        *) echo "not a solved game: $game" >&2; exit 2 ;;
    esac
    # Spaces and Station deal Montana's boards under Montana's rule: the same first round.
    run "$( [ "$first" = pysol-montana-1-1000-60s.csv ] && echo montana || echo "$game")" 0 "$first"
    if [ "$redeals" -gt 0 ]; then
        run "$game" "$redeals" "pysol-$game-1-1000-redeals-60s.csv"
    fi
done
python3 scripts/pysol-table.py
