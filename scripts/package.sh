#!/usr/bin/env bash
# Builds the release gridftpd and gridcp, then the Debian package from them (CPack, settings in
# packaging/package.cmake), and prints the .deb's path on the last line.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release gridftpd gridcp
# CPack's staging area is rebuilt from scratch so no file of an earlier run slips in.
rm -rf build/release/_CPack_Packages
(cd build/release && cpack -G DEB > cpack.log 2>&1) || { cat build/release/cpack.log >&2; exit 1; }
deb=$(sed -n 's/^CPack: - package: \(.*\.deb\) generated\.$/\1/p' build/release/cpack.log)
[[ -f $deb ]] || { echo "package: no .deb in cpack's output" >&2; cat build/release/cpack.log >&2; exit 1; }
echo "$deb"
