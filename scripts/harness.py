"""What the scripts that run the service share (scripts/*-bench.py, scripts/soak.py): a
free port, a request, `gaps serve` started and waited for, stopped, and `psql`.
Standard library only; a script run as `python3 scripts/NAME.py` imports it from its
own folder.

Each script keeps what is its own: the environment it starts the service with, and
how it reads answers and summarises times.
"""

import http.client
import json
import socket
import subprocess
import time


def free_port():
    """A TCP port on 127.0.0.1 free when asked."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, body=None, headers=None, timeout=120):
    """`method path` on 127.0.0.1:`port` with `body` as JSON: (status, raw body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    sent = dict(headers or {})
    if body is not None:
        sent["content-type"] = "application/json"
    conn.request(method, path, json.dumps(body) if body is not None else None, sent)
    r = conn.getresponse()
    return r.status, r.read()


def request_json(port, method, path, body=None, headers=None, timeout=120):
    """[`request`], with the body decoded as JSON (`None` when empty)."""
    status, data = request(port, method, path, body, headers, timeout)
    return status, (json.loads(data) if data else None)


def serve(gaps, url, port, env, stderr=subprocess.DEVNULL, patience=None):
    """Starts `gaps serve` on database `url` and 127.0.0.1:`port` with environment
    `env`, and returns the process once /healthz answers 200. Exits the script if the
    service exits first, or (with `patience` seconds) is not healthy by then."""
    proc = subprocess.Popen(
        [gaps, "serve", "--database", url, "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        env=env,
    )
    deadline = None if patience is None else time.time() + patience
    while deadline is None or time.time() < deadline:
        try:
            if request(port, "GET", "/healthz", timeout=5)[0] == 200:
                return proc
        except OSError:
            pass
        if proc.poll() is not None:
            raise SystemExit(f"gaps serve exited with {proc.returncode}")
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("the service did not become healthy")


def stop(proc, timeout=60):
    """Stops a service gracefully (SIGTERM) and waits for it."""
    proc.terminate()
    proc.wait(timeout=timeout)


def psql(url, sql, csv=False, quiet=False):
    """Runs `sql` on `url` with psql (failing on the first error); its output, as CSV
    rows without header with `csv`; psql's messages hidden with `quiet`."""
    cmd = ["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql]
    if csv:
        cmd[1:1] = ["--csv", "-t"]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    if not quiet and done.stderr:
        print(done.stderr, end="")
    return done.stdout
