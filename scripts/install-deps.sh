#!/usr/bin/env bash
# Installs, from Debian's packages only, whatever the build, the tests and the benchmarks need and
# is missing. Idempotent: a second run installs nothing.
set -euo pipefail

packages=(
  build-essential ccache cmake ninja-build pkg-config git clang-format
  clang libclang-rt-14-dev
  libboost-dev libssl-dev libspdlog-dev libfmt-dev catch2 libcli11-dev libtomlplusplus-dev
  python3 python3-matplotlib python3-fusepy openssl
  globus-gridftp-server-progs globus-gass-copy-progs globus-proxy-utils globus-gsi-cert-utils-progs
  lftp curl vsftpd iperf3 tmux procps iproute2 prometheus
  file man-db systemd
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all packages present"
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing packages (${missing[*]}); run as root to install them" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
