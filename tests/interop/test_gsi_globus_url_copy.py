"""globus-url-copy over gsiftp:// (GSI) against the server under test (issue acceptance 1).

A throwaway PKI (tests/support/test_pki.py) gives a CA in X509_CERT_DIR layout, a host
certificate for `localhost`, RFC 3820 user proxies from grid-proxy-init and a gridmap
(Test User -> gftest, Other User -> gftest2). globus-url-copy authenticates with AUTH GSSAPI/ADAT,
delegates, and logs in as `:globus-mapping:` (docs/WIRE.md §1.6.4, §5).

Covered, all byte-identical by SHA-256 on a 5 MiB + 7 B file:
  * get and put at each data-channel security level -- `-nodcau` (DCAU N), the default (DCAU A,
    PROT C), `-dcsafe` (PROT S), `-dcpriv` (PROT P) -- each with -p 1 and -p 4;
  * third-party -p 4 at the same four levels: under test -> Globus, Globus -> under test and
    under test -> under test (both servers authenticate the data connections with the
    credential the client delegated to them);
  * `-list` over gsiftp;
  * `-udt` refused with the advice to use `-dcstack udpx`;
  * (not yet: a root-run server giving each mapped account its own process, so uploads belong to it)

GRIDFTP_TEST_SERVER=globus runs all of it against globus-gridftp-server (validated there).
"""

import os
import pwd

from gridftp_harness import (MIB, assert_file_digest, check_copy, file_url, give_to_globus_user,
                             GridftpdServer, make_file, make_temp_dir, make_tree_readable,
                             run_peer, run_tests, shared_test_pki, start_globus_server,
                             start_server_under_test)

GUC = "globus-url-copy"
SIZE = 5 * MIB + 7
PARALLELISM = (1, 4)
# Data-channel security levels as globus-url-copy options (docs/WIRE.md §1.5, §5.6):
# -nodcau sends DCAU N; no flag leaves DCAU A with PROT C; -dcsafe sends PROT S; -dcpriv PROT P.
LEVELS = {"nodcau": ["-nodcau"], "dcau-a": [], "dcsafe": ["-dcsafe"], "dcpriv": ["-dcpriv"]}


def guc(args: list[str], user: str = "test", what: str = "", expect_rc: int | None = 0):
    pki = shared_test_pki()
    return run_peer([GUC] + args, env=pki.client_env(user), timeout=180, what=what,
                    expect_rc=expect_rc)


def make_source(server, name: str, seed: int) -> str:
    digest = make_file(server.fs(f"data/{name}"), SIZE, seed=seed)
    make_tree_readable(server.fs("data"))   # a GSI server reads as the mapped account
    return digest



def test_get_and_put_each_dcau_level_and_parallelism():
    pki = shared_test_pki()
    server = start_server_under_test(gsi=pki)
    digest = make_source(server, "gsi.bin", seed=11)
    out = make_temp_dir("guc-gsi-get-")
    for level, flags in LEVELS.items():
        # None: no -p at all, so globus-url-copy stays in stream mode (one data connection,
        # its own handshake); -p N is MODE E with N connections, each with its handshake.
        for p in (None,) + tuple(PARALLELISM):
            p_flags = [] if p is None else ["-p", str(p)]
            what = f"gsiftp get {level} {'stream mode' if p is None else f'-p {p}'}"
            dest = os.path.join(out, f"{level}-p{p}.bin")
            result = guc(flags + p_flags + [server.gsiftp_url("data/gsi.bin"),
                                            file_url(dest)], what=what)
            check_copy(dest, digest, what, result)
            os.unlink(dest)

            what = f"gsiftp put {level} {'stream mode' if p is None else f'-p {p}'}"
            target = f"incoming/{level}-p{p}.bin"
            result = guc(flags + p_flags + [file_url(server.fs("data/gsi.bin")),
                                            server.gsiftp_url(target)], what=what)
            check_copy(server.fs(target), digest, what, result)
            os.unlink(server.fs(target))
    server.assert_alive("after the gsiftp gets and puts")
    if isinstance(server, GridftpdServer):
        # The transfer log says, per transfer, the level and each data connection's TLS.
        records = server.transfer_records()
        by_level = {label: [r for r in records if r.get("security") == label]
                    for label in ("dcau=N prot=C", "dcau=A prot=C", "dcau=A prot=S", "dcau=A prot=P")}
        for label, found in by_level.items():
            assert found, f"no transfer logged with security {label!r}: {records[-3:]}"
        for r in by_level["dcau=A prot=P"] + by_level["dcau=A prot=S"]:
            links = r.get("stream_tls", "").split(", ")
            assert len(links) == r["streams"] and all(l.startswith("TLSv1.") for l in links), r
            # TLS 1.3 data connections are sealed and opened by our own record layer, so the
            # real globus-url-copy's OpenSSL read and wrote its records (docs/ARCHITECTURE.md).
            assert all(l.endswith(" own-record-layer") for l in links if l.startswith("TLSv1.3")), r
        private_links = [l for r in by_level["dcau=A prot=P"] for l in r["stream_tls"].split(", ")]
        assert any(l.endswith(" own-record-layer") for l in private_links), private_links
        for r in by_level["dcau=A prot=C"]:
            assert all(l.startswith("clear after TLSv1.") for l in r["stream_tls"].split(", ")), r
        for r in by_level["dcau=N prot=C"]:
            assert all(l == "clear" for l in r["stream_tls"].split(", ")), r


