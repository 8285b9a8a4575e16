"""GSI rejections (issue acceptance 2): who must NOT get in, and what hostile input does.

Credentials come from tests/support/test_pki.py. The untrusted and revoked users ARE in the
gridmap, so their rejection proves the trust check (CA, CRL), not the gridmap; the unmapped
user is signed by the trusted CA but has no gridmap line. Each rejected globus-url-copy must
exit non-zero and move no data (no destination file on the server, sources untouched); the
same credentials also go through GsiControl (a Python GSSAPI initiator in the harness) to pin
down the exact reply the server gives.

Globus replies recorded here are from globus-gridftp-server 13.24 (GCT 6.2) with this PKI;
gridftpd must give the same codes. Multi-line texts are abbreviated to their telling lines.
GRIDFTP_TEST_SERVER=globus runs the file against the Globus server (validated there).
"""

import base64
import os
import socket
import ssl

from gridftp_harness import (MIB, GlobusServer, GsiControl, RawControl, file_url, make_file,
                             make_temp_dir, make_tree_readable, parse_pasv_reply, run_peer,
                             run_tests, sha256_file, shared_test_pki, start_server_under_test)

GUC = "globus-url-copy"
SIZE = MIB + 7

# Observed on Globus, per rejected credential (GsiControl; globus-url-copy prints the same
# reply after "error: globus_ftp_client: the server responded with an error"):
#
# unmapped (trusted CA, no gridmap line): the handshake SUCCEEDS, the gridmap is consulted at
#   login:  AUTH GSSAPI -> 334, ADAT -> 335, ADAT -> 335 (sync byte), ADAT('0') ->
#   "235 GSSAPI Authentication successful."; ENC USER :globus-mapping: ->
#   "331 Password required for :globus-mapping:."; ENC PASS -> 530 (unwrapped):
#     530-Login incorrect. : globus_gss_assist: Gridmap lookup failure: Could not map
#         /O=Grid/OU=Test/CN=Unmapped User
#     530-
#     530 End.
#   then ENC PWD -> "530 Please login with USER and PASS." (ENC FEAT still gives 211).
# untrusted (CA not in certificates/), revoked (CRL), expired proxy: the reply to the ADAT
#   carrying the client's Certificate flight (the 2nd ADAT under TLS 1.3) is, unprotected:
#     530-globus_xio: Authentication Error
#     530-GSS failure:
#     530-GSS Major Status: Authentication Failed
#     530-GSS Minor Status Error Chain:
#     530-globus_gsi_gssapi: SSL handshake problems
#     untrusted: 530-OpenSSL Error: ../ssl/statem/statem_srvr.c:3530: ... certificate verify
#                failed / 530-globus_gsi_callback_module: Could not verify credential /
#                530-globus_gsi_callback_module: Can't get the local trusted CA certificate:
#                Cannot find trusted CA certificate with hash <hash> in <cert dir>
#     revoked:   530-globus_gsi_callback_module: Could not verify credential (twice) /
#                530-globus_gsi_callback_module: The certificate has been revoked: Serial
#                number = 4100 (0x1004) Subject=/O=Grid/OU=Test/CN=Revoked User
#     expired:   530-OpenSSL Error: ... certificate verify failed / ...: Could not verify
#                credential / 530-globus_gsi_callback_module: The certificate has expired:
#                Credential with subject: /O=Grid/OU=Test/CN=Test User/CN=<n> has expired.
#     530-
#     530 End.
#   The connection stays open; later commands get "530 Must perform GSSAPI authentication.".
# globus-url-copy itself refuses the expired proxy before connecting ("globus_credential:
#   Error with credential: The proxy credential: ... expired 1440 minutes ago."), so only
#   GsiControl shows the server's side of that case.
# globus-url-copy creates the local destination file (0 bytes) of a get before it fails.


def guc(args, user, what, expect_rc=-1):
    return run_peer([GUC] + args, env=shared_test_pki().client_env(user), timeout=120,
                    what=what, expect_rc=expect_rc)


