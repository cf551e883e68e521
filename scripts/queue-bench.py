#!/usr/bin/env python3
"""Measure how many trivial jobs per second the queue claims, runs and finishes.

    scripts/queue-bench.py --gaps target/release/gaps --backend sqlite --nodes 1 --jobs 20000
    scripts/queue-bench.py --gaps target/release/gaps --backend postgres --nodes 3 --jobs 20000

Starts NODES `gaps serve` processes on a fresh database (a temporary SQLite file, which
allows one node, or the PostgreSQL database `gaps_queue_bench` on 127.0.0.1, dropped
first), posts one batch of JOBS distinct basic 4x5 deals (each solved in microseconds,
so the queue, not the solver, is measured) and times it from the POST until every job
has ended. Then reads the batch's results and checks that every deal ended `done`
exactly once, and prints how many each node ran. The results are read as a stream
(NDJSON, then CSV), line by line, while the resident memory of the node that serves
them is sampled: the export's time, size and that node's peak memory are printed, so a
million-deal batch (`--jobs 1000000`, which also raises `limits.max_batch_deals`)
shows whether the export stays in constant memory. Standard library plus `psql`.
"""

import argparse
import collections
import http.client
import json
import os
import random
import tempfile
import threading
import time

from harness import free_port, psql, request, serve

PG_ADMIN = "postgres://postgres@127.0.0.1:5432/test"
PG_NAME = "gaps_queue_bench"


def start(gaps, url, port, node_id, threads, max_batch):
    env = {
        **os.environ,
        "GAPS_DEEPEN__ENABLED": "false",
        "GAPS_QUEUE__NODE_ID": node_id,
        "GAPS_LIMITS__MAX_BATCH_DEALS": str(max_batch),
    }
    if threads is not None:
        env["GAPS_SOLVER__THREADS"] = str(threads)
    return serve(gaps, url, port, env)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def export(port, pid, batch, accept, check_line):
    """Streams the batch's results with `accept`, calling `check_line` on each line
    (after the CSV header), while sampling the serving node's resident memory; returns
    (seconds, bytes, lines, peak KiB, KiB before)."""
    before = rss_kib(pid)
    peak = [before]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_kib(pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    t = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    conn.request("GET", f"/v1/batches/{batch}/results", headers={"accept": accept})
    r = conn.getresponse()
    assert r.status == 200, r.status
    size = lines = 0
    if accept == "text/csv":
        size += len(r.readline())
    while True:
        line = r.readline()
        if not line:
            break
        size += len(line)
        check_line(lines, line)
        lines += 1
    seconds = time.perf_counter() - t
    done.set()
    sampler.join()
    return seconds, size, lines, peak[0], before


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gaps", default="target/release/gaps")
    p.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--nodes", type=int, default=1)
    p.add_argument("--threads", type=int, help="solver threads per node (default: cores)")
    p.add_argument("--jobs", type=int, default=20_000)
    p.add_argument("--progress", type=float, metavar="SECONDS",
                   help="print the batch's progress (queued, done, jobs/s) this often")
    args = p.parse_args()
    if args.backend == "sqlite" and args.nodes != 1:
        raise SystemExit("SQLite allows one node")

    tmp = tempfile.TemporaryDirectory()
    if args.backend == "sqlite":
        url = f"sqlite://{os.path.join(tmp.name, 'bench.db')}"
    else:
        psql(PG_ADMIN, f"DROP DATABASE IF EXISTS {PG_NAME} WITH (FORCE)")
        psql(PG_ADMIN, f"CREATE DATABASE {PG_NAME}")
        url = f"postgres://postgres@127.0.0.1:5432/{PG_NAME}"
    ports = [free_port() for _ in range(args.nodes)]
    max_batch = max(args.jobs, 100_000)
    procs = [start(args.gaps, url, port, f"node-{k}", args.threads, max_batch)
             for k, port in enumerate(ports)]
    try:
        seed = random.randrange(1 << 40)
        t = time.perf_counter()
        status, body = request(ports[0], "POST", "/v1/batches", {
            "variant": "basic", "suits": 4, "ranks": 5, "seed": seed, "count": args.jobs,
        })
        assert status == 202, body
        batch = json.loads(body)["id"]
        filled = None
        last = (t, 0)
        while True:
            view = json.loads(request(ports[-1], "GET", f"/v1/batches/{batch}")[1])
            now = time.perf_counter()
            if filled is None and view["jobs_created"] == args.jobs:
                filled = now - t
            if args.progress and now - last[0] >= args.progress:
                rate = (view["done"] - last[1]) / (now - last[0])
                print(f"  {now - t:7.1f} s: {view['jobs_created']:>9} created, "
                      f"{view['done']:>9} done, {rate:,.0f} jobs/s", flush=True)
                last = (now, view["done"])
            if view["finished"]:
                break
            time.sleep(0.05)
        seconds = time.perf_counter() - t
        assert view["done"] == args.jobs, view
        by_node = collections.Counter()

        def check_ndjson(i, raw):
            line = json.loads(raw)
            assert line["deal"] == seed + i, "every deal once, in order"
            assert line["state"] == "done", line
            by_node[line["node_id"]] += 1

        ndjson = export(ports[0], procs[0].pid, batch, "application/x-ndjson", check_ndjson)
        assert ndjson[2] == args.jobs, ndjson
        csv_export = export(ports[0], procs[0].pid, batch, "text/csv",
                            lambda i, raw: None)
        assert csv_export[2] == args.jobs, csv_export
        print(
            f"{args.backend}, {args.nodes} node(s), solver threads "
            f"{args.threads if args.threads is not None else 'cores'}: {args.jobs} jobs "
            f"claimed, solved and finished in {seconds:.2f} s = {args.jobs / seconds:,.0f} jobs/s "
            f"(all {args.jobs} queued after {filled:.2f} s; by node: {dict(sorted(by_node.items()))})"
        )
        for name, (secs, size, lines, peak, before) in [("NDJSON", ndjson), ("CSV", csv_export)]:
            print(
                f"  results as {name}: {lines} lines, {size / 2**20:.1f} MiB in {secs:.2f} s "
                f"({lines / secs:,.0f} lines/s); serving node resident {before / 1024:.1f} MiB "
                f"before, at most {peak / 1024:.1f} MiB during"
            )
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=60)
        if args.backend == "postgres":
            psql(PG_ADMIN, f"DROP DATABASE IF EXISTS {PG_NAME} WITH (FORCE)")


if __name__ == "__main__":
    main()
