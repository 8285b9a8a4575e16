"""gridftpd's command line and configuration: --help lists the globus-gridftp-server style
options, --check-config names the bad key and its line, and the transfer log holds one valid
JSON object per transfer with the true byte count."""

import ftplib
import io
import os
import re
import signal
import socket
import subprocess

from gridftp_harness import (free_port, ftp_retr_bytes, give_to_globus_user, gridftpd_binary,
                             make_temp_dir, MIB, RawControl, run_peer, run_tests, start_gridftpd,
                             wait_until, write_config)

GLOBUS_STYLE_OPTIONS = ["-p", "-port", "-control-interface", "-data-interface", "-port-range",
                        "-aa", "-anonymous-user", "-restrict-paths", "-threads", "-d",
                        "-log-transfer", "-S", "-c"]
REQUIRED_FIELDS = {"time": str, "session": (str, int), "user": str, "command": str, "path": str,
                   "bytes": int, "streams": int, "mode": str, "duration_seconds": (int, float),
                   "rate_bytes_per_second": (int, float), "security": str, "result": str}


def test_help_lists_globus_style_options():
    result = run_peer([gridftpd_binary(), "--help"], timeout=30, what="gridftpd --help")
    text = result.output
    missing = [opt for opt in GLOBUS_STYLE_OPTIONS
               if not re.search(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])", text)]
    assert not missing, f"gridftpd --help does not list {missing}\n{result.describe()}"
    for opt in ("--help", "--check-config"):
        assert opt in text, f"gridftpd --help does not list {opt}\n{result.describe()}"


