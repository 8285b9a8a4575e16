#!/usr/bin/env bash
# Checks deploy/k8s/ offline: every overlay renders with kustomize (kubectl's, `kubectl
# kustomize`), every rendered object validates against Kubernetes' published schemas (version
# 1.27, from the kubernetes-models package: tests/package/k8s_validator/validate.js), and each
# overlay keeps the roles' command-line contract and its frontend's passive range equal to its
# Service's data ports (check_rendered.py). Then it proves the checks can fail: in a copy of
# deploy/k8s it breaks a manifest in three ways (a field of the wrong type, a required field
# left out, a passive range that no longer matches its Service) and expects each to be rejected.
#
# Usage: tests/package/test_k8s_manifests.sh [BUILD_DIR]
#   With BUILD_DIR (e.g. build/release), each role's gridftpd.toml as rendered into its ConfigMap
#   passes BUILD_DIR/gridftpd --check-config, with a throwaway host certificate, CA directory and
#   grid-mapfile at the paths the pods mount.
# Needs kubectl (Debian: kubernetes-client), node, python3 with PyYAML, and the validator's
# node_modules; scripts/install-deps.sh installs them. No cluster: nothing is sent anywhere.
# Exits 1 with a message on any failure.
set -euo pipefail
gridftpd=
if [[ $# -ge 1 ]]; then
  # Resolved before the cd below, so a path relative to the caller's directory works.
  gridftpd=$(realpath "$1")/gridftpd
fi
cd "$(dirname "$0")/../.."

validator=tests/package/k8s_validator
work=$(mktemp -d /tmp/gridftpd-k8s-XXXXXX)
trap 'rm -rf "$work"' EXIT

die() {
  echo "FAIL: $*" >&2
  exit 1
}

command -v kubectl > /dev/null ||
  die "kubectl not found (Debian: apt-get install kubernetes-client)"
command -v node > /dev/null || die "node not found (Debian: apt-get install nodejs)"
python3 -c 'import yaml' 2> /dev/null || die "python3 without PyYAML (Debian: python3-yaml)"
[[ -d $validator/node_modules/kubernetes-models ]] ||
  die "$validator/node_modules missing: run scripts/install-deps.sh"

# check TREE OVERLAY: renders TREE/overlays/OVERLAY and runs both checks; output in
# $work/OVERLAY.log. Returns 3 if kustomize itself fails, 1 if a check rejects the render.
check() {
  local tree=$1 overlay=$2 out=$work/$2
  kubectl kustomize "$tree/overlays/$overlay" > "$out.yaml" 2> "$out.log" || return 3
  local status=0
  mkdir -p "$out.configs"
  python3 "$validator/check_rendered.py" "$out.yaml" "$out.json" "$out.configs" >> "$out.log" ||
    status=1
  node "$validator/validate.js" < "$out.json" >> "$out.log" || status=1
  return $status
}

overlays=()
for dir in deploy/k8s/overlays/*/; do overlays+=("$(basename "$dir")"); done
((${#overlays[@]} >= 2)) || die "fewer than two overlays in deploy/k8s/overlays"
echo "kubectl: $(kubectl version --client 2>&1 | head -n 1)"
for overlay in "${overlays[@]}"; do
  status=0
  check deploy/k8s "$overlay" || status=$?
  if ((status != 0)); then
    cat "$work/$overlay.log" >&2
    die "overlay $overlay does not render or validate"
  fi
  echo "overlay $overlay: $(tail -n 1 "$work/$overlay.log")"
done

# The rendered configs through gridftpd's own checks. The pods mount their credentials under
# /etc/grid-security; here the same layout is made in $work/pki and the paths pointed at it.
if [[ -n $gridftpd ]]; then
  [[ -x $gridftpd ]] || die "$gridftpd not found"
  pki=$work/pki
  mkdir -p "$pki/host" "$pki/certificates" "$pki/gridmap"
  openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=gridftpd-k8s-test -days 1 \
    -keyout "$pki/host/hostkey.pem" -out "$pki/host/hostcert.pem" 2> /dev/null
  chmod 600 "$pki/host/hostkey.pem"
  ca_hash=$(openssl x509 -noout -hash -in "$pki/host/hostcert.pem")
  cp "$pki/host/hostcert.pem" "$pki/certificates/$ca_hash.0"
  : > "$pki/gridmap/grid-mapfile"
  for overlay in "${overlays[@]}"; do
    for config in "$work/$overlay.configs"/*.toml; do
      sed "s#/etc/grid-security/#$pki/#g" "$config" > "$config.local"
      "$gridftpd" -c "$config.local" --check-config > "$config.log" 2>&1 || {
        cat "$config.log" >&2
        die "overlay $overlay: $(basename "$config") fails gridftpd --check-config"
      }
      echo "overlay $overlay: $(basename "$config") passes gridftpd --check-config"
    done
  done
fi

# expect_rejected WHAT OVERLAY PATTERN: the broken copy in $work/broken renders, is rejected,
# and the rejection names PATTERN.
expect_rejected() {
  local what=$1 overlay=$2 pattern=$3 status=0
  check "$work/broken" "$overlay" || status=$?
  ((status != 3)) ||
    die "$what: kustomize failed, so the checks were not reached: $(cat "$work/$overlay.log")"
  ((status == 1)) || die "$what: accepted"
  grep -q -- "$pattern" "$work/$overlay.log" || {
    cat "$work/$overlay.log" >&2
    die "$what: rejected, but not for '$pattern'"
  }
  echo "rejected as it should be: $what"
}

fresh_copy() {
  rm -rf "$work/broken"
  cp -r deploy/k8s "$work/broken"
}

# A string where the schema wants an integer.
fresh_copy
sed -i 's/containerPort: 2811$/containerPort: "2811"/' "$work/broken/base/frontend/deployment.yaml"
grep -q 'containerPort: "2811"' "$work/broken/base/frontend/deployment.yaml" ||
  die "type break not applied"
expect_rejected "containerPort as a string" small-site "containerPort must be integer"

# A required field left out: the headless Service's port number.
fresh_copy
sed -i '/^      port: 6001$/d' "$work/broken/base/movers/service.yaml"
grep -q 'port: 6001$' "$work/broken/base/movers/service.yaml" &&
  die "required-field break not applied"
expect_rejected "Service port without its number" large-site "must have required property port"

# A passive range wider than the Service forwards.
fresh_copy
range_patch=$work/broken/overlays/large-site/frontend.yaml
sed -i 's/value: "50000,50019"/value: "50000,50029"/' "$range_patch"
grep -q '50000,50029' "$range_patch" || die "range break not applied"
expect_rejected "passive range beyond the Service's ports" large-site "is not the Service's data ports"

echo "k8s manifests: ${#overlays[@]} overlays valid, 3 broken copies rejected"
