#!/usr/bin/env python3
"""What a user's whole gridcp command gets over UDPX on a long, lossy path, against TCP
(issue 34's acceptance 1 and 2; docs/UDPX.md, docs/WANEM.md).

    bench/udpx_command_bench.py [--rate-mbit 300] [--rtt 100,300] [--loss 1,5] [--size-mib 512]
                                [--files 1] [--reps 1] [--no-tcp] [--fixed-runs 3]

For every RTT x loss cell, through the WAN emulator between two namespaces (one bottleneck of
--rate-mbit, a drop-tail queue of one bandwidth-delay product, random loss both ways), a GSI
gridftpd in namespace B serves a file of --size-mib random bytes from /dev/shm and gridcp in
namespace A gets it to /dev/shm, compared byte for byte after every copy:
  * "UDPX s": `gridcp -udp` (DCAU, PROT C), wall-clock seconds of the whole command: process
    start, TCP connect, GSI login with delegation, the transfer, QUIT;
  * "TCP p8 s": `gridcp -p 8` (MODE E over TCP with DCAU, the kernel's default congestion
    control, bbr on this machine), the same wall-clock measure.
With --files N (issue 34's acceptance 3: 100 files of 5 MiB), the server holds a directory of N
files of --size-mib each and both commands copy it with -r: `gridcp -r -udp` sends the tree as
one UDPX stream (docs/UDPX.md §1.9), `gridcp -r -p 8` as one TCP batch (-p does not apply to a
batch, docs/WIRE.md §7); every file is compared after each copy.
Printed: the payload ceiling (1 - loss) x rate x 1404/1480 (UDPX's block bytes per IP byte),
the file over the UDPX command's seconds as a share of it, the ratio of the two commands'
times (TCP s / UDPX s: above 1, UDPX was faster), UDPX's data-phase rate from gridcp --json,
and CPU seconds per GB of the file at each end (gridcp: its own rusage; gridftpd: the daemon's
process tree, whose session processes are counted through the fork server that reaps them).
The bound beside them is measured in the same cell: "fixed s" is the median of --fixed-runs
`gridcp -udp` commands for a file of one block (what every command pays whatever its size:
process start, connect, GSI login, UDPX handshake, the end and its replies, with the path's
delay and loss); a UDPX that ran at the ceiling for the whole file after that would take
file / ceiling + fixed seconds, so "best share" is the most of the ceiling any UDPX command can
reach on this path, and "best TCP/UDPX" the most it could be ahead of the TCP command.
gridcp remembers each server's UDPX rate (docs/UDPX.md §8) in a cache the harness makes empty
for each run: the first cell runs with no remembered rate, each later one with what the cell
before it recorded (all cells share one 300 Mb/s link rate).
Needs root and /dev/net/tun. Binaries from $WANEM, $GRIDFTPD and $GRIDCP or build/release.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
sys.path.insert(0, HERE)

from gridftp_harness import make_tree_readable, shared_test_pki, start_gridftpd  # noqa: E402
from host_cpu import children_cpu_seconds  # noqa: E402
from udpx_wan_bench import PAYLOAD_SHARE, binary, make_roots  # noqa: E402
from wanem import NS_B, Wanem, in_netns, require_root_and_tun  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_tree_cpu(pid: int) -> float:
    """User + system seconds of `pid`, of its reaped children and, recursively, of its live
    ones: gridftpd's session processes are children of its fork server, not of the daemon."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        children: list[int] = []
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as listed:
                children += [int(child) for child in listed.read().split()]
    except (FileNotFoundError, ProcessLookupError):
        return 0.0  # it ended between the listing and the read
    own = sum(int(fields[i]) for i in (11, 12, 13, 14)) / CLOCK_TICKS
    return own + sum(process_tree_cpu(child) for child in children)


def same_bytes(source: str, sink: str) -> bool:
    """A file, or every file of a directory, equal to its copy."""
    if not os.path.isdir(source):
        return subprocess.run(["cmp", "-s", source, sink]).returncode == 0
    names = sorted(os.listdir(source))
    return sorted(os.listdir(sink)) == names and all(
        same_bytes(os.path.join(source, n), os.path.join(sink, n)) for n in names)


