#!/bin/sh
# Stands in for `skysim run FILE --seed N [--set k=v]... [--until T] --out DIR --quiet` in the analysis
# tests, so compare, shards and merge are tested without depending on any scenario.
# Knobs (via --set): policy=full|lossy|onread or load=X sets the level of the metrics;
# fail_seed=N makes seed N fail like an invariant violation; spin=N burns N loop iterations.
set -eu
[ "${1:-}" = run ] || { echo "fake skysim: only 'run' is supported" >&2; exit 2; }
scenario=$2
shift 2
seed=0 out= sets= until=
while [ $# -gt 0 ]; do
  case $1 in
    --seed) seed=$2; shift 2 ;;
    --set) sets="$sets $2"; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --until) until=$2; shift 2 ;;
    --quiet) shift ;;
    *) echo "fake skysim: unknown argument $1" >&2; exit 2 ;;
  esac
done
x=1 fail=none spin=0
for kv in $sets; do
  case $kv in
    policy=full) x=1 ;;
    policy=lossy) x=2 ;;
    policy=onread) x=3 ;;
    load=*) x=${kv#load=} ;;
    fail_seed=*) fail=${kv#fail_seed=} ;;
    spin=*) spin=${kv#spin=} ;;
    *) echo "fake skysim: unknown key in --set $kv" >&2; exit 2 ;;
  esac
done
if [ "$seed" = "$fail" ]; then
  echo "invariant violated: ports.in_use <= ports.range at t=12.5s (seed $seed)" >&2
  exit 3
fi
mkdir -p "$out"
awk -v s="$seed" -v x="$x" -v sc="$scenario" -v spin="$spin" -v out="$out" -v until="$until" 'BEGIN {
  acc = 0
  for (i = 0; i < spin; i++) { acc += i % 7 }
  noise = ((s * 7919) % 101) / 100.0
  f = out "/summary.json"
  printf "{\"scenario\": \"%s\", \"seed\": %d, \"fingerprint\": \"fp-%d-%s\",\n", \
    sc, s, s, x > f
  printf " \"until\": \"%s\",\n", until > f
  printf " \"metrics\": {\"latency_ms\": %.6f, \"errors\": %d, ", 10 * x + noise, s % 3 > f
  printf "\"mem\": {\"peak_mb\": %.3f}},\n", 100 + x * x + noise + acc * 0 > f
  printf " \"invariants\": [{\"name\": \"ports\", \"ok\": true}]}\n" > f
  ts = out "/timeseries.csv"
  print "time_s,queue_depth,errors" > ts
  for (t = 0; t <= 5; t++) { printf "%d,%.3f,%d\n", t, x * t + noise, (s + t) % 2 > ts }
}'
