"""Gaps (Montana, Blue Moon, Spaces, Rangoon...) solved from Python: verdicts,
solutions, hints, reviews of played games and win rates (docs/python.md).

Each function is a command of the ``gaps`` command line run in this process: its
keywords are the command's flags (``time_ms`` is ``--time-ms``), checked by the same
checks, and its answer is the JSON that the command's ``--json`` prints, as an object
(``to_dict()`` gives the JSON back). Bad input raises :class:`InvalidInput` (a
``ValueError``) with the command line's message. A search runs without the GIL;
Ctrl-C stops it within about a thousand positions and raises ``KeyboardInterrupt``.
"""

from __future__ import annotations

import json as _json
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import _native
from ._results import (
    GapsError,
    InternalError,
    InvalidGame,
    InvalidInput,
    InvalidPosition,
    InvalidSteps,
    Review,
    Solution,
    Stats,
    Step,
    WinRate,
)

__all__ = [
    "solve",
    "review",
    "deal",
    "winrate",
    "Solution",
    "Review",
    "WinRate",
    "Stats",
    "Step",
    "GapsError",
    "InvalidInput",
    "InvalidPosition",
    "InvalidGame",
    "InvalidSteps",
    "InternalError",
]
__version__: str = _native.__version__

_SUBJECTS = {
    "position": InvalidPosition,
    "game": InvalidGame,
    "steps": InvalidSteps,
}


def _run(
    args: List[str],
    stdin: Optional[str] = None,
    progress: Optional[Callable[[int], Any]] = None,
) -> Any:
    """Runs the command ``args``; its ``--json`` answer parsed, or ``deal``'s lines."""
    try:
        kind, payload = _native.call(args, stdin, progress)
    except _native.CallFailed as failure:
        what, subject, message = failure.args
        if what == "internal":
            raise InternalError(message) from None
        raise _SUBJECTS.get(subject, InvalidInput)(message) from None
    return _json.loads(payload) if kind == "json" else payload


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _flags(**given: Any) -> List[str]:
    """Flags for keywords given: ``True`` a bare flag, ``None`` and ``False`` none."""
    args: List[str] = []
    for name, value in given.items():
        if value is None or value is False:
            continue
        if value is True:
            args.append(_flag(name))
        elif isinstance(value, (int, float, str)) or hasattr(value, "__fspath__"):
            args += [_flag(name), str(value)]
        else:
            raise TypeError(f"{name}: expected a number or a string, got {value!r}")
    return args


def _source(
    position: Optional[str],
    deal: Optional[int],
    pysol: Optional[str],
    suits: Optional[int],
    ranks: Optional[int],
) -> List[str]:
    """The arguments that name what is solved; a position last, after ``--`` (it may
    begin with a gap, ``--``, and takes every argument after it)."""
    args = _flags(deal=deal, pysol=pysol, suits=suits, ranks=ranks)
    if position is None:
        if deal is None and pysol is None:
            raise InvalidInput("give a position, a deal= number or a pysol= game")
        return args
    if not isinstance(position, str):
        raise TypeError(f"position: expected a string, got {position!r}")
    return args + ["--", position]


def _played(steps: Optional[Sequence[Step]]) -> Optional[str]:
    if steps is None:
        return None
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence):
        raise TypeError("played: expected a list of steps (dictionaries)")
    return _json.dumps(list(steps))


def solve(
    position: Optional[str] = None,
    *,
    deal: Optional[int] = None,
    pysol: Optional[str] = None,
    suits: Optional[int] = None,
    ranks: Optional[int] = None,
    variant: Optional[str] = None,
    redeals: Optional[int] = None,
    played: Optional[Sequence[Step]] = None,
    algorithm: Optional[str] = None,
    nodes: Optional[int] = None,
    time_ms: Optional[int] = None,
    table_mb: Optional[int] = None,
    search_seed: Optional[int] = None,
    probes: Optional[int] = None,
    search_threads: Optional[int] = None,
    spill_dir: Optional[str] = None,
) -> Solution:
    """Solves a position, our numbered deal ``deal`` (``suits`` x ``ranks``, default 4
    x 13), or a PySolFC game (``pysol="montana:5"``), under ``variant`` (``basic``,
    ``common``, ``aisleriot``; a PySolFC game's is its own) with ``redeals``.

    With ``played`` (the steps played since the deal), the answer is about the rest of
    the game: ``hint`` is the next step, ``legal_moves`` what may be played.
    Limits (``nodes``, ``time_ms``, ``table_mb``) make ``verdict`` ``"unknown"`` when
    reached, never wrong. This is ``gaps solve ... --json``.
    """
    args = _source(position, deal, pysol, suits, ranks)
    search = _flags(
        variant=variant,
        redeals=redeals,
        algorithm=algorithm,
        nodes=nodes,
        time_ms=time_ms,
        table_mb=table_mb,
        search_seed=search_seed,
        probes=probes,
        search_threads=search_threads,
        spill_dir=spill_dir,
    )
    steps = _played(played)
    if steps is not None:
        search += ["--played", "-"]  # `-`: the steps, handed over as standard input
    return Solution.of(_run(["solve"] + search + args, steps))


