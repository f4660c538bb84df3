#!/usr/bin/env python3
"""One window of the April replay, the dataplane kind beside its composition, hour by hour
(docs/april-2026.md, "As a composition": the band-aid and Wednesday's deploys): from each
run's timeseries.csv (`skysim run ... --out DIR`), per hour of the window the memcached bind
errors and users' bad requests made in it, and the threads, TIME_WAIT sockets and RSS just
before its end. Usage: april_window_table.py KIND_OUT_DIR[,DIR...] COMPOSED_OUT_DIR[,DIR...]: with
several runs (seeds) per side each cell is mean [95 % CI] (Student's t)."""
import csv
import os
import sys

R = "{dc=east,host=east/dataplane/0}"  # the dataplane kind's host labels
C = "{host=east/dataplane/0}"          # the go-service's
# (figure, kind metric, composed metric, delta over the hour or value at its end, divisor)
FIGURES = [
    ("bind errors in the hour", "memcached.bind_errors" + R,
     "client.dial_errors{client=mc,host=east/dataplane/0}", True, 1),
    ("users' bad requests in the hour", "user.requests.bad{dc=east}",
     "user.requests.bad{dc=east}", True, 1),
    ("OS threads just before its end", "go.threads" + R, "go.threads" + C, False, 1),
    ("TIME_WAIT just before its end", "tcp.time_wait" + R, "net.time_wait" + C, False, 1),
    ("RSS just before its end MiB", "go.rss_bytes" + R, "go.rss_bytes" + C, False, 2**20),
]


def series(out_dir):
    with open(os.path.join(out_dir, "timeseries.csv")) as f:
        return list(csv.DictReader(f))


def at_hours(rows, closed):
    """Per whole hour of the run (time_s counts from the epoch), the last row at its end
    (`closed`: a counter's total there) or just before it (a gauge's: a deploy on the hour
    replaces the process before that instant's sample)."""
    span = float(rows[-1]["time_s"])
    out = []
    for hour in range(1, int(span // 3600) + 1):
        end = 3600.0 * hour
        out.append([r for r in rows if float(r["time_s"]) < end or
                    (closed and float(r["time_s"]) == end)][-1])
    return out


def value(row, metric):
    v = row.get(metric)
    return float(v) if v not in (None, "") else 0.0


# Student's t, two-sided 95 %, by degrees of freedom (1..30; beyond, the normal's 1.96).
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
       2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def summary(values):
    n = len(values)
    mean = sum(values) / n
    if n == 1:
        return f"{mean:,.0f}"
    sd = (sum((v - mean) ** 2 for v in values) / (n - 1)) ** 0.5
    half = (T95[n - 2] if n - 2 < len(T95) else 1.96) * sd / n ** 0.5
    return f"{mean:,.0f} [{mean - half:,.0f}, {mean + half:,.0f}]"


def per_hour(runs, metric, delta, div, hours):
    """Per hour, the figure of every run."""
    out = [[] for _ in range(hours)]
    for rows in runs:
        at = at_hours(rows, delta)
        for i in range(hours):
            v = value(at[i], metric)
            if delta and i > 0:
                v -= value(at[i - 1], metric)
            out[i].append(v / div)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    kind = [series(d) for d in sys.argv[1].split(",")]
    comp = [series(d) for d in sys.argv[2].split(",")]
    hours = int(min(float(r[-1]["time_s"]) for r in kind + comp) // 3600)
    print(f"| figure (n = {len(kind)} / {len(comp)}) | " +
          " | ".join(f"hour {i + 1} kind / composed" for i in range(hours)) + " |")
    print("|---|" + "---|" * hours)
    for name, km, cm, delta, div in FIGURES:
        k = per_hour(kind, km, delta, div, hours)
        c = per_hour(comp, cm, delta, div, hours)
        print(f"| {name} | " + " | ".join(f"{summary(k[i])} / {summary(c[i])}"
                                          for i in range(hours)) + " |")


if __name__ == "__main__":
    main()
