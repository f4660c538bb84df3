#!/usr/bin/env bash
# The April data plane, the dataplane kind against its composition (issue 26; the table of
# docs/april-2026.md, "As a composition"): one Monday hour at full host size, the batch client
# at 0.05/s, the same seeds for both, then scripts/april_composition_table.py.
# The replay runs without its timeline and its west user sources (so its users' latency
# histograms are the east host's, as the composition's are); the composition has no timeline.
# --scale S runs both at scale S instead of the full host (the composition scales its host's
# amounts as the kind does: docs/scenarios.md, "Scale").
# Usage: scripts/compare-april-composition.sh [--seeds 1..8] [--jobs 2] [--out DIR] [--skysim BIN]
#        [--scale S] [--variant NAME] [--duration D] [--set PATH=VALUE]...
# --variant names a variant both files have (postmortem); --set is passed to both runs.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=1..8 jobs=2 out=compare-april-composition bin=build/default/app/skysim scale=1
duration=1h extra=()
while (($#)); do
  case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --skysim) bin=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --variant) extra+=(--set "variant=$2"); shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --set) extra+=(--set "$2"); shift 2 ;;
    *) echo "$0: unknown argument '$1' (--seeds, --jobs, --out, --skysim, --scale, --variant," \
         "--duration, --set)" >&2; exit 2 ;;
  esac
done
[[ -x $bin ]] || { echo "$0: no skysim at $bin (build first: scripts/build.sh)" >&2; exit 2; }
monday=2026-04-06T08:00:00Z
source scripts/april-east-replay.sh
april_east_replay $monday
"$bin" compare scenarios/april-2026-outage.yaml --seeds "$seeds" -j "$jobs" --no-plots \
  --out "$out/replay" --set epoch=$monday --set 'timeline=[]' --set duration="$duration" \
  "${april_east_replay[@]}" --set scale="$scale" "${extra[@]}" >/dev/null
"$bin" compare scenarios/april-in-yaml.yaml --seeds "$seeds" -j "$jobs" --no-plots \
  --out "$out/composed" --set epoch=$monday --set duration="$duration" --set scale="$scale" \
  "${extra[@]}" >/dev/null
python3 scripts/april_composition_table.py "$out/replay/compare.csv" "$out/composed/compare.csv"
