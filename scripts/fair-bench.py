#!/usr/bin/env python3
"""Measure who runs first (docs/http.md, "Who runs first"): single-job latency while a
batch holds every solver thread, what a trickle of single jobs costs the batch, and how
two clients' batches share the service.

    scripts/fair-bench.py --gaps target/release/gaps --backend sqlite --deals 1000 --time-ms 60000
    scripts/fair-bench.py --gaps target/release/gaps --backend postgres --nodes 3 --deals 300

Three runs, each on a fresh database (a temporary SQLite file, or the PostgreSQL
database `gaps_fair_bench` on 127.0.0.1, dropped first) with NODES `gaps serve`
processes:

1. alone: one client posts a batch of DEALS `common` 4x13 deals (seed 0, `time_ms`
   TIME_MS, every other setting the service's default); its throughput is
   deals / (time from the POST to its last job's end).
2. trickle: the same batch, and another client posts one single `basic` 4x13 deal
   every TRICKLE_S seconds (distinct deals, so none is answered from the store), to
   the nodes in turn. For each: the time from its POST to its start (`started_at` less
   `created_at`, both written by the database) and to its verdict; p50 and p99. The
   batch's throughput against run 1.
3. two clients: client A posts a batch of DEALS/2 deals; TWO_AFTER_S seconds later
   client B posts one of DEALS/2 other deals. Each one's deals ended per minute from
   B's post until A's batch ends, and the share of B over that time.

Clients are told apart by their token (`GAPS_AUTH__TOKENS`, sent whole as the bearer). Standard library plus
`psql`.
"""

import argparse
import datetime
import http.client
import os
import statistics
import tempfile
import threading
import time

from harness import free_port, psql, request_json, serve

PG_ADMIN = "postgres://postgres@127.0.0.1:5432/test"
PG_NAME = "gaps_fair_bench"
TOKENS = "batcher:b-secret,person:p-secret,alice:a-secret,bob:bob-secret"


def request(port, method, path, body=None, token=None):
    headers = {"authorization": f"Bearer {token}"} if token else None
    return request_json(port, method, path, body, headers)


def start(gaps, url, port, node_id):
    env = {
        **os.environ,
        "GAPS_DEEPEN__ENABLED": "false",
        "GAPS_QUEUE__NODE_ID": node_id,
        "GAPS_AUTH__TOKENS": TOKENS,
    }
    return serve(gaps, url, port, env)


class Cluster:
    """NODES fresh `gaps serve` processes on one fresh database."""

    def __init__(self, args):
        self.tmp = tempfile.TemporaryDirectory()
        if args.backend == "sqlite":
            url = f"sqlite://{os.path.join(self.tmp.name, 'bench.db')}"
        else:
            psql(PG_ADMIN, f"DROP DATABASE IF EXISTS {PG_NAME} WITH (FORCE)")
            psql(PG_ADMIN, f"CREATE DATABASE {PG_NAME}")
            url = f"postgres://postgres@127.0.0.1:5432/{PG_NAME}"
        self.ports = [free_port() for _ in range(args.nodes)]
        self.procs = [start(args.gaps, url, port, f"node{i}")
                      for i, port in enumerate(self.ports)]

    def stop(self):
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            proc.wait()
        self.tmp.cleanup()


