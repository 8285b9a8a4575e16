#!/usr/bin/env bash
# Data-channel security scaling of gridftpd on a machine that has none of its build or test
# dependencies (no Globus, no spdlog/fmt/toml++, maybe no python3): third-party
# memory-to-memory transfers driven by gridcp, one gridftpd serving both ends,
#     gridcp <-nodcau|-dcsafe|-dcpriv> -p N -len SIZE gsiftp://localhost:P/dev/zero gsiftp://localhost:P/dev/null
# at each level and -p, median of REPEAT runs, with openssl speed beside it.
#
#   bench/device_scaling.sh bundle DIR       # here: stripped binaries, their shared libraries,
#                                            # the openssl CLI and a throwaway GSI PKI into DIR
#   bench/device_scaling.sh run DIR [OUT]    # there: measure, table on stdout, logs under OUT
#
# `bundle` needs the release build (build/release/{gridftpd,gridcp}), python3, openssl and
# grid-proxy-init (tests/support/test_pki.py makes the PKI; its proxy lives 12 hours). `run` needs
# bash, coreutils, awk and, for mknod and the per-session accounts, root; it finds everything
# else in DIR. Knobs (environment): LEVELS ("nodcau dcsafe dcpriv"), STREAMS ("1 2 4 8 16"),
# REPEAT (3), THREADS (server [server] threads, default nproc), TARGET_S (5: each timed run is
# sized from a calibration run of max(MIN_SIZE bytes (2 GiB), 1 GiB per stream) to last about this
# long, rounded up to whole GiB), BUDGET_S (480: cells not started by then are skipped).
set -u -o pipefail

here=$(cd "$(dirname "$0")/.." && pwd)

bundle() {
  local dir=$1
  rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/lib" || exit 1
  local b
  for b in gridftpd gridcp; do
    strip -o "$dir/bin/$b" "$here/build/release/$b" || exit 1
  done
  cp "$(command -v openssl)" "$dir/bin/openssl" || exit 1
  # Every shared library but glibc's own (the loader, libc, libm, ...): the far side's glibc
  # must be at least as new as this one's GLIBC_ symbol versions (checked by `run`).
  { ldd "$dir/bin/gridftpd"; ldd "$dir/bin/gridcp"; ldd "$dir/bin/openssl"; } |
    awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$dir/lib/"; done
  python3 "$here/tests/support/test_pki.py" "$dir/pki-build" >/dev/null || exit 1
  mkdir -p "$dir/pki"
  cp -r "$dir/pki-build/certificates" "$dir/pki/"
  cp "$dir/pki-build/host/cert.pem" "$dir/pki/hostcert.pem"
  cp "$dir/pki-build/host/key.pem" "$dir/pki/hostkey.pem"
  cp "$dir/pki-build/users/test/proxy.pem" "$dir/pki/proxy.pem"
  rm -rf "$dir/pki-build"
  du -sh "$dir"
}

now_ns() { date +%s%N; }
cpu_ticks() { awk '/^cpu /{t=0; for (i=2;i<=NF;i++) t+=$i; print t, t-$5-$6; exit}' /proc/stat; }

