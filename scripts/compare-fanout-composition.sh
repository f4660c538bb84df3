#!/usr/bin/env bash
# The fanout kind against its composition (issue 26, M5; docs/fanout.md "As a composition"):
# scenarios/fanout-policies.yaml and scenarios/fanout-composed.yaml over the same seeds, policy
# x load, then one table per variant (scripts/fanout_composition_table.py) in OUT/table.md, with
# each side's wall time in its caption.
# Usage: scripts/compare-fanout-composition.sh [--seeds 1..8] [--jobs 2] [--out DIR]
#                                  [--policies full,lossy,on_read,lossy_on_read,shuffle_retry,split,detect_block,detect_limit,shard_queue,per_shard,hotkey] [--loads calm,steady,flare]
# Loads as scripts/compare-fanout.sh: each hyper-follower's timeline writes/s over 300k follows
# (calm 0.002, steady 0.00455, flare 0.0075 posts/s per followed account).
# With --follow-growth 1s,30s,5m: the graph during a run instead (docs/fanout.md "The graph
# during a run"), scenarios/follow-growth.yaml against scenarios/follow-growth-composed.yaml, one
# variant per high-follow cache refresh (the fleet's and the service's cache in the composition).
# With --whole-system: scenarios/shared-cluster.yaml (the fanout kind on the data plane's
# cluster) against scenarios/shared-cluster-composed.yaml (every part composed), their four
# variants (docs/whole-system.md). With --hot-shard: scenarios/hot-shard.yaml against
# scenarios/hot-shard-composed.yaml, full and lossy.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=1..8 jobs=2 out=compare-fanout-composition policies=full,lossy,on_read,lossy_on_read,shuffle_retry,split,detect_block,detect_limit,shard_queue,per_shard,hotkey
loads=calm,steady,flare growth="" whole="" hot=""
skysim=${SKYSIM:-build/default/app/skysim}
while (($#)); do
  case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --policies) policies=$2; shift 2 ;;
    --loads) loads=$2; shift 2 ;;
    --follow-growth) growth=$2; shift 2 ;;
    --whole-system) whole=1; shift ;;
    --hot-shard) hot=1; shift ;;
    *) echo "$0: unknown argument '$1' (see the usage at the top)" >&2; exit 2 ;;
  esac
done
[[ -x $skysim ]] || { echo "$0: no skysim at $skysim (build first: scripts/build.sh)" >&2; exit 2; }
declare -A ppf=([calm]=0.002 [steady]=0.00455 [flare]=0.0075)
kind=datacenters.east.services.timelines.params
pages=datacenters.east.services.fanout.program.handlers.post.0.follower_pages
flag=$pages.do.0.lossy_filter.enabled
reads=datacenters.east.services.fanout.program.handlers.read.0.read_set
readcall=datacenters.east.services.fanout.program.handlers.read.1.errgroup.do.0.call
fleet=datacenters.east.services.fleet.params
db=datacenters.east.services.timelines.params
det=datacenters.east.services.detector.params
kind_variants=() comp_variants=()
kind_file=scenarios/fanout-policies.yaml comp_file=scenarios/fanout-composed.yaml
caption="policies ${policies} x loads ${loads}"
IFS=, read -ra pols <<<"$policies"
IFS=, read -ra lds <<<"$loads"
if [[ -n $growth ]]; then
  kind_file=scenarios/follow-growth.yaml comp_file=scenarios/follow-growth-composed.yaml
  caption="follow-growth: refreshes ${growth}"
  IFS=, read -ra refreshes <<<"$growth"
  for r in "${refreshes[@]}"; do
    kind_variants+=(--variant "refresh-$r: $kind.cache_refresh=$r")
    comp_variants+=(--variant "refresh-$r: $fleet.cache_refresh=$r $pages.do.0.lossy_filter.refresh=$r")
  done
  lds=()  # no policy x load grid
elif [[ -n $whole ]]; then
  kind_file=scenarios/shared-cluster.yaml comp_file=scenarios/shared-cluster-composed.yaml
  caption="whole system: variants full,lossy,full_no_outage,lossy_no_outage"
  for v in full lossy full_no_outage lossy_no_outage; do
    kind_variants+=(--variant "$v: variant=$v")
    comp_variants+=(--variant "$v: variant=$v")
  done
  lds=()
elif [[ -n $hot ]]; then
  kind_file=scenarios/hot-shard.yaml comp_file=scenarios/hot-shard-composed.yaml
  caption="hot-shard: policies full,lossy"
  for v in full lossy; do
    kind_variants+=(--variant "$v: $kind.policy=$v")
    comp_variants+=(--variant "$v: variant=$v")
  done
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
      *) echo "$0: policy '$pol' has no composition (full, lossy, on_read, lossy_on_read, shuffle_retry, split, detect_block, detect_limit, shard_queue, per_shard, hotkey)" >&2
         exit 2 ;;
    esac
    kind_variants+=(--variant "$pol/$load: $kind.policy=$pol $kind.posts_per_followed_s=${ppf[$load]}")
    comp_variants+=(--variant "$pol/$load: $flag=$on $pages.on_read_threshold=$threshold $reads.on_read_threshold=$threshold $fleet.policy=$fleet_pol $fleet.posts_per_followed_s=${ppf[$load]}${extra:+ $extra}")
  done
done
start=$SECONDS
"$skysim" compare "$kind_file" "${kind_variants[@]}" --seeds "$seeds" \
  --jobs "$jobs" --no-plots --out "$out/kind" >/dev/null
kind_wall=$((SECONDS - start))
start=$SECONDS
"$skysim" compare "$comp_file" "${comp_variants[@]}" --seeds "$seeds" \
  --jobs "$jobs" --no-plots --out "$out/composed" >/dev/null
comp_wall=$((SECONDS - start))
python3 scripts/fanout_composition_table.py "$out/kind/runs.jsonl" "$out/composed/runs.jsonl" \
  ${whole:+--whole-system} \
  "${caption} x seeds ${seeds}, --jobs ${jobs}: kind ${kind_wall} s," \
  "composition ${comp_wall} s wall" >"$out/table.md"
echo "compare-fanout-composition.sh: kind ${kind_wall} s, composition ${comp_wall} s; $out/table.md"
