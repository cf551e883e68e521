"""Prints the tables of PySolFC's Gaps games from the CSVs that scripts/pysol-table.sh
writes under docs/data (a game whose CSV is missing or short is shown with what it
holds): the win rates, first round and as played, with Wilson intervals; then, for
each run, how much was decided within 10 s and within 60 s, the median and p99 time a
game, and the search's nodes per second over the run."""
import csv
import math
import os

DATA = os.path.join(os.path.dirname(__file__), "..", "docs", "data")
# game, PySolFC id, first-round file, as-played file (None: no redeals), redeals
GAMES = [
    ("montana", 53, "pysol-montana-1-1000-60s.csv", "pysol-montana-1-1000-redeals-60s.csv", 2),
    ("blue-moon", 63, "pysol-blue-moon-1-1000-60s.csv", "pysol-blue-moon-1-1000-redeals-60s.csv", 2),
    ("spaces", 116, "pysol-montana-1-1000-60s.csv", "pysol-spaces-1-1000-redeals-60s.csv", 2),
    ("red-moon", 117, "pysol-red-moon-1-1000-60s.csv", "pysol-red-moon-1-1000-redeals-60s.csv", 2),
    ("paganini", 706, "pysol-paganini-1-1000-60s.csv", "pysol-paganini-1-1000-redeals-60s.csv", 1),
    ("house-of-commons", 794, "pysol-house-of-commons-1-1000-60s.csv",
     "pysol-house-of-commons-1-1000-redeals-60s.csv", 1),
    ("line-up", 795, "pysol-line-up-1-1000-60s.csv", None, 0),
    ("station", 858, "pysol-montana-1-1000-60s.csv", "pysol-station-1-1000-redeals-60s.csv", 2),
    # Played on their own boards (docs/pysol.md).
    ("galary", 275, "pysol-galary-1-1000-60s.csv", "pysol-galary-1-1000-redeals-60s.csv", 2),
    ("free-parking", 276, "pysol-free-parking-1-1000-60s.csv",
     "pysol-free-parking-1-1000-redeals-60s.csv", 2),
    ("jungle", 380, "pysol-jungle-1-1000-60s.csv", "pysol-jungle-1-1000-redeals-60s.csv", 1),
    ("spaces-and-aces", 381, "pysol-spaces-and-aces-1-1000-60s.csv", None, 0),
]


def wilson(k, n, z=1.959963984540054):
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def cell(name):
    path = os.path.join(DATA, name)
    if not os.path.exists(path):
        return "not run"
    rows = list(csv.DictReader(open(path)))
    n = len(rows)
    won = sum(r["verdict"] == "solvable" for r in rows)
    lost = sum(r["verdict"] == "unsolvable" for r in rows)
    unknown = n - won - lost
    lo, hi = wilson(won, n)
    part = "" if n == 1000 else f" ({n} of 1000 run)"
    return (f"{won} won, {lost} lost, {unknown} unknown: **{100 * won / max(n, 1):.1f}%** "
            f"[{100 * lo:.1f}, {100 * hi:.1f}]{part}")


def effort(name):
    path = os.path.join(DATA, name)
    if not os.path.exists(path):
        return None
    rows = list(csv.DictReader(open(path)))
    seconds = sorted(float(r["seconds"]) for r in rows)
    decided = [float(r["seconds"]) for r in rows if r["verdict"] != "unknown"]
    nodes = sum(int(r["nodes"]) for r in rows)
    n = len(rows)

    def q(p):
        return seconds[min(n - 1, round((n - 1) * p))]

    return (f"{100 * sum(t <= 10 for t in decided) / n:.1f}% | {100 * len(decided) / n:.1f}% | "
            f"{q(0.5):.3f} | {q(0.99):.2f} | {nodes / max(sum(seconds), 1e-9) / 1e6:.1f}M")


print("| game | PySolFC | first round | as played (its redeals) |")
print("|---|---|---|---|")
for game, gid, first, played, redeals in GAMES:
    as_played = cell(played) if played else "= first round (no redeal)"
    print(f"| `{game}` | #{gid} | {cell(first)} | {redeals}: {as_played} |")

print()
print("| run | decided within 10 s | within 60 s | median s | p99 s | nodes/s |")
print("|---|---|---|---|---|---|")
seen = set()
for game, gid, first, played, redeals in GAMES:
    for name, what in ((first, "first round"), (played, f"{redeals} redeal(s)")):
        if name and name not in seen:
            seen.add(name)
            row = effort(name)
            if row:
                label = "montana, spaces, station" if name == "pysol-montana-1-1000-60s.csv" else game
                print(f"| `{label}` {what} | {row} |")
