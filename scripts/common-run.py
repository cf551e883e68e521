#!/usr/bin/env python3
"""Decide common 4x13 deals through the service, as a lab spreads a table over machines:
one `POST /v1/batches` on a PostgreSQL database served by several nodes, resumable.

    scripts/common-run.py --gaps target/release/gaps --deals 0 10000 \
        --out docs/data/common-4x13-0-9999.csv \
        --known docs/data/common-4x13-0-9999-known \
        --faults docs/data/common-4x13-0-9999-faults.csv \
        [--time-ms 3600000] [--nodes 2] [--memory-mb 9000] [--spill-dir DIR] [--cpu FILE] \
        [--hours H] [--second-pass-ms MS] [--database NAME] \
        [--kill-every-min 45] [--stop-every-min 70] [--pg-restart-every-min 55]

What it does:

1. Creates the database `gaps_common_run` on 127.0.0.1:5432 unless it is there (a run
   stopped and started again in the same server picks up where it was).
2. Starts `--nodes` nodes on it, one solver thread each: node `n0` is `gaps serve`
   (the HTTP API, and it runs jobs), the others `gaps worker`. Each has `--memory-mb`
   of the machine; deepening is off (the batch is the only work). With `--spill-dir`,
   each node's exact searches move a full visited set to a scratch file in
   DIR/<node> and go on (`solver.spill_dir`) instead of stopping at their memory.
3. Restores the known verdicts of the folder `--known` (written by an earlier run,
   with every win's solution) into the store's `verdicts` table, so that the batch's jobs of those deals
   are answered from the store (`cached`) and never searched again: that is how a run
   resumes on a new database server.
4. Posts the batch (`seed` = first deal, `count`, `limits.time_ms`, `limits.threads` 1)
   unless the database holds one for these deals already.
5. Every `--save-min` minutes, and at the end: writes `--out` (deal, verdict, positions,
   seconds, algorithm, stopped; one row per deal decided or searched to its limit) and
   the folder `--known` (the store's verdicts of these deals, 1,000 deals a file, each
   win's solution as its moves' cards and target cells), both from the database; with
   `--cpu FILE`, also this session's line of a CPU ledger: its wall time, the CPU time
   of every node it started (ended ones included) and the rows before and now.
6. Faults, on their own clocks: `kill -9` of a node (the nodes in turn, restarted
   10 s later), a graceful stop (SIGTERM) of a node (restarted 10 s later), and a
   restart of the PostgreSQL server (`pg_ctlcluster`, as root). Each is a line of
   `--faults` (time, fault, node, jobs running then). 0 turns one off.
`scripts/common-run.py --summarize FILE [EARLIER]` prints what a data file says
(docs/performance.md), and with EARLIER (another table's CSV) checks that the deals
decided in both have the same verdicts.

7. With `--second-pass-ms MS`, once every deal of the batch is done: each deal left
   `unknown` is posted again as a job of its own (`POST /v1/jobs`, the deal, `common`,
   `limits.time_ms` MS). A stored `unknown` answers only requests with no larger
   limits, so the job searches; its verdict replaces the `unknown` in `verdicts`, where
   the batch's rows read it. A job posted already (queued, running or done, in this
   database) is not posted twice, so the pass resumes like the batch. The faults pause
   during the pass unless `--faults-in-second-pass`: a search is not resumable, and
   a fault would start a search of hours again from its start.
8. Ends when every deal of the batch is done and, with a second pass, every job of
   it (or after `--hours`), then checks that `GET /v1/stats/win-rates` counts what
   `--out` holds, and that no deal has two rows.

Leases are the service's (30 s); `queue.max_attempts` is raised to 50 so that a long
search interrupted by faults is not failed for it. Standard library only (and `psql`).
"""

import argparse
import csv
import gzip
import io
import json
import os
import resource
import signal
import subprocess
import sys
import time

from harness import free_port, psql, request_json

PG_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"
PG_NAME = "gaps_common_run"  # `--database` sets it (and PG_URL) for the whole run
PG_URL = f"postgres://postgres@127.0.0.1:5432/{PG_NAME}"

# The store's `verdicts` columns that a restore writes (everything but `updated_at`).
VERDICT_COLUMNS = [
    "variant", "position", "suits", "ranks", "verdict", "solution", "algorithm", "nodes",
    "elapsed_ms", "limit_nodes", "limit_time_ms", "job_id", "limit_probes",
    "requested_algorithm", "table_mb", "threads",
]
# Deals per file of the known verdicts: a file is rewritten only while its deals change.
CHUNK = 1000
OUT_FIELDS = ["deal", "verdict", "positions", "seconds", "algorithm", "stopped"]


