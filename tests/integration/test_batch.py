"""Batch mode between gridcp and gridftpd (docs/WIRE.md §7): a -r tree fetched in one BRET
transfer, the files over the size limit left to ordinary RETRs, links, -no-batch, the restart
point after the server is killed mid-tree (-rst finishes the rest, nothing moves twice), a put
in one BSTO, a third-party batch between two gridftpd, and BRET/BRST/BSTO refusing bad input
(paths leaving the directory, a cut-off stream, a lying checksum) without leaving a file."""

import json
import os
import signal
import struct
import subprocess

from gridftp_harness import (MIB, RawControl, assert_same_tree, gridcp_binary, make_file,
                             make_temp_dir, make_tree_readable, run_peer, run_tests,
                             start_gridftpd, tree_digests, wait_until)


def file_url(path: str) -> str:
    return "file://" + os.path.abspath(path)


def gridcp(*args, expect_rc=0, what=""):
    return run_peer([gridcp_binary(), *args], timeout=300, expect_rc=expect_rc,
                    what=what or "gridcp")


def json_files(output: str) -> list[dict]:
    records = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    return [r for r in records if r.get("type") == "file"]


def commands(server, since: int = 0) -> list[str]:
    return [r["command"] for r in server.transfer_records()[since:]]


def test_a_tree_comes_in_one_transfer_with_big_files_apart():
    server = start_gridftpd()
    root = server.fs("tree")
    spec = {f"d{i % 3}/e{i % 5}/f{i}.dat": (i * 131) % 5000 for i in range(300)}
    spec.update({"empty.bin": 0, "top.txt": 17, "huge.bin": 16 * MIB + 1})
    expected = {rel: make_file(os.path.join(root, rel), size, seed=i)
                for i, (rel, size) in enumerate(sorted(spec.items()))}
    os.makedirs(os.path.join(root, "d1", "nothing_here"))
    # A link to a file inside the root is sent as that file; a link to a directory is not
    # followed (no loops), and that entry alone fails.
    os.symlink("top.txt", os.path.join(root, "link.txt"))
    expected["link.txt"] = expected["top.txt"]
    os.symlink("d0", os.path.join(root, "loop"))
    make_tree_readable(root)
    out = make_temp_dir("batch-get-")
    result = gridcp("-r", "-cc", "2", "--json", server.url("tree/"), file_url(out) + "/",
                    expect_rc=1, what="gridcp -r from gridftpd")
    assert_same_tree(expected, out, "batch get")
    assert os.path.isdir(os.path.join(out, "d1", "nothing_here")), "the empty directory is missing"
    files = json_files(result.stdout)
    failed = [r for r in files if r["result"] == "failed"]
    assert len(failed) == 1 and failed[0]["source"].endswith("/tree/loop"), (
        f"only the link to a directory should fail: {failed}")
    assert "not followed" in failed[0]["error"], failed[0]
    copied = [r["dest"] for r in files if r["result"] == "copied"]
    assert sorted(copied) == sorted(set(copied)) and len(copied) == len(expected), (
        f"each file once: {len(copied)} records for {len(expected)} files")
    ran = commands(server)
    assert ran.count("BRET") == 1 and ran.count("RETR") == 1, (
        f"one BRET for the tree and one RETR for the file over 16 MiB, got {ran}")
    retr = [r for r in server.transfer_records() if r["command"] == "RETR"][0]
    assert retr["path"] == "/tree/huge.bin", retr
    assert not [n for n in tree_digests(out) if n.endswith(".gridcp-part")]


def test_no_batch_and_partial_options_keep_the_file_by_file_plan():
    server = start_gridftpd()
    root = server.fs("tree")
    expected = {f"s/f{i}": make_file(os.path.join(root, f"s/f{i}"), 100 + i, seed=i)
                for i in range(12)}
    make_tree_readable(root)
    out = make_temp_dir("batch-off-")
    gridcp("-r", "-no-batch", server.url("tree/"), file_url(out) + "/", what="-no-batch")
    assert_same_tree(expected, out, "-no-batch")
    assert "BRET" not in commands(server) and commands(server).count("RETR") == 12
    # -sync decides file by file, so it keeps the file-by-file plan too.
    before = len(server.transfer_records())
    out2 = make_temp_dir("batch-sync-")
    gridcp("-r", "-sync", server.url("tree/"), file_url(out2) + "/", what="-sync")
    assert_same_tree(expected, out2, "-sync")
    assert "BRET" not in commands(server, before)


