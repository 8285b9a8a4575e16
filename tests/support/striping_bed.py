"""A striping test bed on one machine: network namespaces as hosts, each mover's link shaped by
the project's WAN emulator (bench/wanem, docs/WANEM.md).

    with StripingBed(movers=3, rtt_ms=20, rate_mbit=100) as bed:
        bed.client_ns                      # the client and the frontends live here
        bed.mover_ns(i), bed.mover_addr(i) # mover i's namespace and address (i from 0)
        bed.in_client([...]), bed.in_mover(i, [...])   # argv prefixed with `ip netns exec`

    namespace sbed-c: client, frontends on 127.0.0.1      namespace sbed-m<i>, i = 1..N: movers
        sbedc<i> 10.78.<i>.1/32 ══ wanem <i> (own process) ══ sbedm<i> 10.78.<i>.2/32

One emulator process per mover, all with the same RTT, loss and rate, each between the client
namespace and that mover's namespace with its own TUN devices and /32 addresses. A gridftpd
mover and a Globus data node can both live in mover i's namespace (different ports), so both
servers are measured over the same links. Frontend and movers reach each other only over the
shaped links, as the client reaches the movers' data ports.

Every namespace gets a hosts file (`ip netns exec` mounts /etc/netns/<ns>/hosts over
/etc/hosts): localhost and `sbed-m<i>` for each mover's address, the name a Globus data node
gives as its own (GLOBUS_HOSTNAME) and looks up for every PASV.

The bed makes its namespaces itself and removes them (and their hosts files) when it stops;
namespaces of the same names left by a killed run are removed before it starts. It stops only
the emulators it started. Needs root, /dev/net/tun and a wanem with --dev-a/--dev-b.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from wanem import Wanem, in_netns, require_root_and_tun

PREFIX = "sbed"
SUBNET = "10.78"   # mover i (from 0) is 10.78.<i+1>.2, its link's client end 10.78.<i+1>.1


class StripingBed:
    def __init__(self, movers: int, rtt_ms: float = 0, loss_percent: float = 0,
                 rate_mbit: float = 0, queue_kb: float = 0, seed: int = 1,
                 prefix: str = PREFIX):
        if movers < 1:
            raise ValueError("a striping bed needs at least one mover")
        self.movers, self.prefix = movers, prefix
        self.shape = dict(rtt_ms=rtt_ms, loss_percent=loss_percent, rate_mbit=rate_mbit,
                          queue_kb=queue_kb)
        self.seed = seed
        self.links: list[Wanem] = []
        self._made: list[str] = []

    # Names ----------------------------------------------------------------------------------
    @property
    def client_ns(self) -> str:
        return f"{self.prefix}-c"

    def mover_ns(self, index: int) -> str:
        return f"{self.prefix}-m{index + 1}"

    def mover_addr(self, index: int) -> str:
        return f"{SUBNET}.{index + 1}.2"

    def client_addr(self, index: int) -> str:
        """The client namespace's end of mover `index`'s link."""
        return f"{SUBNET}.{index + 1}.1"

    def mover_host(self, index: int) -> str:
        return f"{self.prefix}-m{index + 1}"

    def namespaces(self) -> list[str]:
        return [self.client_ns] + [self.mover_ns(i) for i in range(self.movers)]

    def in_client(self, argv: list[str]) -> list[str]:
        return in_netns(self.client_ns, argv)

    def in_mover(self, index: int, argv: list[str]) -> list[str]:
        return in_netns(self.mover_ns(index), argv)

    # Lifetime -------------------------------------------------------------------------------
    def __enter__(self) -> "StripingBed":
        require_root_and_tun()
        try:
            self._make_namespaces()
            for index in range(self.movers):
                self.links.append(self._link(index).__enter__())
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _make_namespaces(self) -> None:
        hosts = "127.0.0.1 localhost\n" + "".join(
            f"{self.mover_addr(i)} {self.mover_host(i)}\n" for i in range(self.movers))
        for netns in self.namespaces():
            # Left over by a killed run: ours by name, so ours to remove.
            subprocess.run(["ip", "netns", "del", netns], stderr=subprocess.DEVNULL, check=False)
            os.makedirs(f"/etc/netns/{netns}", exist_ok=True)
            with open(f"/etc/netns/{netns}/hosts", "w") as f:
                f.write(hosts)
            subprocess.run(["ip", "netns", "add", netns], check=True)
            self._made.append(netns)
            subprocess.run(in_netns(netns, ["ip", "link", "set", "lo", "up"]), check=True)

    def _link(self, index: int) -> Wanem:
        n = index + 1
        return Wanem(**self.shape, seed=self.seed + 2 * index,
                     ns_a=self.client_ns, ns_b=self.mover_ns(index),
                     addr_a=self.client_addr(index), addr_b=self.mover_addr(index),
                     dev_a=f"{self.prefix}c{n}", dev_b=f"{self.prefix}m{n}",
                     host_a=f"{self.prefix}-c{n}", host_b=self.mover_host(index),
                     shared_namespaces=True)

    def __exit__(self, *exc) -> None:
        for link in reversed(self.links):
            link.__exit__(None, None, None)
        self.links.clear()
        for netns in reversed(self._made):
            subprocess.run(["ip", "netns", "del", netns], stderr=subprocess.DEVNULL, check=False)
            shutil.rmtree(f"/etc/netns/{netns}", ignore_errors=True)
        self._made.clear()

    def totals(self) -> list[dict]:
        """Each link's emulator counters after it stopped (Wanem.totals), in mover order."""
        return [link.totals for link in self.links]


_CONNECT_PROBE = ("import socket, sys, time\n"
                  "listener = socket.create_server((sys.argv[1], 0))\n"
                  "print(listener.getsockname()[1], flush=True)\n"
                  "listener.accept()\n")
_CONNECT_TIMER = ("import socket, sys, time\n"
                  "start = time.monotonic()\n"
                  "socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)\n"
                  "print(f'{(time.monotonic() - start) * 1e3:.1f} ms')\n")


def connect_time(bed: StripingBed, index: int) -> str:
    """One TCP handshake from the client namespace to mover `index` (about one RTT)."""
    listener = subprocess.Popen(bed.in_mover(index, ["python3", "-c", _CONNECT_PROBE,
                                                     bed.mover_addr(index)]),
                                stdout=subprocess.PIPE, text=True)
    try:
        port = listener.stdout.readline().strip()
        return subprocess.run(bed.in_client(["python3", "-c", _CONNECT_TIMER,
                                             bed.mover_host(index), port]),
                              capture_output=True, text=True, timeout=30).stdout.strip()
    finally:
        listener.wait(10)


if __name__ == "__main__":
    # Smoke test: python3 tests/support/striping_bed.py [movers]: one TCP handshake to each
    # mover through its link, by the mover's name.
    import sys
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    with StripingBed(movers=count, rtt_ms=20, rate_mbit=100) as bed:
        for i in range(count):
            print(bed.mover_ns(i), bed.mover_addr(i), "connect:", connect_time(bed, i))
    print("namespaces left:", [ns for ns in bed.namespaces()
                               if os.path.exists(f"/run/netns/{ns}")])
