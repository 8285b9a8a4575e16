#!/usr/bin/env python3
"""Self-check of the WAN emulator (docs/WANEM.md): does the link do what it was told?

    bench/wanem/selfcheck.py [--rtt-ms 50] [--loss 1] [--rate-mbit 300]

Three measurements with tools outside the emulator, each against its setting:
  * RTT: median of 50 UDP echoes between the namespaces (Python timestamps, so a few tenths of
    a millisecond of our own overhead ride along): |measured - rtt| <= 1 ms.
  * Rate: iperf3 UDP blast at 1.2x the rate for 4 s; the rate iperf3's receiver saw, counted on
    IP bytes as the emulator's serialiser counts them: within 3% of the rate.
  * Loss: iperf3 UDP at half the rate (no queue drops); the receiver's loss within 3 sigma
    (binomial) of the setting, and the emulator's own drop counter agrees with iperf3's.
Exits non-zero when a figure is out of bounds. Needs root; the emulator binary comes from
$WANEM or build/debug/wanem.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "support"))

from wanem import Wanem, require_root_and_tun  # noqa: E402

UDP_PAYLOAD = 1400
IP_UDP_HEADERS = 28

ECHO_SERVER = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 9000))
s.settimeout(30)
while True:
    data, peer = s.recvfrom(2048)
    if data == b"stop":
        break
    s.sendto(data, peer)
"""

ECHO_CLIENT = """
import socket, statistics, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
samples = []
for _ in range(50):
    start = time.perf_counter()
    s.sendto(b"x" * 64, (sys.argv[1], 9000))
    s.recvfrom(2048)
    samples.append((time.perf_counter() - start) * 1000)
    time.sleep(0.01)
s.sendto(b"stop", (sys.argv[1], 9000))
print(statistics.median(samples))
"""


def measure_rtt(link: Wanem) -> float:
    server = link.popen_in_b([sys.executable, "-c", ECHO_SERVER, link.addr_b])
    time.sleep(0.3)
    out = link.run_in_a([sys.executable, "-c", ECHO_CLIENT, link.addr_b], capture_output=True,
                        text=True, check=True)
    server.wait(10)
    return float(out.stdout.strip())


def iperf_udp(link: Wanem, rate_mbit: float, seconds: float) -> dict:
    server = link.popen_in_b(["iperf3", "-s", "-1", "-B", link.addr_b],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    out = link.run_in_a(["iperf3", "-c", link.addr_b, "-u", "-b", f"{rate_mbit}M", "-l",
                         str(UDP_PAYLOAD), "-t", str(seconds), "-J"],
                        capture_output=True, text=True, check=True)
    server.wait(30)
    return json.loads(out.stdout)["end"]


def row(name: str, setting: str, measured: str, bound: str, ok: bool) -> bool:
    print(f"{name:<6} {setting:>14} {measured:>14} {bound:>16}  {'ok' if ok else 'OUT OF BOUNDS'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rtt-ms", type=float, default=50)
    parser.add_argument("--loss", type=float, default=1, help="percent")
    parser.add_argument("--rate-mbit", type=float, default=300)
    args = parser.parse_args()
    require_root_and_tun()
    ok = True
    print(f"{'check':<6} {'setting':>14} {'measured':>14} {'bound':>16}")
    with Wanem(rtt_ms=args.rtt_ms, rate_mbit=args.rate_mbit) as link:
        rtt = measure_rtt(link)
        ok &= row("rtt", f"{args.rtt_ms:.1f} ms", f"{rtt:.2f} ms", "+-1 ms",
                  abs(rtt - args.rtt_ms) <= 1.0)
        blast = iperf_udp(link, args.rate_mbit * 1.2, 4)
        payload_rate = blast["sum_received"]["bits_per_second"]
        ip_rate = payload_rate * (UDP_PAYLOAD + IP_UDP_HEADERS) / UDP_PAYLOAD / 1e6
        ok &= row("rate", f"{args.rate_mbit:.0f} Mb/s", f"{ip_rate:.1f} Mb/s", "+-3%",
                  abs(ip_rate - args.rate_mbit) <= 0.03 * args.rate_mbit)
    if args.loss > 0:
        with Wanem(rtt_ms=args.rtt_ms, rate_mbit=args.rate_mbit, loss_percent=args.loss,
                   seed=int(time.time())) as link:
            run = iperf_udp(link, args.rate_mbit * 0.5, 4)
        packets = run["sum"]["packets"]
        lost = run["sum"]["lost_packets"]
        p = args.loss / 100
        sigma = math.sqrt(p * (1 - p) / packets)
        measured = lost / packets
        ok &= row("loss", f"{args.loss:.2f} %", f"{measured * 100:.3f} %",
                  f"+-{3 * sigma * 100:.3f} pt", abs(measured - p) <= 3 * sigma)
        emulated = link.totals["a_to_b"]
        print(f"       emulator: {emulated['random_drops']} random drops, "
              f"{emulated['queue_drops']} queue drops; iperf3 lost {lost} of {packets}")
        ok &= row("drops", f"{lost}", f"{emulated['random_drops'] + emulated['queue_drops']}",
                  "+-1% (stragglers)",
                  abs(emulated["random_drops"] + emulated["queue_drops"] - lost) <= max(2, lost / 100))
    print("selfcheck: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
