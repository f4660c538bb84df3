#!/usr/bin/env bash
# PHOLD side by side in one run (docs/benchmarks.md, "h-queue"): the bare loops, skysim's two
# paths (and an older skysim), ns-3's schedulers, SimGrid and SimPy, interleaved per repetition.
# Metric: events per CPU second of the whole process (user + sys from /usr/bin/time, set-up
# included alike), because the machine is shared and wall time counts other jobs' slices.
# The anchor programs are built by /work/shared/bench/phold-anchors (make); ANCHORS= its copy.
#   side-by-side.sh M|L REPS SKYSIM [OLD_SKYSIM]      then: python3 table.py OUTFILE
# Env: T (horizon), TCAL (ns-3 CalendarScheduler's), TSLOW (SimGrid, SimPy), SLOWREPS (how many
# repetitions run ns-3, SimGrid and SimPy; default all).
set -u
A=${ANCHORS:-/tmp/phold-anchors}; CF=$1; R=$2; B=$3; OLD=${4:-}; S=42
case $CF in
  M) N=1024; T=${T:-400}; TSLOW=${TSLOW:-40}; TCAL=${TCAL:-$T}; SG=token-sleep ;;
  L) N=65536; T=${T:-4}; TSLOW=${TSLOW:-2}; TCAL=${TCAL:-1}; SG=lp-mailbox ;;
esac
E=16
OUT=${OUTDIR:-/tmp}/side-$CF-$(date +%H%M%S).txt
run() { # key T cmd...
  local k=$1 t=$2; shift 2
  local o; o=$( { /usr/bin/time -f "CPU %U %S MAXRSS %M" "$@" ; } 2>&1 )
  local ev; ev=$(echo "$o" | grep -oE ' events=[0-9]+' | head -1 | cut -d= -f2)
  [ -z "$ev" ] && ev=$(echo "$o" | grep -m1 'events processed' | awk '{print $3}')
  local cpu; cpu=$(echo "$o" | awk '/^CPU /{print $2+$3}')
  local rss; rss=$(echo "$o" | awk '/MAXRSS/{print $5}')
  local fp; fp=$(echo "$o" | grep -m1 -i fingerprint | awk '{print $NF}')
  echo "$k T=$t events=$ev cpu=$cpu rss_kb=$rss evpcpu=$(awk -v e=$ev -v c=$cpu 'BEGIN{printf "%.0f", e/c}') fp=$fp load=$(cut -d' ' -f1 /proc/loadavg)" | tee -a $OUT
}
echo "# $CF N=$N E=$E T=$T start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a $OUT
for ((i=0;i<R;i++)); do
  run raw-pq $T $A/build/raw_heap_O2 $N $E $T $S pq
  run raw-calq $T $A/build/raw_heap_O2 $N $E $T $S calq
  run raw-dary4f $T $A/build/raw_heap_O2 $N $E $T $S dary4-fused
  for p in callback process; do
    run sky-$p $T "$B" bench phold --lps $N --init $E --until $T --seed $S --path $p
    [ -n "$OLD" ] && run old-$p $T "$OLD" bench phold --lps $N --init $E --until $T --seed $S --path $p
  done
  [ $i -lt ${SLOWREPS:-$R} ] || continue
  run ns3-pq $T $A/build/ns3_phold $N $E $T $S PriorityQueueScheduler
  run ns3-heap $T $A/build/ns3_phold $N $E $T $S HeapScheduler
  run ns3-map $T $A/build/ns3_phold $N $E $T $S MapScheduler
  run ns3-calendar $TCAL $A/build/ns3_phold $N $E $TCAL $S CalendarScheduler
  if [ $CF = L ]; then
    run simgrid-$SG $TSLOW $A/build/simgrid_phold --cfg=contexts/stack-size:16 --cfg=contexts/guard-size:0 $N $E $TSLOW $S $SG
  else
    run simgrid-$SG $TSLOW $A/build/simgrid_phold $N $E $TSLOW $S $SG
  fi
  run simpy $TSLOW /usr/bin/python3 $A/simpy_phold.py $N $E $TSLOW $S token-hold mt
done
echo "# end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a $OUT
echo $OUT
