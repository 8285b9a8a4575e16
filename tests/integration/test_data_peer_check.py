"""listen.require_data_peer_match: a passive data connection from another address than the
control connection's fails the transfer with 425, moves no data and leaves no file; a connection
from the right address still works. 127.0.0.2 stands in for the stranger (all of 127/8 is
loopback on Linux)."""

import os
import re
import socket
import struct

from gridftp_harness import RawControl, make_file, run_tests, start_gridftpd

STRANGER = "127.0.0.2"


def pasv_address(control: RawControl) -> tuple[str, int]:
    text = control.expect("PASV", 227)
    n = [int(x) for x in re.search(r"(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)", text).groups()]
    return ".".join(map(str, n[:4])), n[4] * 256 + n[5]


def connect_from(source: str, address: tuple[str, int]) -> socket.socket:
    return socket.create_connection(address, timeout=10, source_address=(source, 0))


def start_checking_server():
    return start_gridftpd(listen={"require_data_peer_match": True}, timeouts={"data_seconds": 5})


def test_stream_retr_from_a_stranger_is_refused():
    server = start_checking_server()
    make_file(server.fs("secret.bin"), 4096)
    control = RawControl(server.host, server.port)
    control.login()
    control.expect("TYPE I", 200)
    address = pasv_address(control)
    data = connect_from(STRANGER, address)
    control.send("RETR secret.bin")
    first, _ = control.read_reply()
    assert first == 150, f"expected 150 before the connection check, got {first}"
    code, text = control.read_reply()
    assert code == 425, f"RETR over a stranger's data connection: expected 425, got {text!r}"
    data.settimeout(5)
    received = b""
    try:
        while chunk := data.recv(65536):
            received += chunk
    except OSError:
        pass
    assert received == b"", f"the stranger received {len(received)} bytes"
    # The same session still works from the right address.
    address = pasv_address(control)
    good = connect_from("127.0.0.1", address)
    control.send("RETR secret.bin")
    control.read_reply()
    got = b""
    while chunk := good.recv(65536):
        got += chunk
    code, text = control.read_reply()
    assert code == 226 and len(got) == 4096, f"RETR from the control address: {text!r}, {len(got)} bytes"
    server.assert_alive()


def test_mode_e_store_from_a_stranger_fails_and_leaves_no_file():
    server = start_checking_server()
    control = RawControl(server.host, server.port)
    control.login()
    address = control.mode_e_passive()
    control.send("STOR incoming/forged.bin")
    code, _ = control.read_reply()
    assert code in (125, 150), f"STOR: expected 150, got {code}"
    data = connect_from(STRANGER, address)
    payload = b"x" * 1000
    try:
        data.sendall(struct.pack(">BQQ", 0, len(payload), 0) + payload + struct.pack(">BQQ", 0x48, 0, 1))
    except OSError:
        pass
    while True:
        code, text = control.read_reply()
        if code not in (111, 112):
            break
    assert code == 425, f"MODE E STOR from a stranger: expected 425, got {text!r}"
    assert not os.path.exists(server.fs("incoming/forged.bin")), "a file appeared at the target name"
    listing = os.listdir(server.fs("incoming"))
    assert all(name.startswith(".gridftpd-part.") for name in listing), f"visible leftovers: {listing}"
    server.assert_alive()


if __name__ == "__main__":
    run_tests(globals())