def assert_rejected_transfers(server, user: str, want_in_output: str | None) -> None:
    """A get and a put with `user`'s proxy both fail and move no data."""
    pki = shared_test_pki()
    src_digest = make_file(server.fs(f"data/{user}-src.bin"), SIZE, seed=len(user))
    make_tree_readable(server.fs("data"))
    local = make_temp_dir(f"gsi-reject-{user}-")
    local_src = os.path.join(local, "put-src.bin")
    local_digest = make_file(local_src, SIZE, seed=100 + len(user))

    dest = os.path.join(local, "got.bin")
    get = guc([server.gsiftp_url(f"data/{user}-src.bin"), file_url(dest)], user,
              f"gsiftp get with the {user} proxy must fail")
    # globus-url-copy opens the local file before it fails (0 bytes): no data may be in it.
    assert not os.path.exists(dest) or os.path.getsize(dest) == 0, (
        f"{user}: rejected get wrote {os.path.getsize(dest)} bytes\n{get.describe()}")

    target = f"incoming/{user}-put.bin"
    put = guc(["-p", "4", file_url(local_src), server.gsiftp_url(target)], user,
              f"gsiftp put with the {user} proxy must fail")
    assert not os.path.exists(server.fs(target)), (
        f"{user} ({pki.dn(user)}): rejected put created {server.fs(target)}\n{put.describe()}")

    assert sha256_file(server.fs(f"data/{user}-src.bin")) == src_digest, "server source changed"
    assert sha256_file(local_src) == local_digest, "local source changed"
    for result in (get, put):
        if want_in_output is not None:
            assert want_in_output in result.output, (
                f"{user}: expected {want_in_output!r} in globus-url-copy's output\n"
                f"{result.describe()}")
    server.assert_alive(f"after rejecting {user}")


def assert_handshake_rejected(server, user: str) -> str:
    """GsiControl with `user`'s proxy: the ADAT exchange must end in 530, and the session must
    stay unauthenticated (530 for PWD) if the server keeps it open."""
    pki = shared_test_pki()
    ctl = GsiControl(server.host, server.port)
    try:
        code, text = ctl.authenticate(pki.proxy(user), pki.ca_cert)
        assert code == 530, (f"{user} ({pki.dn(user)}): GSI handshake must end in 530, got "
                             f"{text!r}; exchange {ctl.exchange}")
        code2, text2 = reply_or_closed(ctl, "PWD")
        assert code2 in (None, 530), f"{user}: PWD after a rejected handshake got {text2!r}"
        return text
    finally:
        ctl.close()


def reply_or_closed(ctl: RawControl, line: str, timeout: float = 30) -> tuple[int | None, str]:
    """(code, text), or (None, why) when the server closed the connection instead."""
    ctl.sock.settimeout(timeout)
    try:
        return ctl.cmd(line)
    except (ConnectionError, BrokenPipeError) as e:
        return None, f"closed ({type(e).__name__})"
    except AssertionError as e:
        if "closed by server" in str(e):
            return None, "closed"
        raise


def assert_fresh_session_works(server, what: str) -> None:
    pki = shared_test_pki()
    server.assert_alive(what)
    ctl = GsiControl(server.host, server.port)
    try:
        text = ctl.gsi_login(pki.proxy("test"), pki.ca_cert)
        assert text.startswith("230"), f"{what}: fresh GSI login got {text!r}"
        ctl.enc_expect("PWD", 257)
    finally:
        ctl.close()


# --------------------------------------------------------------------------------------------


def test_dn_not_in_gridmap_gets_530_and_no_data():
    pki = shared_test_pki()
    assert pki.mapped_account("unmapped") is None
    server = start_server_under_test(gsi=pki)
    # Globus: "530 530-Login incorrect. : globus_gss_assist: Gridmap lookup failure: ..."
    assert_rejected_transfers(server, "unmapped", "530")
    ctl = GsiControl(server.host, server.port)
    try:
        code, text = ctl.authenticate(pki.proxy("unmapped"), pki.ca_cert)
        if code == 235:   # Globus: the handshake succeeds, the login is refused
            code, text = ctl.enc_cmd("USER :globus-mapping:")
            if code == 331:
                code, text = ctl.enc_cmd("PASS ")
        assert code == 530, f"unmapped DN: expected 530 at login, got {text!r}"
        assert "Unmapped User" in text or not isinstance(server, GlobusServer), text
        if ctl.tls is not None:
            code, text = ctl.enc_cmd("PWD")
            assert code == 530, f"PWD after a refused login: {text!r}"
    finally:
        ctl.close()
    assert_fresh_session_works(server, "after the unmapped DN")


