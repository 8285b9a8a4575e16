"""gridcp against both servers, gridftpd and the real globus-gridftp-server (issue 5 acceptance 1:
every transfer the earlier issues check with globus-url-copy also passes with gridcp).

All byte-identical by SHA-256 on a 5 MiB + 7 B file:
  * ftp://: get and put in stream mode, -p 1 and -p 4 against each server; third-party -p 1
    and -p 4 gridftpd -> Globus, Globus -> gridftpd and gridftpd -> gridftpd;
  * gsiftp://: get and put against gridftpd at each data-channel level (-nodcau, the default
    DCAU A, -dcsafe, -dcpriv) in stream mode, -p 1 and -p 4 (the same against Globus is
    test_gridcp_gsi.py); third-party at each level, -p 1 and -p 4, gridftpd -> Globus,
    Globus -> gridftpd and gridftpd -> gridftpd (Globus -> Globus: test_gridcp_gsi.py);
  * gridftpd's transfer log names the level each gsiftp transfer ran at, so a level that
    silently fell back to clear data would fail here;
  * on both servers: -off/-len partial gets (the window lands at its own offset in the local
    file, as globus-url-copy writes it) in stream mode and -p 4, and -verify-checksum with MD5,
    ADLER32 and SHA256 on gets, puts and third-party transfers both ways;
  * on both servers: a nested tree with -r -cc 4 -pp got, put back, and copied third-party
    between the two servers both ways;
  * -tcp-bs: gridcp sends what globus-url-copy sends to each server (SBUF or SITE
    RETRBUFSIZE, after MODE), and gridftpd's data sockets get the size.
"""

import os

from gridftp_harness import (MIB, assert_file_digest, assert_same_tree, check_copy, file_url,
                             give_to_globus_user, gridcp_binary, GridftpdServer, guc_dialogue,
                             make_file, make_temp_dir, make_tree_readable, run_peer, run_tests,
                             shared_test_pki, start_globus_server, start_gridftpd, tree_digests)

SIZE = 5 * MIB + 7
LEVELS = {"nodcau": ["-nodcau"], "dcau-a": [], "dcsafe": ["-dcsafe"], "dcpriv": ["-dcpriv"]}
# What gridftpd's transfer log says for each level (server/logging).
LOGGED_LEVEL = {"nodcau": "dcau=N prot=C", "dcau-a": "dcau=A prot=C",
                "dcsafe": "dcau=A prot=S", "dcpriv": "dcau=A prot=P"}


def gridcp(args: list[str], what: str, gsi: bool = False):
    env = shared_test_pki().client_env("test") if gsi else None
    return run_peer([gridcp_binary()] + args, env=env, timeout=180, what=what)


def seed(server, name: str, seed_value: int) -> str:
    digest = make_file(server.fs(f"data/{name}"), SIZE, seed=seed_value)
    make_tree_readable(server.fs("data"))  # a GSI server reads as the mapped account
    return digest


def parallel_flags(p: int | None) -> list[str]:
    return [] if p is None else ["-p", str(p)]


def get_and_put(server, url, levels: dict, label: str, seed_value: int, gsi: bool) -> None:
    digest = seed(server, f"gp-{seed_value}.bin", seed_value)
    out = make_temp_dir("gridcp-peers-")
    for level, flags in levels.items():
        for p in (None, 1, 4):
            mode = "stream" if p is None else f"-p {p}"
            what = f"gridcp {label} get {level} {mode}"
            dest = os.path.join(out, f"{level}-{p}.bin")
            result = gridcp(flags + parallel_flags(p) + [url(f"data/gp-{seed_value}.bin"),
                                                         file_url(dest)], what, gsi)
            check_copy(dest, digest, what, result)
            what = f"gridcp {label} put {level} {mode}"
            target = f"incoming/gp-{seed_value}-{level}-{p}.bin"
            result = gridcp(flags + parallel_flags(p) + [file_url(dest), url(target)], what, gsi)
            check_copy(server.fs(target), digest, what, result)
            os.unlink(dest)
    server.assert_alive(f"after gridcp {label} gets and puts")


def third_party(source, source_url, dest, dest_url, levels: dict, label: str, seed_value: int,
                gsi: bool) -> None:
    digest = seed(source, f"tp-{seed_value}.bin", seed_value)
    for level, flags in levels.items():
        for p in (1, 4):
            what = f"gridcp {label} third-party {level} -p {p}"
            target = f"incoming/tp-{seed_value}-{level}-{p}.bin"
            result = gridcp(flags + ["-p", str(p), source_url(f"data/tp-{seed_value}.bin"),
                                     dest_url(target)], what, gsi)
            check_copy(dest.fs(target), digest, what, result)
    for server in (source, dest):
        server.assert_alive(f"after gridcp {label} third-party")


def buffer_dialogue(stderr: str) -> list[str]:
    """The commands of a -dbg dialogue that set the mode, the buffer size and the parallelism,
    in the order sent."""
    keep = ("MODE ", "SBUF ", "SITE RETRBUFSIZE ", "OPTS RETR ")
    return [line[3:] for line in guc_dialogue(stderr)
            if line.startswith(">> ") and line[3:].startswith(keep)]


