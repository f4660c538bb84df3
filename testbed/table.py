#!/usr/bin/env python3
"""The testbed's case table: per case, the median of its runs and their range (min-max), from
each run's summary.json. Usage: table.py OUT CASE... (runs in OUT/CASE/run*/)."""
import glob
import json
import statistics
import sys

SERIES = [
    ("threads_peak", "threads peak", "{:.0f}"),
    ("threads_in_write_peak", "in write(2) peak", "{:.0f}"),
    ("goroutines_peak", "goroutines peak", "{:.0f}"),
    ("time_wait_peak", "TIME_WAIT peak", "{:.0f}"),
    ("first_bind_error_s", "first bind error (s)", "{:.2f}"),
    ("bind_error_after_first_batch_s", "… after the first batch (s)", "{:.2f}"),
    ("bind_error_after_its_batch_s", "… after its batch (s)", "{:.2f}"),
    ("bind_errors_per_s", "bind errors/s", "{:.0f}"),
    ("rss_peak_mib", "RSS peak (MiB)", "{:.0f}"),
    ("stw_peak_ms", "GC pause peak (ms)", "{:.1f}"),
    ("oom_kills", "OOM kills", "{:.0f}"),
    ("uptime_median_s", "median up-time (s)", "{:.1f}"),
    ("time_wait_at_restart_median", "TIME_WAIT at a restart", "{:.0f}"),
    ("user_success", "user success", "{:.3f}"),
    ("loadavg_start", "machine load at start", "{:.1f}"),
]


def cell(values, fmt):
    v = [x for x in values if x is not None]
    if not v:
        return "none"
    med = fmt.format(statistics.median(v))
    if len(v) == 1:
        return med
    return f"{med} ({fmt.format(min(v))}–{fmt.format(max(v))})"


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: table.py OUT CASE...")
    out, cases = sys.argv[1], sys.argv[2:]
    print("| case | runs | " + " | ".join(label for _, label, _ in SERIES) + " |")
    print("|---|---|" + "---|" * len(SERIES))
    for c in cases:
        runs = [json.load(open(p)) for p in sorted(glob.glob(f"{out}/{c}/run*/summary.json"))]
        if not runs:
            sys.exit(f"table: no runs of {c} in {out}")
        cells = [cell([r.get(k) for r in runs], fmt) for k, _, fmt in SERIES]
        print(f"| {c} | {len(runs)} | " + " | ".join(cells) + " |")
    print(f"\nmemory limit: {runs[0]['memory_limit']}; each cell: median (min–max) over the runs")


if __name__ == "__main__":
    main()
