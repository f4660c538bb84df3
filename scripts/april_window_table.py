#!/usr/bin/env python3
"""One window of the April replay, the dataplane kind beside its composition, hour by hour
(docs/april-2026.md, "As a composition": the band-aid and Wednesday's deploys): from each
run's timeseries.csv (`skysim run ... --out DIR`), per hour of the window the memcached bind
errors and users' bad requests made in it, and the threads, TIME_WAIT sockets and RSS just
before its end. Usage: april_window_table.py KIND_OUT_DIR COMPOSED_OUT_DIR"""
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
    ("OS threads at its end", "go.threads" + R, "go.threads" + C, False, 1),
    ("TIME_WAIT at its end", "tcp.time_wait" + R, "net.time_wait" + C, False, 1),
    ("RSS at its end MiB", "go.rss_bytes" + R, "go.rss_bytes" + C, False, 2**20),
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


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    kind, comp = series(sys.argv[1]), series(sys.argv[2])
    hours = int(min(float(kind[-1]["time_s"]), float(comp[-1]["time_s"])) // 3600)
    print("| figure | " + " | ".join(f"hour {i + 1} kind / composed" for i in range(hours)) + " |")
    print("|---|" + "---|" * hours)
    for name, km, cm, delta, div in FIGURES:
        kh, ch = at_hours(kind, delta), at_hours(comp, delta)
        cells = []
        for i in range(hours):
            k, c = value(kh[i], km), value(ch[i], cm)
            if delta and i > 0:
                k -= value(kh[i - 1], km)
                c -= value(ch[i - 1], cm)
            cells.append(f"{k / div:,.0f} / {c / div:,.0f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
