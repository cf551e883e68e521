"""PySolFC's Montana and Blue Moon layouts, from PyPI's pysol_cards (the generators
PySolFC itself imports), for the test `pysol::layouts_match_pysol_cards`.

Reads game numbers, one per line, on standard input; writes for each
`N<TAB>montana board<TAB>blue-moon board` in the project's notation (rows joined by
`/`, gaps as `--`). Written from PySolFC's rules (pysollib/pysolrandom.py
construct_random, pysollib/game/__init__.py Game.shuffle, pysollib/games/montana.py
startGame), with pysol_cards' generators, deck and `ms_rearrange`.
"""
import sys

from pysol_cards.cards import createCards, ms_rearrange
from pysol_cards.random import LCRandom31, MTRandom

RANKS = "A23456789TJQK"


def shuffled(number):
    """Game `number`'s generator after its deal, and the shuffled deck (talon bottom
    first), as `Game.shuffle` leaves them."""
    cards = createCards(1)
    # construct_random: `0 <= seed < 32000` takes the Microsoft generator.
    if number < 32000:
        rng = LCRandom31(number)
        cards = ms_rearrange(cards)
    else:
        rng = MTRandom(number)
    rng.reset()  # Game.shuffle resets the generator first
    return rng, rng.shuffle(cards)


def talon(number):
    """The 52 cards of game `number`, the first dealt first."""
    cards = shuffled(number)[1]
    cards.reverse()  # the talon's top (the list's end) is dealt first
    return [RANKS[c.rank - 1] + c.suit_s() for c in cards]


def montana(cards):
    cells = ["--" if c[0] == "A" else c for c in cards]
    return "/".join(" ".join(cells[r * 13:(r + 1) * 13]) for r in range(4))


def blue_moon(cards):
    rows = [["--"] * 14 for _ in range(4)]
    dealt = iter(cards)
    for r in range(4):
        for c in range(1, 14):
            rows[r][c] = next(dealt)
    aces = [(r, c) for r in range(4) for c in range(14) if rows[r][c][0] == "A"]
    for row, (r, c) in enumerate(aces):
        rows[row][0], rows[r][c] = rows[r][c], "--"
    return "/".join(" ".join(row) for row in rows)


if __name__ == "__main__":
    for line in sys.stdin:
        line = line.strip()
        if line:
            n = int(line)
            cards = talon(n)
            print(f"{n}\t{montana(cards)}\t{blue_moon(cards)}")
