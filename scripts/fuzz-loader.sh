#!/bin/sh
# Builds the libFuzzer harness of the scenario loader (scenarios/fuzz/) outside the CMake build
# and runs it on the seed corpus. Usage: scripts/fuzz-loader.sh [SECONDS] [extra libFuzzer args]
# Crashes land in build/fuzz/ as crash-*; the corpus grows in scenarios/fuzz/corpus/.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-600}
[ $# -gt 0 ] && shift
out="$root/build/fuzz"
mkdir -p "$out/obj"
CXX=${CXX:-clang++-14}
# -fno-sanitize=function: clang 14's UBSan function-type check cannot compile the coroutine
# sources (go_process.cpp, errgroup.cpp, ...: "Cannot represent a difference across sections");
# every other UBSan check stays on.
flags="-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize=function -fno-sanitize-recover=undefined"
# Every kind is registered (scenarios/builtin_models.cpp), so every model is linked: the
# scenarios, models, components and sim sources, with the harness.
srcs=$(cd "$root" && ls scenarios/*.cpp models/*/*.cpp models/*/*/*.cpp components/*/*.cpp \
        sim/*.cpp 2>/dev/null; echo scenarios/fuzz/fuzz_loader.cpp)
# One object per source, compiled in parallel, rebuilt when the source or any header is newer.
for s in $srcs; do
  o="$out/obj/$(echo "$s" | tr / _).o"
  if [ ! -f "$o" ] || [ -n "$(find "$root/$s" "$root"/scenarios "$root"/sim "$root"/models \
        "$root"/components -name '*.hpp' -newer "$o" 2>/dev/null | head -1)" ]; then
    echo "$s $o"
  fi
done | xargs -r -n2 -P4 sh -c "$CXX $flags -I'$root' -c '$root/'\"\$0\" -o \"\$1\""
# shellcheck disable=SC2086
$CXX $flags "$out"/obj/*.o -lyaml-cpp -lxxhash -o "$out/fuzz_loader"
cd "$out"
exec "$out/fuzz_loader" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -dict="$root/scenarios/fuzz/scenario.dict" "$@" "$root/scenarios/fuzz/corpus"
