#!/usr/bin/env python3
"""Memory per idle logged-in control session: gridftpd in its threaded mode, gridftpd with a
process per session (root with an anonymous account; forked by the fork server, and exec'd
afresh with gsi.fork_server = false), and globus-gridftp-server (-aa, which forks a process per
connection), same machine, same run.

For each server: start it, open one session and close it (so lazily made state exists), read the
proportional set size (PSS, from /proc/PID/smaps_rollup) of the server and every process under it,
then log in N anonymous sessions and leave them idle, read it again once the process count is
steady. Per session = (after - before) / N. PSS splits shared pages between the processes that
map them, so a process per session is charged only for what it does not share.

    python3 bench/session_memory.py                  # 1000 sessions
    python3 bench/session_memory.py --sessions 200   # smoke run

Targets (issue 14): at most 64 KiB per idle session threaded, at most 0.5 MB PSS per session
process.
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "support"))

import gridftp_harness as h  # noqa: E402

TARGET_THREADED_KIB = 64
TARGET_PROCESS_KIB = 512


def pss_kib(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def login(server, sessions: list[socket.socket]) -> None:
    """One anonymous session, logged in and left open."""
    sock = socket.create_connection((server.host, server.port), timeout=60)
    reader = sock.makefile("rb")

    def reply() -> bytes:
        line = reader.readline()
        while line[3:4] == b"-":
            line = reader.readline()
        return line

    assert reply().startswith(b"220")
    sock.sendall(b"USER anonymous\r\n")
    if reply().startswith(b"331"):
        sock.sendall(b"PASS bench@example.org\r\n")
        answer = reply()
        assert answer.startswith(b"230"), answer
    sessions.append(sock)


def steady(pid: int, expected_processes: int, timeout: float = 120) -> list[int]:
    deadline = time.monotonic() + timeout
    pids = h.descendants(pid)
    while len(pids) < expected_processes and time.monotonic() < deadline:
        time.sleep(0.2)
        pids = h.descendants(pid)
    time.sleep(1)  # let the last logins settle
    return h.descendants(pid)


def measure(name: str, server, count: int, process_per_session: bool) -> dict:
    warm: list[socket.socket] = []
    login(server, warm)
    warm[0].close()
    time.sleep(1)
    before_pids = h.descendants(server.proc.pid)
    before = pss_kib(before_pids)
    sessions: list[socket.socket] = []
    for _ in range(count):
        login(server, sessions)
    expected = len(before_pids) + (count if process_per_session else 0)
    after_pids = steady(server.proc.pid, expected)
    after = pss_kib(after_pids)
    for sock in sessions:
        sock.close()
    server.stop()
    per_session = (after - before) / count
    return {"server": name, "sessions": count, "processes": len(after_pids),
            "before_kib": before, "after_kib": after, "per_session_kib": per_session}


def anonymous_root() -> str:
    root = os.path.join(h.make_temp_dir("session-memory-"), "root")
    os.makedirs(os.path.join(root, "incoming"))
    h.make_world_traversable(root)
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=1000)
    args = parser.parse_args()
    # Every session is a descriptor on both sides.
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    limits = {"max_sessions": args.sessions + 10, "max_sessions_per_user": args.sessions + 10,
              "max_sessions_per_address": args.sessions + 10}
    account = h.ensure_globus_user()
    rows = []
    rows.append(measure("gridftpd threaded", h.start_gridftpd(limits=limits), args.sessions,
                        False))
    rows.append(measure("gridftpd process per session",
                        h.start_gridftpd(anonymous_root(), limits=limits,
                                         anonymous={"account": account.pw_name}),
                        args.sessions, True))
    # The same without the fork server: each session process exec'd afresh.
    rows.append(measure("gridftpd process per session, exec'd",
                        h.start_gridftpd(anonymous_root(), limits=limits,
                                         anonymous={"account": account.pw_name},
                                         gsi_settings={"fork_server": False}),
                        args.sessions, True))
    rows.append(measure("globus-gridftp-server -aa",
                        h.start_globus_server(extra_args=["-connections-max",
                                                          str(args.sessions + 10)]),
                        args.sessions, True))
    print(f"idle logged-in sessions: {args.sessions} per server, {time.strftime('%F')}")
    print("| server | processes | PSS before (MiB) | PSS after (MiB) | per session (KiB) | target |")
    print("|---|---|---|---|---|---|")
    targets = {"gridftpd threaded": f"<= {TARGET_THREADED_KIB} KiB",
               "gridftpd process per session": f"<= {TARGET_PROCESS_KIB} KiB"}
    for row in rows:
        print(f"| {row['server']} | {row['processes']} | {row['before_kib'] / 1024:.1f} | "
              f"{row['after_kib'] / 1024:.1f} | {row['per_session_kib']:.0f} | "
              f"{targets.get(row['server'], '')} |")
    globus = rows[-1]["per_session_kib"]
    print(f"gridftpd / Globus per session: threaded {rows[0]['per_session_kib'] / globus:.3f}, "
          f"process per session {rows[1]['per_session_kib'] / globus:.3f}")
    met = (rows[0]["per_session_kib"] <= TARGET_THREADED_KIB
           and rows[1]["per_session_kib"] <= TARGET_PROCESS_KIB)
    print("targets met" if met else "targets NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
