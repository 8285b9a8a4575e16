#!/usr/bin/env bash
# The fuzz targets of tests/fuzz for longer than the test command runs them:
#   bench/fuzz.sh [SECONDS_PER_TARGET (default 600)] [WORK_DIR]
# GRIDFTP_FUZZ_TARGETS="config ..." limits the run to those targets (tests/fuzz/run_fuzzers.sh).
# One target per core at a time (tests/fuzz/run_fuzzers.sh); prints each target's executions,
# coverage and corpus size. Record a run in bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
work=${2:-$(mktemp -d /tmp/gridftp-fuzz-bench.XXXXXX)}
scripts/install-deps.sh
scripts/build.sh fuzz fuzz_all
echo "bench/fuzz.sh: ${seconds} s per target, $(nproc) at a time, $(date -u +%F)," \
  "$(git rev-parse --short HEAD)"
tests/fuzz/run_fuzzers.sh build/fuzz "$seconds" "$work"
