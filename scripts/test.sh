#!/usr/bin/env bash
# Every test: installs what is missing, then
#   - unit + integration tests on the ASan/UBSan build,
#   - the threaded suites (many sessions, MODE E parallel streams) against a TSan build,
#   - every libFuzzer target (tests/fuzz) for a short, fixed time,
#   - interop tests with the real peers (globus-url-copy, globus-gridftp-server, lftp, curl,
#     Python ftplib) on the release build,
#   - the Debian package built from that release build, installed, smoke-tested and purged.
# Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

jobs=$(nproc)
status=0
run() {
  echo "== $*"
  "$@" || status=1
}

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

scripts/build.sh asan
run ctest --test-dir build/asan -L 'unit|integration' --output-on-failure -j "$jobs"

# The threaded paths: many sessions at once, MODE E streams on the data loops, TLS data
# streams and session processes with handed-over delegation keys (the GSI suites), gridcp's
# engine (-cc workers, -pp reply readers, MODE E stream threads, the progress ticker, batch
# transfers on the planner thread beside the workers, BSTO's disk-writer hand-off), and UDPX
# (each transfer's engine thread, its hand-off to the session's coroutine, SITE UDPX and the
# markers read while it runs). One helper thread seals and opens each TLS 1.3 stream's records
# beside the stream's own thread (transport/worker_pool), which a 2-core machine would otherwise
# not start.
scripts/build.sh tsan gridftpd gridcp
GRIDFTP_RECORD_THREADS=1 run ctest --test-dir build/tsan -R 'concurrent_sessions|bad_input|test_mode_e$|third_party|gsi_rejections|gsi_globus_url_copy|test_gridcp$|test_gridcp_progress|test_batch$|test_udpx$' --output-on-failure

# Every parser of peer or file input under libFuzzer, a fixed short time each (docs/TESTING.md);
# bench/fuzz.sh runs the same targets for longer.
scripts/build.sh fuzz fuzz_all
run tests/fuzz/run_fuzzers.sh build/fuzz "${GRIDFTP_FUZZ_SECONDS:-15}"

# Interop needs only the programs; the unit tests were built and run under ASan above, and
# building them a third time would add minutes on two cores for nothing run.
scripts/build.sh release gridftpd gridcp wanem
run ctest --test-dir build/release -L interop --output-on-failure

# The Debian package, made from that release build: dpkg -i, the unit verified, the man pages
# rendered, a smoke transfer through the installed server, dpkg --purge.
run tests/package/test_package.sh

if ((status == 0)); then echo "ALL TESTS PASSED"; else echo "SOME TESTS FAILED"; fi
exit $status