def _store_over_tls_data_channel(server, data_user: str, name: str, payload: bytes) -> tuple[int, str]:
    """Test User logs in and delegates (DCAU A is the default after GSI login), asks PROT P and
    STOR over a passive data connection, which a plain TLS client then opens presenting
    `data_user`'s proxy. Returns the final reply to the STOR."""
    pki = shared_test_pki()
    ctl = GsiControl(server.host, server.port)
    try:
        ctl.gsi_login(pki.proxy("test"), pki.ca_cert, delegate=True)
        ctl.enc_expect("TYPE I", 200)
        ctl.enc_expect("PBSZ 1048576", 200)
        ctl.enc_expect("PROT P", 200)
        host, port = parse_pasv_reply(ctl.enc_expect("PASV", 227))
        ctl.tls.write(f"STOR {name}\r\n".encode())
        ctl.send("ENC " + base64.b64encode(ctl._out.read()).decode())
        data_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        data_tls.check_hostname = False
        data_tls.verify_mode = ssl.CERT_NONE   # the server shows the delegated proxy, not a host cert
        data_tls.load_cert_chain(pki.proxy(data_user))
        raw = socket.create_connection((host, port), timeout=30)
        try:
            with data_tls.wrap_socket(raw) as conn:
                conn.sendall(payload)
                try:
                    conn.unwrap()
                except (ssl.SSLError, OSError):
                    pass   # a refused peer may see the connection cut during the handshake
        except (ssl.SSLError, OSError):
            pass
        while True:
            code, text = ctl.read_reply()
            if code in (631, 632, 633):
                code, text = ctl._unwrap(text)
            if code >= 200:
                return code, text
    finally:
        ctl.close()


def test_data_connection_with_another_identity_refused_under_dcau_a():
    """DCAU A: the data connection must come from the identity that logged in. Other User is
    trusted and mapped, but presenting that proxy on Test User's data channel gets 425 and
    stores nothing; Test User's own proxy on the same path stores the bytes (so the refusal is
    about the identity, not the test's TLS client)."""
    server = start_server_under_test(gsi=shared_test_pki())
    payload = os.urandom(256 * 1024)
    code, text = _store_over_tls_data_channel(server, "other", "incoming/intruder.bin", payload)
    # gridftpd: "425 Data connection authenticated as another identity; refused."
    assert 400 <= code < 600, f"another identity: {text!r}"
    assert isinstance(server, GlobusServer) or (code == 425 and "identity" in text), text
    intruder = server.fs("incoming/intruder.bin")
    assert not os.path.exists(intruder) or os.path.getsize(intruder) == 0, (
        f"a refused data connection left {os.path.getsize(intruder)} bytes")
    code, text = _store_over_tls_data_channel(server, "test", "incoming/own.bin", payload)
    assert code == 226, f"own identity on the data channel: {text!r}"
    with open(server.fs("incoming/own.bin"), "rb") as f:
        assert f.read() == payload, "own identity: stored bytes differ"
    assert_fresh_session_works(server, "after a data connection with another identity")


