#!/usr/bin/env python3
"""The replay-vs-composition table of docs/april-2026.md ("As a composition"): a row per figure
of the east data-plane host, the dataplane kind (scenarios/april-2026-outage.yaml) beside its
composition (scenarios/april-in-yaml.yaml: memcached and scylla services and a go-service's
program), each cell mean [95 % CI] over the seeds, from the two `skysim compare` runs'
compare.csv (one variant each). Usage: april_composition_table.py REPLAY/compare.csv
COMPOSED/compare.csv"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_csv import fmt, read_compare  # noqa: E402

R = "{dc=east,host=east/dataplane/0}"  # the dataplane kind's host labels
C = "{host=east/dataplane/0}"          # the go-service's
# The users' latencies are per client and endpoint over every datacenter: the replay's run
# takes the west's user sources out (docs/april-2026.md gives the command).
USERS = "requests.latency_ns{client=app-users,endpoint=GetPostRecord}"
# (figure, replay metric, composed metric, divisor, digits)
FIGURES = [
    ("OS threads (Ms never exit)", "go.threads" + R, "go.threads" + C, 1, 0),
    ("memcached bind errors", "memcached.bind_errors" + R,
     "client.dial_errors{client=mc,host=east/dataplane/0}", 1, 0),
    ("log lines written", "log.lines_written" + R, "log.lines" + C, 1, 0),
    ("TIME_WAIT at the end", "tcp.time_wait" + R, "net.time_wait" + C, 1, 0),
    ("longest stop-the-world ms", "go.stw_peak_ns" + R, "go.stw_peak_ns" + C, 1e6, 2),
    ("OOM kills", "go.oom_kills" + R, "go.oom_kills" + C, 1, 2),
    ("RSS at the end MiB", "go.rss_bytes" + R, "go.rss_bytes" + C, 2**20, 0),
    ("users' requests good", "user.requests.good{dc=east}", "user.requests.good{dc=east}", 1, 0),
    ("users' requests bad", "user.requests.bad{dc=east}", "user.requests.bad{dc=east}", 1, 1),
    ("users' GetPostRecord P50 ms", USERS + ".p50", USERS + ".p50", 1e6, 2),
    ("users' GetPostRecord P99 ms", USERS + ".p99", USERS + ".p99", 1e6, 1),
]


def cell(rows, metric, div, digits):
    r = rows.get(metric)
    if r is None:
        return "—"
    m, lo, hi = (float(r[k]) / div for k in ("mean", "ci95_low", "ci95_high"))
    return f"{fmt(m, digits)} [{fmt(lo, digits)}, {fmt(hi, digits)}]"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rep_rows, rep_order, rep_n = read_compare(sys.argv[1:2])
    comp_rows, comp_order, comp_n = read_compare(sys.argv[2:3])
    rep, comp = rep_rows[rep_order[0]], comp_rows[comp_order[0]]
    print(f"| figure (east host) | dataplane kind (n = {rep_n[rep_order[0]]}) "
          f"| composition (n = {comp_n[comp_order[0]]}) |")
    print("|---|---|---|")
    for name, rm, cm, div, digits in FIGURES:
        print(f"| {name} | {cell(rep, rm, div, digits)} | {cell(comp, cm, div, digits)} |")


if __name__ == "__main__":
    main()
