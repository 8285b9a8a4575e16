"""Hostile and broken input against gridftpd: an over-long command line, unknown commands,
commands before login, paths and symlinks escaping the anonymous root, missing files, writes
to the read-only area, and a client that vanishes mid-upload. A sentinel file outside the root
must come through all of it untouched, and the server must keep serving."""

import ftplib
import io
import os
import re
import socket
import threading

from gridftp_harness import (MIB, RawControl, abort_socket, expect_ftp_error, ftp_retr_bytes,
                             make_temp_dir, run_tests, sha256_file, start_gridftpd, wait_until)

SENTINEL_DATA = b"sentinel: must never be read or written through the server\n"


class Fixture:
    """A server whose root has a symlink to a file outside and a symlinked directory that
    points outside, next to an `outside/` directory holding the sentinel."""

    def __init__(self):
        base = make_temp_dir("bad-input-")
        self.outside = os.path.join(base, "outside")
        os.makedirs(self.outside)
        self.sentinel = os.path.join(self.outside, "sentinel.txt")
        with open(self.sentinel, "wb") as f:
            f.write(SENTINEL_DATA)
        os.utime(self.sentinel, (1_400_000_000, 1_400_000_000))
        self.sentinel_stat = os.stat(self.sentinel)
        self.outside_listing = sorted(os.listdir(self.outside))
        root = os.path.join(base, "root")
        os.makedirs(os.path.join(root, "incoming"))
        with open(os.path.join(root, "hello.txt"), "wb") as f:
            f.write(b"hello\n")
        os.symlink(self.sentinel, os.path.join(root, "link-out.txt"))
        os.symlink(self.sentinel, os.path.join(root, "incoming", "link-out.txt"))
        os.symlink(self.outside, os.path.join(root, "dir-out"))
        os.symlink(self.outside, os.path.join(root, "incoming", "dir-out"))
        self.root = root
        self.server = start_gridftpd(root)
        # How far the root is below '/': enough ../ to reach the real filesystem root.
        self.depth = len([p for p in root.split("/") if p])

    def assert_sentinel_untouched(self, what: str) -> None:
        with open(self.sentinel, "rb") as f:
            data = f.read()
        st = os.stat(self.sentinel)
        assert data == SENTINEL_DATA, f"{what}: sentinel outside the root was modified: {data!r}"
        assert st.st_mtime_ns == self.sentinel_stat.st_mtime_ns, (
            f"{what}: sentinel mtime changed ({self.sentinel_stat.st_mtime_ns} -> "
            f"{st.st_mtime_ns})")
        assert sorted(os.listdir(self.outside)) == self.outside_listing, (
            f"{what}: files appeared outside the root: {sorted(os.listdir(self.outside))}")

    def raw(self, login: bool = True) -> RawControl:
        ctl = RawControl(self.server.host, self.server.port)
        assert ctl.greeting[0] == 220, f"greeting: {ctl.greeting}"
        if login:
            ctl.login()
        return ctl


def test_overlong_command_line_gets_500_and_session_survives():
    fx = Fixture()
    for login in (False, True):
        ctl = fx.raw(login=login)
        try:
            line = b"NOOP " + b"A" * (100 * 1024) + b"\r\n"
            # Send from a thread: a server that answers early must not deadlock us.
            sender = threading.Thread(target=ctl.send_raw, args=(line,), daemon=True)
            sender.start()
            code, text = ctl.read_reply()
            sender.join(30)
            assert code == 500, (f"100 KiB command line (logged in: {login}): expected 500, "
                                 f"got {text[:200]!r}")
            code, text = ctl.cmd("NOOP")
            assert code == 200, (f"NOOP after the 100 KiB line (logged in: {login}): expected "
                                 f"exactly one 500 and then 200, got {text[:200]!r}")
            # The tail of the long line must not have been run as a command either.
            code, text = ctl.cmd("NOOP")
            assert code == 200, f"second NOOP after the long line: {text[:200]!r}"
        finally:
            ctl.close()
    # a line exactly at a normal length still works afterwards
    with fx.server.ftp() as ftp:
        assert ftp_retr_bytes(ftp, "hello.txt") == b"hello\n"
    fx.server.assert_alive()


