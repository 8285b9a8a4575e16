#!/usr/bin/env python3
"""Stream-mode get: gridftpd vs globus-gridftp-server, same client, same run.

A sparse file in /dev/shm (memory-backed, reads as zeros) is served by both servers: gridftpd's
anonymous root is its directory, Globus gets its absolute path. The client is
`globus-url-copy ftp://127.0.0.1:PORT/... file:///dev/null` (no -p: stream mode), run against
each server in alternating order, --repeat times; the median wall time of each gives GB/s and
the ratio gridftpd/globus. The iperf3 single-stream loopback ceiling is measured in the same run.

    python3 bench/stream_get_bench.py                 # 4 GiB, 3 rounds
    python3 bench/stream_get_bench.py --size 256M --repeat 1   # smoke run
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "support"))

import gridftp_harness as h  # noqa: E402


def parse_size(text: str) -> int:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", text.upper())
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (e.g. 4G, 512M, 1000000)")
    return int(float(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30,
                                     "T": 1 << 40}[m.group(2)])


def timed_get(url: str, timeout: float) -> float:
    argv = ["globus-url-copy", url, "file:///dev/null"]
    started = time.monotonic()
    h.run_peer(argv, timeout=timeout, what="globus-url-copy get")
    return time.monotonic() - started


def verify_bytes(url: str, size: int, timeout: float) -> None:
    """One untimed get into a pipe, counting bytes: a server that sends nothing must not look
    infinitely fast."""
    argv = ["globus-url-copy", url, "file:///dev/stdout"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    count = 0
    deadline = time.monotonic() + timeout
    while True:
        chunk = proc.stdout.read(1 << 20)
        if not chunk:
            break
        count += len(chunk)
        if time.monotonic() > deadline:
            proc.kill()
            break
    err = proc.stderr.read().decode(errors="replace")
    rc = proc.wait()
    if rc != 0 or count != size:
        raise SystemExit(f"verification get failed: {' '.join(argv)} -> exit {rc}, {count} bytes "
                         f"(expected {size})\n{err}")


def iperf3_ceiling(seconds: int) -> float:
    """Single-stream loopback throughput in bytes/s, measured now."""
    port = h.free_port()
    server = subprocess.Popen(["iperf3", "-s", "-p", str(port), "-B", "127.0.0.1",
                               "--forceflush"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        for raw in iter(server.stdout.readline, b""):   # wait for its ready line, no sleep
            if b"Server listening" in raw:
                break
        else:
            raise SystemExit("iperf3 server exited before listening")
        result = h.run_peer(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", str(seconds),
                             "-P", "1", "-J"], timeout=seconds + 60, what="iperf3 client")
        data = json.loads(result.stdout)
        return data["end"]["sum_received"]["bits_per_second"] / 8
    finally:
        if server.poll() is None:
            server.kill()
        server.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="4G", type=parse_size,
                        help="file size, e.g. 4G, 512M (default 4G)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per server (default 3)")
    parser.add_argument("--gridftpd", default=os.environ.get(
        "GRIDFTPD", os.path.join(HERE, "..", "build", "release", "gridftpd")),
        help="gridftpd binary (default $GRIDFTPD or build/release/gridftpd)")
    parser.add_argument("--iperf-seconds", type=int, default=5)
    parser.add_argument("--no-verify", action="store_true",
                        help="skip the untimed byte-count check of each server")
    args = parser.parse_args()
    size = args.size
    os.environ["GRIDFTPD"] = os.path.abspath(args.gridftpd)
    for tool in ("globus-url-copy", "globus-gridftp-server", "iperf3"):
        h.require_tool(tool)

    shm = tempfile.mkdtemp(prefix="gridftpd-bench-", dir="/dev/shm")
    gridftpd = globus = None
    try:
        os.chmod(shm, 0o755)
        name = "stream.bin"
        path = os.path.join(shm, name)
        with open(path, "wb") as f:
            f.truncate(size)   # sparse: tmpfs serves zero pages, no memory used
        os.chmod(path, 0o644)
        # gridftpd's anonymous root is the shm dir (it gets an empty incoming/ there)
        gridftpd = h.start_gridftpd(shm)   # level info: the harness waits for "listening on"
        globus_root = os.path.join(h.make_temp_dir("bench-globus-"), "root")
        globus = h.start_globus_server(globus_root)
        urls = {"gridftpd": f"ftp://127.0.0.1:{gridftpd.port}/{name}",
                "globus": f"ftp://127.0.0.1:{globus.port}{path}"}
        timeout = max(600.0, size / (50 << 20))   # catches hangs only (>= 50 MB/s floor)
        if not args.no_verify:
            for label, url in urls.items():
                verify_bytes(url, size, timeout)
        ceiling = iperf3_ceiling(args.iperf_seconds)
        times: dict[str, list[float]] = {"gridftpd": [], "globus": []}
        for round_no in range(args.repeat):
            order = ["gridftpd", "globus"] if round_no % 2 == 0 else ["globus", "gridftpd"]
            for label in order:
                times[label].append(timed_get(urls[label], timeout))
        gridftpd.assert_alive("after the benchmark")
        rate = {label: size / statistics.median(t) for label, t in times.items()}
        ratio = rate["gridftpd"] / rate["globus"]
        print(f"stream-mode get, {size} bytes ({size / (1 << 30):.2f} GiB) sparse /dev/shm file "
              f"-> file:///dev/null, globus-url-copy, {args.repeat} rounds, median")
        print(f"{'server':<24}{'GB/s':>8}   runs (s)")
        for label, display in (("gridftpd", "gridftpd"), ("globus", "globus-gridftp-server")):
            runs = " ".join(f"{t:.2f}" for t in times[label])
            print(f"{display:<24}{rate[label] / 1e9:>8.2f}   {runs}")
        print(f"{'iperf3 1-stream ceiling':<24}{ceiling / 1e9:>8.2f}")
        print(f"ratio gridftpd/globus: {ratio:.2f}")
        print(f"gridftpd/iperf3: {rate['gridftpd'] / ceiling:.2f}   "
              f"globus/iperf3: {rate['globus'] / ceiling:.2f}")
        return 0
    finally:
        for server in (gridftpd, globus):
            if server is not None:
                server.stop()
        shutil.rmtree(shm, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
