#!/usr/bin/env bash
# Installs, from Debian's packages only, what is missing:
#   scripts/install-deps.sh          everything the build, the tests and the benchmarks need
#   scripts/install-deps.sh --demo   only what scripts/demo.sh and README's quick start use:
#                                    the build, globus-url-copy and curl
# Idempotent: a second run installs nothing. Packages that start a service when installed
# (vsftpd, prometheus, iperf3, globus-gridftp-server) are installed with a policy-rc.d that
# forbids starting services, so nothing is left listening: the tests start their own copies.
set -euo pipefail

demo_packages=(
  build-essential ccache cmake ninja-build pkg-config
  libboost-dev libssl-dev libspdlog-dev libfmt-dev catch2 libcli11-dev libtomlplusplus-dev
  python3 globus-gass-copy-progs curl
)
test_packages=(
  git clang-format clang-tidy clang libclang-rt-14-dev
  python3-matplotlib python3-fusepy openssl
  globus-gridftp-server-progs globus-proxy-utils globus-gsi-cert-utils-progs
  lftp vsftpd iperf3 tmux procps iproute2 prometheus
  file man-db systemd logrotate jq python3-yaml
)

case ${1:-} in
  "") packages=("${demo_packages[@]}" "${test_packages[@]}") ;;
  --demo) packages=("${demo_packages[@]}") ;;
  *)
    echo "usage: scripts/install-deps.sh [--demo]" >&2
    exit 2
    ;;
esac

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

# invoke-rc.d and deb-systemd-invoke ask /usr/sbin/policy-rc.d before starting a service; 101
# means "not allowed" (Debian Policy, invoke-rc.d(8)). An existing policy is left as it is.
policy=/usr/sbin/policy-rc.d
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\n# scripts/install-deps.sh: no service starts while it installs packages\nexit 101\n' > "$policy"
  chmod 755 "$policy"
  trap 'rm -f "$policy"' EXIT
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
