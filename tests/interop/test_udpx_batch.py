"""A directory tree over UDPX in one stream (docs/UDPX.md §1.9, docs/WIRE.md §7): gridcp -r -udp
against gridftpd sends BRET or BSTO with the UDPX network stack, and the batch's records travel as
one UDPX transfer of unknown length, handshake once for the whole tree.

Covered, byte-identical by SHA-256, with the user's proxy over GSI (DCAU A and -dcpriv):
  * a get of a nested tree (empty files, empty directories, sizes across block boundaries, and
    a file over the 16 MiB that a TCP batch leaves to a RETR of its own, which a UDPX batch
    carries too): one BRET, no RETR, the transfer log's record says udpx;
  * a put of the same tree: one BSTO over UDPX;
  * a third-party copy between two gridftpd: BRET on the source, BSTO on the dest, both UDPX;
  * a put whose tree holds a link to a directory (not followed): that entry fails on its own
    and every other file arrives;
  * a get whose server session is killed mid-tree: gridcp -rst notices within its stall
    timeout, keeps the files it has, and its retry (BRST with the point it reached, then BRET
    over UDPX again) moves only the rest.
"""

import os

from gridftp_harness import (MIB, assert_same_tree, cut_off_and_resume, file_url, gridcp_binary,
                             make_file, make_temp_dir, make_tree_readable, run_peer, run_tests,
                             shared_test_pki, start_gridftpd)


def gsi_server():
    return start_gridftpd(gsi=shared_test_pki())


def gridcp(args: list[str], what: str, expect_rc: int | None = 0):
    return run_peer([gridcp_binary()] + args, env=shared_test_pki().client_env("test"),
                    timeout=300, what=what, expect_rc=expect_rc)


def make_tree(root: str, seed: int) -> dict[str, str]:
    block = 1404  # a UDPX block at the default datagram size
    spec = {f"d{i % 3}/e{i % 4}/f{i}.dat": (i * 7919) % (3 * block) for i in range(60)}
    spec.update({"empty.bin": 0, "one.bin": 1, "block.bin": block, "block1.bin": block + 1,
                 "big.bin": 17 * MIB + 3})
    expected = {rel: make_file(os.path.join(root, rel), size, seed=seed + i)
                for i, (rel, size) in enumerate(sorted(spec.items()))}
    os.makedirs(os.path.join(root, "d1", "nothing_here"))
    return expected


def commands(server) -> list[tuple[str, str | None]]:
    return [(r["command"], r.get("network")) for r in server.transfer_records()]


def test_a_tree_is_fetched_in_one_udpx_stream():
    server = gsi_server()
    expected = make_tree(server.fs("tree"), seed=11)
    make_tree_readable(server.fs("tree"))
    for level, flags in {"dcau-a": [], "dcpriv": ["-dcpriv"]}.items():
        out = make_temp_dir(f"udpx-batch-get-{level}-")
        before = len(server.transfer_records())
        gridcp(flags + ["-r", "-udp", server.gsiftp_url("tree/"), file_url(out) + "/"],
               what=f"gridcp -r -udp get {level}")
        assert_same_tree(expected, out, f"UDPX batch get {level}")
        assert os.path.isdir(os.path.join(out, "d1", "nothing_here")), "empty directory missing"
        ran = commands(server)[before:]
        assert ran == [("BRET", "udpx")], f"{level}: one BRET over UDPX for the tree, got {ran}"
    server.assert_alive("after UDPX batch gets")


def test_a_tree_is_put_in_one_udpx_stream():
    server = gsi_server()
    src = make_temp_dir("udpx-batch-src-")
    expected = make_tree(src, seed=23)
    gridcp(["-r", "-udp", "-cd", file_url(src) + "/", server.gsiftp_url("incoming/put/")],
           what="gridcp -r -udp put")
    assert_same_tree(expected, server.fs("incoming/put"), "UDPX batch put")
    assert os.path.isdir(server.fs("incoming/put/d1/nothing_here"))
    assert commands(server) == [("BSTO", "udpx")], commands(server)


def test_a_third_party_tree_goes_in_one_udpx_stream():
    source = gsi_server()
    dest = gsi_server()
    expected = make_tree(source.fs("tree"), seed=37)
    make_tree_readable(source.fs("tree"))
    gridcp(["-r", "-udp", "-cd", source.gsiftp_url("tree/"), dest.gsiftp_url("incoming/copy/")],
           what="gridcp -r -udp third-party")
    assert_same_tree(expected, dest.fs("incoming/copy"), "UDPX third-party batch")
    assert commands(source) == [("BRET", "udpx")] and commands(dest) == [("BSTO", "udpx")], (
        commands(source), commands(dest))


def test_an_unreadable_local_file_fails_alone_and_the_rest_arrive():
    server = gsi_server()
    src = make_temp_dir("udpx-batch-unreadable-")
    expected = make_tree(src, seed=41)
    os.symlink("d0", os.path.join(src, "dirlink"))  # links to directories are not followed
    result = gridcp(["-r", "-udp", "--json", "-cd", file_url(src) + "/",
                     server.gsiftp_url("incoming/part/")], what="gridcp -r -udp put, one bad",
                    expect_rc=1)
    assert_same_tree(expected, server.fs("incoming/part"), "UDPX batch put with a bad entry")
    assert "dirlink" in result.stdout, result.describe()


def test_a_tree_cut_off_mid_stream_resumes_with_only_the_rest():
    server = gsi_server()
    count, size = 40, 2 * MIB
    expected = {f"part{i // 10}/f{i:02}.bin": make_file(
        server.fs(f"tree/part{i // 10}/f{i:02}.bin"), size, seed=70 + i) for i in range(count)}
    make_tree_readable(server.fs("tree"))
    out = make_temp_dir("udpx-batch-cut-")
    argv = [gridcp_binary(), "-r", "-udp", "--rate", "100M", "-rst", "--rst-retries", "3",
            "--rst-interval", "1", "--st", "3", server.gsiftp_url("tree/"), file_url(out) + "/"]
    cut_off_and_resume(server, argv, lambda: os.path.exists(os.path.join(out, "part1", "f12.bin")),
                       "UDPX batch get")
    assert_same_tree(expected, out, "UDPX batch get resumed after its session died")
    done = [r for r in server.transfer_records()
            if r["command"] == "BRET" and r["result"] == "ok"]
    assert len(done) == 1 and done[0].get("network") == "udpx", done
    assert done[0]["bytes"] < (count - 12) * size + MIB, (
        f"the retry moved {done[0]['bytes']} bytes: not only the files that were missing")


if __name__ == "__main__":
    run_tests(globals())
