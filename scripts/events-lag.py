#!/usr/bin/env python3
"""How far a job's server-sent events lag behind its state (docs/http.md, "Events").

Posts common 4x13 deals SEED.. one at a time to a running service, follows each job's
`GET /v1/jobs/{id}/events` from its creation, and compares the arrival of its `end`
event with the job's `finished_at` (the service's clock: run it on the same machine),
and the arrival of its first `state` event naming `running` with its `started_at`.
Prints the lags' median, p95 and max in milliseconds, and the gaps between `progress`
events.

    scripts/events-lag.py http://127.0.0.1:8080 [--deals 30] [--seed 0]
"""
import argparse
import datetime
import json
import statistics
import time
import urllib.request


def stamp(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def events(url):
    """Yields (name, data, arrival time) of the stream at `url` until it closes."""
    with urllib.request.urlopen(url, timeout=120) as stream:
        name, data = None, None
        for raw in stream:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
            elif line == "" and name is not None:
                yield name, data, time.time()
                name, data = None, None


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    end_lags, start_lags, gaps = [], [], []
    for seed in range(args.seed, args.seed + args.deals):
        body = json.dumps({"deal": {"seed": seed}, "variant": "common",
                           "limits": {"time_ms": 5000}}).encode()
        request = urllib.request.Request(f"{args.base}/v1/jobs", data=body,
                                         headers={"content-type": "application/json"})
        job = json.load(urllib.request.urlopen(request))
        last_progress, final, running_seen = None, None, None
        for name, data, at in events(f"{args.base}/v1/jobs/{job['id']}/events"):
            if name == "state" and data.get("state") == "running" and running_seen is None:
                running_seen = at
            if name == "progress":
                if last_progress is not None:
                    gaps.append((at - last_progress) * 1000)
                last_progress = at
            if name == "end":
                final = (data, at)
        view, at = final
        end_lags.append((at - stamp(view["finished_at"])) * 1000)
        if running_seen is not None and view.get("started_at"):
            start_lags.append((running_seen - stamp(view["started_at"])) * 1000)

    def show(label, values):
        if values:
            print(f"{label}: n={len(values)} median {statistics.median(values):.1f} ms, "
                  f"p95 {percentile(values, 0.95):.1f} ms, max {max(values):.1f} ms")

    show("end event after finished_at", end_lags)
    show("running event after started_at (when the job was seen queued first)", start_lags)
    show("gap between progress events", gaps)


if __name__ == "__main__":
    main()
