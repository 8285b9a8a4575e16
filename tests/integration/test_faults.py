"""Faults that must end in a clear error and lose nothing: a disk that fills during STOR, ESTO
and a MODE E -p 4 put (a small tmpfs mounted over the upload directory), and clients that stop
reading their data or their replies. Each test checks the reply or the server log, and the files
on disk (nothing under the final name when incomplete) or the resources freed."""

import io
import os
import signal
import socket
import subprocess
import time

from gridftp_harness import (MIB, RawControl, file_url, gridcp_binary, make_file, make_temp_dir,
                             run_peer, run_tests, start_gridftpd, wait_until)

_mounts: list[str] = []


def small_disk_root(megabytes: int = 8) -> str:
    """An anonymous root whose incoming/ is a tmpfs of `megabytes` MiB."""
    root = os.path.join(make_temp_dir("faults-"), "root")
    incoming = os.path.join(root, "incoming")
    os.makedirs(incoming)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m,mode=0777", "tmpfs",
                    incoming], check=True)
    _mounts.append(incoming)
    return root


def free_bytes(path: str) -> int:
    stat = os.statvfs(path)
    return stat.f_bavail * stat.f_frsize


def visible_and_hidden(directory: str) -> tuple[list[str], list[str]]:
    names = sorted(os.listdir(directory))
    return ([n for n in names if not n.startswith(".gridftpd-part.")],
            [n for n in names if n.startswith(".gridftpd-part.")])


def upload_expecting_452(ctl: RawControl, command: str, payload: bytes, what: str) -> str:
    """Sends `payload` for `command` over a passive connection, as far as the server takes it,
    and returns the final reply, which must be 452."""
    data = ctl.pasv_connect()
    ctl.expect(command, 150)
    try:
        data.sendall(payload)
    except OSError:
        pass  # the server stopped reading when the disk filled
    data.close()
    code, text = ctl.read_reply()
    assert code == 452, f"{what}: expected 452, got {text!r}"
    return text


def test_disk_full_during_stor_and_esto():
    root = small_disk_root(8)
    incoming = os.path.join(root, "incoming")
    server = start_gridftpd(root)
    empty = free_bytes(incoming)
    payload = os.urandom(16 * MIB)
    ctl = RawControl(server.host, server.port)
    ctl.login()
    ctl.expect("TYPE I", 200)
    upload_expecting_452(ctl, "STOR /incoming/big.bin", payload, "STOR of 16 MiB onto 8 MiB")
    visible, hidden = visible_and_hidden(incoming)
    assert visible == [] and hidden == [], f"after a failed STOR: {visible} {hidden}"
    assert free_bytes(incoming) == empty, "the failed STOR still holds space"
    upload_expecting_452(ctl, "ESTO A 0 /incoming/esto.bin", payload, "ESTO of 16 MiB onto 8 MiB")
    visible, hidden = visible_and_hidden(incoming)
    assert visible == [] and hidden == [], f"after a failed ESTO: {visible} {hidden}"
    assert free_bytes(incoming) == empty, "the failed ESTO still holds space"
    ctl.close()
    # The server goes on: a file that fits is stored whole.
    small = os.urandom(MIB)
    with server.ftp() as ftp:
        ftp.storbinary("STOR /incoming/fits.bin", io.BytesIO(small))
    with open(os.path.join(incoming, "fits.bin"), "rb") as f:
        assert f.read() == small
    log = server.log_text()
    assert "No space left on device" in log or "space" in log.lower(), log[-3000:]
    records = server.transfer_records()
    failed = [r for r in records if r["result"] != "ok"]
    assert len(failed) >= 2, f"transfer log does not record the failed uploads: {records}"


def test_disk_full_during_a_mode_e_put_with_four_streams():
    """The partial a failed MODE E put keeps for a restart holds its space, is listed by SITE
    PARTIALS, and is removed once expired by the next upload into the directory."""
    root = small_disk_root(8)
    incoming = os.path.join(root, "incoming")
    server = start_gridftpd(root, server={"partial_expiry_seconds": 3})
    empty = free_bytes(incoming)
    src = os.path.join(make_temp_dir("faults-src-"), "big.bin")
    make_file(src, 24 * MIB, seed=3)
    result = run_peer([gridcp_binary(), "-p", "4", file_url(src),
                       f"ftp://{server.host}:{server.port}/incoming/big.bin"],
                      expect_rc=None, timeout=120, what="gridcp -p 4 put onto a full disk")
    assert result.rc != 0, f"a put larger than the disk succeeded\n{result.describe()}"
    assert "452" in result.output or "space" in result.output.lower(), result.describe()
    visible, hidden = visible_and_hidden(incoming)
    assert visible == [], f"a failed MODE E put left a file under its name: {visible}"
    assert len(hidden) == 1, f"the partial kept for a restart: {hidden}"
    held = os.path.getsize(os.path.join(incoming, hidden[0]))
    assert held > 0 and free_bytes(incoming) < empty, "the kept partial holds no space"
    ctl = RawControl(server.host, server.port)
    ctl.login()
    text = ctl.expect("SITE PARTIALS /incoming", 200)
    assert f"big.bin bytes={held}" in text and "removed 3 s after" in text, text
    # Not written for longer than partial_expiry_seconds: the next upload there removes it.
    time.sleep(3.5)
    with server.ftp() as ftp:
        ftp.storbinary("STOR /incoming/small.bin", io.BytesIO(b"x" * 4096))
    visible, hidden = visible_and_hidden(incoming)
    assert visible == ["small.bin"] and hidden == [], f"after expiry: {visible} {hidden}"
    assert "big.bin" not in ctl.expect("SITE PARTIALS /incoming", 200)
    ctl.close()
    server.assert_alive("after a disk-full MODE E put")


