#!/usr/bin/env python3
"""Capture real MODE E data-channel traffic from globus-gridftp-server (standard library only).

Run as root on a machine with globus-gridftp-server installed:

    python3 tests/vectors/capture_globus_mode_e.py [--size N] [--out DIR]

It starts a private server on 127.0.0.1 (anonymous access mapped to the local user `gftest`,
created with `useradd -m gftest` if missing), serves one deterministic file
(byte i = (i * 7 + 3) % 251) from a 0755 temp dir, and runs two get sessions, each with a raw
control socket and a Python listener for the data connections (PORT, so the server is the
active MODE E sender, docs/WIRE.md §2.1):

  1. TYPE I, MODE E, OPTS RETR Parallelism=4,4,4;, PORT, RETR <path>
        -> globus_retr_p4_conn{N}.bin
  2. TYPE I, MODE E, OPTS RETR Parallelism=2,2,2;, PORT, ERET P 1000 600000 <path>
        -> globus_eret_p2_conn{N}.bin

N is the accept order (1-based). Each .bin file holds exactly the bytes read from that data
connection. The control transcript is printed (and written to --log FILE if given) so it can
be pasted into README.md. The server is stopped at the end.

A data connection is finished when the server closes it, or, since Globus leaves MODE E
connections idle at EOD for reuse (docs/WIRE.md §2.5), when the transfer's 226 has arrived, the
number of accepted connections equals the announced EOF count, and every connection's bytes
end on a block boundary after an EOD header. Then we close our side.
"""

import argparse
import os
import pwd
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
USER = "gftest"


def file_bytes(size):
    return bytes((i * 7 + 3) % 251 for i in range(size))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_blocks(buf):
    """Returns (headers, complete_prefix_len). headers: list of (desc, count, offset)."""
    headers = []
    pos = 0
    while pos + 17 <= len(buf):
        desc, count, offset = struct.unpack(">BQQ", buf[pos:pos + 17])
        payload = 0 if desc & 0x40 else count
        if pos + 17 + payload > len(buf):
            break
        headers.append((desc, count, offset))
        pos += 17 + payload
    return headers, pos


class Control:
    def __init__(self, port, log):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.f = self.sock.makefile("rb")
        self.log = log

    def reply(self):
        lines = []
        line = self.f.readline().decode("latin-1").rstrip("\r\n")
        lines.append(line)
        code = line[:3]
        if len(line) > 3 and line[3] == "-":
            while True:
                line = self.f.readline().decode("latin-1").rstrip("\r\n")
                if not line and self.f.closed:
                    break
                lines.append(line)
                if line.startswith(code + " "):
                    break
        text = "\n".join(lines)
        self.log.append("< " + text.replace("\n", "\n< "))
        print("< " + text.replace("\n", "\n< "), flush=True)
        return int(code), text

    def send(self, cmd):
        self.log.append("> " + cmd)
        print("> " + cmd, flush=True)
        self.sock.sendall(cmd.encode() + b"\r\n")

    def cmd(self, cmd, expect=None):
        self.send(cmd)
        code, text = self.reply()
        if expect is not None and code // 100 != expect:
            raise RuntimeError(f"{cmd!r} -> {text}")
        return code, text

    def close(self):
        try:
            self.cmd("QUIT")
        except Exception:
            pass
        self.sock.close()