def parse_time(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def post_batch(port, token, seed, count, time_ms):
    status, batch = request(port, "POST", "/v1/batches",
                            {"variant": "common", "seed": seed, "count": count,
                             "limits": {"time_ms": time_ms}}, token)
    assert status == 202, (status, batch)
    return batch["id"]


def batch_view(port, batch):
    return request(port, "GET", f"/v1/batches/{batch}")[1]


def wait_batch(port, batch, every=1.0, on_tick=None):
    while True:
        view = batch_view(port, batch)
        if on_tick:
            on_tick(view)
        if view["finished"]:
            return view
        time.sleep(every)


def percentile(values, q):
    values = sorted(values)
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def run_alone(args):
    cluster = Cluster(args)
    try:
        t = time.monotonic()
        batch = post_batch(cluster.ports[0], "batcher:b-secret", 0, args.deals, args.time_ms)
        view = wait_batch(cluster.ports[0], batch)
        seconds = time.monotonic() - t
    finally:
        cluster.stop()
    return seconds, view


def run_trickle(args):
    cluster = Cluster(args)
    singles = []
    stop = threading.Event()

    def trickle():
        k = 0
        while not stop.wait(args.trickle_s if k else 2.0):
            port = cluster.ports[k % len(cluster.ports)]
            status, job = request(port, "POST", "/v1/jobs",
                                  {"deal": {"seed": 1_000_000 + k}, "variant": "basic"},
                                  "person:p-secret")
            assert status == 202, (status, job)
            singles.append((port, job["id"]))
            k += 1

    try:
        t = time.monotonic()
        batch = post_batch(cluster.ports[0], "batcher:b-secret", 0, args.deals, args.time_ms)
        thread = threading.Thread(target=trickle)
        thread.start()
        view = wait_batch(cluster.ports[0], batch)
        seconds = time.monotonic() - t
        stop.set()
        thread.join()
        time.sleep(2)
        starts, ends, gave_way = [], [], 0
        for port, job_id in singles:
            job = request(port, "GET", f"/v1/jobs/{job_id}?wait_ms=10000")[1]
            created = parse_time(job["created_at"])
            starts.append((parse_time(job["started_at"]) - created).total_seconds() * 1e3)
            ends.append((parse_time(job["finished_at"]) - created).total_seconds() * 1e3)
        for port in cluster.ports:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/metrics")
            for line in conn.getresponse().read().decode().splitlines():
                if line.startswith("gaps_batch_gave_way_total"):
                    gave_way += float(line.split()[-1])
    finally:
        cluster.stop()
    return seconds, view, starts, ends, gave_way


def run_two_clients(args):
    cluster = Cluster(args)
    half = args.deals // 2
    samples = []
    try:
        a = post_batch(cluster.ports[0], "alice:a-secret", 0, half, args.time_ms)
        time.sleep(args.two_after_s)
        t = time.monotonic()
        b = post_batch(cluster.ports[-1], "bob:bob-secret", 100_000, half, args.time_ms)
        while True:
            va, vb = batch_view(cluster.ports[0], a), batch_view(cluster.ports[0], b)
            ended = lambda v: v["done"] + v["failed"] + v["cancelled"]
            samples.append((time.monotonic() - t, ended(va), ended(vb)))
            if va["finished"] or vb["finished"]:
                break
            time.sleep(5)
    finally:
        cluster.stop()
    return samples


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gaps", default="target/release/gaps")
    p.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--nodes", type=int, default=1)
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--time-ms", type=int, default=60_000)
    p.add_argument("--trickle-s", type=float, default=10.0)
    p.add_argument("--two-after-s", type=float, default=30.0)
    p.add_argument("--runs", default="alone,trickle,two-clients")
    args = p.parse_args()
    if args.backend == "sqlite" and args.nodes != 1:
        raise SystemExit("SQLite allows one node")
    runs = args.runs.split(",")
    print(f"# {args.backend}, {args.nodes} node(s), {args.deals} common 4x13 deals, "
          f"time_ms {args.time_ms}", flush=True)
    alone = None
    if "alone" in runs:
        seconds, view = run_alone(args)
        alone = args.deals / seconds
        print(f"alone: {seconds:.1f} s, {alone:.3f} deals/s, rates {view['rates']}", flush=True)
    if "trickle" in runs:
        seconds, view, starts, ends, gave_way = run_trickle(args)
        rate = args.deals / seconds
        change = f", {100 * (rate / alone - 1):+.1f}% against alone" if alone else ""
        print(f"trickle: batch {seconds:.1f} s, {rate:.3f} deals/s{change}; "
              f"rates {view['rates']}", flush=True)
        print(f"  {len(starts)} single jobs, one every {args.trickle_s} s; batch gave way "
              f"{gave_way:.0f} times", flush=True)
        print(f"  POST to start: p50 {percentile(starts, 0.5):.0f} ms, "
              f"p99 {percentile(starts, 0.99):.0f} ms, max {max(starts):.0f} ms", flush=True)
        print(f"  POST to verdict: p50 {percentile(ends, 0.5):.0f} ms, "
              f"p99 {percentile(ends, 0.99):.0f} ms, max {max(ends):.0f} ms", flush=True)
    if "two-clients" in runs:
        samples = run_two_clients(args)
        print(f"two clients: B posted {args.two_after_s} s after A; deals ended since then "
              "(A, B), B's share, a line a minute:", flush=True)
        last = (0.0, samples[0][1], samples[0][2])
        for at, a, b in samples:
            if at - last[0] >= 60 or (at, a, b) == samples[-1]:
                da, db = a - last[1], b - last[2]
                share = db / (da + db) if da + db else float("nan")
                print(f"  {at:6.0f} s: A {a}, B {b}; last interval A +{da}, B +{db}, "
                      f"B's share {share:.2f}", flush=True)
                last = (at, a, b)
        at, a, b = samples[-1]
        a0 = samples[0][1]
        print(f"  over {at:.0f} s: A +{a - a0}, B +{b}: B's share "
              f"{b / max(1, (a - a0) + b):.2f}", flush=True)


if __name__ == "__main__":
    main()
