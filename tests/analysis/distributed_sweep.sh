#!/usr/bin/env bash
# The sweep of docs/distributed.md, run for real on one host: GNU parallel runs the three shards
# at once, `skysim merge` combines them, and every output must equal the unsharded compare byte
# for byte, with the same exit status. Usage: distributed_sweep.sh PATH/TO/skysim
set -euo pipefail
skysim=$(realpath "${1:?usage: distributed_sweep.sh PATH/TO/skysim}")
src=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v parallel >/dev/null; then
  echo "SKIP: GNU parallel is not installed (scripts/setup-debian.sh installs it)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# A fast sweep (about a second per run): the demo scenario, two worker counts x three seeds.
sweep=(compare "$src/scenarios/demo.yaml"
       --vary datacenters.east.services.web.params.workers=4,6
       --seeds 1..3 --no-plots)

whole_rc=0
"$skysim" "${sweep[@]}" --jobs 2 --out whole > whole.txt || whole_rc=$?

# One host, three shards at once; on a cluster each line is one array task (docs/distributed.md).
parallel --will-cite -q -j 3 "$skysim" "${sweep[@]}" --jobs 1 --shard {}/3 --out shards ::: 1 2 3 \
  > shards.txt || true
merged_rc=0
"$skysim" merge shards/shard-1-of-3.jsonl shards/shard-2-of-3.jsonl shards/shard-3-of-3.jsonl \
  --out merged --no-plots > merged.txt || merged_rc=$?

echo "unsharded exit $whole_rc, merged exit $merged_rc"
[[ $whole_rc == "$merged_rc" ]] || { echo "FAIL: exit status differs"; exit 1; }
if [[ $whole_rc != 0 && $whole_rc != 1 ]]; then
  echo "FAIL: compare itself failed"
  cat whole.txt
  exit 1
fi
for f in compare.csv compare.json tables.txt runs.jsonl; do
  cmp "whole/$f" "merged/$f" || { echo "FAIL: $f differs"; exit 1; }
done
cmp whole.txt merged.txt || { echo "FAIL: printed tables differ"; exit 1; }
runs=$(($(wc -l < merged/runs.jsonl) - 1))  # the first line is the header record
[[ $runs == 6 ]] || { echo "FAIL: expected 6 runs, merged $runs"; exit 1; }
cat merged.txt
echo "PASS: 3 shards under GNU parallel merged byte-identical to the unsharded compare"