def review(
    played: Sequence[Step],
    position: Optional[str] = None,
    *,
    deal: Optional[int] = None,
    pysol: Optional[str] = None,
    suits: Optional[int] = None,
    ranks: Optional[int] = None,
    variant: Optional[str] = None,
    redeals: Optional[int] = None,
    algorithm: Optional[str] = None,
    nodes: Optional[int] = None,
    time_ms: Optional[int] = None,
    table_mb: Optional[int] = None,
    search_threads: Optional[int] = None,
) -> Review:
    """Reviews a played game (``played``: its steps from the deal): the first step after
    which it could no longer be won, and a line that wins from before it. This is
    ``gaps review ... --json``; ``nodes`` and ``time_ms`` bound each of its searches."""
    steps = _played(played)
    args = _source(position, deal, pysol, suits, ranks)
    search = _flags(
        variant=variant,
        redeals=redeals,
        algorithm=algorithm,
        nodes=nodes,
        time_ms=time_ms,
        table_mb=table_mb,
        search_threads=search_threads,
    )
    return Review.of(_run(["review", "--played", "-"] + search + args, steps))


def deal(
    seed: Optional[int] = None,
    *,
    pysol: Optional[str] = None,
    suits: Optional[int] = None,
    ranks: Optional[int] = None,
    position: bool = False,
    count: Optional[int] = None,
) -> Union[str, List[str]]:
    """Our numbered deal ``seed`` as the command line prints it (every card; with
    ``position=True`` the starting position, aces out), or a PySolFC game
    (``pysol="montana:5"``) as PySolFC lays it out. With ``count``, a list of that many
    consecutive deals. This is ``gaps deal``."""
    lines = _run(
        ["deal"]
        + _flags(
            seed=seed,
            pysol=pysol,
            suits=suits,
            ranks=ranks,
            position=position,
            count=count,
        )
    )
    return lines if count is not None else lines[0]


def winrate(
    deals: int,
    *,
    seed: Optional[int] = None,
    pysol: Optional[str] = None,
    suits: Optional[int] = None,
    ranks: Optional[int] = None,
    variant: Optional[str] = None,
    redeals: Optional[int] = None,
    algorithm: Optional[str] = None,
    nodes: Optional[int] = None,
    time_ms: Optional[int] = None,
    table_mb: Optional[int] = None,
    threads: Optional[int] = None,
    search_threads: Optional[int] = None,
    out: Optional[str] = None,
    progress: Optional[Callable[[int, int], Any]] = None,
) -> WinRate:
    """Solves ``deals`` numbered deals from ``seed`` (or PySolFC's games from number
    ``seed``, ``pysol="montana"``) on ``threads`` threads and returns the win rate.
    ``progress(done, deals)`` is called as deals finish (an exception it raises stops
    the run and is raised here); ``out`` names a resumable CSV file, one line a deal.
    This is ``gaps winrate ... --json``."""
    args = ["winrate"] + _flags(
        deals=deals,
        seed=seed,
        pysol=pysol,
        suits=suits,
        ranks=ranks,
        variant=variant,
        redeals=redeals,
        algorithm=algorithm,
        nodes=nodes,
        time_ms=time_ms,
        table_mb=table_mb,
        threads=threads,
        search_threads=search_threads,
        out=out,
    )
    report: Optional[Callable[[int], Any]] = None
    if progress is not None:
        report = lambda done: progress(done, deals)  # noqa: E731
    return WinRate.of(_run(args, None, report))


def run(args: Sequence[str], stdin: Optional[str] = None) -> Union[Dict[str, Any], List[str]]:
    """Any of the commands above by its command-line arguments (``["solve", "--deal",
    "5"]``): the JSON its ``--json`` prints, as a dictionary (``deal``: its lines)."""
    return _run([str(a) for a in args], stdin)
