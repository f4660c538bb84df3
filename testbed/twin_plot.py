#!/usr/bin/env python3
"""Real runs and skysim seeds on the same axes, per case: one figure of seven panels against
time (OS threads, TIME_WAIT, bind errors, goroutines, RSS, GC pause, user success), every
real run in one colour and every skysim seed in another. Usage:
    twin_plot.py OUT CASE...
reads OUT/CASE/run*/timeseries.csv and OUT/CASE/skysim-seed*/timeseries.csv, writes
OUT/plots/CASE.png and CASE.svg (gnuplot) with the data and script beside them."""
import csv
import glob
import os
import subprocess
import sys

from composed_names import testbed_row

H = "{dc=east;host=east/dataplane/0}"
WINDOW_S = 5.0  # user success over the last 5 s: a cumulative ratio would hide the dips

# (file stem, panel title, metric, scale)
SERIES = [
    ("threads", "OS threads", "go.threads" + H, 1),
    ("time_wait", "TIME_WAIT towards memcached", "tcp.time_wait" + H, 1),
    ("bind_errors", "bind errors (cumulative)", "memcached.bind_errors" + H, 1),
    ("goroutines", "goroutines", "go.goroutines" + H, 1),
    ("rss", "RSS (MiB)", "go.rss_bytes" + H, 1 / 2**20),
    ("gc_pause", "last GC pause (ms)", "go.stw_last_ns" + H, 1e-6),
]


def read(path):
    with open(path) as f:
        # skysim writes label lists with ',', the testbed's collector with ';'
        return [testbed_row({k.replace(",", ";"): v for k, v in r.items()})
                for r in csv.DictReader(f)]


def column(rows, name, scale):
    return [(float(r["time_s"]), float(r[name]) * scale) for r in rows if r.get(name, "") != ""]


def user_success(rows):
    good, bad = "user.requests.good{dc=east}", "user.requests.bad{dc=east}"
    pts = [(float(r["time_s"]), float(r.get(good) or 0), float(r.get(bad) or 0)) for r in rows]
    out, j = [], 0
    for t, g, b in pts:
        while pts[j][0] < t - WINDOW_S:
            j += 1
        dg, db = g - pts[j][1], b - pts[j][2]
        if dg + db > 0:
            out.append((t, dg / (dg + db)))
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: twin_plot.py OUT CASE...")
    out, cases = sys.argv[1], sys.argv[2:]
    pdir = os.path.join(out, "plots")
    os.makedirs(pdir, exist_ok=True)
    for case in cases:
        runs = {"real": sorted(glob.glob(f"{out}/{case}/run*/timeseries.csv")),
                "skysim": sorted(glob.glob(f"{out}/{case}/skysim-seed*/timeseries.csv"))}
        if not runs["real"] or not runs["skysim"]:
            sys.exit(f"twin_plot: {case} needs real runs and skysim seeds in {out}/{case}")
        panels = SERIES + [("user_success", f"user success (last {WINDOW_S:g} s)", None, None)]
        files = {}  # (panel, side) -> [data file]
        for side, paths in runs.items():
            for k, path in enumerate(paths, 1):
                rows = read(path)
                for stem, _, name, scale in panels:
                    pts = user_success(rows) if name is None else column(rows, name, scale)
                    f = os.path.join(pdir, f"{case}.{stem}.{side}{k}.dat")
                    with open(f, "w") as w:
                        w.writelines(f"{t} {v}\n" for t, v in pts)
                    files.setdefault((stem, side), []).append(f)
        gp = os.path.join(pdir, f"{case}.gp")
        with open(gp, "w") as g:
            g.write("set multiplot layout 4,2 title '%s: real runs (red) and skysim seeds (blue)'\n" % case)
            g.write("set termoption noenhanced\nset key off\nset grid\nset xlabel 'time (s)'\n")
            for stem, title, _, _ in panels:
                g.write(f"set title '{title}'\n")
                parts = [f"'{f}' using 1:2 with lines lc rgb '#cc2222' lw 1.2"
                         for f in files.get((stem, "real"), [])]
                parts += [f"'{f}' using 1:2 with lines lc rgb '#2255cc' lw 1.2 dt 2"
                          for f in files.get((stem, "skysim"), [])]
                g.write("plot " + ", ".join(parts) + "\n")
            g.write("unset multiplot\n")
        for term, ext in (("pngcairo size 1400,1500 font ',10'", "png"), ("svg size 1400,1500", "svg")):
            target = os.path.join(pdir, f"{case}.{ext}")
            subprocess.run(["gnuplot", "-e", f"set terminal {term}; set output '{target}'", gp],
                           check=True)
        print(f"{pdir}/{case}.png, .svg")


if __name__ == "__main__":
    main()
