"""PySolFC game numbers proved winnable as played, one module a game
(``<game>_solvable_seeds.py``, ``SOLVABLE_SEEDS``), each made by the ``gaps winnable``
command its header names (docs/pysol.md, "Winnable lists"): the lists the "Always
Solvable" versions of contrib/pysolfc deal from, as PySolFC's Klondike (Always
Solvable) deals from ``klondike_solvable_seeds.py``."""
