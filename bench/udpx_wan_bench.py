#!/usr/bin/env python3
"""UDPX against TCP on emulated long, lossy paths (docs/UDPX.md, docs/WANEM.md).

    bench/udpx_wan_bench.py [--rate-mbit 100] [--rtt 10,100,300] [--loss 0,1,5] [--seconds 15]
                            [--with-gridftpd] [--with-globus] [--transfer-limit S]

For every RTT x loss cell, through the WAN emulator between two namespaces (one bottleneck of
--rate-mbit, a drop-tail queue of one bandwidth-delay product, random loss on both directions):
  * UDPX: bench/udpx/udpx_pipe sends a file sized for about --seconds at the link rate from
    /dev/shm in namespace A to /dev/shm in B (AES-GCM on every packet); goodput = bytes / the
    sender's time from its XFER (the handshake done) to the receiver's CLOSE; bytes compared
    after. "startup s" = when Startup ended, "tail s" = from the last new block to the CLOSE.
  * TCP: iperf3 for --seconds with bbr and with cubic (the congestion controls this kernel has);
    goodput = what iperf3's receiver counted. iperf3 moves memory without TLS, an upper bound
    for any TCP application on the path.
Printed per cell: the link's payload ceiling (1 - loss) x rate x 1404/1452 (UDPX's payload
share of a datagram, IP and UDP headers apart), each goodput, UDPX / ceiling, UDPX / best TCP,
UDPX's sending cost (retransmissions / data packets) and receiving cost (duplicates / data
packets), and the CPU seconds of the two UDPX processes and the emulator (2 cores here).

With --with-gridftpd, also through the same link in the same cell, a GSI gridftpd in namespace
B (host name wanem-b, a throwaway test PKI) serving a file of the same size from /dev/shm, and
gridcp in namespace A getting it to /dev/shm (compared with the source after every copy):
  * gridcp -udp (UDPX, PROT C, default rate policy): "gcUDPX" = gridcp --json's
    udpx_rate_bits_per_second (the data phase); "gcU file" = bytes / gridcp's seconds (the whole
    file, login included); "gc send" = udpx_sending_cost of the server's transfer log record
    (the server is the sender: resent payload / file bytes), "gc recv" = udpx_receiving_cost of
    gridcp's record (the receiver: duplicate DATA / DATA received; a sender's record always
    says 0 there);
  * gridcp -nodcau -p 1 and -p 8 (TCP, MODE E, no TLS on the data), once with every TCP
    connection between the namespaces on bbr and once on cubic (a congctl metric on the route
    to the other end in both namespaces, see set_congestion; the server in B is the sender):
    goodput = bytes / gridcp's seconds (whole file, login included), columns "p1 bbr",
    "p1 cubic", "p8 bbr", "p8 cubic";
  * "gcU/appTCP" = gcUDPX / the best of those TCP gets (and of the Globus ones below, if run),
    "gcU/iperf" = gcUDPX / the better iperf3 figure.
With --with-globus, the same file from the real globus-gridftp-server (GSI, wanem-b's host
credential) in namespace B, gridcp -nodcau -p 8 get under bbr and under cubic: "gl8 bbr",
"gl8 cubic", bytes / gridcp's seconds.
A get still running after --transfer-limit seconds (default 4 x --seconds + 60) is killed; its
figure is then the bytes that reached /dev/shm / the time, marked '*'. A get that fails or
arrives different prints FAIL and makes the exit status 1.
Needs root and /dev/net/tun. Binaries from $WANEM, $UDPX_PIPE, $GRIDFTPD and $GRIDCP or
build/release; globus-gridftp-server from PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))

from gridftp_harness import (make_tree_readable, shared_test_pki,  # noqa: E402
                             start_globus_server, start_gridftpd)
from host_cpu import children_cpu_seconds, machine_ticks  # noqa: E402
from wanem import (ADDR_A, ADDR_B, NS_A, NS_B, Wanem, in_netns,  # noqa: E402
                   require_root_and_tun)

PAYLOAD_SHARE = 1404 / (1452 + 28)  # UDPX block bytes per IP byte on the wire


def binary(env: str, name: str) -> str:
    path = os.environ.get(env) or os.path.join(ROOT, "build", "release", name)
    if not os.access(path, os.X_OK):
        sys.exit(f"{name} not found: build it (scripts/build.sh release {name}) or set ${env}")
    return path


def run_udpx(link: Wanem, pipe: str, size: int, rate_mbit: float) -> dict:
    key = secrets.token_hex(32)
    source, sink = "/dev/shm/udpx-bench.in", "/dev/shm/udpx-bench.out"
    with open(source, "wb") as out:
        out.write(os.urandom(size))
    cpu_before = children_cpu_seconds()
    total_before, busy_before = machine_ticks()
    receiver = link.popen_in_b([pipe, "receive", "--listen", f"{link.addr_b}:7000", "--file", sink,
                                "--key", key], stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    sent = link.run_in_a([pipe, "send", "--to", f"{link.addr_b}:7000", "--file", source, "--key",
                          key, "--rate-mbit", str(rate_mbit * 2)], capture_output=True, text=True,
                         timeout=900)
    received_out, _ = receiver.communicate(timeout=60)
    cpu = children_cpu_seconds() - cpu_before
    total_after, busy_after = machine_ticks()
    # Both cores' use during the transfer, the emulator's included: the bound at high rates.
    host_busy = (busy_after - busy_before) / max(1, total_after - total_before)
    same = subprocess.run(["cmp", "-s", source, sink]).returncode == 0
    os.unlink(source)
    os.unlink(sink)
    if sent.returncode != 0:
        return {"ok": False, "error": sent.stderr.strip() or sent.stdout.strip()}
    send = json.loads(sent.stdout)
    receive = json.loads(received_out)
    return {"ok": same and send["ok"] and receive["ok"], "same": same,
            "mbit": size * 8 / send["seconds"] / 1e6,
            "sending_cost": send["retransmissions"] / max(1, send["data_packets"]),
            "receiving_cost": receive["duplicates"] / max(1, receive["data_packets"]),
            "cpu": cpu, "host_busy": host_busy, "seconds": send["seconds"],
            # Where the time outside the steady data phase went: Startup (from the start of the
            # data phase) and the tail (from the last new block to the receiver's CLOSE).
            "startup_s": send["startup_ended"],
            "tail_s": send["seconds"] - send["last_new_block"] if send["last_new_block"] >= 0
            else float("nan")}


def run_tcp(link: Wanem, congestion: str, seconds: float) -> float:
    server = link.popen_in_b(["iperf3", "-s", "-1", "-B", link.addr_b],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    out = link.run_in_a(["iperf3", "-c", link.addr_b, "-t", str(seconds), "-C", congestion, "-J"],
                        capture_output=True, text=True, timeout=seconds + 120)
    server.wait(30)
    if out.returncode != 0:
        return 0.0
    return json.loads(out.stdout)["end"]["sum_received"]["bits_per_second"] / 1e6


def set_congestion(congestion: str) -> None:
    """The congestion control of every new TCP connection between the two namespaces: a
    congctl metric on the route to the other end, in both. (A namespace's own default,
    net.ipv4.tcp_congestion_control, only takes algorithms in the host's
    tcp_allowed_congestion_control, which need not hold cubic; a route metric takes any.)"""
    for netns, peer in ((NS_A, ADDR_B), (NS_B, ADDR_A)):
        route = subprocess.run(in_netns(netns, ["ip", "route", "show", peer]), check=True,
                               capture_output=True, text=True).stdout.split()
        if "congctl" in route:
            del route[route.index("congctl"):route.index("congctl") + 2]
        subprocess.run(in_netns(netns, ["ip", "route", "replace", *route, "congctl",
                                        congestion]), check=True)


def gridcp_get(link: Wanem, gridcp: str, options: list[str], url: str, source: str,
               limit: float) -> dict:
    """One gridcp get from namespace A to /dev/shm; goodput from gridcp --json's file record."""
    sink = "/dev/shm/udpx-bench-gridcp.out"
    staged = sink + ".gridcp-part"  # where gridcp writes until the file is whole
    env = dict(os.environ, **shared_test_pki().client_env("test"))
    start = time.monotonic()
    try:
        try:
            out = link.run_in_a([gridcp, "--json", *options, url, f"file://{sink}"],
                                capture_output=True, text=True, timeout=limit, env=env)
        except subprocess.TimeoutExpired:
            moved = sum(os.stat(path).st_blocks * 512 for path in (sink, staged)
                        if os.path.exists(path))
            return {"ok": True, "partial": True,
                    "mbit": moved * 8 / (time.monotonic() - start) / 1e6}
        lines = out.stdout.splitlines()
        if out.returncode != 0 or not lines:
            return {"ok": False, "error": f"exit {out.returncode}: "
                                          f"{(out.stderr or out.stdout).strip()[-500:]}"}
        record = json.loads(lines[0])
        same = subprocess.run(["cmp", "-s", source, sink]).returncode == 0
        return {"ok": same and record.get("result") == "copied", "partial": False,
                "error": "" if same else "bytes differ",
                "mbit": record["bytes"] * 8 / record["seconds"] / 1e6, "record": record}
    finally:
        for path in (sink, staged):
            if os.path.exists(path):
                os.unlink(path)