def test_unknown_command_gets_500():
    fx = Fixture()
    ctl = fx.raw()
    try:
        for line in ("XYZZY", "FOOBAR some args", "RETRX hello.txt"):
            code, text = ctl.cmd(line)
            assert code == 500, f"{line!r}: expected 500, got {text!r}"
        assert ctl.cmd("NOOP")[0] == 200
    finally:
        ctl.close()


def test_setnetstack_refuses_udt_with_advice_and_names_bad_stacks():
    """SITE SETNETSTACK (docs/UDPX.md §7): globus-url-copy -udt sends "udt,gsi"; gridftpd's
    UDP channel is not UDT4, so it says what to use instead. TCP stays selectable, unknown
    drivers and bad udpx options are named, udpx without DCAU is refused at the transfer, bad
    SITE UDPX arguments get 501, and the session carries on."""
    fx = Fixture()
    ctl = fx.raw()
    try:
        for stack in ("udt", "udt,gsi"):
            code, text = ctl.cmd(f"SITE SETNETSTACK {stack}")
            assert code == 504 and "-dcstack udpx" in text, f"{stack}: {code} {text!r}"
        for stack in ("default", "tcp"):
            code, text = ctl.cmd(f"SITE SETNETSTACK {stack}")
            assert code == 200, f"{stack}: {code} {text!r}"
        code, text = ctl.cmd("SITE SETNETSTACK quic")
        assert code == 504 and "'quic'" in text, f"quic: {code} {text!r}"
        code, text = ctl.cmd("SITE SETNETSTACK udpx:policy=greedy")
        assert code == 501 and "policy=greedy" in text, f"bad option: {code} {text!r}"
        # UDPX is accepted with its effective settings; on a session without DCAU (this one
        # logged in with a password) a transfer over it is then refused before it begins.
        code, text = ctl.cmd("SITE SETNETSTACK udpx:rate=1G;policy=high")
        assert code == 200 and "rate=1000000000" in text and "policy=high" in text, \
            f"udpx: {code} {text!r}"
        code, text = ctl.cmd("RETR hello.txt")
        assert code == 425 and "PASV" in text, f"RETR before PASV under udpx: {code} {text!r}"
        assert ctl.cmd("PASV")[0] == 227
        code, text = ctl.cmd("RETR hello.txt")
        assert code == 536 and "DCAU" in text, f"RETR over udpx without DCAU: {code} {text!r}"
        for argument in ("", "RATE", "RATE fast", "BOGUS"):
            code, text = ctl.cmd(f"SITE UDPX {argument}")
            assert code == 501, f"SITE UDPX {argument}: {code} {text!r}"
        code, text = ctl.cmd("SITE UDPX RATE 100M")
        assert code == 503 and "No UDPX transfer" in text, f"RATE idle: {code} {text!r}"
        code, text = ctl.cmd("SITE UDPX STAT")
        assert code == 200 and "no UDPX transfer yet" in text, f"STAT: {code} {text!r}"
        assert ctl.cmd("SITE SETNETSTACK default")[0] == 200
        code, text = ctl.cmd("SITE HELP")
        assert code == 214 and "SETNETSTACK" in text and "UDPX" in text, \
            f"SITE HELP: {code} {text!r}"
        assert ctl.cmd("NOOP")[0] == 200
    finally:
        ctl.close()


def test_commands_before_login_get_530():
    fx = Fixture()
    ctl = fx.raw(login=False)
    try:
        for line in ("PWD", "CWD /", "RETR hello.txt", "STOR incoming/x", "LIST", "NLST",
                     "MKD incoming/d", "DELE hello.txt", "PASV", "EPSV", "SIZE hello.txt",
                     "RNFR hello.txt", "MLSD", "PORT 127,0,0,1,4,1", "TYPE I"):
            code, text = ctl.cmd(line)
            assert code == 530, f"{line!r} before login: expected 530, got {text!r}"
        for line, ok in (("NOOP", (200,)), ("SYST", (215,)), ("FEAT", (211,))):
            code, text = ctl.cmd(line)
            assert code in ok, f"{line!r} before login: expected {ok}, got {text!r}"
        ctl.login()
        code, text = ctl.cmd("PWD")
        assert code == 257, f"PWD after login: {text!r}"
    finally:
        ctl.close()
    assert not os.path.exists(os.path.join(fx.root, "incoming", "d")), "MKD before login ran"
    assert os.path.exists(os.path.join(fx.root, "hello.txt")), "DELE before login ran"


