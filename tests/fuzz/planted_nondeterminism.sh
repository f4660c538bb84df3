#!/usr/bin/env bash
# The determinism contract's self-test: in a build with the planted non-determinism (the
# queue-server picks its idle worker from an unordered set hashed on heap addresses, which ASLR
# moves from one process to the next), fuzz's double-run must report the seed NONDETERMINISTIC
# and name the first diverging event; the normal build must pass the same double-run. Skips (77)
# when there is no planted build:
#   cmake --preset planted && cmake --build --preset planted --target skysim
#   bash tests/fuzz/planted_nondeterminism.sh build/planted/app/skysim build/<dir>/app/skysim
set -uo pipefail
source "$(dirname "$0")/planted_common.sh"
# Every run re-run (--recheck 1); M/M/4 so that the idle set often holds 3-4 workers (with two,
# libstdc++ iterates in reverse insertion order whatever the hash); no batch source and no
# shrinking, so the planted crash bug stays out of the way. A pair of processes walks the same
# bucket order now and then (about 1 in 3 here), so 8 seeds make a miss negligible.
args=(fuzz --scenarios scenarios/validation-mmc.yaml --seeds 1..8 --recheck 1 --shrink-max 0
      --min-probe-runs 1000 --jobs 2)
"$planted" "${args[@]}" --out "$out/planted" > "$out/planted.txt"
grep -A6 '^NONDETERMINISTIC' "$out/planted.txt" | head -20
grep '^determinism:' "$out/planted.txt"
if ! grep -q '^NONDETERMINISTIC' "$out/planted.txt"; then
  echo "FAIL: the planted non-determinism was not caught by the double-run"
  exit 1
fi
if ! grep -q '^  first diverging event: #[0-9]' "$out/planted.txt" ||
   ! grep -q '^    run A event #[0-9]* at .* kind .* actor [0-9]' "$out/planted.txt"; then
  echo "FAIL: the double-run did not name the first diverging event"
  exit 1
fi
"$normal" "${args[@]}" --out "$out/normal" > "$out/normal.txt"
if grep -q '^NONDETERMINISTIC' "$out/normal.txt" ||
   ! grep -q '^determinism: .* identical' "$out/normal.txt"; then
  tail -20 "$out/normal.txt"
  echo "FAIL: without the planted non-determinism the double-run must agree"
  exit 1
fi
echo "OK: planted non-determinism caught and its first diverging event named"
