#!/usr/bin/env bash
# Test-name check: ctest learns the unit tests from Catch's list as a CMake list, where ';'
# separates items and an unbalanced '[' or ']' swallows every name after it into one test, so
# hundreds of tests silently stop being run one by one. Fails on any TEST_CASE name holding one
# of those characters, or starting with '-' (ctest passes the name to Catch, which takes it
# for an option and fails the test). Usage: check_test_names.sh <repo_root>
set -euo pipefail
root="${1:?usage: check_test_names.sh <repo_root>}"
cd "$root"
if bad=$(grep -rnE 'TEST_CASE(_METHOD)?\([^"]*"[^"]*[][;][^"]*"' tests/unit); then
  printf '%s\n' "$bad"
  echo "check_test_names: test names must not contain ';', '[' or ']' (tags go in the second argument)" >&2
  exit 1
fi
if bad=$(grep -rnE 'TEST_CASE(_METHOD)?\(\s*"-' tests/unit); then
  printf '%s\n' "$bad"
  echo "check_test_names: test names must not start with '-' (Catch reads them as options)" >&2
  exit 1
fi
echo "check_test_names: ok"
