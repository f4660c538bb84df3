#!/usr/bin/env python3
"""The fan-out's figures per variant (docs/fanout.md, docs/whole-system.md): a row per figure,
mean [95 % CI] over the seeds of a `skysim compare` of the composition (scripts/compare-fanout.sh).
Given earlier run records first, a column of theirs beside it and whether the two intervals
overlap: the fanout kind's records (docs/fanout/composition/kind-runs*.jsonl,
docs/whole-system/kind-runs-8-seeds.jsonl), kept since that kind was removed after 7a68e53, are
read with its own metric names. Figures the composition spreads over several services (the
service's deliveries and the fleet's) are summed per run first, so their intervals are those of
the sums. Usage: fanout_composition_table.py [KIND/runs.jsonl] COMPOSED/runs.jsonl ["caption"]
[--whole-system] (--whole-system: scenarios/shared-cluster.yaml's figures)"""
import json
import math
import statistics
import sys

KH = "{host=east/timelines/0}"  # the fanout kind's host (graph, cluster and service in one)
SVC = "host=east/fanout/0"      # the composition's go-service
FLEET = "host=east/fleet/0"     # its fanout-fleet
DB = "{host=east/timelines/0}"  # its scylla service
DET = "{host=east/detector/0}"  # its hyper-detector
POSTS = ("requests.latency_ns{client=celebrity-posts,endpoint=post}",
         "requests.latency_ns{client=author-posts,endpoint=post}")  # hot-shard's author
READ = "requests.latency_ns{client=app-readers,endpoint=read}"


def m(name):
    return lambda r: r.get(name)


def first(*names):
    """The first of `names` the run has (the same figure under another client's name)."""
    return lambda r: next((r[n] for n in names if n in r), None)


def total(*names):
    def f(r):
        vals = [r.get(n) for n in names]
        return None if any(v is None for v in vals) else sum(vals)
    return f


def ratio(num, den, none=1.0):
    """num / den per run; `none` when den is 0 (a fraction of nothing offered is 1, as the
    kind's delivered fractions)."""
    def f(r):
        a, b = num(r), den(r)
        return None if a is None or b is None else (a / b if b else none)
    return f


def per_read(num, den):
    """A per-read figure: 0 with no reads, as the kind's."""
    return ratio(num, den, 0.0)


def fan(metric, cls, host=SVC):
    return f"{metric}{{class={cls},{host}}}"


DELIVERED_SVC = total(fan("fanout.delivered", "ordinary"), fan("fanout.delivered", "hyper"))
# A read's partitions: the reader's timeline and the merged lists (read_set); every read names
# read_rows = 50 rows of each (the scylla kind's, as the fanout kind's read_page_rows).
# A partition the client's hot-key cache answered (call hot_cache) is no database read, as in
# the kind's db_reads_per_read.
HOT_HITS = "call.hot_cache_hits{client=db," + SVC + "}"
READS_PER_READ = per_read(
    lambda r: None if r.get("fanout.read_partitions{" + SVC + "}") is None
    else r["fanout.read_partitions{" + SVC + "}"] - r.get(HOT_HITS, 0),
    m("fanout.reads{" + SVC + "}"))
