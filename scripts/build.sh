#!/usr/bin/env bash
# Configures and builds one CMake preset (debug, release, asan, tsan, fuzz): scripts/build.sh PRESET [targets...]
# Compiles go through ccache when it is installed (scripts/install-deps.sh installs it). The base
# directory is this checkout, so a fresh clone elsewhere on the machine (CI's) hits the objects a
# previous checkout compiled; docs/TESTING.md, "Build cache".
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:?usage: scripts/build.sh PRESET [targets...]}
shift
jobs=$(nproc)
launcher=()
if command -v ccache > /dev/null; then
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
  # Precompiled headers are only reused when ccache may ignore their time stamps and the
  # __DATE__/__TIME__ macros that a PCH could in principle capture.
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake --preset "$preset" "${launcher[@]}" > /dev/null
if (($# > 0)); then
  cmake --build "build/$preset" -j "$jobs" --target "$@"
else
  cmake --build "build/$preset" -j "$jobs"
fi