run() {
  local dir out
  dir=$(cd "$1" && pwd) || exit 1
  out=${2:-$(mktemp -d)}
  mkdir -p "$out"
  local levels=${LEVELS:-nodcau dcsafe dcpriv} streams=${STREAMS:-1 2 4 8 16}
  local repeat=${REPEAT:-3} threads=${THREADS:-$(nproc)} target_s=${TARGET_S:-5}
  local budget_s=${BUDGET_S:-480} min_size=${MIN_SIZE:-$((2 << 30))}
  local started=$SECONDS

  echo "== machine"
  echo "nproc: $(nproc)   kernel: $(uname -r)   $(grep -m1 PRETTY_NAME /etc/os-release 2>/dev/null)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
  echo "glibc: $(ldd --version 2>&1 | head -1)   python3: $(command -v python3 || echo none)   system openssl: $(command -v openssl || echo none)"
  echo "tcp congestion control: $(cat /proc/sys/net/ipv4/tcp_congestion_control 2>/dev/null)   memory: $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo)"

  export LD_LIBRARY_PATH=$dir/lib
  local missing
  missing=$(ldd "$dir/bin/gridftpd" "$dir/bin/gridcp" "$dir/bin/openssl" 2>&1 | grep -E 'not found|version .* not found')
  if [ -n "$missing" ]; then echo "missing libraries:"; echo "$missing"; return 1; fi

  echo "== openssl speed (the bundled libcrypto gridftpd uses)"
  "$dir/bin/openssl" version
  "$dir/bin/openssl" speed -evp aes-128-gcm -seconds 2 2>/dev/null | tail -2
  "$dir/bin/openssl" speed -evp aes-128-gcm -seconds 2 -bytes 16384 -multi "$(nproc)" 2>/dev/null | tail -1 |
    sed 's/^/all cores, 16 KiB blocks: /'

  # Working copies: the session processes run as the mapped account and must read these.
  local work=/tmp/gridftpd-scaling
  rm -rf "$work" && mkdir -p "$work" && cp -r "$dir/pki" "$work/" || return 1
  chmod -R a+rX "$work"; chmod 600 "$work/pki/hostkey.pem" "$work/pki/proxy.pem"
  local account=gftest
  if [ "$(id -u)" = 0 ] && ! id "$account" >/dev/null 2>&1; then
    useradd -M "$account" 2>/dev/null || account=nobody
  fi
  echo '"/O=Grid/OU=Test/CN=Test User" '"$account" >"$work/pki/gridmap"
  chmod 644 "$work/pki/gridmap"

  # What the mapped user sees as "/": a tmpfs directory with its own dev/zero and dev/null, or
  # the real root where mknod is refused.
  local root
  root=$(mktemp -d /dev/shm/gridftpd-scaling-XXXX) && chmod 755 "$root" && mkdir "$root/dev" &&
    mknod -m 666 "$root/dev/zero" c 1 5 && mknod -m 666 "$root/dev/null" c 1 3 || root=/
  echo "gsi root: $root   mapped account: $account   server threads: $threads"

  cat >"$work/gridftpd.toml" <<EOF
[listen]
control_interface = "127.0.0.1"
port = 0
[server]
threads = $threads
[anonymous]
enabled = false
[gsi]
enabled = true
host_cert = "$work/pki/hostcert.pem"
host_key = "$work/pki/hostkey.pem"
cert_dir = "$work/pki/certificates"
gridmap = "$work/pki/gridmap"
root = "$root"
[logging]
level = "info"
transfer_log = "$out/transfer.log"
EOF
  "$dir/bin/gridftpd" -c "$work/gridftpd.toml" >"$out/gridftpd.log" 2>&1 &
  local server=$! port="" i
  for i in $(seq 100); do
    port=$(sed -n 's/.*listening on [^ ]* port \([0-9]*\).*/\1/p' "$out/gridftpd.log" | head -1)
    [ -n "$port" ] && break
    sleep 0.1
  done
  if [ -z "$port" ]; then echo "gridftpd did not start:"; tail -20 "$out/gridftpd.log"; return 1; fi
  echo "gridftpd pid $server port $port"
  export X509_CERT_DIR=$work/pki/certificates X509_USER_PROXY=$work/pki/proxy.pem
  local src=gsiftp://localhost:$port/dev/zero dst=gsiftp://localhost:$port/dev/null

  # transfer FLAG STREAMS SIZE: wall seconds on stdout; failure -> gridcp's output in the log.
  transfer() {
    local t0 t1
    t0=$(now_ns)
    if ! timeout 300 "$dir/bin/gridcp" "-$1" -p "$2" -len "$3" "$src" "$dst" >>"$out/gridcp.log" 2>&1; then
      echo "FAILED: gridcp -$1 -p $2 -len $3 (see gridcp.log)" >&2
      return 1
    fi
    t1=$(now_ns)
    awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f\n", (b-a)/1e9}'
  }

  echo "== transfers (GB = 1e9 bytes; cpu% = all cores busy during the timed runs)"
  local results=$out/results.txt
  : >"$results"
  local level n calib secs size runs t c0 c1 cpu rate
  for n in $streams; do
    for level in $levels; do
      if (( SECONDS - started > budget_s )); then
        echo "$level -p $n: skipped (budget)"; continue
      fi
      # Calibration: at least 1 GiB per stream, or a many-stream run is mostly set-up and ramp.
      calib=$((n << 30)); (( calib < min_size )) && calib=$min_size
      secs=$(transfer "$level" "$n" "$calib") || { echo "$level -p $n: calibration failed"; continue; }
      size=$(awk -v s="$secs" -v m="$calib" -v t="$target_s" \
        'BEGIN{g=2^30; z=m/s*t; z=int((z+g-1)/g)*g; if (z<m) z=m; printf "%d", z}')
      runs=""
      c0=$(cpu_ticks)
      for i in $(seq "$repeat"); do
        t=$(transfer "$level" "$n" "$size") || { runs=""; break; }
        runs="$runs $t"
      done
      c1=$(cpu_ticks)
      if [ -z "$runs" ]; then echo "$level -p $n: failed"; continue; fi
      cpu=$(echo "$c0 $c1" | awk '{printf "%.0f", 100*($4-$2)/($3-$1)}')
      rate=$(echo "$runs" | tr ' ' '\n' | grep . | sort -g |
        awk -v z="$size" '{a[NR]=$1} END{m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", z/m/1e9}')
      echo "$level -p $n: size $((size >> 30)) GiB, runs${runs} s, median ${rate} GB/s, cpu ${cpu}%"
      echo "$level $n $rate $cpu" >>"$results"
    done
  done
  kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
  [ "$root" != / ] && rm -rf "$root"

  local failed
  failed=$(grep -Ec '"result": ?"failed"' "$out/transfer.log" 2>/dev/null)
  echo "transfer log: $(grep -Ec '"result": ?"ok"' "$out/transfer.log" 2>/dev/null) ok, ${failed:-0} failed records"
  grep -o '"security":"[^"]*","stream_tls":"[^",]*' "$out/transfer.log" 2>/dev/null | sort | uniq -c
  grep -o 'GSI authenticated.*' "$out/gridftpd.log" | grep -o 'tls=[^ ]* .*cipher=[^ ]*' | sort | uniq -c | head -3

  echo "== table: GB/s (cpu%); ratios to nodcau at the same -p; scaling = GB/s at -p N / GB/s at -p 1"
  awk -v levels="$levels" -v streams="$streams" '
    {r[$1 " " $2] = $3; c[$1 " " $2] = $4}
    END {
      nl = split(levels, L, " "); ns = split(streams, S, " ")
      printf "| -p |"; for (i = 1; i <= nl; i++) printf " %s GB/s (cpu%%) |", L[i]
      for (i = 1; i <= nl; i++) if (L[i] != "nodcau") printf " %s/nodcau |", L[i]
      for (i = 1; i <= nl; i++) printf " %s scaling |", L[i]
      printf "\n|---|"; for (i = 1; i <= 3 * nl - 1; i++) printf "---|"; printf "\n"
      for (j = 1; j <= ns; j++) {
        n = S[j]; printf "| %s |", n
        for (i = 1; i <= nl; i++) { k = L[i] " " n; printf (k in r) ? " %.2f (%d) |" : " - |", r[k], c[k] }
        for (i = 1; i <= nl; i++) if (L[i] != "nodcau") {
          k = L[i] " " n; b = "nodcau " n
          printf (k in r && b in r && r[b] > 0) ? " %.2f |" : " - |", r[k] / (r[b] > 0 ? r[b] : 1)
        }
        for (i = 1; i <= nl; i++) {
          k = L[i] " " n; b = L[i] " " S[1]
          printf (k in r && b in r && r[b] > 0) ? " %.2f |" : " - |", r[k] / (r[b] > 0 ? r[b] : 1)
        }
        printf "\n"
      }
    }' "$results"
  echo "elapsed: $((SECONDS - started)) s"
}

case "${1:-}" in
  bundle) [ $# -eq 2 ] || { echo "usage: $0 bundle DIR" >&2; exit 2; }; bundle "$2" ;;
  run) [ $# -ge 2 ] || { echo "usage: $0 run DIR [OUT]" >&2; exit 2; }; run "$2" "${3:-}" ;;
  *) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 2 ;;
esac
