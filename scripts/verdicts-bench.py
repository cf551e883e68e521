#!/usr/bin/env python3
"""Measure `GET /v1/verdicts` on a store of many known verdicts: single lookups at a
fixed rate, and one streamed list of every game.

    scripts/verdicts-bench.py --gaps target/release/gaps --backend sqlite
    scripts/verdicts-bench.py --gaps target/release/gaps --backend postgres

Creates a fresh database (a temporary SQLite file, or the PostgreSQL database
`gaps_verdicts_bench` on 127.0.0.1, dropped first) and lets `gaps serve` create the
schema. Deals PySolFC Montana games 1..VERDICTS with `gaps deal --pysol montana:1
--count VERDICTS --position` and stores a verdict for each (common 4x13; seven in eight
`solvable` with a 10-move solution, the rest `unsolvable` or `unknown`) together with
its game number, as finished PySolFC jobs leave them. Starts `gaps serve` again with no
solver threads and sends `GET /v1/verdicts?pysol=montana:N` (N uniform over the games;
one in ten a number beyond them, a 404) at RATE requests/s from THREADS keep-alive
clients for SECONDS: each latency is measured from the moment its request was due, so
a stalled server is not hidden. Prints the rate reached and the latency percentiles,
then streams `GET /v1/verdicts?game=montana` as CSV (every game) and prints its time,
line count and the server's peak RSS before and after. Standard library plus the
`psql` client.
"""

import argparse
import http.client
import os
import random
import sqlite3
import subprocess
import tempfile
import threading
import time

from harness import free_port, psql, serve, stop

PG_ADMIN = "postgres://postgres@127.0.0.1:5432/test"
PG_NAME = "gaps_verdicts_bench"

# A 10-move solution (the moves need not be legal here: nothing replays a stored one).
SOLUTION = "[" + ",".join(
    '{"card":"%s","from":[%d,%d],"to":[%d,%d]}' % ("5H", k % 4, k % 13, (k + 1) % 4, (k + 5) % 13)
    for k in range(10)
) + "]"


def verdict_of(i):
    return "solvable" if i % 8 else ("unsolvable" if i % 16 else "unknown")


def start(gaps, url, port):
    """Starts `gaps serve` (no solver threads, no deepening) and waits for /healthz."""
    env = {**os.environ, "GAPS_DEEPEN__ENABLED": "false", "GAPS_SOLVER__THREADS": "0",
           "GAPS_LOG__FILTER": "warn"}
    log = open(os.environ.get("VERDICTS_BENCH_LOG", os.devnull), "a")
    return serve(gaps, url, port, env, stderr=log)


def rows(positions):
    for i, position in enumerate(positions, start=1):
        v = verdict_of(i)
        yield (i, position, v, SOLUTION if v == "solvable" else None)


def fill_sqlite(path, positions):
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = WAL")
    db.executemany(
        "INSERT INTO verdicts (variant, position, suits, ranks, verdict, solution, algorithm,"
        " nodes, elapsed_ms, limit_time_ms, job_id) VALUES ('common', ?2, 4, 13, ?3, ?4,"
        " 'exact', ?1 * 7919 % 5000000, 12.5, 60000, 'bench-' || ?1)",
        rows(positions),
    )
    db.executemany(
        "INSERT INTO pysol_games (game, number, variant, position) VALUES ('montana', ?1, 'common', ?2)",
        ((i, p) for i, p in enumerate(positions, start=1)),
    )
    db.commit()
    db.close()


