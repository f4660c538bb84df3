#!/usr/bin/env bash
# The fuzzer's self-test: a build with the planted bug (queue-server forgets a batch request
# when its host crashes mid-service) must fail within 500 seeds and shrink to <= 2 faults; the
# normal build must pass the same seeds. Skips (77) when there is no planted build:
#   cmake --preset planted && cmake --build --preset planted --target skysim
#   bash tests/fuzz/planted_bug.sh build/planted/app/skysim build/<dir>/app/skysim
set -uo pipefail
source "$(dirname "$0")/planted_common.sh"
seeds=1..500
"$planted" fuzz --scenarios scenarios/demo.yaml --seeds $seeds --jobs 2 --shrink-max 1 \
  --recheck 0 --out "$out/planted" > "$out/planted.txt"
status=$?
cat "$out/planted.txt" | grep -v '^  \(reproduce\|or\):' | head -40
if [[ $status -eq 0 ]] || ! grep -q 'invariant queue.conservation' "$out/planted.txt"; then
  echo "FAIL: the planted bug was not found in seeds $seeds"
  exit 1
fi
if ! grep -q '^FAIL .*invariant queue.conservation at .*first broken by event #[0-9]* (' "$out/planted.txt" ||
   ! grep -q '^  reproduce: skysim run .* --until 20' "$out/planted.txt"; then
  echo "FAIL: the failure does not name the violating event and a reproducer that stops there"
  exit 1
fi
faults=$(sed -n 's/^  shrunk ([0-9]* tries) to \([0-9]*\) fault(s).*/\1/p' "$out/planted.txt" | head -1)
if [[ -z $faults || $faults -gt 2 ]]; then
  echo "FAIL: the reproducer was not shrunk to <= 2 faults (got '${faults}')"
  exit 1
fi
if ! "$normal" fuzz --scenarios scenarios/demo.yaml --seeds $seeds --jobs 2 --recheck 0 \
     --out "$out/normal" > "$out/normal.txt"; then
  tail -20 "$out/normal.txt"
  echo "FAIL: without the planted bug the same seeds must pass"
  exit 1
fi
echo "OK: planted bug found and shrunk to $faults fault(s); the normal build passes $seeds"
