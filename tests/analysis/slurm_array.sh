#!/usr/bin/env bash
# A compare sweep and a fuzz campaign as Slurm job arrays on a single-node Slurm cluster that
# this test starts itself (munged, slurmctld and slurmd on loopback, in a temporary directory,
# stopped at the end, also on failure): task i of 3 runs `--shard i/3`; the merged result must
# equal the local `--jobs 2` run byte for byte (docs/distributed.md, "A Slurm cluster").
# Usage: slurm_array.sh PATH/TO/skysim
# (The planted build is no use here: its planted non-determinism makes two runs of one seed
# differ on purpose, tests/fuzz/planted_nondeterminism.sh.)
set -euo pipefail
skysim=$(realpath "${1:?usage: slurm_array.sh PATH/TO/skysim}")
src=$(cd "$(dirname "$0")/../.." && pwd)
for tool in munged slurmctld slurmd sbatch sinfo scancel python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "FAIL: $tool is not installed (scripts/setup-debian.sh installs slurm-wlm and munge)"
    exit 1
  fi
done
if [[ $(id -u) -ne 0 ]]; then
  # slurmd must run jobs as their user and start them from its own spool: a one-user cluster
  # needs root here. CI runs as root.
  echo "SKIP: a private Slurm cluster needs root (slurmd), this is uid $(id -u)"
  exit 77
fi

