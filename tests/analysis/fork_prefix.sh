#!/usr/bin/env bash
# `compare --fork-at` for real on the demo scenario. For every seed: each branch's summary.json
# records the fingerprint at the fork instant, and it must equal the fingerprint of the plain
# as-was run stopped there (`skysim run --until`); the branch that sets the as-was value must end
# exactly like the plain run; the branch that changes something must end differently. An
# override that cannot change mid-run is refused, naming its path. Usage: fork_prefix.sh SKYSIM
set -euo pipefail
skysim=$(realpath "${1:?usage: fork_prefix.sh PATH/TO/skysim}")
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
demo="$src/scenarios/demo.yaml"
at=2026-04-06T00:03:00Z   # after the batch client started, before the capacity bump

field() {  # field NAME FILE: the first "NAME": "value" string in a JSON file
  grep -o "\"$1\": *\"[^\"]*\"" "$2" | head -1 | sed 's/.*: *"\(.*\)"/\1/'
}

"$skysim" compare "$demo" --fork-at "$at" --seeds 1..2 --jobs 2 --no-plots --out forked \
  --vary datacenters.east.services.web.params.workers=4,3 > forked.txt
fail=0
for seed in 1 2; do
  "$skysim" run "$demo" --seed "$seed" --until "$at" --quiet --out "prefix-$seed" > /dev/null
  "$skysim" run "$demo" --seed "$seed" --quiet --out "plain-$seed" > /dev/null
  want=$(field fingerprint "prefix-$seed/summary.json")
  for v in v000 v001; do
    got=$(field prefix_fingerprint "forked/runs/$v-seed$seed/summary.json")
    if [[ "$got" != "$want" ]]; then
      echo "FAIL seed $seed $v: prefix fingerprint $got, the as-was run at $at has $want"
      fail=1
    fi
  done
  same=$(field fingerprint "forked/runs/v000-seed$seed/summary.json")
  other=$(field fingerprint "forked/runs/v001-seed$seed/summary.json")
  plain=$(field fingerprint "plain-$seed/summary.json")
  if [[ "$same" != "$plain" ]]; then
    echo "FAIL seed $seed: the as-was branch ends at $same, the plain run at $plain"
    fail=1
  fi
  if [[ "$other" == "$plain" ]]; then
    echo "FAIL seed $seed: the workers=3 branch ends exactly like the plain run"
    fail=1
  fi
  echo "seed $seed: prefix $want, as-was branch $same = plain $plain, workers=3 branch $other"
done

rc=0
"$skysim" compare "$demo" --fork-at "$at" --seeds 1 --no-plots --out refused \
  --vary datacenters.east.services.web.hosts=2,3 > refused.txt 2>&1 || rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "datacenters.east.services.web.hosts" refused.txt; then
  echo "FAIL: an unsettable override should be refused (exit 2, naming the path); got exit $rc:"
  cat refused.txt
  fail=1
fi
exit $fail
