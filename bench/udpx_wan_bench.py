#!/usr/bin/env python3
"""UDPX against TCP on emulated long, lossy paths (docs/UDPX.md, docs/WANEM.md).

    bench/udpx_wan_bench.py [--rate-mbit 100] [--rtt 10,100,300] [--loss 0,1,5] [--seconds 15]

For every RTT x loss cell, through the WAN emulator between two namespaces (one bottleneck of
--rate-mbit, a drop-tail queue of one bandwidth-delay product, random loss on both directions):
  * UDPX: bench/udpx/udpx_pipe sends a file sized for about --seconds at the link rate from
    /dev/shm in namespace A to /dev/shm in B (AES-GCM on every packet); goodput = bytes / the
    sender's time from the first HELLO to the receiver's CLOSE; bytes compared after.
  * TCP: iperf3 for --seconds with bbr and with cubic (the congestion controls this kernel has);
    goodput = what iperf3's receiver counted. iperf3 moves memory without TLS, an upper bound
    for any TCP application on the path.
Printed per cell: the link's payload ceiling (1 - loss) x rate x 1404/1452 (UDPX's payload
share of a datagram, IP and UDP headers apart), each goodput, UDPX / ceiling, UDPX / best TCP,
UDPX's sending cost (retransmissions / data packets) and receiving cost (duplicates / data
packets), and the CPU seconds of the two UDPX processes and the emulator (2 cores here).
Needs root and /dev/net/tun. Binaries from $WANEM and $UDPX_PIPE or build/release.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))

from wanem import Wanem, require_root_and_tun  # noqa: E402

PAYLOAD_SHARE = 1404 / (1452 + 28)  # UDPX block bytes per IP byte on the wire


def binary(env: str, name: str) -> str:
    path = os.environ.get(env) or os.path.join(ROOT, "build", "release", name)
    if not os.access(path, os.X_OK):
        sys.exit(f"{name} not found: build it (scripts/build.sh release {name}) or set ${env}")
    return path


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_udpx(link: Wanem, pipe: str, size: int, rate_mbit: float) -> dict:
    key = secrets.token_hex(32)
    source, sink = "/dev/shm/udpx-bench.in", "/dev/shm/udpx-bench.out"
    with open(source, "wb") as out:
        out.write(os.urandom(size))
    cpu_before = children_cpu()
    receiver = link.popen_in_b([pipe, "receive", "--listen", f"{link.addr_b}:7000", "--file", sink,
                                "--key", key], stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    sent = link.run_in_a([pipe, "send", "--to", f"{link.addr_b}:7000", "--file", source, "--key",
                          key, "--rate-mbit", str(rate_mbit * 2)], capture_output=True, text=True,
                         timeout=900)
    received_out, _ = receiver.communicate(timeout=60)
    cpu = children_cpu() - cpu_before
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
            "cpu": cpu, "seconds": send["seconds"]}


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate-mbit", type=float, default=100)
    parser.add_argument("--rtt", default="10,100,300", help="ms, comma-separated")
    parser.add_argument("--loss", default="0,1,5", help="percent, comma-separated")
    parser.add_argument("--seconds", type=float, default=15)
    args = parser.parse_args()
    require_root_and_tun()
    pipe = binary("UDPX_PIPE", "udpx_pipe")
    binary("WANEM", "wanem")
    os.environ.setdefault("WANEM", os.path.join(ROOT, "build", "release", "wanem"))
    rate = args.rate_mbit
    size = int(rate * 1e6 / 8 * args.seconds)
    print(f"UDPX vs TCP through the WAN emulator: {rate:g} Mb/s bottleneck, queue one BDP, "
          f"random loss both ways; UDPX file {size / 1e6:.0f} MB, TCP {args.seconds:g} s; "
          f"cores: {os.cpu_count()}")
    print(f"{'rtt ms':>6} {'loss %':>6} {'ceiling':>8} {'UDPX':>7} {'bbr':>7} {'cubic':>7} "
          f"{'UDPX/ceil':>9} {'UDPX/TCP':>8} {'send cost':>9} {'recv cost':>9} {'UDPX cpu s':>10}")
    failed = False
    for rtt in [float(x) for x in args.rtt.split(",")]:
        for loss in [float(x) for x in args.loss.split(",")]:
            ceiling = rate * (1 - loss / 100) * PAYLOAD_SHARE
            with Wanem(rtt_ms=rtt, loss_percent=loss, rate_mbit=rate,
                       seed=int(time.time())) as link:
                udpx = run_udpx(link, pipe, size, rate)
                bbr = run_tcp(link, "bbr", args.seconds)
                cubic = run_tcp(link, "cubic", args.seconds)
            if not udpx["ok"]:
                failed = True
                print(f"{rtt:6g} {loss:6g}  UDPX FAILED: {udpx.get('error', 'bytes differ')}")
                continue
            best_tcp = max(bbr, cubic)
            print(f"{rtt:6g} {loss:6g} {ceiling:8.1f} {udpx['mbit']:7.1f} {bbr:7.1f} {cubic:7.1f} "
                  f"{udpx['mbit'] / ceiling:9.2f} "
                  f"{(udpx['mbit'] / best_tcp) if best_tcp else float('inf'):8.2f} "
                  f"{udpx['sending_cost'] * 100:8.2f}% {udpx['receiving_cost'] * 100:8.3f}% "
                  f"{udpx['cpu']:10.1f}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
