#!/usr/bin/env bash
# Runs testbed cases several times, one after another (never in parallel: the runs would share
# the cores and disturb each other), and writes the table of docs/testbed.md.
#   bash scripts/testbed-cases.sh OUT RUNS SECONDS CASE...
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 4 ]] || { sed -n 2,4p "$0" >&2; exit 2; }
out=$1 runs=$2 seconds=$3
shift 3
[[ $runs =~ ^[0-9]+$ && $runs -ge 1 && $runs -le 10 ]] || { echo "RUNS must be 1..10" >&2; exit 2; }
for c in "$@"; do
  for ((r = 1; r <= runs; r++)); do
    echo "== $c run $r"
    bash "$src/scripts/testbed.sh" "$c" --seconds "$seconds" --seed "$r" --out "$out/$c/run$r" > /dev/null
  done
done
python3 "$src/testbed/table.py" "$out" "$@" | tee "$out/table.md"
