#!/usr/bin/env bash
# Speed of a kind against its composition (issue 26's <= 1.3x target; docs/benchmarks.md):
# for each variant, REPS rounds; in a round the old kind's scenario and the composed one run
# one after the other, seed 1, so they see nearly the same machine load. Prints one TSV line
# per run: variant, rep, kind|composed, user CPU s, wall s, peak RSS KB, events, fingerprint.
# Usage: scripts/bench-composition-pairs.sh KIND.yaml COMPOSED.yaml REPS "variant ..." [skysim]
set -euo pipefail
cd "$(dirname "$0")/.."
(($# >= 4)) || { echo "usage: $0 KIND.yaml COMPOSED.yaml REPS \"VARIANTS\" [SKYSIM]" >&2; exit 2; }
kind=$1 composed=$2 reps=$3 variants=$4 bin=${5:-build/default/app/skysim}
[[ -x $bin ]] || { echo "$0: no skysim at $bin (build first: scripts/build.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'variant\trep\twhich\tuser_s\twall_s\tpeak_rss_kb\tevents\tfingerprint\n'
for variant in $variants; do
  for rep in $(seq 1 "$reps"); do
    for which in kind composed; do
      file=$kind; [[ $which == composed ]] && file=$composed
      /usr/bin/time -f "%U %e %M" -o "$tmp/time" "$bin" run "$file" --seed 1 \
        --set "variant=$variant" --out "$tmp/out" --quiet >"$tmp/fp" 2>&1
      read -r u e m <"$tmp/time"
      events=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['events'])" \
        "$tmp/out/summary.json")
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$variant" "$rep" "$which" "$u" "$e" "$m" \
        "$events" "$(awk '{print $2}' "$tmp/fp")"
    done
  done
done