def fill_postgres(url, positions, tmp):
    path = os.path.join(tmp, "verdicts.tsv")
    with open(path, "w") as f:
        for i, position, v, solution in rows(positions):
            f.write(f"{i}\t{position}\t{v}\t{solution or chr(92) + 'N'}\n")
    # Fill through a staging table with the counting triggers off, then count in one
    # pass (one statement firing a trigger a million times on one row is slow).
    psql(url, "CREATE UNLOGGED TABLE staging (i BIGINT, position TEXT, verdict TEXT, solution TEXT)")
    psql(url, f"\\copy staging FROM '{path}'")
    psql(url, "ALTER TABLE verdicts DISABLE TRIGGER USER")
    psql(url, "ALTER TABLE pysol_games DISABLE TRIGGER USER")
    psql(
        url,
        "INSERT INTO verdicts (variant, position, suits, ranks, verdict, solution, algorithm,"
        " nodes, elapsed_ms, limit_time_ms, job_id) SELECT 'common', position, 4, 13, verdict,"
        " solution::jsonb, 'exact', i * 7919 % 5000000, 12.5, 60000, 'bench-' || i FROM staging",
    )
    psql(url, "INSERT INTO pysol_games SELECT 'montana', i, 'common', position FROM staging")
    psql(url, "ALTER TABLE verdicts ENABLE TRIGGER USER")
    psql(url, "ALTER TABLE pysol_games ENABLE TRIGGER USER")
    psql(
        url,
        "INSERT INTO win_rate_totals (variant, suits, ranks, deals, solvable, unsolvable, unknown)"
        " SELECT variant, suits, ranks, COUNT(*), COUNT(*) FILTER (WHERE verdict = 'solvable'),"
        " COUNT(*) FILTER (WHERE verdict = 'unsolvable'), COUNT(*) FILTER (WHERE verdict = 'unknown')"
        " FROM verdicts GROUP BY variant, suits, ranks",
    )
    psql(
        url,
        "INSERT INTO pysol_totals (game, games, solvable, unsolvable, unknown)"
        " SELECT 'montana', COUNT(*), COUNT(*) FILTER (WHERE verdict = 'solvable'),"
        " COUNT(*) FILTER (WHERE verdict = 'unsolvable'), COUNT(*) FILTER (WHERE verdict = 'unknown')"
        " FROM staging",
    )
    psql(url, "DROP TABLE staging")
    psql(url, "VACUUM ANALYZE")


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def lookups(port, args):
    """Single lookups at args.rate from args.threads clients; (latencies ms, statuses, s)."""
    lock = threading.Lock()
    latencies, statuses = [], {}
    began = time.perf_counter()
    end = began + args.seconds

    def loop(k):
        rng = random.Random(k)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        interval = args.threads / args.rate
        due = began + k * interval / args.threads
        while True:
            now = time.perf_counter()
            if due > now:
                time.sleep(due - now)
            start, due = due, due + interval
            if start >= end:
                return
            n = rng.randint(1, args.verdicts) if rng.random() < 0.9 else args.verdicts + rng.randint(1, 10**6)
            conn.request("GET", f"/v1/verdicts?pysol=montana:{n}")
            r = conn.getresponse()
            r.read()
            ms = (time.perf_counter() - start) * 1e3
            with lock:
                latencies.append(ms)
                statuses[r.status] = statuses.get(r.status, 0) + 1

    workers = [threading.Thread(target=loop, args=(k,)) for k in range(args.threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return latencies, statuses, time.perf_counter() - began


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gaps", default="target/release/gaps")
    p.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--verdicts", type=int, default=1_000_000)
    p.add_argument("--rate", type=float, default=1000)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--threads", type=int, default=16)
    args = p.parse_args()

    tmp = tempfile.TemporaryDirectory()
    if args.backend == "sqlite":
        path = os.path.join(tmp.name, "bench.db")
        url = f"sqlite://{path}"
    else:
        psql(PG_ADMIN, f"DROP DATABASE IF EXISTS {PG_NAME} WITH (FORCE)")
        psql(PG_ADMIN, f"CREATE DATABASE {PG_NAME}")
        url = f"postgres://postgres@127.0.0.1:5432/{PG_NAME}"
    port = free_port()
    stop(start(args.gaps, url, port))

    t = time.perf_counter()
    dealt = subprocess.run(
        [args.gaps, "deal", "--pysol", "montana:1", "--count", str(args.verdicts), "--position"],
        check=True, capture_output=True, text=True,
    ).stdout.splitlines()
    assert len(dealt) == args.verdicts
    print(f"dealt {args.verdicts} Montana games in {time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    (fill_sqlite(path, dealt) if args.backend == "sqlite" else fill_postgres(url, dealt, tmp.name))
    print(f"{args.backend}: stored {args.verdicts} verdicts and game numbers in {time.perf_counter() - t:.1f} s")
    del dealt

    proc = start(args.gaps, url, port)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/v1/verdicts?pysol=montana:1")
        r = conn.getresponse()
        body = r.read()
        assert r.status == 200, body
        latencies, statuses, elapsed = lookups(port, args)
        n = len(latencies)
        print(
            f"GET /v1/verdicts?pysol=montana:N: {n} requests in {elapsed:.1f} s ({n / elapsed:.0f}/s),"
            f" statuses {dict(sorted(statuses.items()))}; ms p50 {percentile(latencies, 50):.2f}"
            f" p90 {percentile(latencies, 90):.2f} p99 {percentile(latencies, 99):.2f}"
            f" p99.9 {percentile(latencies, 99.9):.2f} max {max(latencies):.2f}"
        )
        before = peak_rss_mib(proc.pid)
        t = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        conn.request("GET", "/v1/verdicts?game=montana", headers={"accept": "text/csv"})
        r = conn.getresponse()
        lines, size = 0, 0
        while True:
            chunk = r.read(1 << 16)
            if not chunk:
                break
            lines += chunk.count(b"\n")
            size += len(chunk)
        elapsed = time.perf_counter() - t
        print(
            f"GET /v1/verdicts?game=montana (CSV): {lines - 1} games, {size / 2**20:.0f} MiB in"
            f" {elapsed:.1f} s ({(lines - 1) / elapsed:.0f} lines/s); server peak RSS"
            f" {before:.0f} MiB before, {peak_rss_mib(proc.pid):.0f} MiB after"
        )
        assert lines - 1 == args.verdicts
    finally:
        stop(proc)
        if args.backend == "postgres":
            psql(PG_ADMIN, f"DROP DATABASE IF EXISTS {PG_NAME} WITH (FORCE)")


if __name__ == "__main__":
    main()
