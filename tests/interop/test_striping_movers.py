"""Striping past one host (docs/STRIPING.md): a gridftpd frontend (-r / [striping] movers) whose
transfers the movers (-dn / [striping] mover) move, driven by the real globus-url-copy -stripe,
and a real Globus striped cluster (tests/support/globus_striped.py) on the other side.

All on loopback, GSI with the throwaway PKI; frontend and movers serve one root, as Globus
requires its nodes to share one namespace. Checked, each byte-identical by SHA-256:
  * guc -stripe put into a frontend with 2 and 3 movers at -nodcau, DCAU A and -dcpriv, -p 1
    and -p 4; every mover's transfer log holds its share (Blocked, 1 MiB: -sbs 1M, without
    which guc sends everything to the first stripe) and the shares add up to the file;
  * third-party with -stripe between a gridftpd frontend with 2 and 3 movers and a Globus
    striped cluster of 2 nodes, both ways, at the same levels;
  * a mover stopped before a transfer is left out of it, one killed during a transfer fails it
    with a 451 at once, and -rst then completes the copy sending only the ranges the
    frontend's merged 111 markers did not name (globus-url-copy third-party, gridcp put);
  * a mover refuses a frontend whose certificate it does not list, and a client cannot use a
    mover's port as a server.
"""

import ftplib
import os
import re
import signal
import socket
import subprocess
import threading
import time

from fuse_mount import anonymous_root_over_fuse
from gridftp_harness import (MIB, check_copy, covered, descendants, file_url, gridcp_binary,
                             make_file, make_temp_dir, make_tree_readable, run_peer, run_tests,
                             sha256_file, shared_test_pki, start_gridftpd, wait_until)
from globus_striped import GlobusStripedCluster
from slow_fs import SlowDisk

GUC = "globus-url-copy"
SIZE = 9 * MIB + 7   # ten 1 MiB blocks, the last short: every stripe gets some, unevenly
LEVELS = {"nodcau": ["-nodcau"], "dcau-a": [], "dcpriv": ["-dcpriv"]}
STRIPE = ["-stripe", "-sbs", "1048576"]


def start_site(movers: int, mover_settings: dict | None = None, root: str | None = None,
               **mover_sections):
    """`movers` gridftpd movers and a frontend that names them, on one root (made if None)."""
    pki = shared_test_pki()
    root = root or make_temp_dir("striping-root-")
    started = [start_gridftpd(root, gsi=pki, striping={"mover": True, **(mover_settings or {})},
                              **mover_sections)
               for _ in range(movers)]
    frontend = start_gridftpd(root, gsi=pki, striping={
        "movers": [f"127.0.0.1:{m.port}" for m in started]})
    return frontend, started


def guc(args: list[str], what: str, expect_rc: int | None = 0):
    return run_peer([GUC] + args, env=shared_test_pki().client_env(), timeout=180, what=what,
                    expect_rc=expect_rc)


def make_source(root: str, name: str, seed: int) -> str:
    digest = make_file(os.path.join(root, "data", name), SIZE, seed=seed)
    make_tree_readable(os.path.join(root, "data"))   # read as the mapped account
    return digest


def shares_of(movers, command: str, path: str) -> list[int]:
    """Each mover's bytes for the transfer of `path`, from its transfer log (0 if none)."""
    shares = []
    for mover in movers:
        records = [r for r in mover.transfer_records()
                   if r.get("command") == command and r.get("path") == path]
        assert len(records) <= 1, f"{len(records)} {command} records for {path}: {records}"
        assert not records or records[0].get("result") == "ok", records
        shares.append(records[0]["bytes"] if records else 0)
    return shares


