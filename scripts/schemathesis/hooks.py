"""Schemathesis hooks for the gaps service: teach the generator the `gaps-position`
string format of `POST /v1/jobs` (docs/notation.md): S rows of R cells, one gap per
row, every card of ranks 2..R of the first S suits exactly once. Any such arrangement
is a valid position, so a schema-valid request carries one."""

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
