# -*- mode: python; coding: utf-8; -*-
"""gaps in PySolFC: a plugin (docs/python.md, "PySolFC").

Copy this file into PySolFC's plugin folder (``~/.PySolFC/plugins/`` on Linux; PySolFC
runs every ``.py`` there at start, after its own games), with the ``gaps`` package
(``gaps-solitaire``, docs/python.md) installed in the Python that runs PySolFC. It
changes two things and nothing else:

1. The Hint button (and the demo) of PySolFC's twelve Gaps games asks ``gaps`` for
   the next step of a winning line from the board on the table, with the game's
   redeals and PySolFC's own shuffles (the game's number and the moves played since
   its deal, undo respected): a card to move, or (to the demo) the talon to deal.
   When ``gaps`` finds no win within ``HINT_TIME_MS``, proves the game lost, or fails
   in any way, the game's own hint answers as before. Without the ``gaps`` package
   nothing changes.
2. "Always Solvable" versions of the games whose as-played rate is below 100% and for
   which ``gaps`` has a list of winnable numbers (Line Up, Paganini, Spaces and Aces):
   a new game dealt there is drawn from that list, as PySolFC's Klondike (Always
   Solvable) draws from ``klondike_solvable_seeds.py``; a number entered by hand is
   dealt as entered.
"""

import json
import os

from pysollib.gamedb import GI, GameInfo, registerGame
from pysollib.games import montana
from pysollib.hint import hint_level_is_demo_or_above
from pysollib.pysolrandom import construct_random

try:
    import gaps
    from gaps import pysolfc as gaps_pysolfc
except ImportError:  # no gaps package: PySolFC's own hints, no new games
    gaps = None

#: At most this long a hint (milliseconds); the line found is kept, so the hints that
#: follow it are answered at once.
HINT_TIME_MS = 5000

#: PySolFC's hint score for the step given (above its own moves' 40000-50000).
HINT_SCORE = 90000

#: A file to which each hint given is appended as a JSON line, when this is set.
LOG = os.environ.get("GAPS_PYSOLFC_LOG")

# One solver for every hint, as hint.py keeps one of each of its solver modules.
_SOLVER = gaps_pysolfc.GapsSolver() if gaps else None


def _log(game, level, code, move):
    if not LOG:
        return
    with open(LOG, "a") as log:
        log.write(json.dumps({
            "game": game.gameinfo.name,
            "number": str(game.random.initial_seed),
            "played": len(_SOLVER.played),
            "code": code,
            "hint": move.step if move else None,
            "level": level,
        }) + "\n")


def _gaps_hint(own_hint):
    """The game's hint class, asking gaps first."""

    class GapsHint(own_hint):
        def computeHints(self):
            game = self.game
            try:
                _SOLVER.recycle()
                _SOLVER.read_board(
                    board=gaps_pysolfc.board_text(game),
                    game_type=gaps_pysolfc.game_type(game),
                    game_number=game.random.initial_seed,
                    played=gaps_pysolfc.played_steps(game),
                )
                _SOLVER.limit_time_ms(HINT_TIME_MS)
                code = _SOLVER.resume_solution()
            except Exception as e:  # noqa: BLE001 - a hint never breaks the game
                code = f"{type(e).__name__}: {e}"
            move = _SOLVER.get_next_move() if code == gaps_pysolfc.SOLVED else None
            _log(game, self.level, code, move)
            if code != gaps_pysolfc.SOLVED:
                return own_hint.computeHints(self)
            if move is None:
                return None  # won
            if move.is_redeal:
                # PySolFC shows a deal only to its demo (Game.showHint asserts so): a
                # player whose line redeals next is told no card move is on it.
                if hint_level_is_demo_or_above(self.level):
                    self.addHint(HINT_SCORE, 0, game.s.talon, None)
                return None
            rows = game.s.rows
            return self.addHint(HINT_SCORE, 1, rows[move.from_index], rows[move.to_index])

    GapsHint.__name__ = "Gaps" + own_hint.__name__
    return GapsHint


def _always_solvable(base, name, seeds):
    class AlwaysSolvable(base):
        GAPS_GAME = name  # its deals are the game's own (gaps.pysolfc.game_type)

        # A fresh deal from the winnable numbers; an entered number stays as it is.
        def createRandom(self, random):
            if random is None and seeds:
                random = construct_random(str(self.app.gamerandom.choice(seeds)))
            base.createRandom(self, random)

    AlwaysSolvable.__name__ = base.__name__ + "AlwaysSolvable"
    return AlwaysSolvable


if gaps is not None:
    for game_class in (
        montana.Montana, montana.Spaces, montana.BlueMoon, montana.RedMoon,
        montana.Galary, montana.FreeParking, montana.Jungle, montana.SpacesAndAces,
        montana.Paganini, montana.HouseOfCommons, montana.Pretzel, montana.Station,
    ):
        # A class that inherits its hint class inherits the wrapped one.
        if "Hint_Class" in game_class.__dict__:
            game_class.Hint_Class = _gaps_hint(game_class.Hint_Class)

    from gaps.solvable_seeds import (
        line_up_solvable_seeds,
        paganini_solvable_seeds,
        spaces_and_aces_solvable_seeds,
    )

    # The games as montana.py registers them, under ids PySolFC leaves free.
    registerGame(GameInfo(
        30795, _always_solvable(
            montana.Pretzel, "line-up", line_up_solvable_seeds.SOLVABLE_SEEDS),
        "Line Up (Always Solvable)",
        GI.GT_MONTANA | GI.GT_OPEN | GI.GT_STRIPPED, 1, 0, GI.SL_MOSTLY_SKILL,
        ranks=(0, 1, 2, 3, 4, 5), si={"ncards": 20}))
    registerGame(GameInfo(
        30706, _always_solvable(
            montana.Paganini, "paganini", paganini_solvable_seeds.SOLVABLE_SEEDS),
        "Paganini (Always Solvable)",
        GI.GT_MONTANA | GI.GT_OPEN | GI.GT_STRIPPED, 1, 1, GI.SL_MOSTLY_SKILL,
        ranks=(0, 5, 6, 7, 8, 9, 10, 11, 12)))
    registerGame(GameInfo(
        30381,
        _always_solvable(
            montana.SpacesAndAces, "spaces-and-aces",
            spaces_and_aces_solvable_seeds.SOLVABLE_SEEDS),
        "Spaces and Aces (Always Solvable)",
        GI.GT_MONTANA | GI.GT_OPEN, 1, 0, GI.SL_MOSTLY_SKILL))
