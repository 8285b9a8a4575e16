"""Hostile MODE E data channels against gridftpd (issue acceptance 6).

A raw client logs in, sends `TYPE I`, `MODE E`, `PASV`, `STOR incoming/<name>`, connects to the
passive port itself and writes extended-block headers by hand (docs/WIRE.md §2.2, §2.3).
Each broken stream must end in an error reply (4xx/5xx, never 226), must leave no file under the
target name (a hidden `.gridftpd-part.*` file is tolerated on disk only if listings do not show
it) and must leave the server serving new sessions. [timeouts] data_seconds = 3, so cases that
can only end by timing out do so quickly.

A well-formed two-connection upload runs first, so a broken raw client cannot make the error
cases pass vacuously. MODE E + PASV + RETR (a passive sender) must be refused with 5xx before
any data moves (§2.1).
"""

import ftplib
import os
import socket
import time

from gridftp_harness import (MODE_E_EOD, MODE_E_EOF, RawControl, abort_socket, make_file,
                             mode_e_header, read_final_reply, run_tests,
                             sha256_bytes, sha256_file, start_gridftpd)

DATA_TIMEOUT_S = 3
REPLY_DEADLINE_S = 60   # only catches hangs: data_seconds is 3


def start_server():
    return start_gridftpd(timeouts={"data_seconds": DATA_TIMEOUT_S})


class RawModeEStor:
    """Control connection in MODE E with a STOR outstanding on a passive listener."""

    def __init__(self, server, name: str, command: str = "STOR"):
        self.server, self.name = server, name
        self.ctl = RawControl(server.host, server.port)
        self.ctl.login()
        self.addr = self.ctl.mode_e_passive()
        self.ctl.send(f"{command} /incoming/{name}")
        self.conns: list[socket.socket] = []
        self.transcript = [f"TYPE I; MODE E; PASV -> {self.addr}; {command} /incoming/{name}"]

    def connect(self) -> socket.socket:
        sock = socket.create_connection(self.addr, timeout=30)
        self.conns.append(sock)
        self.transcript.append(f"conn{len(self.conns)}: connect")
        return sock

    def send(self, sock: socket.socket, data: bytes, note: str) -> None:
        self.transcript.append(f"conn{self.conns.index(sock) + 1}: {note}")
        try:
            sock.sendall(data)
        except OSError as e:   # the server may already have given up on us: fine
            self.transcript.append(f"  (send failed: {e})")

    def close_all(self) -> None:
        for sock in self.conns:
            try:
                sock.close()
            except OSError:
                pass
        self.transcript.append("all data connections closed")

    def final_reply(self) -> tuple[int, str, list[str]]:
        return read_final_reply(self.ctl, REPLY_DEADLINE_S)

    def describe(self) -> str:
        return "raw client did:\n  " + "\n  ".join(self.transcript)


def block(offset: int, payload: bytes, desc: int = 0) -> bytes:
    return mode_e_header(desc, len(payload), offset) + payload


def eof(count: int) -> bytes:
    return mode_e_header(MODE_E_EOF | MODE_E_EOD, 0, count)


def eod() -> bytes:
    return mode_e_header(MODE_E_EOD, 0, 0)


def listing(server) -> str:
    ftp = server.ftp(timeout=30)
    try:
        lines: list[str] = []
        ftp.retrlines("LIST -a /incoming", lines.append)
        try:
            names = ftp.nlst("/incoming")
        except ftplib.error_perm:
            names = []
        return "\n".join(lines + names)
    finally:
        ftp.quit()


def assert_failed_cleanly(server, upload: RawModeEStor, what: str) -> None:
    try:
        code, text, prelims = upload.final_reply()
    finally:
        upload.close_all()
    context = f"{what}\n{upload.describe()}\npreliminary replies: {prelims}\nfinal reply: {text!r}"
    print(f"  {what}: final reply {text!r}", flush=True)
    assert code != 226 and code >= 400, f"{what}: expected a 4xx/5xx reply, got {code}\n{context}"
    target = server.fs(f"incoming/{upload.name}")
    assert not os.path.exists(target), (
        f"{what}: a file appeared under the target name {target} "
        f"({os.path.getsize(target)} B) after the failed STOR\n{context}")
    shown = listing(server)
    for bad in (upload.name, ".gridftpd-part"):
        assert bad not in shown, f"{what}: listing of /incoming shows {bad!r}:\n{shown}\n{context}"
    server.assert_alive(f"after {what}")
    ctl = RawControl(server.host, server.port)
    try:
        ctl.login()
        ctl.expect("NOOP", 200)
    finally:
        ctl.close()
    upload.ctl.close()


def test_well_formed_two_connection_upload_succeeds():
    server = start_server()
    data = os.urandom(300_000)
    up = RawModeEStor(server, "good.bin")
    c1, c2 = up.connect(), up.connect()
    up.send(c2, block(100_000, data[100_000:]), "data 200000 B @100000")
    up.send(c1, block(0, data[:100_000]), "data 100000 B @0")
    up.send(c1, eod(), "EOD")
    up.send(c2, eof(2), "EOF|EOD count=2")
    code, text, prelims = up.final_reply()
    up.close_all()
    assert code == 226, f"well-formed upload: expected 226, got {text!r}\n{up.describe()}"
    got = sha256_file(server.fs("incoming/good.bin"))
    assert got == sha256_bytes(data), f"well-formed upload: content differs\n{up.describe()}"