def log(msg):
    print(time.strftime("%H:%M:%S"), msg, flush=True)


class Node:
    """One `gaps serve` or `gaps worker` process of the run."""

    def __init__(self, args, index, port):
        self.args, self.index, self.port = args, index, port
        self.name = f"n{index}"
        self.proc = None

    def start(self):
        env = dict(
            os.environ,
            GAPS_SOLVER__THREADS="1",
            GAPS_SOLVER__MEMORY_MB=str(self.args.memory_mb),
            GAPS_DEEPEN__ENABLED="false",
            GAPS_QUEUE__MAX_ATTEMPTS="50",
            # The largest time limit a job of the run asks (the second pass's is above
            # the service's default cap of 1 h).
            GAPS_LIMITS__MAX_TIME_MS=str(max(self.args.time_ms, self.args.second_pass_ms)),
            GAPS_LOG__FILTER="warn",
        )
        if self.args.spill_dir:
            spill = os.path.join(self.args.spill_dir, self.name)
            os.makedirs(spill, exist_ok=True)
            env["GAPS_SOLVER__SPILL_DIR"] = spill
        if self.index == 0:
            cmd = [self.args.gaps, "serve", "--database", PG_URL,
                   "--listen", f"127.0.0.1:{self.port}"]
            env["GAPS_QUEUE__NODE_ID"] = self.name
        else:
            cmd = [self.args.gaps, "worker", "--database", PG_URL, "--node-id", self.name]
        logf = open(os.path.join(self.args.logs, f"{self.name}.log"), "a")
        self.proc = subprocess.Popen(cmd, stdout=logf, stderr=logf, env=env)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig):
        if self.alive():
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def wait_healthy(port, patience=120):
    deadline = time.time() + patience
    while time.time() < deadline:
        try:
            if request_json(port, "GET", "/healthz", timeout=5)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit("node n0 did not become healthy")


def ensure_database():
    exists = psql(PG_ADMIN, f"SELECT 1 FROM pg_database WHERE datname = '{PG_NAME}'", csv=True)
    if not exists.strip():
        psql(PG_ADMIN, f"CREATE DATABASE {PG_NAME}")
        log(f"created database {PG_NAME}")


def board_of(position):
    """card -> [row, column] of a position in the notation (rows split by `/`)."""
    cells = {}
    for r, row in enumerate(position.split("/")):
        for c, card in enumerate(row.split()):
            if card != "--":
                cells[card] = [r, c]
    return cells


RANKS = "A23456789TJQK"


def compact(position, solution):
    """A solution as words, one a move: the card alone when it goes right of its
    predecessor (every move but a Two's), `CARD:ROW` for a Two into column 0, and
    `CARD:ROW:COLUMN` for anything else (never seen; kept so that nothing is lost).
    Checked by expanding it back."""
    if not solution:
        return ""
    moves = json.loads(solution)
    cells, words = board_of(position), []
    for m in moves:
        card, to = m["card"], m["to"]
        before = RANKS[RANKS.index(card[0]) - 1] + card[1]
        if card[0] != "2" and before in cells and cells[before] == [to[0], to[1] - 1]:
            words.append(card)
        elif card[0] == "2" and to[1] == 0:
            words.append(f"{card}:{to[0]}")
        else:
            words.append(f"{card}:{to[0]}:{to[1]}")
        cells[card] = to
    text = " ".join(words)
    if json.loads(expand(position, text)) != [{"card": m["card"], "from": m["from"], "to": m["to"]} for m in moves]:
        raise SystemExit(f"a solution does not survive its compact form: {position}")
    return text


def expand(position, words):
    """The store's JSON solution back from [`compact`]'s words."""
    if not words:
        return ""
    cells, moves = board_of(position), []
    for word in words.split():
        card, *to = word.split(":")
        if not to:
            r, c = cells[RANKS[RANKS.index(card[0]) - 1] + card[1]]
            to = [r, c + 1]
        elif len(to) == 1:
            to = [int(to[0]), 0]
        else:
            to = [int(to[0]), int(to[1])]
        moves.append({"card": card, "from": cells[card], "to": to})
        cells[card] = to
    return json.dumps(moves)


