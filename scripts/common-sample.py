#!/usr/bin/env python3
"""Run `gaps solve --variant common` on a list of deals with the same flags and print
one line per deal and a summary (decided, wins, losses, time), to compare settings on
the same deals in one run.

    scripts/common-sample.py --gaps target/release/gaps --deals 8 84 148 \\
        -- --time-ms 60000 --table-mb 6144 --search-threads 2

Deals unknown after 10 s of `auto` are the rows of docs/data/common-4x13-0-999.csv
whose limit_seconds is not 10.

With `--out FILE` each deal's line is also appended to FILE (tab-separated: deal,
verdict, algorithm, nodes, seconds, stopped) and a deal FILE already holds is not run
again, so an interrupted run resumes where it stopped; the summary covers FILE's rows
for the deals asked.
"""

import argparse
import json
import subprocess
import time


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gaps", default="target/release/gaps")
    p.add_argument("--deals", nargs="+", type=int, required=True)
    p.add_argument("--out", help="append rows here; skip deals it already holds")
    p.add_argument("flags", nargs="*", help="passed to gaps solve (after --)")
    args = p.parse_args()
    done = {}
    if args.out:
        try:
            with open(args.out) as f:
                for line in f:
                    cells = line.rstrip("\n").split("\t")
                    if len(cells) >= 5 and cells[0].isdigit():
                        done[int(cells[0])] = cells
        except FileNotFoundError:
            pass
    decided = wins = 0
    total = 0.0
    for deal in args.deals:
        if deal in done:
            cells = done[deal]
            decided += cells[1] != "unknown"
            wins += cells[1] == "solvable"
            total += float(cells[4])
            continue
        began = time.monotonic()
        out = subprocess.run(
            [args.gaps, "solve", "--variant", "common", "--deal", str(deal), "--json", *args.flags],
            check=True, capture_output=True, text=True,
        ).stdout
        seconds = time.monotonic() - began
        total += seconds
        j = json.loads(out)
        verdict = j["verdict"]
        decided += verdict != "unknown"
        wins += verdict == "solvable"
        print(f"{deal}\t{verdict}\t{j['algorithm']}\t{j['stats']['nodes']}\t{seconds:.1f} s\t{j.get('stopped') or ''}", flush=True)
        if args.out:
            with open(args.out, "a") as f:
                f.write(f"{deal}\t{verdict}\t{j['algorithm']}\t{j['stats']['nodes']}\t{seconds:.3f}\t{j.get('stopped') or ''}\n")
    n = len(args.deals)
    print(f"decided {decided}/{n} ({wins} solvable, {decided - wins} unsolvable), {total:.0f} s in all")


if __name__ == "__main__":
    main()
