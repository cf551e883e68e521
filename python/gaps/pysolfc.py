"""PySolFC's solver interface for its twelve Gaps games (docs/python.md, "PySolFC").

PySolFC drives its solver modules (``black_hole_solver``, ``freecell_solver``) through
one sequence of calls (``pysollib/hint.py``)::

    solver.recycle()
    solver.read_board(board=..., ...)
    solver.limit_iterations(n)
    code = solver.resume_solution()
    while (move := solver.get_next_move()):
        ...

:class:`GapsSolver` answers the same calls for a Gaps game: ``read_board`` takes the
game (its name and number, as PySolFC deals it) and the steps played since the deal,
and the board the player sees, which it checks against the one those steps reach; the
moves are on PySolFC's board (``game.s.rows`` indices), a redeal among them.
:func:`played_steps` reads those steps off a PySolFC game's move history.

Invariant: a move given is the next step of a winning line that the engine found and
replayed from the board read, under the game's own rules and redeals (the redeals'
shuffles are PySolFC's own, from the game number); nothing here searches itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence

from . import InvalidInput, InvalidSteps, Solution, Step, solve

#: ``resume_solution()``: a winning line was found; its moves follow.
SOLVED = 0
#: ``resume_solution()``: proved lost from this board, redeals and all.
UNSOLVABLE = 1
#: ``resume_solution()``: the limit was reached first (``ret_code_is_suspend``).
SUSPENDED = 2

#: PySolFC's Gaps games, by their ``GameInfo`` id (pysollib/games/montana.py), as the
#: engine names them.
GAMES: Dict[int, str] = {
    53: "montana",
    116: "spaces",
    63: "blue-moon",
    117: "red-moon",
    275: "galary",
    276: "free-parking",
    380: "jungle",
    381: "spaces-and-aces",
    706: "paganini",
    794: "house-of-commons",
    795: "line-up",
    858: "station",
}

_RANKS = "A23456789TJQK"
_SUITS = "CSHD"


@dataclass(frozen=True)
class Move:
    """A step of the winning line on PySolFC's board: a card moved from the row stack
    ``from_index`` to the gap ``to_index`` (indices of ``game.s.rows``), or a redeal
    (``is_redeal``: deal the talon, PySolFC's ``canDealCards``)."""

    is_redeal: bool
    card: Optional[str]
    from_index: Optional[int]
    to_index: Optional[int]
    step: Step

    def get_column_idx(self) -> Optional[int]:
        """The stack the card moves from, as ``black_hole_solver``'s moves name it."""
        return self.from_index


def _board_rows(board: str) -> List[List[str]]:
    return [row.split() for row in board.strip().split("/")]


class GapsSolver:
    """One solver, reused across hints as PySolFC reuses its solver objects.

    It keeps the last winning line it found (across ``recycle``): a board reached by
    playing the start of that line is answered with the rest of it, without a search
    (the steps are replayed to check the board).
    So hints followed one by one play one line to the win, rather than a new search
    at each step choosing a new line (which could lead back to a board seen before).
    A step off the line asks the engine again."""

    def __init__(self) -> None:
        self._line: Optional[tuple] = None  # (game, played, line) of the last win found
        self.recycle()

    def recycle(self) -> None:
        """Forgets the board, the limits and the answer of the last search."""
        self._game: Optional[str] = None
        self._played: List[Step] = []
        self._board: Optional[str] = None
        self._columns = 0
        self._nodes: Optional[int] = None
        self._time_ms: Optional[int] = None
        self._answer: Optional[Solution] = None
        self._moves: Iterator[Move] = iter(())

    def read_board(
        self,
        board: Optional[str] = None,
        game_type: str = "montana",
        game_number: Optional[int] = None,
        played: Sequence[Step] = (),
        **_ignored: Any,
    ) -> None:
        """The game to solve: ``game_type`` (``"montana"``, ``"blue-moon"``, ... or a
        PySolFC ``GameInfo`` id), its number ``game_number`` and the ``played`` steps
        since the deal (:func:`played_steps`). ``board``, the board the player sees as
        :func:`board_text` writes it, must be the one those steps reach
        (:class:`gaps.InvalidSteps` if not). Other keywords PySolFC passes to its
        solvers are accepted and unused."""
        if isinstance(game_type, int):
            if game_type not in GAMES:
                raise InvalidInput(f"game_type: PySolFC game id {game_type} is not a Gaps game")
            game_type = GAMES[game_type]
        if game_number is None:
            raise InvalidInput(
                "game_number: a Gaps game's redeals are shuffled by its own numbered deal,"
                " so the hint needs the game's number"
            )
        self._game = f"{game_type}:{int(game_number)}"
        self._played = list(played)
        self._board = board
        self._answer = None
        self._moves = iter(())

    def limit_iterations(self, positions: int) -> None:
        """At most ``positions`` positions searched (then ``SUSPENDED``)."""
        self._nodes = max(1, int(positions))

    def limit_time_ms(self, milliseconds: int) -> None:
        """At most ``milliseconds`` of search (then ``SUSPENDED``)."""
        self._time_ms = max(1, int(milliseconds))

    def resume_solution(self) -> int:
        """Searches the board read: ``SOLVED``, ``UNSOLVABLE`` or ``SUSPENDED``."""
        if self._game is None:
            raise InvalidInput("read_board first")
        rest = self._rest_of_line()
        if rest is not None:
            # The steps replayed (a one-position search) for the board they reach.
            self._check_board(solve(pysol=self._game, played=self._played, nodes=1))
            self._columns = len(_board_rows(self._board or "")[0])
            self._moves = (self._move(step) for step in rest)
            return SOLVED
        answer = solve(
            pysol=self._game,
            played=self._played,
            nodes=self._nodes,
            time_ms=self._time_ms,
        )
        reached = self._check_board(answer)
        self._answer = answer
        self._columns = len(_board_rows(reached or answer.position)[0])
        line = answer.board_solution or []
        self._moves = (self._move(step) for step in line)
        if answer.verdict == "solvable":
            self._line = (self._game, list(self._played), list(line))
            return SOLVED
        return UNSOLVABLE if answer.verdict == "unsolvable" else SUSPENDED

    def _check_board(self, answer: Solution) -> Optional[str]:
        """The board the played steps reach (``played_board``), which must be the board
        read, if one was."""
        reached = answer.to_dict().get("played_board")
        if self._board is not None and reached is not None:
            if _board_rows(self._board) != _board_rows(reached):
                raise InvalidSteps(
                    f"the board read is not the one the played steps reach ({reached})"
                )
        return reached

    def _rest_of_line(self) -> Optional[List[Step]]:
        """The rest of the last line found, if the steps played follow it this far."""
        if self._line is None or self._board is None:
            return None
        game, before, line = self._line
        since = self._played[len(before) :]
        if game != self._game or self._played[: len(before)] != before:
            return None
        if since != line[: len(since)]:
            return None
        return line[len(since) :]

    def ret_code_is_suspend(self, code: int) -> bool:
        return code == SUSPENDED

    def get_next_move(self) -> Optional[Move]:
        """The next step of the winning line, or ``None`` after the last."""
        return next(self._moves, None)

    def get_num_times(self) -> int:
        """Positions searched."""
        return self._answer.stats.nodes if self._answer else 0

    def get_num_states_in_collection(self) -> int:
        """Positions stored by the search."""
        return int(self._answer.stats.raw.get("stored", 0)) if self._answer else 0

    @property
    def played(self) -> List[Step]:
        """The steps read with the board."""
        return list(self._played)

    @property
    def answer(self) -> Optional[Solution]:
        """The whole answer of the last search (verdict, line, statistics)."""
        return self._answer

    def _move(self, step: Step) -> Move:
        if "redeal" in step:
            return Move(True, None, None, None, step)
        (fr, fc), (tr, tc) = step["from"], step["to"]
        return Move(False, step["card"], fr * self._columns + fc, tr * self._columns + tc, step)


def card_text(card: Any) -> str:
    """A PySolFC card (``rank`` 0..12 from the ace, ``suit`` 0..3 as clubs, spades,
    hearts, diamonds) as the notation writes it: ``5H``."""
    return _RANKS[card.rank] + _SUITS[card.suit]


def board_text(game: Any) -> str:
    """The board of a PySolFC Gaps game (its ``s.rows``, ``RSTEP`` cells a row) as
    ``gaps deal --pysol`` writes boards: cells by spaces, rows by ``/``, a gap ``--``."""
    cells = [card_text(s.cards[-1]) if s.cards else "--" for s in game.s.rows]
    step = game.RSTEP
    return "/".join(" ".join(cells[i : i + step]) for i in range(0, len(cells), step))


def game_type(game: Any) -> str:
    """The engine's name of a PySolFC game: its class's ``GAPS_GAME`` (a version that
    deals the game's own deals under another id, as contrib/pysolfc's "Always Solvable"
    games), else by its ``GameInfo`` id."""
    named = getattr(game, "GAPS_GAME", None)
    if named is not None:
        return str(named)
    gid = game.gameinfo.id
    if gid not in GAMES:
        raise InvalidInput(f"PySolFC game {game.gameinfo.name!r} is not one of the Gaps games")
    return GAMES[gid]


def played_steps(game: Any) -> List[Step]:
    """The steps played in a PySolFC game since its deal, from its move history up to
    the undo point (``game.moves.history[:game.moves.index]``): each group that moves
    a card from one row stack to another is a move, each group that starts a new round
    (``ANextRoundMove``) the redeal ``{"redeal": k}``. The cards are those of the
    game's deal (:func:`gaps.deal`), followed step by step, and after a redeal those of
    the board the engine says it deals."""
    rows = game.s.rows
    step = game.RSTEP
    where = {stack.id: i for i, stack in enumerate(rows)}
    name = f"{game_type(game)}:{int(game.random.initial_seed)}"
    from . import deal

    cells = [c for row in _board_rows(deal(pysol=name)) for c in row]
    steps: List[Step] = []
    rounds = 0
    for group in game.moves.history[: game.moves.index]:
        kinds = {type(atom).__name__ for atom in group}
        if "ANextRoundMove" in kinds:
            rounds += 1
            steps.append({"redeal": rounds})
            board = solve(pysol=name, played=steps, nodes=1).to_dict()["played_board"]
            cells = [c for row in _board_rows(board) for c in row]
            continue
        for atom in group:
            if type(atom).__name__ != "AMoveMove":
                continue
            source, target = where.get(atom.from_stack_id), where.get(atom.to_stack_id)
            if source is None or target is None:
                continue  # not a move between two cells of the board
            card = cells[source]
            steps.append(
                {
                    "card": card,
                    "from": list(divmod(source, step)),
                    "to": list(divmod(target, step)),
                }
            )
            cells[target], cells[source] = card, "--"
    return steps
