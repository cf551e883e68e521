"""contrib/pysolfc/gaps_plugin.py loaded as PySolFC loads a plugin (a module run after
its games), against a stand-in of the pysollib modules it touches, shaped as they are
(pysollib/gamedb.py, hint.py, pysolrandom.py, games/montana.py). What it must do: wrap
the hint class of each game that has its own, register the three "Always Solvable"
games dealing from gaps' winnable lists, and give the step of a winning line as
PySolFC's hint tuple. (A run in PySolFC itself: docs/python.md, "PySolFC".)"""

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

from test_pysolfc import FakeGame

PLUGIN = Path(__file__).resolve().parents[2] / "contrib" / "pysolfc" / "gaps_plugin.py"

STANDIN = {
    "pysollib/__init__.py": "",
    "pysollib/games/__init__.py": "",
    "pysollib/gamedb.py": """
        class GI:
            GT_MONTANA, GT_OPEN, GT_STRIPPED = 1, 2, 4
            SL_MOSTLY_SKILL = 3
        class GameInfo:
            def __init__(self, id, gameclass, name, *args, **kw):
                self.id, self.gameclass, self.name = id, gameclass, name
        REGISTERED = []
        def registerGame(gi):
            REGISTERED.append(gi)
            return gi
    """,
    "pysollib/hint.py": """
        def hint_level_is_demo_or_above(level):
            return level >= 2
        class DefaultHint:
            def __init__(self, game, level):
                self.game, self.level, self.hints = game, level, []
            def addHint(self, score, ncards, from_stack, to_stack):
                self.hints.append((score, ncards, from_stack, to_stack))
            def computeHints(self):
                self.addHint(1, 1, "own", "hint")
    """,
    "pysollib/pysolrandom.py": """
        class Random:
            def __init__(self, seed):
                self.initial_seed = int(seed)
        def construct_random(seed):
            return Random(seed)
    """,
    "pysollib/games/montana.py": """
        from pysollib.hint import DefaultHint
        class Montana_Hint(DefaultHint): pass
        class Galary_Hint(Montana_Hint): pass
        class Game:
            def createRandom(self, random):
                self.random = random
        class Montana(Game): Hint_Class = Montana_Hint
        class Spaces(Montana): pass
        class BlueMoon(Montana): pass
        class RedMoon(BlueMoon): pass
        class Galary(RedMoon): Hint_Class = Galary_Hint
        class FreeParking(Montana): Hint_Class = Galary_Hint
        class Jungle(BlueMoon): Hint_Class = Galary_Hint
        class SpacesAndAces(BlueMoon): Hint_Class = Galary_Hint
        class Paganini(BlueMoon): pass
        class HouseOfCommons(BlueMoon): pass
        class Pretzel(BlueMoon): pass
        class Station(Montana): pass
        class DoubleMontana(Montana): pass
    """,
}


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    root = tmp_path_factory.mktemp("standin")
    for name, text in STANDIN.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location("gaps_plugin", PLUGIN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import pysollib.gamedb
    import pysollib.games.montana

    yield module, pysollib.games.montana, pysollib.gamedb
    sys.path.remove(str(root))
    for name in [m for m in sys.modules if m.startswith("pysollib")]:
        del sys.modules[name]


def test_each_own_hint_class_is_wrapped_once(plugin):
    _, montana, _ = plugin
    assert montana.Montana.Hint_Class.__name__ == "GapsMontana_Hint"
    assert montana.Spaces.Hint_Class is montana.Montana.Hint_Class  # inherited
    for game in (montana.Galary, montana.FreeParking, montana.Jungle, montana.SpacesAndAces):
        assert game.Hint_Class.__name__ == "GapsGalary_Hint"
        assert game.Hint_Class.__mro__[1].__name__ == "Galary_Hint"  # wrapped once


def test_always_solvable_games_deal_from_the_winnable_lists(plugin):
    _, montana, gamedb = plugin
    from gaps.solvable_seeds import paganini_solvable_seeds

    names = {gi.id: gi.name for gi in gamedb.REGISTERED}
    assert names == {
        30795: "Line Up (Always Solvable)",
        30706: "Paganini (Always Solvable)",
        30381: "Spaces and Aces (Always Solvable)",
    }
    paganini = next(gi.gameclass for gi in gamedb.REGISTERED if gi.id == 30706)
    assert issubclass(paganini, montana.Paganini) and paganini.GAPS_GAME == "paganini"
    game = paganini()
    game.app = type("App", (), {"gamerandom": __import__("random").Random(7)})()
    for _ in range(20):
        game.createRandom(None)
        assert game.random.initial_seed in paganini_solvable_seeds.SOLVABLE_SEEDS
    entered = object()
    game.createRandom(entered)
    assert game.random is entered  # a number entered by hand is dealt as entered


def test_the_hint_is_the_next_step_of_a_winning_line(plugin):
    _, montana, _ = plugin
    import gaps

    game = FakeGame(53, 5)
    line = gaps.solve(pysol="montana:5", played=[]).board_solution
    hint = montana.Montana.Hint_Class(game, 0)
    hint.computeHints()
    ((score, ncards, source, target),) = hint.hints
    (fr, fc), (tr, tc) = line[0]["from"], line[0]["to"]
    assert (ncards, source, target) == (1, game.s.rows[fr * 13 + fc], game.s.rows[tr * 13 + tc])
    assert score > 50000

    # A game gaps does not play answers with its own hint.
    other = FakeGame(53, 5)
    other.gameinfo.id = 877  # Double Montana
    hint = montana.DoubleMontana.Hint_Class(other, 0)
    hint.computeHints()
    assert hint.hints == [(1, 1, "own", "hint")]
