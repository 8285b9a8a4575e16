#!/usr/bin/env bash
# Every test: installs what is missing, then
#   - unit + integration tests on the ASan/UBSan build,
#   - the threaded suites (many sessions, MODE E parallel streams) against a TSan build,
#   - every libFuzzer target (tests/fuzz) for a short, fixed time,
#   - interop tests with the real peers (globus-url-copy, globus-gridftp-server, lftp, curl,
#     Python ftplib, vsftpd) on the release build,
#   - the Debian package built from that release build, installed, smoke-tested and purged,
#   - the README's quick start as root and as an unprivileged user, the shipped monitoring
#     rules and dashboard, the bash completions, and the Kubernetes manifests (deploy/k8s,
#     rendered and validated offline).
# Exits non-zero if anything fails; prints each stage's time at the end (docs/TESTING.md).
#
# Time on a 2-core machine (docs/TESTING.md, "How long it takes"): compiles go through ccache
# (scripts/build.sh), so a second run, or a fresh clone on a machine that ran it before, compiles
# almost nothing; the TSan, fuzz and release builds run in the background while the ASan suites
# run, since those suites leave the CPUs idle much of the time (login delays, timeouts, peers).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
status=0
timings=()
run_started=$SECONDS

# One timed stage: its name, then the command. A failing stage fails the run, the rest still run.
stage() {
  local name=$1 started=$SECONDS outcome=ok
  shift
  echo "== $name: $*"
  "$@" || { outcome=FAILED; status=1; }
  timings+=("$(printf '%-52s %6ds  %s' "$name" $((SECONDS - started)) "$outcome")")
}

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

stage "set-up: install what is missing" scripts/install-deps.sh
stage "build asan (everything, with unit tests)" scripts/build.sh asan
if ((status != 0)); then
  printf '%s\n' "${timings[@]}"
  echo "SOME TESTS FAILED (set-up or the ASan build failed)"
  exit 1
fi

# The other three builds, one after another, beside the ASan suites. Their output goes to a log
# that is printed if one fails.
mkdir -p build
later_builds_log=build/later-builds.log
(
  set -e
  # The threaded paths need only the programs; interop too (the unit tests were built and run
  # under ASan above, and building them again would add minutes on two cores for nothing run).
  nice -n 5 scripts/build.sh tsan gridftpd gridcp
  nice -n 5 scripts/build.sh fuzz fuzz_all
  nice -n 5 scripts/build.sh release gridftpd gridcp wanem
) > "$later_builds_log" 2>&1 &
later_builds=$!

stage "unit + integration (ASan/UBSan)" \
  ctest --test-dir build/asan -L 'unit|integration' --output-on-failure -j "$jobs"

wait_for_later_builds() {
  if ! wait "$later_builds"; then
    tail -n 60 "$later_builds_log"
    return 1
  fi
}
stage "build tsan, fuzz, release (beside the suites above)" wait_for_later_builds
if [[ ${timings[-1]} == *FAILED ]]; then
  echo "SOME TESTS FAILED (a build failed)"
  exit 1
fi

# The threaded paths: many sessions at once, MODE E streams on the data loops, TLS data
# streams and session processes with handed-over delegation keys (the GSI suites), gridcp's
# engine (-cc workers, -pp reply readers, MODE E stream threads, the progress ticker, batch
# transfers on the planner thread beside the workers, BSTO's disk-writer hand-off), and UDPX
# (each transfer's engine thread, its hand-off to the session's coroutine, a batch decoded on
# that thread, SITE UDPX and the markers read while it runs). One helper thread seals and opens
# each TLS 1.3 stream's records beside the stream's own thread (transport/worker_pool), which a
# 2-core machine would otherwise not start.
GRIDFTP_RECORD_THREADS=1 stage "threaded suites (TSan)" \
  ctest --test-dir build/tsan -R 'concurrent_sessions|bad_input|test_mode_e$|third_party|gsi_rejections|gsi_globus_url_copy|test_gridcp$|test_gridcp_progress|test_batch$|test_udpx$|test_udpx_batch$' \
  --output-on-failure -j "$jobs"

# clang-tidy over the five modules with the tree's .clang-tidy (docs/TESTING.md, "clang-tidy"):
# a file's clean result is cached by its preprocessed text, so only changed files cost time.
stage "clang-tidy (.clang-tidy, cached by content)" tests/static/check_tidy.sh . build/asan

# Every parser of peer or file input under libFuzzer, a fixed short time each (docs/TESTING.md);
# bench/fuzz.sh runs the same targets for longer.
stage "fuzzers (${GRIDFTP_FUZZ_SECONDS:-15} s a target)" \
  tests/fuzz/run_fuzzers.sh build/fuzz "${GRIDFTP_FUZZ_SECONDS:-15}"

# Interop suites two at a time: each starts its own servers on free ports, and most of their time
# is spent waiting on peers, so two share the machine without failing (the longest,
# test_udpx_wan, then overlaps the rest).
stage "interop with the real peers (release)" \
  ctest --test-dir build/release -L interop --output-on-failure -j "$jobs"

# The Debian package, made from that release build: dpkg -i, the unit verified, the man pages
# rendered, a smoke transfer through the installed server, dpkg --purge.
stage "Debian package" tests/package/test_package.sh

# What a newcomer and a site's operators meet first: README's quick start run as written, as
# root and as an unprivileged user; the shipped alert rules (promtool) and dashboard, whose
# queries must name metrics the server exports; the bash completions against the programs' own
# options.
stage "README quick start (root and unprivileged)" tests/package/test_quickstart.sh build/release
stage "monitoring rules and dashboard" tests/package/test_monitoring.sh build/release
stage "bash completion" tests/package/test_completion.sh build/release
# deploy/k8s: every overlay rendered by kubectl's kustomize and validated against Kubernetes'
# published schemas, with no cluster, each role's config through gridftpd --check-config; and
# three broken copies that must be rejected.
stage "Kubernetes manifests (offline render + schemas)" tests/package/test_k8s_manifests.sh build/release

total=$((SECONDS - run_started))
echo
echo "== stage times (the whole run, set-up included: ${total}s)"
printf '%s\n' "${timings[@]}"
if ((status == 0)); then echo "ALL TESTS PASSED"; else echo "SOME TESTS FAILED"; fi
exit $status
