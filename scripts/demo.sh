#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is missing, build, start gridftpd on its
# built-in config (loopback port 2811, anonymous read-only /srv/gridftpd/public with a writable
# incoming/), and show real transfers with gridcp and with globus-url-copy, checked by sha256.
# The server keeps running afterwards; scripts/demo.sh stop ends it.
set -euo pipefail
cd "$(dirname "$0")/.."
pid_file=/run/gridftpd-demo.pid
log_file=/tmp/gridftpd-demo.log

stop_previous() {
  if [[ -f $pid_file ]] && kill -0 "$(cat "$pid_file")" 2>/dev/null; then
    kill "$(cat "$pid_file")"
    for _ in $(seq 50); do kill -0 "$(cat "$pid_file")" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$pid_file"
}

if [[ ${1:-} == stop ]]; then
  stop_previous
  echo "demo server stopped"
  exit 0
fi

scripts/install-deps.sh --demo
scripts/build.sh release gridftpd gridcp
stop_previous

build/release/gridftpd > "$log_file" 2>&1 &
echo $! > "$pid_file"
for _ in $(seq 100); do
  grep -q "listening on" "$log_file" && break
  kill -0 "$(cat "$pid_file")" 2>/dev/null || { cat "$log_file"; exit 1; }
  sleep 0.1
done
grep "listening on" "$log_file"

root=/srv/gridftpd/public
head -c 64M /dev/urandom > "$root/demo-64MiB.bin"
work=$(mktemp -d)
echo
echo "== gridcp get (stream mode) =="
build/release/gridcp -vb ftp://127.0.0.1:2811/demo-64MiB.bin "file://$work/got.bin"
echo "== gridcp put into the writable area =="
build/release/gridcp -vb "file://$work/got.bin" ftp://127.0.0.1:2811/incoming/put.bin
echo "== globus-url-copy get from gridftpd =="
globus-url-copy -vb ftp://127.0.0.1:2811/demo-64MiB.bin "file://$work/guc.bin"
echo "== listing =="
build/release/gridcp -list ftp://127.0.0.1:2811/
echo "== sha256 =="
sha256sum "$root/demo-64MiB.bin" "$work/got.bin" "$root/incoming/put.bin" "$work/guc.bin"
rm -rf "$work"
echo
echo "gridftpd is running (pid $(cat "$pid_file"), log $log_file) on ftp://127.0.0.1:2811/"
echo "stop it with: scripts/demo.sh stop"