work=$(mktemp -d)
pids=()
# Best effort on every exit path: a daemon already gone must not turn a result into an error.
cleanup() {
  if [[ -n ${SLURM_CONF:-} ]]; then scancel --full --quiet --user=root 2>/dev/null || true; fi
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  if [[ -n ${KEEP:-} ]]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir -p "$work"/{state,spool,log,munge,run}

# munge: a fresh key and a private socket; Slurm is pointed at that socket.
head -c 1024 /dev/urandom > "$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
munged --force --foreground --key-file="$work/munge/munge.key" --socket="$work/munge/sock" \
  --pid-file="$work/munge/pid" --log-file="$work/munge/log" --seed-file="$work/munge/seed" > "$work/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [[ -S $work/munge/sock ]] && break; sleep 0.1; done
[[ -S $work/munge/sock ]] || { echo "FAIL: munged did not open its socket"; exit 1; }

read -r ctld_port d_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(hostname)
cat > "$work/slurm.conf" <<EOC
ClusterName=skysimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=skysimnode NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=skysimnode Default=YES MaxTime=INFINITE State=UP
EOC
export SLURM_CONF=$work/slurm.conf
slurmctld -D -f "$SLURM_CONF" > "$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N skysimnode -f "$SLURM_CONF" > "$work/log/slurmd.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 150); do
  state=$(sinfo -h -n skysimnode -o %T 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 0.2
done
if [[ $state != idle ]]; then
  echo "FAIL: the Slurm node did not come up (state '$state')"
  tail -20 "$work/log/slurmctld.log" "$work/log/slurmd.log" 2>/dev/null || true  # diagnostics only
  exit 1
fi
echo "Slurm $(sinfo -V | awk '{print $2}') up: controller 127.0.0.1:$ctld_port, node $state"
cd "$work"

# Submits a 3-task array whose task i runs "$@ --shard i/3" and waits for all of them.
array() {
  local name=$1
  shift
  printf '#!/bin/bash\nexec %q "$@" --shard "${SLURM_ARRAY_TASK_ID}/3"\n' "$skysim" \
    > "$work/$name.sh"
  if ! timeout 240 sbatch --wait --quiet --array=1-3 --job-name="$name" \
       --output="$work/log/$name-%a.out" "$work/$name.sh" "$@"; then
    echo "array $name: some task exited non-zero (merge decides)"
  fi
}

# 1. A compare sweep (the one of docs/distributed.md): merged by `skysim merge`.
sweep=(compare "$src/scenarios/demo.yaml"
       --vary datacenters.east.services.web.params.workers=4,6 --seeds 1..3 --no-plots)
whole_rc=0
"$skysim" "${sweep[@]}" --jobs 2 --out whole > whole.txt || whole_rc=$?
array compare "${sweep[@]}" --jobs 1 --out shards
merged_rc=0
"$skysim" merge shards/shard-1-of-3.jsonl shards/shard-2-of-3.jsonl shards/shard-3-of-3.jsonl \
  --out merged --no-plots > merged.txt || merged_rc=$?
[[ $whole_rc == "$merged_rc" ]] || { echo "FAIL: compare exit $whole_rc, merged $merged_rc"; exit 1; }
for f in compare.csv compare.json tables.txt runs.jsonl; do
  cmp "whole/$f" "merged/$f" || { echo "FAIL: compare $f differs"; exit 1; }
done
cmp whole.txt merged.txt || { echo "FAIL: the printed compare tables differ"; exit 1; }
echo "compare: 3 array tasks merged byte-identical to the local --jobs 2 run ($(($(wc -l < merged/runs.jsonl) - 1)) runs)"

# 2. A fuzz campaign: the merged table is one line per run (base, seed, fingerprint, unseed,
# invariants) from every run's summary.json, and the FAIL lines of every shard, sorted.
fuzz_table() {
  # Each run's own summary; not the probes' same-seed baselines (seed-N/baseline/), which a
  # campaign makes only when it has enough runs to judge its probes (a shard may not).
  find "$1" -regextype posix-extended -regex '.*/seed-[0-9]+/out/summary.json' | sort |
    while read -r f; do
      rel=${f#"$1"/}
      jq -r --arg run "${rel%/out/summary.json}" \
        '[$run, .fingerprint, .unseed, (.invariants_hold|tostring), (.events|tostring)] | join(" ")' "$f"
    done
}
fuzz_case() {
  local bin=$1 label=$2
  shift 2
  local args=(fuzz "$@" --recheck 0 --shrink-max 0)
  # Exit 1 = some run failed an invariant: a result to compare, not an error of the campaign.
  local rc=0
  "$bin" "${args[@]}" --jobs 2 --out "fuzz-$label-whole" > "fuzz-$label-whole.txt" || rc=$?
  if [[ $rc != 0 && $rc != 1 ]]; then
    echo "FAIL: fuzz $label: the local campaign itself failed (exit $rc)"
    tail -20 "fuzz-$label-whole.txt"
    exit 1
  fi
  skysim=$bin array "fuzz-$label" "${args[@]}" --jobs 1 --out "fuzz-$label-shards"
  fuzz_table "fuzz-$label-whole" > "fuzz-$label-whole.table"
  fuzz_table "fuzz-$label-shards" > "fuzz-$label-merged.table"
  local runs
  runs=$(wc -l < "fuzz-$label-whole.table")
  [[ $runs -ge 20 ]] || { echo "FAIL: fuzz $label: only $runs runs in the local table"; exit 1; }
  cmp "fuzz-$label-whole.table" "fuzz-$label-merged.table" ||
    { echo "FAIL: fuzz $label: the merged per-run table differs"; exit 1; }
  # grep exits 1 when there is no FAIL line, which is the usual (passing) case.
  grep '^FAIL ' "fuzz-$label-whole.txt" | sort > "fuzz-$label-whole.fails" || true
  cat "$work"/log/fuzz-"$label"-*.out | grep '^FAIL ' | sort > "fuzz-$label-merged.fails" || true
  cmp "fuzz-$label-whole.fails" "fuzz-$label-merged.fails" ||
    { echo "FAIL: fuzz $label: the shards' FAIL lines differ from the local run's"; exit 1; }
  echo "fuzz $label: $runs runs, $(wc -l < "fuzz-$label-merged.fails") FAIL lines; merged table identical to the local --jobs 2 run"
}
fuzz_case "$skysim" bases --seeds 1..8 \
  --scenarios "$src/scenarios/demo.yaml,$src/scenarios/fuzz/dataplane.yaml,$src/scenarios/fuzz/fanout.yaml"
echo "PASS: compare and fuzz as Slurm job arrays merge identical to the local runs"