def check_shares(movers, command: str, path: str, what: str, stripes: int | None = None) -> None:
    """The movers' logged shares add up to the file, each mover's non-empty; with `stripes`
    receiving stripes (SPOR), mover i sends stripe i % N, so only the first `stripes` send."""
    # A mover writes its record once its session answered 226, just before the frontend does.
    wait_until(lambda: sum(shares_of(movers, command, path)) == SIZE, 10,
               f"{what}: the movers' logged shares to add up to {SIZE}")
    shares = shares_of(movers, command, path)
    senders = len(movers) if stripes is None else min(stripes, len(movers))
    assert all(share > 0 for share in shares[:senders]), f"{what}: a mover moved nothing: {shares}"
    assert not any(shares[senders:]), f"{what}: a mover without a stripe moved bytes: {shares}"


def test_guc_stripe_put_into_a_frontend_with_two_and_three_movers():
    for count in (2, 3):
        frontend, movers = start_site(count)
        digest = make_source(frontend.fs_root, "put.bin", seed=count)
        for level, flags in LEVELS.items():
            for p in (1, 4):
                what = f"put to {count} movers {level} -p {p}"
                target = f"incoming/{count}-{level}-p{p}.bin"
                result = guc(STRIPE + flags + ["-p", str(p), file_url(frontend.fs("data/put.bin")),
                                               frontend.gsiftp_url(target)], what)
                check_copy(frontend.fs(target), digest, what, result)
                check_shares(movers, "STOR", "/" + target, what)
        for mover in movers:
            mover.assert_alive("after the striped puts")
        frontend.assert_alive("after the striped puts")


def test_third_party_between_a_gridftpd_frontend_and_a_globus_striped_cluster():
    pki = shared_test_pki()
    cluster = GlobusStripedCluster(nodes=2, gsi=pki)
    theirs = make_source(cluster.fs_root, "third.bin", seed=22)
    for count in (2, 3):
        frontend, movers = start_site(count)
        for level, flags in LEVELS.items():
            for p in (1, 4):
                what = f"third-party gridftpd ({count} movers) -> Globus cluster {level} -p {p}"
                source = f"third-{level}-p{p}.bin"
                ours = make_source(frontend.fs_root, source, seed=p)
                name = f"incoming/from-gridftpd-{count}-{level}-p{p}.bin"
                result = guc(STRIPE + flags + ["-p", str(p), frontend.gsiftp_url("data/" + source),
                                               cluster.scheme_url(name)], what)
                check_copy(cluster.path(name), ours, what, result)
                check_shares(movers, "RETR", "/data/" + source, what, stripes=2)

                what = f"third-party Globus cluster -> gridftpd ({count} movers) {level} -p {p}"
                name = f"incoming/from-globus-{level}-p{p}.bin"
                result = guc(STRIPE + flags + ["-p", str(p), cluster.scheme_url("data/third.bin"),
                                               frontend.gsiftp_url(name)], what)
                check_copy(frontend.fs(name), theirs, what, result)
                check_shares(movers, "STOR", "/" + name, what)
        frontend.assert_alive("after the third-party copies")


def test_a_stopped_mover_is_left_out_of_the_next_transfer():
    frontend, movers = start_site(3)
    digest = make_source(frontend.fs_root, "skip.bin", seed=31)
    movers[1].stop()
    what = "put with one of three movers stopped"
    result = guc(STRIPE + ["-nodcau", "-p", "2", file_url(frontend.fs("data/skip.bin")),
                           frontend.gsiftp_url("incoming/skip.bin")], what)
    check_copy(frontend.fs("incoming/skip.bin"), digest, what, result)
    check_shares([movers[0], movers[2]], "STOR", "/incoming/skip.bin", what)


