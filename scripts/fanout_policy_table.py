#!/usr/bin/env python3
"""One table of the fan-out policy comparison (scripts/compare-fanout.sh): a row per
policy/load variant, latencies and costs side by side, each mean [95 % CI] over the seeds, from
`skysim compare`'s compare.csv files (several: their rows in order). Usage:
fanout_policy_table.py compare.csv [more.csv ...] "caption"."""
import csv
import sys

HOST = "{host=east/timelines/0}"
POST = "requests.latency_ns{client=celebrity-posts,endpoint=post}"
READ = "requests.latency_ns{client=app-readers,endpoint=read}"
# (column, metric, divisor, digits)
COLUMNS = [
    ("post P99 s", POST + ".p99", 1e9, 3),
    ("page P99 ms", "fanout.page_p99_ns" + HOST, 1e6, 1),
    ("read P99 ms", READ + ".p99", 1e6, 2),
    ("write P99 ms", "fanout.write_p99_ns" + HOST, 1e6, 2),
    ("timeline writes", "fanout.timeline_writes" + HOST, 1, 0),
    ("reads/load", "fanout.db_reads_per_read" + HOST, 1, 3),
    ("rows/load", "fanout.rows_read_per_read" + HOST, 1, 1),
    ("merges/load", "fanout.merges_per_read" + HOST, 1, 3),
    ("retries/load", "fanout.retries_per_read" + HOST, 1, 4),
    ("storage rows", "fanout.storage_rows" + HOST, 1, 0),
    ("queue delay P99 ms", "fanout.queue_delay_p99_ns" + HOST, 1e6, 1),
    ("flagged", "fanout.detect_flagged" + HOST, 1, 1),
    ("flagged false pos.", "fanout.detect_false_positives" + HOST, 1, 1),
    ("detect delay max s", "fanout.detect_delay_max_ns" + HOST, 1e9, 2),
    ("cache hits/load", "fanout.cache_hits_per_read" + HOST, 1, 3),
    ("stale reads", "fanout.hotkey_stale_reads" + HOST, 1, 1),
    ("coalesced rows", "fanout.hotkey_coalesced_rows" + HOST, 1, 0),
    ("coalesce delay P99 ms", "fanout.hotkey_coalesce_delay_p99_ns" + HOST, 1e6, 1),
    ("hot keys flagged", "fanout.hotkey_keys_flagged" + HOST, 1, 1),
    ("busiest shard ops", "scylla.max_shard_ops" + HOST, 1, 0),
    ("delivered hyper", "fanout.delivered_fraction_hyper" + HOST, 1, 4),
    ("delivered ordinary", "fanout.delivered_fraction_ordinary" + HOST, 1, 4),
    ("hot shards", "fanout.hot_shards_distinct" + HOST, 1, 1),
]


def fmt(x, digits):
    return f"{x:,.{digits}f}"


def read_compare(paths):
    """Rows of compare.csv files by variant label, the labels in file order, n per label."""
    rows, order, n = {}, [], {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                label = r["label"]
                if label not in rows:
                    rows[label] = {}
                    order.append(label)
                rows[label][r["metric"]] = r
                n[label] = r["n"]
    return rows, order, n


def print_table(first, columns, rows, order, n, name=lambda label: label):
    """A markdown table: a row per label, each column's mean [95 % CI]."""
    print(f"| {first} | n | " + " | ".join(c[0] for c in columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for label in order:
        cells = []
        for _, metric, div, digits in columns:
            r = rows[label].get(metric)
            if r is None:
                cells.append("—")
                continue
            m, lo, hi = (float(r[k]) / div for k in ("mean", "ci95_low", "ci95_high"))
            cells.append(f"{fmt(m, digits)} [{fmt(lo, digits)}, {fmt(hi, digits)}]")
        print(f"| {name(label)} | {n[label]} | " + " | ".join(cells) + " |")


def main():
    paths = [a for a in sys.argv[1:] if a.endswith(".csv")]
    caption = " ".join(a for a in sys.argv[1:] if not a.endswith(".csv"))
    rows, order, n = read_compare(paths)
    print(f"Fan-out policies: mean [95 % CI] over seeds ({caption}).\n")
    print_table("policy/load", COLUMNS, rows, order, n)


if __name__ == "__main__":
    main()
