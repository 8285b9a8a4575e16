#!/usr/bin/env python3
"""What a server's way of sending costs the client: globus-url-copy's CPU, context switches and
system calls under `perf stat` while it gets one warm file to /dev/null from each server.

Each gridftpd binary given (e.g. the build before and after a change) and globus-gridftp-server
serve the same directory; the servers take turns within each repetition and the medians are
printed. A server that hands the client its bytes in more, smaller pieces shows up here as
client wake-ups and reads, which the throughput tables only show as noise.

    python3 bench/client_cost.py --gridftpd A=/tmp/a/gridftpd --gridftpd B=build/release/gridftpd
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "support"))

import gridftp_harness as h  # noqa: E402
from stream_get_bench import parse_size  # noqa: E402

EVENTS = ("task-clock", "context-switches", "raw_syscalls:sys_enter")


def start_servers(root: str, binaries: list[tuple[str, str]]) -> dict:
    servers = {}
    for label, binary in binaries:
        os.environ["GRIDFTPD"] = os.path.abspath(binary)
        servers[label] = h.start_gridftpd(
            root, anonymous={"enabled": True, "root": root, "writable": [],
                             "account": h.GLOBUS_USER})
    servers["Globus"] = h.start_globus_server(root)
    return servers


def one_get(server, path: str, flags: list[str]) -> tuple[float, dict[str, float]]:
    with open(path, "rb") as f:  # warm: the file sits in the page cache
        while f.read(8 << 20):
            pass
    started = time.monotonic()
    done = subprocess.run(["perf", "stat", "-x,", "-e", ",".join(EVENTS), "globus-url-copy",
                           *flags, f"ftp://127.0.0.1:{server.port}{server.path('src')}",
                           "file:///dev/null"], capture_output=True, text=True, check=True)
    wall = time.monotonic() - started
    counts = {}
    for line in done.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 3 and fields[2] in EVENTS:
            counts[fields[2]] = float(fields[0])
    return wall, counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gridftpd", action="append", required=True, metavar="LABEL=BINARY")
    parser.add_argument("--size", default="1G")
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--streams", default="stream,1,4")
    args = parser.parse_args()
    binaries = [tuple(item.split("=", 1)) for item in args.gridftpd]
    root = tempfile.mkdtemp(dir="/var/tmp", prefix="client-cost-")
    os.chmod(root, 0o755)
    source = os.path.join(root, "src")
    subprocess.run(["dd", "if=/dev/urandom", f"of={source}", "bs=1M",
                    f"count={parse_size(args.size) >> 20}", "status=none"], check=True)
    os.chmod(source, 0o644)
    servers = start_servers(root, binaries)
    try:
        print("| guc | server | wall s | guc CPU ms | guc context switches | guc system calls |")
        print("|---|---|---|---|---|---|")
        for streams in args.streams.split(","):
            flags = [] if streams == "stream" else ["-p", streams]
            runs: dict[str, list] = {label: [] for label in servers}
            for _ in range(args.reps):
                for label, server in servers.items():
                    runs[label].append(one_get(server, source, flags))
            for label, measured in runs.items():
                wall = statistics.median(w for w, _ in measured)
                med = {e: statistics.median(c[e] for _, c in measured) for e in EVENTS}
                print(f"| {streams} | {label} | {wall:.3f} | {med['task-clock']:.0f} | "
                      f"{med['context-switches']:.0f} | {med['raw_syscalls:sys_enter']:.0f} |")
    finally:
        for server in servers.values():
            server.stop()
        subprocess.run(["rm", "-rf", root], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