def run_gridftp(link: Wanem, gridcp: str, roots: dict[str, str], name: str,
                with_gridftpd: bool, with_globus: bool, limit: float) -> dict:
    """The gridcp gets of one cell, keyed by column; servers started in B and stopped here."""
    pki = shared_test_pki()
    results: dict[str, dict] = {}
    servers = []
    try:
        urls = {}
        if with_gridftpd:
            server = start_gridftpd(roots["gridftpd"], gsi=pki, gsi_host=link.host_b,
                                    launcher=in_netns(NS_B, []),
                                    listen={"control_interface": "0.0.0.0", "port": 0})
            servers.append(server)
            urls["gridftpd"] = f"gsiftp://{link.host_b}:{server.port}/data/{name}"
            got = gridcp_get(link, gridcp, ["-udp"], urls["gridftpd"],
                             server.fs(f"data/{name}"), limit)
            if got["ok"] and not got["partial"]:
                got["file_mbit"] = got["mbit"]
                rate = got["record"].get("udpx_rate_bits_per_second")
                if rate is None:
                    got.update(ok=False, error="gridcp -udp --json has no udpx figures")
                else:
                    got["mbit"] = rate / 1e6
                    got["receiving_cost"] = got["record"]["udpx_receiving_cost"]
                try:
                    log = server.wait_transfer_record(
                        lambda r: r.get("network") == "udpx" and r.get("command") == "RETR",
                        "the gridcp -udp get", timeout=10)
                    got["sending_cost"] = log["udpx_sending_cost"]
                except AssertionError as e:
                    got.update(ok=False, error=str(e).splitlines()[0])
            results["gcUDPX"] = got
        if with_globus:
            cert, key = pki.named_hosts[link.host_b]
            launcher = in_netns(NS_B, ["env", f"X509_USER_CERT={cert}", f"X509_USER_KEY={key}"])
            globus = start_globus_server(roots["globus"], host=link.addr_b, gsi=pki,
                                         launcher=launcher)
            servers.append(globus)
            urls["globus"] = f"gsiftp://{link.host_b}:{globus.port}{globus.path('data/' + name)}"
        for congestion in ("bbr", "cubic"):
            set_congestion(congestion)
            if with_gridftpd:
                for streams in (1, 8):
                    results[f"p{streams} {congestion}"] = gridcp_get(
                        link, gridcp, ["-nodcau", "-p", str(streams)], urls["gridftpd"],
                        os.path.join(roots["gridftpd"], "data", name), limit)
            if with_globus:
                results[f"gl8 {congestion}"] = gridcp_get(
                    link, gridcp, ["-nodcau", "-p", "8"], urls["globus"],
                    os.path.join(roots["globus"], "data", name), limit)
    finally:
        for server in servers:
            server.stop()
        if with_globus:
            stop_globus_sessions()
    return results