ROWS = 50
# (figure, kind value, composed value, divisor, digits)
FIGURES = [
    ("post P99 s", first(*(p + ".p99" for p in POSTS)), first(*(p + ".p99" for p in POSTS)),
     1e9, 3),
    ("post mean s", first(*(p + ".mean" for p in POSTS)), first(*(p + ".mean" for p in POSTS)),
     1e9, 3),
    ("page P99 ms", m("fanout.page_p99_ns" + KH), m("fanout.page_duration_ns{" + SVC + "}.p99"),
     1e6, 1),
    ("read P50 ms", m(READ + ".p50"), m(READ + ".p50"), 1e6, 2),
    ("read P99 ms", m(READ + ".p99"), m(READ + ".p99"), 1e6, 2),
    # Under shard_queue the queue writes the rows itself, not through the scylla service.
    ("write P99 ms", m("fanout.write_p99_ns" + KH),
     lambda r: r.get("fanout.queued_write_latency_ns{" + SVC + "}.p99",
                     r.get("scylla.write_latency_ns" + DB + ".p99")), 1e6, 2),
    ("timeline writes", m("fanout.timeline_writes" + KH), DELIVERED_SVC, 1, 0),
    ("write timeouts", m("fanout.write_timeouts" + KH), m("scylla.write_timeouts" + DB), 1, 0),
    ("list writes", m("fanout.list_writes" + KH), m("fanout.list_writes{" + SVC + "}"), 1, 1),
    ("storage rows", m("fanout.storage_rows" + KH),
     total(fan("fanout.delivered", "ordinary"), fan("fanout.delivered", "hyper"),
           fan("fanout.delivered", "hyper", FLEET), "fanout.list_writes{" + SVC + "}"), 1, 0),
    ("reads/load", m("fanout.db_reads_per_read" + KH), READS_PER_READ, 1, 3),
    ("rows/load", m("fanout.rows_read_per_read" + KH),
     lambda r: (per_read(m("fanout.read_rows{" + SVC + "}"), m("fanout.reads{" + SVC + "}"))(r)
                if "fanout.read_rows{" + SVC + "}" in r
                else None if READS_PER_READ(r) is None else ROWS * READS_PER_READ(r)), 1, 1),
    ("merges/load", m("fanout.merges_per_read" + KH),
     lambda r: None if READS_PER_READ(r) is None else max(READS_PER_READ(r) - 1, 0.0), 1, 3),
    ("retries/load", m("fanout.retries_per_read" + KH),
     per_read(m("scylla.speculative_reads" + DB), m("fanout.reads{" + SVC + "}")), 1, 3),
    ("busiest shard ops", m("scylla.max_shard_ops" + KH), m("scylla.max_shard_ops" + DB), 1, 0),
    ("delivered hyper", m("fanout.delivered_fraction_hyper" + KH),
     ratio(total(fan("fanout.delivered", "hyper"), fan("fanout.delivered", "hyper", FLEET)),
           total(fan("fanout.offered", "hyper"), fan("fanout.offered", "hyper", FLEET))), 1, 4),
    ("delivered ordinary", m("fanout.delivered_fraction_ordinary" + KH),
     ratio(m(fan("fanout.delivered", "ordinary")), m(fan("fanout.offered", "ordinary"))), 1, 4),
    ("hot shards (distinct)", m("fanout.hot_shards_distinct" + KH),
     m("scylla.hot_shards_distinct" + DB), 1, 1),
    ("flagged", m("fanout.detect_flagged" + KH), m("fanout.detect_flagged" + DET), 1, 1),
    ("bots flagged", m("fanout.detect_bots_flagged" + KH), m("fanout.detect_bots_flagged" + DET),
     1, 1),
    ("false positives", m("fanout.detect_false_positives" + KH),
     m("fanout.detect_false_positives" + DET), 1, 1),
    ("detect delay mean s", m("fanout.detect_delay_mean_ns" + KH),
     m("fanout.detect_delay_mean_ns" + DET), 1e9, 2),
    ("queue delay P99 ms", m("fanout.queue_delay_p99_ns" + KH),
     m("fanout.queue_delay_p99_ns{" + SVC + "}"), 1e6, 2),
    ("queue max depth", m("fanout.queue_max_depth" + KH), m("fanout.queue_max_depth{" + SVC + "}"),
     1, 0),
    ("writes refused", m("fanout.detect_dropped" + KH), m("fanout.detect_dropped" + DET), 1, 0),
    ("hot cache hits/read", m("fanout.cache_hits_per_read" + KH),
     per_read(m(HOT_HITS), m("fanout.reads{" + SVC + "}")), 1, 4),
    ("hot keys flagged", m("fanout.hotkey_keys_flagged" + KH), m("scylla.hotkey_keys_flagged" + DB),
     1, 1),
    ("hot bots flagged", m("fanout.hotkey_bots_flagged" + KH),
     m("fanout.hotkey_bots_flagged{" + FLEET + "}"), 1, 1),
    ("hot false positives", m("fanout.hotkey_false_positives" + KH),
     m("fanout.hotkey_false_positives{" + FLEET + "}"), 1, 1),
    ("bot flag mean s", m("fanout.hotkey_bot_flag_mean_ns" + KH),
     m("fanout.hotkey_bot_flag_mean_ns{" + FLEET + "}"), 1e9, 2),
    ("rows coalesced", m("fanout.hotkey_coalesced_rows" + KH),
     m("scylla.hotkey_coalesced_rows" + DB), 1, 0),
    ("coalesced batches", m("fanout.hotkey_batches" + KH), m("scylla.hotkey_batches" + DB), 1, 0),
    ("rows written at once", m("fanout.hotkey_direct_rows" + KH),
     m("scylla.hotkey_direct_rows" + DB), 1, 0),
    ("coalesce delay P99 ms", m("fanout.hotkey_coalesce_delay_p99_ns" + KH),
     m("scylla.hotkey_coalesce_delay_p99_ns" + DB), 1e6, 1),
    ("stale cached reads", m("fanout.hotkey_stale_reads" + KH),
     m("scylla.hotkey_stale_reads" + DB), 1, 0),
    # The graph during the run: the fleet runs the growth; the service's and the fleet's
    # decisions are audited apart and summed here (the kind audits all of them in one).
    ("follows made", m("fanout.follows_made" + KH), m("fanout.follows_made{" + FLEET + "}"), 1, 0),
    ("grower delivered", m("fanout.grower_delivered_fraction" + KH),
     m("fanout.grower_delivered_fraction{" + FLEET + "}"), 1, 5),
    ("grower exact", m("fanout.grower_exact_fraction" + KH),
     m("fanout.grower_exact_fraction{" + FLEET + "}"), 1, 5),
]
for _cls in ("grower", "heavy", "ordinary"):
    for _name, _metric in (("stale decisions", "fanout.stale_decisions"),
                           ("stale writes", "fanout.stale_writes")):
        FIGURES.append((f"{_name} {_cls}", m(f"{_metric}{{class={_cls},host=east/timelines/0}}"),
                        total(f"{_metric}{{class={_cls},{SVC}}}", f"{_metric}{{class={_cls},{FLEET}}}"),
                        1, 0))

