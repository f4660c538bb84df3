#!/usr/bin/env bash
# Liveness mode (docs/fuzzing.md, "Liveness / recovery mode"): on a base that drains slowly
# (M/M/1 at rho 0.95), a recovery time of 2 s must report metastable runs, each with its
# metastability report attached, and a shrunk world that fails the same way; 20 min must not.
set -uo pipefail
skysim=${1:?usage: liveness.sh SKYSIM}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
args=(fuzz --scenarios tests/fuzz/liveness_slow_drain.yaml --seeds 1..20 --jobs 2 --recheck 0
      --min-probe-runs 1000 --shrink-max 1)
"$skysim" "${args[@]}" --liveness 2s --out "$out/short" > "$out/short.txt" 2>&1
status=$?
grep '^liveness:\|run once' "$out/short.txt"
report=$(sed -n 's/^FAIL .*invariant liveness .*metastability report: \([^)]*\)).*/\1/p' "$out/short.txt" | head -1)
if [[ $status -ne 1 || -z $report || ! -s $report ]] || ! grep -q '^metric ' "$report"; then
  echo "FAIL: a 2 s recovery time reported no metastable run with its report"
  exit 1
fi
if ! grep -q '(run once: fails liveness again)' "$out/short.txt"; then
  echo "FAIL: the shrunk metastable world does not fail liveness again"
  exit 1
fi
"$skysim" "${args[@]}" --liveness 20m --out "$out/long" > "$out/long.txt" 2>&1 ||
  { tail -5 "$out/long.txt"; echo "FAIL: with 20 min to recover a run was metastable"; exit 1; }
grep '^liveness:' "$out/long.txt"
if ! grep -q '^liveness: [1-9][0-9]* runs judged .* 0 metastable' "$out/long.txt"; then
  echo "FAIL: no run was judged with 20 min to recover"
  exit 1
fi
echo "OK: metastable with 2 s to recover, every run back in band with 20 min"