def test_tcp_bs_as_globus_url_copy_sends_it():
    # -tcp-bs N: SBUF N after MODE where FEAT lists SBUF (gridftpd), else SITE RETRBUFSIZE N
    # (globus-gridftp-server): gridcp sends what globus-url-copy sends, in the same place, and
    # with either client gridftpd's data sockets get the size (its transfer log reads it back).
    ours, globus = start_gridftpd(), start_globus_server()
    out = make_temp_dir("gridcp-tcp-bs-peers-")
    for label, server in (("gridftpd", ours), ("globus", globus)):
        digest = seed(server, "bs.bin", 67)
        dialogues = {}
        for client in ("globus-url-copy", "gridcp"):
            dest = os.path.join(out, f"{label}-{client}.bin")
            argv = [client if client != "gridcp" else gridcp_binary(), "-dbg", "-tcp-bs", "65536",
                    "-p", "2", server.url("data/bs.bin"), file_url(dest)]
            result = run_peer(argv, timeout=180, what=f"{client} -tcp-bs from {label}")
            check_copy(dest, digest, f"{client} -tcp-bs from {label}", result)
            dialogues[client] = buffer_dialogue(result.stderr)
        command = "SBUF 65536" if label == "gridftpd" else "SITE RETRBUFSIZE 65536"
        expected = ["MODE E", command, "OPTS RETR Parallelism=2,2,2;"]
        assert dialogues["globus-url-copy"] == expected, (label, dialogues)
        assert dialogues["gridcp"] == expected, (label, dialogues)
    records = [r for r in ours.transfer_records() if r.get("command") == "RETR"]
    assert len(records) == 2, records
    for record in records:
        assert record.get("socket_buffer") == 65536, record
        assert record.get("socket_buffers") == ", ".join(["rcvbuf=65536 sndbuf=65536"] * 2), record


def assert_levels_logged(server: GridftpdServer, command: str, count: int) -> None:
    """Each level shows up in gridftpd's transfer log at least `count` times for `command`."""
    records = [r for r in server.transfer_records()
               if r.get("command") == command and r.get("result") == "ok"]
    for level, logged in LOGGED_LEVEL.items():
        found = [r for r in records if r.get("security") == logged]
        assert len(found) >= count, (
            f"gridftpd logged {len(found)} {command}s at {logged!r} ({level}), expected "
            f"{count}: {records[-3:]}")


def test_ftp_get_and_put_against_both_servers():
    ours = start_gridftpd()
    get_and_put(ours, ours.url, {"clear": []}, "ftp gridftpd", 61, gsi=False)
    globus = start_globus_server()
    get_and_put(globus, globus.url, {"clear": []}, "ftp globus", 62, gsi=False)


def test_ftp_third_party_both_ways():
    ours, other, globus = start_gridftpd(), start_gridftpd(), start_globus_server()
    clear = {"clear": []}
    third_party(ours, ours.url, globus, globus.url, clear, "ftp gridftpd -> globus", 63, False)
    third_party(globus, globus.url, ours, ours.url, clear, "ftp globus -> gridftpd", 64, False)
    third_party(ours, ours.url, other, other.url, clear, "ftp gridftpd -> gridftpd", 65, False)


def test_gsiftp_get_and_put_against_gridftpd_each_level():
    server = start_gridftpd(gsi=shared_test_pki())
    get_and_put(server, server.gsiftp_url, LEVELS, "gsiftp gridftpd", 66, gsi=True)
    # stream, -p 1, -p 4: three gets (RETR) and three puts (STOR) at each level
    assert_levels_logged(server, "RETR", 3)
    assert_levels_logged(server, "STOR", 3)


def test_gsiftp_third_party_gridftpd_and_globus_both_ways():
    pki = shared_test_pki()
    ours, globus = start_gridftpd(gsi=pki), start_globus_server(gsi=pki)
    third_party(ours, ours.gsiftp_url, globus, globus.gsiftp_url, LEVELS,
                "gsiftp gridftpd -> globus", 67, gsi=True)
    third_party(globus, globus.gsiftp_url, ours, ours.gsiftp_url, LEVELS,
                "gsiftp globus -> gridftpd", 68, gsi=True)
    assert_levels_logged(ours, "RETR", 2)  # -p 1 and -p 4 as the source
    assert_levels_logged(ours, "STOR", 2)  # and as the destination


def test_gsiftp_third_party_gridftpd_to_gridftpd():
    pki = shared_test_pki()
    source, dest = start_gridftpd(gsi=pki), start_gridftpd(gsi=pki)
    third_party(source, source.gsiftp_url, dest, dest.gsiftp_url, LEVELS,
                "gsiftp gridftpd -> gridftpd", 69, gsi=True)
    assert_levels_logged(source, "RETR", 2)
    assert_levels_logged(dest, "STOR", 2)


