#!/usr/bin/env bash
# Set up, build and run the whole test suite: every Catch2 test through ctest, then every test
# binary again under ASan+UBSan (see below for the two slow parts). Must stay under 25 minutes on
# 2 cores.
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

# ASan+UBSan on every test binary. Two parts run unsanitized only, measured too slow under ASan on
# 2 cores: the April windows of test_scenarios (> 20 min; the rest of test_scenarios took 10 min
# 10 s under ASan on 2026-12-02),
# its [whole-scenario] cases (shipped scenario files run for minutes: ~4 min under ASan),
# and test_cli's `selftest --quick` case, which re-runs the whole self-test (40 s unsanitized; the
# other 12 cases take ~60 s under ASan). SKYSIM_ASAN_FULL=1 runs them as well. test_redis_tsan is ThreadSanitizer's (ctest backends/redis/tsan), not ASan's.
cmake --preset asan >/dev/null
asan_targets=$(cmake --build --preset asan --target help | sed -n 's/^\(test_[a-z_0-9]*\):.*/\1/p' |
  grep -v -E '^test_redis_tsan$' || true)
# An empty list means the target listing changed shape, not that there is nothing to check.
if [[ $(wc -w <<<"$asan_targets") -lt 10 ]]; then
  echo "test-suite: only $(wc -w <<<"$asan_targets") ASan test targets found (expected every" \
    "test_* of the build); the sanitizer pass would check nothing" >&2
  exit 1
fi
cmake --build --preset asan --target $asan_targets
# The sanitized binaries run $jobs at a time (each is single-threaded; ctest above already runs
# them side by side, so they tolerate it), the longest first so the two cores finish together.
# Each writes its own log; a failing one's log is printed whole at the end.
asan_logs=build/asan/logs
rm -rf "$asan_logs" && mkdir -p "$asan_logs"
run_sanitized() {
  local t=$1 filter=()
  if [[ $t == test_scenarios && ${SKYSIM_ASAN_FULL:-0} != 1 ]]; then
    filter=("~April*" "~[whole-scenario]")
  fi
  if [[ $t == test_cli && ${SKYSIM_ASAN_FULL:-0} != 1 ]]; then
    filter=("~skysim selftest --quick passes and prints one table")
  fi
  local bin
  bin="./build/asan/$(find build/asan -name "$t" -type f -printf '%P\n' | head -n1)"
  local t0=$SECONDS
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$bin" "${filter[@]}" >"$asan_logs/$t.log" 2>&1; then
    echo "== ASan+UBSan: $t ${filter[*]} passed ($((SECONDS - t0)) s)"
  else
    echo "== ASan+UBSan: $t ${filter[*]} FAILED ($((SECONDS - t0)) s)"
    touch "$asan_logs/$t.failed"
  fi
}
export -f run_sanitized
export asan_logs
slow_first='test_validation test_scenarios test_fuzz test_analysis test_fanout'
# The slow ones that exist, then every other target. grep finding nothing only reorders (a slow
# name not built); the count check below makes sure no target was dropped on the way.
ordered=$( (for t in $slow_first; do grep -x "$t" <<<"$asan_targets" || true; done
  grep -v -x -F -f <(tr ' ' '\n' <<<"$slow_first") <<<"$asan_targets" || true) | sed '/^$/d')
if [[ $(wc -w <<<"$ordered") -ne $(wc -w <<<"$asan_targets") ]]; then
  echo "test-suite: ordering the ASan targets lost some ($(wc -w <<<"$ordered") of" \
    "$(wc -w <<<"$asan_targets")); the sanitizer pass would skip them" >&2
  exit 1
fi
xargs -P "$jobs" -I{} bash -c 'run_sanitized "$1"' _ {} <<<"$ordered"
failed=$(find "$asan_logs" -name '*.failed' -printf '%f\n' | sed 's/\.failed$//' | sort)
if [[ -n $failed ]]; then
  for t in $failed; do echo "==== ASan+UBSan log of $t:"; cat "$asan_logs/$t.log"; done
  echo "test-suite: ASan+UBSan failed in: $(tr '\n' ' ' <<<"$failed")" >&2
  exit 1
fi
echo "test suite finished in $(( $(date +%s) - start ))s"
