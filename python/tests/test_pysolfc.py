"""gaps.pysolfc through the calls PySolFC makes on its solvers (pysollib/hint.py), on
a stand-in for a PySolFC game: its rows of stacks, its GameInfo id, its seed and a
move history of AMoveMove and ANextRoundMove groups, as pysollib keeps them. The
stand-in plays the hints it is given, redeals included, to the won board."""

import pytest

import gaps
from gaps import pysolfc

RANKS, SUITS = "A23456789TJQK", "CSHD"


class Card:
    def __init__(self, text):
        self.rank, self.suit = RANKS.index(text[0]), SUITS.index(text[1])


class Stack:
    def __init__(self, id, card):
        self.id, self.cards = id, ([Card(card)] if card != "--" else [])


# The names PySolFC's move classes have (pysollib/move.py); only names are read.
class AMoveMove:
    def __init__(self, from_stack, to_stack):
        self.ncards, self.from_stack_id, self.to_stack_id = 1, from_stack, to_stack


class AShuffleStackMove:
    pass


class ANextRoundMove:
    pass


class Namespace:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class FakeGame:
    """A PySolFC Gaps game as its hint classes see it."""

    def __init__(self, gid, number):
        self.gameinfo = Namespace(id=gid, name=pysolfc.GAMES[gid])
        self.random = Namespace(initial_seed=number)
        name = f"{pysolfc.GAMES[gid]}:{number}"
        self.name = name
        self.moves = Namespace(history=[], index=0)
        self.talon = Stack(999, "--")
        self._lay(gaps.deal(pysol=name))

    def _lay(self, board):
        rows = [r.split() for r in board.split("/")]
        self.RSTEP = len(rows[0])
        self.s = Namespace(rows=[Stack(i, c) for i, c in enumerate(sum(rows, []))])

    def play(self, move):
        """Plays a hint: a card from one row stack to another, or the redeal."""
        del self.moves.history[self.moves.index :]
        if move.is_redeal:
            steps = pysolfc.played_steps(self) + [move.step]
            board = gaps.solve(pysol=self.name, played=steps, nodes=1).to_dict()["played_board"]
            self._lay(board)
            group = [AMoveMove(0, 999), AShuffleStackMove(), ANextRoundMove(), AMoveMove(999, 0)]
        else:
            source, target = self.s.rows[move.from_index], self.s.rows[move.to_index]
            assert pysolfc.card_text(source.cards[-1]) == move.card
            assert not target.cards, "a hint moves a card into a gap"
            target.cards, source.cards = source.cards, []
            group = [AMoveMove(source.id, target.id)]
        self.moves.history.append(group)
        self.moves.index += 1


def hint(game, nodes=None, solver=None):
    """PySolFC's sequence of calls (BlackHoleSolver_Hint.computeHints), on one solver
    kept between hints as hint.py keeps its module-level solver objects."""
    solver = solver or pysolfc.GapsSolver()
    solver.recycle()
    solver.read_board(
        board=pysolfc.board_text(game),
        game_type=pysolfc.game_type(game),
        game_number=game.random.initial_seed,
        played=pysolfc.played_steps(game),
    )
    if nodes:
        solver.limit_iterations(nodes)
    code = solver.resume_solution()
    moves = []
    move = solver.get_next_move()
    while move:
        moves.append(move)
        move = solver.get_next_move()
    return code, solver, moves


def redealing_montana_game():
    for number in range(1, 200):
        answer = gaps.solve(pysol=f"montana:{number}", time_ms=20000)
        if any("redeal" in s for s in answer.board_solution or []):
            return number
    raise AssertionError("no Montana game in 1..199 whose line redeals")


@pytest.mark.parametrize("gid", [53, 63, 275])  # Montana, Blue Moon, Galary
def test_hints_played_one_by_one_win_the_game(gid):
    number = redealing_montana_game() if gid == 53 else 3
    game = FakeGame(gid, number)
    redeals = 0
    solver = pysolfc.GapsSolver()
    searches = 0
    for _ in range(400):
        code, solver, moves = hint(game, solver=solver)
        assert code == pysolfc.SOLVED, solver.answer.to_dict()
        assert not solver.ret_code_is_suspend(code)
        searches += solver.get_num_times() > 0
        if not moves:
            break
        redeals += moves[0].is_redeal
        game.play(moves[0])
    else:
        raise AssertionError("not won in 400 hints")
    # Won: the engine, asked about the board reached, has nothing left to play.
    won = gaps.solve(pysol=game.name, played=pysolfc.played_steps(game))
    assert won.solvable and won.solution == []
    # One search: each later hint is the rest of the line it found.
    assert searches == 1
    if gid == 53:
        assert redeals >= 1


def test_a_step_off_the_line_is_searched_again():
    game = FakeGame(53, 5)
    code, solver, line = hint(game)
    assert code == pysolfc.SOLVED
    searched = solver.get_num_times()
    # Another legal move than the hint's: the next hint comes from a new search.
    legal = gaps.solve(pysol=game.name, played=[], nodes=1).legal_moves
    other = next(m for m in legal if m != line[0].step)
    columns = game.RSTEP
    game.play(pysolfc.Move(False, other["card"], other["from"][0] * columns + other["from"][1],
                           other["to"][0] * columns + other["to"][1], other))
    code, again, _ = hint(game, solver=solver)
    assert again.answer.to_dict()["played_steps"] == 1  # a new answer, for this board
    assert searched > 0


def test_the_history_read_is_the_line_played_and_undo_is_respected():
    game = FakeGame(53, 5)
    _, _, line = hint(game)
    for move in line[:6]:
        if move.is_redeal:
            break
        game.play(move)
    played = pysolfc.played_steps(game)
    assert played == [m.step for m in line[: len(played)]]
    game.moves.index -= 2  # two undos: the history beyond the index is redo
    assert pysolfc.played_steps(game) == played[:-2]


def test_a_board_that_the_steps_do_not_reach_is_refused():
    game = FakeGame(53, 5)
    _, _, line = hint(game)
    game.play(line[0])
    solver = pysolfc.GapsSolver()
    solver.read_board(
        board=gaps.deal(pysol="montana:5"),  # the deal, not the board after a move
        game_type="montana",
        game_number=5,
        played=pysolfc.played_steps(game),
    )
    with pytest.raises(gaps.InvalidSteps):
        solver.resume_solution()


def test_a_board_off_the_line_is_refused_even_when_the_line_is_kept():
    game = FakeGame(53, 5)
    solver = pysolfc.GapsSolver()
    _, _, line = hint(game, solver=solver)
    game.play(line[0])
    solver.recycle()
    solver.read_board(
        board=gaps.deal(pysol="montana:5"),  # not the board after the step played
        game_type="montana",
        game_number=5,
        played=pysolfc.played_steps(game),
    )
    with pytest.raises(gaps.InvalidSteps):
        solver.resume_solution()


def test_limits_suspend_and_bad_games_raise():
    game = FakeGame(53, 5)
    code, solver, moves = hint(game, nodes=10)
    assert code == pysolfc.SUSPENDED and solver.ret_code_is_suspend(code) and moves == []
    with pytest.raises(gaps.InvalidInput):
        pysolfc.GapsSolver().read_board(game_type=53)  # no game number
    with pytest.raises(gaps.InvalidInput):
        pysolfc.GapsSolver().read_board(game_type=1, game_number=5)  # not a Gaps game
    with pytest.raises(gaps.InvalidGame):
        solver = pysolfc.GapsSolver()
        solver.read_board(game_type="montana", game_number=0)
        solver.resume_solution()
