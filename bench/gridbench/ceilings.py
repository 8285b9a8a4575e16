"""Ceilings measured in the same study as the runs they bound: TCP (iperf3 on loopback with each
stream count, or through each WAN cell), the cipher (`openssl speed -evp` on one core for the
cipher each level negotiated). The measuring code is the other benchmarks'; this module maps
TLS suite names to openssl's cipher names and keeps the figures in one dict for study.json.
"""

from __future__ import annotations

from . import support  # noqa: F401
import gsi_bench
import mode_e_bench


def openssl_cipher(suite: str) -> str | None:
    """openssl speed's -evp name for the bulk cipher of a TLS suite (TLS 1.3 or 1.2 names);
    None when the suite is unknown. NULL suites cost their MAC: the digest's speed."""
    s = suite.upper().replace("-", "_")
    for marker, name in (("AES_128_GCM", "aes-128-gcm"), ("AES128_GCM", "aes-128-gcm"),
                         ("AES_256_GCM", "aes-256-gcm"), ("AES256_GCM", "aes-256-gcm"),
                         ("CHACHA20", "chacha20-poly1305")):
        if marker in s:
            return name
    if "NULL" in s:
        if s.endswith("SHA384"):
            return "sha384"
        if s.endswith("SHA256"):
            return "sha256"
        if s.endswith("SHA"):
            return "sha1"
    return None


def negotiated_ciphers(runs: list[dict]) -> list[str]:
    """openssl names of the ciphers recorded runs negotiated, for their speed ceilings."""
    return sorted({name for name in (openssl_cipher(r.get("cipher") or "") for r in runs)
                   if name})


class Ceilings:
    """The figures, as stored in study.json under "ceilings"."""

    def __init__(self, data: dict | None = None):
        self.data = data or {"openssl_bytes_per_second": {}, "iperf3_bytes_per_second": {},
                             "wan_iperf3_bytes_per_second": {}}

    def openssl(self, cipher: str, seconds: float, log) -> None:
        if cipher in self.data["openssl_bytes_per_second"] or seconds <= 0:
            return
        try:
            speed = gsi_bench.openssl_speed(cipher, max(1, round(seconds)))
        except (gsi_bench.BenchError, AssertionError) as e:
            log(f"openssl speed {cipher}: {str(e).splitlines()[0]}")
            return
        self.data["openssl_bytes_per_second"][cipher] = speed
        log(f"ceiling: openssl speed -evp {cipher}: {speed / 1e9:.2f} GB/s on one core")

    def iperf3_loopback(self, streams: int, seconds: float, log) -> None:
        key = str(streams)
        if key in self.data["iperf3_bytes_per_second"] or seconds <= 0:
            return
        try:
            rate = mode_e_bench.iperf3_ceiling(streams, max(1, round(seconds)))
        except (AssertionError, KeyError, ValueError) as e:
            log(f"iperf3 -P {streams}: {str(e).splitlines()[0]}")
            return
        self.data["iperf3_bytes_per_second"][key] = rate
        log(f"ceiling: iperf3 loopback -P {streams}: {rate / 1e9:.2f} GB/s")

    def iperf3_wan(self, cell_key: str, link, seconds: float, log) -> None:
        """One TCP stream through the emulated link, the host's congestion control."""
        if cell_key in self.data["wan_iperf3_bytes_per_second"] or seconds <= 0:
            return
        import udpx_wan_bench   # needs the WAN emulator's support code; loaded only for WAN cells
        with open("/proc/sys/net/ipv4/tcp_congestion_control") as f:
            congestion = f.read().strip()
        mbit = udpx_wan_bench.run_tcp(link, congestion, max(1, round(seconds)))
        self.data["wan_iperf3_bytes_per_second"][cell_key] = mbit * 1e6 / 8
        log(f"ceiling: iperf3 through {cell_key} ({congestion}): {mbit:.1f} Mb/s")

    def openssl_speed_of(self, cipher: str) -> float | None:
        return self.data["openssl_bytes_per_second"].get(cipher)
