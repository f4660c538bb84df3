#!/usr/bin/env bash
# twin.sh — a testbed case for real and in skysim, side by side (docs/testbed.md).
#   bash scripts/twin.sh SKYSIM OUT RUNS SEEDS SECONDS CASE...
# For each CASE: RUNS real runs (scripts/testbed.sh, root; one after another, never in
# parallel: they would share the cores) into OUT/CASE/runK/, then SEEDS skysim runs of
# scenarios/testbed/as-was.yaml with the case's --set into OUT/CASE/skysim-seedK/ (sampled
# every 250 ms, as the testbed's collector samples); then the tables of testbed/table.py
# (OUT/table.md, real runs) and twin_table.py (OUT/twin.md), and the overlay plots of
# twin_plot.py (OUT/plots/CASE.png and .svg). This script is the issue's `skysim twin`.
# RUNS=0 keeps the real runs already in OUT; SEEDS=0 runs no skysim.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 6 ]] || { sed -n 2,7p "$0" >&2; exit 2; }
skysim=$1 out=$2 runs=$3 seeds=$4 seconds=$5
shift 5
for n in "$runs" "$seeds"; do
  [[ $n =~ ^[0-9]+$ && $n -le 20 ]] || { echo "twin: RUNS and SEEDS must be 0..20" >&2; exit 2; }
done
[[ -x $skysim ]] || { echo "twin: $skysim is not an executable" >&2; exit 2; }
p=datacenters.east.services.dataplane.params
g=datacenters.east.services.dataplane.program
case_sets() { # the skysim side of each of scripts/testbed.sh's cases
  case $1 in
    as-was) ;;
    setlimit50) echo "$g.handlers.GetPostRecord.0.errgroup.limit=50" ;;
    random-source) echo "$g.clients.mc.dialer=random_loopback" ;;
    count-errors) echo "$p.log_policy=count" ;;
    raw-writes) echo "$p.log_write_lock=false"
                echo "$p.log_line_bytes=112" ;; # measured: the raw line has no log prefix
    pool-large) echo "$g.clients.mc.max_idle=1000" ;;
    wide-range) echo "$p.port_range_high=60999" ;;
    small-batches) echo "sources.batch-service.request_size={uniform: [20, 50]}" ;;
    gomaxprocs1) echo "$p.gomaxprocs=1" ;;
    restart-in-tw) echo "$p.restart_delay=5s"   # testbed: -kill-at SECONDS/2, fixed:5s
                   echo "faults=[{type: crash, at: +$((seconds / 2))s, target: east/dataplane/0, duration: 1ns}]" ;;
    oom-heavy) echo "$p.log_write_lock=false"
               echo "$p.log_line_bytes=112"
               echo "sources.batch-service.rate=1/s" ;;  # testbed: log=raw batch_rate=1
    *) echo "twin: unknown case '$1'" >&2; return 1 ;;
  esac
}
for c in "$@"; do
  case_sets "$c" > /dev/null
  for ((k = 1; k <= runs; k++)); do
    echo "== $c: real run $k"
    bash "$src/scripts/testbed.sh" "$c" --seconds "$seconds" --seed "$k" --out "$out/$c/run$k" > /dev/null
  done
  sets=()
  while IFS= read -r s; do [[ -n $s ]] && sets+=(--set "$s"); done < <(case_sets "$c")
  for ((k = 1; k <= seeds; k++)); do
    d=$out/$c/skysim-seed$k
    mkdir -p "$d"
    "$skysim" run "$src/scenarios/testbed/as-was.yaml" --seed "$k" --set "duration=${seconds}s" \
      --set metrics.interval=250ms \
      "${sets[@]}" --quiet --out "$d" > "$d/run.out"
    python3 "$src/testbed/summarize.py" "$d" > /dev/null
  done
done
python3 "$src/testbed/table.py" "$out" "$@" | tee "$out/table.md"   # the real runs alone
if ((seeds > 0)); then
  python3 "$src/testbed/twin_table.py" "$out" "$@" | tee "$out/twin.md"
  python3 "$src/testbed/twin_plot.py" "$out" "$@"
fi
