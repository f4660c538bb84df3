#!/usr/bin/env bash
# Set up, build, and run the main job: the April 2026 outage replay.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh default skysim
if [[ -f scenarios/april-2026-outage.yaml ]]; then
  ./build/default/skysim run scenarios/april-2026-outage.yaml "$@"
else
  ./build/default/skysim run scenarios/demo.yaml "$@"
fi
