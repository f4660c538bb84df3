#!/usr/bin/env bash
# Set up, build and run the whole test suite: every Catch2 test through ctest, then the
# kernel and model tests again under ASan+UBSan. Must stay under 20 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1  # see scripts/build.sh
bash scripts/setup-debian.sh
jobs=$(nproc)

bash scripts/build.sh default
# The fuzzer's self-tests (fuzz/planted_*) need the binary with the planted bugs beside it.
bash scripts/build.sh planted skysim
ctest --preset default -j "$jobs" --output-on-failure

# Sanitizers on the kernel and the models (the scenario and analysis layers run unsanitized).
cmake --preset asan >/dev/null
asan_targets=$(cmake --build --preset asan --target help | sed -n 's/^\(test_[a-z_0-9]*\):.*/\1/p' |
  grep -E '^test_(sim|net|memcached|goruntime|logsink|errgroup|dataplane|scylla|social|fdb|fanout|lossy|hotkey|uidalloc)$' || true)
if [[ -n "$asan_targets" ]]; then
  cmake --build --preset asan --target $asan_targets
  for t in $asan_targets; do
    echo "== ASan+UBSan: $t"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
      "./build/asan/$(find build/asan -name "$t" -type f -printf '%P\n' | head -n1)"
  done
fi
echo "test suite finished in $(( $(date +%s) - start ))s"
