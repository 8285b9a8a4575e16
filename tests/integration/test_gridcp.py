"""Our client gridcp against our server gridftpd (get, put, third-party gridftpd -> gridftpd,
-list, -cd, -tcp-bs, failures; the multi-file engine: -r -cc -pp trees, -sync, -rst after a
killed server in stream mode and MODE E, -f lists, bad input in the middle of a run) and against
the real globus-gridftp-server (get and put)."""

import os
import signal
import subprocess
import time

from gridftp_harness import (MIB, assert_file_digest, assert_same_tree, gridcp_binary, make_file,
                             make_temp_dir, make_tree_readable, run_peer, run_tests,
                             start_globus_server, start_gridftpd, tree_digests, wait_until)

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


def test_get_to_a_device_or_fifo_writes_it_in_place_and_keeps_it():
    """A get whose destination is a device (the null device, as people pass file:///dev/null)
    writes into it: a temporary file renamed over it replaced the node with a regular file (run
    as root against /dev/null, the machine's null device)."""
    import stat
    import threading
    server = start_gridftpd()
    seed(server)
    out = make_temp_dir("gridcp-special-")
    null = os.path.join(out, "null")
    if os.geteuid() == 0:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        for flags in ([], ["-p", "4"]):
            gridcp(*flags, server.url("data/big.bin"), file_url(null),
                   what=f"gridcp {' '.join(flags)} get to a null device")
            assert stat.S_ISCHR(os.stat(null).st_mode), "the null device was replaced"
        assert not os.path.exists(null + ".gridcp-part"), "a temporary file was left beside it"
    # A FIFO cannot take positioned writes: the get fails with an error, and the FIFO is
    # still a FIFO afterwards (it used to be renamed over).
    fifo = os.path.join(out, "fifo")
    os.mkfifo(fifo)
    reader = threading.Thread(target=lambda: open(fifo, "rb").read(), daemon=True)
    reader.start()
    gridcp(server.url("data/mib_plus_one.bin"), file_url(fifo), expect_rc=None,
           what="gridcp get into a FIFO")
    reader.join(60)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO was replaced by a regular file"


def test_fast_means_mode_e_for_every_transfer():
    # globus-url-copy -help: "-fast ... Use MODE E for all data transfers". Without -p the get
    # and the put are MODE E (one stream); without -fast they are stream mode.
    server = start_gridftpd()
    digests = seed(server)
    out = make_temp_dir("gridcp-fast-")
    name = "mib_plus_one.bin"
    for flags, mode in ((["-fast"], "E"), ([], "S")):
        dest = os.path.join(out, f"{mode}-{name}")
        gridcp(*flags, server.url(f"data/{name}"), file_url(dest), what=f"gridcp {flags} get")
        assert_file_digest(dest, digests[name], f"gridcp {flags} get")
        gridcp(*flags, file_url(dest), server.url(f"incoming/{mode}-{name}"),
               what=f"gridcp {flags} put")
        assert_file_digest(server.fs(f"incoming/{mode}-{name}"), digests[name], f"gridcp {flags} put")
        stored = server.wait_transfer_record(
            lambda r: r.get("command") == "STOR" and str(r.get("path", "")).endswith(
                f"incoming/{mode}-{name}"), f"the STOR of gridcp {flags}")
        assert stored["mode"] == mode, f"gridcp {flags}: the put ran as {stored}"
    gets = [r["mode"] for r in server.transfer_records()
            if r.get("command") == "RETR" and str(r.get("path", "")).endswith(f"data/{name}")]
    assert gets == ["E", "S"], f"modes of the gets with and without -fast: {gets}"


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


