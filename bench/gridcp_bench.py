#!/usr/bin/env python3
"""gridcp vs globus-url-copy: the same servers, the same run, ratios printed.

1. Memory-to-memory third-party, as the published GridFTP studies run it:
       CLIENT -p 4 -len SIZE ftp://S/dev/zero ftp://S/dev/null
   (ERET/ESTO; source and destination are the same server process). gridftpd is confined to its
   root, so its root is a tmpfs directory with its own dev/zero and dev/null device nodes.
2. A tree of small files in nested directories, third-party between two directories of one
   server: CLIENT -r -cc 8 -pp ftp://S/tree/ ftp://S/out-N/ ; files per second.
Both rows run against gridftpd and globus-gridftp-server, each client in turn.

    python3 bench/gridcp_bench.py                                 # 4 GB, 5,000 x 4 KiB
    python3 bench/gridcp_bench.py --size 512M --files 500 --repeat 1   # smoke run
Targets (issue 5): gridcp/globus-url-copy at least 1.0 on the memory row, 1.5 on the tree row.
"""

import argparse
import os
import shutil
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "support"))
sys.path.insert(0, HERE)

import gridftp_harness as h  # noqa: E402
from host_cpu import TICK_SECONDS, children_cpu_seconds, machine_ticks  # noqa: E402
from mode_e_bench import make_device_root  # noqa: E402
from stream_get_bench import parse_size  # noqa: E402


def timed(argv: list[str], timeout: float, what: str) -> float:
    started = time.monotonic()
    h.run_peer(argv, timeout=timeout, what=what)
    return time.monotonic() - started


def make_nested_tree(parent: str, files: int, size: int, per_dir: int = 100) -> str:
    """`files` files of `size` bytes, `per_dir` to a directory, directories two levels deep."""
    tree = os.path.join(parent, "tree")
    block = os.urandom(max(size, 1) + 251)
    for i in range(files):
        d = i // per_dir
        directory = os.path.join(tree, f"d{d // 10:02d}", f"e{d % 10:02d}")
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, f"f{i:05d}.bin"), "wb") as f:
            f.write(block[i % 251:i % 251 + size])
    for dirpath, _, names in os.walk(parent):
        os.chmod(dirpath, 0o755)
        for name in names:
            os.chmod(os.path.join(dirpath, name), 0o644)
    return tree


def count_files(root: str) -> int:
    return sum(len(names) for _, _, names in os.walk(root))


def memory_row(clients: dict, servers: dict, size: int, streams: int, repeat: int) -> None:
    timeout = max(600.0, size / (20 << 20))
    print(f"\nmemory-to-memory third-party, -p {streams}, {size / 1e9:.2f} GB "
          f"(/dev/zero -> /dev/null, ERET/ESTO), median of {repeat}")
    print(f"{'server':<10} {'gridcp GB/s':>12} {'guc GB/s':>10} {'gridcp/guc':>11}")
    for label, base in servers.items():
        rates = {}
        for _ in range(repeat):
            for name, client in clients.items():   # alternate, so drift hits both
                argv = [client, "-p", str(streams), "-len", str(size),
                        f"{base['url']}{base['dev']}/zero", f"{base['url']}{base['dev']}/null"]
                rates.setdefault(name, []).append(timed(argv, timeout, f"{name} -> {label}"))
        gridcp, guc = (size / statistics.median(rates[n]) for n in ("gridcp", "guc"))
        print(f"{label:<10} {gridcp / 1e9:>12.2f} {guc / 1e9:>10.2f} {gridcp / guc:>11.2f}",
              flush=True)


def machine_busy_seconds() -> float:
    """CPU-seconds all cores have spent busy since boot."""
    return machine_ticks()[1] * TICK_SECONDS


