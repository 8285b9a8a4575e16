"""The TLS version and cipher globus-gridftp-server's data channels negotiate, which its logs
never name: read off the wire. A ServerHello travels in clear even under TLS 1.3, and GSI data
channels start with a plain TLS handshake on the TCP connection, so a packet socket on the
loopback device sees it. The probe runs one short untimed transfer per level on a server of
its own, started with a passive port range nothing else uses, and keeps only handshakes on
those ports.
"""

from __future__ import annotations

import collections
import socket
import struct
import threading

# IANA cipher-suite numbers, named as OpenSSL names them (TLS 1.3 names, then the TLS 1.2
# suites Globus's cipher lists can end on).
SUITES = {
    0x1301: "TLS_AES_128_GCM_SHA256", 0x1302: "TLS_AES_256_GCM_SHA384",
    0x1303: "TLS_CHACHA20_POLY1305_SHA256",
    0xC02F: "ECDHE-RSA-AES128-GCM-SHA256", 0xC030: "ECDHE-RSA-AES256-GCM-SHA384",
    0x009E: "DHE-RSA-AES128-GCM-SHA256", 0x009F: "DHE-RSA-AES256-GCM-SHA384",
    0xCCA8: "ECDHE-RSA-CHACHA20-POLY1305", 0x009C: "AES128-GCM-SHA256",
    0x009D: "AES256-GCM-SHA384", 0x0002: "NULL-SHA", 0x003B: "NULL-SHA256",
    0xC010: "ECDHE-RSA-NULL-SHA", 0xC006: "ECDHE-ECDSA-NULL-SHA",
}
VERSIONS = {0x0301: "TLSv1", 0x0302: "TLSv1.1", 0x0303: "TLSv1.2", 0x0304: "TLSv1.3"}
# TLS 1.3's HelloRetryRequest is a ServerHello with this random; it settles nothing.
HELLO_RETRY_RANDOM = bytes.fromhex(
    "cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c")
ETH_P_ALL = 0x0003


def parse_server_hello(payload: bytes) -> tuple[str, str] | None:
    """(version, cipher) of a TCP payload that starts with a TLS ServerHello record."""
    if len(payload) < 5 + 4 + 2 + 32 + 1 or payload[0] != 0x16 or payload[1] != 0x03:
        return None
    body = payload[5:5 + struct.unpack(">H", payload[3:5])[0]]
    if len(body) < 4 + 2 + 32 + 1 or body[0] != 0x02:
        return None
    legacy_version = struct.unpack(">H", body[4:6])[0]
    if body[6:38] == HELLO_RETRY_RANDOM:
        return None
    at = 38
    at += 1 + body[at]                              # session id
    if len(body) < at + 3:
        return None
    suite = struct.unpack(">H", body[at:at + 2])[0]
    at += 3                                         # suite, compression method
    version = legacy_version
    if len(body) >= at + 2:
        end = min(len(body), at + 2 + struct.unpack(">H", body[at:at + 2])[0])
        at += 2
        while at + 4 <= end:
            kind, size = struct.unpack(">HH", body[at:at + 4])
            if kind == 0x002B and size == 2:        # supported_versions: the real version
                version = struct.unpack(">H", body[at + 4:at + 6])[0]
            at += 4 + size
    return (VERSIONS.get(version, f"0x{version:04x}"), SUITES.get(suite, f"0x{suite:04x}"))


def tcp_payload(frame: bytes) -> tuple[int, int, bytes] | None:
    """(source port, destination port, payload) of an Ethernet-framed TCP packet (the
    loopback device frames as Ethernet with zero addresses)."""
    if len(frame) < 14:
        return None
    ethertype = struct.unpack(">H", frame[12:14])[0]
    if ethertype == 0x0800 and len(frame) >= 34:
        if frame[23] != 6:
            return None
        tcp = 14 + (frame[14] & 0x0F) * 4
    elif ethertype == 0x86DD and len(frame) >= 54:
        if frame[20] != 6:
            return None
        tcp = 54
    else:
        return None
    if len(frame) < tcp + 20:
        return None
    source, dest = struct.unpack(">HH", frame[tcp:tcp + 4])
    return source, dest, frame[tcp + (frame[tcp + 12] >> 4) * 4:]


class ServerHelloCapture:
    """While the with-block runs, counts the ServerHellos on the loopback device whose TCP
    connection has one end in `ports`."""

    def __init__(self, ports: range):
        self.ports = ports
        self.seen: collections.Counter = collections.Counter()

    def __enter__(self) -> "ServerHelloCapture":
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self.sock.bind(("lo", 0))
        self.sock.settimeout(0.1)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        return self

    def _read(self) -> None:
        while not self.stopping.is_set():
            try:
                frame = self.sock.recv(2048)   # a ServerHello sits in the segment's first bytes
            except socket.timeout:
                continue
            except OSError:
                return
            packet = tcp_payload(frame)
            if packet and (packet[0] in self.ports or packet[1] in self.ports):
                hello = parse_server_hello(packet[2])
                if hello:
                    self.seen[hello] += 1

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self.thread.join(5)
        self.sock.close()

    def summary(self) -> str:
        """"TLSv1.3 TLS_AES_256_GCM_SHA384" (the most seen), "" if none was seen."""
        if not self.seen:
            return ""
        version, cipher = self.seen.most_common(1)[0][0]
        return f"{version} {cipher}"
