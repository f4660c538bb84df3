#!/usr/bin/env python3
"""Summarises scripts/bench-composition-pairs.sh output: per variant, the median over pairs
(seed, rep) of composed / kind for user CPU and for wall time, the ratio of the summed times,
the peak RSS of each side and the events. A Markdown table on stdout.

Usage: scripts/bench_pairs_summary.py PAIRS.tsv [PAIRS.tsv ...]
"""
import csv
import statistics
import sys
from collections import defaultdict


def main(paths):
    if not paths:
        sys.exit(__doc__)
    runs = defaultdict(dict)  # (variant, seed, rep) -> which -> row
    order = []
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                key = (row["variant"], row["seed"], row["rep"])
                runs[key][row["which"]] = row
                if row["variant"] not in order:
                    order.append(row["variant"])
    print("| variant | pairs | user: median composed/kind | wall: median composed/kind "
          "| wall: sum composed / sum kind | peak RSS kind / composed (MB) "
          "| events kind / composed (seed of the first pair) |")
    print("|---|---|---|---|---|---|---|")
    for variant in order:
        pairs = [r for (v, _, _), r in sorted(runs.items()) if v == variant
                 and "kind" in r and "composed" in r]
        if not pairs:
            continue
        user = [float(p["composed"]["user_s"]) / float(p["kind"]["user_s"]) for p in pairs]
        wall = [float(p["composed"]["wall_s"]) / float(p["kind"]["wall_s"]) for p in pairs]
        wall_sum = (sum(float(p["composed"]["wall_s"]) for p in pairs) /
                    sum(float(p["kind"]["wall_s"]) for p in pairs))
        rss_k = max(int(p["kind"]["peak_rss_kb"]) for p in pairs) / 1024
        rss_c = max(int(p["composed"]["peak_rss_kb"]) for p in pairs) / 1024
        first = pairs[0]
        print(f"| {variant} | {len(pairs)} | {statistics.median(user):.2f}x "
              f"({min(user):.2f}-{max(user):.2f}) | **{statistics.median(wall):.2f}x** "
              f"({min(wall):.2f}-{max(wall):.2f}) | {wall_sum:.2f}x | {rss_k:,.0f} / {rss_c:,.0f} "
              f"| {int(first['kind']['events']):,} / {int(first['composed']['events']):,} |")


if __name__ == "__main__":
    main(sys.argv[1:])
