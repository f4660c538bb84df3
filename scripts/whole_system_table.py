#!/usr/bin/env python3
"""The shared-cluster table of docs/whole-system.md: a row per variant of
scenarios/shared-cluster.yaml (fan-out policy x memcached outage), the data plane's and the
fan-out's figures side by side, each mean [95 % CI] over the seeds, from `skysim compare`'s
compare.csv. Usage: whole_system_table.py compare.csv"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_csv import fmt, read_compare  # noqa: E402

API = "{client=appview,endpoint=get_post}"
FAN = "{host=east/fanout/0}"   # the celebrity's Go fan-out service
DB = "{host=east/timeline/0}"  # the shared scylla service
# (column, metric, divisor, digits)
COLUMNS = [
    ("get_post P99 ms", "requests.latency_ns" + API + ".p99", 1e6, 1),
    ("get_post failed", "requests.failed" + API, 1, 0),
    ("Scylla reads", "scylla.read_latency_ns" + DB + ".count", 1, 0),
    ("Scylla read P50 ms", "scylla.read_latency_ns" + DB + ".p50", 1e6, 2),
    ("Scylla read P99 ms", "scylla.read_latency_ns" + DB + ".p99", 1e6, 1),
    ("db client timeouts", "client.timeouts{client=db,host=east/api/0}", 1, 0),
    ("hot shards", "scylla.hot_shards_distinct" + DB, 1, 1),
    ("write P99 ms", "scylla.write_latency_ns" + DB + ".p99", 1e6, 1),
    ("page P99 ms", "fanout.page_duration_ns" + FAN + ".p99", 1e6, 1),
    ("posts done", "requests.ok{client=celebrity-posts,endpoint=post}", 1, 2),
    ("fleet rows kept (hyper)", "fanout.delivered{class=hyper,host=east/fleet/0}", 1, 0),
]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows, order, n = read_compare(sys.argv[1:2])
    print("| variant | n | " + " | ".join(c[0] for c in COLUMNS) + " |")
    print("|---|---|" + "---|" * len(COLUMNS))
    for label in order:
        cells = []
        for _, metric, div, digits in COLUMNS:
            r = rows[label].get(metric)
            if r is None:
                cells.append("—")
                continue
            m, lo, hi = (float(r[k]) / div for k in ("mean", "ci95_low", "ci95_high"))
            cells.append(f"{fmt(m, digits)} [{fmt(lo, digits)}, {fmt(hi, digits)}]")
        print(f"| {label.replace('variant=', '')} | {n[label]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
