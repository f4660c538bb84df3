#!/usr/bin/env bash
# The inputs that set the April replay's OOM cadence, swept one at a time with the others at the
# replay's values (docs/april-2026.md, "What sets the cadence"): Monday 08:00 + 2 h of
# scenarios/april-2026-outage.yaml at its default size, the batch client at the given rate from
# 08:00, no timeline, seed 1. Prints one Markdown row per run.
#   bash scripts/april-cadence-sweep.sh path/to/skysim OUT_DIR [JOBS]
set -euo pipefail
skysim=$(realpath "${1:?usage: april-cadence-sweep.sh SKYSIM OUT_DIR [JOBS]}")
out=${2:?usage: april-cadence-sweep.sh SKYSIM OUT_DIR [JOBS]}
jobs=${3:-2}
cd "$(dirname "$0")/.."
mkdir -p "$out"
p=datacenters.east.services.dataplane.params
# label | batch rate | extra --set (space-separated, none with spaces)
runs=(
  "batch rate 0.05/s (the replay)|0.05/s|"
  "batch rate 0.3/s|0.3/s|"
  "batch rate 0.6/s|0.6/s|"
  "batch rate 1/s|1/s|"
  "0.6/s, errors counted (log_policy=count)|0.6/s|$p.log_policy=count"
  "memory_limit 2.5 GiB|0.05/s|$p.memory_limit=2.5GiB"
  "memory_limit 2.3 GiB|0.05/s|$p.memory_limit=2.3GiB"
  "memory_limit 2.2 GiB|0.05/s|$p.memory_limit=2.2GiB"
  "memory_limit 2.1 GiB|0.05/s|$p.memory_limit=2.1GiB"
  "log_drain 1 MB/s|0.05/s|$p.log_drain=1MB"
  "log_drain 500 kB/s|0.05/s|$p.log_drain=500kB"
  "log_drain 250 kB/s|0.05/s|$p.log_drain=250kB"
  "log_drain 50 kB/s|0.05/s|$p.log_drain=50kB"
  "log_drain 25 kB/s|0.05/s|$p.log_drain=25kB"
  "0.6/s, crash_loop_backoff|0.6/s|$p.restart_policy=crash_loop_backoff"
)
for i in "${!runs[@]}"; do
  IFS='|' read -r label rate extra <<<"${runs[i]}"
  sets=(--set epoch=2026-04-06T08:00:00Z --set duration=2h --set 'timeline=[]'
        --set sources.batch-service.start=2026-04-06T08:00:00Z --set "sources.batch-service.rate=$rate")
  for e in $extra; do sets+=(--set "$e"); done
  printf '%s\0' "$skysim run scenarios/april-2026-outage.yaml --seed 1 --quiet --out $out/run$i $(printf "%q " "${sets[@]}")"
done | xargs -0 -P "$jobs" -I{} bash -c '{} > /dev/null'
echo "| input (others at the replay's) | OOM kills in 2 h | median up-time | peak threads (simulated) | restarts into TIME_WAIT | app users failed, east | events |"
echo "|---|---|---|---|---|---|---|"
for i in "${!runs[@]}"; do
  IFS='|' read -r label _ _ <<<"${runs[i]}"
  python3 - "$out/run$i/summary.json" "$label" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
m = s["metrics"]
def v(k):
    return m[k]["value"] if k in m else 0
H = "{host=east/dataplane/0}"
kills = v("go.oom_kills" + H)
up = v("go.median_uptime_min" + H)
restarts = [p["what"] for p in s["phases"] if p["host"] == "east/dataplane/0" and p["what"].startswith("process restarted")]
into = sum(1 for w in restarts if "; 0 sockets" not in w)
print(f"| {sys.argv[2]} | {kills:.0f} | {f'{up:.1f} min' if kills else 'no kill'} | "
      f"{v('go.threads_peak' + H):.0f} | {into} of {len(restarts)} | "
      f"{v('user.requests.bad{dc=east}'):,.0f} | {s['events'] / 1e6:.1f} M |")
PY
done
