#!/usr/bin/env python3
"""Measure `GET /v1/stats/win-rates` on a store holding many finished jobs.

    scripts/stats-bench.py --gaps target/release/gaps --backend sqlite --jobs 1000000
    scripts/stats-bench.py --gaps target/release/gaps --backend postgres --jobs 1000000

Creates a fresh database (a temporary SQLite file, or the PostgreSQL database
`gaps_stats_bench` on 127.0.0.1, dropped first), lets `gaps serve` create the schema,
then inserts JOBS finished jobs by SQL (each a distinct position with its known verdict;
a mix of variants, sizes, algorithms and verdicts) and marks the effort aggregates for
rebuilding, as a migration over existing jobs does. It then starts `gaps serve` again
(reporting how long the start, with the rebuild, took), reads the win rates REQUESTS
times and prints the latency percentiles (the first read, which fills the median cache,
apart). With --churn, clients POST small deals throughout and the solvers run, so
finished jobs keep changing the aggregates while they are read. Standard library plus
the `psql` client.
"""

import argparse
import http.client
import json
import os
import sqlite3
import tempfile
import threading
import time

from harness import free_port, psql, serve, stop

PG_ADMIN = "postgres://postgres@127.0.0.1:5432/test"
PG_NAME = "gaps_stats_bench"

# One row of synthetic jobs per i (its life in `jobs`, its search in `gaps_searches`):
# variant, size, algorithm, verdict, nodes and ms all vary with i, so there are many
# groups and wide histograms.
SELECT_JOBS = """
SELECT 'bench-' || i, 'done', (i * 7919) % 5000000, ((i * 104729) % 100000) / 10.0
FROM n
"""
JOB_COLUMNS = "id, state, nodes, elapsed_ms"
SELECT_SEARCHES = """
SELECT 'bench-' || i,
    CASE WHEN i % 3 = 0 THEN 'common' ELSE 'basic' END,
    'auto', 'p' || i, 4, CASE WHEN i % 2 = 0 THEN 13 ELSE 6 END, i, 1000,
    CASE i % 4 WHEN 0 THEN 'solvable' WHEN 1 THEN 'unsolvable' WHEN 2 THEN 'solvable'
        ELSE 'unknown' END,
    CASE i % 5 WHEN 0 THEN 'dfs' WHEN 1 THEN 'blocks' WHEN 2 THEN 'sampling'
        WHEN 3 THEN 'hybrid' ELSE 'assign' END,
    {false}
FROM n
"""
SEARCH_COLUMNS = (
    "id, variant, algorithm, position, suits, ranks, deal_seed, limit_time_ms,"
    " verdict, used_algorithm, cached"
)
VERDICTS = """
INSERT INTO verdicts (variant, position, suits, ranks, verdict, algorithm, nodes,
    elapsed_ms, limit_time_ms, job_id)
SELECT g.variant, g.position, g.suits, g.ranks, g.verdict, g.used_algorithm, j.nodes,
    j.elapsed_ms, g.limit_time_ms, j.id
FROM jobs j JOIN gaps_searches g ON g.id = j.id WHERE j.id LIKE 'bench-%'
"""


def start(gaps, url, port, solvers=False):
    """Starts `gaps serve` and waits until /healthz answers; returns (process, seconds)."""
    t = time.perf_counter()
    env = {
        **os.environ,
        "GAPS_DEEPEN__ENABLED": "false",
        **({} if solvers else {"GAPS_SOLVER__THREADS": "0"}),
    }
    log = open(os.environ.get("STATS_BENCH_LOG", os.devnull), "a")
    proc = serve(gaps, url, port, env, stderr=log)
    return proc, time.perf_counter() - t


def fill_sqlite(path, jobs):
    db = sqlite3.connect(path)
    n = f"WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {jobs - 1}) "
    db.execute(n + f"INSERT INTO jobs ({JOB_COLUMNS}) " + SELECT_JOBS)
    db.execute(n + f"INSERT INTO gaps_searches ({SEARCH_COLUMNS}) " + SELECT_SEARCHES.format(false="0"))
    db.execute(VERDICTS)
    db.execute("INSERT INTO pending_rebuilds (name) VALUES ('effort')")
    db.commit()
    db.close()


