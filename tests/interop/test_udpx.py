"""UDPX, the rate-controlled UDP data channel (docs/UDPX.md), end to end on loopback.

gridcp -udp sends `SITE SETNETSTACK udpx`, then PASV (the server binds a UDP port and the 227
carries it) and RETR/STOR; gridcp is the active side: it runs the TLS key exchange as DCAU's
client with the user's proxy, the server answers with the proxy gridcp delegated. Third-party,
the real globus-url-copy `-dcstack udpx` sends SETNETSTACK to both gridftpd servers and nothing
else of ours: the source (given PORT) keys the connection with the dest by the same TLS, each
server presenting the delegated proxy.

Covered, byte-identical by SHA-256, at PROT C (DCAU A), S (-dcsafe) and P (-dcpriv):
  * gridcp -udp get and put of 0 B, 1 B and 5 MiB + 7 B files, with the UDPX figures in --json
    and the server's transfer log;
  * third-party gridftpd -> gridftpd with gridcp -udp and with globus-url-copy -dcstack udpx;
  * -nodcau is refused (no authenticated key) with a message, and no file is left behind;
  * SITE UDPX STAT reports the last transfer.
"""

import json
import os

from gridftp_harness import (MIB, GsiControl, assert_file_digest, file_url, gridcp_binary,
                             make_file, make_temp_dir, make_tree_readable, run_peer, run_tests,
                             shared_test_pki, start_gridftpd)

SIZES = {"empty.bin": 0, "one.bin": 1, "odd.bin": 5 * MIB + 7}
LEVELS = {"dcau-a": [], "dcsafe": ["-dcsafe"], "dcpriv": ["-dcpriv"]}


def gsi_server():
    return start_gridftpd(gsi=shared_test_pki())


def gridcp(args: list[str], what: str, expect_rc: int | None = 0):
    return run_peer([gridcp_binary()] + args, env=shared_test_pki().client_env("test"),
                    timeout=180, what=what, expect_rc=expect_rc)


def guc(args: list[str], what: str, expect_rc: int | None = 0):
    return run_peer(["globus-url-copy"] + args, env=shared_test_pki().client_env("test"),
                    timeout=180, what=what, expect_rc=expect_rc)


def check_copy(path: str, digest: str, what: str, result) -> None:
    try:
        assert_file_digest(path, digest, what)
    except AssertionError as e:
        raise AssertionError(f"{e}\n{result.describe()}")


def make_sources(server, seed: int) -> dict[str, str]:
    digests = {name: make_file(server.fs(f"data/{name}"), size, seed=seed + i)
               for i, (name, size) in enumerate(SIZES.items())}
    make_tree_readable(server.fs("data"))  # a GSI server reads as the mapped account
    return digests


def udpx_records(server, command: str) -> list[dict]:
    return [r for r in server.transfer_records()
            if r.get("network") == "udpx" and r.get("command") == command]


def test_gridcp_get_and_put_over_udpx():
    server = gsi_server()
    digests = make_sources(server, seed=31)
    out = make_temp_dir("udpx-get-")
    for level, flags in LEVELS.items():
        for name, digest in digests.items():
            what = f"gridcp -udp get {level} {name}"
            dest = os.path.join(out, f"{level}-{name}")
            result = gridcp(flags + ["-udp", "--json", server.gsiftp_url(f"data/{name}"),
                                     file_url(dest)], what=what)
            check_copy(dest, digest, what, result)
            record = json.loads(result.stdout.splitlines()[0])
            assert record.get("network") == "udpx", f"{what}: no UDPX figures\n{result.describe()}"
            what = f"gridcp -udp put {level} {name}"
            result = gridcp(flags + ["-udp", file_url(dest),
                                     server.gsiftp_url(f"incoming/{level}-{name}")], what=what)
            check_copy(server.fs(f"incoming/{level}-{name}"), digest, what, result)
    gets = udpx_records(server, "RETR")
    puts = udpx_records(server, "STOR")
    assert len(gets) == len(LEVELS) * len(SIZES) and len(puts) == len(gets), \
        f"transfer log: {len(gets)} UDPX RETR, {len(puts)} STOR records"
    assert all(r["result"] == "ok" and "udpx_rtt_ms" in r for r in gets + puts)
    server.assert_alive("after gridcp -udp")


def test_third_party_gridcp_udpx():
    source, dest = gsi_server(), gsi_server()
    digests = make_sources(source, seed=41)
    for level, flags in LEVELS.items():
        for name, digest in digests.items():
            what = f"gridcp -udp third-party {level} {name}"
            result = gridcp(flags + ["-udp", source.gsiftp_url(f"data/{name}"),
                                     dest.gsiftp_url(f"incoming/tp-{level}-{name}")], what=what)
            check_copy(dest.fs(f"incoming/tp-{level}-{name}"), digest, what, result)
    assert udpx_records(dest, "STOR") and udpx_records(source, "RETR")


def test_third_party_globus_url_copy_dcstack_udpx():
    source, dest = gsi_server(), gsi_server()
    digests = make_sources(source, seed=51)
    for level, flags in LEVELS.items():
        for name, digest in digests.items():
            what = f"globus-url-copy -dcstack udpx third-party {level} {name}"
            result = guc(flags + ["-dcstack", "udpx", source.gsiftp_url(f"data/{name}"),
                                  dest.gsiftp_url(f"incoming/guc-{level}-{name}")], what=what)
            check_copy(dest.fs(f"incoming/guc-{level}-{name}"), digest, what, result)
    stored = udpx_records(dest, "STOR")
    assert len(stored) == len(LEVELS) * len(SIZES), \
        f"the dest logged {len(stored)} UDPX STORs: the copy did not go over UDPX"


def test_udpx_without_dcau_is_refused():
    server = gsi_server()
    make_sources(server, seed=61)
    out = make_temp_dir("udpx-nodcau-")
    dest = os.path.join(out, "x.bin")
    result = gridcp(["-udp", "-nodcau", server.gsiftp_url("data/odd.bin"), file_url(dest)],
                    what="gridcp -udp -nodcau", expect_rc=None)
    assert result.rc != 0 and "-nodcau" in result.output, result.describe()
    # The server refuses it too, before any transfer begins: UDPX keys come from DCAU's TLS.
    # (globus-url-copy itself never sends SETNETSTACK with -nodcau: it drops -dcstack then.)
    pki = shared_test_pki()
    control = GsiControl(server.host, server.port)
    try:
        control.gsi_login(pki.proxy("test"), pki.ca_cert, delegate=True)
        control.enc_expect("DCAU N", 200)
        control.enc_expect("SITE SETNETSTACK udpx", 200)
        control.enc_expect("PASV", 227)
        reply = control.enc_expect("RETR /data/odd.bin", 536)
        assert "DCAU" in reply, reply
    finally:
        control.close()
    server.assert_alive("after refusals")


if __name__ == "__main__":
    run_tests(globals())
