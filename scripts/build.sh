#!/usr/bin/env bash
# Configures and builds one CMake preset (debug, release, asan, tsan): scripts/build.sh PRESET [targets...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:?usage: scripts/build.sh PRESET [targets...]}
shift
jobs=$(nproc)
cmake --preset "$preset" > /dev/null
if (($# > 0)); then
  cmake --build "build/$preset" -j "$jobs" --target "$@"
else
  cmake --build "build/$preset" -j "$jobs"
fi