def fill_postgres(url, jobs):
    n = f"WITH n(i) AS (SELECT generate_series(CAST(0 AS BIGINT), {jobs - 1})) "
    psql(url, n + f"INSERT INTO jobs ({JOB_COLUMNS}) " + SELECT_JOBS)
    psql(url, n + f"INSERT INTO gaps_searches ({SEARCH_COLUMNS}) "
         + SELECT_SEARCHES.format(false="FALSE"))
    # One statement firing the counting trigger a million times on one row would be
    # slow (one row version per firing in one transaction): fill the counts in one
    # pass instead, as the migration does.
    psql(url, "ALTER TABLE verdicts DISABLE TRIGGER USER")
    psql(url, VERDICTS)
    psql(url, "ALTER TABLE verdicts ENABLE TRIGGER USER")
    psql(
        url,
        "INSERT INTO win_rate_totals (variant, suits, ranks, deals, solvable, unsolvable, unknown) "
        "SELECT variant, suits, ranks, COUNT(*), COUNT(*) FILTER (WHERE verdict = 'solvable'), "
        "COUNT(*) FILTER (WHERE verdict = 'unsolvable'), COUNT(*) FILTER (WHERE verdict = 'unknown') "
        "FROM verdicts GROUP BY variant, suits, ranks",
    )
    psql(url, "INSERT INTO pending_rebuilds (name) VALUES ('effort')")


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gaps", default="target/release/gaps")
    p.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--jobs", type=int, default=1_000_000)
    p.add_argument("--requests", type=int, default=200)
    p.add_argument("--churn", action="store_true", help="POST jobs while reading")
    p.add_argument("--keep", help="SQLite: write the database to this file and keep it")
    args = p.parse_args()

    tmp = tempfile.TemporaryDirectory()
    if args.backend == "sqlite":
        path = args.keep or os.path.join(tmp.name, "bench.db")
        url = f"sqlite://{path}"
    else:
        psql(PG_ADMIN, f"DROP DATABASE IF EXISTS {PG_NAME} WITH (FORCE)")
        psql(PG_ADMIN, f"CREATE DATABASE {PG_NAME}")
        url = f"postgres://postgres@127.0.0.1:5432/{PG_NAME}"
    port = free_port()
    proc, _ = start(args.gaps, url, port)
    stop(proc)

    t = time.perf_counter()
    (fill_sqlite(path, args.jobs) if args.backend == "sqlite" else fill_postgres(url, args.jobs))
    print(f"{args.backend}: inserted {args.jobs} jobs and verdicts in {time.perf_counter() - t:.1f} s")

    proc, started = start(args.gaps, url, port, solvers=args.churn)
    print(f"start with the effort rebuild: {started:.2f} s")
    done = threading.Event()
    posted = [0]

    def churn():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        seed = 0
        while not done.is_set():
            seed += 1
            body = json.dumps({"deal": {"seed": seed, "suits": 4, "ranks": 5}})
            conn.request("POST", "/v1/jobs", body, {"content-type": "application/json"})
            r = conn.getresponse()
            r.read()
            posted[0] += r.status == 202
            time.sleep(0.002)

    churner = threading.Thread(target=churn)
    if args.churn:
        churner.start()
        time.sleep(1)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        t = time.perf_counter()
        conn.request("GET", "/v1/stats/win-rates")
        conn.getresponse().read()
        print(f"first read (fills the median cache): {(time.perf_counter() - t) * 1e3:.2f} ms")
        ms = []
        for _ in range(args.requests):
            t = time.perf_counter()
            conn.request("GET", "/v1/stats/win-rates")
            r = conn.getresponse()
            body = r.read()
            ms.append((time.perf_counter() - t) * 1e3)
            assert r.status == 200, body
        done.set()
        rows = json.loads(body)
        deals = sum(row["deals"] for row in rows)
        jobs = sum(e["jobs"] for row in rows for e in row["effort"])
        if not args.churn:
            assert deals == args.jobs, f"win rates count {deals} deals, not {args.jobs}"
            assert jobs == args.jobs, f"effort counts {jobs} jobs, not {args.jobs}"
        else:
            print(f"churn: {posted[0]} jobs posted during the reads; the last read counted "
                  f"{jobs - args.jobs} of them finished")
        print(
            f"GET /v1/stats/win-rates x{args.requests}: p50 {percentile(ms, 50):.2f} ms, "
            f"p99 {percentile(ms, 99):.2f} ms, max {max(ms):.2f} ms "
            f"({len(rows)} rows, {len(body)} bytes)"
        )
    finally:
        done.set()
        if churner.is_alive():
            churner.join()
        stop(proc)
        if args.backend == "postgres":
            psql(PG_ADMIN, f"DROP DATABASE IF EXISTS {PG_NAME} WITH (FORCE)")


if __name__ == "__main__":
    main()
