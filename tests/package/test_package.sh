#!/usr/bin/env bash
# The Debian package end to end: build it (scripts/package.sh), install it with dpkg, verify the
# installed systemd unit, render the installed man pages, start the installed server on the
# installed config as the unit does (its ExecStart line, NoNewPrivileges and capability bounding
# set; a free port instead of 2811, since no systemd runs here), move a file through it with
# the installed gridcp, then purge the package. Run as root on Debian 12; the machine is left as
# it was found: /srv/gridftpd goes only if this test created it. Prints each failure; exits 1 on
# any.
set -uo pipefail
cd "$(dirname "$0")/../.."

unit=/lib/systemd/system/gridftpd.service
anonymous_root=/srv/gridftpd/public
failures=0
installed=0
server_pid=
smoke_file=
work=$(mktemp -d /tmp/gridftpd-package-XXXXXX)
srv_existed=0
[[ -e /srv/gridftpd ]] && srv_existed=1

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

step() { echo "== $*"; }

# What the package's maintainer scripts touch (enablement symlinks, masks, deb-systemd-helper's
# state); after the purge it must read as before the install.
systemd_state() {
  find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
    /var/lib/systemd/deb-systemd-helper-masked -name '*gridftpd*' 2> /dev/null | sort
}

cleanup() {
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2> /dev/null; then kill "$server_pid"; fi
  [[ -n $smoke_file ]] && rm -f "$smoke_file"
  ((installed)) && dpkg --purge gridftpd > /dev/null 2>&1
  ((srv_existed)) || rm -rf /srv/gridftpd
  rm -rf "$work"
}
trap cleanup EXIT

finish() {
  if ((failures == 0)); then echo "PACKAGE TEST PASSED"; else echo "PACKAGE TEST FAILED ($failures)"; fi
  exit $((failures == 0 ? 0 : 1))
}

if [[ $(id -u) -ne 0 ]]; then
  fail "must run as root (dpkg -i)"
  finish
fi
if dpkg-query -W -f='${Status}' gridftpd 2> /dev/null | grep -q installed; then
  fail "a gridftpd package is already installed; this test installs and purges its own"
  finish
fi
state_before=$(systemd_state)

step "build the package"
scripts/package.sh > "$work/package.log" 2>&1
deb=$(tail -n 1 "$work/package.log")
if [[ $deb != *.deb || ! -f $deb ]]; then
  tail -n 40 "$work/package.log"
  fail "scripts/package.sh made no .deb"
  finish
fi
echo "$deb"
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Depends\):/  \1:/p'

step "dpkg -i"
if ! dpkg -i "$deb"; then
  # A machine without the runtime libraries: let apt bring them, then configure the package.
  DEBIAN_FRONTEND=noninteractive apt-get install -f -y -qq || true
fi
if dpkg-query -W -f='${Status}' gridftpd 2> /dev/null | grep -q "install ok installed"; then
  installed=1
else
  fail "dpkg -i did not leave gridftpd installed"
  finish
fi
for path in /usr/sbin/gridftpd /usr/bin/gridcp /etc/gridftpd/gridftpd.toml "$unit" \
  /etc/logrotate.d/gridftpd /usr/share/man/man8/gridftpd.8.gz /usr/share/man/man1/gridcp.1.gz \
  /usr/share/gridftpd/bench/gridbench/gridbench /usr/share/gridftpd/tests/support/gridftp_harness.py; do
  [[ -f $path ]] || fail "the package did not install $path"
done
for conffile in /etc/gridftpd/gridftpd.toml /etc/logrotate.d/gridftpd; do
  grep -qx "$conffile" /var/lib/dpkg/info/gridftpd.conffiles 2> /dev/null ||
    fail "$conffile is not a conffile"
done
# logrotate reads the installed file without complaint (a dry run on a state file of our own).
if command -v logrotate > /dev/null; then
  logrotate_state=$(mktemp)
  logrotate -d -s "$logrotate_state" /etc/logrotate.d/gridftpd > /dev/null 2>&1 ||
    fail "logrotate -d refuses /etc/logrotate.d/gridftpd"
  rm -f "$logrotate_state"
fi
version=$(dpkg-query -W -f='${Version}' gridftpd)
[[ $(/usr/sbin/gridftpd -version) == "gridftpd $version" ]] ||
  fail "gridftpd -version says '$(/usr/sbin/gridftpd -version)', the package $version"
/usr/sbin/gridftpd -c /etc/gridftpd/gridftpd.toml --check-config > /dev/null ||
  fail "the installed config does not pass --check-config"

step "gridbench (no transfers: help, a bad study file, the installed quick study's plan)"
[[ -L /usr/bin/gridbench && -x /usr/bin/gridbench ]] || fail "/usr/bin/gridbench is not a link to a program"
# Output captured whole, not piped to grep -q: an early exit of grep would break the pipe.
help_output=$(/usr/bin/gridbench --help 2>&1)
[[ $help_output == *"gridbench [-h] {run,report}"* ]] || fail "gridbench --help: $help_output"
printf '[sweep]\nlevels = ["none"]\n' > "$work/bad-study.toml"
bad_output=$(/usr/bin/gridbench run "$work/bad-study.toml" 2>&1)
bad_rc=$?
((bad_rc == 2)) && [[ $bad_output == *"[sweep] levels: unknown key"* ]] ||
  fail "gridbench on a bad study: rc $bad_rc, '$bad_output' (wanted rc 2 naming [sweep] levels)"