class DataSink:
    """Listener owned by us; accepts and reads every data connection."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.conns = []  # dicts: sock, buf, peer_closed
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    def _accept(self):
        while not self.stop.is_set():
            try:
                s, _ = self.listener.accept()
            except socket.timeout:
                continue
            c = {"sock": s, "buf": bytearray(), "peer_closed": False}
            with self.lock:
                self.conns.append(c)
            t = threading.Thread(target=self._read, args=(c,), daemon=True)
            t.start()
            self.threads.append(t)

    def _read(self, c):
        s = c["sock"]
        s.settimeout(0.2)
        while True:
            try:
                data = s.recv(1 << 20)
            except socket.timeout:
                if self.stop.is_set():
                    return
                continue
            if not data:
                c["peer_closed"] = True
                return
            with self.lock:
                c["buf"] += data

    def snapshot(self):
        with self.lock:
            return [(bytes(c["buf"]), c["peer_closed"]) for c in self.conns]

    def done(self):
        snap = self.snapshot()
        if not snap:
            return False
        eof_count = None
        for buf, closed in snap:
            headers, used = parse_blocks(buf)
            if closed:
                continue
            if used != len(buf) or not headers or not headers[-1][0] & 0x08:
                return False
            for d, _, off in headers:
                if d & 0x40:
                    eof_count = off
        for buf, _ in snap:
            for d, _, off in parse_blocks(buf)[0]:
                if d & 0x40:
                    eof_count = off
        return eof_count is not None and len(snap) == eof_count

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join()
        with self.lock:
            for c in self.conns:
                c["sock"].close()
        self.listener.close()
        return [(bytes(c["buf"]), c["peer_closed"]) for c in self.conns]


def run_case(ctl_port, path, parallelism, transfer_cmd, prefix, out_dir, log):
    log.append(f"## session: {prefix}")
    ctl = Control(ctl_port, log)
    ctl.reply()  # 220 banner
    code, _ = ctl.cmd("USER anonymous")
    if code // 100 == 3:
        ctl.cmd("PASS capture@example.org", expect=2)
    ctl.cmd("TYPE I", expect=2)
    ctl.cmd("MODE E", expect=2)
    ctl.cmd(f"OPTS RETR Parallelism={parallelism},{parallelism},{parallelism};", expect=2)
    sink = DataSink()
    p = sink.port
    ctl.cmd(f"PORT 127,0,0,1,{p >> 8},{p & 255}", expect=2)
    ctl.send(transfer_cmd)
    final = None
    while True:
        code, text = ctl.reply()
        if code // 100 in (2, 4, 5):
            final = (code, text)
            break
    if final[0] != 226:
        sink.finish()
        ctl.close()
        raise RuntimeError(f"transfer failed: {final}")
    t0 = time.time()
    while not sink.done():
        if time.time() - t0 > 30:
            raise RuntimeError("data connections did not finish")
        time.sleep(0.1)
    # Give the server a moment to close on its own, so we can record who closes first.
    time.sleep(1.0)
    conns = sink.finish()
    ctl.close()
    for old in os.listdir(out_dir):
        if old.startswith(prefix + "_conn") and old.endswith(".bin"):
            os.remove(os.path.join(out_dir, old))
    for i, (buf, closed) in enumerate(conns, 1):
        name = f"{prefix}_conn{i}.bin"
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(buf)
        headers, used = parse_blocks(buf)
        desc = ", ".join(
            (f"{d:02x} {c} @{o}" if not d & 0x40 else f"{d:02x} cnt={c} off={o}")
            for d, c, o in headers)
        line = (f"{name}: {len(buf)} bytes, server closed first: {closed}, "
                f"parsed {used}/{len(buf)}: {desc}")
        log.append(line)
        print(line, flush=True)
    return conns


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=3_000_000)
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--log", help="also write the transcript (control replies) to this file")
    args = ap.parse_args()

    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "-m", USER], check=True)

    tmp = tempfile.mkdtemp(prefix="gftest-vec-")
    os.chmod(tmp, 0o755)
    path = os.path.join(tmp, "pattern.bin")
    with open(path, "wb") as f:
        f.write(file_bytes(args.size))
    os.chmod(path, 0o644)

    port = free_port()
    server_cmd = ["globus-gridftp-server", "-p", str(port), "-control-interface", "127.0.0.1",
                  "-aa", "-anonymous-user", USER, "-d", "error", "-disable-usage-stats"]
    env = dict(os.environ, GLOBUS_USAGE_OPTOUT="1")
    v = subprocess.run(["globus-gridftp-server", "-version"], capture_output=True, text=True)
    version = (v.stdout + v.stderr).strip() or "unknown"
    log = [f"# captured {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
           f"# server: {version}", "# " + " ".join(server_cmd),
           f"# file: {path}, {args.size} bytes, byte i = (i * 7 + 3) % 251"]
    print("\n".join(log), flush=True)
    server = subprocess.Popen(server_cmd, env=env)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        run_case(port, path, 4, f"RETR {path}", "globus_retr_p4", args.out, log)
        run_case(port, path, 2, f"ERET P 1000 600000 {path}", "globus_eret_p2", args.out, log)
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    if args.log:
        with open(args.log, "w") as f:
            f.write("\n".join(log) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