# The whole system (scenarios/shared-cluster.yaml; its records of the fanout kind on the shared
# cluster read with the kind's names): the data plane's figures and the fan-out's, with
# --whole-system.
API = "{client=appview,endpoint=get_post}"
WFAN = "{host=east/fanout/0}"      # the kind's host there, and the composition's go-service
WDB = "{host=east/timeline/0}"     # the shared cluster
WFLEET = "host=east/fleet/0"
WHOLE_SYSTEM = [
    ("get_post P99 ms", m("requests.latency_ns" + API + ".p99"),
     m("requests.latency_ns" + API + ".p99"), 1e6, 1),
    ("get_post failed", m("requests.failed" + API), m("requests.failed" + API), 1, 0),
    ("Scylla reads", m("scylla.read_latency_ns" + WDB + ".count"),
     m("scylla.read_latency_ns" + WDB + ".count"), 1, 0),
    ("Scylla read P50 ms", m("scylla.read_latency_ns" + WDB + ".p50"),
     m("scylla.read_latency_ns" + WDB + ".p50"), 1e6, 2),
    ("Scylla read P99 ms", m("scylla.read_latency_ns" + WDB + ".p99"),
     m("scylla.read_latency_ns" + WDB + ".p99"), 1e6, 1),
    ("db client timeouts", m("client.timeouts{client=db,host=east/api/0}"),
     m("client.timeouts{client=db,host=east/api/0}"), 1, 0),
    ("hot shards", m("fanout.hot_shards_distinct" + WFAN), m("scylla.hot_shards_distinct" + WDB),
     1, 1),
    ("write P99 ms", m("fanout.write_p99_ns" + WFAN), m("scylla.write_latency_ns" + WDB + ".p99"),
     1e6, 1),
    ("page P99 ms", m("fanout.page_p99_ns" + WFAN), m("fanout.page_duration_ns" + WFAN + ".p99"),
     1e6, 1),
    ("timeline writes", m("fanout.timeline_writes" + WFAN),
     total("fanout.delivered{class=ordinary,host=east/fanout/0}",
           "fanout.delivered{class=hyper,host=east/fanout/0}"), 1, 0),
    ("delivered hyper", m("fanout.delivered_fraction_hyper" + WFAN),
     ratio(total("fanout.delivered{class=hyper,host=east/fanout/0}",
                 "fanout.delivered{class=hyper," + WFLEET + "}"),
           total("fanout.offered{class=hyper,host=east/fanout/0}",
                 "fanout.offered{class=hyper," + WFLEET + "}")), 1, 4),
    ("posts done", m("requests.ok{client=celebrity-posts,endpoint=post}"),
     m("requests.ok{client=celebrity-posts,endpoint=post}"), 1, 2),
]

