#!/usr/bin/env bash
# `skysim report --metastability` on a demo run: the scenario's own triggers (the batch client
# stops at 00:04, the crashed host restarts at 00:07:30) are found and analysed, the JSON is
# written, and with --trigger-end the explicit trigger is used. Usage: metastability_demo.sh SKYSIM
set -euo pipefail
skysim=$(realpath "${1:?usage: metastability_demo.sh PATH/TO/skysim}")
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$skysim" run "$src/scenarios/demo.yaml" --quiet --out run > /dev/null
"$skysim" report --metastability run > auto.txt
fail=0
for want in "source batch stops" "crash of east/web/1 heals" "returned to band\|returned" \
            "wrote run/metastability.json"; do
  if ! grep -q "$want" auto.txt; then
    echo "FAIL: '$want' not in the report:"
    cat auto.txt
    fail=1
  fi
done
grep -q '"stayed_degraded"' run/metastability.json || { echo "FAIL: no JSON"; fail=1; }
# The crash: host 1's served rate drops to zero during the crash and comes back after it.
if ! grep -A2000 "crash of east/web/1" auto.txt | grep -q "queue.served{host=east/web/1}:rate.*returned"; then
  echo "FAIL: host 1's served rate should leave its band in the crash and return after it"
  cat auto.txt
  fail=1
fi
"$skysim" report --metastability run --trigger-start +2m --trigger-end +4m \
  --metric 'queue.length' > explicit.txt
grep -q "^trigger      --trigger-end" explicit.txt || { echo "FAIL: explicit trigger"; fail=1; }
rc=0
"$skysim" report --metastability run --trigger-end 2030-01-01T00:00:00Z > bad.txt 2>&1 || rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "strictly inside" bad.txt; then
  echo "FAIL: a trigger end after the run should be refused (exit 2); got $rc"
  cat bad.txt
  fail=1
fi
exit $fail
