#!/usr/bin/env python3
"""MODE E benchmark: gridftpd vs globus-gridftp-server, same client, same run, ratios printed.

1. Memory-to-memory third-party transfers, as the published GridFTP studies run them:
       globus-url-copy -p N -len SIZE ftp://S/dev/zero ftp://S/dev/null
   (ERET P 0 SIZE on the source, ESTO A 0 on the destination; source and destination are the
   same server process), at -p 1, 4 and 8, against the iperf3
   loopback ceiling with the same stream count.
   gridftpd is confined to its root, so its root is a tmpfs directory holding its own
   /dev/zero and /dev/null device nodes (mknod c 1 5 / c 1 3); Globus uses the real ones.
2. Small files: 2,000 x 100 KiB, `globus-url-copy -r -cc 4 -pp` from each server into a local
   tmpfs directory; files per minute.

    python3 bench/mode_e_bench.py                         # 4 GiB per row, 2,000 files
    python3 bench/mode_e_bench.py --size 512M --files 200 # smoke run
Targets (issue): at least the Globus figure on every row; -p 4 within 10% of iperf3 -P 4.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "support"))
sys.path.insert(0, HERE)

import gridftp_harness as h  # noqa: E402
from stream_get_bench import parse_size  # noqa: E402


def iperf3_ceiling(streams: int, seconds: int) -> float:
    """Loopback throughput in bytes/s with `streams` parallel TCP streams, measured now."""
    port = h.free_port()
    server = subprocess.Popen(["iperf3", "-s", "-p", str(port), "-B", "127.0.0.1", "--forceflush"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        for raw in iter(server.stdout.readline, b""):
            if b"Server listening" in raw:
                break
        result = h.run_peer(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", str(seconds),
                             "-P", str(streams), "-J"], timeout=seconds + 60, what="iperf3 client")
        return json.loads(result.stdout)["end"]["sum_received"]["bits_per_second"] / 8
    finally:
        server.kill()
        server.wait()


def timed(argv: list[str], timeout: float, what: str) -> float:
    started = time.monotonic()
    h.run_peer(argv, timeout=timeout, what=what)
    return time.monotonic() - started


# A tmpfs root holding its own dev/zero and dev/null; shared with the tests.
make_device_root = h.make_device_root


def make_tree(parent: str, files: int, size: int) -> str:
    tree = os.path.join(parent, "tree")
    os.makedirs(tree)
    block = os.urandom(size)
    for i in range(files):
        with open(os.path.join(tree, f"f{i:05d}.bin"), "wb") as f:
            f.write(block[i % 251:] + block[:i % 251])
    for dirpath, _, names in os.walk(parent):
        os.chmod(dirpath, 0o755)
        for name in names:
            os.chmod(os.path.join(dirpath, name), 0o644)
    return tree


def memory_rows(servers: dict, size: int, streams: list[int], repeat: int, iperf_seconds: int) -> None:
    timeout = max(600.0, size / (20 << 20))
    print(f"\nmemory-to-memory third-party, {size / 1e9:.2f} GB per transfer "
          f"(/dev/zero -> /dev/null, ERET/ESTO), median of {repeat}")
    print(f"{'-p':>3} {'gridftpd GB/s':>14} {'globus GB/s':>12} {'iperf3 GB/s':>12} "
          f"{'gridftpd/globus':>16} {'gridftpd/iperf3':>16}")
    for n in streams:
        rates = {}
        for label in ("gridftpd", "globus"):
            base = servers[label]
            argv = ["globus-url-copy", "-p", str(n), "-len", str(size),
                    f"{base}/dev/zero", f"{base}/dev/null"]
            runs = [timed(argv, timeout, f"{label} -p {n}") for _ in range(repeat)]
            rates[label] = size / statistics.median(runs)
        ceiling = iperf3_ceiling(n, iperf_seconds)
        print(f"{n:>3} {rates['gridftpd'] / 1e9:>14.2f} {rates['globus'] / 1e9:>12.2f} "
              f"{ceiling / 1e9:>12.2f} {rates['gridftpd'] / rates['globus']:>16.2f} "
              f"{rates['gridftpd'] / ceiling:>16.2f}", flush=True)


def small_file_rows(tree_urls: dict, work: str, files: int, file_size: int) -> None:
    print(f"\n{files} x {file_size // 1024} KiB files, globus-url-copy -r -cc 4 -pp -> local tmpfs")
    rates = {}
    for label, url in tree_urls.items():
        out = os.path.join(work, f"out-{label}")
        elapsed = timed(["globus-url-copy", "-r", "-cc", "4", "-pp", "-cd", url, f"file://{out}/"],
                        1800, f"{label} small files")
        got = sum(len(names) for _, _, names in os.walk(out))
        if got != files:
            raise SystemExit(f"{label}: copied {got} files, expected {files}")
        rates[label] = files / elapsed * 60
        shutil.rmtree(out)
        print(f"{label:<10} {rates[label]:>10.0f} files/min  ({elapsed:.1f} s)", flush=True)
    print(f"ratio gridftpd/globus: {rates['gridftpd'] / rates['globus']:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="4G", type=parse_size)
    parser.add_argument("--streams", default="1,4,8")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--file-size", default="100K", type=parse_size)
    parser.add_argument("--iperf-seconds", type=int, default=5)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--skip-small", action="store_true")
    parser.add_argument("--gridftpd", default=os.environ.get(
        "GRIDFTPD", os.path.join(HERE, "..", "build", "release", "gridftpd")))
    args = parser.parse_args()
    os.environ["GRIDFTPD"] = os.path.abspath(args.gridftpd)
    for tool in ("globus-url-copy", "globus-gridftp-server", "iperf3"):
        h.require_tool(tool)
    root = make_device_root()
    gridftpd = globus = None
    try:
        tree = make_tree(root, args.files, args.file_size) if not args.skip_small else None
        gridftpd = h.start_gridftpd(root, anonymous={"enabled": True, "root": root, "writable": ["dev", "incoming"]})
        globus = h.start_globus_server(os.path.join(h.make_temp_dir("bench-globus-"), "root"))
        servers = {"gridftpd": f"ftp://127.0.0.1:{gridftpd.port}", "globus": f"ftp://127.0.0.1:{globus.port}"}
        print(f"gridftpd: {args.gridftpd}; globus-gridftp-server {globus.port}; "
              f"tcp congestion control: {open('/proc/sys/net/ipv4/tcp_congestion_control').read().strip()}")
        if not args.skip_memory:
            memory_rows(servers, args.size, [int(n) for n in args.streams.split(",")], args.repeat,
                        args.iperf_seconds)
        if tree:
            small_file_rows({"gridftpd": f"{servers['gridftpd']}/tree/", "globus": f"{servers['globus']}{tree}/"},
                            root, args.files, args.file_size)
        gridftpd.assert_alive("after the benchmark")
        return 0
    finally:
        for server in (gridftpd, globus):
            if server is not None:
                server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
