#!/usr/bin/env bash
# Builds build/release/app/skysim with profile-guided optimisation: an instrumented build
# (preset pgo-generate), training runs of the shipped scenarios and PHOLD, then the optimised
# build (preset release), which must give the training runs' fingerprints. For long sweeps and
# benchmarks (docs/benchmarks.md, "The release build"); the test suite uses the default build.
# Takes about three times a default build of skysim. Usage: build-release.sh
set -euo pipefail
cd "$(dirname "$0")/.."
profiles=build/pgo-profile
train=$(mktemp -d)
trap 'rm -rf "$train"' EXIT

bash scripts/build.sh pgo-generate skysim
rm -rf "$profiles"

# What the runs users time spend their events on: the April replay (its quiet start and the
# Monday hour at full host size), the fan-out's hot shards, interning, the shared cluster, and
# the kernel alone. Short windows: the instrumented binary is ~2x slower.
runs=(
  "scenarios/april-2026-outage.yaml --until 24h"
  "scenarios/april-2026-outage.yaml --set variant=monday --until 10min"
  "scenarios/hot-shard.yaml --until 60s"
  "scenarios/uid-interning.yaml"
  "scenarios/shared-cluster.yaml --until 60s"
)
fingerprint() {  # the run's fingerprint, from its last line
  local bin=$1 out=$2
  shift 2
  # shellcheck disable=SC2086  # a run's arguments are words
  "$bin" run $* --quiet --out "$out" | awk '/^fingerprint/ {print $2}'
}
declare -a trained
for i in "${!runs[@]}"; do
  echo "training: skysim run ${runs[i]}"
  trained[i]=$(fingerprint build/pgo-generate/app/skysim "$train/gen-$i" "${runs[i]}")
done
build/pgo-generate/app/skysim bench phold --lps 1024 --until 200 >/dev/null
build/pgo-generate/app/skysim bench phold --lps 65536 --until 20 >/dev/null

# Ninja does not know objects depend on the profiles: rebuild them all.
bash scripts/build.sh release clean >/dev/null
bash scripts/build.sh release skysim

for i in 1 2; do  # the Monday hour's start and hot-shard: same binary semantics, same trajectory
  got=$(fingerprint build/release/app/skysim "$train/use-$i" "${runs[i]}")
  if [[ -z $got || $got != "${trained[i]}" ]]; then
    echo "build-release: skysim run ${runs[i]} gives fingerprint '$got' optimised," \
      "'${trained[i]}' instrumented" >&2
    exit 1
  fi
done
echo "build/release/app/skysim: optimised with profiles in $profiles; fingerprints checked"
