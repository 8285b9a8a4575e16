"""curl against gridftpd: get, put (-T into incoming/), list (URL ending in /) and NLST
(--list-only), passive with EPSV and with PASV, active with EPRT and with PORT (-P), curl's
three path walking methods, a missing file, and all of it again over IPv6 on ::1.

Note: curl sends TYPE I *after* EPSV/PASV/PORT. The Globus server applies the TYPE that was in
effect when the data channel was set up, so against Globus these gets come back ASCII-converted
(LF -> CRLF); RFC 959 applies TYPE at transfer time, and gridftpd must return the exact bytes.
"""

import os

from gridftp_harness import (MIB, assert_file_digest, make_file, make_temp_dir, run_peer,
                             run_tests, start_server_under_test, make_tree_readable,
                             sha256_file)

BASE = ["curl", "-sS", "--fail", "--max-time", "120", "--connect-timeout", "20"]

# (name, extra curl arguments) -- the data-channel variants every transfer is tried with.
IPV4_MODES = [
    ("epsv", ["--ftp-pasv"]),
    ("pasv", ["--ftp-pasv", "--disable-epsv"]),
    ("eprt", ["-P", "127.0.0.1"]),
    ("port", ["-P", "127.0.0.1", "--disable-eprt"]),
]
IPV6_MODES = [
    ("epsv6", ["--ftp-pasv"]),
    ("eprt6", ["-P", "::1"]),
]


def serve_files(server) -> dict:
    digests = {
        "pub/sub/file.bin": make_file(server.fs("pub/sub/file.bin"), MIB + 1),
        "pub/small.txt": make_file(server.fs("pub/small.txt"), 17),
        "pub/empty": make_file(server.fs("pub/empty"), 0),
    }
    make_tree_readable(server.fs("pub"))
    return digests


def check_all(server, modes):
    digests = serve_files(server)
    out = make_temp_dir("curl-")
    src = os.path.join(out, "upload.bin")
    up_digest = make_file(src, 300_000)
    for mode, extra in modes:
        # get, with each of curl's path walking methods
        for method in ("multicwd", "singlecwd", "nocwd"):
            for rel, digest in digests.items():
                dest = os.path.join(out, f"{mode}-{method}-{os.path.basename(rel)}")
                argv = BASE + ["-g"] + extra + ["--ftp-method", method, server.curl_url(rel),
                                                "-o", dest]
                result = run_peer(argv, what=f"curl get ({mode}, {method})")
                try:
                    assert_file_digest(dest, digest, f"curl get {rel} ({mode}, {method})")
                except AssertionError as e:
                    raise AssertionError(f"{e}\n{result.describe()}") from None
        # put: a URL ending in / makes curl append the local file name
        remote_dir = f"incoming/{mode}/"
        os.makedirs(server.fs(remote_dir), exist_ok=True)
        os.chmod(server.fs(remote_dir), 0o777)
        argv = BASE + ["-g"] + extra + ["-T", src, server.curl_url(remote_dir)]
        result = run_peer(argv, what=f"curl put ({mode})")
        try:
            assert_file_digest(server.fs(remote_dir + "upload.bin"), up_digest,
                               f"curl -T ({mode})")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{result.describe()}") from None
        # put to an explicit name, with --ftp-create-dirs for a missing directory
        argv = BASE + ["-g"] + extra + ["--ftp-create-dirs", "-T", src,
                                        server.curl_url(f"incoming/{mode}/new/dir/named.bin")]
        result = run_peer(argv, what=f"curl put --ftp-create-dirs ({mode})")
        try:
            assert_file_digest(server.fs(f"incoming/{mode}/new/dir/named.bin"), up_digest,
                               f"curl -T --ftp-create-dirs ({mode})")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{result.describe()}") from None
        # LIST (URL ending in /): every name appears on some line
        argv = BASE + ["-g"] + extra + [server.curl_url("pub/")]
        result = run_peer(argv, what=f"curl list ({mode})")
        lines = result.stdout.splitlines()
        for name in ("sub", "small.txt", "empty"):
            assert any(line.rstrip("\r").endswith(" " + name) or line.rstrip("\r") == name
                       for line in lines), (f"curl LIST ({mode}) does not show {name!r}\n"
                                            + result.describe())
        # NLST (--list-only): exactly the names
        argv = BASE + ["-g"] + extra + ["--list-only", server.curl_url("pub/")]
        result = run_peer(argv, what=f"curl nlst ({mode})")
        names = sorted(os.path.basename(line.rstrip("\r").rstrip("/"))
                       for line in result.stdout.splitlines() if line.strip()
                       and line.rstrip("\r") not in (".", ".."))   # RFC 959 allows . and ..
        assert names == ["empty", "small.txt", "sub"], (
            f"curl --list-only ({mode}) gave {names}, expected ['empty', 'small.txt', 'sub']\n"
            + result.describe())
        # a missing file: curl exit 78 is "RETR response: 550" (remote file not found)
        argv = BASE + ["-g"] + extra + [server.curl_url("pub/no-such-file"), "-o",
                                        os.path.join(out, "missing")]
        result = run_peer(argv, expect_rc=None, what=f"curl get missing ({mode})")
        assert result.rc == 78, ("curl get of a missing file: expected exit 78 (550 on RETR)\n"
                                 + result.describe())
    server.assert_alive("after the curl runs")


def test_ipv4_get_put_list_all_data_modes():
    check_all(start_server_under_test(), IPV4_MODES)


def test_ipv6_get_put_list():
    check_all(start_server_under_test(listen={"control_interface": "::1"}), IPV6_MODES)


def test_resume_download():
    server = start_server_under_test()
    digest = make_file(server.fs("pub/resume.bin"), 2 * MIB + 3)
    make_tree_readable(server.fs("pub"))
    out = make_temp_dir("curl-resume-")
    dest = os.path.join(out, "resume.bin")
    with open(server.fs("pub/resume.bin"), "rb") as f, open(dest, "wb") as d:
        d.write(f.read(MIB - 5))   # a partial earlier download
    argv = BASE + ["-C", "-", server.curl_url("pub/resume.bin"), "-o", dest]
    result = run_peer(argv, what="curl -C - (REST)")
    try:
        assert_file_digest(dest, digest, "curl resumed download")
    except AssertionError as e:
        raise AssertionError(f"{e}\n{result.describe()}") from None
    assert sha256_file(dest) == digest


if __name__ == "__main__":
    run_tests(globals())
