#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build for a fixed time each, one per core at a time:
#   tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS_PER_TARGET [WORK_DIR]
# GRIDFTP_FUZZ_TARGETS="config url ..." runs only those targets (a rerun after a fix).
# Each target first replays its kept regression inputs (tests/fuzz/regressions/TARGET: inputs
# that once crashed it), then fuzzes from its seeds (tests/fuzz/corpus/TARGET, and for mode_e
# the heads of the Globus captures in tests/vectors) into WORK_DIR/corpus/TARGET. A crash or a
# broken property leaves its input in WORK_DIR/crashes and fails the run. Prints, per target,
# the executions, the coverage reached (libFuzzer's cov: edges and ft: features) and the corpus.
set -uo pipefail
build=${1:?usage: run_fuzzers.sh BUILD_DIR SECONDS [WORK_DIR]}
seconds=${2:?usage: run_fuzzers.sh BUILD_DIR SECONDS [WORK_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
work=${3:-$(mktemp -d /tmp/gridftp-fuzz.XXXXXX)}
mkdir -p "$work/crashes" "$work/logs" "$work/results"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# One target: regressions, then fuzzing; writes its table row to $work/results/TARGET.
fuzz_one() {
  local binary=$1 target=${1##*/fuzz_}
  local corpus="$work/corpus/$target" log="$work/logs/$target.log" result=ok
  mkdir -p "$corpus"
  local seeds=("$here/corpus/$target")
  if [[ $target == mode_e ]]; then
    mkdir -p "$work/seeds/mode_e"
    for capture in "$here"/../vectors/*.bin; do
      head -c 8192 "$capture" > "$work/seeds/mode_e/$(basename "$capture")"
    done
    seeds+=("$work/seeds/mode_e")
  fi
  local regressions=("$here/regressions/$target"/*)
  if [[ -e ${regressions[0]} ]] && ! "$binary" "${regressions[@]}" > "$log.regressions" 2>&1; then
    result="REGRESSION (see $log.regressions)"
  fi
  if ! "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$work/crashes/$target-" "$corpus" "${seeds[@]}" \
      > "$log" 2>&1; then
    result="CRASH (see $log)"
  fi
  local stats runs cov ft files kb
  stats=$(grep -E '^#[0-9]+' "$log" | tail -1)
  runs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<< "$stats")
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<< "$stats")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<< "$stats")
  files=$(find "$corpus" -type f | wc -l)
  kb=$(du -sk "$corpus" | cut -f1)
  printf '%-16s %10s %8s %8s %8s %10s  %s\n' "$target" "${runs:--}" "${cov:--}" "${ft:--}" \
    "$files" "$kb" "$result" > "$work/results/$target"
}

# The GSI target's credentials: a throwaway CA, host and user (with a proxy).
if [[ -x $build/tests/fuzz/fuzz_gsi_token && ! -d $work/pki/certificates ]]; then
  python3 "$here/../support/test_pki.py" "$work/pki" > "$work/logs/pki.log" 2>&1 ||
    { echo "run_fuzzers: cannot make the test PKI (see $work/logs/pki.log)"; exit 1; }
fi
export GRIDFTP_FUZZ_PKI=$work/pki

jobs=$(nproc)
for binary in "$build"/tests/fuzz/fuzz_*; do
  [[ -x $binary ]] || continue
  if [[ -n ${GRIDFTP_FUZZ_TARGETS:-} && " $GRIDFTP_FUZZ_TARGETS " != *" ${binary##*/fuzz_} "* ]]; then
    continue
  fi
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
  fuzz_one "$binary" &
done
wait

printf '%-16s %10s %8s %8s %8s %10s  %s\n' target runs cov ft corpus corpus_kb result
for binary in "$build"/tests/fuzz/fuzz_*; do
  [[ -f $work/results/${binary##*/fuzz_} ]] && cat "$work/results/${binary##*/fuzz_}"
done
ls "$work"/crashes/* > /dev/null 2>&1 && { echo "crash inputs:"; ls -l "$work"/crashes/; }
echo "fuzz work directory: $work"
! grep -qvE '  ok$' "$work"/results/*
