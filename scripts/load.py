#!/usr/bin/env python3
"""Load a running service: POST jobs for SECONDS, read them back for SECONDS, then check
that every accepted job ends.

    scripts/load.py --base http://127.0.0.1:8080 --seconds 30 --threads 16
    scripts/load.py --base http://127.0.0.1:8080 --seconds 30 --rate 1000 --saturate
    scripts/load.py --base ... --rate 1000 --tokens 10 --greedy-rate 400

With --tokens N the clients send `Authorization: Bearer load{i}:secret{i}` for i in
0..N-1 (the service must be configured with those tokens, for example
GAPS_AUTH__TOKENS=load0:secret0,...), and the POST line reports each token's accepted
rate. --greedy-rate R adds one more client, token `greedy:secret`, sending R jobs/s on
top of --rate, to show a client over its quota (`limits.rate_per_s`) refused with 429
while the others keep their throughput.

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


# Threads of the --greedy-rate client (one token), so that its rate does not depend on
# one connection's round trip.
GREEDY_THREADS = 4


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
            send(conn, k)
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
    p.add_argument("--tokens", type=int, default=0, help="bearer tokens load0..load{N-1}")
    p.add_argument("--greedy-rate", type=float, default=0, help="jobs/s of one more client")
    args = p.parse_args()
    token_of = lambda k: f"load{k % args.tokens}:secret{k % args.tokens}" if args.tokens else None

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

    per_token = {}
    greedy = {"accepted": 0, "refused": 0}

    def send_job(conn, token):
        with seeds_lock:
            seed = next(seeds)
        body = json.dumps({"deal": {"seed": seed, "suits": 4, "ranks": 5}})
        headers = {"content-type": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        conn.request("POST", "/v1/jobs", body, headers)
        r = conn.getresponse()
        return r.status, r.read()

    def post(conn, k):
        token = token_of(k)
        status, data = send_job(conn, token)
        with seeds_lock:
            if status == 202:
                accepted.append(json.loads(data)["id"])
                per_token[token] = per_token.get(token, 0) + 1
            else:
                refused.append(status)

    greedy_stop = threading.Event()

    def greedy_loop():
        conn = client(args.base)
        interval, due = GREEDY_THREADS / args.greedy_rate, time.perf_counter()
        while not greedy_stop.is_set():
            now = time.perf_counter()
            if due > now:
                time.sleep(due - now)
            due += interval
            try:
                status, data = send_job(conn, "greedy:secret")
            except (OSError, http.client.HTTPException):
                # The service closes a connection after refusing a request without
                # reading its body (429 here): open a new one.
                conn = client(args.base)
                continue
            with seeds_lock:
                if status == 202:
                    greedy["accepted"] += 1
                    accepted.append(json.loads(data)["id"])
                else:
                    greedy["refused"] += 1

    greedy_threads = [threading.Thread(target=greedy_loop)
                      for _ in range(GREEDY_THREADS if args.greedy_rate else 0)]
    for t in greedy_threads:
        t.start()
    post_ms, elapsed = run_phase(args, post)
    greedy_stop.set()
    for t in greedy_threads:
        t.join()
    ours = len(accepted) - greedy["accepted"]
    print(f"POST: {ours} accepted, {len(refused)} refused in {elapsed:.1f} s = "
          f"{ours / elapsed:.0f} jobs/s; latency p50 {percentile(post_ms, 50):.1f} ms, "
          f"p99 {percentile(post_ms, 99):.1f} ms, max {max(post_ms):.1f} ms")
    if args.tokens:
        rates = sorted(n / elapsed for t, n in per_token.items())
        print(f"per token: {len(rates)} tokens, accepted {rates[0]:.0f} .. {rates[-1]:.0f} jobs/s")
    if greedy_threads:
        print(f"greedy client at {args.greedy_rate:.0f}/s: {greedy['accepted'] / elapsed:.0f} accepted/s, "
              f"{greedy['refused'] / elapsed:.0f} refused/s (429)")

    states = []

    def get(conn, k):
        job = random.choice(accepted)
        token = token_of(k)
        conn.request("GET", f"/v1/jobs/{job}", headers={"authorization": f"Bearer {token}"} if token else {})
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
