"""gridcp over ftps:// (RFC 4217 explicit FTPS: AUTH TLS, then PBSZ 0 and PROT P) against
gridftpd's FTPS (issue 5 scope: "ftps:// where the server offers AUTH TLS"; issue 13: -p N over
TLS, --ftps-ca, --ftps-insecure, session reuse). globus-gridftp-server has no AUTH TLS, so it
stands in for a server without FTPS. tests/interop/test_gridcp_vsftpd.py runs gridcp against
vsftpd.

The server certificate is the test PKI's host certificate (CN=localhost, signed by the test CA);
gridcp trusts OpenSSL's default anchors, which SSL_CERT_FILE points at the test CA here.

  * get and put in stream mode, a 5 MiB + 7 B file and an empty one, byte-identical by SHA-256;
    -list; the server's transfer log shows every data connection in TLS, each resuming the
    control connection's session;
  * -p 4 get and put (MODE E, four TLS connections, gridftpd the TLS server of each whoever
    connects) and -fast, byte-identical, four resumed TLS connections in the log;
  * --ftps-ca with the CA's file or its hashed directory instead of the default anchors;
    --ftps-insecure accepts a certificate that names another host;
  * refused, each with a clear message, non-zero exit and no file: a server certificate from an
    untrusted CA, a URL host the certificate does not name (127.0.0.2), a server without AUTH
    TLS, third-party ftps (no SSCN: both servers would wait as TLS servers), --ftps-ca with
    --ftps-insecure;
  * a server that requires TLS still refuses gridcp's plain ftp:// login.
"""

import os
import shutil

from gridftp_harness import (MIB, file_url, gridcp_binary, make_file, make_temp_dir,
                             make_tree_readable, run_peer, run_tests, sha256_file,
                             shared_test_pki, start_globus_server, start_gridftpd, wait_until)

SIZES = {"big.bin": 5 * MIB + 7, "empty.bin": 0}


def ftps_server(**sections):
    pki = shared_test_pki()
    return start_gridftpd(tls={"enabled": True, "required": True, "cert": pki.host_cert,
                               "key": pki.host_key}, **sections)


def trusting_env() -> dict:
    return dict(os.environ, SSL_CERT_FILE=shared_test_pki().ca_cert)


def ftps_url(server, rel: str, host: str = "localhost") -> str:
    return f"ftps://{host}:{server.port}/{rel}"


def gridcp(args: list[str], what: str, env: dict | None = None, expect_rc: int | None = 0):
    return run_peer([gridcp_binary()] + args, env=env if env is not None else trusting_env(),
                    timeout=120, what=what, expect_rc=expect_rc)


def test_get_put_and_list():
    server = ftps_server()
    digests = {name: make_file(server.fs(f"data/{name}"), size, seed=80 + i)
               for i, (name, size) in enumerate(SIZES.items())}
    make_tree_readable(server.fs("data"))
    out = make_temp_dir("gridcp-ftps-")
    for name, digest in digests.items():
        local = os.path.join(out, name)
        result = gridcp([ftps_url(server, f"data/{name}"), file_url(local)], f"ftps get {name}")
        assert sha256_file(local) == digest, f"ftps get {name} differs\n{result.describe()}"
        result = gridcp([file_url(local), ftps_url(server, f"incoming/{name}")], f"ftps put {name}")
        assert sha256_file(server.fs(f"incoming/{name}")) == digest, (
            f"ftps put {name} differs\n{result.describe()}")
    listing = gridcp(["-list", ftps_url(server, "data/")], "ftps -list")
    for name in SIZES:
        assert name in listing.stdout, f"-list does not show {name}\n{listing.describe()}"
    records = [r for r in server.transfer_records() if r.get("command") in ("RETR", "STOR")]
    assert len(records) == 2 * len(SIZES), records
    for record in records:
        assert record.get("result") == "ok", record
        assert_resumed_tls(record)
    server.assert_alive("after the ftps transfers")


def assert_resumed_tls(record: dict) -> None:
    """Every data connection of `record` was TLS and resumed the control connection's session
    (RFC 4217 §10.2; what vsftpd's require_ssl_reuse demands)."""
    links = record.get("stream_tls", "").split(", ")
    assert len(links) == record["streams"], record
    for link in links:
        assert link.startswith("TLSv1."), f"a data connection was not TLS: {record}"
        assert link.endswith(" resumed"), f"a data connection did not resume the session: {record}"


def test_mode_e_over_tls_with_four_streams():
    server = ftps_server()
    size = 5 * MIB + 7
    digest = make_file(server.fs("data/p4.bin"), size, seed=84)
    make_tree_readable(server.fs("data"))
    out = make_temp_dir("gridcp-ftps-p4-")
    local = os.path.join(out, "p4.bin")
    result = gridcp(["-p", "4", ftps_url(server, "data/p4.bin"), file_url(local)], "ftps -p 4 get")
    assert sha256_file(local) == digest, f"ftps -p 4 get differs\n{result.describe()}"
    result = gridcp(["-p", "4", file_url(local), ftps_url(server, "incoming/p4.bin")],
                    "ftps -p 4 put")
    assert sha256_file(server.fs("incoming/p4.bin")) == digest, (
        f"ftps -p 4 put differs\n{result.describe()}")
    fast = os.path.join(out, "fast.bin")
    result = gridcp(["-fast", ftps_url(server, "data/p4.bin"), file_url(fast)], "ftps -fast get")
    assert sha256_file(fast) == digest, f"ftps -fast get differs\n{result.describe()}"
    expected = [("RETR", 4), ("STOR", 4), ("RETR", 1)]
    def transfers():
        return [r for r in server.transfer_records() if r.get("command") in ("RETR", "STOR")]
    wait_until(lambda: len(transfers()) >= 3, 30, "the three transfer records")
    records = transfers()
    assert [(r["command"], r["streams"]) for r in records] == expected, records
    for record in records:
        assert record["mode"] == "E" and record["bytes"] == size and record["result"] == "ok", record
        assert_resumed_tls(record)
    server.assert_alive("after the ftps MODE E transfers")


