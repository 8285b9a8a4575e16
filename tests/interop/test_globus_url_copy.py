"""globus-url-copy (GCT 6.2) against gridftpd over ftp:// (anonymous, stream mode).

Without -p or security flags globus-url-copy stays in stream mode (docs/PEERS.md), so this
covers gets and puts of 0 B, 1 B, 1 MiB+1 and 256 MiB, -list and -cd.
"""

import os

from gridftp_harness import (MIB, assert_file_digest, make_file, make_temp_dir, run_peer,
                             run_tests, start_server_under_test, GridftpdServer)

GUC = "globus-url-copy"
SIZES = {"empty.bin": 0, "one.bin": 1, "mib_plus_one.bin": MIB + 1, "big.bin": 256 * MIB}


def file_url(path: str) -> str:
    return "file://" + os.path.abspath(path)


def test_get_files_byte_identical():
    server = start_server_under_test()
    out = make_temp_dir("guc-get-")
    digests = {name: make_file(server.fs(f"data/{name}"), size, seed=i)
               for i, (name, size) in enumerate(SIZES.items())}
    os.chmod(server.fs("data"), 0o755)
    for name in SIZES:
        os.chmod(server.fs(f"data/{name}"), 0o644)
    for name in SIZES:
        dest = os.path.join(out, name)
        run_peer([GUC, server.url(f"data/{name}"), file_url(dest)], what=f"get {name}")
        assert_file_digest(dest, digests[name], f"globus-url-copy get {name}")


def test_put_files_byte_identical():
    server = start_server_under_test()
    src = make_temp_dir("guc-put-")
    digests = {name: make_file(os.path.join(src, name), size, seed=i + 7)
               for i, (name, size) in enumerate(SIZES.items())}
    for name in SIZES:
        run_peer([GUC, file_url(os.path.join(src, name)), server.url(f"incoming/{name}")],
                 what=f"put {name}")
        assert_file_digest(server.fs(f"incoming/{name}"), digests[name],
                           f"globus-url-copy put {name}")


def test_list_shows_files_and_dirs():
    server = start_server_under_test()
    names = ["alpha.txt", "beta.bin", "with space.txt"]
    for name in names:
        make_file(server.fs(f"listme/{name}"), 10)
    os.makedirs(server.fs("listme/subdir"))
    for dirpath, _dirs, files in os.walk(server.fs("listme")):
        os.chmod(dirpath, 0o755)
        for f in files:
            os.chmod(os.path.join(dirpath, f), 0o644)
    argv = [GUC, "-list", server.url("listme/")]
    result = run_peer(argv, what="-list")
    listed = [line.strip() for line in result.stdout.splitlines()]
    for name in names:
        assert name in listed, (f"-list does not show {name!r}\ncommand: {' '.join(argv)}\n"
                                f"output:\n{result.output}")
    assert "subdir/" in listed, (f"-list does not show the directory as 'subdir/'\n"
                                 f"command: {' '.join(argv)}\noutput:\n{result.output}")
    assert not any(entry in (".", "..", "./", "../") for entry in listed), (
        f"-list shows . or ..\noutput:\n{result.output}")


def test_cd_creates_missing_nested_dirs():
    server = start_server_under_test()
    src = make_temp_dir("guc-cd-")
    digest = make_file(os.path.join(src, "payload.bin"), 12345)
    target = "incoming/new1/new2/new3/payload.bin"
    assert not os.path.exists(server.fs("incoming/new1"))
    run_peer([GUC, "-cd", file_url(os.path.join(src, "payload.bin")), server.url(target)],
             what="-cd put")
    assert_file_digest(server.fs(target), digest, "globus-url-copy -cd put")


def test_put_outside_writable_area_fails():
    server = start_server_under_test()
    if not isinstance(server, GridftpdServer):
        return  # the Globus reference server has no read-only area to test
    src = make_temp_dir("guc-ro-")
    make_file(os.path.join(src, "x.bin"), 100)
    result = run_peer([GUC, file_url(os.path.join(src, "x.bin")), server.url("x.bin")],
                      expect_rc=-1, what="put into the read-only area")
    assert not os.path.exists(server.fs("x.bin")), (
        f"put into read-only root created {server.fs('x.bin')}\n{result.describe()}")


if __name__ == "__main__":
    run_tests(globals())