def test_a_mover_killed_mid_transfer_fails_it_with_451_at_once():
    # The source is a FIFO fed 1 MiB at a time, so the put is still running when one mover's
    # processes are killed; the frontend must then answer 4xx within 30 s and commit nothing.
    frontend, movers = start_site(2)
    fifo_dir = make_temp_dir("striping-fifo-")
    os.chmod(fifo_dir, 0o755)
    fifo = os.path.join(fifo_dir, "source")
    os.mkfifo(fifo, 0o644)
    guc_proc = subprocess.Popen(
        [GUC, "-dbg", *STRIPE, "-nodcau", "-p", "2", file_url(fifo),
         frontend.gsiftp_url("incoming/killed.bin")],
        env=dict(os.environ, **shared_test_pki().client_env()), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    replies: list[tuple[float, str]] = []
    done = threading.Event()

    def feed():
        try:
            with open(fifo, "wb") as sink:
                while not done.is_set():
                    sink.write(os.urandom(MIB))
                    sink.flush()
                    time.sleep(0.2)
        except (BrokenPipeError, OSError):
            pass

    def read():
        for line in guc_proc.stdout:
            replies.append((time.monotonic(), line.rstrip()))

    threading.Thread(target=feed, daemon=True).start()
    threading.Thread(target=read, daemon=True).start()
    try:
        wait_until(lambda: any(text.startswith("150 ") for _, text in replies), 30,
                   "the striped put to begin (150)")
        time.sleep(1)
        victim = movers[1].proc.pid
        for pid in descendants(victim):
            if pid != victim:
                os.kill(pid, signal.SIGKILL)   # the mover's processes, its sessions among them
        killed = time.monotonic()
        wait_until(lambda: any(text[:1] == "4" and text[3:4] == " " for _, text in replies), 30,
                   "a 4xx reply within 30 s of the mover's death")
        reply_at, reply = next((at, text) for at, text in replies if text[:1] == "4")
        assert reply_at - killed < 30, (reply_at - killed, reply)
        assert "mover" in reply, reply
    finally:
        done.set()
        guc_proc.kill()   # globus-url-copy 10.12 reports the 451 but keeps reading its FIFO
        guc_proc.wait()
    assert not os.path.exists(frontend.fs("incoming/killed.bin")), "a failed put was committed"
    frontend.assert_alive("after a mover died under it")
    movers[0].assert_alive("after the other mover died")


def kill_sessions_of(mover) -> None:
    """SIGKILL for a mover's session processes (the daemon stays: the next SPAS reaches it)."""
    victim = mover.proc.pid
    for pid in descendants(victim):
        if pid != victim:
            os.kill(pid, signal.SIGKILL)


def ok_records(mover, command: str, path: str) -> list[dict]:
    return [r for r in mover.transfer_records()
            if r.get("command") == command and r.get("path") == path and r.get("result") == "ok"]


def resume_after_a_killed_mover(client: list[str], source_url, what: str) -> None:
    """`client` (globus-url-copy or gridcp, with -stripe) copies `source_url(site root)`, a 48
    MiB file, to a frontend with 2 movers, under -rst. The movers write through slow_fs at 4
    MiB/s, so the copy is still running when the first 111 (each mover's, 5 s after its start,
    merged by the frontend) reaches the client. One mover's sessions are then killed: the
    frontend answers 451, the client reconnects and sends REST with the ranges it was told,
    and the movers' STORs of that second attempt together receive exactly the rest."""
    size = 48 * MIB + 5
    root, backing, control, mountpoint = anonymous_root_over_fuse(make_temp_dir("striping-rst-"))
    disk = SlowDisk(backing, mountpoint, control, rate=4 * MIB)
    try:
        frontend, movers = start_site(2, root=root)
        source, digest = source_url(size)
        proc = subprocess.Popen(
            client + ["-dbg", "-rst", "-rst-retries", "5", "-rst-interval", "1", *STRIPE, "-nodcau",
                      "-p", "2", source, frontend.gsiftp_url("incoming/rst.bin")],
            env=dict(os.environ, **shared_test_pki().client_env()), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
        reader.start()
        try:
            wait_until(lambda: any("111 Range Marker" in line for line in lines), 60,
                       f"{what}: a merged 111 marker from the frontend")
            kill_sessions_of(movers[1])
            disk.set()   # the retry at full speed
            rc = proc.wait(180)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        reader.join(10)
        dialogue = "".join(lines)
        assert rc == 0, f"{what}: -rst did not complete the copy: rc={rc}\n{dialogue[-6000:]}"
        assert sha256_file(os.path.join(backing, "rst.bin")) == digest, f"{what}: the copy differs"
        # -dbg: guc prints the command alone on its line, gridcp after "C: ".
        rests = re.findall(r"^(?:.* C: )?REST (\d+-\d+(?:,\d+-\d+)*)\s*$", dialogue, re.MULTILINE)
        assert rests, f"{what}: no REST in the retry:\n{dialogue[-6000:]}"
        kept = covered([tuple(map(int, r.split("-"))) for r in rests[-1].split(",")])
        assert 0 < kept < size, (what, kept, rests[-1])
        # The first attempt's STORs failed (one killed, one cut off): only the retry's are ok.
        retried = [sum(r["bytes"] for r in ok_records(m, "STOR", "/incoming/rst.bin"))
                   for m in movers]
        assert sum(retried) == size - kept, (what, retried, size, kept)
    finally:
        disk.stop()   # before the temporary directories go: it is mounted in one


def test_a_copy_cut_by_a_killed_mover_resumes_with_only_the_missing_ranges():
    # globus-url-copy restarts a third-party copy (a put from a local file it does not: its
    # data writes fail when the mover's sockets reset, and it gives up), so guc drives one from
    # an unstriped gridftpd; gridcp restarts its own striped put.
    pki = shared_test_pki()

    def from_a_server(size: int):
        server = start_gridftpd(gsi=pki)
        digest = make_file(server.fs("data/rst.bin"), size, seed=52)
        make_tree_readable(server.fs("data"))
        return server.gsiftp_url("data/rst.bin"), digest

    def from_a_file(size: int):
        directory = make_temp_dir("striping-rst-src-")
        path = os.path.join(directory, "rst.bin")
        return file_url(path), make_file(path, size, seed=53)

    resume_after_a_killed_mover([GUC], from_a_server, "guc third-party")
    resume_after_a_killed_mover([gridcp_binary()], from_a_file, "gridcp put")


def test_unstriped_sessions_take_the_movers_in_turn():
    # Without -stripe (PASV, PORT) a frontend that is not hybrid hands each session's transfers
    # to one mover, sessions taking the movers in turn and passing over one that is down; the
    # mover's replies reach the client as it wrote them. A hybrid frontend moves them itself.
    pki = shared_test_pki()
    frontend, movers = start_site(2)
    digest = make_source(frontend.fs_root, "plain.bin", seed=61)
    other = start_gridftpd(gsi=pki)
    for i, flags in enumerate([[], ["-p", "4"], ["-nodcau"], ["-dcpriv", "-p", "2"]]):
        what = f"unstriped put {flags}"
        target = f"incoming/plain-{i}.bin"
        result = guc(flags + [file_url(frontend.fs("data/plain.bin")), frontend.gsiftp_url(target)],
                     what)
        check_copy(frontend.fs(target), digest, what, result)
    stores = [len(ok_records(m, "STOR", f"/incoming/plain-{i}.bin")) for m in movers
              for i in range(4)]
    alternating = stores[:4] in ([1, 0, 1, 0], [0, 1, 0, 1])
    assert alternating and stores[4:] == [1 - n for n in stores[:4]], \
        f"four sessions did not alternate over two movers: {stores}"
    assert not frontend.transfer_records(), "the frontend moved data itself"

    # A get (MODE E: PORT, so the mover connects), a listing, and third-party both ways with
    # an unstriped gridftpd, each a session of its own.
    what = "unstriped get -p 4"
    local = os.path.join(make_temp_dir("striping-get-"), "got.bin")
    result = guc(["-p", "4", frontend.gsiftp_url("data/plain.bin"), file_url(local)], what)
    check_copy(local, digest, what, result)
    listed = guc(["-list", frontend.gsiftp_url("incoming/")], "a listing through a mover")
    assert "plain-3.bin" in listed.output, listed.describe()
    what = "third-party frontend -> gridftpd"
    result = guc(["-p", "2", frontend.gsiftp_url("data/plain.bin"),
                  other.gsiftp_url("incoming/from-frontend.bin")], what)
    check_copy(other.fs("incoming/from-frontend.bin"), digest, what, result)
    what = "third-party gridftpd -> frontend"
    result = guc(["-p", "2", other.gsiftp_url("incoming/from-frontend.bin"),
                  frontend.gsiftp_url("incoming/back.bin")], what)
    check_copy(frontend.fs("incoming/back.bin"), digest, what, result)
    assert sum(len(ok_records(m, "RETR", "/data/plain.bin")) for m in movers) == 2
    assert sum(len(ok_records(m, "STOR", "/incoming/back.bin")) for m in movers) == 1
    assert not frontend.transfer_records(), "the frontend moved data itself"

    # One mover down: every session goes to the other.
    movers[0].stop()
    for i in range(2):
        what = f"unstriped put {i} with one mover down"
        target = f"incoming/one-down-{i}.bin"
        result = guc([file_url(frontend.fs("data/plain.bin")), frontend.gsiftp_url(target)], what)
        check_copy(frontend.fs(target), digest, what, result)
        assert len(ok_records(movers[1], "STOR", "/" + target)) == 1, what

    hybrid = start_gridftpd(frontend.fs_root, gsi=pki, striping={
        "movers": [f"127.0.0.1:{m.port}" for m in movers], "hybrid": True})
    what = "unstriped put into a hybrid frontend"
    result = guc(["-p", "2", file_url(frontend.fs("data/plain.bin")),
                  hybrid.gsiftp_url("incoming/hybrid.bin")], what)
    check_copy(hybrid.fs("incoming/hybrid.bin"), digest, what, result)
    assert len(hybrid.transfer_records()) == 1, "a hybrid frontend moves unstriped data itself"
    assert not ok_records(movers[1], "STOR", "/incoming/hybrid.bin")


def test_movers_serve_only_their_frontends():
    # A mover listing another frontend's subject refuses ours: SPAS finds no mover and says so.
    # (A client that waits for a greeting on a mover's port waits until the mover's login
    # timeout closes it: short here.)
    frontend, movers = start_site(2, mover_settings={"frontends": ["/O=Grid/OU=Test/CN=elsewhere"]},
                                  timeouts={"login_seconds": 5})
    make_source(frontend.fs_root, "refused.bin", seed=41)
    what = "put through movers that do not list this frontend"
    result = guc(STRIPE + ["-nodcau", file_url(frontend.fs("data/refused.bin")),
                           frontend.gsiftp_url("incoming/refused.bin")], what, expect_rc=None)
    assert result.rc != 0, f"{what}: succeeded\n{result.describe()}"
    assert "no mover answered" in result.output, result.describe()
    assert not os.path.exists(frontend.fs("incoming/refused.bin"))
    for mover in movers:
        assert "not a frontend of this mover" in mover.log_text(), mover.log_text()[-2000:]
        mover.assert_alive("after refusing a frontend")

    # A client on a mover's port: no greeting in the clear, no gsiftp session.
    mover = movers[0]
    with socket.create_connection(("127.0.0.1", mover.port), timeout=10) as raw:
        raw.settimeout(5)
        try:
            greeting = raw.recv(64)
        except socket.timeout:
            greeting = b""
        assert not greeting.startswith(b"220"), f"a mover greeted a clear client: {greeting!r}"
    try:
        ftplib.FTP().connect("127.0.0.1", mover.port, timeout=5)
        raise AssertionError("ftplib got a greeting from a mover")
    except (EOFError, OSError, ftplib.Error):
        pass
    what = "globus-url-copy straight to a mover"
    result = guc(["-nodcau", file_url(frontend.fs("data/refused.bin")),
                  f"gsiftp://localhost:{mover.port}/incoming/direct.bin"], what, expect_rc=None)
    assert result.rc != 0, f"{what}: succeeded\n{result.describe()}"
    assert not os.path.exists(frontend.fs("incoming/direct.bin"))


if __name__ == "__main__":
    run_tests(globals())
