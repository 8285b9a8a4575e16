#!/usr/bin/env bash
# README's quick start, run as written: the shell blocks between <!-- quickstart:begin --> and
# <!-- quickstart:end --> (and, as root, the one between <!-- quickstart-root:begin --> and
# <!-- quickstart-root:end --> before them) run in a scratch directory shaped like a checkout,
# where build/release is a link to BUILD_DIR. Once as root, once as a throwaway user that this
# script makes and removes. Each run gets a free port through PORT (the block reads
# PORT=${PORT:-2811}) and a directory of its own, so two runs do not collide; as root the
# block's `export QS=...` line is pointed at that directory for the same reason. Checks the
# bytes of every transfer by SHA-256, that the server stopped, and stops by PID any server that
# is still running. Builds nothing.
#
#   tests/package/test_quickstart.sh BUILD_DIR     (as root; BUILD_DIR holds gridftpd and gridcp)
#
# Prints each failure; exits 1 on any, 2 on bad usage.
set -uo pipefail

usage() { echo "usage: $0 BUILD_DIR   (as root; BUILD_DIR holds gridftpd and gridcp)" >&2; exit 2; }
[[ $# -eq 1 ]] || usage
build_dir=$(realpath -e "$1" 2>/dev/null) || { echo "FAIL: no such directory: $1" >&2; exit 2; }
[[ -x $build_dir/gridftpd && -x $build_dir/gridcp ]] ||
  { echo "FAIL: $build_dir has no gridftpd and gridcp (build them first; this test builds nothing)" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "FAIL: run as root (it runs the block as root and as a user it makes)" >&2; exit 2; }
for tool in curl python3 runuser useradd userdel sha256sum; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed" >&2; exit 2; }
done

readme="$(cd "$(dirname "$0")/../.." && pwd)/README.md"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The lines of a marked block, without its ``` fences.
extract() {
  awk -v b="<!-- $1:begin -->" -v e="<!-- $1:end -->" '
    $0 == b { inside = 1; next }
    $0 == e { inside = 0; next }
    inside && !/^```/ { print }' "$readme"
}

main_block=$(extract quickstart)
root_block=$(extract quickstart-root)
[[ -n $main_block ]] || { echo "FAIL: README.md has no <!-- quickstart:begin --> block" >&2; exit 1; }
[[ -n $root_block ]] || { echo "FAIL: README.md has no <!-- quickstart-root:begin --> block" >&2; exit 1; }
grep -q '^export QS=' <<<"$root_block" ||
  { echo "FAIL: the quickstart-root block sets no QS (export QS=...)" >&2; exit 1; }

work=$(mktemp -d /tmp/gridftpd-quickstart-XXXXXX)
chmod 755 "$work"  # the session account (nobody) and the throwaway user must get through it
mkdir -p "$work/tree/build"
ln -s "$build_dir" "$work/tree/build/release"
user="gfqs$$"
user_made=0
pidfiles=()

# A server a block left running, found by its pidfile and stopped by that PID only if the PID
# is still a gridftpd from BUILD_DIR.
stop_leftover() {
  local f=$1 pid exe
  [[ -s $f ]] || return 0
  pid=$(cat "$f")
  [[ $pid =~ ^[0-9]+$ ]] || return 0
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 0
  [[ $exe == "$build_dir/gridftpd" ]] || return 0
  fail "a server (pid $pid) was still running after the block: stopping it"
  kill "$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
}

cleanup() {
  local f
  for f in "${pidfiles[@]}"; do stop_leftover "$f"; done
  if [[ $user_made == 1 ]]; then
    userdel -r "$user" >/dev/null 2>&1 || echo "WARN: userdel -r $user failed"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

sha() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }

# run_block LABEL QS_DIR RUNNER... : runs the script at $work/LABEL.sh with RUNNER, then checks.
run_block() {
  local label=$1 qs=$2; shift 2
  local port out pid
  port=$(free_port)
  out="$work/$label.out"
  pidfiles+=("$qs/gridftpd.pid")
  echo "== $label: port $port, QS=$qs"
  if ! (cd "$work/tree" && timeout 120 "$@" env PORT="$port" bash -e -o pipefail "$work/$label.sh") \
      >"$out" 2>&1; then
    fail "$label: the block failed; its output:"
    sed 's/^/    /' "$out"
    [[ -f $qs/server.log ]] && { echo "  server log:"; tail -n 20 "$qs/server.log" | sed 's/^/    /'; }
    return
  fi
  # Every transfer: what was put, what came back, what curl put.
  local want
  want=$(sha "$qs/data.bin")
  [[ -n $want ]] || { fail "$label: $qs/data.bin was not made"; return; }
  local f
  for f in "$qs/public/incoming/data.bin" "$qs/data.back" "$qs/public/incoming/curl.bin"; do
    [[ $(sha "$f") == "$want" ]] || fail "$label: $f is missing or differs from data.bin (sha256)"
  done
  grep -qx 'same bytes' "$out" || fail "$label: the block did not print 'same bytes'"
  grep -qx 'hello from gridftpd' "$out" || fail "$label: curl did not get hello.txt"
  grep -q 'data\.bin' "$out" || fail "$label: no listing showed data.bin"
  grep -q 'curl\.bin' "$out" || fail "$label: curl's listing did not show curl.bin"
  # The block's kill must stop the server.
  pid=$(cat "$qs/gridftpd.pid" 2>/dev/null)
  if [[ $pid =~ ^[0-9]+$ ]]; then
    for _ in $(seq 100); do
      [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == "$build_dir/gridftpd" ]] || break
      sleep 0.1
    done
    [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == "$build_dir/gridftpd" ]] &&
      fail "$label: the server (pid $pid) did not stop within 10 s of the block's kill"
  else
    fail "$label: no pidfile at $qs/gridftpd.pid"
  fi
  echo "   $label: transfers checked (sha256 $want)"
}

# As root: the root block (its QS pointed at this run's directory), then the main block.
root_qs="$work/root-qs"
{
  sed -E "s#^export QS=.*#export QS=$root_qs#" <<<"$root_block"
  printf '%s\n' "$main_block"
} >"$work/root.sh"
run_block root "$root_qs" env

# As a fresh unprivileged user, with its own home.
if useradd -m -d "$work/home-$user" -s /bin/bash "$user"; then
  user_made=1
  printf '%s\n' "$main_block" >"$work/user.sh"
  chmod 644 "$work/user.sh" "$work/root.sh"
  run_block user "$work/home-$user/gridftpd-quickstart" \
    runuser -u "$user" -- env -i HOME="$work/home-$user" USER="$user" PATH=/usr/local/bin:/usr/bin:/bin
else
  fail "useradd $user failed"
fi

if [[ $failures -gt 0 ]]; then
  echo "test_quickstart: $failures failure(s)"
  exit 1
fi
echo "test_quickstart: README quick start works as root and as an unprivileged user"
