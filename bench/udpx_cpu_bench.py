#!/usr/bin/env python3
"""CPU per byte of a UDPX transfer against a clear TCP one on loopback (issue 34, acceptance 4).

    bench/udpx_cpu_bench.py [--size-mib 1024] [--reps 3] [--disk DIR]

A GSI gridftpd on loopback serves a file of random bytes; gridcp gets it, rate uncapped:
  * "UDPX": `gridcp -udp --rate 100G` (DCAU A, PROT C: DATA authenticated, not encrypted);
  * "UDPX P": the same with -dcpriv (DATA encrypted);
  * "TCP": `gridcp -p 1 -nodcau` (MODE E, one clear stream), the acceptance's reference.
Each row is the median of --reps runs. CPU is the whole machine's busy time over the command
(/proc/stat: both programs and the kernel's softirq work, which on loopback runs the receiving
side of TCP and UDP on whatever CPU sends and is in no process's own time), in seconds per GB
of the file; beside it gridcp's and gridftpd's own shares. Rows: /dev/shm to /dev/null, and
with --disk a file in DIR to a file in DIR, page cache warm and dropped before each run
(echo 1 > /proc/sys/vm/drop_caches; needs root). The ratio column is UDPX's CPU per GB over
TCP's in the same row.

The floor beside each UDPX row: UDPX authenticates every DATA byte at both ends whatever PROT
says (docs/UDPX.md §4.3), and moves the same bytes through the same kernel as TCP does. So no
UDPX transfer can cost less than TCP's CPU per GB in that row plus sealing and opening every
packet, which `udpx_pipe protection-cost` measures alone once per round of runs (1404-byte
bodies, GMAC for PROT C, AES-GCM for PROT P; median like the rest). "floor/TCP" is the least
ratio any UDPX could print there, given that its kernel work costs at least what TCP's does
(TCP sends with sendfile, with no copy at the server). Binaries from $GRIDFTPD, $GRIDCP and
$UDPX_PIPE or build/release.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
sys.path.insert(0, HERE)

from gridftp_harness import make_tree_readable, shared_test_pki, start_gridftpd  # noqa: E402
from host_cpu import TICK_SECONDS, children_cpu_seconds, machine_ticks  # noqa: E402
from udpx_command_bench import process_tree_cpu  # noqa: E402
from udpx_wan_bench import binary  # noqa: E402

KINDS = {"UDPX": ["-udp", "--rate", "100G"], "UDPX P": ["-udp", "--rate", "100G", "-dcpriv"],
         "TCP": ["-p", "1", "-nodcau"]}


# Which protection each UDPX kind's DATA gets, as `udpx_pipe protection-cost` names it.
PROTECTION = {"UDPX": "authenticate", "UDPX P": "encrypt"}


def protection_cost(pipe: str, size_mib: int) -> dict:
    """Seal and open CPU s/GB of file data, measured alone in this sitting."""
    out = subprocess.run([pipe, "protection-cost", "--mib", str(size_mib)], capture_output=True,
                         text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"udpx_pipe protection-cost failed: {out.stderr.strip()[-400:]}")
    return json.loads(out.stdout)


def drop_caches() -> None:
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("1\n")


def one_run(gridcp: str, options: list[str], url: str, sink: str, server_pid: int,
            source: str, dropped: bool) -> dict:
    if dropped:
        drop_caches()
    env = dict(os.environ, **shared_test_pki().client_env("test"))
    client_before = children_cpu_seconds()
    server_before = process_tree_cpu(server_pid)
    busy_before = machine_ticks()[1]
    start = time.monotonic()
    out = subprocess.run([gridcp, *options, url, f"file://{sink}"], capture_output=True,
                         text=True, env=env, timeout=600)
    seconds = time.monotonic() - start
    time.sleep(0.5)  # the session process's CPU reaches the daemon once QUIT is handled
    busy = (machine_ticks()[1] - busy_before) * TICK_SECONDS
    if out.returncode != 0:
        raise SystemExit(f"gridcp {' '.join(options)} failed: {out.stderr.strip()[-400:]}")
    if sink != "/dev/null":
        same = subprocess.run(["cmp", "-s", source, sink]).returncode == 0
        os.unlink(sink)
        if not same:
            raise SystemExit(f"gridcp {' '.join(options)}: the copy differs")
    return {"seconds": seconds, "busy": busy,
            "client": children_cpu_seconds() - client_before,
            "server": process_tree_cpu(server_pid) - server_before}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--disk", help="a directory on disk for the file rows")
    args = parser.parse_args()
    os.environ["GRIDFTPD"] = os.path.abspath(binary("GRIDFTPD", "gridftpd"))
    gridcp = os.path.abspath(binary("GRIDCP", "gridcp"))
    pipe = os.path.abspath(binary("UDPX_PIPE", "udpx_pipe"))
    size = args.size_mib << 20
    gb = size / 1e9
    shared_test_pki()
    base = tempfile.mkdtemp(prefix="udpx-cpu-", dir="/dev/shm")
    os.chmod(base, 0o755)  # the GSI server runs the session as the mapped account
    rows = [("memory", os.path.join(base, "root"), "/dev/null", False)]
    disk_base = None
    if args.disk:
        disk_base = tempfile.mkdtemp(prefix="udpx-cpu-", dir=args.disk)
        os.chmod(disk_base, 0o755)
        rows += [("disk warm", os.path.join(disk_base, "root"), os.path.join(disk_base, "out"),
                  False),
                 ("disk dropped", os.path.join(disk_base, "root"),
                  os.path.join(disk_base, "out"), True)]
    print(f"gridcp gets of {args.size_mib} MiB on loopback, rate uncapped, median of {args.reps}; "
          f"cores: {os.cpu_count()}. CPU: machine busy s/GB (gridcp + gridftpd own)")
    print(f"{'row':>12} {'kind':>6} {'s':>6} {'Gb/s':>6} {'cpu/GB':>7} {'gridcp+gridftpd':>16} "
          f"{'/TCP':>5} {'floor':>6} {'floor/TCP':>9}")
    try:
        for row, root, sink_dir, dropped in rows:
            data = os.path.join(root, "data")
            os.makedirs(data, exist_ok=True)
            source = os.path.join(data, "bench.bin")
            if not os.path.exists(source):
                with open(source, "wb") as out:
                    for offset in range(0, size, 1 << 24):
                        out.write(os.urandom(min(1 << 24, size - offset)))
                make_tree_readable(data)
            if sink_dir != "/dev/null":
                os.makedirs(sink_dir, exist_ok=True)
            server = start_gridftpd(root, gsi=shared_test_pki())
            try:
                url = server.gsiftp_url("data/bench.bin")
                results: dict[str, list[dict]] = {kind: [] for kind in KINDS}
                costs: list[dict] = []
                for _ in range(args.reps):
                    for kind, options in KINDS.items():
                        sink = sink_dir if sink_dir == "/dev/null" else \
                            os.path.join(sink_dir, "copy.bin")
                        results[kind].append(one_run(gridcp, options, url, sink,
                                                     server.proc.pid, source, dropped))
                    costs.append(protection_cost(pipe, args.size_mib))
            finally:
                server.stop()
            tcp_cpu = statistics.median(r["busy"] for r in results["TCP"]) / gb
            for kind, runs in results.items():
                seconds = statistics.median(r["seconds"] for r in runs)
                cpu = statistics.median(r["busy"] for r in runs) / gb
                own = (f"{statistics.median(r['client'] for r in runs) / gb:.2f}+"
                       f"{statistics.median(r['server'] for r in runs) / gb:.2f}")
                floor = ""
                if kind in PROTECTION:
                    least = tcp_cpu + statistics.median(
                        c[PROTECTION[kind]]["seal"] + c[PROTECTION[kind]]["open"] for c in costs)
                    floor = f" {least:6.2f} {least / tcp_cpu:9.2f}"
                print(f"{row:>12} {kind:>6} {seconds:6.2f} {size * 8 / seconds / 1e9:6.2f} "
                      f"{cpu:7.2f} {own:>16} {cpu / tcp_cpu:5.2f}{floor}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        if disk_base:
            shutil.rmtree(disk_base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
