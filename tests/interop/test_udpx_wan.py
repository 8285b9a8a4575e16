"""UDPX through the WAN emulator (bench/wanem, docs/WANEM.md) at 50 ms RTT and 1% random loss
each way (issue acceptance 1): gridftpd servers in the emulator's namespaces, reached by the
names wanem-a and wanem-b (their host certificates say so), clients in namespace A.

  * gridcp -udp get and put, client in A, server in B: 0 B, 1 B and 5 MiB + 7 B at PROT C, S
    and P, and 1 GiB once each way;
  * third-party from the server in A to the server in B, driven by gridcp -udp and by the real
    globus-url-copy -dcstack udpx: the same sizes and levels, and 1 GiB with globus-url-copy.

Every file byte-identical (SHA-256); the emulator's counters prove the data crossed it and
met losses; the servers' transfer logs prove it went over UDPX. Also (acceptance 4): two
concurrent fair gets through one 100 Mb/s bottleneck split it within 10 %.
"""

import json
import os
import subprocess
import time

from gridftp_harness import (GIB, MIB, assert_file_digest, gridcp_binary, make_file,
                             make_temp_dir, make_tree_readable, run_tests, sha256_file,
                             shared_test_pki, start_gridftpd)
from wanem import NS_A, NS_B, Wanem, in_netns, require_root_and_tun

SIZES = {"empty.bin": 0, "one.bin": 1, "odd.bin": 5 * MIB + 7}
LEVELS = {"dcau-a": [], "dcsafe": ["-dcsafe"], "dcpriv": ["-dcpriv"]}
# The 1 GiB files take most of a minute each, so the test command moves one per path, each
# path at another level; UDPX_WAN_EVERY_LEVEL=1 (bench/udpx_acceptance.sh) moves one per path
# and level, twelve in all.
EVERY_LEVEL = os.environ.get("UDPX_WAN_EVERY_LEVEL") == "1"
LINK = dict(rtt_ms=50, loss_percent=1, rate_mbit=200, seed=11)


def server_in(netns: str, host: str):
    return start_gridftpd(gsi=shared_test_pki(), gsi_host=host, launcher=in_netns(netns, []),
                          listen={"control_interface": "0.0.0.0", "port": 0})


def url(server, host: str, rel: str) -> str:
    return f"gsiftp://{host}:{server.port}/{rel}"


