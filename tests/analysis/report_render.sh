#!/usr/bin/env bash
# `skysim report` of a short April window (3 h around Monday's band-aid), rendered by headless
# Chromium as a reader opens it: every panel the dataplane kind declares is painted (its series'
# colours in its chart, from a screenshot) and carries its series with points and the band-aid
# marker (from the DOM). Exit 77 (skipped) without chromium.
#   tests/analysis/report_render.sh path/to/skysim
set -euo pipefail
skysim=$(realpath "${1:?usage: report_render.sh SKYSIM}")
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
command -v chromium >/dev/null || { echo "chromium not installed (scripts/setup-debian.sh): skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The window: Monday 15:00-18:00Z with Monday's batch rate, and the band-aid at 17:00 (7200 s).
"$skysim" run "$src/scenarios/april-2026-outage.yaml" --quiet --out "$work/run" \
  --set epoch=2026-04-06T15:00:00Z --set duration=3h \
  --set sources.batch-service.start=2026-04-06T15:00:00Z --set sources.batch-service.rate=0.05/s \
  --set 'timeline=[{at: 2026-04-06T17:00:00Z, note: "band-aid: random 127.x.y.z source address", set: {datacenters.east.services.dataplane.params.dialer: random_loopback, datacenters.west.services.dataplane.params.dialer: random_loopback}}]'
"$skysim" report "$work/run" >/dev/null
"$skysim" explain dataplane >"$work/explain.txt"
python3 "$here/report_render.py" probe "$work/run/report.html" "$work/run/probe.html"

# Flags for a closed network (without them Chromium dials Google's hosts); a fresh profile.
chrome() {
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --force-device-scale-factor=1 --hide-scrollbars --user-data-dir="$work/profile" "$@" \
    "file://$work/run/probe.html" 2>>"$work/chromium.log"
}
chrome --window-size=1280,1000 --dump-dom >"$work/dom.html"
height=$(python3 "$here/report_render.py" height "$work/dom.html")
chrome --window-size=1280,"$height" --screenshot="$work/shot.png" >/dev/null
[[ -s $work/shot.png ]] || { echo "report_render: FAIL: no screenshot"; tail -5 "$work/chromium.log"; exit 1; }
python3 "$here/report_render.py" check "$work/dom.html" "$work/shot.png" "$work/explain.txt" dataplane 7200
