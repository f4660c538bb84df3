#!/usr/bin/env python3
"""The April replay's east host over the whole period, the dataplane kind against its
composition (scenarios/april-in-yaml.yaml --set variant=replay), at the instants of
docs/april-2026.md's default-run table.

Usage: python3 scripts/april_replay_table.py KIND_RUN_DIR COMPOSED_RUN_DIR
       python3 scripts/april_replay_table.py --seeds KIND_PREFIX COMPOSED_PREFIX SEED...
(each a --out of one `skysim run`: the default replay, or with its west sources disabled
against a composition without the west). The first
form prints the hour table of one seed; the second, over the runs PREFIX-SEED of each, the
mean [95 % CI] of each figure at Monday 16:00 (the spiral's height) and at the end."""
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
    ("west threads (the healthy control)", "go.threads{dc=west,host=west/dataplane/0}",
     "go.threads{host=west/dataplane/0}", 1),
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
    if column not in row:  # a run without the west
        return "-"
    v = float(row[column] or 0) * factor
    return f"{v:,.0f}"


def ci(values):
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return f"{mean:,.0f}"
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    # Student's t at 97.5 % for n - 1 degrees of freedom (n <= 31 here).
    t = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042][min(n - 2, 29)]
    h = t * (var / n) ** 0.5
    return f"{mean:,.0f} [{mean - h:,.0f}, {mean + h:,.0f}]"


def seeds_table(kind_prefix, composed_prefix, seeds):
    at = {"Mon 06 16:00": "2026-04-06T16:00", "Wed 08 18:00 (end)": "2026-04-08T18:00"}
    runs = [(rows_at(f"{kind_prefix}-{s}"), rows_at(f"{composed_prefix}-{s}")) for s in seeds]
    print(f"| figure (n = {len(seeds)}) | instant | dataplane kind | composition |")
    print("|---|---|---|---|")
    for name, k, c, x in FIGURES:
        for label, when in at.items():
            if any(k not in r[0][when] or c not in r[1][when] for r in runs):
                continue  # runs without the west
            kv = [float(r[0][when][k] or 0) * x for r in runs]
            cv = [float(r[1][when][c] or 0) * x for r in runs]
            print(f"| {name} | {label} | {ci(kv)} | {ci(cv)} |")


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "--seeds":
        seeds_table(sys.argv[2], sys.argv[3], sys.argv[4:])
        return
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