def run_in_a(link, argv: list[str], what: str):
    env = dict(os.environ, **shared_test_pki().client_env("test"))
    result = link.run_in_a(argv, capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, (f"{what}: exit {result.returncode}\n"
                                    f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def udpx_count(server, command: str) -> int:
    return sum(1 for r in server.transfer_records()
               if r.get("network") == "udpx" and r.get("command") == command
               and r.get("result") == "ok")


def show_big(server, command: str) -> None:
    """The 1 GiB transfers' UDPX figures, for the log (no timing is asserted)."""
    for r in server.transfer_records():
        if r.get("network") == "udpx" and r.get("command") == command and r.get("bytes") == GIB:
            print(f"  1 GiB {command} {os.path.basename(r['path'])} ({r['security']}): "
                  f"{r['udpx_rate_bits_per_second'] / 1e6:.0f} Mb/s, "
                  f"RTT {r['udpx_rtt_ms']:.1f} ms, loss {r['udpx_loss'] * 100:.2f}%, sending cost "
                  f"{r['udpx_sending_cost'] * 100:.2f}%, receiving cost "
                  f"{r['udpx_receiving_cost'] * 100:.2f}%", flush=True)


def check_link(link) -> None:
    forward, back = link.totals["a_to_b"], link.totals["b_to_a"]
    assert forward["random_drops"] > 0 and back["random_drops"] > 0, \
        f"no datagram was lost on a 1% link: {link.totals}"


def test_gridcp_udpx_get_and_put_through_a_lossy_link():
    require_root_and_tun()
    with Wanem(**LINK) as link:
        server = server_in(NS_B, link.host_b)
        digests = {name: make_file(server.fs(f"data/{name}"), size, seed=70 + i)
                   for i, (name, size) in enumerate(SIZES.items())}
        digests["big.bin"] = make_file(server.fs("data/big.bin"), GIB, seed=79)
        make_tree_readable(server.fs("data"))
        local = make_temp_dir("udpx-wan-")
        os.chmod(local, 0o755)
        # (get level, put level, file)
        runs = [(level, level, name) for level in LEVELS for name in SIZES]
        runs += ([(level, level, "big.bin") for level in LEVELS] if EVERY_LEVEL
                 else [("dcpriv", "dcau-a", "big.bin")])
        for get_level, put_level, name in runs:
            got = os.path.join(local, f"{get_level}-{name}")
            what = f"gridcp -udp get {get_level} {name} through the emulator"
            run_in_a(link, [gridcp_binary(), "-udp", *LEVELS[get_level],
                            url(server, link.host_b, f"data/{name}"), f"file://{got}"], what)
            assert_file_digest(got, digests[name], what)
            what = f"gridcp -udp put {put_level} {name} through the emulator"
            stored = server.fs(f"incoming/{put_level}-{name}")
            run_in_a(link, [gridcp_binary(), "-udp", *LEVELS[put_level], f"file://{got}",
                            url(server, link.host_b, f"incoming/{put_level}-{name}")], what)
            assert_file_digest(stored, digests[name], what)
            os.remove(got)
            os.remove(stored)
        assert udpx_count(server, "RETR") == len(runs) and udpx_count(server, "STOR") == len(runs)
        # Both ends see the path's loss: the sender from NAKs, the receiver from skipped blocks.
        for r in server.transfer_records():
            if r.get("network") == "udpx" and r["bytes"] >= SIZES["odd.bin"]:
                assert r["udpx_loss"] > 0, f"a {r['command']} over a 1% link reports no loss: {r}"
        show_big(server, "RETR")
        show_big(server, "STOR")
        server.stop()
    check_link(link)


def test_third_party_udpx_through_a_lossy_link():
    require_root_and_tun()
    with Wanem(**LINK) as link:
        source = server_in(NS_A, link.host_a)
        dest = server_in(NS_B, link.host_b)
        digests = {name: make_file(source.fs(f"data/{name}"), size, seed=80 + i)
                   for i, (name, size) in enumerate(SIZES.items())}
        digests["big.bin"] = make_file(source.fs("data/big.bin"), GIB, seed=89)
        make_tree_readable(source.fs("data"))
        runs = [(client, level, name) for client in ("gridcp", "guc") for level in LEVELS
                for name in SIZES]
        runs += ([(client, level, "big.bin") for client in ("gridcp", "guc") for level in LEVELS]
                 if EVERY_LEVEL else [("guc", "dcsafe", "big.bin")])
        for client, level, name in runs:
            src = url(source, link.host_a, f"data/{name}")
            dst = url(dest, link.host_b, f"incoming/{client}-{level}-{name}")
            argv = ([gridcp_binary(), "-udp"] if client == "gridcp"
                    else ["globus-url-copy", "-dcstack", "udpx"]) + LEVELS[level] + [src, dst]
            what = f"{client} third-party over UDPX {level} {name} through the emulator"
            run_in_a(link, argv, what)
            assert_file_digest(dest.fs(f"incoming/{client}-{level}-{name}"), digests[name], what)
            os.remove(dest.fs(f"incoming/{client}-{level}-{name}"))
        assert udpx_count(dest, "STOR") == len(runs) and udpx_count(source, "RETR") == len(runs)
        show_big(source, "RETR")
        show_big(dest, "STOR")
        source.stop()
        dest.stop()
    check_link(link)


def served_file(link, name: str, size: int, seed: int):
    """A gridftpd in namespace B serving data/<name>, a local folder for what the gets bring
    back, and the client's environment."""
    server = server_in(NS_B, link.host_b)
    digest = make_file(server.fs(f"data/{name}"), size, seed=seed)
    make_tree_readable(server.fs("data"))
    local = make_temp_dir("udpx-wan-")
    os.chmod(local, 0o755)
    return server, digest, local, dict(os.environ, **shared_test_pki().client_env("test"))


def test_udpx_survives_a_five_second_outage():
    """A link that stops dead for 5 s in the middle of a get and of a put (well inside the 30 s
    idle timeout): the sender stops sending into it and probes, both transfers resume when it
    comes back and end byte-identical."""
    require_root_and_tun()
    with Wanem(rtt_ms=50, loss_percent=0, rate_mbit=100, seed=17) as link:
        server, digest, local, env = served_file(link, "outage.bin", 48 * MIB, seed=96)
        runs = {"get": (url(server, link.host_b, "data/outage.bin"), f"file://{local}/got.bin"),
                "put": (f"file://{local}/got.bin", url(server, link.host_b, "incoming/put.bin"))}
        for what, (src, dst) in runs.items():
            proc = link.popen_in_a([gridcp_binary(), "-udp", src, dst], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(2.5)  # handshake done, data flowing (48 MiB take about 4.5 s)
            assert proc.poll() is None, f"the {what} ended before the outage"
            link.outage(5)
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, f"{what} across an outage: exit {proc.returncode}\n{err}"
        assert_file_digest(f"{local}/got.bin", digest, "get across a 5 s outage")
        assert_file_digest(server.fs("incoming/put.bin"), digest, "put across a 5 s outage")
        for record in server.transfer_records():
            if record.get("network") == "udpx":
                print(f"  {record['command']} across the outage: sending cost "
                      f"{record['udpx_sending_cost'] * 100:.1f}%, receiving cost "
                      f"{record['udpx_receiving_cost'] * 100:.1f}%", flush=True)
                # Sending blind for 5 s at 100 Mb/s would waste more than the file (48 MiB);
                # a sender that notices the silence stops within a few hundred ms.
                assert record["udpx_sending_cost"] < 0.25, f"sent into the outage: {record}"
        server.stop()


def test_two_fair_udpx_transfers_share_the_link():
    """Acceptance 4: two concurrent gridcp -udp gets at the default (fair) policy through one
    100 Mb/s bottleneck at 50 ms RTT end within 10 % of each other's effective rate."""
    require_root_and_tun()
    with Wanem(rtt_ms=50, loss_percent=0, rate_mbit=100, seed=13) as link:
        server, digest, local, env = served_file(link, "fair.bin", 96 * MIB, seed=95)
        procs = []
        for i in range(2):
            # The second get starts a few hundred ms later, while the first one's Startup has
            # the queue full: the case where a delay-based flow mistakes a queue for the path.
            time.sleep(0.25 * i)
            procs.append(link.popen_in_a([gridcp_binary(), "-udp", "--json",
                                          url(server, link.host_b, "data/fair.bin"),
                                          f"file://{local}/fair-{i}.bin"], env=env,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True))
        rates = []
        for i, proc in enumerate(procs):
            out, err = proc.communicate(timeout=600)
            assert proc.returncode == 0, f"fair get {i}: exit {proc.returncode}\n{err[-3000:]}"
            assert_file_digest(f"{local}/fair-{i}.bin", digest, f"fair get {i}")
            rates.append(json.loads(out.splitlines()[0])["udpx_rate_bits_per_second"])
        server.stop()
    print(f"  two fair UDPX gets: {rates[0] / 1e6:.1f} and {rates[1] / 1e6:.1f} Mb/s", flush=True)
    assert min(rates) >= 0.9 * max(rates), f"unfair split: {rates}"
    assert sum(rates) > 0.7 * 100e6 * 1404 / 1480, f"the pair left the link idle: {rates}"


if __name__ == "__main__":
    run_tests(globals())
