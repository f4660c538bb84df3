#!/usr/bin/env bash
# Set up, build, and run the main job: the April 2026 outage replay, then its report (one HTML
# page with the data plane go-service's panels) and screenshots of it (report.png, panels/*.png).
# Extra arguments go to `skysim run` (e.g. --set ... --out DIR); the report follows --out.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh default skysim
out=runs/april-2026-outage-1
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --out) out=${args[i + 1]:-$out} ;;
    --out=*) out=${args[i]#--out=} ;;
    --seed) out=runs/april-2026-outage-${args[i + 1]:-1} ;;
  esac
done
./build/default/app/skysim run scenarios/april-2026-outage.yaml "$@"
./build/default/app/skysim report "$out"
bash scripts/report-screenshots.sh "$out"
