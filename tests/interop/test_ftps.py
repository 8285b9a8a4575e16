"""FTPS (RFC 4217: AUTH TLS, PBSZ 0, PROT P) with standard clients against gridftpd (issue 4
acceptance 3). globus-gridftp-server has no FTPS, so these run against gridftpd only.

  * curl --ssl-reqd: put and get over passive data connections, files identical by SHA-256; the
    data connections are TLS too (curl's --ssl-reqd implies PROT P). curl 7.88's active mode
    over TLS fails on its own side ("sa_addr inet_ntop() failed", before any PORT is sent), so
    active FTPS is checked with lftp.
  * lftp with ftp:ssl-force and ftp:ssl-protect-data: put and get identical, passive and active.
  * With tls.required, plain ftp:// is refused (530) and moves nothing.
The server certificate is the self-signed one gridftpd makes when tls.cert is empty, so the
clients are told not to verify it.
"""

import os

from gridftp_harness import (MIB, RawControl, make_file, make_temp_dir, require_tool, run_peer,
                             run_tests, sha256_file, start_gridftpd)


def ftps_server(required: bool = True):
    return start_gridftpd(tls={"enabled": True, "required": required})


def base_url(server) -> str:
    return f"ftp://{server.host}:{server.port}"


def test_curl_put_and_get():
    curl = require_tool("curl")
    server = ftps_server()
    src = make_temp_dir("ftps-curl-")
    digest = make_file(os.path.join(src, "a.bin"), 3 * MIB + 5, seed=41)
    for mode, extra in (("epsv", []), ("pasv", ["--disable-epsv"])):
        target = f"incoming/curl-{mode}.bin"
        run_peer([curl, "-sS", "--ssl-reqd", "-k"] + extra + ["-T", os.path.join(src, "a.bin"),
                 f"{base_url(server)}/{target}"], what=f"curl FTPS put ({mode})")
        assert sha256_file(server.fs(target)) == digest, f"curl FTPS put ({mode}) differs"
        back = os.path.join(src, f"back-{mode}.bin")
        run_peer([curl, "-sS", "--ssl-reqd", "-k"] + extra + ["-o", back, f"{base_url(server)}/{target}"],
                 what=f"curl FTPS get ({mode})")
        assert sha256_file(back) == digest, f"curl FTPS get ({mode}) differs"
    server.assert_alive("after curl FTPS")


def test_lftp_put_and_get_with_protected_data():
    lftp = require_tool("lftp")
    server = ftps_server()
    src = make_temp_dir("ftps-lftp-")
    local = os.path.join(src, "a.bin")
    digest = make_file(local, 2 * MIB + 3, seed=42)
    for passive in ("true", "false"):
        name = f"lftp-{passive}.bin"
        script = ("set ftp:ssl-force true; set ftp:ssl-protect-data true; set ssl:verify-certificate false; "
                  f"set ftp:passive-mode {passive}; put {local} -o incoming/{name}; "
                  f"get incoming/{name} -o {local}.{passive}; bye")
        run_peer([lftp, "-u", "anonymous,lftp@", "-e", script, f"{server.host}:{server.port}"],
                 what=f"lftp FTPS (passive-mode {passive})")
        assert sha256_file(server.fs(f"incoming/{name}")) == digest, f"lftp FTPS put differs ({passive})"
        assert sha256_file(f"{local}.{passive}") == digest, f"lftp FTPS get differs ({passive})"


def test_plain_ftp_refused_when_tls_required():
    curl = require_tool("curl")
    server = ftps_server(required=True)
    src = make_temp_dir("ftps-plain-")
    make_file(os.path.join(src, "a.bin"), 1000, seed=43)
    result = run_peer([curl, "-sS", "-T", os.path.join(src, "a.bin"), f"{base_url(server)}/incoming/plain.bin"],
                      expect_rc=None, what="plain curl put")
    assert result.rc != 0, "plain FTP upload was accepted on a server that requires TLS"
    assert "530" in result.output, f"expected a 530 refusal: {result.output}"
    assert not os.path.exists(server.fs("incoming/plain.bin")), "plain upload created a file"
    ctl = RawControl(server.host, server.port)
    try:
        code, text = ctl.cmd("USER anonymous")
        assert code == 530 and "TLS" in text, f"USER before AUTH TLS: {text!r}"
        code, text = ctl.cmd("FEAT")
        assert code == 211 and "AUTH TLS" in text, f"FEAT must list AUTH TLS: {text!r}"
    finally:
        ctl.close()


def test_prot_p_needs_auth_tls_and_auth_tls_needs_tls_enabled():
    # Without AUTH TLS, PROT P has no keys to protect anything with.
    server = ftps_server(required=False)
    ctl = RawControl(server.host, server.port)
    try:
        ctl.login()
        code, text = ctl.cmd("PROT P")
        assert code in (503, 534, 536), f"PROT P without AUTH TLS: {text!r}"
    finally:
        ctl.close()
    plain = start_gridftpd()  # tls not enabled
    ctl = RawControl(plain.host, plain.port)
    try:
        code, text = ctl.cmd("AUTH TLS")
        assert code == 504, f"AUTH TLS on a server without FTPS: {text!r}"
    finally:
        ctl.close()


if __name__ == "__main__":
    run_tests(globals())
