#!/usr/bin/env python3
"""Soak the service under faults while clients POST at a fixed rate, then check that
nothing accepted was lost.

    scripts/soak.py --gaps target/release/gaps [--cycles 10] [--rate 500]
                    [--cycle-seconds 6] [--full-disk-seconds 10]
    scripts/soak.py --gaps target/release/gaps --backend postgres --nodes 3 [--cycles 9]

With `--backend postgres` it runs NODES nodes on the database `gaps_soak` of the
PostgreSQL server at 127.0.0.1:5432 (dropped and created first); clients send to the
nodes in turn; each cycle kills (-9) one node, the nodes in turn, and starts it again;
after half the cycles the PostgreSQL server itself is restarted (`pg_ctlcluster`, as
root: every node loses the database for a few seconds). There is no full-disk phase.
The check reads the jobs with `psql` and asks the same of them (every accepted job
there once, `done`, with a verdict), and says which node ran how many. Leases last
5 s in both modes, so a killed node's jobs come back to the others quickly.

Runs `gaps serve` on an SQLite database (on a tmpfs of --tmpfs-mb when this machine
can mount one, so that the disk can be filled), with THREADS clients sending
`POST /v1/jobs` (distinct basic 4x5 deals) at --rate in all. Then:

1. --cycles times: after --cycle-seconds, `kill -9` the service and start it again at
   once on the same database and port (clients keep sending; while it is down their
   requests fail to connect, which is not acceptance).
2. If the tmpfs is mounted: fill it with a file for --full-disk-seconds (the service
   must answer 503, never 500), then delete the file (it must take jobs again).

Finally it stops the clients, waits for the queue to drain, stops the service with
SIGTERM and reads the database itself: every job answered 202 must be there exactly
once, `done`, with a verdict; `PRAGMA integrity_check` must say `ok`. Any 5xx other
than 503, or any lost job, fails the run (exit 1). Standard library only.
"""

import argparse
import http.client
import itertools
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

from harness import free_port, psql, serve


PG_ADMIN = "postgres://postgres@127.0.0.1:5432/test"
PG_NAME = "gaps_soak"
PG_URL = f"postgres://postgres@127.0.0.1:5432/{PG_NAME}"


def start(args, db, port, log, node_id="soak"):
    env = dict(os.environ,
               GAPS_SOLVER__THREADS=str(args.solver_threads), GAPS_SOLVER__TABLE_MB="16",
               GAPS_DEEPEN__ENABLED="false", GAPS_LOG__FILTER="error",
               GAPS_QUEUE__NODE_ID=node_id, GAPS_QUEUE__LEASE_MS="5000")
    url = PG_URL if args.backend == "postgres" else f"sqlite://{db}"
    return serve(args.gaps, url, port, env, stderr=open(log, "a"), patience=30)


class Clients:
    """THREADS senders at RATE in all; records accepted ids and every status."""

    def __init__(self, args, ports):
        self.args, self.ports = args, ports
        self.lock = threading.Lock()
        self.accepted = []
        self.statuses = {}
        self.stop = threading.Event()
        self.seeds = itertools.count(1)
        self.threads = [threading.Thread(target=self.loop, args=(k,)) for k in range(args.threads)]

    def count(self, key):
        with self.lock:
            self.statuses[key] = self.statuses.get(key, 0) + 1

    def loop(self, k):
        interval = self.args.threads / self.args.rate
        due = time.perf_counter() + k * interval / self.args.threads
        conn = None
        while not self.stop.is_set():
            now = time.perf_counter()
            if due > now:
                time.sleep(due - now)
            due += interval
            with self.lock:
                seed = next(self.seeds)
            body = json.dumps({"deal": {"seed": seed, "suits": 4, "ranks": 5}})
            try:
                if conn is None:
                    port = self.ports[(k + seed) % len(self.ports)]
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("POST", "/v1/jobs", body, {"content-type": "application/json"})
                response = conn.getresponse()
                data = response.read()
            except (OSError, http.client.HTTPException):
                self.count("no connection")
                conn = None
                continue
            self.count(response.status)
            if response.status == 202:
                with self.lock:
                    self.accepted.append(json.loads(data)["id"])
            elif response.status >= 500 and response.status != 503:
                print(f"server error {response.status}: {data[:200]!r}", file=sys.stderr)

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join()


