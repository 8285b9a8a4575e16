#!/usr/bin/env bash
# UDPX acceptance 1 in full: the two WAN tests of tests/interop/test_udpx_wan.py (50 ms RTT,
# 1 % random loss each way, 200 Mb/s) with a 1 GiB file on every path at every data-channel
# level: gridcp -udp get and put, third-party gridftpd -> gridftpd driven by gridcp -udp and by
# the real globus-url-copy -dcstack udpx, each at PROT C (DCAU A), S and P. Twelve 1 GiB
# transfers plus the small files, byte-identical by SHA-256; each 1 GiB transfer's UDPX figures
# are printed. About 15 minutes on 2 cores. The test command itself moves one 1 GiB file per
# path, each at another level, to stay within its time budget.
#
#   bench/udpx_acceptance.sh [BUILD_DIR]     # default build/release; needs root and /dev/net/tun
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build/release}" && pwd) || exit 1
export GRIDFTPD=$build/gridftpd GRIDCP=$build/gridcp WANEM=$build/wanem
export PYTHONPATH=$here/tests/support UDPX_WAN_EVERY_LEVEL=1
exec python3 "$here/tests/interop/test_udpx_wan.py" \
  test_gridcp_udpx_get_and_put_through_a_lossy_link test_third_party_udpx_through_a_lossy_link