def stop_globus_sessions() -> None:
    """Globus forks a process per session that outlives its listener; a get cut at the limit
    leaves one behind in namespace B. Ends those (only globus-gridftp-server processes in B)."""
    pids = subprocess.run(["ip", "netns", "pids", NS_B], capture_output=True,
                          text=True).stdout.split()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            if os.path.basename(argv[0]) == b"globus-gridftp-server":
                os.kill(int(pid), 9)
        except (OSError, ValueError):
            pass


def cell(result: dict | None, width: int) -> str:
    if result is None or not result["ok"]:
        return f"{'FAIL':>{width}}"
    return (f"{result['mbit']:{width - 1}.1f}*" if result.get("partial")
            else f"{result['mbit']:{width}.1f}")


def make_roots(size: int, with_globus: bool) -> tuple[str, dict[str, str], str]:
    """Server roots in /dev/shm holding one random file of `size` bytes (hard-linked)."""
    base = tempfile.mkdtemp(prefix="udpx-bench-", dir="/dev/shm")
    roots = {"gridftpd": os.path.join(base, "gridftpd")}
    if with_globus:
        roots["globus"] = os.path.join(base, "globus")
    name = "bench.bin"
    first = None
    for root in roots.values():
        os.makedirs(os.path.join(root, "data"))
        path = os.path.join(root, "data", name)
        if first is None:
            with open(path, "wb") as out:
                for offset in range(0, size, 1 << 24):
                    out.write(os.urandom(min(1 << 24, size - offset)))
            first = path
        else:
            os.link(first, path)
        make_tree_readable(os.path.join(root, "data"))
    return base, roots, name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate-mbit", type=float, default=100)
    parser.add_argument("--rtt", default="10,100,300", help="ms, comma-separated")
    parser.add_argument("--loss", default="0,1,5", help="percent, comma-separated")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--with-gridftpd", action="store_true",
                        help="also gridcp -udp, -p 1 and -p 8 gets from a GSI gridftpd")
    parser.add_argument("--with-globus", action="store_true",
                        help="also gridcp -p 8 gets from a GSI globus-gridftp-server")
    parser.add_argument("--transfer-limit", type=float, default=None,
                        help="seconds before a gridcp get is cut (default 4 x --seconds + 60)")
    args = parser.parse_args()
    require_root_and_tun()
    pipe = binary("UDPX_PIPE", "udpx_pipe")
    binary("WANEM", "wanem")
    os.environ.setdefault("WANEM", os.path.join(ROOT, "build", "release", "wanem"))
    extra = args.with_gridftpd or args.with_globus
    gridcp = ""
    if extra:
        # absolute: the harness starts gridftpd in its own work directory
        os.environ["GRIDFTPD"] = os.path.abspath(binary("GRIDFTPD", "gridftpd"))
        gridcp = os.path.abspath(binary("GRIDCP", "gridcp"))
    if args.with_globus and not shutil.which("globus-gridftp-server") \
            and not os.access("/usr/sbin/globus-gridftp-server", os.X_OK):
        sys.exit("globus-gridftp-server not found (docs/PEERS.md)")
    limit = args.transfer_limit or 4 * args.seconds + 60
    rate = args.rate_mbit
    size = int(rate * 1e6 / 8 * args.seconds)
    columns = []  # (key, header, width)
    if args.with_gridftpd:
        columns += [("gcUDPX", "gcUDPX", 7), ("gcU file", "gcU file", 8),
                    ("gc send", "gc send", 8), ("gc recv", "gc recv", 8),
                    ("p1 bbr", "p1 bbr", 7), ("p1 cubic", "p1 cubic", 8),
                    ("p8 bbr", "p8 bbr", 7), ("p8 cubic", "p8 cubic", 8)]
    if args.with_globus:
        columns += [("gl8 bbr", "gl8 bbr", 7), ("gl8 cubic", "gl8 cubic", 9)]
    if args.with_gridftpd:
        columns += [("gcU/appTCP", "gcU/appTCP", 10), ("gcU/iperf", "gcU/iperf", 9)]
    print(f"UDPX vs TCP through the WAN emulator: {rate:g} Mb/s bottleneck, queue one BDP, "
          f"random loss both ways; UDPX file {size / 1e6:.0f} MB, TCP {args.seconds:g} s; "
          f"cores: {os.cpu_count()}")
    if extra:
        print(f"gridcp gets of a {size / 1e6:.0f} MB file from namespace B, Mb/s (GSI; TCP with "
              f"-nodcau: p1/p8 = gridcp -p 1/-p 8 from gridftpd, gl8 = gridcp -p 8 from "
              f"globus-gridftp-server, bbr/cubic = the congestion control on the route between "
              f"the namespaces); * = cut at {limit:g} s")
    print(f"{'rtt ms':>6} {'loss %':>6} {'ceiling':>8} {'UDPX':>7} {'bbr':>7} {'cubic':>7} "
          f"{'UDPX/ceil':>9} {'UDPX/TCP':>8} {'send cost':>9} {'recv cost':>9} {'UDPX cpu s':>10}"
          f" {'host busy':>9} {'startup s':>9} {'tail s':>6}"
          + "".join(f" {header:>{width}}" for _, header, width in columns))
    failed = False
    if extra:
        shared_test_pki()  # built once for the run (a few seconds)
    base, roots, name = make_roots(size, args.with_globus) if extra else ("", {}, "")
    try:
        for rtt in [float(x) for x in args.rtt.split(",")]:
            for loss in [float(x) for x in args.loss.split(",")]:
                ceiling = rate * (1 - loss / 100) * PAYLOAD_SHARE
                with Wanem(rtt_ms=rtt, loss_percent=loss, rate_mbit=rate,
                           seed=int(time.time())) as link:
                    udpx = run_udpx(link, pipe, size, rate)
                    bbr = run_tcp(link, "bbr", args.seconds)
                    cubic = run_tcp(link, "cubic", args.seconds)
                    gets = (run_gridftp(link, gridcp, roots, name, args.with_gridftpd,
                                        args.with_globus, limit) if extra else {})
                if not udpx["ok"]:
                    failed = True
                    print(f"{rtt:6g} {loss:6g}  UDPX FAILED: {udpx.get('error', 'bytes differ')}")
                    continue
                best_tcp = max(bbr, cubic)
                row = (f"{rtt:6g} {loss:6g} {ceiling:8.1f} {udpx['mbit']:7.1f} {bbr:7.1f} "
                       f"{cubic:7.1f} {udpx['mbit'] / ceiling:9.2f} "
                       f"{(udpx['mbit'] / best_tcp) if best_tcp else float('inf'):8.2f} "
                       f"{udpx['sending_cost'] * 100:8.2f}% {udpx['receiving_cost'] * 100:8.3f}% "
                       f"{udpx['cpu']:10.1f} {udpx['host_busy'] * 100:8.0f}% "
                       f"{udpx['startup_s']:9.2f} {udpx['tail_s']:6.2f}")
                failures = [f"{key}: {got.get('error', '')}" for key, got in gets.items()
                            if not got["ok"]]
                failed = failed or bool(failures)
                gc = gets.get("gcUDPX")
                gc_ok = gc is not None and gc["ok"] and not gc.get("partial")
                app_tcp = max((got["mbit"] for key, got in gets.items()
                               if key != "gcUDPX" and got["ok"]), default=0.0)
                for key, _, width in columns:
                    if key in gets:
                        row += " " + cell(gets[key], width)
                    elif key == "gcU file":
                        row += f" {gc['file_mbit']:{width}.1f}" if gc_ok else f" {'-':>{width}}"
                    elif key in ("gc send", "gc recv"):
                        field = "sending_cost" if key == "gc send" else "receiving_cost"
                        row += (f" {gc[field] * 100:{width - 1}.2f}%" if gc_ok
                                else f" {'-':>{width}}")
                    elif key in ("gcU/appTCP", "gcU/iperf"):
                        best = app_tcp if key == "gcU/appTCP" else best_tcp
                        row += (f" {gc['mbit'] / best:{width}.2f}" if gc_ok and best
                                else f" {'-':>{width}}")
                print(row, flush=True)
                for failure in failures:
                    print(f"{'':13} {failure}", flush=True)
    finally:
        if base:
            shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
