"""The package's logrotate file rotates a running gridftpd's logs without losing a line.

packaging/gridftpd.logrotate is run by the real logrotate (-f, a state file of our own) with two
changes only: its path pattern points at the test's log directory and its postrotate sends the
SIGHUP to this server's PID instead of through systemctl. Afterwards the server log and the
transfer log are new files at their configured paths holding only what came after the rotation,
the rotated files (`.1`, uncompressed for now: delaycompress) hold what came before, and the
server is still serving.
"""

import os
import re
import subprocess
import time

from gridftp_harness import (_read_greeting, _started_procs, ensure_globus_user, free_port,
                             give_to_globus_user, gridftpd_binary, GridftpdServer, make_file,
                             make_temp_dir, MIB, require_tool, run_tests, wait_until, write_config)

PACKAGED = os.path.join(os.path.dirname(__file__), "..", "..", "packaging", "gridftpd.logrotate")


def lines_of(path: str) -> list[str]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.endswith("\n")]


def rotation_config(log_dir: str, pid: int) -> str:
    """The packaged file with its path and its postrotate command pointed at this test."""
    with open(PACKAGED, encoding="utf-8") as f:
        text = f.read()
    text, paths = re.subn(r"^/var/log/gridftpd/\*\.log", f"{log_dir}/*.log", text, flags=re.M)
    assert paths == 1, "the packaged file names /var/log/gridftpd/*.log once"
    text, hups = re.subn(r"postrotate\n.*?endscript", f"postrotate\n\t\tkill -HUP {pid}\n"
                         "\tendscript", text, flags=re.S)
    assert hups == 1, "the packaged file has one postrotate script"
    return text


def start_logging_to_files(work: str, server_log: str, transfer_log: str) -> GridftpdServer:
    """gridftpd with its server log in a file (so the harness cannot read "listening on" from
    its output: it is ready once it greets)."""
    root = os.path.join(work, "root")
    os.makedirs(root)
    # As root, anonymous sessions run as an unprivileged account, a process each, as a site's do.
    anonymous = ensure_globus_user().pw_name
    give_to_globus_user(root)
    for _attempt in range(3):
        port = free_port()
        config = write_config(os.path.join(work, "gridftpd.toml"), {
            "listen": {"control_interface": "127.0.0.1", "port": port},
            "anonymous": {"enabled": True, "root": root, "account": anonymous},
            "logging": {"level": "info", "server_log": server_log, "transfer_log": transfer_log,
                        "transfer_log_format": "netlogger"}})
        proc = subprocess.Popen([gridftpd_binary(), "-c", config], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _started_procs.append(proc)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            greeting = _read_greeting("127.0.0.1", port)
            if greeting and greeting.startswith("220"):
                return GridftpdServer(proc, "127.0.0.1", port, root, work, config, transfer_log,
                                      [])
            time.sleep(0.05)
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
    raise AssertionError("gridftpd did not greet; its log:\n" + "\n".join(lines_of(server_log)))


def get(server, name: str) -> None:
    ftp = server.ftp()
    ftp.retrbinary(f"RETR {name}", lambda _data: None)
    ftp.quit()


def test_logrotate_with_the_packaged_file_loses_no_line():
    logrotate = require_tool("logrotate")
    work = make_temp_dir("logrotate-")
    log_dir = os.path.join(work, "logs")
    os.makedirs(log_dir)
    server_log = os.path.join(log_dir, "gridftpd.log")
    transfer_log = os.path.join(log_dir, "transfer.log")
    server = start_logging_to_files(work, server_log, transfer_log)
    make_file(server.fs("one.bin"), MIB, seed=1)
    make_file(server.fs("two.bin"), MIB, seed=2)
    get(server, "one.bin")
    wait_until(lambda: len(lines_of(transfer_log)) == 1, 30, "the first transfer's line")

    config = os.path.join(work, "gridftpd.logrotate")
    with open(config, "w", encoding="utf-8") as f:
        f.write(rotation_config(log_dir, server.proc.pid))
    rotated = subprocess.run([logrotate, "-f", "-s", os.path.join(work, "state"), config],
                             capture_output=True, text=True, timeout=60)
    assert rotated.returncode == 0, f"logrotate failed:\n{rotated.stdout}{rotated.stderr}"
    wait_until(lambda: any("SIGHUP: log files reopened" in line for line in lines_of(server_log)),
               30, f"the reopen noted in a new {server_log}")
    # Sessions run as the anonymous account, forked by the fork server, which holds the log files
    # it opened; the reload starts a new one that opens the new files, and only sessions it forks
    # write there.
    wait_until(lambda: any("fork server" in line and "started" in line
                           for line in lines_of(server_log)),
               30, f"the new fork server noted in {server_log}")
    get(server, "two.bin")
    wait_until(lambda: len(lines_of(transfer_log)) == 1, 30, "the second transfer's line")
    server.assert_alive("after the rotation")

    before, after = lines_of(transfer_log + ".1"), lines_of(transfer_log)
    assert len(before) == 1 and "/one.bin " in before[0], before
    assert len(after) == 1 and "/two.bin " in after[0], after
    assert all(" NL.EVNT=FTP_INFO " in line for line in before + after), before + after
    assert any("listening on" in line for line in lines_of(server_log + ".1"))
    assert not any("listening on" in line for line in lines_of(server_log))
    assert oct(os.stat(transfer_log).st_mode & 0o777) == oct(0o640), "logrotate's create mode"


if __name__ == "__main__":
    run_tests(globals())
