#!/usr/bin/env python3
"""What a call costs from Python against the command line, on the same small deals.

For each of DEALS numbered deals (default 1,000 deals of 4 suits x 6 ranks, `common`),
solves it three ways and checks that the verdicts agree:
  python   gaps.solve(deal=n, ...) in this process (the installed wheel);
  cli      one `gaps solve --deal n ... --json` process a deal (what a program that
           shells out to the binary pays);
  search   the search alone, as the answer's own stats.elapsed_ms reports it.
Prints per-call percentiles in milliseconds and the calls per second of each.

  python scripts/python-cost.py --gaps target/release/gaps [--deals 1000] [--suits 4]
      [--ranks 6] [--variant common]

Run it with the Python that has the wheel installed (scripts/python-tests.sh builds
one; docs/python.md, "Cost of a call").
"""

import argparse
import json
import statistics
import subprocess
import time

import gaps


def percentiles(ms):
    ms = sorted(ms)

    def at(q):
        return ms[min(len(ms) - 1, int(q * len(ms)))]

    return f"median {at(0.5):8.3f}  p95 {at(0.95):8.3f}  max {ms[-1]:8.3f}  mean {statistics.fmean(ms):8.3f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gaps", required=True, help="the binary to compare with")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--suits", type=int, default=4)
    parser.add_argument("--ranks", type=int, default=6)
    parser.add_argument("--variant", default="common")
    args = parser.parse_args()
    game = dict(suits=args.suits, ranks=args.ranks, variant=args.variant, search_threads=1)
    flags = ["--suits", str(args.suits), "--ranks", str(args.ranks),
             "--variant", args.variant, "--search-threads", "1", "--json"]
    python_ms, cli_ms, search_ms = [], [], []
    verdicts, ours = {}, []
    began = time.perf_counter()
    for number in range(args.deals):
        t = time.perf_counter()
        answer = gaps.solve(deal=number, **game)
        python_ms.append((time.perf_counter() - t) * 1000)
        search_ms.append(answer.stats.elapsed_ms)
        verdicts[answer.verdict] = verdicts.get(answer.verdict, 0) + 1
        ours.append(answer.verdict)
    python_s = time.perf_counter() - began
    began = time.perf_counter()
    for number in range(args.deals):
        t = time.perf_counter()
        out = subprocess.run([args.gaps, "solve", "--deal", str(number), *flags],
                             capture_output=True, text=True, check=True).stdout
        cli_ms.append((time.perf_counter() - t) * 1000)
        theirs = json.loads(out)["verdict"]
        assert ours[number] == theirs, (number, ours[number], theirs)
    cli_s = time.perf_counter() - began
    print(f"{args.deals} deals {args.suits}x{args.ranks} {args.variant}: {verdicts}")
    print(f"python  {percentiles(python_ms)}  ({args.deals / python_s:,.0f} calls/s)")
    print(f"cli     {percentiles(cli_ms)}  ({args.deals / cli_s:,.0f} calls/s, verdicts checked)")
    print(f"search  {percentiles(search_ms)}")


if __name__ == "__main__":
    main()
