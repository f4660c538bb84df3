#!/usr/bin/env bash
# testbed.sh — the April 2026 data plane in miniature, on this machine (docs/testbed.md).
#   bash scripts/testbed.sh CASE [--seconds N] [--out DIR] [--seed S] [--batch-rate R]
#                                [--batch-start S] [--users-rate R]
# Root. Everything runs in a network namespace of its own (made here, removed on exit, also on
# failure or Ctrl-C); the host's network is not touched. CASE: as-was, setlimit50,
# random-source, count-errors, raw-writes, pool-large, wide-range, small-batches, gomaxprocs1,
# restart-in-tw, oom-heavy. Outputs in DIR: timeseries.csv, events.log, dataplane.log (the first 8 MiB),
# memcached.log, settings.txt, summary.txt.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n 2,9p "$0" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
case=$1; shift
seconds=90 out="" seed=1 batch_rate=0.2 batch_start=10s users_rate=5
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || usage
  case $1 in
    --seconds) seconds=$2 ;;
    --out) out=$2 ;;
    --seed) seed=$2 ;;
    --batch-rate) batch_rate=$2 ;;
    --batch-start) batch_start=$2 ;;
    --users-rate) users_rate=$2 ;;
    *) echo "testbed: unknown option $1" >&2; usage ;;
  esac
  shift 2
done
[[ $seconds =~ ^[0-9]+$ && $seconds -ge 5 && $seconds -le 3600 ]] ||
  { echo "testbed: --seconds must be 5..3600" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "testbed: run as root (network namespace, cgroup, sysctl)" >&2; exit 1; }

# The as-was settings: the April scenario at scale 0.05 (scenarios/april-2026-outage.yaml).
port_lo=32768 port_hi=34179          # 1,412 ports: 28,232 x 0.05
max_idle=50                          # MaxIdleConns 1000 x 0.05
limit=-1 dialer=fixed log=go-log     # no SetLimit, 127.32.0.1, every error to Go's logger
set_after_error=true                 # write back after a failed get too (as skysim's handler)
batch_min=750 batch_max=1000         # 15-20k URIs x 0.05
# batch_rate 0.2/s: 4x the scenario's Monday 0.05/s, so a 90 s run sees ~16 batches, not ~4
# users_rate 5/s: 10x the scenario's scaled 0.5/s sample, for a success rate per few seconds
gomaxprocs=2                         # this machine's cores (the scenario's 6 do not exist here)
gogc=50 gomemlimit=153MiB mem_mib=175  # GOGC 50; 3 GiB and 3500 MiB x 0.05
drain_rate=100000                    # log drain 2e6 B/s x 0.05
live_heap_mb=51                      # baseline live heap 1 GiB x 0.05
restart=kubelet kill_at=0s
interval=250ms                       # collector: a batch's burst lasts well under a second
mc_conns=4096 mc_backlog=1024        # memcached -c (default 1024 would refuse a batch) and -b
case $case in
  as-was) ;;
  setlimit50) limit=50 ;;
  random-source) dialer=random ;;
  count-errors) log=count ;;
  raw-writes) log=raw ;;
  pool-large) max_idle=1000 ;;
  wide-range) port_lo=32768 port_hi=60999 ;;
  small-batches) batch_min=20 batch_max=50 ;;
  gomaxprocs1) gomaxprocs=1 ;;
  restart-in-tw) restart=fixed:5s kill_at=$((seconds / 2))s ;;
  # The post-mortem's account with a heavier batch client: raw writes and 1 batch/s (the bad
  # client ran at "< 3 requests/s", domain.md 1.4): can the blocked writers' threads reach the
  # memory limit?
  oom-heavy) log=raw batch_rate=1 ;;
  *) echo "testbed: unknown case '$case'" >&2; usage ;;
esac

out=${out:-$src/testbed-out/$case}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bash "$src/scripts/setup-debian.sh" > /dev/null

# Build offline against Debian's Go sources (testbed/go.mod's replace).
bin=$out/bin
mkdir -p "$bin"
(cd "$src/testbed" && GOFLAGS=-mod=mod GOPROXY=off GO111MODULE=on go build -o "$bin/" ./...)

