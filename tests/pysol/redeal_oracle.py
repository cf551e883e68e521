"""PySolFC's redeals of its Gaps games, from PyPI's pysol_cards (the generators
PySolFC itself imports), for the test `pysol::redeals_match_pysolfc`.

Reads lines `GAME<TAB>N<TAB>BOARD1<TAB>BOARD2` on standard input: a game (a name of
oracle.py's GAMES), its number, a board reached in its first round and a board reached in its
second. Writes for each `AFTER1<TAB>AFTER2`: the boards after the first redeal (of
BOARD1) and after the second (of BOARD2, with the generator where the first redeal left
it). Boards are in the project's notation as PySolFC shows them (rows joined by `/`,
gaps as `--`; Blue Moon with its Aces column).

Written from PySolFC's code, not from the engine: pysollib/game/__init__.py
(`Game.newGame` creates the generator, `Game.shuffle` resets it and shuffles the deck;
nothing else draws before play), pysollib/games/montana.py (`Montana_Talon.dealCards`:
the sequence test with RSTEP and RBASE, the gaps, the order of `stacks`; the talon is
dealt from its top; `Spaces_Talon` and `Station_Talon.getRedealSpaces`;
`Paganini_Talon._inSequence`), pysollib/move.py (`AShuffleStackMove.redo`: the shuffle
loop), pysol_cards' `RandomBase.choice` (the generator's `randint(0, len - 1)`).
"""
import sys

from oracle import GAMES, RANKS, shuffled  # the deal, read from PySolFC (same folder)

RBASE = {g: 0 for g in ("blue-moon", "red-moon", "galary", "jungle", "spaces-and-aces",
                        "paganini", "line-up")}  # the others: 1
SPACES = {"spaces": "random", "station": "row-ends"}  # getRedealSpaces; else the gaps


def generator_after_deal(game, number):
    """The game's generator as the deal leaves it (the deal is oracle.py's)."""
    return shuffled(game, number)[0]


def is_in_sequence(game, card, suit, rank):
    """Montana_Talon._inSequence; Paganini's counts 6..K as 1..8."""
    card_rank = card[0]
    if game == "paganini" and card_rank >= 5:
        card_rank -= 4
    return card[1] == suit and card_rank == rank


def parse(board):
    """Cells in reading order: (rank, suit letter) or None."""
    cells = []
    for row in board.split("/"):
        for token in row.split():
            cells.append(None if token == "--" else (RANKS.index(token[0]), token[1]))
    return cells


def show(cells, rstep):
    tokens = ["--" if c is None else RANKS[c[0]] + c[1] for c in cells]
    return "/".join(" ".join(tokens[r * rstep:(r + 1) * rstep]) for r in range(4))


def deal_cards(game, rows, rstep, rbase, rng):
    """Montana_Talon.dealCards on `rows` (a list of cells), in place."""
    talon = []
    stacks = []
    gaps = [None] * 4
    for g in range(4):
        i = g * rstep
        first = rows[i]
        if first is not None and first[0] == rbase:  # `r.cards[-1].rank == RBASE`
            in_sequence, suit = 1, first[1]
        else:
            in_sequence, suit = 0, None
        for j in range(rstep):
            r = i + j
            if in_sequence:
                card = rows[r]
                if card is None or not is_in_sequence(game, card, suit, rbase + j):
                    in_sequence = 0
            if not in_sequence:
                stacks.append(r)
                if gaps[g] is None:
                    gaps[g] = r
                if rows[r] is not None:
                    talon.append(rows[r])
                    rows[r] = None
    assert len(stacks) == len(talon) + 4
    # AShuffleStackMove.redo
    n = len(talon) - 1
    while n > 0:
        j = rng.randint(0, n)
        talon[n], talon[j] = talon[j], talon[n]
        n = n - 1
    spaces = gaps
    if SPACES.get(game) == "random":
        spaces = []
        while len(spaces) != 4:
            r = rng.choice(stacks)
            if r not in spaces:
                spaces.append(r)
    elif SPACES.get(game) == "row-ends":
        spaces = [12, 25, 38, 51]
    for r in stacks:
        if r not in spaces:
            rows[r] = talon.pop()
    assert not talon


for line in sys.stdin:
    line = line.rstrip("\n")
    if not line:
        continue
    game, number, board1, board2 = line.split("\t")
    rstep, rbase = GAMES[game][2], RBASE.get(game, 1)
    rng = generator_after_deal(game, int(number))
    rows1 = parse(board1)
    deal_cards(game, rows1, rstep, rbase, rng)
    rows2 = parse(board2)
    deal_cards(game, rows2, rstep, rbase, rng)
    print(f"{show(rows1, rstep)}\t{show(rows2, rstep)}")
