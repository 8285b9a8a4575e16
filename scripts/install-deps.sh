#!/usr/bin/env bash
# Installs, from Debian's packages (and, for the Kubernetes manifests' validator, the npm
# registry), what is missing:
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
# Commands the tests need that a machine may already have from another package (kubectl from
# Kubernetes' own repository, a newer Node.js that bundles npm), whose files would clash with
# Debian's: the Debian package only where the command is missing. kubectl renders deploy/k8s
# (its built-in kustomize) and node runs its validator (tests/package/test_k8s_manifests.sh).
test_commands=(kubectl:kubernetes-client node:nodejs npm:npm)
# The validator's packages, pinned by its package-lock.json, installed beside it.
k8s_validator=$(dirname "$0")/../tests/package/k8s_validator

commands=()
case ${1:-} in
  "")
    packages=("${demo_packages[@]}" "${test_packages[@]}")
    commands=("${test_commands[@]}")
    ;;
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
for entry in "${commands[@]}"; do
  command -v "${entry%%:*}" > /dev/null || missing+=("${entry#*:}")
done

# The validator's node_modules, when the full set is asked for: (re)installed when missing or
# older than the lock file. npm ci installs exactly what the lock file names.
install_k8s_validator() {
  local installed=$k8s_validator/node_modules/.package-lock.json
  if [[ -f $installed && ! $k8s_validator/package-lock.json -nt $installed ]]; then
    return 0
  fi
  echo "install-deps: installing the Kubernetes manifest validator (npm ci in $k8s_validator)"
  npm ci --prefix "$k8s_validator" --no-audit --no-fund --loglevel=error
}

if ((${#missing[@]} == 0)); then
  echo "install-deps: all packages present"
  if ((${#commands[@]} > 0)); then install_k8s_validator; fi
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
if ((${#commands[@]} > 0)); then install_k8s_validator; fi