ns=skysim-tb-$$
pids=()
cleanup() {
  local rc=$?
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2> /dev/null || true; done
  # whatever still runs inside the namespace was started here
  for p in $(ip netns pids "$ns" 2> /dev/null); do kill -9 "$p" 2> /dev/null || true; done
  ip netns del "$ns" 2> /dev/null || true
  rmdir /sys/fs/cgroup/memory/"$ns" /sys/fs/cgroup/"$ns" 2> /dev/null || true
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
host_range=$(sysctl -n net.ipv4.ip_local_port_range)
ip netns add "$ns"
# nsenter, not `ip netns exec`: the latter remounts /sys, which hides the cgroup hierarchies
# the supervisor's memory limit needs; only the network namespace is switched.
inns() { nsenter --net=/run/netns/"$ns" "$@"; }
inns ip link set lo up
inns sysctl -q -w net.ipv4.ip_local_port_range="$port_lo $port_hi"
got=$(inns sysctl -n net.ipv4.ip_local_port_range | tr -s '\t ' ' ')
[[ $got == "$port_lo $port_hi" ]] || { echo "testbed: port range inside the namespace is '$got'" >&2; exit 1; }
[[ $(sysctl -n net.ipv4.ip_local_port_range) == "$host_range" ]] ||
  { echo "testbed: the host's port range changed: the sysctl is not per namespace here" >&2; exit 1; }

wait_port() { # wait_port PORT SECONDS: until something listens on 127.0.0.1:PORT in the namespace
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    inns bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2> /dev/null && return 0
    sleep 0.1
  done
  echo "testbed: nothing listens on 127.0.0.1:$1 after $2 s" >&2
  return 1
}

inns memcached -u nobody -l 127.0.0.1 -p 11211 -U 0 -m 64 -c "$mc_conns" -b "$mc_backlog" \
  > "$out/memcached.log" 2>&1 &
pids+=($!)
wait_port 11211 10

cat > "$out/settings.txt" << S
namespace=$ns
case=$case seconds=$seconds seed=$seed kernel=$(uname -r) go=$(go version | cut -d' ' -f3)
memcached=$(memcached -V) -c $mc_conns -b $mc_backlog
port_range=$port_lo-$port_hi ($((port_hi - port_lo + 1)) ports) max_idle=$max_idle limit=$limit dialer=$dialer log=$log set_after_error=$set_after_error
users_rate=$users_rate/s size 1-50 deadline 2s; batch_rate=$batch_rate/s from $batch_start size $batch_min-$batch_max deadline 30s
GOMAXPROCS=$gomaxprocs GOGC=$gogc GOMEMLIMIT=$gomemlimit memory_limit=${mem_mib}MiB drain=${drain_rate}B/s live_heap=${live_heap_mb}MiB
restart=$restart kill_at=$kill_at
loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)
S

inns "$bin/supervisor" -dataplane "$bin/dataplane" -drain "$bin/drain" -drain-rate "$drain_rate" \
  -log-out "$out/dataplane.log" -mem-limit-mib "$mem_mib" -restart "$restart" -kill-at "$kill_at" \
  -seconds "$seconds" -out "$out/timeseries.csv" -events "$out/events.log" -cgroup-name "$ns" \
  -interval "$interval" -gomemlimit "$gomemlimit" -gogc "$gogc" -gomaxprocs "$gomaxprocs" -- \
  -limit "$limit" -max-idle "$max_idle" -dialer "$dialer" -log "$log" -seed "$seed" \
  -set-after-error="$set_after_error" \
  -live-heap-mb "$live_heap_mb" > "$out/supervisor.out" 2>&1 &
sup=$!
pids+=($sup)
wait_port 8080 20
inns "$bin/loadgen" -seconds "$seconds" -seed "$seed" -users-rate "$users_rate" \
  -batch-rate "$batch_rate" -batch-start "$batch_start" -batch-min "$batch_min" -batch-max "$batch_max" \
  > "$out/loadgen.out" 2>&1 &
pids+=($!)
wait "$sup" || { echo "testbed: the supervisor failed:" >&2; cat "$out/supervisor.out" >&2; exit 1; }
# The machine is shared: the load says how much the run's threads had to share the cores.
echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/settings.txt"
python3 "$src/testbed/summarize.py" "$out" | tee "$out/summary.txt"