def test_a_killed_server_mid_tree_is_resumed_and_nothing_moves_twice():
    root = make_temp_dir("batch-rst-root-")
    count, size = 2500, 100 * 1024
    expected = {f"d{i // 250}/f{i:04}.bin": make_file(
        os.path.join(root, "tree", f"d{i // 250}", f"f{i:04}.bin"), size + i, seed=i)
        for i in range(count)}
    total = sum(size + i for i in range(count))
    make_tree_readable(root)
    server = start_gridftpd(root)
    port = server.port
    out = make_temp_dir("batch-rst-")
    argv = [gridcp_binary(), "-r", "--json", "-rst", "-rst-interval", "1", "-rst-retries", "10",
            server.url("tree/"), file_url(out) + "/"]
    client = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # Freeze the server once the first files are in, so the kill lands mid-tree for sure.
        wait_until(lambda: os.path.exists(os.path.join(out, "d0", "f0020.bin")), 60,
                   "the first files of the batch")
        os.kill(server.proc.pid, signal.SIGSTOP)
        server.proc.kill()
        server.proc.wait(timeout=10)
        held = sum(len(names) for _, _, names in os.walk(out))
        assert held < count, f"the kill did not land mid-tree ({held} of {count} files)"
        restarted = start_gridftpd(root, listen={"port": port})
        output, errors = client.communicate(timeout=300)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
    text = output.decode(errors="replace")
    assert client.returncode == 0, (
        f"gridcp -rst did not finish the batch: rc={client.returncode}\n{' '.join(argv)}\n"
        f"{text[-3000:]}\n{errors.decode(errors='replace')[-3000:]}")
    assert_same_tree(expected, out, "batch get resumed after a killed server")
    files = json_files(text)
    copied = [r for r in files if r["result"] == "copied"]
    assert len(copied) == count and len({r["dest"] for r in copied}) == count, (
        f"{len(copied)} copied records for {count} files")
    moved = sum(r["bytes"] for r in copied)
    assert moved == total, f"{moved} bytes moved for {total} bytes of files: some moved twice"
    resumed = restarted.wait_transfer_record(
        lambda r: r.get("command") == "BRET" and r.get("result") == "ok", "the resumed BRET")
    assert resumed["bytes"] < total, (
        f"the second attempt sent {resumed['bytes']} bytes: it started over")


def test_bret_and_brst_refuse_bad_input():
    server = start_gridftpd()
    make_file(server.fs("tree/a.bin"), 10)
    make_tree_readable(server.fs("tree"))
    control = RawControl(server.host, server.port)
    control.login()
    feat = control.expect("FEAT", 211)
    assert " BATCH BRET;BRST;" in feat, feat
    control.expect("TYPE I", 200)
    for bad in ("BRST", "BRST 12", "BRST x a", "BRST 5 /abs", "BRST 5 a/../../b", "BRST -1 a"):
        control.expect(bad, 501)
    control.expect("BRST 5 a.bin", 350)
    for bad in ("BRET", "BRET /tree", "BRET x /tree", "BRET 0"):
        control.expect(bad, 501)
    control.expect("BRET 0 /tree/a.bin", 550)
    control.expect("BRET 0 /no/such/dir", 550)
    control.expect("BRET 0 /tree", 425)  # no PASV/PORT yet
    control.expect("TYPE A", 200)
    control.expect("BRET 0 /tree", 503)
    control.expect("TYPE I", 200)
    control.expect("MODE E", 200)
    control.expect("BRET 0 /tree", 503)
    control.expect("MODE S", 200)
    # ".." cannot climb out of the user's root.
    control.expect("BRET 0 /../../tree", 550)
    data = control.pasv_connect()
    control.expect("BRET 0 /tree", 150)
    received = b""
    while chunk := data.recv(65536):
        received += chunk
    data.close()
    code, _ = control.read_reply()
    assert code == 226, code
    assert received.startswith(b"GFB1") and b"\x00\x05a.bin" in received, received[:200]
    control.close()


def local_tree(root: str) -> dict[str, str]:
    spec = {f"p{i % 4}/q{i % 3}/g{i}.dat": (i * 97) % 7000 for i in range(200)}
    spec.update({"zero.bin": 0, "huge.bin": 16 * MIB + 5})
    expected = {rel: make_file(os.path.join(root, rel), size, seed=i)
                for i, (rel, size) in enumerate(sorted(spec.items()))}
    os.makedirs(os.path.join(root, "p2", "empty_dir"))
    return expected


