#!/usr/bin/env bash
# Prints tests/fuzz/goldens.txt afresh from `skysim run` fingerprints (run from the repo root):
#   bash tests/fuzz/update_goldens.sh build/<dir>/app/skysim > tests/fuzz/goldens.txt
# Only do this on purpose, after checking why the trajectories changed.
set -euo pipefail
skysim=${1:?usage: update_goldens.sh path/to/skysim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# Golden fingerprints: scenario seed fingerprint (skysim run FILE --seed N)."
echo "# A change that alters any trajectory fails test_fuzz until these are updated on purpose:"
echo "#   bash tests/fuzz/update_goldens.sh build/<dir>/app/skysim > tests/fuzz/goldens.txt"
echo "# and say in the commit message why the trajectories changed."
for f in demo validation-md1 validation-mm1 validation-mmc validation-mmck; do
  for s in 1 2 3; do
    fp=$("$skysim" run "scenarios/$f.yaml" --seed "$s" --quiet --out "$tmp/$f-$s" |
         awk '/^fingerprint/{print $2}')
    echo "scenarios/$f.yaml $s $fp"
  done
done
