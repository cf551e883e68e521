#!/usr/bin/env python3
"""Decide common 4x13 deals one by one and keep the results in a CSV (resumable).

Phase 1: `auto` with a short time limit (sampling, suit assignments, breadth-first
search with probes, exact and depth-first search), `--jobs` deals at a time (two by
default), each on `--quick-threads` threads (one by default).
Phase 2: every deal still unknown gets the exact search (`--algorithm exact`: every
position kept, exhaustive) with a large memory budget and a long time limit, one deal
at a time (it may use most of the machine's memory).

The CSV has one row per deal: deal, verdict, nodes, seconds, algorithm, stopped,
limit_seconds (what the last search that produced the row was allowed). A run skips
every deal already decided, and every unknown already tried with at least the same
limit, so it can be stopped and started again at any time; rows are written as they
come, in deal order when the run ends. `--retry-memory-limited` also searches again the
unknowns that stopped at their memory limit (each time the run starts); `seconds` then
adds the new search to the time already spent on the deal.

    scripts/common-table.py --out docs/data/common-4x13-0-999.csv --deals 0 1000 \
        --quick-ms 10000 --exact-ms 600000 --memory-mb 16384
"""

import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import threading

FIELDS = ["deal", "verdict", "nodes", "seconds", "algorithm", "stopped", "limit_seconds"]


def solve(gaps, deal, extra):
    out = subprocess.run(
        [gaps, "solve", "--variant", "common", "--deal", str(deal), "--json", *extra],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    j = json.loads(out)
    return {
        "deal": deal,
        "verdict": j["verdict"],
        "nodes": j["stats"]["nodes"],
        "seconds": round(j["stats"]["elapsed_ms"] / 1000, 3),
        "algorithm": j["algorithm"],
        "stopped": j.get("stopped") or "",
    }


def load(path):
    rows = {}
    if os.path.exists(path):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                rows[int(row["deal"])] = row
    return rows


def save(path, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for deal in sorted(rows):
            w.writerow(rows[deal])
    os.replace(tmp, path)


def settled(row, limit_s):
    return row is not None and (
        row["verdict"] != "unknown" or float(row["limit_seconds"]) >= limit_s
    )


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gaps", default="target/release/gaps")
    p.add_argument("--out", default="docs/data/common-4x13-0-999.csv")
    p.add_argument("--deals", nargs=2, type=int, default=[0, 1000], metavar=("FIRST", "END"))
    p.add_argument("--quick-ms", type=int, default=10000)
    p.add_argument("--quick-table-mb", type=int, default=256)
    p.add_argument("--exact-ms", type=int, default=600000)
    p.add_argument("--memory-mb", type=int, default=16384)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument(
        "--quick-threads", type=int, default=1, help="threads of each quick `auto` search (--search-threads)"
    )
    p.add_argument("--exact-threads", type=int, default=1, help="threads sharing one exact search")
    p.add_argument(
        "--retry-memory-limited",
        action="store_true",
        help="search again the unknowns that an earlier run left at its memory limit, "
        "even with the same time limit (after a change that needs less memory)",
    )
    args = p.parse_args()

    rows = load(args.out)
    lock = threading.Lock()
    quick_s = args.quick_ms / 1000
    todo = [d for d in range(*args.deals) if d not in rows]

    def quick(deal):
        row = solve(args.gaps, deal, [
                "--time-ms", str(args.quick_ms), "--table-mb", str(args.quick_table_mb),
                "--search-threads", str(args.quick_threads),
            ])
        row["limit_seconds"] = quick_s
        with lock:
            rows[deal] = row
            save(args.out, rows)
        print(f"quick {deal}: {row['verdict']} ({row['algorithm']}, {row['seconds']} s)", flush=True)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for f in [pool.submit(quick, d) for d in todo]:
            f.result()

    exact_s = args.exact_ms / 1000
    for deal in range(*args.deals):
        row = rows.get(deal)
        retry = args.retry_memory_limited and row["verdict"] == "unknown" and row["stopped"] == "memory_limit"
        if settled(row, exact_s) and not retry:
            continue
        new = solve(
            args.gaps,
            deal,
            [
                "--algorithm", "exact", "--table-mb", str(args.memory_mb), "--time-ms", str(args.exact_ms),
                "--search-threads", str(args.exact_threads),
            ],
        )
        # The time of a deal is the time of every phase it went through (retries
        # included).
        new["seconds"] = round(new["seconds"] + float(row["seconds"]), 3)
        new["limit_seconds"] = exact_s
        rows[deal] = new
        save(args.out, rows)
        print(f"exact {deal}: {new['verdict']} ({new['nodes']} positions, {new['seconds']} s)", flush=True)

    decided = sum(r["verdict"] != "unknown" for r in rows.values())
    print(f"{len(rows)} deals, {decided} decided", file=sys.stderr)


if __name__ == "__main__":
    main()
