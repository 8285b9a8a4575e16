"""gridbench's reading of ServerHellos off the loopback device (bench/gridbench/tlsprobe.py),
which names the cipher globus-gridftp-server's data channels negotiate: TLS 1.3 (the version
in supported_versions), TLS 1.2, a HelloRetryRequest (settles nothing), other records, and
the TCP payload of an IPv4 and an IPv6 frame. Hand-built packets; nothing is captured."""

import struct

from gridftp_harness import run_tests
from gridbench.tlsprobe import HELLO_RETRY_RANDOM, parse_server_hello, tcp_payload


def server_hello(suite: int, random: bytes = b"\x11" * 32, supported: int | None = None,
                 legacy: int = 0x0303) -> bytes:
    extensions = b""
    if supported is not None:
        extensions += struct.pack(">HHH", 0x002B, 2, supported)
    extensions = struct.pack(">HHH", 0x0033, 2, 0x001D) + extensions   # key_share stub first
    body = (struct.pack(">H", legacy) + random + bytes([32]) + b"\x22" * 32
            + struct.pack(">HB", suite, 0) + struct.pack(">H", len(extensions)) + extensions)
    handshake = bytes([0x02]) + len(body).to_bytes(3, "big") + body
    return bytes([0x16, 0x03, 0x03]) + struct.pack(">H", len(handshake)) + handshake


def test_tls13_server_hello():
    hello = server_hello(0x1302, supported=0x0304)
    assert parse_server_hello(hello) == ("TLSv1.3", "TLS_AES_256_GCM_SHA384")
    # the ChangeCipherSpec and encrypted records that follow in the segment do not matter
    assert parse_server_hello(hello + b"\x14\x03\x03\x00\x01\x01") == ("TLSv1.3",
                                                                      "TLS_AES_256_GCM_SHA384")


def test_tls12_server_hello_and_unknown_suite():
    assert parse_server_hello(server_hello(0xC010)) == ("TLSv1.2", "ECDHE-RSA-NULL-SHA")
    assert parse_server_hello(server_hello(0x1234)) == ("TLSv1.2", "0x1234")


def test_not_a_server_hello():
    assert parse_server_hello(server_hello(0x1301, random=HELLO_RETRY_RANDOM,
                                           supported=0x0304)) is None
    client_hello = bytearray(server_hello(0x1301))
    client_hello[5] = 0x01
    assert parse_server_hello(bytes(client_hello)) is None
    assert parse_server_hello(b"\x17\x03\x03\x00\x10" + b"\x00" * 16) is None   # app data
    assert parse_server_hello(b"\x00" * 64) is None    # a MODE E header and zeros
    assert parse_server_hello(server_hello(0x1301)[:30]) is None


def tcp_segment(source: int, dest: int, payload: bytes) -> bytes:
    return struct.pack(">HHIIBBHHH", source, dest, 1, 0, 5 << 4, 0x18, 65535, 0, 0) + payload


def test_tcp_payload_of_ipv4_and_ipv6_frames():
    segment = tcp_segment(40000, 27001, b"hello")
    ipv4 = (b"\x00" * 12 + b"\x08\x00" + bytes([0x45, 0]) + struct.pack(">H", 20 + len(segment))
            + b"\x00" * 5 + bytes([6]) + b"\x00" * 10 + segment)
    assert tcp_payload(ipv4) == (40000, 27001, b"hello")
    ipv6 = (b"\x00" * 12 + b"\x86\xdd" + b"\x60\x00\x00\x00" + struct.pack(">H", len(segment))
            + bytes([6, 64]) + b"\x00" * 32 + segment)
    assert tcp_payload(ipv6) == (40000, 27001, b"hello")
    udp = bytearray(ipv4)
    udp[23] = 17
    assert tcp_payload(bytes(udp)) is None
    assert tcp_payload(b"\x00" * 10) is None


if __name__ == "__main__":
    run_tests(globals())
