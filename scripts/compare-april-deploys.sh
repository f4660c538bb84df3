#!/usr/bin/env bash
# The April replay's deploy windows, the dataplane kind beside its composition over seeds
# (docs/april-2026.md, "Its timeline: deploys"): Monday 16:00-19:00 with the band-aid shipped
# at 17:00, and Wednesday 14:00-18:00 with the band-aid in place, SetLimit(50) at 15:00 and the
# band-aid removed at 17:00. The kind runs at scale 1 with the same timeline entries and the
# west's user sources off (so the east host's figures are compared); the composition runs its
# `bandaid` and `wednesday` variants. Then scripts/april_window_table.py per window.
# Usage: scripts/compare-april-deploys.sh [--seeds "1 2 3 4"] [--jobs 2] [--out DIR] [--skysim BIN]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="1 2 3 4" jobs=2 out=compare-april-deploys bin=build/default/app/skysim
while (($#)); do
  case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --skysim) bin=$2; shift 2 ;;
    *) echo "$0: unknown argument '$1' (--seeds, --jobs, --out, --skysim)" >&2; exit 2 ;;
  esac
done
[[ -x $bin ]] || { echo "$0: no skysim at $bin (build first: scripts/build.sh)" >&2; exit 2; }
mkdir -p "$out"
E=datacenters.east.services.dataplane.params
X=datacenters.west.services.dataplane.params
source scripts/april-east-replay.sh
monday=2026-04-06T16:00:00Z wednesday=2026-04-08T14:00:00Z
jobs_file=$out/jobs
: >"$jobs_file"
for seed in $seeds; do
  april_east_replay $monday
  printf '%s\0' "$bin run scenarios/april-2026-outage.yaml --seed $seed --quiet --out $out/bandaid-kind-$seed \
--set epoch=$monday --set duration=3h ${april_east_replay[*]} \
--set 'timeline=[{at: \"2026-04-06T17:00:00Z\", set: {$E.dialer: random_loopback, $X.dialer: random_loopback}}]'" >>"$jobs_file"
  printf '%s\0' "$bin run scenarios/april-in-yaml.yaml --seed $seed --quiet --out $out/bandaid-composed-$seed \
--set variant=bandaid" >>"$jobs_file"
  april_east_replay $wednesday
  printf '%s\0' "$bin run scenarios/april-2026-outage.yaml --seed $seed --quiet --out $out/wednesday-kind-$seed \
--set epoch=$wednesday --set duration=4h ${april_east_replay[*]} \
--set $E.dialer=random_loopback --set $X.dialer=random_loopback \
--set 'timeline=[{at: \"2026-04-08T15:00:00Z\", set: {$E.get_post_record_limit: 50, $X.get_post_record_limit: 50}}, \
{at: \"2026-04-08T17:00:00Z\", set: {$E.dialer: fixed_source, $X.dialer: fixed_source}}]'" >>"$jobs_file"
  printf '%s\0' "$bin run scenarios/april-in-yaml.yaml --seed $seed --quiet --out $out/wednesday-composed-$seed \
--set variant=wednesday" >>"$jobs_file"
done
xargs -0 -P "$jobs" -I{} bash -c '{} >/dev/null' <"$jobs_file"
for window in bandaid wednesday; do
  kinds=() composed=()
  for seed in $seeds; do
    kinds+=("$out/$window-kind-$seed") composed+=("$out/$window-composed-$seed")
  done
  echo "$window:"
  python3 scripts/april_window_table.py "$(IFS=,; echo "${kinds[*]}")" "$(IFS=,; echo "${composed[*]}")"
done
