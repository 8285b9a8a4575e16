"""The transfer log as sites run it (issue: logs as sites run them, acceptance 5).

  * The same gets and puts (stream mode and globus-url-copy -p 4) through globus-gridftp-server
    and through gridftpd, each started with the same Globus command line and -Z FILE, write
    NetLogger lines with the same keys in the same order, and the values that describe the
    transfer (user, file, bytes, streams, type, code, peer) agree.
  * SIGHUP reopens the logs: after the transfer log and the server log are renamed away and the
    server gets SIGHUP, a new transfer lands in a new file at the configured path; the renamed
    file keeps the earlier lines and also gets the line of a session that was already open
    (a session process keeps the file it opened), so nothing is lost.
"""

import ftplib
import os
import re
import signal

from gridftp_harness import (ensure_globus_user, give_to_globus_user, GLOBUS_USER, GlobusServer,
                             gridftpd_binary, make_file, make_temp_dir, make_world_traversable, MIB,
                             run_peer, run_tests, start_globus_server, start_until_greeting,
                             wait_until)

GUC = "globus-url-copy"
SIZE = MIB + 17
NETLOGGER_TIME = re.compile(r"^\d{14}\.\d{6}$")
# The four transfers: (what, globus-url-copy flags, direction).
TRANSFERS = [("get", [], "RETR"), ("put", [], "STOR"),
             ("get -p 4", ["-p", "4"], "RETR"), ("put -p 4", ["-p", "4"], "STOR")]


def globus_words(port: int, transfer_log: str, extra: list[str] | None = None) -> list[str]:
    """globus-gridftp-server's words for an anonymous server writing `transfer_log`."""
    return ["-p", str(port), "-control-interface", "127.0.0.1", "-aa", "-anonymous-user",
            GLOBUS_USER, "-Z", transfer_log, "-disable-usage-stats"] + (extra or [])


def start_gridftpd_as_globus(root: str, transfer_log: str,
                             extra: list[str] | None = None) -> GlobusServer:
    """gridftpd started with Globus's command line (no gridftpd config): it serves the real
    "/", so the harness's Globus server object (absolute paths) describes it."""
    ensure_globus_user()
    os.makedirs(os.path.join(root, "incoming"), exist_ok=True)
    make_world_traversable(root)
    give_to_globus_user(os.path.join(root, "incoming"))
    proc, port, argv, lines = start_until_greeting(
        lambda port: [gridftpd_binary()] + globus_words(port, transfer_log, extra))
    server = GlobusServer(proc, "127.0.0.1", port, root, argv, lines)
    server.kind = "gridftpd"
    return server


def read_lines(path: str) -> list[str]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.endswith("\n")]


def wait_lines(path: str, count: int, what: str) -> list[str]:
    """The first `count` complete lines of `path`, once there are that many (a server writes
    its line just after the 226 that lets the client exit)."""
    wait_until(lambda: len(read_lines(path)) >= count, 30,
               f"{count} lines in {path} ({what}); it has {read_lines(path)}")
    return read_lines(path)


def fields(line: str) -> list[tuple[str, str]]:
    """A NetLogger line as (key, value) pairs in order; every word must be KEY=VALUE."""
    pairs = []
    for word in line.split(" "):
        key, sep, value = word.partition("=")
        assert sep and key, f"not KEY=VALUE: {word!r} in {line!r}"
        pairs.append((key, value))
    return pairs


def run_transfers(server, log_path: str, local: str) -> list[str]:
    """The four transfers through `server`; returns its transfer-log lines, one each."""
    for number, (what, flags, direction) in enumerate(TRANSFERS):
        if direction == "RETR":
            run_peer([GUC] + flags + [server.url("src.bin"),
                                      "file://" + os.path.join(local, f"got{number}.bin")],
                     what=f"{server.kind} {what}")
        else:
            run_peer([GUC] + flags + ["file://" + os.path.join(local, "up.bin"),
                                      server.url(f"incoming/up{number}.bin")],
                     what=f"{server.kind} {what}")
        wait_lines(log_path, number + 1, f"{server.kind} {what}")
    lines = read_lines(log_path)
    assert len(lines) == len(TRANSFERS), f"{server.kind}: one line per transfer: {lines}"
    return lines


