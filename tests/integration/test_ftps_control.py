"""FTPS control channel edge cases (RFC 4217) that real clients hit only by timing, made
deterministic here with a TLS client over memory BIOs.

  * A client that sends its first command in the same segment as its TLS Finished (curl does
    when it resumes a session) gets its reply: the server must not leave records that arrived
    with the handshake's last flight unread until more bytes come.
  * The same with two commands behind the Finished: both answered, in order.
  * An upload's data connection carries nothing from the server after the handshake (no TLS 1.3
    session ticket): an uploading client never reads, and closing with unread bytes makes its
    kernel reset the connection, which can destroy the end of the file before we read it.
  * A client that hangs up in the middle of the AUTH TLS handshake ends its session; the server
    goes on serving the next client.
"""

import ftplib
import os
import select
import socket
import ssl

from gridftp_harness import RawControl, make_file, make_temp_dir, run_tests, sha256_file, start_gridftpd


def ftps_server():
    return start_gridftpd(tls={"enabled": True, "required": True})


class MemoryTlsClient:
    """TLS client over memory BIOs on an already connected socket: what goes on the wire, and
    when, is up to the test."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        self.incoming = ssl.MemoryBIO()
        self.outgoing = ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_side=False)
        self.plain = b""

    def handshake_holding_last_flight(self) -> bytes:
        """Runs the handshake until the client has nothing left to wait for; returns the
        client's last flight (its Finished) without sending it."""
        while True:
            try:
                self.tls.do_handshake()
                return self.outgoing.read()
            except ssl.SSLWantReadError:
                pending = self.outgoing.read()
                if pending:
                    self.sock.sendall(pending)
                data = self.sock.recv(65536)
                if not data:
                    raise AssertionError("server closed during the TLS handshake")
                self.incoming.write(data)

    def seal(self, text: str) -> bytes:
        return self.seal_bytes(text.encode())

    def seal_bytes(self, data: bytes) -> bytes:
        self.tls.write(data)
        return self.outgoing.read()

    def read_line(self) -> str:
        while b"\n" not in self.plain:
            try:
                self.plain += self.tls.read(65536)
                continue
            except ssl.SSLWantReadError:
                pass
            data = self.sock.recv(65536)
            if not data:
                raise AssertionError(f"server closed the connection (pending {self.plain!r})")
            self.incoming.write(data)
        line, self.plain = self.plain.split(b"\n", 1)
        return line.rstrip(b"\r").decode()


def open_auth_tls(server) -> socket.socket:
    ctl = RawControl(server.host, server.port, timeout=15)
    code, text = ctl.cmd("AUTH TLS")
    assert code == 234, f"AUTH TLS: {text!r}"
    assert not ctl.buf, f"bytes after the 234: {ctl.buf!r}"
    return ctl.sock


def test_first_command_in_the_finished_segment_is_answered():
    server = ftps_server()
    sock = open_auth_tls(server)
    try:
        client = MemoryTlsClient(sock)
        finished = client.handshake_holding_last_flight()
        sock.sendall(finished + client.seal("USER anonymous\r\n"))
        reply = client.read_line()
        assert reply.startswith("331"), f"USER behind the Finished got {reply!r}"
    finally:
        sock.close()
    server.assert_alive("after a command in the Finished segment")


def test_two_commands_in_the_finished_segment_are_answered_in_order():
    server = ftps_server()
    sock = open_auth_tls(server)
    try:
        client = MemoryTlsClient(sock)
        finished = client.handshake_holding_last_flight()
        sock.sendall(finished + client.seal("USER anonymous\r\n") + client.seal("PASS x@y\r\n"))
        first, second = client.read_line(), client.read_line()
        assert first.startswith("331") and second.startswith("230"), (first, second)
        sock.sendall(client.seal("PWD\r\n"))
        assert client.read_line().startswith("257")
    finally:
        sock.close()


def test_upload_data_connection_gets_nothing_after_the_handshake():
    server = ftps_server()
    src = make_temp_dir("ftps-ticket-")
    local = os.path.join(src, "a.bin")
    digest = make_file(local, 300_000, seed=44)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    ftp = ftplib.FTP_TLS(context=context, timeout=15)
    ftp.connect(server.host, server.port)
    ftp.login()
    ftp.prot_p()
    ftp.voidcmd("TYPE I")
    host, port = ftp.makepasv()
    sock = socket.create_connection((host, port), timeout=15)
    ftp.putcmd("STOR incoming/t.bin")
    client = MemoryTlsClient(sock)
    sock.sendall(client.handshake_holding_last_flight())
    assert ftp.getresp().startswith("150")
    # Anything the server sends now would sit unread in an uploader's socket.
    readable, _, _ = select.select([sock], [], [], 1.0)
    assert not readable, f"server sent {len(sock.recv(65536))} bytes on an upload connection"
    with open(local, "rb") as f:
        sock.sendall(client.seal_bytes(f.read()))
    try:
        client.tls.unwrap()  # close_notify, then it would wait for the server's
    except ssl.SSLWantReadError:
        pass
    sock.sendall(client.outgoing.read())
    sock.close()
    assert ftp.getresp().startswith("226")
    ftp.quit()
    assert sha256_file(server.fs("incoming/t.bin")) == digest


def test_client_gone_mid_handshake_leaves_server_serving():
    server = ftps_server()
    sock = open_auth_tls(server)
    sock.sendall(b"\x16\x03\x01\x02\x00\x01")  # the start of a ClientHello record, then nothing
    sock.close()
    follow = RawControl(server.host, server.port, timeout=15)
    try:
        code, text = follow.cmd("AUTH TLS")
        assert code == 234, f"next client's AUTH TLS: {text!r}"
    finally:
        follow.close()
    server.assert_alive("after a client left mid-handshake")


if __name__ == "__main__":
    run_tests(globals())
