#!/usr/bin/env python3
"""Run `gaps solve --variant common` on a list of deals with the same flags and print
one line per deal and a summary (decided, wins, losses, time), to compare settings on
the same deals in one run.

    scripts/common-sample.py --gaps target/release/gaps --deals 8 84 148 \\
        -- --time-ms 60000 --table-mb 6144 --search-threads 2

Deals unknown after 10 s of `auto` are the rows of docs/data/common-4x13-0-999.csv
whose limit_seconds is not 10.
"""

import argparse
import json
import subprocess
import time


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gaps", default="target/release/gaps")
    p.add_argument("--deals", nargs="+", type=int, required=True)
    p.add_argument("flags", nargs="*", help="passed to gaps solve (after --)")
    args = p.parse_args()
    decided = wins = 0
    total = 0.0
    for deal in args.deals:
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
    n = len(args.deals)
    print(f"decided {decided}/{n} ({wins} solvable, {decided - wins} unsolvable), {total:.0f} s in all")


if __name__ == "__main__":
    main()
