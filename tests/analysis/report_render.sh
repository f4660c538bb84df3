#!/usr/bin/env bash
# `skysim report` of a short April window (3 h around Monday's band-aid), rendered by headless
# Chromium as a reader opens it (scripts/report-screenshots.sh): every panel the dataplane kind
# declares is painted (its series' colours in its chart, from the screenshot) and carries its
# series with points and the band-aid marker (from the DOM). Exit 77 (skipped) without chromium.
#   tests/analysis/report_render.sh path/to/skysim
set -euo pipefail
skysim=$(realpath "${1:?usage: report_render.sh SKYSIM}")
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v chromium >/dev/null || { echo "SKIP: report_render_april: chromium is not installed, so the report cannot be rendered (scripts/setup-debian.sh installs it)" | tee /dev/stderr; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The window: Monday 15:00-18:00Z with Monday's batch rate, and the band-aid at 17:00 (7200 s).
"$skysim" run "$src/scenarios/april-2026-outage.yaml" --quiet --out "$work/run" \
  --set epoch=2026-04-06T15:00:00Z --set duration=3h \
  --set sources.batch-service.start=2026-04-06T15:00:00Z --set sources.batch-service.rate=0.05/s \
  --set 'timeline=[{at: 2026-04-06T17:00:00Z, note: "band-aid: random 127.x.y.z source address", set: {datacenters.east.services.dataplane.params.dialer: random_loopback, datacenters.west.services.dataplane.params.dialer: random_loopback}}]'
"$skysim" report "$work/run" >/dev/null
"$skysim" explain dataplane >"$work/explain.txt"
bash "$src/scripts/report-screenshots.sh" "$work/run" "$work/shots" "$skysim"
python3 "$src/scripts/report_png.py" check "$work/shots/report-dom.html" "$work/shots/report.png" \
  "$work/explain.txt" dataplane 7200
