#!/usr/bin/env python3
"""The numbers docs/april-2026.md quotes, from one April replay run directory.

    python3 scripts/april-tables.py runs/april-2026-outage-1

Reads the run's summary.json (phases, scale, epoch) and timeseries.csv (one row per simulated
minute) and prints Markdown: the east host over time, user success per period and datacenter,
thread counts at simulated and full size, OOM kills and up-times, TIME_WAIT at each restart.
The period boundaries are the scenario's dated events (batch client Fri 20:00, Monday load
08:00, band-aid 17:00); they are read from the same places the YAML sets them.
"""
import csv
import json
import statistics
import sys
from datetime import datetime, timezone


def die(msg):
    print(f"april-tables: {msg}", file=sys.stderr)
    sys.exit(1)


def parse_time(text):
    text = text.rstrip("Z")
    if "." in text:
        head, frac = text.split(".")
        text = f"{head}.{frac[:6]}"
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc)
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)


def main():
    if len(sys.argv) != 2:
        die("usage: april-tables.py RUN_DIR")
    run = sys.argv[1]
    try:
        summary = json.load(open(f"{run}/summary.json"))
        rows = list(csv.reader(open(f"{run}/timeseries.csv")))
    except (OSError, ValueError) as e:
        die(f"cannot read the run in {run}: {e}")
    header, rows = rows[0], rows[1:]
    epoch = parse_time(summary["epoch"])
    scale = float(summary.get("scale", 1.0))

    def at(day, hour):  # simulated seconds of 2026-04-<day> <hour>:00Z
        return (datetime(2026, 4, day, hour, tzinfo=timezone.utc) - epoch).total_seconds()

    def column(name):
        if name not in header:
            die(f"column {name} missing in timeseries.csv")
        i = header.index(name)
        return [float(r[i]) if r[i] else 0.0 for r in rows]

    t = column("time_s")
    east = "{host=east/dataplane/0}"

    def window(values, a, b):
        return [v for ts, v in zip(t, values) if a <= ts < b]

    def value_at(values, ts):
        best = 0.0
        for x, v in zip(t, values):
            if x > ts:
                break
            best = v
        return best

    client, monday, band_aid, end = at(3, 20), at(6, 8), at(6, 17), t[-1] + 1
    threads = column("go.threads" + east)
    healthy = max(window(threads, 0, client))
    print(f"## Threads (simulated size; full size = simulated / scale {scale:g})\n")
    print("| period | max | median | full-size max |")
    print("|---|---|---|---|")
    for name, a, b in [("before the batch client", 0, client), ("weekend", client, monday),
                       ("Monday 08-17", monday, band_aid), ("after the band-aid", band_aid, end)]:
        w = window(threads, a, b)
        print(f"| {name} | {max(w):.0f} | {statistics.median(w):.0f} | {max(w) / scale:,.0f} |")
    surge = max(window(threads, monday, band_aid))
    print(f"\nMonday surge / healthy: x{surge / healthy:.0f}\n")

    print("## User success (answered within the deadline)\n")
    print("| period | east | west |")
    print("|---|---|---|")
    for name, a, b in [("Fri 12:00-20:00, before the batch client", 0, client),
                       ("Fri 20:00-Mon 08:00, the weekend", client, monday),
                       ("Mon 08:00-17:00, the spiral", monday, band_aid),
                       ("Mon 17:00-Wed 18:00, band-aid then fix", band_aid, end)]:
        cells = []
        for dc in ("east", "west"):
            good = column("user.requests.good{dc=%s}" % dc)
            bad = column("user.requests.bad{dc=%s}" % dc)
            g = value_at(good, b) - value_at(good, a)
            n = g + value_at(bad, b) - value_at(bad, a)
            cells.append(f"{100 * g / n:.2f} % of {n:,.0f}" if n else "-")
        print(f"| {name} | {cells[0]} | {cells[1]} |")
    good = column("user.requests.good{dc=east}")
    bad = column("user.requests.bad{dc=east}")
    per_minute = []
    for i in range(1, len(t)):
        if monday <= t[i] <= band_aid:
            g, b = good[i] - good[i - 1], bad[i] - bad[i - 1]
            if g + b > 0:
                per_minute.append(g / (g + b))
    low = sum(1 for x in per_minute if x < 0.9)
    print(f"\nMonday east: {low} minutes below 90 %, worst {100 * min(per_minute):.0f} %\n")

    print("## Deaths, restarts, up-time (east)\n")
    phases = [p for p in summary["phases"] if p["host"] == "east/dataplane/0"]
    # A deploy's replacement is not a death of the process's own (the band-aid, the fix).
    deaths = [p for p in phases if p["what"].startswith("process died")
              and "replaced by a deploy" not in p["what"]]
    restarts = [p for p in phases if p["what"].startswith("process restarted")]
    ts = lambda p: (parse_time(p["at"]) - epoch).total_seconds()
    monday_deaths = [p for p in deaths if monday <= ts(p) < band_aid]
    print(f"deaths: {len(deaths)} in all, {len(monday_deaths)} Monday 08:00-17:00 "
          f"({sum('OOMKilled' in p['what'] for p in deaths)} OOM kills, "
          f"{sum('thread exhaustion' in p['what'] for p in deaths)} thread exhaustion)")
    tw = [int(p["what"].split("; ")[1].split()[0]) for p in restarts]
    if tw:
        print(f"restarts: {len(restarts)}; TIME_WAIT sockets found: min {min(tw)}, "
              f"median {statistics.median(tw):.0f}, max {max(tw)}")
    ups = []
    up_since = 0.0
    for p in phases:
        if p["what"].startswith("process restarted") or p["what"].startswith("deploy"):
            up_since = ts(p)
        elif p in deaths:
            if monday <= ts(p) < band_aid:
                ups.append((ts(p) - up_since) / 60)
    if ups:
        q = statistics.quantiles(ups, n=4) if len(ups) > 1 else [ups[0]] * 3
        print(f"Monday up-time between deaths (min): quartiles {q[0]:.1f} / {q[1]:.1f} / {q[2]:.1f}")
    at_death = [int(p["what"].split("threads=")[1].split()[0]) for p in monday_deaths
                if "threads=" in p["what"]]
    if at_death:
        print(f"threads at a Monday death: median {statistics.median(at_death):.0f} "
              f"(full size {statistics.median(at_death) / scale:,.0f})")
    stw = column("go.stw_last_ns" + east)
    print(f"last STW: before the client {max(window(stw, 0, client)) / 1e3:.0f} us, "
          f"Monday max {max(window(stw, monday, band_aid)) / 1e3:.0f} us")


if __name__ == "__main__":
    main()
