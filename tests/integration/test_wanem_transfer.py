"""Transfers through the WAN emulator (bench/wanem, docs/WANEM.md): gridftpd in one network
namespace, gridcp in the other, a link with 20 ms RTT, 1% random loss each way and 50 Mb/s.
TCP recovers what the link loses, so the bytes must arrive identical; the emulator's own
counters prove the traffic went through it and met losses on the way.
"""

import os

from gridftp_harness import (MIB, gridcp_binary, make_file, make_temp_dir, run_tests,
                             sha256_file, start_gridftpd)
from wanem import NS_B, Wanem, in_netns, require_root_and_tun


def test_get_and_put_through_a_lossy_delayed_link():
    require_root_and_tun()
    with Wanem(rtt_ms=20, loss_percent=1, rate_mbit=50, seed=7) as link:
        server = start_gridftpd(listen={"control_interface": link.addr_b, "port": 0},
                                launcher=in_netns(NS_B, []))
        digest = make_file(server.fs("src.bin"), 5 * MIB + 7, seed=5)
        local = make_temp_dir("wanem-")
        got = os.path.join(local, "got.bin")
        url = f"ftp://{link.addr_b}:{server.port}"
        result = link.run_in_a([gridcp_binary(), f"{url}/src.bin", f"file://{got}"],
                               capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"gridcp get through the emulator:\n{result.stderr}"
        assert sha256_file(got) == digest, "get through the emulator: bytes differ"
        result = link.run_in_a([gridcp_binary(), f"file://{got}", f"{url}/incoming/back.bin"],
                               capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"gridcp put through the emulator:\n{result.stderr}"
        assert sha256_file(server.fs("incoming/back.bin")) == digest, "put: bytes differ"
        server.stop()
    toward_server, toward_client = link.totals["a_to_b"], link.totals["b_to_a"]
    assert toward_client["bytes_out"] > 5 * MIB and toward_server["bytes_out"] > 5 * MIB, (
        f"the transfers did not cross the emulator: {link.totals}")
    assert toward_client["random_drops"] > 0 and toward_server["random_drops"] > 0, (
        f"no packet was lost on a 1% link: {link.totals}")


if __name__ == "__main__":
    run_tests(globals())
