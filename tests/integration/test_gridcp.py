"""Our client gridcp against our server gridftpd (get, put, third-party gridftpd -> gridftpd,
-list, -cd, failures) and against the real globus-gridftp-server (get and put)."""

import os

from gridftp_harness import (MIB, assert_file_digest, gridcp_binary, make_file, make_temp_dir,
                             make_tree_readable, run_peer, run_tests, start_globus_server,
                             start_gridftpd)

SIZES = {"empty.bin": 0, "one.bin": 1, "mib_plus_one.bin": MIB + 1, "big.bin": 64 * MIB + 3}


def file_url(path: str) -> str:
    return "file://" + os.path.abspath(path)


def gridcp(*args, expect_rc=0, what=""):
    return run_peer([gridcp_binary(), *args], timeout=300, expect_rc=expect_rc,
                    what=what or "gridcp")


def seed(server, prefix="data") -> dict[str, str]:
    digests = {name: make_file(server.fs(f"{prefix}/{name}"), size, seed=i)
               for i, (name, size) in enumerate(SIZES.items())}
    make_tree_readable(server.fs(prefix))
    return digests


def test_get_from_gridftpd():
    server = start_gridftpd()
    digests = seed(server)
    out = make_temp_dir("gridcp-get-")
    for name, digest in digests.items():
        dest = os.path.join(out, name)
        result = gridcp(server.url(f"data/{name}"), file_url(dest), what=f"gridcp get {name}")
        try:
            assert_file_digest(dest, digest, f"gridcp get {name}")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{result.describe()}") from None
    # -vb still copies correctly
    dest = os.path.join(out, "vb.bin")
    gridcp("-vb", server.url("data/mib_plus_one.bin"), file_url(dest), what="gridcp -vb get")
    assert_file_digest(dest, digests["mib_plus_one.bin"], "gridcp -vb get")


def test_put_to_gridftpd():
    server = start_gridftpd()
    src = make_temp_dir("gridcp-put-")
    for i, (name, size) in enumerate(SIZES.items()):
        digest = make_file(os.path.join(src, name), size, seed=100 + i)
        result = gridcp(file_url(os.path.join(src, name)), server.url(f"incoming/{name}"),
                        what=f"gridcp put {name}")
        try:
            assert_file_digest(server.fs(f"incoming/{name}"), digest, f"gridcp put {name}")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{result.describe()}") from None


def test_third_party_gridftpd_to_gridftpd():
    source = start_gridftpd()
    dest = start_gridftpd()
    digests = seed(source)
    for name, digest in digests.items():
        result = gridcp(source.url(f"data/{name}"), dest.url(f"incoming/{name}"),
                        what=f"gridcp third-party {name}")
        try:
            assert_file_digest(dest.fs(f"incoming/{name}"), digest, f"third-party {name}")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{result.describe()}") from None
    # Both transfer logs saw it: the source a RETR, the destination a STOR, same byte count.
    big = SIZES["big.bin"]
    src_rec = source.wait_transfer_record(
        lambda r: r.get("command") == "RETR" and str(r.get("path", "")).endswith("big.bin"),
        "the third-party RETR on the source")
    dst_rec = dest.wait_transfer_record(
        lambda r: r.get("command") == "STOR" and str(r.get("path", "")).endswith("big.bin"),
        "the third-party STOR on the destination")
    assert src_rec.get("bytes") == big and dst_rec.get("bytes") == big, (
        f"third-party byte counts: source {src_rec}, destination {dst_rec}")


def test_list():
    server = start_gridftpd()
    seed(server)
    os.makedirs(server.fs("data/subdir"))
    result = gridcp("-list", server.url("data/"), what="gridcp -list")
    listed = [line.strip() for line in result.stdout.splitlines()]
    for name in SIZES:
        assert any(entry == name or entry.endswith(" " + name) for entry in listed), (
            f"gridcp -list does not show {name}\n{result.describe()}")
    assert any(entry.rstrip("/").endswith("subdir") for entry in listed), (
        f"gridcp -list does not show subdir\n{result.describe()}")


def test_cd_creates_missing_destination_dirs():
    server = start_gridftpd()
    src = make_temp_dir("gridcp-cd-")
    digest = make_file(os.path.join(src, "x.bin"), 4321)
    target = "incoming/a/b/c/x.bin"
    # without -cd a missing directory is an error
    gridcp(file_url(os.path.join(src, "x.bin")), server.url(target), expect_rc=-1,
           what="gridcp put into a missing dir without -cd")
    assert not os.path.exists(server.fs(target))
    gridcp("-cd", file_url(os.path.join(src, "x.bin")), server.url(target), what="gridcp -cd")
    assert_file_digest(server.fs(target), digest, "gridcp -cd put")
    # -cd for a local destination too
    out = make_temp_dir("gridcp-cd-local-")
    dest = os.path.join(out, "p", "q", "x.bin")
    gridcp("-cd", server.url(target), file_url(dest), what="gridcp -cd get")
    assert_file_digest(dest, digest, "gridcp -cd get into missing local dirs")


def test_failures_exit_nonzero_with_message():
    server = start_gridftpd()
    src = make_temp_dir("gridcp-fail-")
    make_file(os.path.join(src, "x.bin"), 10)
    cases = [
        ([server.url("no-such-file"), file_url(os.path.join(src, "out.bin"))], "missing source"),
        ([file_url(os.path.join(src, "x.bin")), server.url("x.bin")], "read-only destination"),
        ([file_url(os.path.join(src, "nope.bin")), server.url("incoming/nope.bin")],
         "missing local source"),
        (["ftp://127.0.0.1:1/x", file_url(os.path.join(src, "out2.bin"))], "connection refused"),
    ]
    for args, what in cases:
        result = gridcp(*args, expect_rc=-1, what=f"gridcp {what}")
        assert result.output.strip(), (
            f"gridcp {what}: failed without a message\n{result.describe()}")
    assert not os.path.exists(os.path.join(src, "out.bin")), (
        "gridcp left a local file behind after a failed get")
    assert not os.path.exists(server.fs("x.bin"))


def test_get_and_put_against_globus_server():
    server = start_globus_server()
    digests = seed(server)
    out = make_temp_dir("gridcp-globus-")
    for name, digest in digests.items():
        dest = os.path.join(out, name)
        result = gridcp(server.url(f"data/{name}"), file_url(dest),
                        what=f"gridcp get {name} from globus-gridftp-server")
        try:
            assert_file_digest(dest, digest, f"gridcp get {name} from Globus")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{result.describe()}") from None
    for name, digest in digests.items():
        result = gridcp(file_url(os.path.join(out, name)), server.url(f"incoming/{name}"),
                        what=f"gridcp put {name} to globus-gridftp-server")
        try:
            assert_file_digest(server.fs(f"incoming/{name}"), digest,
                               f"gridcp put {name} to Globus")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{result.describe()}") from None


if __name__ == "__main__":
    run_tests(globals())