def test_paths_escaping_the_root_are_refused():
    fx = Fixture()
    ups = "../" * (fx.depth + 2)
    escapes = [
        "../../etc/passwd",
        "/../../etc/passwd",
        ups + "etc/passwd",
        "/" + ups + "etc/passwd",
        "../outside/sentinel.txt",
        "/../outside/sentinel.txt",
        "incoming/../../outside/sentinel.txt",
        ups + fx.sentinel.lstrip("/"),
        fx.sentinel,   # an absolute host path is relative to the root, so it does not exist
    ]
    with fx.server.ftp() as ftp:
        for path in escapes:
            got = []

            def retr(p=path):
                ftp.retrbinary(f"RETR {p}", got.append)
            expect_ftp_error(retr, "550", f"RETR {path}")
            assert not got, f"RETR {path}: data came back: {b''.join(got)[:100]!r}"
        for path in ("../outside", "/../outside", ups + "tmp", "incoming/../.."):
            code = None
            try:
                ftp.cwd(path)
                code = 250
            except ftplib.error_perm as e:
                code = int(str(e)[:3])
                assert code == 550, f"CWD {path}: expected 550 or to stay in the root, got {e}"
            pwd = ftp.pwd()
            assert pwd == "/", f"after CWD {path} (reply {code}) PWD is {pwd!r}, expected '/'"
            listing = ftp.nlst()
            assert "hello.txt" in [os.path.basename(n) for n in listing], (
                f"after CWD {path} the listing is not the root's: {listing}")
        # CWD .. at the root
        try:
            ftp.cwd("..")
        except ftplib.error_perm as e:
            assert str(e).startswith("550"), f"CWD .. at root: {e}"
        assert ftp.pwd() == "/", f"CWD .. at the root: PWD is {ftp.pwd()!r}, expected '/'"
        try:
            ftp.sendcmd("CDUP")
        except ftplib.error_perm as e:
            assert str(e).startswith("550"), f"CDUP at root: {e}"
        assert ftp.pwd() == "/", f"CDUP at the root: PWD is {ftp.pwd()!r}"
        # STOR and MKD that try to climb out of incoming/
        for path in ("incoming/../../outside/new.txt", "../outside/new.txt",
                     "/../outside/new.txt", ups + fx.outside.lstrip("/") + "/new.txt"):
            expect_ftp_error(lambda p=path: ftp.storbinary(f"STOR {p}", io.BytesIO(b"evil")),
                             "550", f"STOR {path}")
        for path in ("incoming/../../outside/newdir", "../outside/newdir"):
            expect_ftp_error(lambda p=path: ftp.mkd(p), "550", f"MKD {path}")
        expect_ftp_error(lambda: ftp.size("../outside/sentinel.txt"), "550",
                         "SIZE ../outside/sentinel.txt")
        expect_ftp_error(lambda: ftp.sendcmd("MDTM ../outside/sentinel.txt"), "550",
                         "MDTM ../outside/sentinel.txt")
        expect_ftp_error(lambda: ftp.sendcmd("DELE ../outside/sentinel.txt"), "550",
                         "DELE ../outside/sentinel.txt")
        expect_ftp_error(lambda: ftp.sendcmd("RNFR ../outside/sentinel.txt"), "550",
                         "RNFR ../outside/sentinel.txt")
        expect_ftp_error(
            lambda: ftp.sendcmd("MFMT 20000101000000 ../outside/sentinel.txt"), "550",
            "MFMT ../outside/sentinel.txt")
        ftp.quit()
    fx.assert_sentinel_untouched("after ../ escapes")