def tree_row(clients: dict, servers: dict, files: int, size: int, repeat: int,
             concurrency: int) -> None:
    """Files per second for each client, and what the clients' own CPU explains.

    Both servers and the client share this machine's cores. When a run keeps them all busy, its
    time is the CPU it needs, servers' and client's, over the cores; the servers' part is the same
    for both clients (they send the same commands), so a client can only win by what it spends
    itself. "ceiling" is guc's run time over that time less all of guc's own CPU: the ratio a
    client that needed no CPU at all would reach against these servers on this machine."""
    print(f"\n{files} x {size} B files in nested directories, third-party "
          f"-r -cc {concurrency} -pp within one server, median of {repeat}")
    print(f"{'server':<10} {'gridcp files/s':>15} {'guc files/s':>12} {'gridcp/guc':>11} "
          f"{'busy %':>7} {'client cpu s (gridcp/guc)':>26} {'ceiling':>8}")
    cores = os.cpu_count() or 1
    for label, base in servers.items():
        runs, busy, client_cpu = {}, {}, {}
        for round_ in range(repeat):
            for name, client in clients.items():
                out = f"out-{name}-{round_}"
                argv = [client, "-r", "-cc", str(concurrency), "-pp", "-cd",
                        f"{base['url']}{base['tree']}/", f"{base['url']}{base['out']}/{out}/"]
                machine0, client0 = machine_busy_seconds(), children_cpu_seconds()
                seconds = timed(argv, 1800, f"{name} tree -> {label}")
                busy.setdefault(name, []).append(
                    (machine_busy_seconds() - machine0) / (seconds * cores))
                client_cpu.setdefault(name, []).append(children_cpu_seconds() - client0)
                runs.setdefault(name, []).append(seconds)
                local = os.path.join(base["out_fs"], out)
                got = count_files(local)
                if got != files:
                    raise SystemExit(f"{name} -> {label}: copied {got} files, expected {files}")
                shutil.rmtree(local)
        gridcp, guc = (files / statistics.median(runs[n]) for n in ("gridcp", "guc"))
        guc_seconds = statistics.median(runs["guc"])
        guc_busy = statistics.median(busy["guc"])
        cpu = {n: statistics.median(client_cpu[n]) for n in clients}
        # Only a CPU-bound run is explained by CPU; otherwise no ceiling is claimed.
        bound = guc_seconds * cores * guc_busy
        ceiling = (f"{bound / (bound - cpu['guc']):.2f}" if guc_busy >= 0.9 and bound > cpu["guc"]
                   else "n/a")
        both = f"{cpu['gridcp']:.2f}/{cpu['guc']:.2f}"
        print(f"{label:<10} {gridcp:>15.0f} {guc:>12.0f} {gridcp / guc:>11.2f} "
              f"{100 * guc_busy:>7.0f} {both:>26} {ceiling:>8}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="4G", type=parse_size)
    parser.add_argument("--streams", type=int, default=4)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--file-size", default="4K", type=parse_size)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--skip-tree", action="store_true")
    parser.add_argument("--gridftpd", default=os.environ.get(
        "GRIDFTPD", os.path.join(HERE, "..", "build", "release", "gridftpd")))
    parser.add_argument("--gridcp", default=os.environ.get(
        "GRIDCP", os.path.join(HERE, "..", "build", "release", "gridcp")))
    args = parser.parse_args()
    os.environ["GRIDFTPD"] = os.path.abspath(args.gridftpd)
    clients = {"gridcp": os.path.abspath(args.gridcp),
               "guc": h.require_tool("globus-url-copy")}
    h.require_tool("globus-gridftp-server")
    root = make_device_root("gridcp-bench-")
    gridftpd = globus = None
    try:
        tree = None if args.skip_tree else make_nested_tree(root, args.files, args.file_size)
        os.makedirs(os.path.join(root, "incoming"))
        h.give_to_globus_user(os.path.join(root, "incoming"))
        gridftpd = h.start_gridftpd(root, anonymous={"enabled": True, "root": root,
                                                     "writable": ["dev", "incoming"]})
        globus = h.start_globus_server(os.path.join(h.make_temp_dir("bench-globus-"), "root"))
        servers = {
            "gridftpd": {"url": f"ftp://127.0.0.1:{gridftpd.port}", "dev": "/dev",
                         "tree": "/tree", "out": "/incoming"},
            "globus": {"url": f"ftp://127.0.0.1:{globus.port}", "dev": "/dev",
                       "tree": tree, "out": os.path.join(root, "incoming")},
        }
        for base in servers.values():
            base["out_fs"] = os.path.join(root, "incoming")
        print(f"gridcp: {clients['gridcp']}; gridftpd: {args.gridftpd}; "
              f"globus-gridftp-server port {globus.port}; tcp congestion control: "
              f"{open('/proc/sys/net/ipv4/tcp_congestion_control').read().strip()}")
        if not args.skip_memory:
            memory_row(clients, servers, args.size, args.streams, args.repeat)
        if tree:
            tree_row(clients, servers, args.files, args.file_size, args.repeat, args.concurrency)
        gridftpd.assert_alive("after the benchmark")
        return 0
    finally:
        for server in (gridftpd, globus):
            if server is not None:
                server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
