#!/usr/bin/env bash
# Speed of the April data plane's composition against the dataplane kind (issue 26's <= 1.3x;
# docs/benchmarks.md): one Monday hour at full host size, the runs of
# scripts/compare-april-composition.sh, but one at a time and interleaved -- for each seed the
# kind and then the composition, so each pair sees nearly the same machine load.
# Prints one TSV line per run: seed, kind|composed, user CPU s, wall s, peak RSS KB, events,
# fingerprint; then the per-seed ratios composed/kind of user CPU and their median.
# Usage: scripts/bench-april-composition.sh [SEEDS, default "1 2 3"] [SKYSIM]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-1 2 3} bin=${2:-build/default/app/skysim}
[[ -x $bin ]] || { echo "$0: no skysim at $bin (build first: scripts/build.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
monday=2026-04-06T08:00:00Z
source scripts/april-east-replay.sh
april_east_replay $monday
kind_args=(scenarios/april-2026-outage.yaml --set epoch=$monday --set 'timeline=[]'
  --set duration=1h "${april_east_replay[@]}")
composed_args=(scenarios/april-in-yaml.yaml --set epoch=$monday --set duration=1h)
printf 'seed\twhich\tuser_s\twall_s\tpeak_rss_kb\tevents\tfingerprint\n' | tee "$tmp/tsv"
for seed in $seeds; do
  for which in kind composed; do
    if [[ $which == kind ]]; then args=("${kind_args[@]}"); else args=("${composed_args[@]}"); fi
    /usr/bin/time -f "%U %e %M" -o "$tmp/time" "$bin" run "${args[@]}" --seed "$seed" \
      --out "$tmp/out" --quiet >"$tmp/fp" 2>&1
    read -r u e m <"$tmp/time"
    events=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['events'])" \
      "$tmp/out/summary.json")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$seed" "$which" "$u" "$e" "$m" "$events" \
      "$(awk '{print $2}' "$tmp/fp")" | tee -a "$tmp/tsv"
  done
done
python3 - "$tmp/tsv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
by = {}
for r in rows:
    by.setdefault(r["seed"], {})[r["which"]] = float(r["user_s"])
ratios = [v["composed"] / v["kind"] for v in by.values() if "kind" in v and "composed" in v]
for seed, v in by.items():
    print(f"seed {seed}: composed/kind user CPU {v['composed'] / v['kind']:.2f}x")
print(f"median ratio {statistics.median(ratios):.2f}x over {len(ratios)} seeds")
PY
