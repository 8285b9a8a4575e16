"""What keeps one client from hurting the others: per-address connection limits (in threaded and
process-per-session mode), a delay and a cap on failed logins, no FTP bounce, and slowloris
clients that cannot keep a real user out. Loopback addresses 127.0.0.2 and up stand for other
hosts."""

import ftplib
import io
import os
import signal
import socket
import subprocess
import threading
import time

from gridftp_harness import (assert_runs_as_account, ensure_globus_user, give_to_globus_user,
                             gridftpd_binary, make_temp_dir, make_world_traversable, RawControl,
                             run_tests, session_processes, start_gridftpd, wait_until)


def connect_until_refused(server, source: str, limit: int) -> list[RawControl]:
    """Opens `limit` sessions from `source` (each greeted 220), checks the next gets 421 and is
    closed, and returns the open ones."""
    held = []
    for i in range(limit):
        ctl = RawControl(server.host, server.port, source=source)
        assert ctl.greeting[0] == 220, f"connection {i + 1} of {limit}: {ctl.greeting}"
        held.append(ctl)
    extra = RawControl(server.host, server.port, source=source)
    assert extra.greeting[0] == 421 and "address" in extra.greeting[1], extra.greeting
    extra.sock.settimeout(10)
    assert extra.sock.recv(100) == b"", "a refused connection stays open"
    extra.close()
    return held


def check_per_address_limit(server) -> None:
    held = connect_until_refused(server, "127.0.0.1", 3)
    # Another address is not affected, and logs in.
    other = RawControl(server.host, server.port, source="127.0.0.2")
    assert other.greeting[0] == 220, other.greeting
    other.login()
    other.close()
    # A place freed is a place given back.
    held.pop().close()

    def admitted():
        ctl = RawControl(server.host, server.port, source="127.0.0.1")
        ok = ctl.greeting[0] == 220
        if ok:
            held.append(ctl)
        else:
            ctl.close()
        return ok
    wait_until(admitted, 10, "a connection admitted after one of the address's sessions closed")
    for ctl in held:
        ctl.close()


def test_per_address_limit_threaded():
    server = start_gridftpd(limits={"max_sessions_per_address": 3})
    check_per_address_limit(server)
    # The log reaches log_text() through a reader thread: on a loaded machine the refusal's line
    # can still be on its way when the last connection has been answered.
    wait_until(lambda: "max_sessions_per_address reached" in server.log_text(), 10,
               "the refusal logged")


def test_per_address_limit_with_a_process_per_session():
    # Root with an anonymous account: every session is a process of its own, so the parent
    # must do the counting.
    account = ensure_globus_user()
    root = os.path.join(make_temp_dir("hardening-"), "root")
    os.makedirs(os.path.join(root, "incoming"))
    make_world_traversable(root)
    server = start_gridftpd(root, limits={"max_sessions_per_address": 3},
                            anonymous={"account": account.pw_name})
    assert "process per session" in server.log_text()
    check_per_address_limit(server)


def test_a_session_process_keeps_no_privilege():
    # Root with an anonymous account: after login the session process is that account for good.
    account = ensure_globus_user()
    root = os.path.join(make_temp_dir("hardening-"), "root")
    os.makedirs(os.path.join(root, "incoming"))
    make_world_traversable(root)
    server = start_gridftpd(root, anonymous={"account": account.pw_name})
    ctl = RawControl(server.host, server.port)
    ctl.login()
    ctl.expect("PWD", 257)
    sessions = session_processes(server)
    assert len(sessions) == 1, f"session processes: {sessions}"
    assert_runs_as_account(sessions[0], account, "anonymous session process")
    ctl.close()


