#!/usr/bin/env python3
"""An upload followed by CKSM ADLER32 of it, end to end: gridftpd (the checksum computed while
the bytes arrive, CKSM answered from the stored value) against globus-gridftp-server (CKSM
reads the file again). The same client, gridcp -p 4, the same source file, the same run.

    python3 bench/cksum_upload_bench.py                  # 4 GB, 3 repeats
    python3 bench/cksum_upload_bench.py --size 1G --repeat 1
Target (checksums-on-the-fly issue): globus time / gridftpd time at least 1.5.
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "support"))
sys.path.insert(0, HERE)

import gridftp_harness as h  # noqa: E402
from stream_get_bench import parse_size  # noqa: E402


def upload_then_cksm(server, source: str, rel: str) -> tuple[float, float, str]:
    """Seconds for the put, seconds for the CKSM, and the CKSM's value."""
    started = time.monotonic()
    h.run_peer([h.gridcp_binary(), "-p", "4", h.file_url(source), server.url(rel)], timeout=1800,
               what=f"gridcp -p 4 put to {server.kind}")
    uploaded = time.monotonic()
    control = h.RawControl(server.host, server.port, timeout=600)
    try:
        control.login()
        asked = time.monotonic()
        reply = control.expect(f"CKSM ADLER32 0 -1 {server.path(rel)}", 213)
        answered = time.monotonic()
    finally:
        control.close()
    os.unlink(server.fs(rel))
    return uploaded - started, answered - asked, reply[4:].strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="4G", help="file size (K/M/G suffixes)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    size = parse_size(args.size)
    source = os.path.join(h.make_temp_dir("cksum-bench-src-"), "source.bin")
    h.make_file(source, size, seed=7)
    servers = {"gridftpd": h.start_gridftpd(), "globus": h.start_globus_server()}
    totals: dict[str, list[float]] = {name: [] for name in servers}
    values = set()
    for run in range(args.repeat):
        for name, server in servers.items():
            put, cksm, value = upload_then_cksm(server, source, f"incoming/run{run}.bin")
            values.add(value)
            totals[name].append(put + cksm)
            print(f"{name:9s} run {run}: put {put:7.2f} s  CKSM {cksm * 1000:9.1f} ms  "
                  f"total {put + cksm:7.2f} s  adler32 {value}", flush=True)
    for server in servers.values():
        server.stop()
    if len(values) != 1:
        print(f"the servers disagree on the checksum: {sorted(values)}")
        return 1
    ours = statistics.median(totals["gridftpd"])
    theirs = statistics.median(totals["globus"])
    print(f"median upload+CKSM: gridftpd {ours:.2f} s, globus {theirs:.2f} s, "
          f"ratio globus/gridftpd {theirs / ours:.2f} (target >= 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())  # the harness stops its servers and removes its directories at exit