def deal_positions(gaps, first, count):
    """Deal number -> its position, from `gaps deal` (the files do not repeat them)."""
    out = subprocess.run([gaps, "deal", "--seed", str(first), "--count", str(count), "--position"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    return {first + i: line.strip() for i, line in enumerate(out)}


def known_files(folder):
    return sorted(os.path.join(folder, f) for f in os.listdir(folder)
                  if f.startswith("known-") and f.endswith(".csv.gz")) if os.path.isdir(folder) else []


def read_known(folder):
    """The rows of the files in `folder` (deal, the verdict columns but the position,
    stopped), by deal."""
    rows = {}
    for path in known_files(folder):
        with gzip.open(path, "rt", newline="") as f:
            for row in csv.DictReader(f):
                rows[int(row["deal"])] = row
    return rows


def restore_known(args):
    """Adds the verdicts of the folder `args.known` that the store does not hold;
    returns how many the files hold."""
    rows = read_known(args.known)
    if not rows:
        return 0
    positions = deal_positions(args.gaps, min(rows), max(rows) - min(rows) + 1)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for deal, row in rows.items():
        position = positions[deal]
        row = dict(row, position=position, solution=expand(position, row["solution"]))
        w.writerow([row[c] for c in VERDICT_COLUMNS])
    cols = ", ".join(VERDICT_COLUMNS)
    sql = (
        "CREATE TEMP TABLE restore (LIKE verdicts INCLUDING DEFAULTS);\n"
        f"COPY restore ({cols}) FROM STDIN WITH (FORMAT csv, NULL '');\n"
        + buf.getvalue()
        + "\\.\n"
        f"INSERT INTO verdicts ({cols}) SELECT {cols} FROM restore ON CONFLICT DO NOTHING;\n"
    )
    done = subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", PG_URL],
                          input=sql, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the restore failed: {done.stderr}")
    return len(rows)


def use_database(name):
    global PG_NAME, PG_URL
    PG_NAME = name
    PG_URL = f"postgres://postgres@127.0.0.1:5432/{PG_NAME}"


def second_pass(args, port, rows):
    """Posts a job of its own for each deal of `rows` still `unknown` that has none yet
    (at `--second-pass-ms`), and returns how many of those jobs are not finished."""
    ms = args.second_pass_ms
    left = 0
    for r in rows:
        if r["verdict"] != "unknown":
            continue
        deal = int(r["deal"])
        state = psql(PG_URL, "SELECT j.state FROM jobs j JOIN gaps_searches g ON g.id = j.id "
                     "WHERE j.batch_id IS NULL AND g.variant = 'common' AND g.suits = 4 "
                     f"AND g.ranks = 13 AND g.deal_seed = {deal} AND g.limit_time_ms = {ms} "
                     "AND j.state IN ('queued', 'running', 'done') "
                     "ORDER BY j.seq DESC LIMIT 1", csv=True).strip()
        if not state:
            body = {"deal": {"seed": deal, "suits": 4, "ranks": 13}, "variant": "common",
                    "limits": {"time_ms": ms, "threads": 1}}
            status, answer = request_json(port, "POST", "/v1/jobs", body)
            if status not in (200, 201, 202):
                raise SystemExit(f"POST /v1/jobs (deal {deal}): {status} {answer}")
            log(f"second pass: deal {deal} posted as job {answer['id']} at {ms} ms")
            state = answer.get("state", "queued")
        if state != "done":
            left += 1
    return left


def find_batch(first, count):
    out = psql(PG_URL, "SELECT id FROM batches WHERE variant = 'common' AND suits = 4 AND "
               f"ranks = 13 AND seed = {first} AND count = {count} ORDER BY seq LIMIT 1",
               csv=True).strip()
    return out or None


def rows_of_batch(batch):
    """The run's verdicts, one per deal, with the deal number (from the batch's jobs)."""
    cols = ", ".join(f"v.{c}" for c in VERDICT_COLUMNS)
    sql = (f"COPY (SELECT g.deal_seed AS deal, {cols} FROM jobs j "
           "JOIN gaps_searches g ON g.id = j.id JOIN verdicts v "
           "ON v.variant = g.variant AND v.position = g.position "
           f"WHERE j.batch_id = '{batch}' ORDER BY g.deal_seed) TO STDOUT WITH (FORMAT csv, HEADER, NULL '')")
    text = subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", PG_URL, "-c", sql],
                          capture_output=True, text=True, check=True).stdout
    return list(csv.DictReader(io.StringIO(text)))


def save(args, batch):
    rows = rows_of_batch(batch)
    deals = [r["deal"] for r in rows]
    if len(deals) != len(set(deals)):
        raise SystemExit("a deal has two verdict rows")
    # Why a search stopped is the job's, not the store's: from this database's searched
    # jobs, else from the files (a deal answered here from a restored verdict).
    earlier = read_known(args.known)
    stopped = {int(d): s for d, s in (line.split(",", 1) for line in psql(
        PG_URL, "SELECT g.deal_seed, j.stopped FROM jobs j JOIN gaps_searches g ON g.id = j.id "
        f"WHERE j.batch_id = '{batch}' AND g.verdict = 'unknown' AND NOT g.cached",
        csv=True).splitlines())}
    for r in rows:
        deal = int(r["deal"])
        known = stopped.get(deal, earlier.get(deal, {}).get("stopped", ""))
        r["stopped"] = known if r["verdict"] == "unknown" else ""
    os.makedirs(args.known, exist_ok=True)
    fields = ["deal", *(c for c in VERDICT_COLUMNS if c != "position"), "stopped"]
    chunks = {}
    for r in rows:
        chunks.setdefault(int(r["deal"]) // CHUNK * CHUNK, []).append(r)
    for start, chunk in chunks.items():
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        for r in chunk:
            w.writerow(dict(r, solution=compact(r["position"], r["solution"])))
        path = os.path.join(args.known, f"known-{start:05d}.csv.gz")
        # mtime 0: the same rows give the same bytes, so an unchanged chunk is not a change.
        data = gzip.compress(buf.getvalue().encode(), compresslevel=9, mtime=0)
        if not os.path.exists(path) or open(path, "rb").read() != data:
            with open(path + ".tmp", "wb") as f:
                f.write(data)
            os.replace(path + ".tmp", path)
    tmp = args.out + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=OUT_FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({
                "deal": r["deal"], "verdict": r["verdict"], "positions": r["nodes"],
                "seconds": f"{float(r['elapsed_ms']) / 1000:.3f}", "algorithm": r["algorithm"],
                "stopped": r["stopped"],
            })
    os.replace(tmp, args.out)
    return rows


def nodes_cpu_seconds(nodes):
    """CPU time (user + system) of every node this driver started: the ones that ended
    (reaped children, `kill -9` included) and the ones alive now (`/proc/PID/stat`)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = used.ru_utime + used.ru_stime
    tick = os.sysconf("SC_CLK_TCK")
    for node in nodes:
        if node.alive():
            try:
                with open(f"/proc/{node.proc.pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / tick
            except (OSError, IndexError, ValueError):
                pass
    return total


CPU_FIELDS = ["session_start", "updated", "wall_s", "cpu_s", "rows_at_start", "rows"]


def save_cpu(path, session):
    """This session's line of the CPU ledger `path` (one line a session of the driver),
    written again at every save."""
    lines = []
    if os.path.exists(path):
        with open(path, newline="") as f:
            lines = [r for r in csv.DictReader(f) if r["session_start"] != session["session_start"]]
    lines.append(session)
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CPU_FIELDS)
        w.writeheader()
        w.writerows(lines)
    os.replace(path + ".tmp", path)


def running_jobs():
    try:
        return psql(PG_URL, "SELECT count(*) FROM jobs WHERE state = 'running'", csv=True).strip()
    except subprocess.CalledProcessError:
        return "?"


def fault(args, what, node=""):
    new = not os.path.exists(args.faults)
    with open(args.faults, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(["time", "fault", "node", "running"])
        w.writerow([time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), what, node, running_jobs()])
    log(f"fault: {what} {node}")


def check_win_rates(port, rows):
    status, body = request_json(port, "GET", "/v1/stats/win-rates")
    mine = [r for r in body if r.get("variant") == "common" and r.get("suits") == 4
            and r.get("ranks") == 13 and r.get("source", "positions") == "positions"
            and r.get("redeals", 0) == 0] if status == 200 else []
    counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in ("solvable", "unsolvable", "unknown")}
    if len(mine) != 1:
        log(f"win-rates: no single common 4x13 row ({status}): {mine}")
        return False
    got = {v: mine[0][v] for v in counts}
    log(f"win-rates: {got}; the data file: {counts}")
    return got == counts


def wilson(wins, n, z=1.959964):
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / d
    return (c - h, c + h)


def percentile(values, q):
    """The nearest-rank percentile `q` (0..100) of `values`."""
    values = sorted(values)
    if not values:
        return None
    rank = max(1, -(-len(values) * q // 100))
    return values[int(rank) - 1]


def summarize(path, hardest=20):
    """What a data file says: counts, the win rate with its Wilson interval, positions
    and seconds per deal (median, p90, p99, max) for wins and losses apart, the search
    time in all, and the hardest deals."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    by = {v: [r for r in rows if r["verdict"] == v] for v in ("solvable", "unsolvable", "unknown")}
    won, lost, unknown = (len(by[v]) for v in ("solvable", "unsolvable", "unknown"))
    decided = won + lost
    low, high = wilson(won, decided)
    print(f"{len(rows)} deals: {won} won, {lost} lost, {unknown} unknown")
    if decided:
        print(f"win rate {won / decided:.2%} of the decided, Wilson 95% [{low:.2%}, {high:.2%}]")
    for v in ("solvable", "unsolvable", "unknown"):
        if not by[v]:
            continue
        for field in ("positions", "seconds"):
            xs = [float(r[field]) for r in by[v]]
            cells = ", ".join(f"{name} {percentile(xs, q):,.3f}" if field == "seconds" else
                              f"{name} {int(percentile(xs, q)):,}"
                              for name, q in (("median", 50), ("p90", 90), ("p99", 99), ("max", 100)))
            print(f"  {v} {field}: {cells}")
    seconds = sum(float(r["seconds"]) for r in rows)
    print(f"search time in all: {seconds / 3600:.2f} h (one thread a deal)")
    print("hardest by seconds:")
    for r in sorted(rows, key=lambda r: -float(r["seconds"]))[:hardest]:
        print(f"  {r['deal']}: {r['verdict']} by {r['algorithm']}, {int(r['positions']):,} positions, {float(r['seconds']):,.1f} s")


def compare(path, earlier):
    """Checks that every deal decided in both files has the same verdict."""
    with open(path, newline="") as f:
        new = {r["deal"]: r["verdict"] for r in csv.DictReader(f)}
    with open(earlier, newline="") as f:
        old = {r["deal"]: r["verdict"] for r in csv.DictReader(f)}
    both = [d for d in new if d in old and "unknown" not in (new[d], old[d])]
    differ = [d for d in both if new[d] != old[d]]
    print(f"against {earlier}: {len(both)} deals decided in both, {len(differ)} differ {differ[:20]}")
    if differ:
        raise SystemExit(1)


def main():
    if len(sys.argv) in (3, 4) and sys.argv[1] == "--summarize":
        summarize(sys.argv[2])
        if len(sys.argv) == 4:
            compare(sys.argv[2], sys.argv[3])
        return
    nodes = []
    try:
        run(nodes)
    finally:
        for node in nodes:
            node.signal(signal.SIGTERM)


def run(nodes):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gaps", default="target/release/gaps")
    p.add_argument("--deals", nargs=2, type=int, default=[0, 10000], metavar=("FIRST", "COUNT"))
    p.add_argument("--time-ms", type=int, default=3600000)
    p.add_argument("--nodes", type=int, default=2)
    p.add_argument("--memory-mb", type=int, default=9000)
    p.add_argument("--out", required=True)
    p.add_argument("--known", required=True)
    p.add_argument("--faults", required=True)
    p.add_argument("--logs", default="target/common-run")
    p.add_argument("--spill-dir", default="",
                   help="each node's solver.spill_dir is DIR/<node> (empty: no spilling)")
    p.add_argument("--cpu", default="",
                   help="CSV ledger of the nodes' CPU time, a line a session of this driver")
    p.add_argument("--hours", type=float, default=0, help="stop after this long (0: at the end)")
    p.add_argument("--faults-in-second-pass", action="store_true",
                   help="go on with the faults during the second pass (off: a fault "
                        "there starts a search of hours again)")
    p.add_argument("--second-pass-ms", type=int, default=0,
                   help="after the batch, search each deal left unknown again as a job of "
                        "its own with this time limit (0: no second pass)")
    p.add_argument("--database", default="gaps_common_run",
                   help="the PostgreSQL database of the run (created when absent)")
    p.add_argument("--save-min", type=float, default=10)
    p.add_argument("--kill-every-min", type=float, default=45)
    p.add_argument("--stop-every-min", type=float, default=70)
    p.add_argument("--pg-restart-every-min", type=float, default=55)
    args = p.parse_args()
    use_database(args.database)
    os.makedirs(args.logs, exist_ok=True)
    first, count = args.deals

    ensure_database()
    port = free_port()
    nodes.extend(Node(args, i, port) for i in range(args.nodes))
    nodes[0].start()
    wait_healthy(port)
    for node in nodes[1:]:
        node.start()
    restored = restore_known(args)
    log(f"restored {restored} known verdicts from {args.known}")
    batch = find_batch(first, count)
    if batch is None:
        body = {"variant": "common", "suits": 4, "ranks": 13, "seed": first, "count": count,
                "limits": {"time_ms": args.time_ms, "threads": 1}}
        status, answer = request_json(port, "POST", "/v1/batches", body)
        if status not in (200, 201, 202):
            raise SystemExit(f"POST /v1/batches: {status} {answer}")
        batch = answer["id"]
        log(f"posted batch {batch}")
    else:
        log(f"batch {batch} already in the database")

    started = time.time()
    # The rows before this run: the data file's (on a new database server the batch's
    # jobs are not inserted yet, so the store would say 0).
    rows_at_start = len(rows_of_batch(batch))
    if os.path.exists(args.out):
        with open(args.out, newline="") as f:
            rows_at_start = max(rows_at_start, sum(1 for _ in csv.DictReader(f)))
    session = {"session_start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))}

    def ledger(rows):
        if args.cpu:
            session.update(updated=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                           wall_s=f"{time.time() - started:.0f}",
                           cpu_s=f"{nodes_cpu_seconds(nodes):.0f}",
                           rows_at_start=rows_at_start, rows=len(rows))
            save_cpu(args.cpu, session)

    clocks = {"kill": time.time(), "stop": time.time(), "pg": time.time(), "save": time.time()}
    turn = 0
    stop_requested = []
    signal.signal(signal.SIGTERM, lambda *_: stop_requested.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop_requested.append(1))

    def every(key, minutes):
        if minutes and time.time() - clocks[key] >= minutes * 60:
            clocks[key] = time.time()
            return True
        return False

    done = False
    in_second_pass = False
    # Whatever ends the loop (a stop, the end, or an error such as a refused second-pass
    # job), the data file and this run's ledger line are written.
    try:
        while not stop_requested:
            time.sleep(10)
            for node in nodes:
                if not node.alive():
                    log(f"node {node.name} is down: started again")
                    node.start()
                    if node.index == 0:
                        wait_healthy(port)
            # A node killed or stopped (the nodes in turn), started again 10 s later. Not
            # in the second pass (unless asked): a search is not resumable, so a fault
            # there starts a search of hours again from its start.
            faults_on = not in_second_pass or args.faults_in_second_pass
            for key, minutes, what, sig in (("kill", args.kill_every_min, "kill -9", signal.SIGKILL),
                                            ("stop", args.stop_every_min, "SIGTERM", signal.SIGTERM)):
                if every(key, minutes if faults_on else 0):
                    node = nodes[turn % len(nodes)]
                    turn += 1
                    fault(args, what, node.name)
                    node.signal(sig)
                    time.sleep(10)
                    node.start()
            if every("pg", args.pg_restart_every_min if faults_on else 0):
                fault(args, "postgres restart")
                subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", "15", "main", "restart"],
                               check=False)
            try:
                status, view = request_json(port, "GET", f"/v1/batches/{batch}", timeout=30)
            except OSError:
                continue
            if status != 200:
                continue
            if every("save", args.save_min):
                rows = save(args, batch)
                ledger(rows)
                log(f"saved {len(rows)} rows; batch: {json.dumps(view.get('counts', view))[:300]}")
            if view.get("state") == "done" or view.get("done") == count:
                if not args.second_pass_ms:
                    done = True
                    break
                # The deals left unknown, read once as the pass starts (a save every
                # 10 s here took most of a core from the solvers, at `SCHED_IDLE`).
                if not in_second_pass:
                    pass_rows = save(args, batch)
                    in_second_pass = True
                if second_pass(args, port, pass_rows) == 0:
                    done = True
                    break
            if args.hours and time.time() - started > args.hours * 3600:
                break
    finally:
        rows = save(args, batch)
        ledger(rows)
        log(f"saved {len(rows)} rows")
    ok = True
    if done:
        ok = check_win_rates(port, rows)
    if not ok:
        raise SystemExit("the win rates and the data file disagree")


if __name__ == "__main__":
    main()