def test_failed_logins_are_delayed_and_capped():
    server = start_gridftpd(limits={"login_failure_delay_ms": 600, "max_login_failures": 2},
                            accounts={"password_file": write_password_file()})
    ctl = RawControl(server.host, server.port)
    for attempt in (1, 2):
        ctl.expect("USER alice", 331)
        started = time.monotonic()
        code, text = ctl.cmd("PASS wrong-password")
        waited = time.monotonic() - started
        assert code == 530, text
        assert waited >= 0.5, f"refusal {attempt} came after {waited:.2f} s, not the 0.6 s delay"
    code, text = ctl.read_reply()
    assert code == 421 and "failed logins" in text, text
    ctl.sock.settimeout(10)
    assert ctl.sock.recv(100) == b"", "the session stays open after max_login_failures"
    # The right password still works on a new connection.
    again = RawControl(server.host, server.port)
    again.expect("USER alice", 331)
    again.expect("PASS right-password", 230)
    again.close()


def password_line(user: str, password: str, work: str) -> str:
    root = os.path.join(work, user)
    os.makedirs(root, exist_ok=True)
    hashed = subprocess.run([gridftpd_binary(), "--hash-password"], input=password + "\n",
                            capture_output=True, text=True, check=True).stdout.strip()
    return f"{user}:{hashed}:{root}:*\n"


def write_password_file() -> str:
    """alice / right-password."""
    work = make_temp_dir("hardening-pw-")
    path = os.path.join(work, "passwd")
    with open(path, "w") as f:
        f.write(password_line("alice", "right-password", work))
    os.chmod(path, 0o600)
    return path


def test_sighup_reloads_accounts_and_keeps_sessions():
    passwords = write_password_file()
    server = start_gridftpd(accounts={"password_file": passwords},
                            limits={"login_failure_delay_ms": 0})
    held = RawControl(server.host, server.port)
    held.expect("USER alice", 331)
    held.expect("PASS right-password", 230)
    bob = RawControl(server.host, server.port)
    bob.expect("USER bob", 331)
    bob.expect("PASS bobs-password", 530)
    bob.close()
    # An account added to the password file logs in after SIGHUP; the open session goes on.
    with open(passwords, "a") as f:
        f.write(password_line("bob", "bobs-password", os.path.dirname(passwords)))
    server.proc.send_signal(signal.SIGHUP)
    wait_until(lambda: "SIGHUP: config reloaded" in server.log_text(), 10, "the reload")
    bob = RawControl(server.host, server.port)
    bob.expect("USER bob", 331)
    bob.expect("PASS bobs-password", 230)
    bob.close()
    held.expect("PWD", 257)
    # A broken config is refused and the running one kept; a changed setting that needs a
    # restart is named.
    with open(server.config_path) as f:
        good = f.read()
    with open(server.config_path, "w") as f:
        f.write(good + "\n[limitz]\nmax_sessions = 3\n")
    server.proc.send_signal(signal.SIGHUP)
    wait_until(lambda: "config not reloaded" in server.log_text(), 10, "the refusal")
    assert "limitz" in server.log_text()
    with open(server.config_path, "w") as f:
        f.write(good.replace("[limits]", "[limits]\nmax_sessions = 7", 1))
    server.proc.send_signal(signal.SIGHUP)
    wait_until(lambda: "only after a restart" in server.log_text(), 10, "the restart notice")
    assert "limits.max_sessions" in server.log_text()
    held.expect("NOOP", 200)
    held.close()
    server.assert_alive("after three SIGHUPs")


