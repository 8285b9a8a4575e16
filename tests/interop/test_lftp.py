"""lftp mirror against gridftpd: a nested tree down from the root and up into incoming/,
in passive and active mode; every file compared by SHA-256, every directory present."""

import os

from gridftp_harness import (MIB, assert_same_tree, make_temp_dir, make_tree, run_peer,
                             run_tests, start_server_under_test, tree_dirs, make_tree_readable)

TREE = {
    "readme.txt": 10,
    "empty.dat": 0,
    "d1/f2.bin": 100_000,
    "d1/d2/f3.bin": MIB + 1,
    "d1/d2/d3/one.byte": 1,
    "d4/f5.txt": 5000,
    "d4/f6.bin": 70_000,
}
EMPTY_DIRS = ["emptydir"]

BASE_SETTINGS = ("set net:max-retries 1; set net:reconnect-interval-base 1; "
                 "set net:timeout 30; set cmd:fail-exit yes; set xfer:clobber on; ")


def lftp(server, passive: bool, command: str, what: str):
    script = (BASE_SETTINGS + f"set ftp:passive-mode {'on' if passive else 'off'}; "
              f"open -u anonymous,lftp@example.org ftp://{server.url_host}:{server.port}; "
              + command)
    return run_peer(["lftp", "-c", script], timeout=300, what=what)


def quote(path: str) -> str:
    return '"' + path.replace('"', '\\"') + '"'


def build_served_tree(server) -> dict:
    digests = make_tree(server.fs(""), TREE)
    for d in EMPTY_DIRS:
        os.makedirs(server.fs(d), exist_ok=True)
    make_tree_readable(server.fs(""))
    return digests


def check_mirror_down(passive: bool):
    server = start_server_under_test()
    digests = build_served_tree(server)
    local = os.path.join(make_temp_dir("lftp-down-"), "copy")
    result = lftp(server, passive, f"mirror --parallel=2 {quote(server.path(''))} {quote(local)}",
                  f"mirror down ({'passive' if passive else 'active'})")
    try:
        # incoming/ is part of the served root and empty: mirror brings it as a directory.
        assert_same_tree(digests, local, "lftp mirror down")
        want_dirs = {"d1", "d1/d2", "d1/d2/d3", "d4", "incoming"} | set(EMPTY_DIRS)
        missing = want_dirs - tree_dirs(local)
        assert not missing, f"lftp mirror down did not create directories {sorted(missing)}"
    except AssertionError as e:
        raise AssertionError(f"{e}\n{result.describe()}") from None


def check_mirror_up(passive: bool):
    server = start_server_under_test()
    local = os.path.join(make_temp_dir("lftp-up-"), "src")
    digests = make_tree(local, TREE)
    for d in EMPTY_DIRS:
        os.makedirs(os.path.join(local, d))
    remote = server.path("incoming/uploaded")
    result = lftp(server, passive, f"mirror -R {quote(local)} {quote(remote)}",
                  f"mirror -R ({'passive' if passive else 'active'})")
    try:
        assert_same_tree(digests, server.fs("incoming/uploaded"), "lftp mirror -R")
        want_dirs = {"d1", "d1/d2", "d1/d2/d3", "d4"} | set(EMPTY_DIRS)
        missing = want_dirs - tree_dirs(server.fs("incoming/uploaded"))
        assert not missing, f"lftp mirror -R did not create directories {sorted(missing)}"
    except AssertionError as e:
        raise AssertionError(f"{e}\n{result.describe()}") from None


def test_mirror_down_passive():
    check_mirror_down(passive=True)


def test_mirror_down_active():
    check_mirror_down(passive=False)


def test_mirror_up_passive():
    check_mirror_up(passive=True)


def test_mirror_up_active():
    check_mirror_up(passive=False)


if __name__ == "__main__":
    run_tests(globals())