def test_ftps_ca_file_and_directory_and_insecure():
    server = ftps_server()
    digest = make_file(server.fs("data/ca.bin"), 100_000, seed=85)
    make_tree_readable(server.fs("data"))
    out = make_temp_dir("gridcp-ftps-ca-")
    pki = shared_test_pki()
    # Only the flags vouch for the server: no SSL_CERT_FILE, and the system anchors lack the CA.
    plain_env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    for what, flags in (("--ftps-ca file", ["--ftps-ca", pki.ca_cert]),
                        ("--ftps-ca directory", ["--ftps-ca", pki.cert_dir])):
        local = os.path.join(out, what.replace(" ", "-"))
        result = gridcp(flags + [ftps_url(server, "data/ca.bin"), file_url(local)], what,
                        env=plain_env)
        assert sha256_file(local) == digest, f"{what}: the get differs\n{result.describe()}"
    # --ftps-insecure takes a certificate that names another host and comes from no known CA.
    elsewhere = ftps_server(listen={"control_interface": "127.0.0.2"})
    os.makedirs(elsewhere.fs("data"))
    shutil.copyfile(server.fs("data/ca.bin"), elsewhere.fs("data/ca.bin"))
    make_tree_readable(elsewhere.fs("data"))
    local = os.path.join(out, "insecure.bin")
    result = gridcp(["--ftps-insecure", ftps_url(elsewhere, "data/ca.bin", host="127.0.0.2"),
                     file_url(local)], "--ftps-insecure", env=plain_env)
    assert sha256_file(local) == digest, f"--ftps-insecure: the get differs\n{result.describe()}"
    assert "not checked" in result.stderr, f"--ftps-insecure said nothing\n{result.describe()}"
    # The CA flag does not make up for a certificate that names another host.
    refused(["--ftps-ca", pki.ca_cert, ftps_url(elsewhere, "data/ca.bin", host="127.0.0.2"),
             file_url(os.path.join(out, "wrong-host.bin"))], "--ftps-ca, wrong host",
            "certificate verify failed", env=plain_env, no_file=os.path.join(out, "wrong-host.bin"))
    refused(["--ftps-ca", pki.ca_cert, "--ftps-insecure", ftps_url(server, "data/ca.bin"),
             file_url(os.path.join(out, "both.bin"))], "--ftps-ca with --ftps-insecure",
            "exclude each other", no_file=os.path.join(out, "both.bin"))
    refused(["--ftps-ca", os.path.join(out, "missing.pem"), ftps_url(server, "data/ca.bin"),
             file_url(os.path.join(out, "missing.bin"))], "--ftps-ca of a missing file",
            "cannot read --ftps-ca", no_file=os.path.join(out, "missing.bin"))


def refused(args: list[str], what: str, says: str, env: dict | None = None, no_file: str = ""):
    result = gridcp(args, what, env=env, expect_rc=None)
    assert result.rc != 0, f"{what}: gridcp succeeded\n{result.describe()}"
    assert says in result.output, f"{what}: expected {says!r} in the message\n{result.describe()}"
    if no_file:
        assert not os.path.exists(no_file), f"{what}: {no_file} was written"


def test_untrusted_certificate_wrong_host_and_no_auth_tls_are_refused():
    server = ftps_server()
    make_file(server.fs("data/a.bin"), 1000, seed=90)
    make_tree_readable(server.fs("data"))
    out = make_temp_dir("gridcp-ftps-bad-")
    dest = os.path.join(out, "a.bin")
    # No SSL_CERT_FILE: the system anchors do not include the test CA.
    plain_env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    refused([ftps_url(server, "data/a.bin"), file_url(dest)], "untrusted CA",
            "certificate verify failed", env=plain_env, no_file=dest)
    # The certificate names localhost and 127.0.0.1; a server on 127.0.0.2 (loopback too) with
    # the same certificate is not the host it names.
    elsewhere = ftps_server(listen={"control_interface": "127.0.0.2"})
    refused([ftps_url(elsewhere, "data/a.bin", host="127.0.0.2"), file_url(dest)], "wrong host",
            "certificate verify failed", no_file=dest)
    globus = start_globus_server()
    make_file(globus.fs("data/a.bin"), 1000, seed=91)
    make_tree_readable(globus.fs("data"))
    refused([f"ftps://127.0.0.1:{globus.port}{globus.path('data/a.bin')}", file_url(dest)],
            "server without AUTH TLS", "does not offer FTPS", no_file=dest)
    # Both servers would wait as TLS servers on the data connection (no SSCN): refused at once.
    refused([ftps_url(server, "data/a.bin"), ftps_url(server, "incoming/tp.bin")],
            "ftps third-party", "third-party FTPS needs SSCN",
            no_file=server.fs("incoming/tp.bin"))
    server.assert_alive("after the refusals")


def test_server_requiring_tls_refuses_plain_ftp_from_gridcp():
    server = ftps_server()
    make_file(server.fs("data/a.bin"), 1000, seed=92)
    make_tree_readable(server.fs("data"))
    dest = os.path.join(make_temp_dir("gridcp-ftps-plain-"), "a.bin")
    refused([server.url("data/a.bin"), file_url(dest)], "plain ftp:// to a TLS-only server", "530",
            no_file=dest)


if __name__ == "__main__":
    run_tests(globals())