def test_a_tree_is_put_in_one_transfer():
    server = start_gridftpd()
    src = make_temp_dir("batch-put-")
    expected = local_tree(src)
    os.symlink("p0", os.path.join(src, "dirlink"))  # not followed: fails alone, locally
    result = gridcp("-r", "--json", "-cd", file_url(src) + "/", server.url("incoming/put/"),
                    expect_rc=1, what="gridcp -r put to gridftpd")
    assert_same_tree(expected, server.fs("incoming/put"), "batch put")
    assert os.path.isdir(server.fs("incoming/put/p2/empty_dir"))
    files = json_files(result.stdout)
    failed = [r for r in files if r["result"] == "failed"]
    assert len(failed) == 1 and failed[0]["source"].endswith("dirlink"), failed
    assert sum(1 for r in files if r["result"] == "copied") == len(expected)
    ran = commands(server)
    assert ran.count("BSTO") == 1 and ran.count("STOR") == 1, (
        f"one BSTO for the tree and one STOR for the file over 16 MiB, got {ran}")


def test_a_third_party_batch_between_two_gridftpd():
    source = start_gridftpd()
    dest = start_gridftpd()
    expected = local_tree(source.fs("tree"))
    make_tree_readable(source.fs("tree"))
    gridcp("-r", "-cd", source.url("tree/"), dest.url("incoming/copy/"),
           what="gridcp -r third-party gridftpd -> gridftpd")
    assert_same_tree(expected, dest.fs("incoming/copy"), "third-party batch")
    assert os.path.isdir(dest.fs("incoming/copy/p2/empty_dir"))
    assert commands(source) == ["BRET"] and commands(dest) == ["BSTO"], (
        commands(source), commands(dest))


def batch_stream(records: list[tuple[str, bytes | None]], end: bool = True,
                 crc_fix: int = 0) -> bytes:
    """A batch stream of files (path, data) and directories (path, None), as docs/WIRE.md §7.3
    lays it out."""
    out = b"GFB1"
    files = [(p, d) for p, d in records if d is not None]
    for path, data in records:
        name = path.encode()
        if data is None:
            out += b"D" + struct.pack(">H", len(name)) + name
            continue
        out += b"F" + struct.pack(">H", len(name)) + name + struct.pack(">QQ", 0, len(data))
        out += data + struct.pack(">I", crc32c(data) ^ crc_fix)
    if end:
        out += b"E" + struct.pack(">QQ", len(files), sum(len(d) for _, d in files))
    return out


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def bsto(server, directory: str, stream: bytes) -> int:
    control = RawControl(server.host, server.port)
    control.login()
    control.expect("TYPE I", 200)
    data = control.pasv_connect()
    control.expect(f"BSTO {directory}", 150)
    data.sendall(stream)
    data.close()
    code, _ = control.read_reply()
    control.close()
    return code


def test_bsto_refuses_bad_streams_and_keeps_nothing_of_them():
    server = start_gridftpd()
    assert crc32c(b"123456789") == 0xE3069283  # the check value of CRC-32C
    assert bsto(server, "/incoming/ok", batch_stream([("a", None), ("a/b.txt", b"hello")])) == 226
    with open(server.fs("incoming/ok/a/b.txt"), "rb") as f:
        assert f.read() == b"hello"
    cases = {
        "escape": batch_stream([("../escaped.txt", b"x")]),
        "no_parent": batch_stream([("missing/x.txt", b"x")]),
        "absolute": batch_stream([("/abs.txt", b"x")]),
        "cut": batch_stream([("cut.txt", b"y" * 1000)], end=False)[:-300],
        "badcrc": batch_stream([("badcrc.txt", b"w" * 10)], crc_fix=1),
        "notbatch": b"RETR something\r\n",
    }
    for name, stream in cases.items():
        code = bsto(server, f"/incoming/{name}", stream)
        assert 400 <= code < 600, f"{name}: a bad batch stream got {code}"
        left = [f for _, _, files in os.walk(server.fs(f"incoming/{name}")) for f in files]
        assert left == [], f"{name}: files were left: {left}"
    # Each file is committed once its checksum matched: a stream cut after a whole file keeps
    # that file (whole) and still fails the batch.
    code = bsto(server, "/incoming/unended",
                batch_stream([("whole.txt", b"z" * 50), ("half.txt", b"h" * 5000)],
                             end=False)[:-2000])
    assert 400 <= code < 600, f"a cut-off batch got {code}"
    assert sorted(os.listdir(server.fs("incoming/unended"))) == ["whole.txt"]
    with open(server.fs("incoming/unended/whole.txt"), "rb") as f:
        assert f.read() == b"z" * 50
    assert not os.path.exists(server.fs("escaped.txt"))
    assert not os.path.exists(server.fs("incoming/escaped.txt"))
    control = RawControl(server.host, server.port)
    control.login()
    control.expect("TYPE I", 200)
    control.expect("BSTO", 501)
    control.expect("BSTO /not_writable_here", 550, 553)
    control.close()
    assert server.proc.poll() is None, "the server died"


if __name__ == "__main__":
    run_tests(globals())