def test_tcp_bs_reaches_the_servers_data_sockets():
    # -tcp-bs N: SBUF N to each server (FEAT lists SBUF), and the servers' data sockets run with
    # N-byte buffers: the transfer log reads every data socket's sizes back. A size below the
    # kernel's defaults (Linux starts TCP sockets at 87380/16384 and autotunes from there)
    # cannot be met by chance. Without -tcp-bs nothing is set.
    size = 32768
    source = start_gridftpd()
    dest = start_gridftpd()
    digests = seed(source)
    name = "big.bin"
    out = make_temp_dir("gridcp-tcp-bs-")
    local = os.path.join(out, name)
    runs = [("stream get", [], source.url(f"data/{name}"), file_url(local)),
            ("-p 4 get", ["-p", "4"], source.url(f"data/{name}"), file_url(local + ".p4")),
            ("-p 2 put", ["-p", "2"], file_url(local), dest.url(f"incoming/put-{name}")),
            ("third-party", [], source.url(f"data/{name}"), dest.url(f"incoming/tp-{name}"))]
    for what, flags, src_url, dst_url in runs:
        result = gridcp("-dbg", "-tcp-bs", "32K", *flags, src_url, dst_url,
                        what=f"gridcp -tcp-bs {what}")
        assert f"C: SBUF {size}" in result.stderr, f"{what}: no SBUF sent\n{result.describe()}"
    assert_file_digest(local, digests[name], "-tcp-bs stream get")
    assert_file_digest(local + ".p4", digests[name], "-tcp-bs -p 4 get")
    assert_file_digest(dest.fs(f"incoming/put-{name}"), digests[name], "-tcp-bs put")
    assert_file_digest(dest.fs(f"incoming/tp-{name}"), digests[name], "-tcp-bs third-party")
    def transfers():
        return [r for server in (source, dest) for r in server.transfer_records()
                if r.get("command") in ("RETR", "STOR")]
    # A record is written just after the 226; the third-party copy shows on both servers.
    wait_until(lambda: len(transfers()) >= 5, 30, "the five transfer records")
    records = transfers()
    assert len(records) == 5, records
    for record in records:
        assert record.get("socket_buffer") == size, f"SBUF did not reach the server: {record}"
        sockets = record.get("socket_buffers", "").split(", ")
        assert len(sockets) == record["streams"], record
        assert all(s == f"rcvbuf={size} sndbuf={size}" for s in sockets), (
            f"a data socket did not get the buffer size: {record}")
    gridcp(source.url(f"data/{name}"), file_url(local + ".plain"), what="gridcp without -tcp-bs")
    wait_until(lambda: len(transfers()) == 6, 30, "the record of the get without -tcp-bs")
    plain = [r for r in source.transfer_records() if r.get("command") == "RETR"][-1]
    assert "socket_buffer" not in plain, f"a buffer size without -tcp-bs: {plain}"
    for bad in ("0", "1.5M", "lots", "4G"):
        result = gridcp("-tcp-bs", bad, source.url(f"data/{name}"), file_url(local + ".bad"),
                        expect_rc=1, what=f"gridcp -tcp-bs {bad}")
        assert "bad -tcp-bs" in result.stderr, result.describe()


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


def make_nested_tree(root: str, files: int, per_dir: int = 100) -> dict[str, str]:
    """`files` small files (0..199 bytes), `per_dir` to a directory, two levels deep.
    Returns relative path -> sha256."""
    block = os.urandom(200 + files)
    for i in range(files):
        d = i // per_dir
        directory = os.path.join(root, f"d{d // 10}", f"e{d % 10}")
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, f"f{i}.bin"), "wb") as f:
            f.write(block[i:i + i % 200])
    make_tree_readable(root)
    return tree_digests(root)


def test_tree_of_5000_files_with_concurrency_and_pipelining():
    # Acceptance 2: -r -cc 8 -pp of 5,000 small files in nested directories, third-party
    # (where -pp pipelines), then the same tree fetched to local disk with -cc 8.
    server = start_gridftpd()
    expected = make_nested_tree(server.fs("tree"), 5000)
    result = gridcp("-r", "-cc", "8", "-pp", "-cd", server.url("tree/"),
                    server.url("incoming/copy/"), what="gridcp -r -cc 8 -pp third-party")
    try:
        assert_same_tree(expected, server.fs("incoming/copy"), "-r -cc 8 -pp third-party")
    except AssertionError as e:
        raise AssertionError(f"{e}\n{result.describe()}") from None
    out = make_temp_dir("gridcp-tree-")
    gridcp("-r", "-cc", "8", "-pp", server.url("tree/"), file_url(out) + "/",
           what="gridcp -r -cc 8 get")
    assert_same_tree(expected, out, "-r -cc 8 get")


