#!/usr/bin/env python3
"""The figures of one testbed run (docs/testbed.md), from its timeseries.csv, events.log and
dataplane.log; or of a skysim run of scenarios/testbed/ (the same metric names; what skysim
does not write is None). Usage: summarize.py RUN_DIR. Prints them, writes RUN_DIR/summary.json."""
import csv
import json
import re
import statistics
import sys

from composed_names import testbed_row

H = "{dc=east;host=east/dataplane/0}"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: summarize.py RUN_DIR")
    run = sys.argv[1]
    with open(f"{run}/timeseries.csv") as f:
        # skysim separates labels with ',' inside a quoted header, the testbed's collector with
        # ';': one spelling for both
        rows = [testbed_row({k.replace(",", ";"): v for k, v in r.items()})
                for r in csv.DictReader(f)]
    if not rows:
        sys.exit(f"summarize: {run}/timeseries.csv has no rows")

    def col(name):
        return [(float(r["time_s"]), float(r[name])) for r in rows if r.get(name, "") != ""]

    def peak(name):  # None when the run has no such series
        v = col(name)
        return max(x for _, x in v) if v else None

    def last(name):
        v = col(name)
        return v[-1][1] if v else None

    bind = col("memcached.bind_errors" + H)
    first_bind = next((t for t, x in bind if x > 0), None)
    issued = col("requests.issued{client=batch-service;endpoint=GetPostRecord}")
    first_batch = next((t for t, x in issued if x > 0), None)
    # The batch that the first bind error came in: the last batch arrival (a sample where the
    # issued count grew) at or before it. Both sides now send the first batch at 10 s exactly,
    # but the later gaps are Poisson draws of their own: the time from that batch to the error
    # is the dynamics' figure, the time from the start also the draws'.
    arrivals = [t for (t, x), (_, x0) in zip(issued[1:], issued[:-1]) if x > x0]
    arrivals = ([issued[0][0]] if issued and issued[0][1] > 0 else []) + arrivals
    its_batch = max((t for t in arrivals if first_bind is not None and t <= first_bind), default=None)
    end = float(rows[-1]["time_s"])
    total_bind = bind[-1][1] if bind else 0
    rate = total_bind / (end - first_bind + 1) if first_bind is not None else 0.0
    good = last("user.requests.good{dc=east}") or 0
    bad = last("user.requests.bad{dc=east}") or 0
    try:
        with open(f"{run}/events.log") as f:
            events = f.read()
    except FileNotFoundError:  # a skysim run
        events = ""
    m = re.search(r"memory limit (\d+) MiB by (\S+)", events)
    try:
        with open(f"{run}/settings.txt") as f:
            settings = f.read()
    except FileNotFoundError:  # a skysim run
        settings = ""
    load = [float(x) for x in re.findall(r"loadavg_(?:start|end)=([0-9.]+)", settings)]
    # TIME_WAIT towards memcached when each restarted process started (the pool it must rebuild)
    starts = [float(t) for t in re.findall(r"t=([0-9.]+)s start pid", events)][1:]
    # Up-spells from dataplane.up (both sides write it): each restart (0 -> 1) and each death
    # (1 -> 0), and how long every process that died had been up.
    up = col("dataplane.up" + H)
    uptimes, began, prev = [], 0.0, 1.0
    for t, x in up:
        if prev >= 1 and x < 1:
            uptimes.append(t - began)
        elif prev < 1 and x >= 1:
            began = t
            if not events:  # a skysim run: no supervisor log of starts
                starts.append(t)
        prev = x
    tw_series = col("tcp.time_wait" + H)
    tw_at_restarts = [min(tw_series, key=lambda p: abs(p[0] - t))[1] for t in starts] if tw_series else []
    error_text = ""
    try:
        with open(f"{run}/dataplane.log", errors="replace") as f:
            for line in f:
                if "memcached:" in line:
                    error_text = line.strip()
                    break
    except FileNotFoundError:
        pass
    s = {
        "memory_limit": f"{m.group(1)} MiB by {m.group(2)}" if m else "skysim's model",
        "seconds": end,
        "loadavg_start": load[0] if load else None,  # 1-min load average
        "loadavg_end": load[1] if len(load) > 1 else None,
        "threads_peak": peak("go.threads_peak" + H),
        "goroutines_peak": peak("go.goroutines" + H),
        "rss_peak_mib": (peak("go.rss_bytes" + H) or 0) / 2**20,
        "time_wait_peak": peak("tcp.time_wait" + H),
        "first_bind_error_s": first_bind,
        "first_batch_s": first_batch,
        # the inputs differ in when the first batch comes (the testbed's at 10 s exactly,
        # skysim's source at 10 s + an exponential gap): this is the dynamics' own figure
        "bind_error_after_first_batch_s": first_bind - first_batch
        if first_bind is not None and first_batch is not None else None,
        "bind_error_after_its_batch_s": first_bind - its_batch
        if first_bind is not None and its_batch is not None else None,
        "bind_errors": total_bind,
        "bind_errors_per_s": rate,
        "cache_errors": last("memcached.cache_errors" + H),
        "threads_in_write_peak": peak("testbed.threads_in_write" + H),
        "threads_in_bind_connect_peak": max(
            (float(r["testbed.threads_in_bind" + H] or 0) + float(r["testbed.threads_in_connect" + H] or 0)
             for r in rows), default=0) if "testbed.threads_in_bind" + H in rows[0] else None,
        "stw_peak_ms": (peak("go.stw_peak_ns" + H) or 0) / 1e6,
        "gc_count": last("testbed.gc_count" + H),
        "deaths": last("go.crashes" + H),
        "oom_kills": last("go.oom_kills" + H),
        "restarts": last("testbed.restarts" + H),
        "time_wait_at_restarts": tw_at_restarts,
        "time_wait_at_restart_median": statistics.median(tw_at_restarts) if tw_at_restarts else None,
        "uptimes_s": uptimes,  # of each process that died, from dataplane.up
        "uptime_median_s": statistics.median(uptimes) if uptimes else None,
        "ms_in_syscall_peak": peak("go.ms_in_syscall" + H),
        "user_success": good / (good + bad) if good + bad else None,
        "batch_ok": last("requests.ok{client=batch-service;endpoint=GetPostRecord}"),
        "batch_issued": last("requests.issued{client=batch-service;endpoint=GetPostRecord}"),
        "first_error_line": error_text,
    }
    with open(f"{run}/summary.json", "w") as f:
        json.dump(s, f, indent=1)
    for k, v in s.items():
        print(f"{k:30} {v:.4g}" if isinstance(v, float) else f"{k:30} {v}")


if __name__ == "__main__":
    main()