def third_party_all_levels(source, dest, seed: int, what: str) -> None:
    digest = make_source(source, f"tp-{seed}.bin", seed=seed)
    for level, flags in LEVELS.items():
        name = f"tp-{seed}-{level}.bin"
        step = f"{what}: third-party {level} -p 4"
        result = guc(flags + ["-p", "4", source.gsiftp_url(f"data/tp-{seed}.bin"),
                              dest.gsiftp_url(f"incoming/{name}")], what=step)
        check_copy(dest.fs(f"incoming/{name}"), digest, step, result)
    for server in (source, dest):
        server.assert_alive(f"after {what}")


def test_third_party_under_test_to_globus():
    pki = shared_test_pki()
    third_party_all_levels(start_server_under_test(gsi=pki), start_globus_server(gsi=pki), 21,
                           "under test -> globus-gridftp-server")


def test_third_party_globus_to_under_test():
    pki = shared_test_pki()
    third_party_all_levels(start_globus_server(gsi=pki), start_server_under_test(gsi=pki), 22,
                           "globus-gridftp-server -> under test")


def test_third_party_under_test_to_under_test():
    pki = shared_test_pki()
    third_party_all_levels(start_server_under_test(gsi=pki), start_server_under_test(gsi=pki),
                           23, "under test -> under test")


def test_udt_is_refused_with_advice_to_use_udpx():
    """globus-url-copy -udt asks for Globus's UDT driver (SITE SETNETSTACK udt,gsi). gridftpd's
    UDP channel is UDPX, not UDT4 on the wire, so it refuses with 504 and says what to use
    (docs/UDPX.md §7); the user sees that, and no file is left behind."""
    pki = shared_test_pki()
    server = start_server_under_test(gsi=pki)
    if not isinstance(server, GridftpdServer):
        return  # Globus's answer depends on its -allow-udt build; nothing of ours to check
    make_source(server, "udt.bin", seed=17)
    dest = os.path.join(make_temp_dir("guc-udt-"), "udt.bin")
    result = guc(["-udt", server.gsiftp_url("data/udt.bin"), file_url(dest)],
                 what="gsiftp -udt", expect_rc=None)
    assert result.rc != 0, f"-udt was not refused\n{result.describe()}"
    assert "-dcstack udpx" in result.output, f"the refusal does not reach the user\n{result.describe()}"
    assert not os.path.exists(dest) or os.path.getsize(dest) == 0, "a file was left behind"
    server.assert_alive("after -udt")


def test_list_over_gsiftp():
    pki = shared_test_pki()
    server = start_server_under_test(gsi=pki)
    names = ["alpha.txt", "beta.bin", "with space.txt"]
    for name in names:
        make_file(server.fs(f"listme/{name}"), 10)
    os.makedirs(server.fs("listme/subdir"))
    make_tree_readable(server.fs("listme"))
    result = guc(["-list", server.gsiftp_url("listme/")], what="gsiftp -list")
    listed = [line.strip() for line in result.stdout.splitlines()]
    for name in names:
        assert name in listed, f"gsiftp -list does not show {name!r}\n{result.describe()}"
    assert "subdir/" in listed, f"gsiftp -list does not show 'subdir/'\n{result.describe()}"


if __name__ == "__main__":
    run_tests(globals())