def test_sync_skips_identical_files_and_copies_changed_ones():
    server = start_gridftpd()
    expected = make_nested_tree(server.fs("tree"), 40, per_dir=10)
    out = make_temp_dir("gridcp-sync-")
    gridcp("-r", "-cc", "4", server.url("tree/"), file_url(out) + "/", what="first copy")
    assert_same_tree(expected, out, "first -sync copy")
    # One file changes size, one gains a newer time, one is new; one destination copy is
    # tampered with but keeps size and time (level 2 keeps it, level 3 repairs it).
    changed = "d0/e0/f5.bin"
    touched = "d0/e1/f12.bin"
    added = "d0/e0/new.bin"
    tampered = "d0/e2/f25.bin"
    expected[changed] = make_file(server.fs(f"tree/{changed}"), 777, seed=9)
    future = time.time() + 3600
    os.utime(server.fs(f"tree/{touched}"), (future, future))
    expected[added] = make_file(server.fs(f"tree/{added}"), 50, seed=10)
    make_tree_readable(server.fs("tree"))
    stat = os.stat(os.path.join(out, tampered))
    with open(os.path.join(out, tampered), "r+b") as f:
        data = f.read()
        f.seek(0)
        f.write(bytes(b ^ 0xFF for b in data))
    os.utime(os.path.join(out, tampered), ns=(stat.st_atime_ns, stat.st_mtime_ns))
    before = len(server.transfer_records())
    gridcp("-sync", "-r", "-cc", "4", server.url("tree/"), file_url(out) + "/", what="-sync")
    retrieved = sorted(r["path"] for r in server.transfer_records()[before:]
                       if r.get("command") == "RETR")
    assert retrieved == sorted(f"/tree/{p}" for p in (changed, touched, added)), (
        f"-sync should fetch exactly the changed, newer and new files; fetched {retrieved}")
    tampered_digest = expected.pop(tampered)
    assert_same_tree({**expected, tampered: tree_digests(out)[tampered]}, out, "-sync level 2")
    gridcp("-sync", "-sync-level", "3", "-r", server.url("tree/"), file_url(out) + "/",
           what="-sync -sync-level 3")
    assert_same_tree({**expected, tampered: tampered_digest}, out, "-sync level 3")


def test_restart_resumes_after_the_server_is_killed_mid_file():
    restart_after_killed_server([])


def test_restart_resumes_a_mode_e_get_after_the_server_is_killed_mid_file():
    # -p 4: blocks land out of order on four streams, so the partial file's size says nothing;
    # the retry must REST the ranges it wrote and get only the others.
    restart_after_killed_server(["-p", "4"])


def kill_server_mid_file(server, partial: str, size: int) -> int:
    """Kills `server` (SIGKILL, our own PID) and returns the bytes `partial` held then, which
    must be some but not all of `size`. The bytes really there: MODE E writes blocks at their
    offsets, so a late block can make the (sparse) file look whole."""
    stat = os.stat(partial)
    held = min(stat.st_size, stat.st_blocks * 512)
    server.proc.kill()
    server.proc.wait(timeout=10)
    assert 0 < held < size, f"the kill did not land mid-file ({held} of {size} bytes)"
    return held


