#!/usr/bin/env bash
# Runs the server benchmarks against two builds in one sitting, alternating A B A B so that drift
# on a noisy machine hits both alike; the spread between a build's own rounds is the noise.
#   bench/before_after.sh BUILD_A BUILD_B [ROUNDS]   (each BUILD holds gridftpd and gridcp)
# Output: one log per run under $OUT (default /tmp/before-after), and a summary of every
# table row per run on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
a=${1:?usage: before_after.sh BUILD_A BUILD_B [ROUNDS]}
b=${2:?usage: before_after.sh BUILD_A BUILD_B [ROUNDS]}
rounds=${3:-2}
out=${OUT:-/tmp/before-after}
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for side in A B; do
    if [[ $side == A ]]; then build=$a; else build=$b; fi
    tag=$side-r$round
    echo "== gsi_bench $side=$build round $round"
    python3 bench/gsi_bench.py --server gridftpd --size "${GSI_SIZE:-1G}" --repeat 3 \
      --gridftpd "$build/gridftpd" >"$out/gsi-$tag.log" 2>&1 || echo "gsi_bench failed: $out/gsi-$tag.log"
    grep -E "^(nodcau|dcau|dcsafe|dcpriv) " "$out/gsi-$tag.log" || tail -5 "$out/gsi-$tag.log"
    echo "== mode_e_bench $side=$build round $round"
    python3 bench/mode_e_bench.py --size "${MODE_E_SIZE:-2G}" --streams 1,4,8 --files 1000 \
      --gridftpd "$build/gridftpd" >"$out/mode_e-$tag.log" 2>&1 || echo "mode_e_bench failed: $out/mode_e-$tag.log"
    grep -E "^ *[0-9]+ +[0-9.]+ |files/min|ratio" "$out/mode_e-$tag.log" || tail -5 "$out/mode_e-$tag.log"
  done
done
