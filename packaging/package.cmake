# The Debian package (CPack's DEB generator): `scripts/package.sh` builds it in build/release.
# Included from the top-level CMakeLists.txt after its install() rules. With Ninja, cpack packages
# what is already built and builds nothing itself.

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gridftpd)
set(CPACK_PACKAGE_VENDOR "gridftpd")
set(CPACK_PACKAGE_CONTACT "gridftpd maintainers <maintainers@users.noreply.a-seed-f91b49fe.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GridFTP-compatible transfer server and client")
set(CPACK_PACKAGE_DESCRIPTION
    "gridftpd serves FTP, FTPS and GridFTP (MODE E parallel streams, GSI with delegation and \
gridmap mapping, DCAU and data channel protection, third-party transfers, restart markers, \
checksums) and reads globus-gridftp-server's command line and config files. gridcp is a client \
that takes globus-url-copy's flags. gridbench runs security-vs-throughput studies of gridftpd \
and globus-gridftp-server. The package installs a systemd unit, neither enabled nor started, \
and a default config in /etc/gridftpd.")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Version from project(); the file is gridftpd_<version>_<arch>.deb.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Depends: from dpkg-shlibdeps over the installed binaries, so it names exactly the libraries
# they link (libssl3, libspdlog1.10-fmt9, libfmt9, libtomlplusplus3, libstdc++6, libc6,
# libgcc-s1).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# gridbench (/usr/bin/gridbench) is Python: Debian 12's python3 (tomllib) and matplotlib for
# its plots; the servers and clients it compares against are suggested. Recommended rather
# than required, so a server host need not carry Python to run gridftpd.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3 (>= 3.11), python3-matplotlib")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "globus-gass-copy-progs, globus-gridftp-server-progs, globus-proxy-utils, iperf3, openssl")
# The release preset builds with debug information; the package carries stripped binaries.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_CURRENT_LIST_DIR}/deb/conffiles ${CMAKE_CURRENT_LIST_DIR}/deb/postinst
    ${CMAKE_CURRENT_LIST_DIR}/deb/prerm ${CMAKE_CURRENT_LIST_DIR}/deb/postrm)
# Maintainer scripts 0755 and conffiles 0644 whatever the checkout's modes.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

include(CPack)