def restart_after_killed_server(flags: list[str]):
    root = make_temp_dir("gridcp-rst-root-")
    size = 256 * MIB
    digest = make_file(os.path.join(root, "big.bin"), size, seed=3)
    make_tree_readable(root)
    server = start_gridftpd(root)
    port = server.port
    out = make_temp_dir("gridcp-rst-")
    dest = os.path.join(out, "big.bin")
    partial = dest + ".gridcp-part"
    argv = [gridcp_binary(), *flags, "-rst", "-rst-interval", "1", "-rst-retries", "10",
            server.url("big.bin"), file_url(dest)]
    client = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        # Freeze the server once bytes arrive, so the kill lands mid-file for sure.
        wait_until(lambda: os.path.exists(partial) and os.path.getsize(partial) > 0, 60,
                   "the first bytes of the get")
        os.kill(server.proc.pid, signal.SIGSTOP)
        held = kill_server_mid_file(server, partial, size)
        restarted = start_gridftpd(root, listen={"port": port})
        output, _ = client.communicate(timeout=300)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
    assert client.returncode == 0, (
        f"gridcp -rst did not recover: rc={client.returncode}\n{' '.join(argv)}\n"
        f"{output.decode(errors='replace')}")
    assert_file_digest(dest, digest, "gridcp -rst after a killed server")
    assert not os.path.exists(partial), "the partial file was left behind"
    resumed = restarted.wait_transfer_record(
        lambda r: r.get("command") == "RETR" and r.get("result") == "ok", "the resumed RETR")
    assert resumed["bytes"] < size, (
        f"the second attempt fetched {resumed['bytes']} bytes: it started over instead of "
        f"resuming (the first attempt held at least {held})")


def test_restart_resumes_a_mode_e_put_after_the_server_is_killed_mid_file():
    # The receiver's 111 range markers (every 5 s by default) say what it holds; after the
    # server is killed and back, the retry sends REST with those ranges and only the rest, and
    # the server adds them to the partial file it kept.
    root = make_temp_dir("gridcp-rst-put-root-")
    server = start_gridftpd(root)
    port = server.port
    src = make_temp_dir("gridcp-rst-put-")
    size = 256 * MIB
    digest = make_file(os.path.join(src, "big.bin"), size, seed=5)
    partial = server.fs("incoming/.gridftpd-part.big.bin")
    argv = [gridcp_binary(), "-p", "4", "-rst", "-rst-interval", "1", "-rst-retries", "10",
            file_url(os.path.join(src, "big.bin")), server.url("incoming/big.bin")]
    client = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        # A loopback put of this size takes a fraction of a second: look often.
        wait_until(lambda: os.path.exists(partial) and os.stat(partial).st_blocks > 0, 60,
                   "the first bytes of the put", interval=0.001)
        # Hold the client while the server's marker period passes, so a 111 reports the bytes
        # that arrived; then the server dies with the transfer unfinished.
        os.kill(client.pid, signal.SIGSTOP)
        time.sleep(6)
        held = kill_server_mid_file(server, partial, size)
        restarted = start_gridftpd(root, listen={"port": port})
        os.kill(client.pid, signal.SIGCONT)
        output, _ = client.communicate(timeout=300)
    finally:
        if client.poll() is None:
            os.kill(client.pid, signal.SIGCONT)
            client.kill()
            client.wait()
    assert client.returncode == 0, (
        f"gridcp -rst did not recover: rc={client.returncode}\n{' '.join(argv)}\n"
        f"{output.decode(errors='replace')}")
    assert_file_digest(restarted.fs("incoming/big.bin"), digest, "gridcp -rst -p 4 put")
    resumed = restarted.wait_transfer_record(
        lambda r: r.get("command") == "STOR" and r.get("result") == "ok", "the resumed STOR")
    assert resumed["bytes"] < size, (
        f"the second attempt sent {resumed['bytes']} bytes: it started over instead of "
        f"resuming (the server held {held} when it was killed)")