def make_tree(directory: str, files: int, size: int) -> None:
    os.makedirs(directory)
    for i in range(files):
        with open(os.path.join(directory, f"f{i:04}.bin"), "wb") as out:
            out.write(os.urandom(size))


def whole_command(link: Wanem, gridcp: str, options: list[str], url: str, source: str,
                  server_pid: int, limit: float) -> dict:
    """One gridcp get timed from process start to exit; the bytes checked after."""
    tree = os.path.isdir(source)
    sink = "/dev/shm/udpx-command-bench.out"
    if tree:
        options = ["-r", *options]
        os.makedirs(sink)
    env = dict(os.environ, **shared_test_pki().client_env("test"))
    client_before = children_cpu_seconds()
    server_before = process_tree_cpu(server_pid)
    start = time.monotonic()
    try:
        out = link.run_in_a([gridcp, "--json", *options, url,
                             f"file://{sink}" + ("/" if tree else "")],
                            capture_output=True, text=True, timeout=limit, env=env)
        seconds = time.monotonic() - start
        # The session process ends when QUIT comes; its CPU reaches the daemon's children then.
        time.sleep(0.5)
        server_cpu = process_tree_cpu(server_pid) - server_before
        client_cpu = children_cpu_seconds() - client_before
        lines = out.stdout.splitlines()
        if out.returncode != 0 or not lines:
            return {"ok": False, "error": f"exit {out.returncode}: "
                                          f"{(out.stderr or out.stdout).strip()[-400:]}"}
        same = same_bytes(source, sink)
        return {"ok": same, "error": "" if same else "bytes differ", "seconds": seconds,
                "record": next((json.loads(line) for line in lines
                                if '"network":"udpx"' in line), {}),
                "client_cpu": client_cpu,
                "server_cpu": server_cpu}
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"still running after {limit:g} s"}
    finally:
        if tree:
            shutil.rmtree(sink, ignore_errors=True)
        for path in (sink, sink + ".gridcp-part"):
            if os.path.isfile(path):
                os.unlink(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate-mbit", type=float, default=300)
    parser.add_argument("--rtt", default="100,300", help="ms, comma-separated")
    parser.add_argument("--loss", default="1,5", help="percent, comma-separated")
    parser.add_argument("--size-mib", type=int, default=512)
    parser.add_argument("--files", type=int, default=1,
                        help="copy a directory of this many files of --size-mib each with -r")
    parser.add_argument("--reps", type=int, default=1, help="runs of each command per cell")
    parser.add_argument("--no-tcp", action="store_true", help="UDPX only")
    parser.add_argument("--fixed-runs", type=int, default=3,
                        help="one-block commands per cell for the fixed cost (0: none)")
    args = parser.parse_args()
    require_root_and_tun()
    os.environ.setdefault("WANEM", os.path.abspath(binary("WANEM", "wanem")))
    os.environ["GRIDFTPD"] = os.path.abspath(binary("GRIDFTPD", "gridftpd"))
    gridcp = os.path.abspath(binary("GRIDCP", "gridcp"))
    size = (args.size_mib << 20) * args.files
    gb = size / 1e9
    limit = max(120.0, 20 * size * 8 / (args.rate_mbit * 1e6))
    what = f"{args.size_mib} MiB" if args.files == 1 else \
        f"a directory of {args.files} x {args.size_mib} MiB (-r)"
    print(f"Whole gridcp gets of {what} through the WAN emulator: "
          f"{args.rate_mbit:g} Mb/s bottleneck, queue one BDP, random loss both ways; "
          f"GSI gridftpd in the other namespace; median of {args.reps}; cores: {os.cpu_count()}")
    print(f"{'rtt ms':>6} {'loss %':>6} {'ceiling':>8} {'UDPX s':>7} {'UDPX/ceil':>9} "
          f"{'data Mb/s':>9} {'TCP p8 s':>8} {'TCP/UDPX':>8} {'UDPX cpu/GB c+s':>15} "
          f"{'TCP cpu/GB c+s':>14} {'fixed s':>7} {'best share':>10} {'best TCP/UDPX':>13}")
    shared_test_pki()
    base, roots, name = make_roots(size if args.files == 1 else 0, False)
    if args.files > 1:
        name = "tree"
        make_tree(os.path.join(roots["gridftpd"], "data", name), args.files, args.size_mib << 20)
        make_tree_readable(os.path.join(roots["gridftpd"], "data"))
    one_block = os.path.join(roots["gridftpd"], "data", "one-block.bin")
    with open(one_block, "wb") as out:
        out.write(os.urandom(1000))
    make_tree_readable(os.path.join(roots["gridftpd"], "data"))
    failed = False
    try:
        for rtt in [float(x) for x in args.rtt.split(",")]:
            for loss in [float(x) for x in args.loss.split(",")]:
                ceiling = args.rate_mbit * (1 - loss / 100) * PAYLOAD_SHARE
                runs: dict[str, list[dict]] = {"udpx": [], "tcp": [], "fixed": []}
                with Wanem(rtt_ms=rtt, loss_percent=loss, rate_mbit=args.rate_mbit,
                           seed=int(time.time())) as link:
                    server = start_gridftpd(roots["gridftpd"], gsi=shared_test_pki(),
                                            gsi_host=link.host_b, launcher=in_netns(NS_B, []),
                                            listen={"control_interface": "0.0.0.0", "port": 0})
                    try:
                        url = f"gsiftp://{link.host_b}:{server.port}/data/{name}" + \
                            ("/" if args.files > 1 else "")
                        source = server.fs(f"data/{name}")
                        for _ in range(args.reps):
                            runs["udpx"].append(whole_command(link, gridcp, ["-udp"], url,
                                                              source, server.proc.pid, limit))
                            if not args.no_tcp:
                                runs["tcp"].append(whole_command(
                                    link, gridcp, ["-p", "8"], url, source, server.proc.pid,
                                    limit))
                        tiny = f"gsiftp://{link.host_b}:{server.port}/data/one-block.bin"
                        for _ in range(args.fixed_runs):
                            runs["fixed"].append(whole_command(link, gridcp, ["-udp"], tiny,
                                                               one_block, server.proc.pid, 120))
                    finally:
                        server.stop()
                errors = [run["error"] for kind in runs.values() for run in kind
                          if not run["ok"]]
                if errors:
                    failed = True
                    print(f"{rtt:6g} {loss:6g}  FAILED: {'; '.join(errors)}", flush=True)
                    continue

                def median(kind: str, key: str) -> float:
                    return statistics.median(run[key] for run in runs[kind]) if runs[kind] \
                        else float("nan")

                def cpu(kind: str) -> str:
                    if not runs[kind]:
                        return "-"
                    return (f"{median(kind, 'client_cpu') / gb:.2f}+"
                            f"{median(kind, 'server_cpu') / gb:.2f}")

                udpx_s = median("udpx", "seconds")
                tcp_s = median("tcp", "seconds")
                fixed_s = median("fixed", "seconds")
                best_s = size * 8 / (ceiling * 1e6) + fixed_s
                data_rate = statistics.median(
                    run["record"].get("udpx_rate_bits_per_second", 0) for run in runs["udpx"])
                print(f"{rtt:6g} {loss:6g} {ceiling:8.1f} {udpx_s:7.2f} "
                      f"{size * 8 / udpx_s / 1e6 / ceiling:9.2f} {data_rate / 1e6:9.1f} "
                      f"{tcp_s:8.2f} {tcp_s / udpx_s:8.2f} {cpu('udpx'):>15} {cpu('tcp'):>14} "
                      f"{fixed_s:7.2f} {size * 8 / best_s / 1e6 / ceiling:10.2f} "
                      f"{tcp_s / best_s:13.2f}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
