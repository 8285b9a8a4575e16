#!/usr/bin/env bash
# The fuzz targets of tests/fuzz for longer than the test command runs them:
#   bench/fuzz.sh [SECONDS_PER_TARGET (default 600)] [WORK_DIR]
# Two targets run at a time (one per core of the 2-core machine); each prints its executions,
# coverage and corpus size (tests/fuzz/run_fuzzers.sh). Record a run in bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
work=${2:-$(mktemp -d /tmp/gridftp-fuzz-bench.XXXXXX)}
scripts/install-deps.sh
scripts/build.sh fuzz fuzz_all
jobs=$(nproc)
# run_fuzzers.sh takes a build directory; give each worker a directory holding its share.
mapfile -t targets < <(ls build/fuzz/tests/fuzz/fuzz_* | sort)
pids=()
for ((worker = 0; worker < jobs; worker++)); do
  share="$work/share$worker/tests/fuzz"
  mkdir -p "$share"
  for ((i = worker; i < ${#targets[@]}; i += jobs)); do
    ln -sf "$(realpath "${targets[$i]}")" "$share/"
  done
  tests/fuzz/run_fuzzers.sh "$work/share$worker" "$seconds" "$work/run" > "$work/worker$worker.txt" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
echo "bench/fuzz.sh: ${seconds} s per target, $jobs at a time, $(date -u +%F) $(git rev-parse --short HEAD)"
head -1 "$work/worker0.txt"
for ((worker = 0; worker < jobs; worker++)); do grep -vE '^target|^fuzz work' "$work/worker$worker.txt"; done
echo "corpora and logs: $work/run"
exit $status