def test_the_same_transfers_write_the_same_netlogger_keys():
    local = make_temp_dir("tlog-local-")
    make_file(os.path.join(local, "up.bin"), SIZE, seed=3)
    os.chmod(local, 0o755)
    lines = {}
    for kind in ("globus-gridftp-server", "gridftpd"):
        work = make_temp_dir("tlog-" + kind + "-")
        root = os.path.join(work, "root")
        os.makedirs(root)
        make_file(os.path.join(root, "src.bin"), SIZE, seed=1)
        os.chmod(os.path.join(root, "src.bin"), 0o644)
        log_path = os.path.join(work, "transfer.log")
        if kind == "gridftpd":
            server = start_gridftpd_as_globus(root, log_path, ["-d", "error"])
        else:
            server = start_globus_server(root, extra_args=["-Z", log_path])
        lines[kind] = (server, run_transfers(server, log_path, local))
        server.stop()

    globus_server, globus_lines = lines["globus-gridftp-server"]
    ours_server, our_lines = lines["gridftpd"]
    for number, (what, _flags, direction) in enumerate(TRANSFERS):
        theirs, ours = fields(globus_lines[number]), fields(our_lines[number])
        context = f"{what}:\n  globus:   {globus_lines[number]}\n  gridftpd: {our_lines[number]}"
        assert [k for k, _ in ours] == [k for k, _ in theirs], \
            "keys or their order differ\n" + context
        theirs, ours = dict(theirs), dict(ours)
        for key in ("PROG", "NL.EVNT", "USER", "NBYTES", "VOLUME", "STREAMS", "STRIPES", "DEST",
                    "TYPE", "CODE", "TASKID"):
            assert ours[key] == theirs[key], f"{key} differs\n" + context
        assert ours["TYPE"] == direction and ours["CODE"] == "226", context
        assert ours["NBYTES"] == str(SIZE), context
        name = "src.bin" if direction == "RETR" else f"incoming/up{number}.bin"
        assert theirs["FILE"] == globus_server.fs(name), context
        assert ours["FILE"] == ours_server.fs(name), context
        for key in ("DATE", "START"):
            assert NETLOGGER_TIME.match(ours[key]), \
                f"{key} is not YYYYmmddHHMMSS.ffffff\n" + context
        assert ours["START"] <= ours["DATE"], context
        assert int(ours["BUFFER"]) > 0 and int(ours["BLOCK"]) > 0, context
        if "retrans" in ours:
            assert len(ours["retrans"].split(",")) == int(ours["STREAMS"]), context


def test_sighup_reopens_the_transfer_log_and_the_server_log():
    work = make_temp_dir("tlog-hup-")
    root = os.path.join(work, "root")
    os.makedirs(root)
    make_file(os.path.join(root, "src.bin"), SIZE, seed=5)
    os.chmod(os.path.join(root, "src.bin"), 0o644)
    log_path = os.path.join(work, "transfer.log")
    server_log = os.path.join(work, "server.log")
    server = start_gridftpd_as_globus(root, log_path, ["-d", "info", "-l", server_log])
    local = make_temp_dir("tlog-hup-local-")

    def get(number: int) -> None:
        run_peer([GUC, server.url("src.bin"), "file://" + os.path.join(local, f"{number}.bin")],
                 what=f"get {number}")

    get(1)
    wait_lines(log_path, 1, "the first get")
    # A session open across the rotation: its process opened the log before the rename.
    early = ftplib.FTP()
    early.connect("127.0.0.1", server.port, timeout=30)
    early.login("anonymous", "x@example.org")
    os.rename(log_path, log_path + ".1")
    os.rename(server_log, server_log + ".1")
    os.kill(server.proc.pid, signal.SIGHUP)
    wait_until(lambda: any("SIGHUP: log files reopened" in line for line in read_lines(server_log)),
               30, f"'SIGHUP: log files reopened' in a new {server_log}")
    get(2)
    new_lines = wait_lines(log_path, 1, "the get after SIGHUP")
    early.voidcmd("TYPE I")
    early.retrbinary("RETR " + server.path("src.bin"), lambda _data: None)
    early.quit()
    old_lines = wait_lines(log_path + ".1", 2, "the first get and the early session's get")
    server.assert_alive("after SIGHUP")
    assert len(new_lines) == 1 and len(old_lines) == 2, (new_lines, old_lines)
    for line in new_lines + old_lines:
        assert dict(fields(line))["NBYTES"] == str(SIZE), line
    assert not any("log files reopened" in line for line in read_lines(server_log + ".1")), \
        "the note of the reopen went to the renamed server log"


if __name__ == "__main__":
    run_tests(globals())
