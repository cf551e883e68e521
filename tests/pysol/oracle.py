"""PySolFC's single-deck Gaps games laid out from PyPI's pysol_cards (the generators
PySolFC itself imports), for the test `pysol::layouts_match_pysol_cards`.

Reads game numbers, one per line, on standard input; writes for each
`N<TAB>board of GAMES[0]<TAB>board of GAMES[1]...` in the project's notation (rows
joined by `/`, gaps as `--`, cards rank then suit with `A` for an Ace).

Written from PySolFC's code, not from the engine: pysollib/pysolrandom.py
(construct_random), pysollib/gamedb.py (GameInfo: the deck's suits and ranks),
pysollib/game/__init__.py (Game.createCards, Game.shuffle, _shuffleHookMoveToTop,
_shuffleHookMoveSorter), pysollib/stack.py (dealRow deals the talon's top card to each
stack in turn) and pysollib/games/montana.py (each game's RLEN, RSTEP, SpaceRank,
_shuffleHook and startGame).
"""
import sys

from pysol_cards.cards import ms_rearrange
from pysol_cards.random import LCRandom31, MTRandom

RANKS = "A23456789TJQK"
SUITS = "CSHD"  # PySolFC's suit order: Club, Spade, Heart, Diamond

ALL = tuple(range(13))
# name: (ranks, RLEN, RSTEP, SpaceRank or None, startGame)
GAMES = {
    "montana": (ALL, 52, 13, 0, "montana"),
    "blue-moon": (ALL, 56, 14, None, "blue-moon"),
    "spaces": (ALL, 52, 13, 0, "montana"),
    "red-moon": (ALL, 56, 14, None, "red-moon"),
    "galary": (ALL, 56, 14, None, "red-moon"),
    "free-parking": (ALL, 52, 13, 0, "montana"),
    "jungle": (ALL, 56, 14, None, "blue-moon"),
    "spaces-and-aces": (ALL, 56, 14, None, "spaces-and-aces"),
    "paganini": ((0, 5, 6, 7, 8, 9, 10, 11, 12), 40, 10, None, "blue-moon"),
    "house-of-commons": (tuple(range(10)), 40, 10, 0, "montana"),
    "line-up": (tuple(range(6)), 24, 6, 5, "montana"),
    "station": (ALL, 52, 13, 0, "montana"),
}


class Card:
    def __init__(self, suit, rank):
        self.suit, self.rank = suit, rank

    def __str__(self):
        return RANKS[self.rank] + SUITS[self.suit]


def shuffled(game, number):
    """Game `number`'s generator after its deal and the talon as a list, bottom first
    (its last card is the top), as Game.shuffle leaves them."""
    ranks = GAMES[game][0]
    cards = [Card(s, r) for s in range(4) for r in ranks]  # Game.createCards
    if number < 32000:  # construct_random
        rng = LCRandom31(number)
        cards = ms_rearrange(cards)  # Game.shuffle, for LCRandom31 (52 cards only)
    else:
        rng = MTRandom(number)
    rng.reset()
    rng.shuffle(cards)
    if GAMES[game][4] == "red-moon":
        # RedMoon._shuffleHook: _shuffleHookMoveToTop(cards, (rank == 0, suit))
        extracted, i, new = [], len(cards), []
        for c in cards:
            if c.rank == 0:
                extracted.append((c.suit, i, c))
            else:
                new.append(c)
            i -= 1
        cards = new + [x[2] for x in reversed(sorted(extracted, key=lambda e: e[:2]))]
    return rng, cards


def board(game, number):
    """The board after startGame: a list of RLEN cells (Card or None)."""
    ranks, rlen, rstep, space_rank, start = GAMES[game]
    talon = shuffled(game, number)[1]
    rows = [None] * rlen

    def deal(i):
        rows[i] = talon.pop()  # the top of the talon

    if start == "montana":  # Montana.startGame
        for i in range(len(talon)):
            if talon[-1].rank == space_rank:
                talon.pop()  # to the invisible stack: rows[i] stays empty
            else:
                deal(i)
    elif start in ("blue-moon", "spaces-and-aces"):  # BlueMoon/SpacesAndAces.startGame
        for i in range(rlen):
            if i % rstep != 0:
                deal(i)
        if start == "blue-moon":
            aces = [i for i in range(rlen) if rows[i] is not None and rows[i].rank == 0]
            for j, i in enumerate(aces):
                rows[j * rstep], rows[i] = rows[i], None
    elif start == "red-moon":  # RedMoon.startGame
        for i in range(0, rlen, 14):
            deal(i)
        for r in range(4):
            n = r * 14 + 2
            for i in range(n, n + 12):
                deal(i)
    assert not talon
    return rows


def show(rows, rstep):
    tokens = ["--" if c is None else str(c) for c in rows]
    return "/".join(" ".join(tokens[r * rstep:(r + 1) * rstep]) for r in range(4))


if __name__ == "__main__":
    for line in sys.stdin:
        line = line.strip()
        if line:
            n = int(line)
            boards = [show(board(g, n), GAMES[g][2]) for g in GAMES]
            print("\t".join([str(n)] + boards))
