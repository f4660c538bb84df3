#!/usr/bin/env bash
# The fan-out policy comparison of docs/fanout.md ("Policies compared"): every policy x three
# loads x seeds on scenarios/fanout-policies.yaml (the fan-out as parts: graph store, scylla
# service, the fleet, a Go fan-out service), then one table per variant (figure, mean [95 % CI])
# in OUT/table.md (scripts/fanout_composition_table.py). With --against RUNS.jsonl, a column of
# earlier run records beside it (the fanout kind's, kept in docs/fanout/composition/
# kind-runs*.jsonl, before that kind was removed after 7a68e53) and whether the CIs overlap.
# Usage: scripts/compare-fanout.sh [--seeds 1..8] [--jobs 2] [--out DIR] [--against RUNS.jsonl]
#          [--policies full,lossy,on_read,lossy_on_read,shuffle_retry,split,detect_block,detect_limit,shard_queue,per_shard,hotkey]
#          [--loads calm,steady,flare]
# Loads = each hyper-follower's timeline writes/s (the fleet's posts_per_followed_s x 300k):
#   calm   0.002   (600/s:   shards far from load 1; steady write P99 ~ the unloaded tail)
#   steady 0.00455 (1,365/s: the write-up's steady P99 ~15 ms, docs/fanout.md regimes table)
#   flare  0.0075  (2,250/s: full fan-out pages end at Scylla's 2 s write timeout)
# With --follow-growth 1s,30s,5m: scenarios/follow-growth.yaml, one variant per high-follow cache
# refresh (the fleet's and the service's together; docs/fanout.md "The graph during a run").
# With --hot-shard: scenarios/hot-shard.yaml, full and lossy. With --whole-system:
# scenarios/shared-cluster.yaml's four variants (docs/whole-system.md).
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=1..8 jobs=2 out=compare-fanout against=""
policies=full,lossy,on_read,lossy_on_read,shuffle_retry,split,detect_block,detect_limit,shard_queue,per_shard,hotkey
loads=calm,steady,flare growth="" whole="" hot=""
skysim=${SKYSIM:-build/default/app/skysim}
while (($#)); do
  case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --against) against=$2; shift 2 ;;
    --policies) policies=$2; shift 2 ;;
    --loads) loads=$2; shift 2 ;;
    --follow-growth) growth=$2; shift 2 ;;
    --whole-system) whole=1; shift ;;
    --hot-shard) hot=1; shift ;;
    *) echo "$0: unknown argument '$1' (see the usage at the top)" >&2; exit 2 ;;
  esac
done
[[ -x $skysim ]] || { echo "$0: no skysim at $skysim (build first: scripts/build.sh)" >&2; exit 2; }
[[ -z $against || -r $against ]] || { echo "$0: cannot read --against $against" >&2; exit 2; }
declare -A ppf=([calm]=0.002 [steady]=0.00455 [flare]=0.0075)
pages=datacenters.east.services.fanout.program.handlers.post.0.follower_pages
flag=$pages.do.0.lossy_filter.enabled
reads=datacenters.east.services.fanout.program.handlers.read.0.read_set
readcall=datacenters.east.services.fanout.program.handlers.read.1.errgroup.do.0.call
fleet=datacenters.east.services.fleet.params
db=datacenters.east.services.timelines.params
det=datacenters.east.services.detector.params
variants=()
file=scenarios/fanout-policies.yaml
caption="policies ${policies} x loads ${loads}"
IFS=, read -ra pols <<<"$policies"
IFS=, read -ra lds <<<"$loads"
if [[ -n $growth ]]; then
  file=scenarios/follow-growth.yaml
  caption="follow-growth: refreshes ${growth}"
  IFS=, read -ra refreshes <<<"$growth"
  for r in "${refreshes[@]}"; do
    variants+=(--variant "refresh-$r: $fleet.cache_refresh=$r $pages.do.0.lossy_filter.refresh=$r")
  done
  lds=()  # no policy x load grid
elif [[ -n $whole ]]; then
  file=scenarios/shared-cluster.yaml
  caption="whole system: variants full,lossy,full_no_outage,lossy_no_outage"
  for v in full lossy full_no_outage lossy_no_outage; do variants+=(--variant "$v: variant=$v"); done
  lds=()
elif [[ -n $hot ]]; then
  file=scenarios/hot-shard.yaml
  caption="hot-shard: policies full,lossy"
  for v in full lossy; do variants+=(--variant "$v: variant=$v"); done
  lds=()
fi
for load in "${lds[@]}"; do
  [[ -n ${ppf[$load]:-} ]] || { echo "$0: unknown load '$load' (calm, steady, flare)" >&2; exit 2; }
  for pol in "${pols[@]}"; do
    extra=""
    case $pol in
      full) on=false fleet_pol=full threshold=0 ;;
      shuffle_retry) on=false fleet_pol=full threshold=0
        extra="$db.placement=shuffle_shard $db.speculative_retry=10ms" ;;
      detect_block | detect_limit) on=false fleet_pol=full threshold=0
        extra="$det.enabled=true $det.action=${pol#detect_}" ;;
      shard_queue) on=false fleet_pol=full threshold=0 extra="$pages.do.2.shard_queue.enabled=true" ;;
      per_shard) on=false fleet_pol=full threshold=1M
        extra="$pages.on_read=per_shard $pages.cluster=db $reads.on_read=per_shard $reads.cluster=db" ;;
      split) on=false fleet_pol=full threshold=0
        extra="$pages.split_follows=1000 $reads.split_follows=1000 $fleet.split_follows=1000" ;;
      hotkey) on=false fleet_pol=full threshold=0
        extra="$db.hot_keys=true $readcall.hot_cache=1s" ;;
      lossy) on=true fleet_pol=lossy threshold=0 ;;
      on_read) on=false fleet_pol=full threshold=1M ;;
      lossy_on_read) on=true fleet_pol=lossy threshold=1M ;;
      *) echo "$0: unknown policy '$pol' (full, lossy, on_read, lossy_on_read, shuffle_retry, split, detect_block, detect_limit, shard_queue, per_shard, hotkey)" >&2
         exit 2 ;;
    esac
    variants+=(--variant "$pol/$load: $flag=$on $pages.on_read_threshold=$threshold $reads.on_read_threshold=$threshold $fleet.policy=$fleet_pol $fleet.posts_per_followed_s=${ppf[$load]}${extra:+ $extra}")
  done
done
start=$SECONDS
"$skysim" compare "$file" "${variants[@]}" --seeds "$seeds" --jobs "$jobs" --no-plots \
  --out "$out" >/dev/null
wall=$((SECONDS - start))
python3 scripts/fanout_composition_table.py ${against:+"$against"} "$out/runs.jsonl" \
  ${whole:+--whole-system} "${caption} x seeds ${seeds}, --jobs ${jobs}: ${wall} s wall" \
  >"$out/table.md"
echo "compare-fanout.sh: ${wall} s wall; $out/table.md"
