#!/usr/bin/env bash
# Configures and builds one CMake preset (default: RelWithDebInfo). Usage: build.sh [preset] [targets...]
set -euo pipefail
cd "$(dirname "$0")/.."
# Let ccache share objects between clones in different folders (CI builds a fresh clone):
# paths under the repo are hashed relative to it, and the build folder is not hashed.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
preset=${1:-default}
shift || true
cmake --preset "$preset" >/dev/null
if (($#)); then
  cmake --build --preset "$preset" --target "$@"
else
  cmake --build --preset "$preset"
fi