def test_data_peer_gone_during_dcau_handshake_is_4xx_not_550():
    """DCAU A: the data peer opens the passive connection, sends the first bytes of a
    ClientHello and hangs up. The transfer fails as a data connection that never opened (425 on
    gridftpd; a 4xx on Globus), not as "550 No such file or directory" (end of stream once
    surfaced as errno 2); nothing is stored and the session goes on."""
    server = start_server_under_test(gsi=shared_test_pki())
    pki = shared_test_pki()
    ctl = GsiControl(server.host, server.port)
    try:
        ctl.gsi_login(pki.proxy("test"), pki.ca_cert, delegate=True)
        ctl.enc_expect("TYPE I", 200)
        host, port = parse_pasv_reply(ctl.enc_expect("PASV", 227))
        ctl.tls.write(b"STOR incoming/cut-handshake.bin\r\n")
        ctl.send("ENC " + base64.b64encode(ctl._out.read()).decode())
        raw = socket.create_connection((host, port), timeout=30)
        raw.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
        raw.close()
        while True:
            code, text = ctl.read_reply()
            if code in (631, 632, 633):
                code, text = ctl._unwrap(text)
            if code >= 200:
                break
        assert 400 <= code < 500, f"data peer gone mid-handshake: expected 4xx, got {text!r}"
        assert isinstance(server, GlobusServer) or code == 425, text
        assert "No such file" not in text, text
        ctl.enc_expect("NOOP", 200)
    finally:
        ctl.close()
    cut = server.fs("incoming/cut-handshake.bin")
    assert not os.path.exists(cut) or os.path.getsize(cut) == 0


def test_untrusted_ca_rejected():
    server = start_server_under_test(gsi=shared_test_pki())
    assert_rejected_transfers(server, "untrusted", "530")
    text = assert_handshake_rejected(server, "untrusted")
    if isinstance(server, GlobusServer):
        assert "Cannot find trusted CA certificate" in text, text
    assert_fresh_session_works(server, "after the untrusted CA")


def test_revoked_user_rejected_by_crl():
    server = start_server_under_test(gsi=shared_test_pki())
    assert_rejected_transfers(server, "revoked", "530")
    text = assert_handshake_rejected(server, "revoked")
    if isinstance(server, GlobusServer):
        assert "has been revoked" in text, text
    assert_fresh_session_works(server, "after the revoked user")


def test_expired_proxy_rejected():
    server = start_server_under_test(gsi=shared_test_pki())
    # globus-url-copy refuses an expired proxy itself (client side, before connecting) ...
    assert_rejected_transfers(server, "expired", "expired")
    # ... so the server's own check is exercised by GsiControl, which sends it anyway.
    text = assert_handshake_rejected(server, "expired")
    if isinstance(server, GlobusServer):
        assert "has expired" in text, text
    assert_fresh_session_works(server, "after the expired proxy")


def test_commands_before_authentication_get_530():
    server = start_server_under_test(gsi=shared_test_pki())
    ctl = RawControl(server.host, server.port)
    try:
        # Globus answers every one of these "530 Must perform GSSAPI authentication."
        # (so do HELP, NOOP, SYST, TYPE, PBSZ, PROT, DCAU, SITE, OPTS, MIC).
        for line in ("PWD", "USER x", "PASS x", "RETR x", "STOR incoming/pre-auth.bin", "LIST",
                     "PASV", "CWD /", "ADAT " + base64.b64encode(b"\x16\x03\x01").decode(),
                     "ENC " + base64.b64encode(b"\x17\x03\x03\x00\x01x").decode()):
            code, text = ctl.cmd(line)
            assert code == 530, f"{line!r} before authentication: expected 530, got {text!r}"
        assert not os.path.exists(server.fs("incoming/pre-auth.bin"))
        # FEAT: Globus "530 Must perform GSSAPI authentication." (it answers FEAT only after
        # AUTH); RFC 2389 servers may answer 211 before login. Either way: one proper reply.
        code, text = ctl.cmd("FEAT")
        assert code in (211, 530), f"FEAT before authentication: {text!r}"
        if isinstance(server, GlobusServer):
            assert text == "530 Must perform GSSAPI authentication.", text
        # QUIT: Globus "211 Goodbye." before authentication (221 after login), then closes.
        code, text = ctl.cmd("QUIT")
        assert code in (211, 221), f"QUIT before authentication: {text!r}"
        ctl.sock.settimeout(30)
        assert ctl.sock.recv(1) == b"", "the server did not close the connection after QUIT"
    finally:
        ctl.close()