def test_sigterm_mid_upload_ends_it_with_421_and_keeps_the_partial_for_a_restart():
    """A restartable stream STOR (TREV RESTART) still running when the server gets SIGTERM: the
    grace period passes, the client gets 421, the server exits 0, nothing is under the final
    name, and the kept partial lets a new server finish the file with REST n + STOR."""
    server = start_gridftpd(timeouts={"shutdown_grace_seconds": 1})
    payload = os.urandom(8 * MIB)
    ctl = RawControl(server.host, server.port)
    ctl.login()
    ctl.expect("TYPE I", 200)
    ctl.expect("TREV RESTART 1", 200)
    data = ctl.pasv_connect()
    ctl.expect("STOR /incoming/cut.bin", 150)
    data.sendall(payload[: 3 * MIB])
    wait_until(lambda: partial_bytes(server.fs("incoming")) >= 3 * MIB, 30,
               "the first 3 MiB to reach the server")
    server.proc.send_signal(signal.SIGTERM)
    ctl.sock.settimeout(30)
    codes = []
    try:
        while True:
            code, text = ctl.read_reply()
            codes.append(code)
            if code >= 200 and code != 111:
                break
    except AssertionError:
        pass  # closed after the last reply
    assert 421 in codes, f"replies after SIGTERM: {codes}"
    assert server.proc.wait(timeout=30) == 0, "gridftpd exit status after SIGTERM"
    data.close()
    ctl.close()
    visible, hidden = visible_and_hidden(server.fs("incoming"))
    assert "cut.bin" not in visible and len(hidden) == 1, f"after SIGTERM: {visible} {hidden}"
    kept = os.path.getsize(os.path.join(server.fs("incoming"), hidden[0]))
    assert kept >= 3 * MIB, f"the kept partial holds {kept} bytes"
    # A new server on the same root finishes the file from where the partial ends.
    again = start_gridftpd(server.fs_root)
    ctl = RawControl(again.host, again.port)
    ctl.login()
    ctl.expect("TYPE I", 200)
    data = ctl.pasv_connect()
    ctl.expect(f"REST {kept}", 350)
    ctl.expect("STOR /incoming/cut.bin", 150)
    data.sendall(payload[kept:])
    data.close()
    code, text = ctl.read_reply()
    assert code == 226, text
    ctl.close()
    with open(again.fs("incoming/cut.bin"), "rb") as f:
        assert f.read() == payload, "the restarted upload differs"


def partial_bytes(directory: str) -> int:
    return sum(os.path.getsize(os.path.join(directory, name)) for name in os.listdir(directory)
               if name.startswith(".gridftpd-part."))


def server_fds(server) -> int:
    return len(os.listdir(f"/proc/{server.proc.pid}/fd"))


def test_a_client_that_stops_reading_data_is_cut_off_and_freed():
    server = start_gridftpd(timeouts={"data_seconds": 3})
    with open(server.fs("big.bin"), "wb") as f:
        f.write(os.urandom(64 * MIB))
    ctl = RawControl(server.host, server.port)
    ctl.login()
    ctl.expect("TYPE I", 200)
    baseline = server_fds(server)
    data = ctl.pasv_connect()
    data.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    ctl.expect("RETR /big.bin", 150)
    started = time.monotonic()
    ctl.sock.settimeout(60)
    code, text = ctl.read_reply()  # the data socket is never read
    assert code == 426, f"a RETR whose reader stopped: {text!r}"
    assert time.monotonic() - started < 30, "the stalled RETR was not cut off by data_seconds"
    wait_until(lambda: server_fds(server) <= baseline, 10, "the stalled data socket freed")
    ctl.expect("NOOP", 200)  # the session itself goes on
    data.close()
    ctl.close()


def test_a_client_that_stops_reading_replies_is_cut_off_and_freed():
    server = start_gridftpd(timeouts={"data_seconds": 3})
    ctl = RawControl(server.host, server.port)
    ctl.login()
    ctl.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    baseline_rss = rss_kib(server.proc.pid)
    # 30,000 FEATs ask for about 15 MB of replies; none is read.
    ctl.sock.settimeout(30)
    try:
        ctl.sock.sendall(b"FEAT\r\n" * 30000)
    except OSError:
        pass  # the server stopped reading and then closed: both are what is wanted
    wait_until(lambda: "peer stopped reading replies" in server.log_text(), 30,
               "the server to give up on a peer that does not read")
    assert rss_kib(server.proc.pid) < baseline_rss + 8 * 1024, "the unread replies piled up"
    ctl.close()
    server.assert_alive("after a peer that did not read its replies")


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def teardown_mounts():
    while _mounts:
        subprocess.run(["umount", "-l", _mounts.pop()], check=False)


if __name__ == "__main__":
    try:
        run_tests(globals())
    finally:
        teardown_mounts()