def mount_tmpfs(path, mb):
    os.makedirs(path, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={mb}m", "tmpfs", path],
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(f"no tmpfs ({done.stderr.strip()}): the full-disk phase is skipped")
        return False
    return True


def fill(path):
    block = b"\0" * (64 << 10)
    with open(path, "wb") as f:
        try:
            while True:
                f.write(block)
        except OSError:
            pass


def drain(ports, seconds):
    """Waits until no job is queued or running (read through any node that answers)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        for port in ports:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("GET", "/v1/jobs?state=queued&limit=1")
                queued = json.loads(conn.getresponse().read())["jobs"]
                conn.request("GET", "/v1/jobs?state=running&limit=1")
                running = json.loads(conn.getresponse().read())["jobs"]
            except (OSError, ValueError, KeyError, http.client.HTTPException):
                continue
            if not queued and not running:
                return True
            break
        time.sleep(0.5)
    return False


def judge(clients, rows):
    """What the database says of the accepted jobs, `rows` mapping an id to (state,
    verdict, attempts, ...): (missing ids, ids not done with a verdict, duplicate ids,
    5xx other than 503 by status, jobs run more than once)."""
    accepted = clients.accepted
    missing = [i for i in accepted if i not in rows]
    not_done = [i for i in accepted if i in rows and (rows[i][0] != "done" or rows[i][1] is None)]
    duplicates = len(accepted) - len(set(accepted))
    errors = {k: v for k, v in clients.statuses.items() if isinstance(k, int) and k >= 500 and k != 503}
    rerun = sum(1 for i in accepted if i in rows and rows[i][2] > 1)
    return missing, not_done, duplicates, errors, rerun


def soak_postgres(args):
    psql(PG_ADMIN, f"DROP DATABASE IF EXISTS {PG_NAME} WITH (FORCE)")
    psql(PG_ADMIN, f"CREATE DATABASE {PG_NAME}")
    work = tempfile.mkdtemp(prefix="gaps-soak-")
    log = os.path.join(work, "server.log")
    ports = [free_port() for _ in range(args.nodes)]
    procs = [start(args, None, port, log, f"soak{i}") for i, port in enumerate(ports)]
    version = sorted(os.listdir("/etc/postgresql"))[-1]
    began = time.time()
    kills = db_restarts = 0
    try:
        with Clients(args, ports) as clients:
            for cycle in range(args.cycles):
                time.sleep(args.cycle_seconds)
                k = cycle % len(procs)
                procs[k].send_signal(signal.SIGKILL)
                procs[k].wait()
                kills += 1
                procs[k] = start(args, None, ports[k], log, f"soak{k}")
                print(f"cycle {cycle + 1}: node {k} killed and restarted; "
                      f"{len(clients.accepted)} accepted so far", flush=True)
                if cycle + 1 == args.cycles // 2:
                    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version,
                                    "main", "restart"], check=True, capture_output=True)
                    db_restarts += 1
                    print("PostgreSQL restarted", flush=True)
        posting = time.time() - began
        drained = drain(ports, args.drain)
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=30)
        rows = {}
        for line in psql(PG_URL, "SELECT j.id, j.state, g.verdict, j.attempts, j.node_id FROM jobs j "
                         "LEFT JOIN gaps_searches g ON g.id = j.id",
                         csv=True).splitlines():
            if line:
                id_, state, verdict, attempts, node = line.split(",")
                rows[id_] = (state, verdict or None, int(attempts), node)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    accepted = clients.accepted
    missing, not_done, duplicates, errors, rerun = judge(clients, rows)
    by_node = {}
    for i in accepted:
        if i in rows:
            by_node[rows[i][3]] = by_node.get(rows[i][3], 0) + 1
    print(json.dumps({
        "backend": "postgres", "nodes": args.nodes, "node kills": kills,
        "database restarts": db_restarts, "drained": drained,
        "seconds posting": round(posting, 1), "rate asked": args.rate,
        "requests": sum(clients.statuses.values()),
        "statuses": {str(k): v for k, v in clients.statuses.items()},
        "accepted": len(accepted), "accepted per s": round(len(accepted) / posting, 1),
        "missing": len(missing), "not done": len(not_done), "duplicate ids": duplicates,
        "run more than once (interrupted by a kill)": rerun,
        "done by node": by_node,
    }, indent=1))
    failed = missing or not_done or duplicates or errors or not drained
    if failed:
        print(f"the nodes' log: {log}", file=sys.stderr)
    sys.exit(1 if failed else 0)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gaps", default="target/release/gaps")
    p.add_argument("--cycles", type=int, default=10)
    p.add_argument("--cycle-seconds", type=float, default=6)
    p.add_argument("--rate", type=float, default=500)
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--full-disk-seconds", type=float, default=10)
    p.add_argument("--tmpfs-mb", type=int, default=256)
    p.add_argument("--drain", type=float, default=300, help="seconds to wait for the queue")
    p.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--nodes", type=int, default=1)
    p.add_argument("--solver-threads", type=int, default=2)
    args = p.parse_args()
    if args.backend == "sqlite" and args.nodes != 1:
        sys.exit("SQLite allows one node")
    if args.backend == "postgres":
        return soak_postgres(args)

    work = tempfile.mkdtemp(prefix="gaps-soak-")
    mnt = os.path.join(work, "disk")
    mounted = mount_tmpfs(mnt, args.tmpfs_mb)
    db = os.path.join(mnt if mounted else work, "gaps.db")
    log = os.path.join(work, "server.log")  # never on the disk that gets filled
    port = free_port()
    began = time.time()
    proc = start(args, db, port, log)
    kills = 0
    disk_statuses = {}
    try:
        with Clients(args, [port]) as clients:
            for cycle in range(args.cycles):
                time.sleep(args.cycle_seconds)
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                kills += 1
                proc = start(args, db, port, log)
                print(f"cycle {cycle + 1}: killed and restarted; {len(clients.accepted)} accepted so far",
                      flush=True)
            if mounted:
                before = dict(clients.statuses)
                filler = os.path.join(mnt, "filler")
                fill(filler)
                time.sleep(args.full_disk_seconds)
                os.remove(filler)
                time.sleep(args.cycle_seconds)
                disk_statuses = {k: v - before.get(k, 0) for k, v in clients.statuses.items()}
                print(f"full disk for {args.full_disk_seconds} s: {disk_statuses}", flush=True)
        posting = time.time() - began
        drain([port], args.drain)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        check = sqlite3.connect(db)
        rows = {row[0]: row[1:] for row in
                check.execute("SELECT j.id, j.state, g.verdict, j.attempts FROM jobs j "
                              "LEFT JOIN gaps_searches g ON g.id = j.id")}
        integrity = check.execute("PRAGMA integrity_check").fetchone()[0]
        check.close()
    finally:
        if proc.poll() is None:
            proc.kill()
        if mounted:
            subprocess.run(["umount", mnt])

    accepted = clients.accepted
    missing, not_done, duplicates, errors, rerun = judge(clients, rows)
    print(json.dumps({
        "kills": kills, "seconds posting": round(posting, 1), "rate asked": args.rate,
        "requests": sum(clients.statuses.values()),
        "statuses": {str(k): v for k, v in clients.statuses.items()},
        "accepted": len(accepted), "accepted per s": round(len(accepted) / posting, 1),
        "missing": len(missing), "not done": len(not_done), "duplicate ids": duplicates,
        "run more than once (interrupted by a kill)": rerun,
        "full disk statuses": {str(k): v for k, v in disk_statuses.items()},
        "integrity": integrity,
    }, indent=1))
    failed = missing or not_done or duplicates or errors or integrity != "ok" \
        or (mounted and disk_statuses.get(503, 0) == 0)
    if failed:
        print(f"the service's log: {log}", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
