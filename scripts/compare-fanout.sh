#!/usr/bin/env bash
# The fan-out policy comparison of docs/fanout.md ("Policies compared"): every policy x three
# loads x seeds on scenarios/fanout-policies.yaml, then one table (policy x load, mean [95 % CI]
# of latencies and costs side by side) in OUT/policies.md. Plots per metric: OUT/plots/.
# Usage: scripts/compare-fanout.sh [--seeds 1..16] [--jobs 2] [--out docs/compare-fanout]
#                                  [--policies full,lossy,...] [--loads calm,steady,flare]
# Loads = each hyper-follower's timeline writes/s (posts_per_followed_s x 300k follows):
#   calm   0.002   (600/s:   shards far from load 1; steady write P99 ~ the unloaded tail)
#   steady 0.00455 (1,365/s: the write-up's steady P99 ~15 ms, docs/fanout.md regimes table)
#   flare  0.0075  (2,250/s: full fan-out pages end at Scylla's 2 s write timeout)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=1..16 jobs=2 out=docs/compare-fanout
policies=full,lossy,on_read,lossy_on_read,per_shard,split,shard_queue,detect_block,detect_limit,shuffle_retry,hotkey loads=calm,steady,flare
skysim=${SKYSIM:-build/default/app/skysim}
while (($#)); do
  case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --policies) policies=$2; shift 2 ;;
    --loads) loads=$2; shift 2 ;;
    *) echo "compare-fanout.sh: unknown argument '$1' (see the usage at the top)" >&2; exit 2 ;;
  esac
done
declare -A ppf=([calm]=0.002 [steady]=0.00455 [flare]=0.0075)
p=datacenters.east.services.timelines.params
variants=()
IFS=, read -ra pols <<<"$policies"
IFS=, read -ra lds <<<"$loads"
for load in "${lds[@]}"; do
  [[ -n ${ppf[$load]:-} ]] || { echo "compare-fanout.sh: unknown load '$load' (calm, steady, flare)" >&2; exit 2; }
  for pol in "${pols[@]}"; do
    variants+=(--variant "$pol/$load: $p.policy=$pol $p.posts_per_followed_s=${ppf[$load]}")
  done
done
start=$SECONDS
"$skysim" compare scenarios/fanout-policies.yaml "${variants[@]}" --seeds "$seeds" \
  --jobs "$jobs" --out "$out"
wall=$((SECONDS - start))
python3 scripts/fanout_policy_table.py "$out/compare.csv" \
  "policies ${policies} x loads ${loads} x seeds ${seeds}, --jobs ${jobs}: ${wall} s wall" \
  >"$out/policies.md"
echo "compare-fanout.sh: ${wall} s wall; table in $out/policies.md"
