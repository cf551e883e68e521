"""The Python package against the command line it wraps: the same answers on the same
deals, PySolFC games, played steps and reviews, the same refusals with the same words,
and a search that gives the GIL away and stops on Ctrl-C.

The binary compared with is GAPS_BIN (default: the repository's target/debug/gaps).
"""

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

import gaps

ROOT = Path(__file__).resolve().parents[2]
GAPS_BIN = os.environ.get("GAPS_BIN", str(ROOT / "target" / "debug" / "gaps"))

# What differs between two runs of the same search: its clock.
TIMING = {"elapsed_ms", "nodes_per_second", "memory_wait_ms", "gave_way_ms"}


def cli(*args, stdin=None):
    """The binary's answer: (exit code, stdout, stderr)."""
    run = subprocess.run(
        [GAPS_BIN, *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return run.returncode, run.stdout, run.stderr


def cli_json(*args, stdin=None):
    code, out, err = cli(*args, stdin=stdin)
    assert code == 0, err
    return json.loads(out)


def untimed(answer):
    """An answer less its clock readings, at any depth."""
    if isinstance(answer, dict):
        return {k: untimed(v) for k, v in answer.items() if k not in TIMING}
    if isinstance(answer, list):
        return [untimed(v) for v in answer]
    return answer


def cli_refusal(*args, stdin=None):
    code, _, err = cli(*args, stdin=stdin)
    assert code == 2, err
    return err.strip().removeprefix("error: ")


@pytest.mark.parametrize("variant", ["basic", "common", "aisleriot"])
def test_verdicts_equal_the_command_lines_on_the_same_deals(variant):
    for number in range(40):
        ours = gaps.solve(deal=number, suits=3, ranks=5, variant=variant, search_threads=1)
        theirs = cli_json(
            "solve", "--deal", number, "--suits", 3, "--ranks", 5,
            "--variant", variant, "--search-threads", 1, "--json",
        )
        assert untimed(ours.to_dict()) == untimed(theirs), number
        assert ours.verdict in ("solvable", "unsolvable")
        assert ours.solvable == (ours.verdict == "solvable")
        assert ours.hint == (ours.solution[0] if ours.solution else None)
        assert ours.stats.nodes == theirs["stats"]["nodes"]


def test_a_position_given_as_text_is_the_deal_it_prints():
    position = gaps.deal(11, suits=2, ranks=5, position=True)
    assert position == cli("deal", "--seed", 11, "--suits", 2, "--ranks", 5, "--position")[1].strip()
    by_text = gaps.solve(position, variant="basic")
    by_number = gaps.solve(deal=11, suits=2, ranks=5, variant="basic")
    assert untimed(by_text.to_dict()) == untimed(by_number.to_dict())
    assert gaps.deal(3, count=3) == cli("deal", "--seed", 3, "--count", 3)[1].splitlines()


def test_a_pysolfc_game_answers_as_the_command_line_does():
    ours = gaps.solve(pysol="montana:5", time_ms=20000)
    theirs = cli_json("solve", "--pysol", "montana:5", "--time-ms", 20000, "--json")
    assert ours.verdict == theirs["verdict"] == "solvable"
    assert ours.to_dict()["pysol"]["board"] == theirs["pysol"]["board"]
    assert ours.board_hint == ours.board_solution[0]
    # A game played on its own board: Galary, by the board search.
    board = gaps.solve(pysol="galary:3", time_ms=20000)
    assert board.verdict == cli_json(
        "solve", "--pysol", "galary:3", "--time-ms", 20000, "--json"
    )["verdict"]


def winning_deal():
    for number in range(100):
        answer = gaps.solve(deal=number, suits=3, ranks=6, variant="common", search_threads=1)
        if answer.solvable and len(answer.solution) >= 6:
            return number, answer
    raise AssertionError("no won deal in 0..99")


def test_played_steps_and_a_review_equal_the_command_lines(tmp_path):
    number, won = winning_deal()
    played = won.solution[:3]
    game = dict(deal=number, suits=3, ranks=6, variant="common", search_threads=1)
    flags = ["--deal", number, "--suits", 3, "--ranks", 6, "--variant", "common",
             "--search-threads", 1]
    steps = tmp_path / "played.json"
    steps.write_text(json.dumps(played))
    rest = gaps.solve(played=played, **game)
    theirs = cli_json("solve", "--played", steps, "--json", *flags)
    assert untimed(rest.to_dict()) == untimed(theirs)
    assert rest.solvable and rest.hint == rest.solution[0]
    assert rest.hint in rest.legal_moves
    assert rest.to_dict()["played_steps"] == 3

    review = gaps.review(played, **game)
    assert untimed(review.to_dict()) == untimed(
        cli_json("review", "--played", steps, "--json", *flags)
    )
    assert review.still_winnable and review.fatal_step is None
    assert review.played_steps == 3


def test_bad_input_raises_with_the_command_lines_message(tmp_path):
    with pytest.raises(gaps.InvalidPosition) as raised:
        gaps.solve("4H 3S nonsense")
    assert str(raised.value) == cli_refusal("solve", "--", "4H 3S nonsense")
    assert isinstance(raised.value, ValueError)

    with pytest.raises(gaps.InvalidGame) as raised:
        gaps.solve(pysol="montana:0")
    assert str(raised.value) == cli_refusal("solve", "--pysol", "montana:0")

    with pytest.raises(gaps.InvalidGame):
        gaps.solve(pysol="klondike:3")

    bad_step = [{"card": "ZZ", "from": [0, 0], "to": [0, 1]}]
    with pytest.raises(gaps.InvalidSteps) as raised:
        gaps.solve(deal=1, played=bad_step)
    steps = tmp_path / "bad.json"
    steps.write_text(json.dumps(bad_step))
    assert str(raised.value) == cli_refusal("solve", "--deal", 1, "--played", steps)

    # A step the rules refuse: a card moved onto a cell that is not a gap.
    with pytest.raises(gaps.InvalidSteps):
        gaps.solve(deal=1, played=[{"card": "2S", "from": [0, 0], "to": [0, 1]}])

    with pytest.raises(gaps.InvalidInput) as raised:
        gaps.solve(deal=1, redeals=9)
    assert str(raised.value) == cli_refusal("solve", "--deal", 1, "--redeals", 9)

    with pytest.raises(gaps.InvalidInput):
        gaps.solve(deal=1, algorithm="guess")
    with pytest.raises(gaps.InvalidInput):
        gaps.solve()
    with pytest.raises(gaps.InvalidInput):
        gaps.winrate(0)
    with pytest.raises(TypeError):
        gaps.solve(deal=1, played="not steps")
    with pytest.raises(TypeError):
        gaps.solve(deal=[1])
    with pytest.raises(gaps.InvalidInput):
        gaps.run(["serve"])


def test_a_winrate_reports_progress_and_equals_the_command_line():
    seen = []
    ours = gaps.winrate(60, suits=3, ranks=5, variant="common", threads=2,
                        progress=lambda done, total: seen.append((done, total)))
    theirs = cli_json("winrate", "--deals", 60, "--suits", 3, "--ranks", 5,
                      "--variant", "common", "--threads", 2, "--json")
    for key in ("deals", "solvable", "unsolvable", "unknown", "nodes"):
        assert getattr(ours, key) == theirs[key], key
    assert ours.deals == 60
    assert seen[-1] == (60, 60)
    assert all(total == 60 for _, total in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_an_exception_in_progress_stops_the_run_and_is_raised():
    def stop(done, total):
        raise RuntimeError("enough")

    began = time.monotonic()
    with pytest.raises(RuntimeError, match="enough"):
        gaps.winrate(20000, variant="common", threads=2, progress=stop)
    assert time.monotonic() - began < 30


def test_a_search_gives_the_gil_away_and_ctrl_c_stops_it():
    # A Python thread counts while a search runs: the search does not hold the GIL.
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.01)

    counter = threading.Thread(target=count)
    counter.start()
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    began = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            # Deal 517: a search of many minutes, unless stopped.
            gaps.solve(deal=517, variant="common", time_ms=600000)
    finally:
        stop.set()
        counter.join()
        timer.cancel()
    took = time.monotonic() - began
    assert 0.9 < took < 5, took
    assert len(ticks) > 30, len(ticks)
    # The next call runs as if nothing happened.
    assert gaps.solve(deal=5, suits=2, ranks=4).verdict in ("solvable", "unsolvable")


def test_a_game_number_past_2_64_is_an_exact_python_int():
    # PySolFC deals such numbers to a new game; the answer keeps them exact.
    number = 37056232017532624896
    answer = gaps.solve(pysol=f"montana:{number}", nodes=10)
    assert answer.to_dict()["pysol"]["number"] == number
    review = gaps.review([], pysol=f"montana:{number}", nodes=10)
    assert review.to_dict()["pysol"]["number"] == number
    assert json.loads(cli("solve", "--pysol", f"montana:{number}", "--nodes", 10, "--json")[1])[
        "pysol"]["number"] == number
