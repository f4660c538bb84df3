#!/usr/bin/env bash
# A deliberately broken invariant check is caught mid-run at the right event: in the planted
# build, queue-server's `planted_broken_check: true` makes queue.capacity off by one (a full
# queue reads as over capacity). On M/M/1 with room for 3 queued requests the check must fail
# while the run goes (not only at its end), be located at one event, and that event must be
# the one that filled the queue: `--until` one nanosecond before it holds the check, `--until`
# its instant breaks it. The normal build has no such parameter (a clear load error). Skips
# (77) without a planted build.
set -uo pipefail
source "$(dirname "$0")/planted_common.sh"
sets=(--set datacenters.lab.services.q.params.queue_capacity=3
      --set datacenters.lab.services.q.params.planted_broken_check=true
      --set 'invariants=[queue.capacity]' --set duration=20s)
"$planted" run scenarios/validation-mm1.yaml --seed 1 "${sets[@]}" --out "$out/run" > "$out/run.txt" 2>&1
grep -A3 '^invariants' "$out/run.txt"
event=$(sed -n 's/^  first broken by event #\([0-9]*\) (\([^,]*\), actor [0-9]*) at \([^ ]*\) .*/\1 \2 \3/p' "$out/run.txt")
read -r number kind at <<<"$event"
if [[ -z ${at:-} ]] || ! grep -q '^  FAILED queue.capacity @ lab/q/0: lab/q/0: queue 3 above capacity' "$out/run.txt"; then
  echo "FAIL: the broken queue.capacity check was not reported with its event"
  exit 1
fi
# One nanosecond before the event's instant (the fraction has 9 digits; no borrow needed
# unless it is all zeros, which a Poisson arrival time is not).
frac=${at##*.}; frac=${frac%Z}
before=$(printf '%s.%09dZ' "${at%.*}" $((10#$frac - 1)))
check_at() {  # $1 = --until value; prints "holds" or "fails"
  "$planted" run scenarios/validation-mm1.yaml --seed 1 "${sets[@]}" --until "$1" \
    --out "$out/until" > "$out/until.txt" 2>&1
  if grep -q '^  FAILED queue.capacity' "$out/until.txt"; then echo fails; else echo holds; fi
}
if [[ $(check_at "$before") != holds || $(check_at "$at") != fails ]]; then
  echo "FAIL: event #$number ($kind) at $at is not the event that filled the queue"
  exit 1
fi
if "$normal" run scenarios/validation-mm1.yaml --seed 1 "${sets[@]}" --out "$out/normal" \
     > "$out/normal.txt" 2>&1 || ! grep -q 'planted_broken_check' "$out/normal.txt"; then
  echo "FAIL: the normal build accepted planted_broken_check"
  exit 1
fi
echo "OK: the broken check is caught mid-run at event #$number ($kind) at $at; it holds 1 ns before"