def test_undefined_descriptor_bit_is_rejected():
    server = start_server()
    for desc in (0x01, 0x02):
        up = RawModeEStor(server, f"bad-desc-{desc:02x}.bin")
        c1 = up.connect()
        up.send(c1, block(0, b"x" * 10, desc=desc), f"block desc=0x{desc:02x} 10 B @0")
        up.send(c1, eof(1), "EOF|EOD count=1")
        assert_failed_cleanly(server, up, f"descriptor 0x{desc:02x}")


def test_eof_count_smaller_than_connections_opened_is_rejected():
    """Two connections carry data but the EOF claims one: the second connection's bytes
    would be silently lost if the server completed on the EOF count alone."""
    server = start_server()
    up = RawModeEStor(server, "eof-count-low.bin")
    c1, c2 = up.connect(), up.connect()
    up.send(c2, block(100, b"b" * 100), "data 100 B @100")
    time.sleep(0.5)   # ordering aid only: the server has accepted and read conn2 by now
    up.send(c1, block(0, b"a" * 100), "data 100 B @0")
    up.send(c1, eof(1), "EOF|EOD count=1 (but 2 connections are open)")
    up.send(c2, block(200, b"c" * 100), "data 100 B @200 after the EOF")
    up.send(c2, eod(), "EOD")
    assert_failed_cleanly(server, up, "EOF count 1 with 2 data connections")


def test_eof_count_larger_than_connections_then_close_times_out_with_error():
    server = start_server()
    up = RawModeEStor(server, "eof-count-high.bin")
    c1 = up.connect()
    up.send(c1, block(0, b"a" * 1000), "data 1000 B @0")
    up.send(c1, eof(3), "EOF|EOD count=3 (only 1 connection ever opened)")
    up.close_all()
    assert_failed_cleanly(server, up, "EOF count 3 with 1 connection, then everything closed")


def test_eof_count_zero_is_rejected():
    server = start_server()
    up = RawModeEStor(server, "eof-count-zero.bin")
    c1 = up.connect()
    up.send(c1, block(0, b"a" * 1000), "data 1000 B @0")
    up.send(c1, eof(0), "EOF|EOD count=0")
    assert_failed_cleanly(server, up, "EOF count 0")


def test_connection_closed_before_eod_fails():
    server = start_server()
    up = RawModeEStor(server, "closed-no-eod.bin")
    c1 = up.connect()
    up.send(c1, block(0, b"a" * 5000), "data 5000 B @0")
    c1.close()
    up.transcript.append("conn1: close (FIN) without EOD or EOF")
    assert_failed_cleanly(server, up, "connection closed before EOD")


def test_connection_closed_mid_block_fails():
    server = start_server()
    up = RawModeEStor(server, "closed-mid-block.bin")
    c1, c2 = up.connect(), up.connect()
    up.send(c2, eof(2), "EOF|EOD count=2")
    up.send(c1, mode_e_header(0, 100_000, 0) + b"z" * 1000,
            "header announcing 100000 B @0, only 1000 B sent")
    abort_socket(c1)
    up.transcript.append("conn1: reset (RST) mid-block")
    assert_failed_cleanly(server, up, "connection reset in the middle of a block")


def test_offset_beyond_2_pow_63_is_rejected():
    server = start_server()
    for offset, label in ((1 << 63, "2^63"), ((1 << 64) - 5, "2^64-5 (offset+count wraps)")):
        up = RawModeEStor(server, f"huge-offset-{label.split()[0].replace('^', '')}.bin")
        c1 = up.connect()
        up.send(c1, block(offset, b"q" * 10), f"data 10 B @{offset} ({label})")
        up.send(c1, eof(1), "EOF|EOD count=1")
        assert_failed_cleanly(server, up, f"block offset {label}")


def test_passive_sender_in_mode_e_is_refused():
    server = start_server()
    make_file(server.fs("data/src.bin"), 100_000)
    os.chmod(server.fs("data"), 0o755)
    for command in ("RETR /data/src.bin", "ERET P 0 1000 /data/src.bin"):
        ctl = RawControl(server.host, server.port)
        ctl.login()
        addr = ctl.mode_e_passive()
        data_sock = None
        try:
            data_sock = socket.create_connection(addr, timeout=5)
        except OSError:
            pass   # a server may refuse the connection outright: fine
        ctl.send(command)
        code, text = ctl.read_reply()
        assert 500 <= code < 600, (f"MODE E + PASV + {command}: expected 5xx as the first reply "
                                   f"(the sender must be active), got {text!r}")
        if data_sock is not None:
            data_sock.settimeout(2)
            try:
                got = data_sock.recv(65536)
            except (socket.timeout, OSError):
                got = b""
            data_sock.close()
            assert got == b"", (f"MODE E + PASV + {command}: refused with {code} but "
                                f"{len(got)} bytes arrived on the data connection: {got[:40]!r}")
        ctl.expect("NOOP", 200)
        ctl.close()
    server.assert_alive("after passive MODE E senders")


if __name__ == "__main__":
    run_tests(globals())
