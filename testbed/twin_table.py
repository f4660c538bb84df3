#!/usr/bin/env python3
"""Real against skysim, per case and series: the real runs' median and range (min-max), skysim's
median over its seeds, skysim's relative error against the real median, and whether skysim's
median falls in the real range. Then, per counterfactual, whether it moves each series the same
way as in reality (against as-was). Usage: twin_table.py OUT CASE... (OUT/CASE/run*/ are real
runs, OUT/CASE/skysim-seed*/ skysim's; each with a summary.json from summarize.py)."""
import glob
import json
import statistics
import sys

SERIES = [
    ("threads_peak", "threads peak"),
    ("time_wait_peak", "TIME_WAIT peak"),
    ("first_bind_error_s", "first bind error (s)"),
    ("bind_error_after_first_batch_s", "first bind error after first batch (s)"),
    ("bind_error_after_its_batch_s", "first bind error after its batch's arrival (s)"),
    ("bind_errors_per_s", "bind errors/s"),
    ("goroutines_peak", "goroutines peak"),
    ("rss_peak_mib", "RSS peak (MiB)"),
    ("stw_peak_ms", "GC pause peak (ms)"),
    ("oom_kills", "OOM kills"),
    ("deaths", "deaths"),
    ("uptime_median_s", "median up-time before a death (s)"),
    ("time_wait_at_restart_median", "TIME_WAIT at a restart (median)"),
    ("user_success", "user success"),
]


def load(out, case, kind):
    return [json.load(open(p)) for p in sorted(glob.glob(f"{out}/{case}/{kind}*/summary.json"))]


def values(runs, key):
    return [r[key] for r in runs if r.get(key) is not None]


def fmt(v):
    if v is None:
        return "–"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def median(v):
    return statistics.median(v) if v else None


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: twin_table.py OUT CASE...")
    out, cases = sys.argv[1], sys.argv[2:]
    med = {}
    print("| case | series | real median (min–max), runs | skysim median (min–max), seeds | rel. error | in real range |")
    print("|---|---|---|---|---|---|")
    for c in cases:
        real, sim = load(out, c, "run"), load(out, c, "skysim-seed")
        if not real or not sim:
            sys.exit(f"twin_table: {c} needs real runs and skysim seeds in {out}/{c}")
        for key, label in SERIES:
            rv, sv = values(real, key), values(sim, key)
            rm, sm = median(rv), median(sv)
            med[(c, key)] = (rm, sm)
            if rm is None and sm is None:
                continue
            rel = "–"
            if rm is not None and sm is not None:
                rel = f"{(sm - rm) / rm:+.0%}" if rm != 0 else ("0" if sm == 0 else "∞")
            inside = "–"
            if rv and sm is not None:
                inside = "yes" if min(rv) <= sm <= max(rv) else "no"
            rr = f"{fmt(rm)} ({fmt(min(rv))}–{fmt(max(rv))}), {len(rv)}" if rv else "none"
            sr = f"{fmt(sm)} ({fmt(min(sv))}–{fmt(max(sv))}), {len(sv)}" if sv else "none"
            print(f"| {c} | {label} | {rr} | {sr} | {rel} | {inside} |")
    if "as-was" in cases:
        print("\n| counterfactual | series | real vs as-was | skysim vs as-was | same way |")
        print("|---|---|---|---|---|")
        for c in cases:
            if c == "as-was":
                continue
            for key, label in SERIES:
                (r0, s0), (r1, s1) = med[("as-was", key)], med[(c, key)]
                if None in (r0, s0, r1, s1):
                    continue
                def way(a, b):
                    if a == b or (a and abs(b - a) / abs(a) < 0.05):
                        return "="
                    return "up" if b > a else "down"
                rw, sw = way(r0, r1), way(s0, s1)
                print(f"| {c} | {label} | {rw} ({fmt(r0)}→{fmt(r1)}) | {sw} ({fmt(s0)}→{fmt(s1)}) | {'yes' if rw == sw else 'no'} |")


if __name__ == "__main__":
    main()
