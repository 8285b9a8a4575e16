#!/usr/bin/env python3
"""The data path's own ceiling on this machine: the same bytes over loopback TCP with no protocol.

A sender process reads a file with sendfile (from the page cache, or from the disk when the
cache was dropped) into N TCP connections, stream i carrying the i-th of N contiguous parts; a
receiver process takes them either into a 1 MiB buffer that it throws away (what a client that
writes to /dev/null must at least do) or with splice(2) through a pipe into a file on the same
disk at the part's offset (no copy through user space: less than any server that also has to
look at the bytes, for a checksum, can do). The time is from the first connection to the
receiver's last byte. No GridFTP server or client can move those bytes faster on the same cores,
so a row's ceiling / Globus is the most gridftpd can reach against Globus there
(bench/README.md, file_bench.py).

    python3 bench/data_path_ceiling.py FILE STREAMS [--to PATH]     # prints MB/s
"""

from __future__ import annotations

import argparse
import fcntl
import os
import socket
import subprocess
import sys
import threading
import time

SLICE = 1 << 20
F_SETPIPE_SZ = 1031


def parts(size: int, streams: int) -> list[tuple[int, int]]:
    return [(i * size // streams, (i + 1) * size // streams) for i in range(streams)]


def run_threads(targets: list) -> None:
    threads = [threading.Thread(target=t) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def receive(listener: socket.socket, streams: int, to: str | None) -> float:
    """Seconds from the first connection to the last byte (no interpreter start-up in it)."""
    out = os.open(to, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) if to else -1
    connections = [listener.accept()[0]]
    started = time.monotonic()
    connections += [listener.accept()[0] for _ in range(streams - 1)]
    # Stream i sends part i; the order of accepts is not the order of connects, so each
    # connection's first 8 bytes name its part.

    def one(conn: socket.socket) -> None:
        head = b""
        while len(head) < 8:
            head += conn.recv(8 - len(head))
        offset = int.from_bytes(head, "big")
        if out < 0:
            buf = bytearray(SLICE)
            while conn.recv_into(buf):
                pass
            return
        r, w = os.pipe()
        fcntl.fcntl(w, F_SETPIPE_SZ, SLICE)
        while n := os.splice(conn.fileno(), w, SLICE):
            while n:
                moved = os.splice(r, out, n, offset_dst=offset)
                offset += moved
                n -= moved
        os.close(r)
        os.close(w)
    run_threads([lambda c=c: one(c) for c in connections])
    seconds = time.monotonic() - started
    if out >= 0:
        os.close(out)
    return seconds


def send(path: str, port: int, streams: int) -> None:
    """Each connection first names the offset of its part (8 bytes, big-endian)."""
    fd = os.open(path, os.O_RDONLY)
    size = os.fstat(fd).st_size

    def one(begin: int, end: int) -> None:
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(begin.to_bytes(8, "big"))
            offset = begin
            while offset < end:
                offset += os.sendfile(s.fileno(), fd, offset, min(SLICE, end - offset))
    run_threads([lambda b=b, e=e: one(b, e) for b, e in parts(size, streams)])


def measure(path: str, streams: int, to: str | None) -> float:
    """Seconds to move `path` over `streams` connections (0 counts as 1) into `to` or nowhere."""
    streams = max(1, streams)
    receiver = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "--receive", path, str(streams)]
        + (["--to", to] if to else []), stdout=subprocess.PIPE, text=True)
    port = int(receiver.stdout.readline())
    subprocess.run([sys.executable, os.path.abspath(__file__), "--send", path, str(streams),
                    "--port", str(port)], check=True)
    seconds = float(receiver.stdout.readline())
    if receiver.wait(timeout=600) != 0:
        raise RuntimeError(f"data_path_ceiling receiver exited {receiver.returncode}")
    if to and os.path.getsize(to) != os.path.getsize(path):
        raise RuntimeError(f"data_path_ceiling: {to} has {os.path.getsize(to)} bytes")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("streams", type=int)
    parser.add_argument("--to", help="write here with splice (default: read and discard)")
    parser.add_argument("--send", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--receive", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.send:
        send(args.file, args.port, args.streams)
        return 0
    if args.receive:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        print(listener.getsockname()[1], flush=True)
        print(receive(listener, args.streams, args.to), flush=True)
        return 0
    seconds = measure(args.file, args.streams, args.to)
    print(f"{os.path.getsize(args.file) / seconds / 1e6:.0f} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
