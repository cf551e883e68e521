"""Schemathesis hooks for the gaps service: teach the generator the `gaps-position`
string format of `POST /v1/jobs` (docs/notation.md): S rows of R cells, one gap per
row, every card of ranks 2..R of the first S suits exactly once. Any such arrangement
is a valid position, so a schema-valid request carries one.

Also works around a CPython 3.11 fault in `ast.parse` under threads (below)."""

import ast
import threading

import schemathesis
from hypothesis import strategies as st

RANKS = "A23456789TJQK"
SUITS = "SHDCEFGI"


@st.composite
def positions(draw):
    suits = draw(st.integers(min_value=1, max_value=8))
    ranks = draw(st.integers(min_value=3, max_value=13))
    cards = [RANKS[r] + SUITS[s] for s in range(suits) for r in range(1, ranks)]
    cells = draw(st.permutations(cards + ["--"] * suits))
    rows = [" ".join(cells[i * ranks:(i + 1) * ranks]) for i in range(suits)]
    return "/".join(rows)


schemathesis.openapi.format("gaps-position", positions())


# CPython 3.11 keeps the depth counter of its AST constructor in state shared by all
# threads, and can raise a spurious `SystemError: AST constructor recursion depth
# mismatch` from `ast.parse` when threads build ASTs at once (python/cpython#106905).
# Hypothesis parses lambda sources to describe strategies, and schemathesis runs its
# workers as threads, so a run could fail on the fuzzer's own bookkeeping, with no
# request sent. Serialise `ast.parse` and, should the fault still show, parse once
# more: the description of a strategy does not touch what is sent.
_parse = ast.parse
_parse_lock = threading.Lock()


def _serialised_parse(*args, **kwargs):
    with _parse_lock:
        try:
            return _parse(*args, **kwargs)
        except SystemError as error:
            if "recursion depth mismatch" not in str(error):
                raise
            return _parse(*args, **kwargs)


ast.parse = _serialised_parse
