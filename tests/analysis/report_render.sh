#!/usr/bin/env bash
# `skysim report` of a short April window (3 h around Monday's band-aid), rendered by headless
# Chromium as a reader opens it (scripts/report-screenshots.sh): every panel the go-service kind
# declares is painted (its series' colours in its chart, from the screenshot) and carries its
# series with points and the band-aid marker (from the DOM). Exit 77 (skipped) without chromium.
#   tests/analysis/report_render.sh path/to/skysim
set -euo pipefail
skysim=$(realpath "${1:?usage: report_render.sh SKYSIM}")
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v chromium >/dev/null || { echo "SKIP: report_render_april: chromium is not installed, so the report cannot be rendered (scripts/setup-debian.sh installs it)" | tee /dev/stderr; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The window: the file's `bandaid` variant, Monday 16:00-19:00Z with Monday's batch rate and
# the band-aid deployed at 17:00 (3600 s).
"$skysim" run "$src/scenarios/april-2026-outage.yaml" --quiet --out "$work/run" --set variant=bandaid
"$skysim" report "$work/run" >/dev/null
"$skysim" explain go-service >"$work/explain.txt"
bash "$src/scripts/report-screenshots.sh" "$work/run" "$work/shots" "$skysim"
python3 "$src/scripts/report_png.py" check "$work/shots/report-dom.html" "$work/shots/report.png" \
  "$work/explain.txt" go-service 3600