# Student's t, 97.5 % quantile, by degrees of freedom (1.96 beyond 30).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def interval(values):
    n = len(values)
    mean = statistics.fmean(values)
    if n < 2:
        return mean, mean, mean
    half = (T975[n - 2] if n - 1 <= len(T975) else 1.96) * statistics.stdev(values) / math.sqrt(n)
    return mean, mean - half, mean + half


def read_runs(path):
    """{variant label: [metrics of each ok run]} in the sweep's variant order."""
    with open(path) as f:
        header = json.loads(f.readline())
        sweep = header["sweep"]
        if "variants" in sweep:
            names = [v["name"] for v in sweep["variants"]]
        else:  # --vary: one variant per value of its one path
            names = [str(v) for v in sweep["vary"][0]["values"]]
        runs = {name: [] for name in names}
        for line in f:
            r = json.loads(line)
            if r.get("status") == "ok":
                runs[names[r["variant"]]].append(r["metrics"])
    return names, runs


def fmt(x, digits):
    return f"{x:,.{digits}f}"


def cell(runs, value, div, digits):
    vals = [v for v in (value(r) for r in runs) if v is not None and not math.isnan(v)]
    if not vals:
        return "—", None
    mean, lo, hi = (x / div for x in interval(vals))
    return f"{fmt(mean, digits)} [{fmt(lo, digits)}, {fmt(hi, digits)}]", (lo, hi)


def main():
    figures = WHOLE_SYSTEM if "--whole-system" in sys.argv[1:] else FIGURES
    args = [a for a in sys.argv[1:] if a.endswith(".jsonl")]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    caption = " ".join(a for a in sys.argv[1:]
                       if not a.endswith(".jsonl") and a != "--whole-system")
    order, comp = read_runs(args[-1])
    kind = read_runs(args[0])[1] if len(args) == 2 else None
    if caption:
        print(caption + "\n")
    for label in order:
        if kind is None:
            print(f"**{label}** (n = {len(comp[label])})\n")
            print("| figure | mean [95 % CI] |")
            print("|---|---|")
        else:
            print(f"**{label}** (kind n = {len(kind.get(label, []))}, "
                  f"composition n = {len(comp[label])})\n")
            print("| figure | fanout kind | composition | CIs overlap |")
            print("|---|---|---|---|")
        for name, kv, cv, div, digits in figures:
            c, ci = cell(comp[label], cv, div, digits)
            if kind is None:
                if ci is not None:
                    print(f"| {name} | {c} |")
                continue
            k, ki = cell(kind.get(label, []), kv, div, digits)
            overlap = "—" if ki is None or ci is None else (
                "yes" if ki[0] <= ci[1] and ci[0] <= ki[1] else "**no**")
            print(f"| {name} | {k} | {c} | {overlap} |")
        print()


if __name__ == "__main__":
    main()