PARTIAL_CASES = [(0, 1), (MIB - 1, MIB + 2), (SIZE - 10, 10), (12345, SIZE - 12345),
                 (SIZE - 100, 1000)]
CHECKSUM_ALGS = ("MD5", "ADLER32", "SHA256")


def partial_gets(server, label: str, seed_value: int) -> None:
    seed(server, f"part-{seed_value}.bin", seed_value)
    with open(server.fs(f"data/part-{seed_value}.bin"), "rb") as f:
        data = f.read()
    out = make_temp_dir("gridcp-partial-")
    for p in (None, 4):
        for offset, length in PARTIAL_CASES:
            what = f"gridcp {label} -off {offset} -len {length} {parallel_flags(p)}"
            dest = os.path.join(out, f"{p}-{offset}-{length}.bin")
            result = gridcp(parallel_flags(p) + ["-off", str(offset), "-len", str(length),
                                                 server.url(f"data/part-{seed_value}.bin"),
                                                 file_url(dest)], what)
            want = data[offset:offset + length]
            with open(dest, "rb") as f:
                f.seek(offset)
                got = f.read()
            assert got == want and os.path.getsize(dest) == offset + len(want), (
                f"{what}: local bytes [{offset}:] are {len(got)} B, expected {len(want)} B of "
                f"source[{offset}:{offset + length}]\n{result.describe()}")


def test_partial_gets_against_both_servers():
    partial_gets(start_gridftpd(), "gridftpd", 70)
    partial_gets(start_globus_server(), "globus", 71)


def test_verify_checksum_get_put_and_third_party_with_both_servers():
    ours, globus = start_gridftpd(), start_globus_server()
    out = make_temp_dir("gridcp-cksm-")
    for label, server in (("gridftpd", ours), ("globus", globus)):
        digest = seed(server, "ck.bin", 72)
        for alg in CHECKSUM_ALGS:
            what = f"gridcp {label} get -verify-checksum -checksum-alg {alg}"
            dest = os.path.join(out, f"{label}-{alg}.bin")
            result = gridcp(["-p", "4", "-verify-checksum", "-checksum-alg", alg,
                             server.url("data/ck.bin"), file_url(dest)], what)
            check_copy(dest, digest, what, result)
            what = f"gridcp {label} put -verify-checksum -checksum-alg {alg}"
            result = gridcp(["-p", "4", "-verify-checksum", "-checksum-alg", alg, file_url(dest),
                             server.url(f"incoming/ck-{alg}.bin")], what)
            check_copy(server.fs(f"incoming/ck-{alg}.bin"), digest, what, result)
    for (label, source), dest in ((("gridftpd -> globus", ours), globus),
                                  (("globus -> gridftpd", globus), ours)):
        digest = seed(source, "ck3.bin", 73)
        for alg in CHECKSUM_ALGS:
            what = f"gridcp third-party {label} -verify-checksum -checksum-alg {alg}"
            target = f"incoming/ck3-{label[:6]}-{alg}.bin"
            result = gridcp(["-p", "4", "-verify-checksum", "-checksum-alg", alg,
                             source.url("data/ck3.bin"), dest.url(target)], what)
            check_copy(dest.fs(target), digest, what, result)


def make_small_tree(root: str) -> dict[str, str]:
    """300 files of 0..299 bytes, 30 to a directory, two levels deep; relative path -> sha256."""
    block = os.urandom(600)
    for i in range(300):
        directory = os.path.join(root, f"d{i // 100}", f"e{i // 30 % 10}")
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, f"f{i}.bin"), "wb") as f:
            f.write(block[i:i + i])
    make_tree_readable(root)
    return tree_digests(root)


def test_recursive_trees_against_both_servers():
    ours, globus = start_gridftpd(), start_globus_server()
    give_to_globus_user(globus.fs("incoming"))
    for label, server in (("gridftpd", ours), ("globus", globus)):
        expected = make_small_tree(server.fs("tree"))
        out = os.path.join(make_temp_dir("gridcp-peers-tree-"), "copy")
        gridcp(["-r", "-cc", "4", "-pp", "-cd", server.url("tree/"), file_url(out) + "/"],
               f"gridcp -r -cc 4 -pp get from {label}")
        assert_same_tree(expected, out, f"-r get from {label}")
        gridcp(["-r", "-cc", "4", "-pp", "-cd", file_url(out) + "/", server.url("incoming/put/")],
               f"gridcp -r -cc 4 -pp put to {label}")
        assert_same_tree(expected, server.fs("incoming/put"), f"-r put to {label}")
    for (label, source), dest in ((("gridftpd -> globus", ours), globus),
                                  (("globus -> gridftpd", globus), ours)):
        target = f"incoming/tp-{label[:6]}/"
        gridcp(["-r", "-cc", "4", "-pp", "-cd", source.url("tree/"), dest.url(target)],
               f"gridcp -r -cc 4 -pp third-party {label}")
        assert_same_tree(tree_digests(source.fs("tree")), dest.fs(target), f"-r {label}")


if __name__ == "__main__":
    run_tests(globals())