quick=/usr/share/gridftpd/bench/studies/security-quick.toml
plan_output=$(/usr/bin/gridbench run "$quick" --dry-run 2>&1)
[[ $plan_output == *" runs"$'\n'* ]] ||
  fail "gridbench run $quick --dry-run does not print the plan: ${plan_output:0:300}"

step "systemd-analyze verify $unit"
verify_output=$(systemd-analyze verify "$unit" 2>&1)
verify_rc=$?
[[ -n $verify_output ]] && echo "$verify_output"
((verify_rc == 0)) && [[ -z $verify_output ]] || fail "systemd-analyze verify is not clean (rc $verify_rc)"
# For the record only: exposure as systemd rates it (lower is better).
systemd-analyze security --offline=true "$unit" 2> /dev/null | tail -n 1

step "man pages"
MANPAGER=cat MANWIDTH=100 man gridftpd 2> /dev/null | grep -q "gridftpd - GridFTP-compatible transfer server" ||
  fail "man gridftpd does not render"
MANPAGER=cat MANWIDTH=100 man 1 gridcp 2> /dev/null | grep -q "takes globus-url-copy's flags" ||
  fail "man gridcp does not render"
for page in /usr/share/man/man8/gridftpd.8.gz /usr/share/man/man1/gridcp.1.gz; do
  warnings=$(zcat "$page" | groff -man -Tutf8 -ww -z 2>&1)
  [[ -z $warnings ]] || fail "groff warns on $page: $warnings"
done

step "start the installed server as the unit does, on a free port"
read -r -a exec_start <<< "$(sed -n 's/^ExecStart=//p' "$unit")"
# CapabilityBoundingSet=CAP_A CAP_B -> setpriv's -all,+a,+b; an empty inheritable set makes the
# bounding set the whole of what the exec'd root process holds, as under systemd.
bounding=-all
for cap in $(sed -n 's/^CapabilityBoundingSet=//p' "$unit"); do
  cap=${cap#CAP_}
  bounding+=",+${cap,,}"
done
no_new_privs=()
grep -qx 'NoNewPrivileges=yes' "$unit" && no_new_privs=(--no-new-privs)
setpriv "${no_new_privs[@]}" --inh-caps=-all --bounding-set="$bounding" \
  "${exec_start[@]}" -p 0 > "$work/server.log" 2>&1 &
server_pid=$!
port=
for _ in $(seq 200); do
  port=$(sed -n 's/.*listening on 127\.0\.0\.1 port \([0-9]\+\).*/\1/p' "$work/server.log")
  [[ -n $port ]] && break
  kill -0 "$server_pid" 2> /dev/null || break
  sleep 0.1
done
if [[ -z $port ]]; then
  cat "$work/server.log"
  fail "the installed server did not start listening"
  finish
fi
grep -o 'listening on .*' "$work/server.log"
caps=$(sed -n 's/^CapBnd:\s*//p' "/proc/$server_pid/status")
decoded=$(capsh --decode="$caps" 2> /dev/null | cut -d= -f2)
echo "server pid $server_pid, capability bounding set ${decoded:-0x$caps}"

step "smoke transfer with the installed gridcp"
name=package-smoke-$$.bin
smoke_file=$anonymous_root/incoming/$name
head -c 3M /dev/urandom > "$work/sent.bin"
/usr/bin/gridcp -vb "file://$work/sent.bin" "ftp://127.0.0.1:$port/incoming/$name" ||
  fail "gridcp put into incoming/ failed"
/usr/bin/gridcp -vb "ftp://127.0.0.1:$port/incoming/$name" "file://$work/got.bin" ||
  fail "gridcp get (stream mode) failed"
/usr/bin/gridcp -vb -p 4 "ftp://127.0.0.1:$port/incoming/$name" "file://$work/got-mode-e.bin" ||
  fail "gridcp get (MODE E, 4 streams) failed"
sent=$(sha256sum < "$work/sent.bin")
for copy in "$smoke_file" "$work/got.bin" "$work/got-mode-e.bin"; do
  [[ -f $copy && $(sha256sum < "$copy") == "$sent" ]] || fail "$copy differs from what was sent"
done
echo "sha256 ${sent%% *} on all three copies"

step "stop the server (SIGTERM)"
kill "$server_pid"
wait "$server_pid"
server_rc=$?
server_pid=
((server_rc == 0)) || fail "the server exited with $server_rc after SIGTERM"
grep -q 'stopped' "$work/server.log" || fail "the server log does not end with 'stopped'"
rm -f "$smoke_file"
smoke_file=

step "dpkg --purge gridftpd"
dpkg --purge gridftpd || fail "dpkg --purge gridftpd failed"
installed=0
for path in /usr/sbin/gridftpd /usr/bin/gridcp /etc/gridftpd "$unit" /usr/bin/gridbench \
  /usr/share/gridftpd /etc/logrotate.d/gridftpd; do
  [[ ! -e $path && ! -L $path ]] || fail "$path is still there after the purge"
done
[[ $(systemd_state) == "$state_before" ]] || fail "systemd state differs after the purge: $(systemd_state)"

finish
