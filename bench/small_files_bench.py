#!/usr/bin/env python3
"""Many small files over gsiftp: gridftpd against globus-gridftp-server, the same client.

    bench/small_files_bench.py [--files 2000] [--file-size 100000] [--cc 4] [--repeat 3]
                               [--with-gridcp]

Both servers run with the throwaway PKI of the GSI tests (tests/support/test_pki.py) and serve
the real "/" (gridftpd with [gsi] root = ""), so one tree in /dev/shm is the source for both.
Per run: `globus-url-copy -r -cc N -pp -cd gsiftp://localhost:S/<tree>/ file:///<out>/` at
DCAU's default (DCAU A, PROT C: every data connection is a GSI-authenticated TLS handshake),
the file count checked after; --repeat runs alternating which server goes first, median.

--with-gridcp adds our own pair: `gridcp -r -cc N -pp -cd` against gridftpd, which fetches the
tree in one batch transfer (docs/WIRE.md §7), compared with globus-url-copy against
globus-gridftp-server (issue 16's end-to-end small-files figure: --files 5000 --file-size 4096
--cc 8). Its client is another program, so the client-CPU bound is not printed for that ratio.

Printed per server: files/s, the median run's wall seconds, the CPU seconds of the client
(globus-url-copy and its children) and of the server (its process tree, session processes
included), and how busy the machine was. Then gridftpd / globus, and the bound the client puts
on that ratio on this machine: the Globus run's time over the shortest time the gridftpd run
could take if gridftpd cost nothing, max(client CPU / cores, client CPU / client threads used)
— the client is the same program doing the same work against both servers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
sys.path.insert(0, HERE)

import gridftp_harness as h  # noqa: E402
from gsi_bench import _tree_ticks  # noqa: E402
from host_cpu import TICK_SECONDS, children_cpu_seconds, machine_ticks  # noqa: E402
from mode_e_bench import make_tree  # noqa: E402

def one_run(label: str, url: str, out: str, files: int, cc: int, env: dict,
            server_pid: int) -> dict:
    client = h.gridcp_binary() if label == "gridcp" else "globus-url-copy"
    argv = [client, "-r", "-cc", str(cc), "-pp", "-cd", url, f"file://{out}/"]
    machine_before = machine_ticks()
    server_before = _tree_ticks(server_pid)
    client_before = children_cpu_seconds()
    started = time.monotonic()
    h.run_peer(argv, timeout=1800, env=env, what=f"{label} small files")
    elapsed = time.monotonic() - started
    client = children_cpu_seconds() - client_before
    server = (_tree_ticks(server_pid) - server_before) * TICK_SECONDS
    total, busy = machine_ticks()
    got = sum(len(names) for _, _, names in os.walk(out))
    if got != files:
        raise SystemExit(f"{label}: copied {got} files, expected {files}")
    shutil.rmtree(out)
    return {"seconds": elapsed, "client_cpu": client, "server_cpu": server,
            "busy": (busy - machine_before[1]) / max(1, total - machine_before[0])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--file-size", type=int, default=100_000)
    parser.add_argument("--cc", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--with-gridcp", action="store_true",
                        help="also run gridcp (batch mode) against gridftpd")
    parser.add_argument("--delegation-key", choices=["ec-p256", "rsa"], default="ec-p256",
                        help="gridftpd's [gsi] delegation_key (the key its DCAU handshakes sign "
                        "with)")
    args = parser.parse_args()
    for tool in ("globus-url-copy", "globus-gridftp-server", "grid-proxy-init", "openssl"):
        h.require_tool(tool)
    os.environ.setdefault("GRIDFTPD", os.path.join(ROOT, "build", "release", "gridftpd"))
    os.environ.setdefault("GRIDCP", os.path.join(ROOT, "build", "release", "gridcp"))
    cores = os.cpu_count() or 1
    pki = h.shared_test_pki()
    env = pki.client_env("test")
    work = tempfile.mkdtemp(prefix="small-files-", dir="/dev/shm")
    servers = {}
    try:
        tree = make_tree(work, args.files, args.file_size)
        servers["gridftpd"] = h.start_gridftpd(
            gsi=pki, gsi_settings={"root": "", "delegation_key": args.delegation_key})
        servers["globus"] = h.start_globus_server(gsi=pki)
        if args.with_gridcp:
            servers["gridcp"] = servers["gridftpd"]
        print(f"{args.files} x {args.file_size} B files, globus-url-copy -r -cc {args.cc} -pp "
              f"over gsiftp at DCAU's default -> /dev/shm; median of {args.repeat}; "
              f"cores: {cores}; gridftpd delegation_key = {args.delegation_key}")
        runs: dict[str, list[dict]] = {label: [] for label in servers}
        for i in range(args.repeat):
            order = list(servers) if i % 2 == 0 else list(reversed(servers))
            for label in order:
                server = servers[label]
                url = f"gsiftp://localhost:{server.port}{tree}/"
                runs[label].append(one_run(label, url, os.path.join(work, f"out-{label}"),
                                           args.files, args.cc, env, server.proc.pid))
        print(f"{'client+server':<13} {'files/s':>9} {'wall s':>7} {'client cpu s':>12} "
              f"{'server cpu s':>12} {'busy':>5}")
        median = {}
        for label, got in runs.items():
            best = sorted(got, key=lambda r: r["seconds"])[len(got) // 2]
            median[label] = best
            name = {"gridftpd": "guc+gridftpd", "globus": "guc+globus",
                    "gridcp": "gridcp+gridftpd"}[label]
            print(f"{name:<13} {args.files / best['seconds']:>9.0f} {best['seconds']:>7.2f} "
                  f"{best['client_cpu']:>12.2f} {best['server_cpu']:>12.2f} "
                  f"{best['busy'] * 100:>4.0f}%")
        ours, theirs = median["gridftpd"], median["globus"]
        ratio = theirs["seconds"] / ours["seconds"]
        # If gridftpd cost nothing the run would still need the client's CPU time, spread over
        # at most the machine's cores.
        floor = ours["client_cpu"] / cores
        bound = theirs["seconds"] / floor if floor > 0 else float("inf")
        spread = statistics.pstdev([args.files / r["seconds"] for r in runs["gridftpd"]])
        print(f"gridftpd / globus: {ratio:.2f} (target >= 2.0); bound from the client's CPU on "
              f"{cores} cores: {bound:.2f}; gridftpd files/s spread (pstdev) {spread:.0f}")
        if args.with_gridcp:
            batch = median["gridcp"]
            print(f"gridcp+gridftpd / guc+globus: {theirs['seconds'] / batch['seconds']:.2f} "
                  f"(issue 16 target >= 5.0 at 5000 x 4 KiB, -cc 8); gridcp's own CPU "
                  f"{batch['client_cpu']:.2f} s against globus-url-copy's "
                  f"{theirs['client_cpu']:.2f} s")
        return 0
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
