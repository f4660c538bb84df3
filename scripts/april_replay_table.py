#!/usr/bin/env python3
"""The April replay's east host over the whole period, the dataplane kind against its
composition (scenarios/april-in-yaml.yaml --set variant=replay), at the instants of
docs/april-2026.md's default-run table.

Usage: python3 scripts/april_replay_table.py KIND_RUN_DIR COMPOSED_RUN_DIR
(each the --out of one `skysim run`; the kind's run with its west sources disabled)."""
import csv
import sys

# The figure, then its column in the kind's run and in the composition's.
FIGURES = [
    ("threads", "go.threads{dc=east,host=east/dataplane/0}", "go.threads{host=east/dataplane/0}", 1),
    ("TIME_WAIT", "tcp.time_wait{dc=east,host=east/dataplane/0}",
     "net.time_wait{host=east/dataplane/0}", 1),
    ("bind errors (cum.)", "memcached.bind_errors{dc=east,host=east/dataplane/0}",
     "client.dial_errors{client=mc,host=east/dataplane/0}", 1),
    ("RSS MB", "go.rss_bytes{dc=east,host=east/dataplane/0}", "go.rss_bytes{host=east/dataplane/0}",
     1e-6),
    ("longest STW µs (so far)", "go.stw_peak_ns{dc=east,host=east/dataplane/0}",
     "go.stw_peak_ns{host=east/dataplane/0}", 1e-3),
    ("OOM kills (cum.)", "go.oom_kills{dc=east,host=east/dataplane/0}",
     "go.oom_kills{host=east/dataplane/0}", 1),
    ("users good (cum.)", "user.requests.good{dc=east}", "user.requests.good{dc=east}", 1),
    ("users bad (cum.)", "user.requests.bad{dc=east}", "user.requests.bad{dc=east}", 1),
]
INSTANTS = ["2026-04-03T19:00", "2026-04-03T21:00", "2026-04-04T15:00", "2026-04-05T15:00",
            "2026-04-06T07:00", "2026-04-06T10:00", "2026-04-06T13:00", "2026-04-06T16:00",
            "2026-04-06T18:00", "2026-04-08T14:00", "2026-04-08T18:00"]


def rows_at(run_dir):
    with open(run_dir + "/timeseries.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for want in INSTANTS:
        # The last sample at or before the instant (samples are per simulated minute).
        before = [r for r in rows if r["time_utc"][:16] <= want]
        if not before:
            sys.exit(f"{run_dir}: no sample at or before {want}")
        out[want] = before[-1]
    return out


def cell(row, column, factor):
    if column not in row:
        sys.exit(f"no column {column}")
    v = float(row[column] or 0) * factor
    return f"{v:,.0f}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    kind, composed = rows_at(sys.argv[1]), rows_at(sys.argv[2])
    print("| time (UTC) | " + " | ".join(f[0] + " kind / composed" for f in FIGURES) + " |")
    print("|---" * (len(FIGURES) + 1) + "|")
    for at in INSTANTS:
        cells = [cell(kind[at], k, x) + " / " + cell(composed[at], c, x) for _, k, c, x in FIGURES]
        print(f"| {at[5:].replace('T', ' ')} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
