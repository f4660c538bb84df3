#!/usr/bin/env bash
# Builds the one-file PHOLD driver (driver.cpp) over a tree's bench/phold.cpp and sim/ without
# CMake, in a minute instead of a full rebuild: build-driver.sh TREE OUT [extra g++ flags]
set -eu
T=$1; O=$2; shift 2
nice -n 5 g++ -std=c++20 -O2 -g -DNDEBUG "$@" -I"$T" "$(dirname "$0")/driver.cpp" "$T/bench/phold.cpp" \
  "$T/sim/simulation.cpp" "$T/sim/rng.cpp" "$T/sim/time.cpp" -o "$O" -lxxhash
