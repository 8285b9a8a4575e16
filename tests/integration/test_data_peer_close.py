"""A data peer that goes away gets the reply class RFC 959 gives it, never a file-system error
(Asio's end-of-stream once came out as errno 2, "550 No such file or directory"):

  * the data connection never opens properly (a TLS handshake cut short, PORT to a port nobody
    listens on): 425;
  * an open data connection is lost mid-transfer (RETR reader gone, MODE E sender gone
    mid-block): 426, and an upload leaves no file under its name;
  * gridcp against a server whose data connection is reset exits non-zero and says why, not
    "No such file or directory".
"""

import ftplib
import os
import socket
import ssl
import threading

from gridftp_harness import (MIB, MODE_E_EOF, MODE_E_EOD, RawControl, abort_socket, gridcp_binary,
                             make_file, make_temp_dir, mode_e_header, parse_pasv_reply,
                             read_final_reply, run_peer, run_tests, start_gridftpd)

REPLY_DEADLINE_S = 60  # only catches hangs


def assert_no_file_error(text: str, what: str) -> None:
    assert "No such file" not in text and not text.startswith("550"), f"{what}: {text!r}"


def test_tls_handshake_cut_short_on_a_data_connection_is_425():
    server = start_gridftpd(tls={"enabled": True}, timeouts={"data_seconds": 5})
    make_file(server.fs("f.bin"), 100_000, seed=1)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    ftp = ftplib.FTP_TLS(context=context, timeout=REPLY_DEADLINE_S)
    ftp.connect(server.host, server.port)
    ftp.login()
    ftp.prot_p()
    ftp.voidcmd("TYPE I")
    host, port = ftp.makepasv()
    data = socket.create_connection((host, port), timeout=15)
    ftp.putcmd("RETR f.bin")
    data.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")  # a ClientHello's first bytes
    data.close()
    try:
        reply = ftp.getresp()
        while reply.startswith("1"):
            reply = ftp.getresp()
    except ftplib.Error as e:
        reply = str(e)
    assert reply.startswith("425"), f"handshake cut short: expected 425, got {reply!r}"
    ftp.voidcmd("NOOP")  # the session goes on
    ftp.quit()


def test_port_to_a_closed_port_is_425():
    server = start_gridftpd(timeouts={"data_seconds": 5})
    make_file(server.fs("f.bin"), 1000, seed=2)
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nobody listens there now
    ctl = RawControl(server.host, server.port)
    ctl.login()
    ctl.expect("TYPE I", 200)
    ctl.expect(f"PORT 127,0,0,1,{port // 256},{port % 256}", 200)
    ctl.send("RETR f.bin")
    code, text, _ = read_final_reply(ctl, REPLY_DEADLINE_S)
    assert code == 425, f"PORT to a closed port: expected 425, got {text!r}"
    ctl.expect("NOOP", 200)
    ctl.close()


def test_reader_gone_mid_retr_is_426():
    server = start_gridftpd(timeouts={"data_seconds": 5})
    make_file(server.fs("big.bin"), 64 * MIB, seed=3)
    ctl = RawControl(server.host, server.port)
    ctl.login()
    ctl.expect("TYPE I", 200)
    data = ctl.pasv_connect()
    ctl.send("RETR big.bin")
    got = 0
    while got < MIB:
        chunk = data.recv(65536)
        assert chunk, "the server closed before sending 1 MiB"
        got += len(chunk)
    abort_socket(data)  # the reader goes away with 63 MiB still to come
    code, text, _ = read_final_reply(ctl, REPLY_DEADLINE_S)
    assert code == 426, f"reader gone mid-RETR: expected 426, got {text!r}"
    ctl.expect("NOOP", 200)
    ctl.close()


def test_mode_e_sender_gone_mid_block_is_426_and_leaves_no_file():
    server = start_gridftpd(timeouts={"data_seconds": 5})
    ctl = RawControl(server.host, server.port)
    ctl.login()
    address = ctl.mode_e_passive()
    ctl.send("STOR /incoming/cut.bin")
    data = socket.create_connection(address, timeout=15)
    data.sendall(mode_e_header(0, 200_000, 0) + b"x" * 5000)  # 5000 of 200000 announced bytes
    data.close()
    code, text, _ = read_final_reply(ctl, REPLY_DEADLINE_S)
    assert code == 426, f"MODE E sender gone mid-block: expected 426, got {text!r}"
    assert not os.path.exists(server.fs("incoming/cut.bin")), "a cut-off upload left a file"
    # A whole MODE E upload on the same session still works.
    address = parse_pasv_reply(ctl.expect("PASV", 227))
    ctl.send("STOR /incoming/whole.bin")
    data = socket.create_connection(address, timeout=15)
    data.sendall(mode_e_header(0, 3, 0) + b"abc" + mode_e_header(MODE_E_EOF | MODE_E_EOD, 0, 1))
    data.close()
    code, text, _ = read_final_reply(ctl, REPLY_DEADLINE_S)
    assert code == 226, f"a whole MODE E upload after the cut one: {text!r}"
    ctl.close()


class ResettingFtpServer:
    """Just enough FTP for gridcp to start a RETR; the data connection is then reset (RST) and
    the transfer answered 426, as a server whose data peer went away would."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.data_listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.commands: list[str] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        conn, _ = self.listener.accept()
        conn.settimeout(30)
        stream = conn.makefile("rwb", buffering=0)

        def reply(text):
            stream.write(text.encode() + b"\r\n")

        reply("220 fake ready")
        data_port = self.data_listener.getsockname()[1]
        while line := stream.readline():
            command = line.decode().strip()
            self.commands.append(command)
            verb = command.split(" ")[0].upper()
            if verb == "USER":
                reply("331 password please")
            elif verb == "PASS":
                reply("230 logged in")
            elif verb == "SIZE":
                reply("213 1000000")
            elif verb == "PASV":
                reply(f"227 Entering Passive Mode (127,0,0,1,{data_port // 256},{data_port % 256})")
            elif verb == "EPSV":
                reply(f"229 Entering Extended Passive Mode (|||{data_port}|)")
            elif verb == "RETR":
                reply("150 Opening BINARY mode data connection")
                data, _ = self.data_listener.accept()
                data.sendall(b"y" * 1000)
                abort_socket(data)
                reply("426 Connection closed; transfer aborted.")
            elif verb == "QUIT":
                reply("221 bye")
                break
            elif verb == "FEAT":
                reply("211 no features")
            else:
                reply("200 ok")
        conn.close()


def test_gridcp_reports_a_reset_data_connection_as_a_transfer_failure():
    fake = ResettingFtpServer()
    target = os.path.join(make_temp_dir("peer-close-"), "out.bin")
    result = run_peer([gridcp_binary(), f"ftp://127.0.0.1:{fake.port}/f.bin", f"file://{target}"],
                      expect_rc=None, timeout=120, what="gridcp against a resetting server")
    assert result.rc != 0, f"gridcp succeeded on a reset transfer:\n{result.output}"
    assert "RETR" in " ".join(fake.commands), f"gridcp never asked for the file: {fake.commands}"
    assert "No such file" not in result.output, f"file-system error reported:\n{result.output}"
    assert "426" in result.output or "reset" in result.output.lower() or "abort" in \
        result.output.lower(), f"the reason is missing:\n{result.output}"
    assert not os.path.exists(target) or os.path.getsize(target) < 1_000_000


if __name__ == "__main__":
    run_tests(globals())