def test_symlink_swaps_raced_against_retr_and_stor_never_leave_the_root():
    """A thread swaps a link inside the writable area between a file (and a directory) inside
    the root and ones outside it, as fast as it can, while a session reads and writes through
    the link. No read may return the outside file and no write may land outside."""
    outside = make_temp_dir("race-outside-")
    secret = os.path.join(outside, "secret.txt")
    with open(secret, "wb") as f:
        f.write(b"SECRET" * 1000)
    server = start_gridftpd()
    incoming = server.fs("incoming")
    inside = os.path.join(incoming, "inside.txt")
    with open(inside, "wb") as f:
        f.write(b"inside" * 1000)
    os.makedirs(os.path.join(incoming, "inside-dir"))
    give_to_globus_user(incoming)  # the server runs as the test account
    stop = threading.Event()

    def swap(link: str, targets: tuple[str, str]) -> None:
        temp = link + ".new"
        i = 0
        while not stop.is_set():
            try:
                os.symlink(targets[i % 2], temp)
                os.replace(temp, link)
            except OSError:
                pass
            i += 1

    # Relative targets: a link inside the root may lead anywhere in it (absolute ones name the
    # real file system, which the server never follows).
    swappers = [
        threading.Thread(target=swap, args=(os.path.join(incoming, "link"),
                                            ("inside.txt", os.path.relpath(secret, incoming)))),
        threading.Thread(target=swap, args=(os.path.join(incoming, "dirlink"),
                                            ("inside-dir", os.path.relpath(outside, incoming)))),
    ]
    for thread in swappers:
        thread.start()
    reads = writes = 0
    try:
        with server.ftp() as ftp:
            ftp.voidcmd("TYPE I")
            for i in range(150):
                got = io.BytesIO()
                try:
                    ftp.retrbinary("RETR /incoming/link", got.write)
                    reads += 1
                except ftplib.error_perm:
                    pass
                assert b"SECRET" not in got.getvalue(), "a RETR through the link read outside"
                try:
                    ftp.storbinary(f"STOR /incoming/dirlink/up-{i}.txt", io.BytesIO(b"w"))
                    writes += 1
                except ftplib.error_perm:
                    pass
    finally:
        stop.set()
        for thread in swappers:
            thread.join()
    assert sorted(os.listdir(outside)) == ["secret.txt"], (
        f"a STOR through the swapped link wrote outside the root: {os.listdir(outside)}")
    assert reads > 0 and writes > 0, f"the race never let a transfer through ({reads}, {writes})"


def test_no_ftp_bounce():
    open_server = start_gridftpd()
    strict = start_gridftpd(listen={"require_data_peer_match": True})
    for server in (open_server, strict):
        ctl = RawControl(server.host, server.port)
        ctl.login()
        # A privileged port is refused whatever the config.
        code, text = ctl.cmd("PORT 127,0,0,1,0,25")
        assert code == 501 and "1024" in text, text
        code, text = ctl.cmd("EPRT |1|127.0.0.1|22|")
        assert code == 501 and "1024" in text, text
        ctl.expect("PORT 127,0,0,1,200,10", 200)
        ctl.close()
    # Another host: allowed by default (third-party transfers), refused when data must go to
    # the control peer.
    ctl = RawControl(open_server.host, open_server.port)
    ctl.login()
    ctl.expect("PORT 127,0,0,9,200,10", 200)
    ctl.close()
    ctl = RawControl(strict.host, strict.port)
    ctl.login()
    for command in ("PORT 127,0,0,9,200,10", "EPRT |1|127.0.0.9|51210|",
                    "SPOR 127,0,0,1,200,10 127,0,0,9,200,10"):
        code, text = ctl.cmd(command)
        assert code == 501 and "control connection" in text, f"{command}: {text}"
    ctl.close()


def test_slowloris_does_not_keep_real_users_out():
    # Without the per-address limit the 200 would take all 100 places.
    server = start_gridftpd(limits={"max_sessions": 100, "max_sessions_per_address": 50},
                            timeouts={"login_seconds": 60})
    attackers = []
    # 200 connections from one address, each sending a command one byte at a time and never
    # finishing it; past the per-address limit the rest are refused.
    for _ in range(200):
        try:
            sock = socket.create_connection((server.host, server.port), timeout=10,
                                            source_address=("127.0.0.3", 0))
        except OSError:
            continue
        attackers.append(sock)
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        for sock in attackers:
            try:
                sock.send(b"U")
            except OSError:
                pass
        time.sleep(0.2)
    started = time.monotonic()
    user = RawControl(server.host, server.port)
    user.login()
    user.expect("PWD", 257)
    served = time.monotonic() - started
    user.close()
    for sock in attackers:
        sock.close()
    assert served < 2.0, f"a real client took {served:.2f} s to be served under slowloris"


if __name__ == "__main__":
    run_tests(globals())
