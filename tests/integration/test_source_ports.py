"""Outgoing data connections from a configured source port range (listen.source_port_min/max,
GLOBUS_TCP_SOURCE_RANGE): a MODE E get with four streams makes the server connect four times to
the client's one port. A port already carrying one of those connections can be bound again
(SO_REUSEADDR) but cannot connect to the same peer a second time, so the server must walk on to
another port of the range. With a range exactly four ports wide, every stream needs a port of
its own."""

import os

from gridftp_harness import (EstablishedPortWatch, file_url, gridcp_binary, make_file,
                             make_temp_dir, run_peer, run_tests, sha256_file, start_gridftpd)

STREAMS = 4


def source_range() -> tuple[int, int]:
    # Above the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by default),
    # so no other test's outgoing connection holds one of these four ports.
    low = 61000 + (os.getpid() * 11) % 4000
    return low, low + STREAMS - 1


def test_four_streams_from_a_four_port_source_range():
    low, high = source_range()
    server = start_gridftpd(listen={"source_port_min": low, "source_port_max": high})
    digest = make_file(server.fs("big.bin"), 64 * 1024 * 1024 + 5, seed=21)
    url = f"ftp://{server.host}:{server.port}/big.bin"
    # The local ports of the server's established connections but the control one: its data
    # connections.
    with EstablishedPortWatch(lambda connections: [
            port for port, owners in connections
            if server.proc.pid in owners and port != server.port]) as watch:
        # Several transfers in a row: the ports of the one before are in TIME_WAIT meanwhile.
        for attempt in range(3):
            target = os.path.join(make_temp_dir("source-ports-"), "got.bin")
            run_peer([gridcp_binary(), "-p", str(STREAMS), url, file_url(target)], timeout=120,
                     what=f"gridcp -p {STREAMS} get #{attempt + 1}")
            assert sha256_file(target) == digest, f"get #{attempt + 1}: bytes differ"
    assert watch.ports, "ss saw no data connection of the server"
    assert all(low <= port <= high for port in watch.ports), (
        f"data connections from ports {sorted(watch.ports)}, outside {low}-{high}")
    assert "data connection failed" not in server.log_text()


if __name__ == "__main__":
    run_tests(globals())