def test_restart_resumes_a_stream_put_after_the_server_is_killed_mid_file():
    # Stream mode has no block offsets: gridcp -rst asks for restart markers (TREV RESTART 1),
    # gridftpd then reports in 111 markers what its hidden partial file holds, and after the
    # server is killed and back the retry sends REST n + STOR with only the rest, which the
    # server appends to the partial file it kept.
    root = make_temp_dir("gridcp-rst-sput-root-")
    server = start_gridftpd(root)
    port = server.port
    src = make_temp_dir("gridcp-rst-sput-")
    size = 256 * MIB
    digest = make_file(os.path.join(src, "big.bin"), size, seed=6)
    partial = server.fs("incoming/.gridftpd-part.big.bin")
    argv = [gridcp_binary(), "-rst", "-rst-interval", "1", "-rst-retries", "10",
            file_url(os.path.join(src, "big.bin")), server.url("incoming/big.bin")]
    client = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: os.path.exists(partial) and os.stat(partial).st_blocks > 0, 60,
                   "the first bytes of the put", interval=0.001)
        # Hold the client while marker periods pass, so a 111 reports the bytes that arrived;
        # then the server dies with the transfer unfinished.
        os.kill(client.pid, signal.SIGSTOP)
        time.sleep(3)
        held = kill_server_mid_file(server, partial, size)
        restarted = start_gridftpd(root, listen={"port": port})
        os.kill(client.pid, signal.SIGCONT)
        output, _ = client.communicate(timeout=300)
    finally:
        if client.poll() is None:
            os.kill(client.pid, signal.SIGCONT)
            client.kill()
            client.wait()
    assert client.returncode == 0, (
        f"gridcp -rst did not recover: rc={client.returncode}\n{' '.join(argv)}\n"
        f"{output.decode(errors='replace')}")
    assert_file_digest(restarted.fs("incoming/big.bin"), digest, "gridcp -rst stream put")
    assert not os.path.exists(partial), "the partial file was left behind"
    resumed = restarted.wait_transfer_record(
        lambda r: r.get("command") == "STOR" and r.get("result") == "ok", "the resumed STOR")
    assert resumed["mode"] == "S", resumed
    assert resumed["bytes"] < size, (
        f"the second attempt sent {resumed['bytes']} bytes: it started over instead of "
        f"resuming (the server held {held} when it was killed)")


def test_url_list_file_and_a_failure_in_the_middle_of_the_run():
    # Acceptance 2 (-f) and 4: a bad URL, an unknown host, a refused connection, a missing
    # credential and a server refusal in one list; every other pair is still copied, each
    # failure names its file, the exit status is non-zero.
    server = start_gridftpd()
    digests = seed(server)
    out = make_temp_dir("gridcp-f-")
    good = [(server.url(f"data/{name}"), file_url(os.path.join(out, name))) for name in digests]
    bad = [
        ("ftp://127.0.0.1:99999/x", file_url(os.path.join(out, "bad-url.bin"))),
        ("ftp://no-such-host.invalid/x", file_url(os.path.join(out, "unknown-host.bin"))),
        ("ftp://127.0.0.1:1/x", file_url(os.path.join(out, "refused.bin"))),
        (server.url("data/no-such-file"), file_url(os.path.join(out, "missing.bin"))),
        ("gsiftp://127.0.0.1:1/x", file_url(os.path.join(out, "no-credential.bin"))),
    ]
    pairs = good[:2] + bad + good[2:]
    listing = os.path.join(out, "pairs.txt")
    with open(listing, "w") as f:
        f.write("# source dest\n\n")
        f.writelines(f"{source} {dest}\n" for source, dest in pairs)
    env_without_proxy = {k: v for k, v in os.environ.items() if not k.startswith("X509")}
    env_without_proxy["X509_USER_PROXY"] = os.path.join(out, "no-such-proxy.pem")
    result = run_peer([gridcp_binary(), "-cc", "3", "-f", listing], expect_rc=None,
                      what="gridcp -f with bad pairs", env=env_without_proxy)
    assert result.rc != 0, f"gridcp -f with failures exited 0\n{result.describe()}"
    for name, digest in digests.items():
        assert_file_digest(os.path.join(out, name), digest, f"-f pair {name} beside failures")
    errors = [line for line in result.stderr.splitlines() if line.startswith("gridcp: error:")]
    for _, dest in bad:
        name = os.path.basename(dest)
        assert any(name in line for line in errors), (
            f"no error line names {name}\n{result.describe()}")
    assert len(errors) == len(bad), f"expected {len(bad)} error lines\n{result.describe()}"


if __name__ == "__main__":
    run_tests(globals())
