#!/usr/bin/env python3
"""The old-kind-vs-composition table of docs/uid-interning.md ("As a composition"): a row per
variant of scenarios/uid-interning.yaml (the uid-interning kind) and of
scenarios/uid-interning-composed.yaml (an fdb service and a go-service's uid_alloc step), each
cell mean [95 % CI] over the seeds, from the two `skysim compare` runs' compare.csv.
Usage: uid_interning_table.py KIND/compare.csv COMPOSED/compare.csv"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fanout_policy_table import print_table, read_compare  # noqa: E402

SRC = "{client=firehose-indexer,endpoint=intern}"


def columns(books, intern):
    """(column, metric, divisor, digits); `books` labels the uid.* gauges, `intern` the
    intern-latency histogram."""
    return [
        ("acknowledged", "requests.ok" + SRC, 1, 0),
        ("failed", "requests.failed" + SRC, 1, 0),
        ("waiting at the end", "requests.in_flight" + SRC, 1, 0),
        ("request P50 ms", "requests.latency_ns" + SRC + ".p50", 1e6, 2),
        ("request P99 ms", "requests.latency_ns" + SRC + ".p99", 1e6, 2),
        ("intern P99 ms", "uid.intern_latency_ns" + intern + ".p99", 1e6, 2),
        ("conflict rate", "uid.conflict_rate" + books, 1, 4),
        ("retries/request", "uid.retries_per_request" + books, 1, 4),
    ]


def main():
    kind_rows, kind_order, kind_n = read_compare(sys.argv[1:2])
    comp_rows, comp_order, comp_n = read_compare(sys.argv[2:3])
    # One table: the kind's columns renamed onto the composition's metric keys.
    kind_cols = columns("{host=east/interner/0}", "{host=east/interner/0}")
    comp_cols = columns("{host=east/db/0}", "{client=db,host=east/interner/0}")
    rows, order, n = {}, [], {}
    for variant in kind_order:
        for src_rows, src_n, cols, name in ((kind_rows, kind_n, kind_cols, "kind"),
                                            (comp_rows, comp_n, comp_cols, "composed")):
            if variant not in src_rows:
                continue
            key = variant.replace("variant=", "") + " (" + name + ")"
            order.append(key)
            n[key] = src_n[variant]
            rows[key] = {c[0]: src_rows[variant].get(c[1]) for c in cols}
    table_cols = [(c[0], c[0], c[2], c[3]) for c in kind_cols]
    rows = {k: {m: r for m, r in v.items() if r is not None} for k, v in rows.items()}
    print_table("variant", table_cols, rows, order, n)


if __name__ == "__main__":
    main()
