#!/usr/bin/env python3
"""Load a running service: POST jobs as fast as THREADS clients can for SECONDS, then
check that every accepted job ends, and read jobs back to measure GET latency.

    scripts/load.py --base http://127.0.0.1:8080 --seconds 30 --threads 16

Each job is a distinct small deal (basic 4x5, `seed` from a counter), so every POST is a
real insert and a real solve. Prints POST jobs/s, the latency percentiles of POST and
GET, and how many accepted jobs ended `done` (waiting up to --drain seconds).
Standard library only.
"""

import argparse
import http.client
import itertools
import json
import threading
import time
import urllib.parse


def client(base):
    u = urllib.parse.urlparse(base)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=30)


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", default="http://127.0.0.1:8080")
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--seed", type=int, default=10_000_000)
    p.add_argument("--drain", type=float, default=300)
    args = p.parse_args()

    seeds = itertools.count(args.seed)
    lock = threading.Lock()
    accepted, refused, post_ms, get_ms = [], [], [], []
    stop = time.time() + args.seconds

    def post_loop():
        conn = client(args.base)
        while time.time() < stop:
            with lock:
                seed = next(seeds)
            body = json.dumps({"deal": {"seed": seed, "suits": 4, "ranks": 5}})
            t = time.perf_counter()
            conn.request("POST", "/v1/jobs", body, {"content-type": "application/json"})
            r = conn.getresponse()
            data = r.read()
            ms = (time.perf_counter() - t) * 1e3
            with lock:
                post_ms.append(ms)
                if r.status == 202:
                    accepted.append(json.loads(data)["id"])
                else:
                    refused.append(r.status)

    began = time.time()
    workers = [threading.Thread(target=post_loop) for _ in range(args.threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed = time.time() - began
    print(f"POST: {len(accepted)} accepted, {len(refused)} refused in {elapsed:.1f} s = "
          f"{len(accepted) / elapsed:.0f} jobs/s; latency p50 {percentile(post_ms, 50):.1f} ms, "
          f"p99 {percentile(post_ms, 99):.1f} ms")

    # Read the jobs back (also measures GET while the solvers work through them).
    conn = client(args.base)
    pending = set(accepted)
    deadline = time.time() + args.drain
    while pending and time.time() < deadline:
        for job in list(pending):
            t = time.perf_counter()
            conn.request("GET", f"/v1/jobs/{job}")
            r = conn.getresponse()
            state = json.loads(r.read())["state"]
            get_ms.append((time.perf_counter() - t) * 1e3)
            if state in ("done", "failed", "cancelled"):
                pending.discard(job)
                if state != "done":
                    print(f"job {job} ended {state}")
    print(f"GET: {len(get_ms)} reads, p50 {percentile(get_ms, 50):.2f} ms, "
          f"p99 {percentile(get_ms, 99):.2f} ms")
    print(f"{len(accepted) - len(pending)} of {len(accepted)} accepted jobs ended; "
          f"{len(pending)} still pending after {args.drain:.0f} s")


if __name__ == "__main__":
    main()
