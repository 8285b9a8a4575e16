"""gridcp over ftps:// (RFC 4217 explicit FTPS: AUTH TLS, then PBSZ 0 and PROT P) against
gridftpd's FTPS (issue 5 scope: "ftps:// where the server offers AUTH TLS"). globus-gridftp-server
has no AUTH TLS, so it stands in for a server without FTPS.

The server certificate is the test PKI's host certificate (CN=localhost, signed by the test CA);
gridcp trusts OpenSSL's default anchors, which SSL_CERT_FILE points at the test CA here.

  * get and put in stream mode, a 5 MiB + 7 B file and an empty one, byte-identical by SHA-256;
    -list; the server's transfer log shows every data connection in TLS;
  * refused, each with a clear message, non-zero exit and no file: a server certificate from an
    untrusted CA, a URL host the certificate does not name (127.0.0.2), a server without AUTH
    TLS, MODE E (-p, -fast: the server would open the data connections, and gridcp holds no
    certificate to secure them), third-party ftps (no SSCN: both servers would wait as TLS
    servers);
  * a server that requires TLS still refuses gridcp's plain ftp:// login.
"""

import os

from gridftp_harness import (MIB, file_url, gridcp_binary, make_file, make_temp_dir,
                             make_tree_readable, run_peer, run_tests, sha256_file,
                             shared_test_pki, start_globus_server, start_gridftpd)

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
        assert record.get("stream_tls", "").startswith("TLSv1."), (
            f"a data connection was not TLS: {record}")
    server.assert_alive("after the ftps transfers")


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
    for flag in (["-p", "4"], ["-fast"]):
        refused(flag + [ftps_url(server, "data/a.bin"), file_url(dest)], f"{flag} over ftps",
                "ftps:// runs in stream mode only", no_file=dest)
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
