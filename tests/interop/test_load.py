"""Load on one server (release build): 2,000 logged-in control sessions held open while 100
transfers run at once (50 RETR, 50 STOR, each checked by SHA-256), twice. After each round every
descriptor the server opened is closed again, and a second round leaves resident memory where
the first did: no descriptor or memory leak per session or per transfer."""

import concurrent.futures
import ftplib
import hashlib
import io
import os
import resource
import socket
import time

from gridftp_harness import MIB, run_tests, start_gridftpd, wait_until

SESSIONS = 2000
TRANSFERS = 100
FILE_BYTES = 2 * MIB


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def hold_sessions(server, count: int) -> list[socket.socket]:
    """`count` anonymous sessions, logged in and left open."""
    held = []
    for i in range(count):
        sock = socket.create_connection((server.host, server.port), timeout=60)
        reader = sock.makefile("rb")
        assert reader.readline().startswith(b"220"), f"session {i}: no greeting"
        sock.sendall(b"USER anonymous\r\nPASS load@example.org\r\n")
        assert reader.readline().startswith(b"331"), f"session {i}: USER"
        line = reader.readline()
        assert line.startswith(b"230"), f"session {i}: login refused: {line!r}"
        held.append(sock)
    return held


def one_transfer(server, index: int, sources: dict[str, bytes]) -> str:
    with server.ftp() as ftp:
        ftp.voidcmd("TYPE I")
        if index % 2 == 0:
            name = f"source-{index // 2}.bin"
            got = io.BytesIO()
            ftp.retrbinary(f"RETR /{name}", got.write, blocksize=256 * 1024)
            assert hashlib.sha256(got.getvalue()).hexdigest() == \
                hashlib.sha256(sources[name]).hexdigest(), f"RETR {name} differs"
            return name
        data = os.urandom(FILE_BYTES)
        name = f"incoming/upload-{index}.bin"
        ftp.storbinary(f"STOR /{name}", io.BytesIO(data), blocksize=256 * 1024)
        with open(server.fs(name), "rb") as f:
            assert hashlib.sha256(f.read()).hexdigest() == hashlib.sha256(data).hexdigest(), \
                f"STOR {name} differs"
        return name


def one_round(server, sources: dict[str, bytes], baseline_fds: int) -> None:
    held = hold_sessions(server, SESSIONS)
    assert open_fds(server.proc.pid) >= baseline_fds + SESSIONS, "sessions not held"
    with concurrent.futures.ThreadPoolExecutor(max_workers=TRANSFERS) as pool:
        done = list(pool.map(lambda i: one_transfer(server, i, sources), range(TRANSFERS)))
    assert len(done) == TRANSFERS
    # The held sessions are still served.
    for sock in held[:: SESSIONS // 20]:
        sock.sendall(b"NOOP\r\n")
        assert sock.recv(100).startswith(b"200"), "a held session stopped answering"
    for sock in held:
        sock.close()
    server.assert_alive("after the load round")
    wait_until(lambda: open_fds(server.proc.pid) <= baseline_fds, 60,
               f"the server's descriptors back to {baseline_fds} "
               f"(now {open_fds(server.proc.pid)})")


def test_two_thousand_sessions_and_a_hundred_transfers_leak_nothing():
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the server inherits it
    assert hard > SESSIONS * 2 + TRANSFERS * 4, f"descriptor limit {hard} too low for the test"
    server = start_gridftpd(limits={"max_sessions": SESSIONS + TRANSFERS + 50,
                                    "max_sessions_per_user": SESSIONS + TRANSFERS + 50,
                                    "max_sessions_per_address": SESSIONS + TRANSFERS + 50})
    sources = {}
    for i in range(TRANSFERS // 2):
        sources[f"source-{i}.bin"] = os.urandom(FILE_BYTES)
        with open(server.fs(f"source-{i}.bin"), "wb") as f:
            f.write(sources[f"source-{i}.bin"])
    with server.ftp() as ftp:
        ftp.voidcmd("NOOP")
    time.sleep(0.5)
    baseline_fds = open_fds(server.proc.pid)
    one_round(server, sources, baseline_fds)
    after_first = rss_kib(server.proc.pid)
    for i in range(TRANSFERS):
        if i % 2:
            os.remove(server.fs(f"incoming/upload-{i}.bin"))
    one_round(server, sources, baseline_fds)
    after_second = rss_kib(server.proc.pid)
    # Allocator caches make the first round's peak stick; a leak would grow it again.
    assert after_second <= after_first * 1.10 + 4096, (
        f"resident memory grew from {after_first} KiB to {after_second} KiB over a second round")
    print(f"descriptors back to {baseline_fds}; RSS {after_first} KiB after round 1, "
          f"{after_second} KiB after round 2")


if __name__ == "__main__":
    run_tests(globals())
