#!/usr/bin/env python3
"""The shared-cluster table of docs/whole-system.md: a row per variant of
scenarios/shared-cluster.yaml (fan-out policy x memcached outage), the data plane's and the
fan-out's figures side by side, each mean [95 % CI] over the seeds, from `skysim compare`'s
compare.csv. Usage: whole_system_table.py compare.csv"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fanout_policy_table import print_table, read_compare  # noqa: E402

API = "{client=appview,endpoint=get_post}"
FAN = "{host=east/fanout/0}"
DB = "{host=east/timeline/0}"
# (column, metric, divisor, digits)
COLUMNS = [
    ("get_post P99 ms", "requests.latency_ns" + API + ".p99", 1e6, 1),
    ("get_post failed", "requests.failed" + API, 1, 0),
    ("Scylla reads", "scylla.read_latency_ns" + DB + ".count", 1, 0),
    ("Scylla read P50 ms", "scylla.read_latency_ns" + DB + ".p50", 1e6, 2),
    ("Scylla read P99 ms", "scylla.read_latency_ns" + DB + ".p99", 1e6, 1),
    ("db client timeouts", "client.timeouts{client=db,host=east/api/0}", 1, 0),
    ("hot shards", "fanout.hot_shards_distinct" + FAN, 1, 1),
    ("write P99 ms", "fanout.write_p99_ns" + FAN, 1e6, 1),
    ("page P99 ms", "fanout.page_p99_ns" + FAN, 1e6, 1),
    ("posts done", "requests.ok{client=celebrity-posts,endpoint=post}", 1, 2),
    ("delivered hyper", "fanout.delivered_fraction_hyper" + FAN, 1, 4),
]


def main():
    rows, order, n = read_compare(sys.argv[1:2])
    print_table("variant", COLUMNS, rows, order, n, lambda label: label.replace("variant=", ""))


if __name__ == "__main__":
    main()
