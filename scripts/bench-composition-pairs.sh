#!/usr/bin/env bash
# Speed of a kind against its composition (issue 26's <= 1.3x target; docs/benchmarks.md):
# for each variant, seed and rep, the old kind's scenario and the composed one run one after
# the other (which goes first alternates with the rep), so they see nearly the same machine
# load. Prints one TSV line per run: variant, seed, rep, kind|composed, user CPU s, wall s, peak
# RSS KB, events, fingerprint; scripts/bench_pairs_summary.py turns it into medians of the
# per-pair ratios.
# Usage: scripts/bench-composition-pairs.sh KIND.yaml COMPOSED.yaml REPS "variant ..." [SKYSIM]
#   SEEDS="1 2 3"   seeds to run (default: 1). Several seeds average out what one seed's draw
#                   costs (the follow graph is drawn from streams named after its service, so the
#                   two sides draw different samples of the same population).
#   A variant written NAME:KIND_SET:COMPOSED_SET runs the kind with `--set KIND_SET` and the
#   composition with `--set COMPOSED_SET` (either may be empty: the scenario as written), for
#   files without matching variants; a plain NAME is `--set variant=NAME` on both.
set -euo pipefail
cd "$(dirname "$0")/.."
(($# >= 4)) || { echo "usage: $0 KIND.yaml COMPOSED.yaml REPS \"VARIANTS\" [SKYSIM]" >&2; exit 2; }
kind=$1 composed=$2 reps=$3 variants=$4 bin=${5:-build/default/app/skysim}
seeds=${SEEDS:-1}
[[ -x $bin ]] || { echo "$0: no skysim at $bin (build first: scripts/build.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_one() {  # variant seed rep which file set
  local args=(run "$5" --seed "$2" --out "$tmp/out" --quiet)
  [[ -n $6 ]] && args+=(--set "$6")
  if ! /usr/bin/time -f "%U %e %M" -o "$tmp/time" "$bin" "${args[@]}" >"$tmp/fp" 2>&1; then
    echo "$0: '$bin ${args[*]}' failed:" >&2
    cat "$tmp/fp" >&2
    exit 1
  fi
  local u e m events
  read -r u e m <"$tmp/time"
  events=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['events'])" \
    "$tmp/out/summary.json")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$u" "$e" "$m" "$events" \
    "$(awk '{print $2}' "$tmp/fp")"
}
printf 'variant\tseed\trep\twhich\tuser_s\twall_s\tpeak_rss_kb\tevents\tfingerprint\n'
for variant in $variants; do
  name=$variant kind_set="variant=$variant" comp_set="variant=$variant"
  if [[ $variant == *:* ]]; then
    IFS=: read -r name kind_set comp_set <<<"$variant"
  fi
  for seed in $seeds; do
    for rep in $(seq 1 "$reps"); do
      order=(kind composed)
      ((rep % 2 == 0)) && order=(composed kind)
      for which in "${order[@]}"; do
        if [[ $which == kind ]]; then
          run_one "$name" "$seed" "$rep" kind "$kind" "$kind_set"
        else
          run_one "$name" "$seed" "$rep" composed "$composed" "$comp_set"
        fi
      done
    done
  done
done
