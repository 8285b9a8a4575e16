"""gridcp over gsiftp:// against the real globus-gridftp-server (issue: "gridcp speaks gsiftp://
with -nodcau, -dcsafe, -dcpriv, using X509_USER_PROXY").

The throwaway PKI of tests/support/test_pki.py gives the CA directory, a `localhost` host
certificate for the server and an RFC 3820 user proxy; gridcp finds it through X509_USER_PROXY
and the CAs through X509_CERT_DIR (pki.client_env). gridcp logs in with AUTH GSSAPI/ADAT,
delegates, and sends `USER :globus-mapping:` / `PASS ` wrapped in ENC (docs/WIRE.md §1.2,
§5.1-§5.3).

Covered, all byte-identical by SHA-256 on a 5 MiB + 7 B file:
  * get and put at each data-channel level -- `-nodcau` (DCAU N), the default (DCAU A, PROT C:
    GSI handshake, then raw bytes), `-dcsafe` (PROT S) and `-dcpriv` (PROT P, TLS records) --
    in stream mode and at -p 1 and -p 4 (MODE E: the server connects on a get, we on a put, so
    gridcp is the TLS server in one and the TLS client in the other, 5.7);
  * the same against a server capped at TLS 1.2 (GLOBUS_GSSAPI_MAX_TLS_PROTOCOL): no sync byte
    after the handshake, and PROT S negotiates the NULL-cipher suite (5.1, 5.8);
  * third-party Globus -> Globus at each level (both servers use the proxy gridcp delegated);
  * `-list` over gsiftp (a stream-mode MLSD data connection under DCAU A);
  * failures: no credential (X509_USER_PROXY names a missing file) and a URL host the server's
    certificate does not name (127.0.0.1 vs CN=localhost) -- each exits non-zero, says why, and
    leaves no destination file behind.

  * pipelining (docs/WIRE.md 1.7): the dialogue gridcp -dbg logs shows AUTH sent before the
    greeting, the login, the settings and PASV sent before the 235, and a UDPX get's RETR
    before the 227, against Globus and gridftpd alike.

Against Globus, except the pipelining test, which also runs gridftpd. Point it at another build
of gridcp with GRIDCP=/path/to/gridcp.
"""

import os

from gridftp_harness import (MIB, assert_file_digest, check_copy, file_url, gridcp_binary,
                             make_file, make_temp_dir, make_tree_readable, run_peer, run_tests,
                             shared_test_pki, start_globus_server, start_gridftpd)

SIZE = 5 * MIB + 7
# None: stream mode (no -p); 1 and 4: MODE E.
PARALLELISM = (None, 1, 4)
LEVELS = {"nodcau": ["-nodcau"], "dcau-a": [], "dcsafe": ["-dcsafe"], "dcpriv": ["-dcpriv"]}


def globus_server():
    """A GSI globus-gridftp-server; the runner stops it when the test ends."""
    return start_globus_server(gsi=shared_test_pki())


def gridcp(args: list[str], env: dict | None = None, what: str = "",
           expect_rc: int | None = 0):
    return run_peer([gridcp_binary()] + args, env=env or shared_test_pki().client_env("test"),
                    timeout=180, what=what, expect_rc=expect_rc)



def parallel_flags(p: int | None) -> list[str]:
    return [] if p is None else ["-p", str(p)]


def globus_server_tls12():
    """A GSI globus-gridftp-server that offers at most TLS 1.2 on every channel."""
    os.environ["GLOBUS_GSSAPI_MAX_TLS_PROTOCOL"] = "TLS1_2_VERSION"
    try:
        return start_globus_server(gsi=shared_test_pki())
    finally:
        del os.environ["GLOBUS_GSSAPI_MAX_TLS_PROTOCOL"]


def get_and_put_all_levels(server, parallelism, label: str, seed: int) -> None:
    digest = make_file(server.fs("data/gsi.bin"), SIZE, seed=seed)
    make_tree_readable(server.fs("data"))   # the server reads as the mapped account
    out = make_temp_dir("gridcp-gsi-")
    for level, flags in LEVELS.items():
        for p in parallelism:
            mode = "stream" if p is None else f"-p {p}"
            what = f"gridcp gsiftp {label}get {level} {mode}"
            dest = os.path.join(out, f"{level}-{p}.bin")
            result = gridcp(flags + parallel_flags(p) + [server.gsiftp_url("data/gsi.bin"),
                                                         file_url(dest)], what=what)
            check_copy(dest, digest, what, result)

            what = f"gridcp gsiftp {label}put {level} {mode}"
            target = f"incoming/{level}-{p}.bin"
            result = gridcp(flags + parallel_flags(p) + [file_url(dest),
                                                         server.gsiftp_url(target)], what=what)
            check_copy(server.fs(target), digest, what, result)
            os.unlink(dest)
            os.unlink(server.fs(target))
    server.assert_alive(f"after the gridcp gsiftp {label}gets and puts")


def test_get_and_put_each_level_and_parallelism():
    get_and_put_all_levels(globus_server(), PARALLELISM, "", seed=41)


def test_get_and_put_each_level_under_tls12():
    get_and_put_all_levels(globus_server_tls12(), (None, 4), "(server TLS 1.2) ", seed=44)


