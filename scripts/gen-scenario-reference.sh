#!/bin/sh
# Regenerates docs/scenario-reference.md from the model registry (skysim explain --markdown).
# Usage: scripts/gen-scenario-reference.sh [path/to/skysim]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/default/app/skysim}
"$bin" explain --markdown > "$root/docs/scenario-reference.md"
echo "wrote docs/scenario-reference.md"
