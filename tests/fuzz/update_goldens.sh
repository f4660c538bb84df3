#!/usr/bin/env bash
# Rewrites tests/fuzz/goldens.txt (fingerprints and per-model sub-fingerprints of every scenario
# and seed listed there) from the current code, run from the repo root:
#   bash tests/fuzz/update_goldens.sh build/<dir>/fuzz/test_fuzz
# Only do this on purpose, after checking why the trajectories changed (`git diff` on the file
# shows which models changed), and say why in the commit message.
set -euo pipefail
test_fuzz=${1:?usage: update_goldens.sh path/to/test_fuzz}
SKYSIM_UPDATE_GOLDENS=1 "$test_fuzz" "fast scenarios reproduce their golden fingerprints model by model"
