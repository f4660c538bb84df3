#!/usr/bin/env bash
# The testbed's smoke (docs/testbed.md): the as-was case for 45 s with a batch every ~5 s, and
# checks that the real chain's first links appear — Go's bind error text, TIME_WAIT at the
# port range, threads growing — and that the collectors read what they claim: /proc's thread
# count against the Go runtime's own (the threadcreate profile), the collector's TIME_WAIT
# count against ss(8) read independently during the run, the logged error lines against the
# data plane's counters. SKIPs (exit 77) only where a network namespace cannot be made.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
probe=skysim-smoke-$$
if ! ip netns add "$probe" 2> /dev/null; then
  echo "SKIP: network namespaces are unavailable here ('ip netns add' failed; not root?)"
  exit 77
fi
ip netns del "$probe"
work=$(mktemp -d)
tb=""
cleanup() {
  [[ -n $tb ]] && kill "$tb" 2> /dev/null && wait "$tb" 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
run=$work/run
seconds=45
bash "$src/scripts/testbed.sh" as-was --seconds $seconds --batch-rate 0.2 --batch-start 5s \
  --out "$run" > "$work/testbed.out" 2>&1 &
tb=$!

# Independently of the collector: ss's TIME_WAIT count towards memcached, at ~30 s.
ns=""
for ((i = 0; i < 600; i++)); do # up to 60 s for the build and the start
  [[ -f $run/settings.txt ]] && ns=$(sed -n 's/^namespace=//p' "$run/settings.txt")
  [[ -n $ns ]] && break
  sleep 0.1
done
[[ -n $ns ]] || { echo "FAIL: the testbed did not start"; cat "$work/testbed.out"; exit 1; }
for ((i = 0; i < 600; i++)); do
  [[ -s $run/timeseries.csv ]] && break
  sleep 0.1
done
t0=$EPOCHREALTIME
sleep 30
ss_tw=$(nsenter --net=/run/netns/"$ns" ss -Htan state time-wait dst 127.0.0.1:11211 | wc -l)
t1=$EPOCHREALTIME
wait "$tb" || { echo "FAIL: testbed.sh failed"; cat "$work/testbed.out"; exit 1; }
tb=""

python3 - "$run" "$ss_tw" "$t0" "$t1" << 'PY'
import csv, json, sys
run, ss_tw = sys.argv[1], int(sys.argv[2])
ss_t = float(sys.argv[4]) - float(sys.argv[3])
H = "{dc=east;host=east/dataplane/0}"
rows = list(csv.DictReader(open(f"{run}/timeseries.csv")))
s = json.load(open(f"{run}/summary.json"))
fails = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)
log = open(f"{run}/dataplane.log", errors="replace").read()
text = "dial tcp 127.32.0.1:0->127.0.0.1:11211: bind: address already in use"
alt = "connect: cannot assign requested address"
check(text in log or alt in log, f"Go's error text in the log: '{text}' (or '{alt}')")
ports = 34179 - 32768 + 1
tw = [float(r["tcp.time_wait" + H]) for r in rows if r["tcp.time_wait" + H]]
check(max(tw) >= 0.9 * ports, f"TIME_WAIT reaches the range: peak {max(tw):.0f} >= 0.9 x {ports}")
fixed = [float(r["testbed.time_wait_fixed_source" + H]) for r in rows if r["testbed.time_wait_fixed_source" + H]]
check(max(fixed) <= ports, f"TIME_WAIT on 127.32.0.1 never exceeds the range: {max(fixed):.0f} <= {ports}")
fb = s["first_bind_error_s"]
check(fb is not None and 5 <= fb <= 40, f"first bind error after the first batch (5 s): {fb}")
th = [float(r["go.threads" + H]) for r in rows if r["go.threads" + H]]
check(max(th) > th[0], f"threads grow: {th[0]:.0f} at the start, peak {max(th):.0f}")
# The collectors: /proc/PID/status Threads vs the Go runtime's threadcreate count.
pairs = [(float(r["go.threads" + H]), float(r["testbed.threads_created" + H])) for r in rows
         if r["go.threads" + H] and r["testbed.threads_created" + H] and r["dataplane.up" + H] == "1"]
close = sum(1 for a, b in pairs if abs(a - b) <= 2)
check(len(pairs) >= 0.9 * len(rows) and close >= 0.95 * len(pairs),
      f"/proc threads = Go's threadcreate +-2 in {close} of {len(pairs)} samples ({len(rows)} rows)")
# The collector's TIME_WAIT vs ss, read at ss_t (+-1.5 s for the two clocks' offsets).
near = [float(r["tcp.time_wait" + H]) for r in rows
        if r["tcp.time_wait" + H] and abs(float(r["time_s"]) - ss_t) <= 1.5]
check(bool(near) and min(near) - 5 <= ss_tw <= max(near) + 5,
      f"ss counts {ss_tw} TIME_WAIT at {ss_t:.1f} s; the collector {min(near or [0]):.0f}-{max(near or [0]):.0f}")
lines = log.count("bind: address already in use")
ce = float(rows[-1]["memcached.cache_errors" + H])
lw = float(rows[-1]["log.lines_written" + H])
check(0 < lines <= lw <= ce, f"log lines with the error {lines} <= lines written {lw:.0f} <= cache errors {ce:.0f}")
sys.exit(1 if fails else 0)
PY
