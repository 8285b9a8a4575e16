"""Process per session through the fork server (root with an anonymous account): sessions are
forked by it and still end up as the account alone; without it (gsi.fork_server = false) they are
exec'd by the listener. Whoever ends up reaping a session, the fork server or, once that has been
retired by SIGHUP or killed, the listener, its place under max_sessions_per_address comes back,
and the sessions it forked go on meanwhile."""

import hashlib
import os
import signal

from gridftp_harness import (FORK_SERVER_NAME, RawControl, assert_runs_as_account,
                             ensure_globus_user, fork_servers, make_temp_dir,
                             make_world_traversable, run_tests, session_processes,
                             start_gridftpd, wait_until)


def process_root() -> str:
    root = os.path.join(make_temp_dir("fork-server-"), "root")
    os.makedirs(os.path.join(root, "incoming"))
    with open(os.path.join(root, "data.bin"), "wb") as f:
        f.write(os.urandom(300_000))
    make_world_traversable(root)
    return root


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


def name_of(pid: int) -> str:
    with open(f"/proc/{pid}/comm") as comm:
        return comm.read().strip()


def retrieve(ctl: RawControl, path: str) -> bytes:
    data = ctl.pasv_connect()
    ctl.expect(f"RETR {path}", 150)
    chunks = []
    while chunk := data.recv(65536):
        chunks.append(chunk)
    data.close()
    ctl.read_reply()
    return b"".join(chunks)


def only_session(server) -> int:
    sessions = wait_until(lambda: session_processes(server), 10, "a session process")
    assert len(sessions) == 1, f"session processes: {sessions}"
    return sessions[0]


def test_sessions_come_from_the_fork_server_and_are_the_account_alone():
    account = ensure_globus_user()
    root = process_root()
    server = start_gridftpd(root, anonymous={"account": account.pw_name})
    (fork_server,) = wait_until(lambda: fork_servers(server), 10, "the fork server")
    ctl = RawControl(server.host, server.port)
    ctl.login()
    ctl.expect("TYPE I", 200)
    session = only_session(server)
    assert parent_of(session) == fork_server, "the session is not the fork server's child"
    assert name_of(session) == "gridftpd", f"session process named {name_of(session)!r}"
    assert_runs_as_account(session, account, "forked session process")
    with open(os.path.join(root, "data.bin"), "rb") as f:
        expected = hashlib.sha256(f.read()).hexdigest()
    assert hashlib.sha256(retrieve(ctl, "/data.bin")).hexdigest() == expected
    # SIGTERM (a service manager stopping every process of the service) ends the fork server;
    # its session goes on.
    os.kill(fork_server, signal.SIGTERM)
    wait_until(lambda: fork_server not in fork_servers(server), 10, "the fork server's end")
    ctl.expect("NOOP", 200)
    ctl.close()


def test_without_the_fork_server_sessions_are_execd_by_the_listener():
    account = ensure_globus_user()
    server = start_gridftpd(process_root(), anonymous={"account": account.pw_name},
                            gsi_settings={"fork_server": False})
    ctl = RawControl(server.host, server.port)
    ctl.login()
    session = only_session(server)
    assert parent_of(session) == server.proc.pid
    assert fork_servers(server) == []
    assert_runs_as_account(session, account, "exec'd session process")
    ctl.close()


def admitted(server) -> RawControl | None:
    ctl = RawControl(server.host, server.port)
    if ctl.greeting[0] == 220:
        return ctl
    assert ctl.greeting[0] == 421, ctl.greeting
    ctl.close()
    return None


def test_places_come_back_whoever_reaps_the_session():
    account = ensure_globus_user()
    server = start_gridftpd(process_root(), anonymous={"account": account.pw_name},
                            limits={"max_sessions_per_address": 2})
    (first,) = wait_until(lambda: fork_servers(server), 10, "the fork server")
    a = RawControl(server.host, server.port)
    a.login()
    session_a = only_session(server)

    # SIGHUP: a new fork server serves new sessions; the retired one ends, its session goes on
    # (now the listener's child).
    os.kill(server.proc.pid, signal.SIGHUP)
    (second,) = wait_until(lambda: [p for p in fork_servers(server) if p != first] or None, 10,
                           "a new fork server after SIGHUP")
    wait_until(lambda: first not in fork_servers(server), 10, "the retired fork server's end")
    a.expect("NOOP", 200)
    assert parent_of(session_a) == server.proc.pid, "the orphaned session is not the listener's"
    b = RawControl(server.host, server.port)
    b.login()
    session_b = [p for p in session_processes(server) if p != session_a]
    assert len(session_b) == 1 and parent_of(session_b[0]) == second, session_b
    assert admitted(server) is None, "a third session from the address was let in"

    # A's end is seen by the listener itself: its place comes back.
    a.close()
    c = wait_until(lambda: admitted(server), 10, "a place freed by the retired server's session")
    c.login()

    # The fork server dies: its sessions go on, their places still come back, and new sessions
    # are exec'd by the listener.
    os.kill(second, signal.SIGKILL)
    wait_until(lambda: "has gone" in server.log_text(), 10, "the fork server's death logged")
    b.expect("NOOP", 200)
    b.close()
    c.close()
    d = wait_until(lambda: admitted(server), 10, "a place freed by the dead server's session")
    d.login()
    e = wait_until(lambda: admitted(server), 10, "the second place back")
    e.login()
    parents = {parent_of(p) for p in session_processes(server)}
    assert parents == {server.proc.pid}, f"sessions after the fork server died: {parents}"
    assert FORK_SERVER_NAME not in {name_of(p) for p in session_processes(server)}
    d.close()
    e.close()


if __name__ == "__main__":
    run_tests(globals())
