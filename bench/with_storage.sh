#!/bin/bash
# gridftpd with [storage] settings added to the config file it is given (-c FILE), for
# file_bench.py --gridftpd: GRIDFTPD_SENDFILE ("other-hosts", "always", "never"),
# GRIDFTPD_BLOCK_BYTES and GRIDFTPD_CHECKSUMS (replaces the file's own list). The rest of the
# command line passes through. bench/README.md, "Third-party -p 1 on one host". GRIDFTPD_BIN: the binary (default build/release/gridftpd beside this script).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${GRIDFTPD_BIN:-$here/build/release/gridftpd}
extra=""
[[ -n ${GRIDFTPD_SENDFILE:-} ]] && extra+="\\nsendfile = \"$GRIDFTPD_SENDFILE\""
[[ -n ${GRIDFTPD_BLOCK_BYTES:-} ]] && extra+="\\nblock_bytes = $GRIDFTPD_BLOCK_BYTES"
# A TOML array, e.g. '[]' to compute no checksum while files arrive.
[[ -n ${GRIDFTPD_CHECKSUMS:-} ]] && extra+="\\nchecksums = $GRIDFTPD_CHECKSUMS"
args=("$@")
for i in "${!args[@]}"; do
  if [[ ${args[$i]} == -c ]]; then
    src=${args[$((i + 1))]}
    dst=$src.with-storage.toml
    keep=(cat)  # the file's own checksums line goes when GRIDFTPD_CHECKSUMS replaces it
    [[ -n ${GRIDFTPD_CHECKSUMS:-} ]] && keep=(grep -v '^checksums = ')
    "${keep[@]}" < "$src" | sed "s/^\[storage\]\$/[storage]$extra/" > "$dst"
    args[$((i + 1))]=$dst
  fi
done
exec "$bin" "${args[@]}"