def test_symlinks_pointing_outside_are_refused():
    fx = Fixture()
    with fx.server.ftp() as ftp:
        for path in ("link-out.txt", "incoming/link-out.txt", "dir-out/sentinel.txt",
                     "incoming/dir-out/sentinel.txt"):
            got = []
            expect_ftp_error(lambda p=path: ftp.retrbinary(f"RETR {p}", got.append), "550",
                             f"RETR {path} (symlink to outside the root)")
            assert not got, f"RETR {path} through a symlink returned outside data"
        for path in ("dir-out", "incoming/dir-out"):
            try:
                ftp.cwd(path)
                raise AssertionError(f"CWD {path} (symlink to a directory outside the root) "
                                     f"succeeded; PWD {ftp.pwd()!r}")
            except ftplib.error_perm as e:
                assert str(e).startswith("550"), f"CWD {path}: expected 550, got {e}"
        # Writes through the symlinks: refused, and nothing written outside.
        expect_ftp_error(lambda: ftp.storbinary("APPE incoming/link-out.txt",
                                                io.BytesIO(b"x")), "550",
                         "APPE incoming/link-out.txt (symlink to outside the root)")
        fx.assert_sentinel_untouched("after APPE through incoming/link-out.txt")
        # STOR may refuse (550) or replace the link itself (temp file renamed over it); it must
        # never write through it.
        try:
            ftp.storbinary("STOR incoming/link-out.txt", io.BytesIO(b"overwrite through link"))
            link = os.path.join(fx.root, "incoming", "link-out.txt")
            assert not os.path.islink(link), "STOR through a symlink succeeded, link still there"
        except ftplib.error_perm as e:
            assert str(e).startswith("550"), f"STOR through a file symlink: {e}"
        fx.assert_sentinel_untouched("after STOR through incoming/link-out.txt")
        expect_ftp_error(lambda: ftp.storbinary("STOR incoming/dir-out/new.txt",
                                                io.BytesIO(b"x")), "550",
                         "STOR incoming/dir-out/new.txt (symlinked dir outside the root)")
        expect_ftp_error(lambda: ftp.mkd("incoming/dir-out/newdir"), "550",
                         "MKD incoming/dir-out/newdir")
        expect_ftp_error(lambda: ftp.delete("incoming/dir-out/sentinel.txt"), "550",
                         "DELE incoming/dir-out/sentinel.txt")
        expect_ftp_error(lambda: ftp.sendcmd("RNFR incoming/dir-out/sentinel.txt"), "550",
                         "RNFR incoming/dir-out/sentinel.txt")
        listing: list[str] = []
        try:
            ftp.retrlines("LIST incoming/dir-out", listing.append)
        except ftplib.error_perm as e:
            assert str(e).startswith("550"), f"LIST incoming/dir-out: {e}"
        assert not any("sentinel.txt" in line for line in listing), (
            f"LIST through a symlinked dir showed the outside directory: {listing}")
        ftp.quit()
    fx.assert_sentinel_untouched("after symlink attempts")


def test_missing_file_and_read_only_area():
    fx = Fixture()
    with fx.server.ftp() as ftp:
        expect_ftp_error(lambda: ftp_retr_bytes(ftp, "no-such-file"), "550", "RETR no-such-file")
        expect_ftp_error(lambda: ftp_retr_bytes(ftp, "incoming/nothing/here"), "550",
                         "RETR incoming/nothing/here")
        for path in ("new.txt", "/new.txt", "hello.txt"):
            expect_ftp_error(lambda p=path: ftp.storbinary(f"STOR {p}", io.BytesIO(b"x")),
                             "550", f"STOR {path} (read-only area)")
            expect_ftp_error(lambda p=path: ftp.storbinary(f"APPE {p}", io.BytesIO(b"x")),
                             "550", f"APPE {path} (read-only area)")
        expect_ftp_error(lambda: ftp.mkd("newdir"), "550", "MKD newdir (read-only area)")
        expect_ftp_error(lambda: ftp.delete("hello.txt"), "550", "DELE hello.txt (read-only)")
        expect_ftp_error(lambda: ftp.sendcmd("RNFR hello.txt"), "550", "RNFR hello.txt")
        expect_ftp_error(lambda: ftp.rmd("incoming"), "550", "RMD incoming (read-only parent)")
        ftp.quit()
    assert sorted(os.listdir(fx.root)) == sorted(
        ["incoming", "hello.txt", "link-out.txt", "dir-out"]), (
        f"the read-only root changed: {sorted(os.listdir(fx.root))}")
    with open(os.path.join(fx.root, "hello.txt"), "rb") as f:
        assert f.read() == b"hello\n", "hello.txt in the read-only area was modified"
    assert os.path.isdir(os.path.join(fx.root, "incoming")), "RMD removed incoming/"


