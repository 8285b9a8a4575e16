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
    with a 451 at once; a mover refuses a frontend whose certificate it does not list, and a
    client cannot use a mover's port as a server.
"""

import ftplib
import os
import signal
import socket
import subprocess
import threading
import time

from gridftp_harness import (MIB, check_copy, descendants, file_url, make_file, make_temp_dir,
                             make_tree_readable, run_peer, run_tests, shared_test_pki,
                             start_gridftpd, wait_until)
from globus_striped import GlobusStripedCluster

GUC = "globus-url-copy"
SIZE = 9 * MIB + 7   # ten 1 MiB blocks, the last short: every stripe gets some, unevenly
LEVELS = {"nodcau": ["-nodcau"], "dcau-a": [], "dcpriv": ["-dcpriv"]}
STRIPE = ["-stripe", "-sbs", "1048576"]


def start_site(movers: int, mover_settings: dict | None = None, **mover_sections):
    """`movers` gridftpd movers and a frontend that names them, on one root."""
    pki = shared_test_pki()
    root = make_temp_dir("striping-root-")
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
