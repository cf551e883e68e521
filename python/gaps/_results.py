"""What the calls of :mod:`gaps` answer: objects with typed fields over the JSON that
the ``gaps`` command line prints with ``--json``, which ``to_dict()`` gives back whole.

Invariant: every field is read from that JSON and nothing else, so an object and the
command line's answer never disagree; ``to_dict()`` returns a fresh copy of it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

#: A step of a line: a move ``{"card": "5H", "from": [row, col], "to": [row, col]}``
#: (rows and columns from 0) or a redeal ``{"redeal": k}`` (docs/notation.md).
Step = Dict[str, Any]


class GapsError(Exception):
    """A call of :mod:`gaps` that gave no answer."""


class InvalidInput(GapsError, ValueError):
    """Bad input: what the command line refuses (exit code 2), with its message."""


class InvalidPosition(InvalidInput):
    """The position given is not one (``invalid position: ...``)."""


class InvalidGame(InvalidInput):
    """The PySolFC game or game number named is not one (``--pysol: ...``)."""


class InvalidSteps(InvalidInput):
    """The played steps are not steps, or a step the game's rules refuse."""


class InternalError(GapsError, RuntimeError):
    """A failure of the solver itself (the command line exits 1): a bug to report."""


@dataclass(frozen=True)
class Stats:
    """The search's statistics (``stats`` in the JSON; docs/notation.md)."""

    nodes: int
    elapsed_ms: float
    nodes_per_second: float
    max_depth: int
    threads: int
    memory_mb: int
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def of(cls, json: Dict[str, Any]) -> "Stats":
        return cls(
            nodes=json["nodes"],
            elapsed_ms=json["elapsed_ms"],
            nodes_per_second=json["nodes_per_second"],
            max_depth=json["max_depth"],
            threads=json["threads"],
            memory_mb=json["memory_mb"],
            raw=json,
        )


class _Answer:
    _json: Dict[str, Any]

    def to_dict(self) -> Dict[str, Any]:
        """The command line's ``--json`` answer, as a fresh dictionary."""
        return copy.deepcopy(self._json)


@dataclass(frozen=True)
class Solution(_Answer):
    """A verdict about a position, a numbered deal, a PySolFC game or a game in progress.

    ``verdict`` is ``"solvable"`` (``solution`` wins, replayed before it was returned),
    ``"unsolvable"`` (proved: no line wins) or ``"unknown"`` (a limit was reached:
    ``stopped`` says which). ``hint`` is the next step to play, for a solvable answer.
    For a PySolFC game, ``board_solution`` and ``board_hint`` are the same on PySolFC's
    own board (the cells its window shows).
    """

    verdict: str
    solution: List[Step]
    hint: Optional[Step]
    stats: Stats
    position: str
    variant: str
    algorithm: str
    stopped: Optional[str]
    board_solution: Optional[List[Step]]
    board_hint: Optional[Step]
    legal_moves: Optional[List[Step]]
    _json: Dict[str, Any] = field(repr=False, compare=False)

    @property
    def solvable(self) -> bool:
        return self.verdict == "solvable"

    @classmethod
    def of(cls, json: Dict[str, Any]) -> "Solution":
        solution = json["solution"]
        pysol = json.get("pysol") or {}
        board_solution = pysol.get("board_solution")
        hint = json.get("hint", solution[0] if solution else None)
        board_hint = json.get(
            "board_hint", board_solution[0] if board_solution else None
        )
        return cls(
            verdict=json["verdict"],
            solution=solution,
            hint=hint,
            stats=Stats.of(json["stats"]),
            position=json["position"],
            variant=json["variant"],
            algorithm=json["algorithm"],
            stopped=json.get("stopped"),
            board_solution=board_solution,
            board_hint=board_hint,
            legal_moves=json.get("legal_moves"),
            _json=json,
        )


@dataclass(frozen=True)
class Review(_Answer):
    """A played game reviewed (``gaps review``): whether it can still be won, and if
    not, the first step after which it could not (``fatal_step``, counted from 0), with
    a line that wins from before it (``winning_line``; on PySolFC's board:
    ``board_winning_line``)."""

    still_winnable: bool
    lost_from_start: bool
    fatal_step: Optional[int]
    winning_line: Optional[List[Step]]
    board_winning_line: Optional[List[Step]]
    unknown_steps: List[int]
    played_steps: int
    played_position: str
    redeals_left: int
    stats: Stats
    _json: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def of(cls, json: Dict[str, Any]) -> "Review":
        review = json["review"]
        return cls(
            still_winnable=review["still_winnable"],
            lost_from_start=review["lost_from_start"],
            fatal_step=review.get("fatal_step"),
            winning_line=review.get("winning_line"),
            board_winning_line=review.get("board_winning_line"),
            unknown_steps=review["unknown_steps"],
            played_steps=json["played_steps"],
            played_position=json["played_position"],
            redeals_left=json["redeals_left"],
            stats=Stats.of(json["stats"]),
            _json=json,
        )


@dataclass(frozen=True)
class WinRate(_Answer):
    """A run over numbered deals or PySolFC games (``gaps winrate``): the counts, the
    win rate with its Wilson 95% interval (unknowns left out), and the search's cost."""

    deals: int
    solvable: int
    unsolvable: int
    unknown: int
    win_rate: float
    ci95_low: float
    ci95_high: float
    nodes: int
    elapsed_ms: float
    _json: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def of(cls, json: Dict[str, Any]) -> "WinRate":
        return cls(
            deals=json["deals"],
            solvable=json["solvable"],
            unsolvable=json["unsolvable"],
            unknown=json["unknown"],
            win_rate=json["win_rate"],
            ci95_low=json["ci95_low"],
            ci95_high=json["ci95_high"],
            nodes=json["nodes"],
            elapsed_ms=json["elapsed_ms"],
            _json=json,
        )


Answer = Union[Solution, Review, WinRate]