def test_auth_tls_and_unknown_mechanisms():
    server = start_server_under_test(gsi=shared_test_pki(), tls={"enabled": True})
    ctl = RawControl(server.host, server.port)
    try:
        # Globus: "504 Unknown authentication type." for anything but GSSAPI.
        code, text = ctl.cmd("AUTH KERBEROS_V4")
        assert code == 504, f"AUTH KERBEROS_V4: {text!r}"
        code, text = ctl.cmd("AUTH TLS")
        if isinstance(server, GlobusServer):
            assert text == "504 Unknown authentication type.", text
        else:
            # gridftpd offers FTPS (RFC 4217) to standard clients: 234, then TLS on the socket.
            assert code == 234, f"gridftpd AUTH TLS: expected 234, got {text!r}"
            tls = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            tls.check_hostname = False        # which certificate FTPS shows is not the point
            tls.verify_mode = ssl.CERT_NONE
            with tls.wrap_socket(ctl.sock, server_hostname="localhost") as wrapped:
                wrapped.sendall(b"PWD\r\n")
                reply = wrapped.recv(4096)
                assert reply[:3].isdigit(), f"a reply inside FTPS: {reply!r}"
    finally:
        ctl.close()


def _client_hello() -> bytes:
    pki = shared_test_pki()
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = GsiControl.tls_context(pki.proxy("test"), pki.ca_cert).wrap_bio(
        incoming, outgoing, server_hostname="localhost")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


# A first byte no TLS record (0x14-0x18) or SSLv2 header (top bit set) starts with.
NOT_A_RECORD = b"\x42"


def test_malformed_adat():
    server = start_server_under_test(gsi=shared_test_pki())
    hello = _client_hello()
    assert hello[:1] == b"\x16" and len(hello) > 100, hello[:16]
    # (name, ADAT argument, what Globus replies)
    cases = [
        # Globus: "530 globus_xio: Error encoding."
        ("bad base64", "!!!not*base64$$$", "530"),
        # Globus: "530 Must perform GSSAPI authentication." (no argument = not an ADAT)
        ("empty ADAT", "", "530"),
        # Globus: "335 ADAT=" (an empty token: it waits for the rest of the record); a later
        # non-ADAT command gets "530 Must perform GSSAPI authentication.".
        ("truncated TLS record", base64.b64encode(hello[:60]).decode(), "335-empty"),
        # Globus: 530-globus_xio: Authentication Error ... 530-OpenSSL Error:
        # ../ssl/record/ssl3_record.c:350: ... wrong version number ... 530 End.
        # The first byte is no TLS content type and has its top bit clear: a random one made a
        # record header (or an SSLv2 ClientHello's) announcing more bytes, and the server
        # rightly waited for them, in one run of a few hundred.
        ("garbage", base64.b64encode(NOT_A_RECORD + os.urandom(299)).decode(), "530"),
        # A handshake record header with random contents. Globus: 530-... 530-OpenSSL Error:
        # ../ssl/statem/statem_srvr.c:312: ... unexpected message ... 530 End.
        ("garbage handshake record",
         base64.b64encode(b"\x16\x03\x01\x00\x10" + os.urandom(16)).decode(), "530"),
        # 60,000 random bytes (80 KB of base64). Globus: the "wrong version number" 530.
        ("huge garbage", base64.b64encode(NOT_A_RECORD + os.urandom(59999)).decode(), "530"),
    ]
    for name, arg, globus in cases:
        ctl = RawControl(server.host, server.port)
        try:
            ctl.expect("AUTH GSSAPI", 334)
            code, text = reply_or_closed(ctl, ("ADAT " + arg).rstrip())
            print(f"  {name}: {text.splitlines()[0] if text else text!r}")
            empty_335 = code == 335 and text.strip() in ("335 ADAT=", "335")
            ok = code is None or 500 <= code <= 599 or (name == "truncated TLS record"
                                                         and empty_335)
            assert ok, f"malformed ADAT ({name}): expected 5xx or a close, got {text!r}"
            if isinstance(server, GlobusServer):
                assert (empty_335 if globus == "335-empty" else code == int(globus)), (
                    f"Globus changed its reply to malformed ADAT ({name}): {text!r}")
            if code is not None:
                code, text = reply_or_closed(ctl, "PWD")
                assert code in (None, 530), (f"PWD after malformed ADAT ({name}) must not "
                                             f"succeed: {text!r}")
        finally:
            ctl.abort_connection()
        assert_fresh_session_works(server, f"after malformed ADAT ({name})")


if __name__ == "__main__":
    run_tests(globals())