def test_third_party_each_level():
    source, dest = globus_server(), globus_server()
    digest = make_file(source.fs("data/tp.bin"), SIZE, seed=45)
    make_tree_readable(source.fs("data"))
    for level, flags in LEVELS.items():
        what = f"gridcp gsiftp third-party {level} -p 4"
        target = f"incoming/tp-{level}.bin"
        result = gridcp(flags + ["-p", "4", source.gsiftp_url("data/tp.bin"),
                                 dest.gsiftp_url(target)], what=what)
        check_copy(dest.fs(target), digest, what, result)


def test_list_over_gsiftp():
    server = globus_server()
    for name in ("alpha.txt", "beta.bin"):
        make_file(server.fs(f"listme/{name}"), 10)
    make_tree_readable(server.fs("listme"))
    result = gridcp(["-list", server.gsiftp_url("listme/")], what="gridcp gsiftp -list")
    listed = [line.strip() for line in result.stdout.splitlines()]
    for name in ("alpha.txt", "beta.bin"):
        assert name in listed, f"gsiftp -list does not show {name!r}\n{result.describe()}"


def dialogue_order(stderr: str, first: str, then: str, what: str) -> None:
    """`first` (a line of gridcp -dbg's dialogue) was logged before `then`."""
    lines = stderr.splitlines()
    at = [next((i for i, line in enumerate(lines) if needle in line), None)
          for needle in (first, then)]
    assert None not in at, f"{what}: {first!r} or {then!r} missing from:\n{stderr}"
    assert at[0] < at[1], f"{what}: {first!r} came after {then!r}:\n{stderr}"


def test_gridcp_pipelines_login_and_settings_with_both_servers():
    """docs/WIRE.md 1.7: AUTH and the ClientHello go before the greeting is read, the login and
    the transfer's settings and PASV behind the last token before its 235, and a UDPX get's
    RETR before the 227; the real Globus server and gridftpd both take it."""
    ours = start_gridftpd(gsi=shared_test_pki())
    for label, server in (("globus", globus_server()), ("gridftpd", ours)):
        digest = make_file(server.fs("data/pipe.bin"), SIZE, seed=71)
        make_tree_readable(server.fs("data"))
        dest = os.path.join(make_temp_dir("gridcp-pipe-"), "pipe.bin")
        what = f"gridcp -dbg gsiftp get from {label}"
        result = gridcp(["-dbg", server.gsiftp_url("data/pipe.bin"), file_url(dest)], what=what)
        check_copy(dest, digest, what, result)
        dialogue_order(result.stderr, "C: AUTH GSSAPI", "S: 220", what)
        for command in ("C: USER :globus-mapping:", "C: PASS", "C: FEAT", "C: TYPE I", "C: PASV"):
            dialogue_order(result.stderr, command, "S: 235", what)
    dest = os.path.join(make_temp_dir("gridcp-pipe-"), "udpx.bin")
    what = "gridcp -dbg -udp gsiftp get from gridftpd"
    digest = make_file(ours.fs("data/pipe.bin"), SIZE, seed=72)
    result = gridcp(["-dbg", "-udp", ours.gsiftp_url("data/pipe.bin"), file_url(dest)],
                    what=what)
    check_copy(dest, digest, what, result)
    dialogue_order(result.stderr, "C: RETR", "S: 227", what)


def test_missing_credential_fails_clearly():
    server = globus_server()
    make_file(server.fs("data/nocred.bin"), 1000, seed=42)
    make_tree_readable(server.fs("data"))
    missing = os.path.join(make_temp_dir("gridcp-nocred-"), "x509up_missing")
    env = dict(shared_test_pki().client_env("test"), X509_USER_PROXY=missing)
    out = make_temp_dir("gridcp-nocred-out-")
    dest = os.path.join(out, "nocred.bin")
    for p in PARALLELISM:
        what = f"gridcp gsiftp get without a credential ({'stream' if p is None else p})"
        result = gridcp(parallel_flags(p) + [server.gsiftp_url("data/nocred.bin"),
                                             file_url(dest)],
                        env=env, what=what, expect_rc=-1)
        assert missing in result.stderr and "X509_USER_PROXY" in result.stderr, (
            f"{what}: the error does not name the missing credential\n{result.describe()}")
        assert os.listdir(out) == [], (
            f"{what}: left {os.listdir(out)} in the destination directory\n{result.describe()}")
    # Nothing reached the server either: a put fails before connecting.
    result = gridcp([file_url(server.fs("data/nocred.bin")),
                     server.gsiftp_url("incoming/nocred.bin")],
                    env=env, what="gridcp gsiftp put without a credential", expect_rc=-1)
    assert not os.path.exists(server.fs("incoming/nocred.bin")), result.describe()


def test_server_certificate_must_name_the_url_host():
    server = globus_server()
    make_file(server.fs("data/host.bin"), 1000, seed=43)
    make_tree_readable(server.fs("data"))
    dest = os.path.join(make_temp_dir("gridcp-wronghost-"), "host.bin")
    # The host certificate says CN=localhost; the URL says 127.0.0.1.
    url = f"gsiftp://127.0.0.1:{server.port}{server.path('data/host.bin')}"
    result = gridcp([url, file_url(dest)], what="gridcp gsiftp to a host the certificate "
                    "does not name", expect_rc=-1)
    assert "127.0.0.1" in result.stderr and "CN=localhost" in result.stderr, (
        f"the error does not say which certificate and host disagree\n{result.describe()}")
    assert not os.path.exists(dest), result.describe()


if __name__ == "__main__":
    run_tests(globals())
