"""Starts and stops bench/wanem (the userspace WAN emulator, docs/WANEM.md) for tests and
benchmarks: two network namespaces joined by TUN devices with delay, loss and a rate limit.

    with Wanem(rtt_ms=50, loss_percent=1, rate_mbit=300) as link:
        link.run_in_a([...])            # a command in namespace A (address link.addr_a)
        server = link.popen_in_b([...]) # a long-running one in namespace B
    link.totals["a_to_b"]["random_drops"]

Needs root. The emulator removes the namespaces it made when it stops; a namespace left by a
killed run is removed before the next start.

Several links may share a namespace (tests/support/striping_bed.py: one client namespace, a
shaped link to each mover's): each then names its own namespaces, addresses and TUN devices,
and `shared_namespaces=True` leaves the namespaces and their hosts files to whoever made them.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time

from gridftp_harness import _binary

NS_A, NS_B = "wanemA", "wanemB"
ADDR_A, ADDR_B = "10.77.0.1", "10.77.0.2"
# Host names of the two ends, for GSI servers whose certificates must name the host a client
# asked for: `ip netns exec` mounts /etc/netns/<ns>/hosts over /etc/hosts in the namespace.
HOST_A, HOST_B = "wanem-a", "wanem-b"
_TOTALS_RE = re.compile(r"^(a_to_b|b_to_a) (.*)$")


def wanem_binary() -> str:
    return _binary("WANEM", "wanem")


def in_netns(netns: str, argv: list[str]) -> list[str]:
    return ["ip", "netns", "exec", netns] + argv


class Wanem:
    def __init__(self, rtt_ms: float = 0, loss_percent: float = 0, rate_mbit: float = 0,
                 queue_kb: float = 0, seed: int = 1, stats_csv: str | None = None,
                 ns_a: str = NS_A, ns_b: str = NS_B, addr_a: str = ADDR_A, addr_b: str = ADDR_B,
                 dev_a: str = "", dev_b: str = "", host_a: str = HOST_A, host_b: str = HOST_B,
                 shared_namespaces: bool = False):
        self.argv = [wanem_binary(), "--rtt-ms", str(rtt_ms), "--loss", str(loss_percent),
                     "--rate-mbit", str(rate_mbit), "--seed", str(seed)]
        if queue_kb:
            self.argv += ["--queue-kb", str(queue_kb)]
        if stats_csv:
            self.argv += ["--stats", stats_csv]
        # Only what differs from the emulator's own defaults goes on its command line, so the
        # fixed pair keeps working with a wanem built before --dev-a/--dev-b.
        for flag, value, default in (("--ns-a", ns_a, NS_A), ("--ns-b", ns_b, NS_B),
                                     ("--addr-a", addr_a, ADDR_A), ("--addr-b", addr_b, ADDR_B),
                                     ("--dev-a", dev_a, ""), ("--dev-b", dev_b, "")):
            if value != default:
                self.argv += [flag, value]
        self.ns_a, self.ns_b = ns_a, ns_b
        self.addr_a, self.addr_b = addr_a, addr_b
        self.host_a, self.host_b = host_a, host_b
        # True: the caller made the namespaces and their hosts files and removes them itself.
        self.shared_namespaces = shared_namespaces
        self.proc: subprocess.Popen | None = None
        self.lines: list[str] = []
        self.totals: dict[str, dict[str, int]] = {}
        self._children: list[subprocess.Popen] = []

    def __enter__(self) -> "Wanem":
        if not self.shared_namespaces:
            self._own_namespaces()
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)
        ready = threading.Event()

        def drain():
            for line in self.proc.stdout:
                self.lines.append(line.rstrip("\n"))
                if line.startswith("wanem ready"):
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        if not ready.wait(20) or self.proc.poll() is not None:
            self.__exit__(None, None, None)
            raise AssertionError("wanem did not start:\n" + "\n".join(self.lines))
        return self

    def _own_namespaces(self) -> None:
        """Namespaces of this link alone: any left over by a killed run go first, and each gets
        a hosts file naming both ends."""
        for netns in (self.ns_a, self.ns_b):
            subprocess.run(["ip", "netns", "del", netns], stderr=subprocess.DEVNULL, check=False)
            os.makedirs(f"/etc/netns/{netns}", exist_ok=True)
            with open(f"/etc/netns/{netns}/hosts", "w") as hosts:
                hosts.write(f"127.0.0.1 localhost\n{self.addr_a} {self.host_a}\n"
                            f"{self.addr_b} {self.host_b}\n")

    def outage(self, seconds: float) -> None:
        """Stops the link both ways for `seconds`: the emulator is frozen, datagrams pile up in
        the TUN queues (the overflow is dropped) and go on, late, when it resumes."""
        self.proc.send_signal(signal.SIGSTOP)
        try:
            time.sleep(seconds)
        finally:
            self.proc.send_signal(signal.SIGCONT)

    def popen_in(self, netns: str, argv: list[str], **kwargs) -> subprocess.Popen:
        proc = subprocess.Popen(in_netns(netns, argv), **kwargs)
        self._children.append(proc)
        return proc

    def popen_in_a(self, argv: list[str], **kwargs) -> subprocess.Popen:
        return self.popen_in(self.ns_a, argv, **kwargs)

    def popen_in_b(self, argv: list[str], **kwargs) -> subprocess.Popen:
        return self.popen_in(self.ns_b, argv, **kwargs)

    def run_in_a(self, argv: list[str], timeout: float = 600, **kwargs):
        return subprocess.run(in_netns(self.ns_a, argv), timeout=timeout, **kwargs)

    def run_in_b(self, argv: list[str], timeout: float = 600, **kwargs):
        return subprocess.run(in_netns(self.ns_b, argv), timeout=timeout, **kwargs)

    def __exit__(self, *exc) -> None:
        for child in self._children:  # only processes this object started
            if child.poll() is None:
                child.terminate()
                try:
                    child.wait(10)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for netns in () if self.shared_namespaces else (self.ns_a, self.ns_b):
            if os.path.exists(f"/etc/netns/{netns}/hosts"):
                os.remove(f"/etc/netns/{netns}/hosts")
                try:
                    os.rmdir(f"/etc/netns/{netns}")
                except OSError:
                    pass  # someone else keeps files there
        for line in self.lines:
            if m := _TOTALS_RE.match(line):
                self.totals[m.group(1)] = {k: int(v) for k, v in
                                           (kv.split("=") for kv in m.group(2).split())}


def require_root_and_tun() -> None:
    """The emulator's needs, as a failure with the reason (never a skip)."""
    if os.geteuid() != 0:
        raise AssertionError("the WAN emulator needs root (network namespaces, TUN)")
    if not os.path.exists("/dev/net/tun"):
        raise AssertionError("the WAN emulator needs /dev/net/tun")
