#!/usr/bin/env bash
# Paired speed comparison of two skysim binaries on scenarios/fanout-policies.yaml (docs/
# benchmarks.md, h-fanspeed): for each load x policy, REPS pairs; in a pair both binaries run the
# same seed-1 run at the same time, so they see the same machine load. Prints one TSV line per
# run: load, policy, rep, old|new, CPU s (user + sys), wall s, fingerprint, load average.
# Usage: scripts/bench-fanout-pairs.sh OLD NEW REPS "full lossy ..." "flare calm ..."
set -euo pipefail
cd "$(dirname "$0")/.."
(($# == 5)) || { echo "usage: $0 OLD NEW REPS POLICIES LOADS" >&2; exit 2; }
old=$1 new=$2 reps=$3 pols=$4 loads=$5
p=datacenters.east.services.timelines.params
declare -A ppf=([calm]=0.002 [steady]=0.00455 [flare]=0.0075)  # as scripts/compare-fanout.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for load in $loads; do
  [[ -n ${ppf[$load]:-} ]] || { echo "$0: unknown load '$load' (calm, steady, flare)" >&2; exit 2; }
  for pol in $pols; do
    for rep in $(seq 1 "$reps"); do
      for which in old new; do
        bin=$old; [[ $which == new ]] && bin=$new
        /usr/bin/time -f "%U %S %e" -o "$tmp/time-$which" "$bin" run scenarios/fanout-policies.yaml \
          --seed 1 --set "$p.policy=$pol" --set "$p.posts_per_followed_s=${ppf[$load]}" \
          --out "$tmp/out-$which" --quiet >"$tmp/fp-$which" 2>&1 &
      done
      wait
      la=$(cut -d' ' -f1 /proc/loadavg)
      for which in old new; do
        read -r u s e <"$tmp/time-$which"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$load" "$pol" "$rep" "$which" \
          "$(echo "$u + $s" | bc)" "$e" "$(awk '{print $2}' "$tmp/fp-$which")" "$la"
      done
    done
  done
done
