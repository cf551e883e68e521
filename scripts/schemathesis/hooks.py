"""Schemathesis hooks for the gaps service: teach the generator the `gaps-position`
string format of `POST /v1/jobs` (docs/notation.md): S rows of R cells, one gap per
row, every card of ranks 2..R of the first S suits exactly once. Any such arrangement
is a valid position, so a schema-valid request carries one.

Also the `morpion-record` format of a Morpion job's `record`: a legal game, here a
prefix of one of the record games the tests use, as MSR JSON or Pentasol text. Two
rules of a Morpion job relate two fields, which JSON Schema cannot say: `from` is at
most the record's length, and a `variant` agrees with the one an MSR record names. A
schema-valid request that breaks one of them is refused with a 422, and
`filter_failure` below drops exactly those refusals (after checking the rule is
broken), no other.

A Gaps job's `played` steps must be legal where they come in the game the request
names, which JSON Schema cannot say either: a refusal of a schema-valid game in
progress whose detail is about its steps (`played...`) is dropped too.

A PySolFC game's own rules also tie fields together: its variant is the game's, a
board game's search runs on one thread without probes, and the redeals are at most the
game's own (none with `exact`). A refusal of one of these, checked against the body
(`pysol_rule_refused`), is dropped as well.

Also works around a CPython 3.11 fault in `ast.parse` under threads (below)."""

import ast
import json
import pathlib
import re
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

RECORDS = pathlib.Path(__file__).resolve().parents[2] / "engine/tests/data/morpion"
GAMES = [json.loads((RECORDS / name).read_text())
         for name in ("bruneau170.json", "rosin178.json", "rosin82-5d.json")]
PENTASOL_MOVE = re.compile(r"^\(\s*-?\d+\s*,\s*-?\d+\s*\)\s*[-|/\\]")
SYMBOLS = {"H": "-", "V": "|", "DP": "/", "DN": "\\"}


def pentasol(moves, column, row):
    """Pentasol text of `moves` with the cross's north-west inner corner at (column, row)."""
    lines = ["# generated", f"({column},{row})"]
    for m in moves:
        centre = 2 - m["pos"]
        sign = "+" if centre > 0 else ""
        lines.append(f"({m['x'] + column - 3},{m['y'] + row - 3}) {SYMBOLS[m['dir']]} {sign}{centre}")
    return "\n".join(lines) + "\n"


@st.composite
def morpion_records(draw):
    game = draw(st.sampled_from(GAMES))
    moves = game["moves"][: draw(st.integers(min_value=0, max_value=len(game["moves"])))]
    # Pentasol names no variant and is read as 5T unless told: only the 5D game, whose
    # moves are legal under both rules, is written as Pentasol.
    # Pentasol text needs at least one move (an empty text is no record).
    if game["variant"] == "5D" and moves and draw(st.booleans()):
        return pentasol(moves, draw(st.integers(-5, 40)), draw(st.integers(-5, 40)))
    return json.dumps({"variant": game["variant"], "moves": moves})


schemathesis.openapi.format("morpion-record", morpion_records())


