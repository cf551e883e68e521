#!/usr/bin/env python3
"""Load a running service: POST jobs for SECONDS, read them back for SECONDS, then check
that every accepted job ends.

    scripts/load.py --base http://127.0.0.1:8080 --seconds 30 --threads 16
    scripts/load.py --base http://127.0.0.1:8080 --seconds 30 --rate 1000 --saturate

Each job is a distinct small deal (basic 4x5, `seed` from a counter), so every POST is a
real insert and a real solve. With --rate the clients send at that fixed total rate and
each latency is measured from the moment its request was due (so a stalled server is
not hidden by clients that wait for it); without it, THREADS clients send as fast as
they can. --saturate first posts, per solver thread, one common 4x13 deal that no
search settles within minutes (deals 8, 14, 73, ...), with a time limit covering both
phases, so every solver thread stays busy throughout. The GET phase
reads accepted jobs, at the same rate. Prints the rates, the latency percentiles and
how many accepted jobs ended `done` (waiting up to --drain seconds). Standard library
only.
"""

import argparse
import http.client
import itertools
import json
import random
import threading
import time
import urllib.parse


def client(base):
    u = urllib.parse.urlparse(base)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=30)


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def metric(base, name):
    conn = client(base)
    conn.request("GET", "/metrics")
    for line in conn.getresponse().read().decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return float("nan")


def run_phase(args, send):
    """Runs `send(conn)` from THREADS clients for SECONDS, paced to --rate if given.
    Returns (latencies in ms, elapsed seconds)."""
    lock = threading.Lock()
    latencies = []
    began = time.perf_counter()
    stop = began + args.seconds

    def loop(k):
        conn = client(args.base)
        interval = args.threads / args.rate if args.rate else 0.0
        due = began + k * interval / args.threads
        while True:
            if args.rate:
                now = time.perf_counter()
                if due > now:
                    time.sleep(due - now)
                start = due
                due += interval
            else:
                start = time.perf_counter()
            if start >= stop:
                return
            send(conn)
            ms = (time.perf_counter() - start) * 1e3
            with lock:
                latencies.append(ms)

    workers = [threading.Thread(target=loop, args=(k,)) for k in range(args.threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return latencies, time.perf_counter() - began


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", default="http://127.0.0.1:8080")
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--rate", type=float, default=0, help="requests/s in total (0: as fast as possible)")
    p.add_argument("--saturate", action="store_true", help="keep every solver thread busy")
    p.add_argument("--seed", type=int, default=10_000_000)
    p.add_argument("--drain", type=float, default=300)
    args = p.parse_args()

    if args.saturate:
        threads = int(metric(args.base, "gaps_solvers"))
        hard = [8, 14, 73, 75, 76, 89, 94, 107, 223, 485]
        for seed in hard[:threads]:
            conn = client(args.base)
            body = json.dumps({"variant": "common", "deal": {"seed": seed},
                               "limits": {"time_ms": int(2 * args.seconds * 1000 + 10_000)}})
            conn.request("POST", "/v1/jobs", body, {"content-type": "application/json"})
            assert conn.getresponse().status == 202
        time.sleep(1)
    busy = lambda: f"{metric(args.base, 'gaps_solvers_busy'):.0f} of {metric(args.base, 'gaps_solvers'):.0f}"
    print(f"solvers busy before: {busy()}")

    seeds = itertools.count(args.seed)
    seeds_lock = threading.Lock()
    accepted, refused = [], []

    def post(conn):
        with seeds_lock:
            seed = next(seeds)
        body = json.dumps({"deal": {"seed": seed, "suits": 4, "ranks": 5}})
        conn.request("POST", "/v1/jobs", body, {"content-type": "application/json"})
        r = conn.getresponse()
        data = r.read()
        with seeds_lock:
            if r.status == 202:
                accepted.append(json.loads(data)["id"])
            else:
                refused.append(r.status)

    post_ms, elapsed = run_phase(args, post)
    print(f"POST: {len(accepted)} accepted, {len(refused)} refused in {elapsed:.1f} s = "
          f"{len(accepted) / elapsed:.0f} jobs/s; latency p50 {percentile(post_ms, 50):.1f} ms, "
          f"p99 {percentile(post_ms, 99):.1f} ms, max {max(post_ms):.1f} ms")

    states = []

    def get(conn):
        job = random.choice(accepted)
        conn.request("GET", f"/v1/jobs/{job}")
        r = conn.getresponse()
        states.append(json.loads(r.read())["state"])

    get_ms, elapsed = run_phase(args, get)
    print(f"GET: {len(get_ms)} reads in {elapsed:.1f} s = {len(get_ms) / elapsed:.0f}/s; "
          f"p50 {percentile(get_ms, 50):.2f} ms, p99 {percentile(get_ms, 99):.2f} ms, "
          f"max {max(get_ms):.2f} ms; solvers busy after: {busy()}")

    # Every accepted job must end `done`.
    conn = client(args.base)
    pending = set(accepted)
    deadline = time.time() + args.drain
    while pending and time.time() < deadline:
        for job in list(pending):
            conn.request("GET", f"/v1/jobs/{job}")
            state = json.loads(conn.getresponse().read())["state"]
            if state in ("done", "failed", "cancelled"):
                pending.discard(job)
                if state != "done":
                    print(f"job {job} ended {state}")
        if pending:
            time.sleep(1)
    print(f"{len(accepted) - len(pending)} of {len(accepted)} accepted jobs ended; "
          f"{len(pending)} still pending after {args.drain:.0f} s")


if __name__ == "__main__":
    main()
