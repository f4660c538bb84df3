#!/usr/bin/env bash
# The planted-bug table (docs/fuzzing.md, "Planted bugs"): for each bug the planted build
# compiles, fuzz its base from seed 1 until the first run that fails the bug's invariant
# (--only-invariant, --first-failure), shrink it, and check: found within 2,000 seeds, shrunk to
# <= 2 faults, and the printed one-line reproducer (`skysim run BASE --seed N --set ...`), run
# here again, fails the same invariant in the planted build and holds it in the normal build.
# Prints one Markdown row per bug. Skips (77) without a planted build:
#   cmake --preset planted && cmake --build --preset planted --target skysim
#   bash tests/fuzz/planted_table.sh build/planted/app/skysim build/<dir>/app/skysim [BUG...]
set -uo pipefail
source "$(dirname "$0")/planted_common.sh"
shift 2
# bug | where it is planted | base | invariant that must catch it
bugs=(
  "queue-server|scenarios/queue_server.cpp (crash forgets a batch request)|scenarios/demo.yaml|queue.conservation"
  "go-service|scenarios/kind_go_service.cpp (a dead process's gocql client keeps its connections counted)|scenarios/fuzz/dataplane.yaml|go-service.sockets"
  "socket table|models/net/socket_table.cpp (a dead process's closed sockets leave one ESTABLISHED count)|scenarios/fuzz/dataplane.yaml|sockets_consistent"
  "Go runtime|models/goruntime/go_process.cpp (a forced STW >= 100 ms leaks an M)|scenarios/fuzz/dataplane.yaml|go.runtime"
  "Scylla|models/scylla/cluster.cpp (a returning node's shards restart their work books)|scenarios/fuzz/fanout.yaml|scylla.consistent"
  "FDB|models/fdb/database.cpp (resolver skips batch members while commit_unknown is injected)|scenarios/fuzz/interning.yaml|fdb.serializable"
)
status=0
echo "| bug | planted in | base | invariant | seeds to first failure | shrunk to | faults (smallest strength) | one-line reproducer |"
echo "|---|---|---|---|---|---|---|---|"
for row in "${bugs[@]}"; do
  IFS='|' read -r name where base inv <<<"$row"
  if (($#)) && [[ " $* " != *" $inv "* ]]; then continue; fi
  dir="$out/${inv//./_}-$(basename "$base" .yaml)"
  "$planted" fuzz --scenarios "$base" --seeds 1..2000 --jobs 2 --only-invariant "$inv" \
    --first-failure --shrink-max 1 --recheck 0 --min-probe-runs 1000000000 --out "$dir" \
    > "$dir.txt" 2>&1
  seed=$(sed -n 's/^FAIL .* seed \([0-9]*\): invariant .*/\1/p' "$dir.txt" | head -1)
  faults=$(sed -n 's/^  shrunk ([0-9]* tries) to \([0-9]*\) fault(s).*/\1/p' "$dir.txt" | head -1)
  what=$(sed -n '/^  shrunk (/,/^  smallest:/p' "$dir.txt" | sed -n 's/^    //p' | paste -sd ';' -)
  line=$(sed -n 's/^  one line: //p' "$dir.txt" | head -1)
  if [[ -z $seed || -z $faults || -z $line ]]; then
    echo "FAIL: $name: not found in 2,000 seeds or not shrunk ($dir.txt):"
    tail -5 "$dir.txt"
    status=1
    continue
  fi
  if ((faults > 2)); then
    echo "FAIL: $name: shrunk to $faults faults (> 2)"
    status=1
  fi
  # The printed line, run again by this script: in the planted build it must fail the same
  # invariant; in the normal build (no planted bug) it must hold it.
  args=${line#skysim run }
  eval "\"\$planted\" run $args --out \"\$dir/again\"" > "$dir/again.txt" 2>&1
  if ! grep -q "^  FAILED $inv @" "$dir/again.txt"; then
    echo "FAIL: $name: the one-line reproducer does not fail $inv:"
    grep -A3 '^invariants' "$dir/again.txt"
    status=1
  fi
  eval "\"\$normal\" run $args --out \"\$dir/normal\"" > "$dir/normal.txt" 2>&1
  if grep -q "^  FAILED $inv @" "$dir/normal.txt" || ! grep -q '^invariants ' "$dir/normal.txt"; then
    echo "FAIL: $name: the one-line reproducer fails $inv without the planted bug too"
    status=1
  fi
  echo "| $name | $where | $base | \`$inv\` | $seed | $faults fault(s) | $what | \`$line\` |"
done
exit $status