def morpion_record_facts(text):
    """(moves, the variant the record names or None) of a record as generated above."""
    text = text.strip()
    if text.startswith("{"):
        record = json.loads(text)
        return len(record["moves"]), record.get("variant")
    return sum(1 for line in text.splitlines() if PENTASOL_MOVE.match(line.strip())), None


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Drops a `POST /v1/jobs` Morpion refusal explained by a two-field rule only, the
    404 of a Gaps or odds job's record (see `gaps_job_has_no_record`), and the 422 of
    an idempotency key used with another body (see `key_used_with_another_body`)."""
    if gaps_job_has_no_record(case, response):
        return False
    if played_steps_refused(case, response):
        return False
    if pysol_rule_refused(case, response):
        return False
    if key_used_with_another_body(case, response):
        return False
    body = case.body
    if (
        case.method.upper() != "POST"
        or case.path != "/v1/jobs"
        or not isinstance(body, dict)
        or body.get("game") != "morpion"
        or response.status_code != 422
        or not isinstance(body.get("record"), str)
    ):
        return True
    try:
        detail = json.loads(response.content).get("detail", "")
        moves, named = morpion_record_facts(body["record"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return True
    k = body.get("from")
    # A whole number may come as 102.0, which the service reads as 102.
    if detail.startswith("from:") and isinstance(k, (int, float)) and k > moves:
        return False
    asked = body.get("variant")
    if detail.startswith("variant:") and named is not None and asked not in (None, named):
        return False
    return True


def problem_detail(response):
    """The `detail` of a problem+json answer, or "" when the body is not one."""
    try:
        detail = json.loads(response.content).get("detail", "")
    except (ValueError, AttributeError):
        return ""
    return detail if isinstance(detail, str) else ""


def played_steps_refused(case, response):
    """`POST /v1/jobs` of a game in progress refused for its steps: a step the game's
    rules do not allow where it comes (`played: played step k: ...`, on PySolFC's board
    for a game played on its own board), or one that is not a step (an object of
    neither step shape)."""
    body = case.body
    if (
        case.method.upper() != "POST"
        or case.path != "/v1/jobs"
        or response.status_code != 422
        or not isinstance(body, dict)
        or not ("played" in body or body.get("review") is True)
    ):
        return False
    detail = problem_detail(response)
    return detail.startswith("played:") or "played[" in detail


ALLOWS = re.compile(r"allows (?:at most )?(\d+) redeal\(s\) \(got (\d+)\)")


def pysol_rule_refused(case, response):
    """A 422 of a request for a PySolFC game whose detail names a rule of the game that
    the body does break: a variant beside the game's own, an algorithm, probes or more
    than one thread for a board game, more redeals than the game allows, or redeals or
    played steps with `exact` on a board game."""
    body = case.body
    if (
        case.method.upper() != "POST"
        or response.status_code != 422
        or not isinstance(body, dict)
        or not isinstance(body.get("pysol"), dict)
    ):
        return False
    detail = problem_detail(response)
    limits = body.get("limits") if isinstance(body.get("limits"), dict) else {}
    if detail.startswith("variant:"):
        return body.get("variant") is not None
    if detail.startswith("algorithm: exact searches a board game from its deal"):
        return body.get("algorithm") == "exact" and body.get("played") is not None
    if detail.startswith("algorithm: exact searches a round without redeals"):
        return body.get("algorithm") == "exact" and body.get("redeals") != 0
    if detail.startswith("algorithm:") and "board search" in detail:
        return body.get("algorithm") not in (None, "auto", "exact")
    if detail.startswith("limits.probes:") and "board search" in detail:
        return limits.get("probes") is not None
    if detail.startswith("limits.threads:") and "on one thread" in detail:
        threads = limits.get("threads")
        return isinstance(threads, (int, float)) and threads > 1
    allows = ALLOWS.search(detail)
    if detail.startswith("redeals:") and allows:
        allowed, got = int(allows.group(1)), int(allows.group(2))
        return got > allowed and body.get("redeals") == got
    return False


def key_used_with_another_body(case, response):
    """A 422 for an `Idempotency-Key` sent before with another body (docs/http.md,
    "Safe retries"): the fuzzer draws short keys again and again with new bodies, and
    a key names one request, which no schema can state."""
    if response.status_code != 422 or case.method.upper() != "POST":
        return False
    detail = problem_detail(response)
    return detail.startswith("Idempotency-Key ") and "was used with another body" in detail


def gaps_job_has_no_record(case, response):
    """`GET /v1/jobs/{id}/record` of a Gaps or odds job: a 404 that says so.
    Schemathesis links every job `POST /v1/jobs` creates to every operation under its
    `Location`, but only a Morpion job has a record (docs/morpion.md); a Gaps or odds
    job's position is in its view."""
    if case.path != "/v1/jobs/{id}/record" or response.status_code != 404:
        return False
    detail = problem_detail(response)
    return "is a Gaps job: it has no record" in detail or "is an odds job: it has no record" in detail


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
