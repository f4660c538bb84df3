#!/usr/bin/env bash
# Screenshots of `skysim report RUN_DIR`'s page as headless Chromium renders it (1280 px wide):
# OUT_DIR/report.png from the top of the page to the last panel, OUT_DIR/panels/KIND-SERIES.png
# one per panel, and OUT_DIR/report-dom.html (the DOM after layout, with each panel's position).
# Writes RUN_DIR/report.html first when it is missing.
#   scripts/report-screenshots.sh RUN_DIR [OUT_DIR (default RUN_DIR)] [SKYSIM]
set -euo pipefail
run=${1:?usage: report-screenshots.sh RUN_DIR [OUT_DIR] [SKYSIM]}
out=${2:-$run}
here=$(cd "$(dirname "$0")" && pwd)
skysim=${3:-$here/../build/default/app/skysim}
command -v chromium >/dev/null || { echo "report-screenshots: chromium not installed (scripts/setup-debian.sh)" >&2; exit 77; }
[[ -f $run/report.html ]] || "$skysim" report "$run" >/dev/null
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A copy of the page with a script that records where each panel landed (the report has none).
python3 "$here/report_png.py" probe "$run/report.html" "$tmp/probe.html"
# Flags for a closed network (without them Chromium dials Google's hosts); a fresh profile.
chrome() {
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --force-device-scale-factor=1 --hide-scrollbars --user-data-dir="$tmp/profile" "$@" \
    "file://$tmp/probe.html" 2>>"$tmp/chromium.log"
}
chrome --window-size=1280,1000 --dump-dom >"$out/report-dom.html" ||
  { echo "report-screenshots: chromium --dump-dom failed:" >&2; tail -5 "$tmp/chromium.log" >&2; exit 1; }
height=$(python3 "$here/report_png.py" height "$out/report-dom.html")
chrome --window-size=1280,"$height" --screenshot="$out/report.png" >/dev/null ||
  { echo "report-screenshots: chromium --screenshot failed:" >&2; tail -5 "$tmp/chromium.log" >&2; exit 1; }
[[ -s $out/report.png ]] || { echo "report-screenshots: no screenshot written" >&2; exit 1; }
python3 "$here/report_png.py" crop "$out/report-dom.html" "$out/report.png" "$out/panels" >/dev/null
echo "report-screenshots: wrote $out/report.png and $(ls "$out/panels" | wc -l) panels in $out/panels"