def bad_config(lines: list[str]) -> str:
    path = os.path.join(make_temp_dir("badcfg-"), "bad.toml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def check_rejected(lines: list[str], key: str, line_no: int, what: str):
    path = bad_config(lines)
    result = run_peer([gridftpd_binary(), "--check-config", "-c", path], timeout=30,
                      expect_rc=-1, what=f"--check-config ({what})")
    text = result.output
    assert key in text, f"--check-config ({what}) does not name {key!r}\n{result.describe()}"
    line_ref = re.compile(rf"(line\s*{line_no}\b|:{line_no}(?!\d)|\({line_no}\b)", re.I)
    assert line_ref.search(text), (f"--check-config ({what}) does not name line {line_no}\n"
                                   f"config:\n{open(path).read()}\n{result.describe()}")
    # and the server refuses to start on it
    start = run_peer([gridftpd_binary(), "-c", path], timeout=30, expect_rc=-1,
                     what=f"gridftpd -c on a bad config ({what})")
    assert key in start.output, f"start-up on a bad config does not name {key}\n{start.describe()}"


def test_check_config_unknown_key():
    check_rejected(["# a comment", "[listen]", 'control_interface = "127.0.0.1"', "port = 0",
                    "", "[limits]", "max_sessions = 10", "max_sesions_per_user = 5"],
                   "limits.max_sesions_per_user", 8, "unknown key")


def test_check_config_unknown_section():
    check_rejected(["[listen]", "port = 0", "[limitz]", "max_sessions = 10"],
                   "limitz", 3, "unknown section")


def test_check_config_wrong_type():
    check_rejected(["[listen]", "port = 0", "", "", "[limits]", 'max_sessions = "many"'],
                   "limits.max_sessions", 6, "string for an integer")


def test_check_config_wrong_type_bool_and_list():
    check_rejected(["[anonymous]", 'enabled = "yes"'], "anonymous.enabled", 2, "string for bool")
    check_rejected(["[anonymous]", "enabled = true", 'writable = "incoming"'],
                   "anonymous.writable", 3, "string for a list")


def test_check_config_good_config_passes():
    work = make_temp_dir("goodcfg-")
    path = write_config(os.path.join(work, "good.toml"), {
        "listen": {"control_interface": "127.0.0.1", "port": 0},
        "limits": {"max_sessions": 10},
        "anonymous": {"enabled": True, "root": os.path.join(work, "root"),
                      "writable": ["incoming"], "account": "nobody"},
        "logging": {"transfer_log": os.path.join(work, "t.log")},
    })
    run_peer([gridftpd_binary(), "--check-config", "-c", path], timeout=30,
             what="--check-config on a good config")
    # the shipped sample is valid too
    sample = os.path.join(os.path.dirname(__file__), "..", "..", "conf", "gridftpd.toml")
    run_peer([gridftpd_binary(), "--check-config", "-c", os.path.abspath(sample)], timeout=30,
             what="--check-config conf/gridftpd.toml")


def check_record_shape(rec: dict) -> None:
    for field, types in REQUIRED_FIELDS.items():
        assert field in rec, f"transfer record lacks {field!r}: {rec}"
        assert isinstance(rec[field], types) and not isinstance(rec[field], bool), (
            f"transfer record field {field!r} has type {type(rec[field]).__name__}: {rec}")
    assert rec["result"] in ("ok", "failed"), f"result must be ok|failed: {rec}"
    assert rec["bytes"] >= 0 and rec["duration_seconds"] >= 0, f"negative numbers: {rec}"
    if rec["result"] == "failed":
        assert rec.get("error"), f"a failed record needs an error: {rec}"
    else:
        assert "error" not in rec, f"an ok record has an error field: {rec}"


def test_transfer_log_records_true_byte_counts():
    server = start_gridftpd()
    data = os.urandom(3 * MIB + 11)
    with open(server.fs("get.bin"), "wb") as f:
        f.write(data)
    upload = os.urandom(2 * MIB + 5)
    with server.ftp() as ftp:
        assert ftp_retr_bytes(ftp, "get.bin") == data
        ftp.storbinary("STOR incoming/put.bin", io.BytesIO(upload))
        ftp.storbinary("APPE incoming/put.bin", io.BytesIO(b"12345"))
        ftp.nlst()
        ftp.quit()
    get = server.wait_transfer_record(
        lambda r: r.get("command") == "RETR" and str(r.get("path")).endswith("get.bin"),
        "RETR get.bin")
    put = server.wait_transfer_record(
        lambda r: r.get("command") == "STOR" and str(r.get("path")).endswith("put.bin"),
        "STOR incoming/put.bin")
    appe = server.wait_transfer_record(
        lambda r: r.get("command") == "APPE" and str(r.get("path")).endswith("put.bin"),
        "APPE incoming/put.bin")
    server.wait_transfer_record(lambda r: r.get("command") == "NLST", "NLST")
    for rec in server.transfer_records():
        check_record_shape(rec)
    assert get["bytes"] == len(data) and get["result"] == "ok", f"RETR record: {get}"
    assert put["bytes"] == len(upload) and put["result"] == "ok", f"STOR record: {put}"
    assert appe["bytes"] == 5 and appe["result"] == "ok", f"APPE record: {appe}"
    for rec in (get, put, appe):
        assert rec["user"] in ("anonymous", "ftp"), f"user field: {rec}"
        assert rec["streams"] == 1, f"a stream-mode transfer has 1 stream: {rec}"
        assert rec["mode"].upper() in ("S", "STREAM"), f"mode of a stream transfer: {rec}"
    assert get["session"] == put["session"], f"one session, two session ids: {get} {put}"
    # the raw file: exactly one JSON object per line, nothing else
    with open(server.transfer_log) as f:
        raw = f.read()
    assert raw.endswith("\n"), "transfer log does not end with a newline"
    assert all(line.startswith("{") and line.endswith("}") for line in raw.splitlines()), (
        f"transfer log lines are not one object each:\n{raw[:2000]}")


def test_globus_style_command_line_starts_server():
    """-p/-control-interface/-log-transfer as globus-gridftp-server spells them start a working
    server (port 0, so the log tells us where) and override the config file."""
    work = make_temp_dir("cli-")
    root = os.path.join(work, "root")
    os.makedirs(os.path.join(root, "incoming"))
    with open(os.path.join(root, "f.txt"), "wb") as f:
        f.write(b"via flags\n")
    flag_log = os.path.join(work, "flag-transfer.log")
    give_to_globus_user(work)  # the server runs as the test account (unprivileged_server_account)
    server = start_gridftpd(root, listen={"port": 2811},
                            extra_args=["-p", "0", "-control-interface", "127.0.0.1",
                                        "-log-transfer", flag_log])
    assert server.port != 2811, "-p 0 on the command line did not override port = 2811"
    with server.ftp() as ftp:
        assert ftp_retr_bytes(ftp, "f.txt") == b"via flags\n"
        ftp.quit()
    server.transfer_log = flag_log
    rec = server.wait_transfer_record(lambda r: r.get("command") == "RETR",
                                      "RETR f.txt in the -log-transfer file")
    assert rec.get("bytes") == len(b"via flags\n"), f"-log-transfer record: {rec}"


def test_command_line_limit_is_the_configured_one():
    """max_command_line_bytes counts the CRLF: a line of exactly the limit is accepted, one byte
    more gets 500 and is discarded, and the session goes on."""
    limit = 100
    server = start_gridftpd(limits={"max_command_line_bytes": limit})
    ctl = RawControl(server.host, server.port)
    try:
        ctl.login()
        for total, too_long in ((limit - 1, False), (limit, False), (limit + 1, True),
                                (limit + 2, True), (10 * limit, True)):
            arg = "a" * (total - len("SIZE ") - 2)
            code, text = ctl.cmd("SIZE " + arg)   # a missing file: 550, never 500
            if too_long:
                assert code == 500, f"{total}-byte line (limit {limit}): expected 500, got {text!r}"
            else:
                assert code != 500, f"{total}-byte line (limit {limit}) was refused: {text!r}"
            code, text = ctl.cmd("NOOP")
            assert code == 200, f"NOOP after a {total}-byte line: {text!r}"
    finally:
        ctl.close()


def test_passive_port_range_is_honoured():
    # Above the kernel's ephemeral range (32768-60999), so no other test's outgoing connection
    # can occupy these ports while the range is exercised.
    low = 61000 + os.getpid() % 4000
    server = start_gridftpd(listen={"passive_port_min": low, "passive_port_max": low + 9})
    with server.ftp() as ftp:
        for cmd in ("PASV", "EPSV", "PASV", "EPSV", "PASV"):
            reply = ftp.sendcmd(cmd)
            if cmd == "PASV":
                port = ftplib.parse227(reply)[1]
            else:
                port = ftplib.parse229(reply, ftp.sock.getpeername())[1]
            assert low <= port <= low + 9, (f"{cmd} offered port {port}, outside the configured "
                                            f"range {low}-{low + 9}: {reply!r}")
        ftp.quit()
    # and transfers through that range work
    with open(server.fs("r.bin"), "wb") as f:
        f.write(b"range" * 1000)
    with server.ftp() as ftp:
        for _ in range(12):   # more transfers than ports: ports must be reusable
            assert ftp_retr_bytes(ftp, "r.bin") == b"range" * 1000
        ftp.quit()


def test_globus_source_range_confines_active_data_connections():
    """GLOBUS_TCP_SOURCE_RANGE in the server's environment: every data connection the server
    opens (PORT, active mode) leaves from a port inside the range."""
    low = 61000 + (os.getpid() * 13) % 3900
    high = low + 9
    saved = os.environ.get("GLOBUS_TCP_SOURCE_RANGE")
    os.environ["GLOBUS_TCP_SOURCE_RANGE"] = f"{low},{high}"
    try:
        server = start_gridftpd()
    finally:
        if saved is None:
            del os.environ["GLOBUS_TCP_SOURCE_RANGE"]
        else:
            os.environ["GLOBUS_TCP_SOURCE_RANGE"] = saved
    with open(server.fs("s.bin"), "wb") as f:
        f.write(b"source" * 1000)
    ctl = RawControl(server.host, server.port)
    try:
        ctl.login()
        ctl.cmd("TYPE I")
        for _ in range(12):   # more connections than ports: the range must be reusable
            listener = socket.create_server(("127.0.0.1", 0))
            port = listener.getsockname()[1]
            code, text = ctl.cmd(f"PORT 127,0,0,1,{port // 256},{port % 256}")
            assert code == 200, f"PORT: {text!r}"
            ctl.send("RETR s.bin")
            conn, peer = listener.accept()
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
            conn.close()
            listener.close()
            code, text = ctl.read_reply()
            if code < 200:
                code, text = ctl.read_reply()
            assert code == 226, f"RETR: {text!r}"
            assert data == b"source" * 1000
            assert low <= peer[1] <= high, (f"the data connection came from port {peer[1]}, "
                                            f"outside GLOBUS_TCP_SOURCE_RANGE {low},{high}")
    finally:
        ctl.close()


def test_idle_session_gets_421_and_is_closed():
    server = start_gridftpd(timeouts={"idle_seconds": 1, "login_seconds": 1})
    for login in (True, False):
        ctl = RawControl(server.host, server.port, timeout=60)
        try:
            if login:
                ctl.login()
            # no command: the server must speak first (421) and close; 60 s only catches hangs
            code, text = ctl.read_reply()
            assert code == 421, (f"idle {'logged-in' if login else 'not-logged-in'} session: "
                                 f"expected 421, got {text!r}")
            try:
                rest = ctl.sock.recv(100)
            except ConnectionResetError:
                rest = b""
            assert rest == b"", f"connection still open after 421 (got {rest!r})"
        finally:
            ctl.close()
    server.assert_alive()


def test_max_sessions_and_per_user_limits():
    server = start_gridftpd(limits={"max_sessions": 3, "max_sessions_per_user": 2})
    first = [RawControl(server.host, server.port) for _ in range(2)]
    try:
        for ctl in first:
            ctl.login()
        # a third anonymous login is over the per-user limit
        third = RawControl(server.host, server.port)
        assert third.greeting[0] == 220, f"third connection greeting: {third.greeting}"
        code, text = third.cmd("USER anonymous")
        if code == 331:
            code, text = third.cmd("PASS x@y")
        assert code != 230 and str(code)[0] in "45", (
            f"third anonymous session (max_sessions_per_user=2): expected refusal, got {text!r}")
        # `third` stays connected (not logged in), so it holds the third of max_sessions=3; closing
        # it and connecting another would race the server's reading of the close.
        try:
            fourth_refused = False
            try:
                fourth = RawControl(server.host, server.port)
                fourth_refused = fourth.greeting[0] == 421
                fourth.close()
            except (AssertionError, OSError):
                fourth_refused = True   # closed without a greeting also counts
            assert fourth_refused, "fourth session with max_sessions=3 was greeted with 220"
        finally:
            third.close()
    finally:
        for ctl in first:
            ctl.close()
    # once they are gone, new sessions are accepted again
    def can_login():
        try:
            with server.ftp(timeout=10) as ftp:
                ftp.quit()
            return True
        except ftplib.all_errors:
            return False
    wait_until(can_login, 30, "a login after the limited sessions closed")


def stop_with_sigterm(server) -> None:
    """SIGTERM, then gridftpd must exit 0 within 30 s."""
    server.proc.send_signal(signal.SIGTERM)
    try:
        status = server.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        raise AssertionError("gridftpd did not exit within 30 s of SIGTERM") from None
    assert status == 0, f"gridftpd exit status after SIGTERM: {status}\n{server.log_text()[-3000:]}"


def test_sigterm_shuts_down_cleanly():
    server = start_gridftpd(timeouts={"shutdown_grace_seconds": 2})
    with server.ftp() as ftp:
        ftp.voidcmd("NOOP")
        ftp.quit()
    stop_with_sigterm(server)
    try:
        socket.create_connection((server.host, server.port), timeout=5).close()
        raise AssertionError("the control port still accepts after shutdown")
    except OSError:
        pass


def test_sigterm_with_sessions_open_ends_them_and_exits_cleanly():
    # Sessions still open at SIGTERM are told 421 and ended; one that is just closing (QUIT
    # sent) may still be queued when the loop stops, and must be destroyed while the services
    # its destructor reports to exist (a sanitizer build aborts with status -6 otherwise).
    server = start_gridftpd(timeouts={"shutdown_grace_seconds": 1})
    idle = [server.ftp() for _ in range(3)]
    for ftp in idle:
        ftp.voidcmd("NOOP")
    closing = server.ftp()
    closing.sock.sendall(b"QUIT\r\n")
    stop_with_sigterm(server)
    for ftp in idle:
        ftp.sock.settimeout(5)
        reply = ftp.sock.recv(4096)
        assert reply == b"" or reply.startswith(b"421"), reply
        ftp.close()
    closing.close()


if __name__ == "__main__":
    run_tests(globals())