def test_client_vanishing_mid_upload_leaves_no_file():
    fx = Fixture()
    ctl = fx.raw()
    target = os.path.join(fx.root, "incoming", "vanish.bin")
    data_sock = None
    try:
        ctl.expect("TYPE I", 200)
        data_sock = ctl.pasv_connect()
        ctl.send("STOR incoming/vanish.bin")
        code, text = ctl.read_reply()
        assert code in (125, 150), f"STOR incoming/vanish.bin: expected 125/150, got {text!r}"
        chunk = os.urandom(MIB)
        for _ in range(8):
            data_sock.sendall(chunk)
    finally:
        # Abrupt: RST on both connections, no ABOR, no QUIT, no clean end of the data stream.
        ctl.abort_connection()
        if data_sock is not None:
            abort_socket(data_sock)
    record = fx.server.wait_transfer_record(
        lambda r: r.get("command") == "STOR" and str(r.get("path", "")).endswith("vanish.bin"),
        "the aborted STOR of incoming/vanish.bin")
    assert record.get("result") == "failed", (
        f"aborted upload logged as {record.get('result')!r}, expected 'failed': {record}")
    assert record.get("error"), f"a failed transfer record needs an 'error' field: {record}"
    assert not os.path.exists(target), (
        f"an upload whose client vanished left a file at the target name "
        f"({os.path.getsize(target)} bytes)")
    leftovers = [n for n in os.listdir(os.path.join(fx.root, "incoming"))
                 if n not in ("link-out.txt", "dir-out")]
    if leftovers:
        print(f"NOTE: files left in incoming/ after the aborted upload (hidden temp not "
              f"removed?): {leftovers}")
    fx.server.assert_alive("after a client vanished mid-upload")
    # Another session works: login, get, put.
    with fx.server.ftp() as ftp:
        assert ftp_retr_bytes(ftp, "hello.txt") == b"hello\n", "RETR after the aborted upload"
        payload = os.urandom(200_000)
        ftp.storbinary("STOR incoming/after.bin", io.BytesIO(payload))
        ftp.quit()
    with open(os.path.join(fx.root, "incoming", "after.bin"), "rb") as f:
        assert f.read() == payload, "STOR after the aborted upload stored different bytes"
    record = fx.server.wait_transfer_record(
        lambda r: r.get("command") == "STOR" and str(r.get("path", "")).endswith("after.bin"),
        "the STOR of incoming/after.bin")
    assert record.get("result") == "ok" and record.get("bytes") == len(payload), (
        f"transfer record of the good upload: {record}")


def test_client_closing_control_mid_upload_leaves_no_file():
    """Only the control connection goes (RST); the data connection stays open, then is reset.
    The server must treat the lost control connection as an abort."""
    fx = Fixture()
    ctl = fx.raw()
    target = os.path.join(fx.root, "incoming", "vanish2.bin")
    ctl.expect("TYPE I", 200)
    data_sock = ctl.pasv_connect()
    try:
        ctl.send("STOR incoming/vanish2.bin")
        code, text = ctl.read_reply()
        assert code in (125, 150), f"STOR incoming/vanish2.bin: expected 125/150, got {text!r}"
        data_sock.sendall(os.urandom(MIB))
        ctl.abort_connection()
        record = fx.server.wait_transfer_record(
            lambda r: str(r.get("path", "")).endswith("vanish2.bin"),
            "the STOR of incoming/vanish2.bin whose control connection was lost")
        assert record.get("result") == "failed", (
            f"upload whose control connection was lost logged as {record.get('result')!r}: "
            f"{record}")
    finally:
        abort_socket(data_sock)
    assert not os.path.exists(target), "upload with a lost control connection left the target"
    fx.server.assert_alive()


def test_sentinel_survives_everything():
    """All of the above once more on one server, then the sentinel check."""
    fx = Fixture()
    with fx.server.ftp() as ftp:
        for path in ("../outside/sentinel.txt", "link-out.txt", "incoming/dir-out/sentinel.txt"):
            try:
                ftp.storbinary(f"STOR {path}", io.BytesIO(b"evil"))
            except ftplib.error_perm:
                pass
            try:
                ftp.storbinary(f"APPE {path}", io.BytesIO(b"evil"))
            except ftplib.error_perm:
                pass
            try:
                ftp.sendcmd(f"MFMT 20000101000000 {path}")
            except ftplib.error_perm:
                pass
            try:
                ftp.delete(path)
            except ftplib.error_perm:
                pass
        ftp.quit()
    fx.assert_sentinel_untouched("after write attempts")


if __name__ == "__main__":
    run_tests(globals())
