#!/usr/bin/env bash
# contrib/pysolfc/gaps_plugin.py inside PySolFC itself (docs/python.md, "PySolFC"):
# PySolFC's source run under Xvfb with Debian's python3-tk, the plugin in its plugin
# folder, a game started, Hint pressed, then the demo (which plays the hints, redeals
# included) left to play; every hint the plugin gives is logged (GAPS_PYSOLFC_LOG).
# Passes when no hint failed (a hint that searches checks the board on the table
# against the one the played steps reach) and the demo won the game (it went on to
# the next one).
#
#   scripts/pysolfc-check.sh PYSOLFC_DIR WHEEL [GAME_OPTIONS...]
#
# PYSOLFC_DIR: a checkout of PySolFC (github.com/shlomif/PySolFC; nothing of it is
# kept here). WHEEL: the gaps wheel (scripts/python-tests.sh builds one). Default
# game: --game Montana --deal 3 (its winning line redeals once). Needs Debian's
# python3-tk, xvfb, xdotool and imagemagick (installed with apt-get when missing).
# PySolFC without its cardsets package gets a plain one made here (cards drawn by
# PIL), and the html/license.html its data loader looks for.
set -euo pipefail
pysolfc=$(realpath "$1")
wheel=$(realpath "$2")
shift 2
game=("$@")
[ ${#game[@]} -gt 0 ] || game=(--game Montana --deal 3)
root=$(cd "$(dirname "$0")/.." && pwd)
for tool in Xvfb xdotool import; do
    command -v "$tool" > /dev/null || need_apt=1
done
/usr/bin/python3 -c 'import tkinter' 2> /dev/null || need_apt=1
if [ -n "${need_apt:-}" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-tk xvfb xdotool imagemagick > /dev/null
fi
work=$(mktemp -d)
venv=$work/venv
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --quiet pysol_cards random2 six attrs configobj pillow "$wheel"
mkdir -p "$pysolfc/data/html"
[ -f "$pysolfc/data/html/license.html" ] || echo '<html></html>' > "$pysolfc/data/html/license.html"
if ! ls -d "$pysolfc"/data/cardset-* > /dev/null 2>&1; then
    "$venv/bin/python" - "$pysolfc/data/cardset-plain" <<'EOF'
import os, sys
from PIL import Image, ImageDraw
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
for suit, color in zip("cshd", ["black", "black", "red", "red"]):
    for r, rank in enumerate("A23456789TJQK"):
        im = Image.new("RGB", (73, 97), "white")
        draw = ImageDraw.Draw(im)
        draw.rectangle([0, 0, 72, 96], outline="black")
        draw.text((8, 8), rank + suit.upper(), fill=color)
        im.save(f"{d}/{r + 1:02d}{suit}.png")
Image.new("RGB", (73, 97), "#336699").save(f"{d}/back01.png")
Image.new("RGB", (73, 97), "#3896f8").save(f"{d}/shade.png")
# Named as PySolFC's default cardset, so that it opens without asking.
open(f"{d}/config.txt", "w").write(
    "PySol solitaire cardset;4;.png;1;52;1;\nneo; Neo\n73 97 8\n18 18 7 7\nback01.png\nback01.png\n")
EOF
fi
export HOME=$work/home GAPS_PYSOLFC_LOG=$work/hints.jsonl
mkdir -p "$HOME/.PySolFC/plugins"
cp "$root/contrib/pysolfc/gaps_plugin.py" "$HOME/.PySolFC/plugins/"
display=:$((90 + RANDOM % 9))
Xvfb "$display" -screen 0 1280x1024x24 > /dev/null 2>&1 &
xvfb=$!
export DISPLAY=$display
trap 'kill $pysol $xvfb 2> /dev/null || true; rm -rf "$work"' EXIT
sleep 1
(cd "$pysolfc" && exec "$venv/bin/python" pysol.py "${game[@]}" > "$work/pysol.log" 2>&1) &
pysol=$!
sleep 15
# The first start's dialogs (cardset types missing, the welcome): each answered.
for title in "Cardset error" "About PySol"; do
    window=$(xdotool search --name "$title" | head -1 || true)
    [ -z "$window" ] || xdotool windowfocus "$window" key --window "$window" Return
    sleep 3
done
main=$(xdotool search --name "^PySol - " | head -1)
xdotool windowfocus "$main" key --window "$main" h
sleep 5
xdotool windowfocus "$main" key --window "$main" ctrl+d
for _ in $(seq 1 60); do
    sleep 5
    # The demo deals the next game once it has won this one.
    [ "$(python3 -c "import json,sys; print(len({json.loads(l)['number'] for l in open(sys.argv[1])}))" "$GAPS_PYSOLFC_LOG" 2> /dev/null || echo 0)" -ge 2 ] && break
done
import -window root "$work/board.png"
python3 - "$GAPS_PYSOLFC_LOG" "$venv/bin/python" <<'EOF'
import json, subprocess, sys
hints = [json.loads(line) for line in open(sys.argv[1])]
first = hints[0]
print(f"{len(hints)} hints; game {first['game']} {first['number']}")
failed = [h for h in hints if h["code"] != 0]
assert not failed, failed[:3]
numbers = list(dict.fromkeys(h["number"] for h in hints))
assert len(numbers) >= 2, "the demo did not finish the first game"
played = max(h["played"] for h in hints if h["number"] == numbers[0])
redeals = len({h["played"] for h in hints if h["number"] == numbers[0] and h["hint"] and "redeal" in h["hint"]})
print(f"game {numbers[0]} won by the demo after {played + 1} steps, {redeals} of them redeals")
EOF
cp "$work/board.png" "${PYSOLFC_CHECK_SCREENSHOT:-/dev/null}" 2> /dev/null || true
echo "pysolfc-check: ok"
