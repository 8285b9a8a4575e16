"""UDPX, the rate-controlled UDP data channel (docs/UDPX.md), end to end on loopback.

gridcp -udp sends `SITE SETNETSTACK udpx`, then PASV (the server binds a UDP port and the 227
carries it) and RETR/STOR; gridcp is the active side: it runs the TLS key exchange as DCAU's
client with the user's proxy, the server answers with the proxy gridcp delegated. Third-party,
the real globus-url-copy `-dcstack udpx` sends SETNETSTACK to both gridftpd servers and nothing
else of ours: the source (given PORT) keys the connection with the dest by the same TLS, each
server presenting the delegated proxy.

Covered, byte-identical by SHA-256, at PROT C (DCAU A), S (-dcsafe) and P (-dcpriv):
  * gridcp -udp get and put of 0 B, 1 B and 5 MiB + 7 B files, with the UDPX figures in --json
    and the server's transfer log;
  * third-party gridftpd -> gridftpd with gridcp -udp and with globus-url-copy -dcstack udpx;
  * -off/-len (ERET and ESTO) over UDPX land the window at its own offset, and
    -verify-checksum (CKSM) agrees after a UDPX get and put;
  * -nodcau is refused (no authenticated key) with a message, and no file is left behind;
  * where [udpx] allow_unauthenticated is on (and only there: 536 otherwise, and FEAT leaves
    UDPX out), ftp:// get, put and third-party, and gsiftp:// -nodcau, run over UDPX keyed by
    unauthenticated TLS when gridcp is given --udp-unauthenticated;
  * damaged copies, replays and foreign datagrams injected at the server's UDP port during a put
    (captured off the loopback device) are dropped and counted; the file still arrives whole;
  * a client killed mid-put: the server ends the transfer with 426 after its idle timeout,
    names the reason, and leaves no file under the final name;
  * a get whose server session dies mid-transfer: gridcp -udp -rst notices within its stall
    timeout, keeps every block that arrived, and the retry's REST range list has the server
    send only the missing ranges (the stream of them, docs/UDPX.md §8); a REST list past the
    end of the file is refused with 501 before anything starts;
  * the same with gridcp -udp -rst for a put whose receiving session dies (the retry sends only
    what the server's 111 markers confirmed: gridcp asks TREV RESTART 1 over UDPX too) and for a
    third-party copy whose source session dies;
  * SITE UDPX RATE on the sending server of a running third-party transfer (driven here over
    two raw GSI control channels): the pace changes within a second, SITE UDPX STAT reports
    the running transfer; then on the receiving server, whose FEEDBACK caps the sender; the
    file still arrives whole;
  * a third-party transfer whose source session dies: the dest's 111 markers (TREV) name what
    it holds, it gives 426 after its idle timeout and keeps the partial file, and REST with
    those ranges on both servers moves exactly the missing bytes;
  * [udpx] aggregate_rate_bps: two gets in two session processes share the server-wide cap.
"""

import json
import os
import random
import re
import signal
import socket
import subprocess
import threading
import time

from gridftp_harness import (GsiControl, MIB, RawControl, assert_file_digest, check_copy, covered,
                             cut_off_and_resume, file_url, gridcp_binary, make_device_root,
                             make_file, make_temp_dir, make_tree_readable, run_peer, run_tests,
                             session_processes, sha256_file, shared_test_pki, start_gridftpd,
                             wait_until)

SIZES = {"empty.bin": 0, "one.bin": 1, "odd.bin": 5 * MIB + 7}
LEVELS = {"dcau-a": [], "dcsafe": ["-dcsafe"], "dcpriv": ["-dcpriv"]}


def gsi_server(**sections):
    return start_gridftpd(gsi=shared_test_pki(), **sections)


def gridcp(args: list[str], what: str, expect_rc: int | None = 0):
    return run_peer([gridcp_binary()] + args, env=shared_test_pki().client_env("test"),
                    timeout=180, what=what, expect_rc=expect_rc)


def guc(args: list[str], what: str, expect_rc: int | None = 0):
    return run_peer(["globus-url-copy"] + args, env=shared_test_pki().client_env("test"),
                    timeout=180, what=what, expect_rc=expect_rc)



def make_sources(server, seed: int) -> dict[str, str]:
    digests = {name: make_file(server.fs(f"data/{name}"), size, seed=seed + i)
               for i, (name, size) in enumerate(SIZES.items())}
    make_tree_readable(server.fs("data"))  # a GSI server reads as the mapped account
    return digests


def udpx_records(server, command: str) -> list[dict]:
    return [r for r in server.transfer_records()
            if r.get("network") == "udpx" and r.get("command") == command]


def test_gridcp_get_and_put_over_udpx():
    server = gsi_server()
    digests = make_sources(server, seed=31)
    out = make_temp_dir("udpx-get-")
    for level, flags in LEVELS.items():
        for name, digest in digests.items():
            what = f"gridcp -udp get {level} {name}"
            dest = os.path.join(out, f"{level}-{name}")
            result = gridcp(flags + ["-udp", "--json", server.gsiftp_url(f"data/{name}"),
                                     file_url(dest)], what=what)
            check_copy(dest, digest, what, result)
            record = json.loads(result.stdout.splitlines()[0])
            assert record.get("network") == "udpx", f"{what}: no UDPX figures\n{result.describe()}"
            what = f"gridcp -udp put {level} {name}"
            result = gridcp(flags + ["-udp", file_url(dest),
                                     server.gsiftp_url(f"incoming/{level}-{name}")], what=what)
            check_copy(server.fs(f"incoming/{level}-{name}"), digest, what, result)
    gets = udpx_records(server, "RETR")
    puts = udpx_records(server, "STOR")
    assert len(gets) == len(LEVELS) * len(SIZES) and len(puts) == len(gets), \
        f"transfer log: {len(gets)} UDPX RETR, {len(puts)} STOR records"
    assert all(r["result"] == "ok" and "udpx_rtt_ms" in r for r in gets + puts)
    server.assert_alive("after gridcp -udp")


def test_partial_ranges_and_checksums_over_udpx():
    server = gsi_server()
    make_sources(server, seed=35)
    with open(server.fs("data/odd.bin"), "rb") as f:
        whole = f.read()
    out = make_temp_dir("udpx-range-")
    window = (1_000_003, 2_500_000)
    dest = os.path.join(out, "window.bin")
    result = gridcp(["-udp", "--off", str(window[0]), "--len", str(window[1]),
                     server.gsiftp_url("data/odd.bin"), file_url(dest)], what="-udp ERET")
    with open(dest, "rb") as f:
        got = f.read()
    # globus-url-copy's rule, which gridcp keeps: the window lands at its own offset.
    assert got[window[0]:] == whole[window[0]:window[0] + window[1]], result.describe()
    source = os.path.join(out, "whole.bin")
    with open(source, "wb") as f:
        f.write(whole)
    result = gridcp(["-udp", "--off", str(window[0]), "--len", str(window[1]), file_url(source),
                     server.gsiftp_url("incoming/esto.bin")], what="-udp ESTO")
    with open(server.fs("incoming/esto.bin"), "rb") as f:
        stored = f.read()
    assert stored[window[0]:] == whole[window[0]:window[0] + window[1]], result.describe()
    for direction, args in (("get", [server.gsiftp_url("data/odd.bin"),
                                     file_url(os.path.join(out, "ck.bin"))]),
                            ("put", [file_url(source), server.gsiftp_url("incoming/ck.bin")])):
        gridcp(["-udp", "-verify-checksum", "-checksum-alg", "SHA256"] + args,
               what=f"-udp -verify-checksum {direction}")
    assert sum(1 for r in udpx_records(server, "ERET")) == 1
    assert sum(1 for r in udpx_records(server, "ESTO")) == 1


def test_a_device_goes_over_udpx_only_with_a_length():
    # Memory-to-memory runs read /dev/zero, whose size is 0: the ERET window is the length; a
    # whole-file get of a device has none, and is refused rather than "done" with 0 bytes.
    root = make_device_root("udpx-device-")
    try:
        server = start_gridftpd(root, gsi=shared_test_pki())
        out = make_temp_dir("udpx-device-")
        length = 3 * MIB + 5
        dest = os.path.join(out, "zeros.bin")
        result = gridcp(["-udp", "--off", "0", "--len", str(length),
                         server.gsiftp_url("dev/zero"), file_url(dest)], what="-udp ERET of a device")
        assert os.path.getsize(dest) == length, result.describe()
        with open(dest, "rb") as f:
            assert f.read() == bytes(length), "the window of /dev/zero is not zeros"
        whole = os.path.join(out, "whole.bin")
        result = gridcp(["-udp", server.gsiftp_url("dev/zero"), file_url(whole)],
                        what="-udp get of a whole device", expect_rc=None)
        assert result.rc != 0 and "550" in result.output, result.describe()
        assert not os.path.exists(whole) or os.path.getsize(whole) == 0, result.describe()
    finally:
        subprocess.run(["rm", "-rf", root], check=False)


def test_third_party_gridcp_udpx():
    source, dest = gsi_server(), gsi_server()
    digests = make_sources(source, seed=41)
    for level, flags in LEVELS.items():
        for name, digest in digests.items():
            what = f"gridcp -udp third-party {level} {name}"
            result = gridcp(flags + ["-udp", source.gsiftp_url(f"data/{name}"),
                                     dest.gsiftp_url(f"incoming/tp-{level}-{name}")], what=what)
            check_copy(dest.fs(f"incoming/tp-{level}-{name}"), digest, what, result)
    assert udpx_records(dest, "STOR") and udpx_records(source, "RETR")


def test_third_party_globus_url_copy_dcstack_udpx():
    source, dest = gsi_server(), gsi_server()
    digests = make_sources(source, seed=51)
    for level, flags in LEVELS.items():
        for name, digest in digests.items():
            what = f"globus-url-copy -dcstack udpx third-party {level} {name}"
            result = guc(flags + ["-dcstack", "udpx", source.gsiftp_url(f"data/{name}"),
                                  dest.gsiftp_url(f"incoming/guc-{level}-{name}")], what=what)
            check_copy(dest.fs(f"incoming/guc-{level}-{name}"), digest, what, result)
    stored = udpx_records(dest, "STOR")
    assert len(stored) == len(LEVELS) * len(SIZES), \
        f"the dest logged {len(stored)} UDPX STORs: the copy did not go over UDPX"


def udpx_retr_without_dcau(server, *settings: str) -> tuple[int, str]:
    """RETR over UDPX on a raw GSI session with DCAU N and `settings` (each answered 200):
    the final reply."""
    control = gsi_control(server)
    try:
        for line in ("DCAU N",) + settings + ("SITE SETNETSTACK udpx",):
            control.enc_expect(line, 200)
        control.enc_expect("PASV", 227)
        code, reply = control.enc_cmd("RETR /data/odd.bin")
        while code < 200:
            code, reply = control.enc_read_reply()
        return code, reply
    finally:
        control.close()


def test_udpx_without_dcau_is_refused():
    server = gsi_server()
    make_sources(server, seed=61)
    out = make_temp_dir("udpx-nodcau-")
    dest = os.path.join(out, "x.bin")
    result = gridcp(["-udp", "-nodcau", server.gsiftp_url("data/odd.bin"), file_url(dest)],
                    what="gridcp -udp -nodcau", expect_rc=None)
    assert result.rc != 0 and "-nodcau" in result.output, result.describe()
    # The server refuses it too, before any transfer begins: UDPX keys come from DCAU's TLS.
    # (globus-url-copy itself never sends SETNETSTACK with -nodcau: it drops -dcstack then.)
    code, reply = udpx_retr_without_dcau(server)
    assert code == 536 and "DCAU" in reply, reply
    server.assert_alive("after refusals")



def feat_lists_udpx(server) -> bool:
    control = RawControl(server.host, server.port)
    try:
        return " UDPX" in control.expect("FEAT", 211).splitlines()
    finally:
        control.close()


def test_unauthenticated_udpx_only_where_the_config_allows_it():
    # ftp:// has no DCAU: by default the server refuses UDPX (536) and FEAT does not offer it.
    closed = start_gridftpd()
    make_file(closed.fs("data/odd.bin"), SIZES["odd.bin"], seed=71)
    assert not feat_lists_udpx(closed)
    out = make_temp_dir("udpx-unauth-")
    dest = os.path.join(out, "refused.bin")
    result = gridcp(["-udp", "--udp-unauthenticated", closed.url("data/odd.bin"), file_url(dest)],
                    what="gridcp -udp ftp:// against a server that does not allow it",
                    expect_rc=None)
    assert result.rc != 0 and "536" in result.output, result.describe()
    assert not os.path.exists(dest), "a refused UDPX get left a file behind"
    # gridcp asks for consent before it keys UDPX without DCAU.
    result = gridcp(["-udp", closed.url("data/odd.bin"), file_url(dest)],
                    what="gridcp -udp ftp:// without --udp-unauthenticated", expect_rc=None)
    assert result.rc != 0 and "--udp-unauthenticated" in result.output, result.describe()

    # [udpx] allow_unauthenticated: get, put and third-party over ftp://, keys by unauthenticated
    # TLS (docs/UDPX.md §4.1), every packet still sealed; DCAU N on gsiftp:// likewise.
    opened = [start_gridftpd(udpx={"allow_unauthenticated": True}) for _ in range(2)]
    digests = {name: make_file(opened[0].fs(f"data/{name}"), size, seed=73 + i)
               for i, (name, size) in enumerate(SIZES.items())}
    assert feat_lists_udpx(opened[0])
    for name, digest in digests.items():
        what = f"gridcp -udp --udp-unauthenticated ftp:// get {name}"
        got = os.path.join(out, name)
        result = gridcp(["-udp", "--udp-unauthenticated", opened[0].url(f"data/{name}"),
                         file_url(got)], what=what)
        check_copy(got, digest, what, result)
        what = f"gridcp -udp --udp-unauthenticated ftp:// put {name}"
        result = gridcp(["-udp", "--udp-unauthenticated", file_url(got),
                         opened[1].url(f"incoming/put-{name}")], what=what)
        check_copy(opened[1].fs(f"incoming/put-{name}"), digest, what, result)
        what = f"gridcp -udp --udp-unauthenticated ftp:// third-party {name}"
        result = gridcp(["-udp", "--udp-unauthenticated", opened[0].url(f"data/{name}"),
                         opened[1].url(f"incoming/tp-{name}")], what=what)
        check_copy(opened[1].fs(f"incoming/tp-{name}"), digest, what, result)
    assert len(udpx_records(opened[0], "RETR")) == 2 * len(SIZES)
    assert len(udpx_records(opened[1], "STOR")) == 2 * len(SIZES)
    gsi = gsi_server(udpx={"allow_unauthenticated": True})
    make_sources(gsi, seed=79)
    what = "gridcp -udp -nodcau --udp-unauthenticated gsiftp:// get"
    got = os.path.join(out, "nodcau.bin")
    result = gridcp(["-udp", "-nodcau", "--udp-unauthenticated", gsi.gsiftp_url("data/odd.bin"),
                     file_url(got)], what=what)
    assert_file_digest(got, sha256_file(gsi.fs("data/odd.bin")), what)
    assert len(udpx_records(gsi, "RETR")) == 1, f"{what}: not over UDPX"
    # PROT P under DCAU N has no key to encrypt with: the transfer fails (536), as over TCP,
    # instead of running in the clear.
    code, reply = udpx_retr_without_dcau(gsi, "PBSZ 1048576", "PROT P")
    assert code == 536, f"PROT P under DCAU N over unauthenticated UDPX: {reply}"
    for server in opened + [closed, gsi]:
        server.assert_alive("after unauthenticated UDPX")


ETH_P_IP = 0x0800
UDPX_DATA_FIRST_BYTE = 0x12  # version 1, type DATA (docs/UDPX.md §1.2)


class UdpxTap:
    """Captures UDPX DATA datagrams on the loopback device (AF_PACKET, root) sent to a port in
    `ports` and injects forgeries at their destination: damaged copies, exact replays and
    foreign packets. The range keeps the tap off other tests' UDPX flows on the same device."""

    def __init__(self, ports: range):
        self.ports = ports
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_IP))
        self.sock.bind(("lo", 0))
        self.sock.settimeout(0.2)
        self.out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.port = None
        self.seen: list[bytes] = []
        self.injected = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        rng = random.Random(5)
        while not self.stop.is_set():
            try:
                packet = self.sock.recv(65535)
            except socket.timeout:
                continue
            if len(packet) < 28 or packet[9] != socket.IPPROTO_UDP:
                continue
            header = (packet[0] & 0x0F) * 4
            port = int.from_bytes(packet[header + 2:header + 4], "big")
            payload = packet[header + 8:]
            if len(payload) < 1000 or payload[0] != UDPX_DATA_FIRST_BYTE:
                continue
            if port not in self.ports:
                continue
            if self.port is None:
                self.port = port
            if port != self.port or len(self.seen) >= 300:
                continue
            self.seen.append(payload)
            if len(self.seen) % 10:
                continue
            damaged = bytearray(payload)
            damaged[rng.randrange(32, len(damaged))] ^= 0x40
            foreign = bytes(payload[:16]) + rng.randbytes(len(payload) - 16)
            for forged in (bytes(damaged), payload, self.seen[rng.randrange(len(self.seen))],
                           foreign):
                self.out.sendto(forged, ("127.0.0.1", self.port))
                self.injected += 1

    def close(self):
        self.stop.set()
        self.thread.join(5)
        self.sock.close()
        self.out.close()


def test_forged_replayed_and_foreign_datagrams_are_dropped_and_counted():
    # The server's UDPX socket lies in its passive range: one of its own, above the kernel's
    # ephemeral ports, so the tap touches no other test's transfer running beside this one.
    low = 61000 + os.getpid() % 4000
    server = gsi_server(listen={"passive_port_min": low, "passive_port_max": low + 9})
    source = os.path.join(make_temp_dir("udpx-tap-"), "src.bin")
    digest = make_file(source, 24 * MIB, seed=91)
    tap = UdpxTap(range(low, low + 10))
    try:
        # 100 Mb/s: two seconds of DATA for the tap to copy, damage and replay.
        result = gridcp(["-udp", "--rate", "100M", file_url(source),
                         server.gsiftp_url("incoming/tapped.bin")], what="gridcp -udp put, tapped")
    finally:
        tap.close()
    check_copy(server.fs("incoming/tapped.bin"), digest, "put with forgeries injected", result)
    assert tap.injected >= 40, f"the tap injected only {tap.injected} datagrams"
    record = udpx_records(server, "STOR")[-1]
    assert record["udpx_dropped"] >= tap.injected, \
        f"{tap.injected} forged, replayed or foreign datagrams sent, {record['udpx_dropped']} dropped"


def test_a_client_killed_mid_put_gets_426_after_the_idle_timeout():
    server = gsi_server(udpx={"idle_timeout_seconds": 3})
    source = os.path.join(make_temp_dir("udpx-kill-"), "src.bin")
    make_file(source, 64 * MIB, seed=92)
    argv = [gridcp_binary(), "-udp", "--rate", "50M", file_url(source),
            server.gsiftp_url("incoming/killed.bin")]
    proc = subprocess.Popen(argv, env=dict(os.environ, **shared_test_pki().client_env("test")),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: any(name.startswith(".gridftpd-part.")
                               for name in os.listdir(server.fs("incoming"))), 30,
                   "the UDPX put to begin")
        time.sleep(1)  # a second of data in flight
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    record = server.wait_transfer_record(
        lambda r: r.get("network") == "udpx" and r.get("command") == "STOR", "the killed put")
    assert record["result"] == "failed", record
    assert "no packet from the UDPX peer for 3 s" in record.get("error", ""), record
    assert 0 < record["bytes"] < 64 * MIB, record
    assert not os.path.exists(server.fs("incoming/killed.bin")), "a partial passed off as whole"
    # "transfer aborted" is the condition the 426 reply stands for (reply_for_error).
    assert record["error"].startswith("transfer aborted"), record
    server.assert_alive("after a client died mid-put")


def partial_upload_size(server, directory: str) -> int:
    parts = [os.path.join(server.fs(directory), name) for name in os.listdir(server.fs(directory))
             if name.startswith(".gridftpd-part.")]
    return max((os.path.getsize(p) for p in parts), default=0)


def assert_one_retry_moved_only_the_rest(server, command: str, size: int) -> None:
    """One completed UDPX `command` in the server's transfer log, which moved only part of the
    file: what the failed attempt had left (at least 8 MiB) was not sent again."""
    resumed = [r for r in udpx_records(server, command) if r["result"] == "ok"]
    assert len(resumed) == 1, f"expected one completed UDPX {command}, got {resumed}"
    print(f"  the retry moved {resumed[0]['bytes']} of {size} bytes", flush=True)
    assert 0 < resumed[0]["bytes"] < size - 8 * MIB, \
        f"the retry moved {resumed[0]['bytes']} of {size} bytes: not only what was missing"


def test_a_get_cut_off_mid_transfer_resumes_with_only_what_is_missing():
    server = gsi_server()
    size = 64 * MIB
    digest = make_file(server.fs("data/cut.bin"), size, seed=94)
    make_tree_readable(server.fs("data"))
    dest = os.path.join(make_temp_dir("udpx-cut-"), "cut.bin")
    argv = [gridcp_binary(), "-udp", "--rate", "100M", "-rst", "--rst-retries", "3",
            "--rst-interval", "1", "--st", "3", server.gsiftp_url("data/cut.bin"), file_url(dest)]
    partial = dest + ".gridcp-part"
    cut_off_and_resume(server, argv,
                       lambda: os.path.exists(partial) and os.path.getsize(partial) > 8 * MIB,
                       "UDPX get")
    assert_file_digest(dest, digest, "a UDPX get resumed after its server session died")
    assert_one_retry_moved_only_the_rest(server, "RETR", size)


def test_a_put_cut_off_mid_transfer_resumes_with_only_what_is_missing():
    """The receiving session dies mid-put; gridcp -rst retries with the ranges the server's 111
    markers confirmed (REST), and the retry's STOR moves only the rest."""
    server = gsi_server()
    size = 64 * MIB
    source = os.path.join(make_temp_dir("udpx-put-cut-"), "src.bin")
    digest = make_file(source, size, seed=95)
    argv = [gridcp_binary(), "-udp", "--rate", "100M", "-rst", "--rst-retries", "3",
            "--rst-interval", "1", "--st", "3", file_url(source),
            server.gsiftp_url("incoming/put-cut.bin")]
    # A 111 marker comes every second: at 100 Mb/s it lags the file by up to 12.5 MB, so once
    # 24 MiB are on disk at least 8 MiB are confirmed (16 MiB sometimes were not).
    cut_off_and_resume(server, argv,
                       lambda: partial_upload_size(server, "incoming") > 24 * MIB, "UDPX put")
    assert_file_digest(server.fs("incoming/put-cut.bin"), digest, "a UDPX put resumed")
    assert_one_retry_moved_only_the_rest(server, "STOR", size)


def test_a_third_party_copy_cut_off_mid_transfer_resumes_with_only_what_is_missing():
    """gridcp -udp -rst drives a copy between two gridftpd; the source's session dies mid-copy;
    the retry sends REST with the ranges the dest confirmed to both servers, and the source
    moves only the rest."""
    source, dest = gsi_server(), gsi_server(udpx={"idle_timeout_seconds": 3})
    size = 64 * MIB
    digest = make_file(source.fs("data/third-cut.bin"), size, seed=96)
    make_tree_readable(source.fs("data"))
    argv = [gridcp_binary(), "-udp", "--rate", "100M", "-rst", "--rst-retries", "3",
            "--rst-interval", "1", "--st", "10", source.gsiftp_url("data/third-cut.bin"),
            dest.gsiftp_url("incoming/third-cut.bin")]
    cut_off_and_resume(source, argv,
                       lambda: partial_upload_size(dest, "incoming") > 16 * MIB, "UDPX copy")
    assert_file_digest(dest.fs("incoming/third-cut.bin"), digest, "a UDPX copy resumed")
    moved = [r["bytes"] for r in udpx_records(source, "RETR") if r["result"] == "ok"]
    print(f"  the retry moved {moved} of {size} bytes", flush=True)
    assert len(moved) == 1 and 0 < moved[0] < size - 8 * MIB, \
        f"the retry moved {moved} of {size} bytes: not only what was missing"


def test_a_restart_list_past_the_end_of_the_file_is_refused():
    """The REST list of a UDPX restart lays out the stream both ends number blocks in: a list
    reaching past the file's end would shift it, so RETR refuses it before the 150."""
    server = gsi_server()
    make_file(server.fs("data/short.bin"), 1000, seed=98)
    make_tree_readable(server.fs("data"))
    control = gsi_control(server)
    try:
        control.enc_expect("TYPE I", 200)
        control.enc_expect("SITE SETNETSTACK udpx", 200)
        control.enc_expect("PASV", 227)
        control.enc_expect("REST 0-500,900-2000", 350)
        reply = control.enc_expect("RETR /data/short.bin", 501)
        assert "past the end" in reply, reply
    finally:
        control.close()


def gsi_control(server) -> GsiControl:
    pki = shared_test_pki()
    control = GsiControl(server.host, server.port)
    control.gsi_login(pki.proxy("test"), pki.ca_cert, delegate=True)
    return control


def expect_past_markers(control: GsiControl, line: str, code: int) -> str:
    """A command to a server that is receiving: its 111/112 markers may come first."""
    got, text = control.enc_cmd(line)
    while got in (111, 112):
        got, text = control.enc_read_reply()
    assert got == code, f"ENC {line!r}: expected {code}, got {text!r}"
    return text


def growth_rate(path_of, seconds: float) -> float:
    """Bytes per second the dest's partial file grew by over `seconds`."""
    before, started = os.path.getsize(path_of()), time.monotonic()
    time.sleep(seconds)
    return (os.path.getsize(path_of()) - before) / (time.monotonic() - started)


def test_site_udpx_rate_changes_a_running_transfer():
    source, dest = gsi_server(), gsi_server()
    digest = make_file(source.fs("data/rate.bin"), 48 * MIB, seed=93)
    make_tree_readable(source.fs("data"))
    src, dst = gsi_control(source), gsi_control(dest)
    try:
        for control in (src, dst):
            control.enc_expect("TYPE I", 200)
            control.enc_expect("SITE SETNETSTACK udpx:rate=120M", 200)
        reply = dst.enc_expect("PASV", 227)
        address = reply[reply.index("(") + 1:reply.index(")")]
        dst.enc_expect("STOR /incoming/rate.bin", 150)
        src.enc_expect(f"PORT {address}", 200)
        src.enc_expect("RETR /data/rate.bin", 150)

        def partial():
            names = [n for n in os.listdir(dest.fs("incoming")) if n.startswith(".gridftpd-part.")]
            return dest.fs(f"incoming/{names[0]}") if names else dest.fs("incoming/rate.bin")

        wait_until(lambda: os.path.exists(partial()) and os.path.getsize(partial()) > MIB, 30,
                   "the UDPX transfer to start writing")
        fast = growth_rate(partial, 1.0)
        src.enc_expect("SITE UDPX RATE 20M", 200)
        time.sleep(1.0)  # the new pace holds from the next second on
        slow = growth_rate(partial, 1.0)
        print(f"  {fast * 8e-6:.1f} Mb/s at 120M asked, {slow * 8e-6:.1f} Mb/s one second after "
              "SITE UDPX RATE 20M", flush=True)
        stat = src.enc_expect("SITE UDPX STAT", 200)
        assert "running bytes=" in stat, stat
        assert slow < 0.4 * fast, f"before SITE UDPX RATE {fast * 8e-6:.1f} Mb/s, one second " \
                                  f"after it {slow * 8e-6:.1f} Mb/s (asked 120 then 20)"
        # The receiving end steers too: its FEEDBACK caps the sender, whose own target is back up.
        expect_past_markers(dst, "SITE UDPX RATE 20M", 200)
        src.enc_expect("SITE UDPX RATE 120M", 200)
        time.sleep(1.0)
        capped = growth_rate(partial, 1.0)
        print(f"  {capped * 8e-6:.1f} Mb/s with the sender back at 120M and the receiver's "
              "SITE UDPX RATE 20M", flush=True)
        assert capped < 0.4 * fast, f"the receiver's SITE UDPX RATE 20M left the sender at " \
                                    f"{capped * 8e-6:.1f} Mb/s (unsteered {fast * 8e-6:.1f})"
        expect_past_markers(dst, "SITE UDPX RATE 1G", 200)
        for control in (src, dst):
            code, text = control.enc_read_reply()
            while 100 <= code < 200:
                code, text = control.enc_read_reply()
            assert code == 226, f"the steered transfer ended with {text!r}"
    finally:
        src.close()
        dst.close()
    assert_file_digest(dest.fs("incoming/rate.bin"), digest, "the file steered by SITE UDPX RATE")


def test_a_broken_third_party_transfer_restarts_with_the_ranges_the_dest_confirmed():
    """The receiving server's 111 markers (TREV RESTART 1) name what it holds; the source
    session is killed mid-transfer; the dest gives 426 after its idle timeout and keeps the
    partial file; REST with the marked ranges on both servers then moves only the rest: the
    stream of the missing ranges, laid out the same way at both ends."""
    source, dest = gsi_server(), gsi_server(udpx={"idle_timeout_seconds": 3})
    size = 48 * MIB
    digest = make_file(source.fs("data/broken.bin"), size, seed=99)
    make_tree_readable(source.fs("data"))
    src, dst = gsi_control(source), gsi_control(dest)
    marked: list[tuple[int, int]] = []

    def read_dest_until_final() -> int:
        code, text = dst.enc_read_reply()
        while 100 <= code < 200:
            if code == 111:
                for item in re.search(r"Range Marker ([0-9,-]+)", text).group(1).split(","):
                    start, end = item.split("-")
                    marked.append((int(start), int(end)))
            code, text = dst.enc_read_reply()
        return code

    def start(src_control, rest: str | None):
        for control in (src_control, dst):
            control.enc_expect("TYPE I", 200)
            control.enc_expect("SITE SETNETSTACK udpx:rate=80M", 200)
        dst.enc_expect("TREV RESTART 1", 200)
        reply = dst.enc_expect("PASV", 227)
        address = reply[reply.index("(") + 1:reply.index(")")]
        if rest:
            dst.enc_expect(f"REST {rest}", 350)
        dst.enc_expect("STOR /incoming/broken.bin", 150)
        src_control.enc_expect(f"PORT {address}", 200)
        if rest:
            src_control.enc_expect(f"REST {rest}", 350)
        src_control.enc_expect("RETR /data/broken.bin", 150)

    try:
        start(src, None)
        # The first periodic 111 after a second of data; then the source's session dies.
        code, text = dst.enc_read_reply()
        while code != 111 or "Range Marker" not in text:
            code, text = dst.enc_read_reply()
        time.sleep(0.5)
        for pid in session_processes(source):
            os.kill(pid, signal.SIGKILL)
        assert read_dest_until_final() == 426, "the dest should give up on the dead source"
        held = covered(marked)
        assert 0 < held < size, f"the dest confirmed {held} of {size} bytes"
        rest = ",".join(f"{a}-{b}" for a, b in sorted(marked))
        src.close()
        src = gsi_control(source)
        start(src, rest)
        code, text = src.enc_read_reply()
        while 100 <= code < 200:
            code, text = src.enc_read_reply()
        assert code == 226, f"the restarted source ended with {text!r}"
        assert read_dest_until_final() == 226, "the restarted dest did not finish"
    finally:
        src.close()
        dst.close()
    assert_file_digest(dest.fs("incoming/broken.bin"), digest, "a third-party UDPX restart")
    moved = [r["bytes"] for r in udpx_records(source, "RETR") if r["result"] == "ok"]
    print(f"  the dest confirmed {held} bytes in 111 markers; the restart moved {moved}", flush=True)
    assert moved == [size - held], f"the restart moved {moved}, not the {size - held} missing"


def test_the_server_wide_udpx_cap_is_shared_by_its_transfers():
    """[udpx] aggregate_rate_bps = 60 Mb/s: two gets asking 1 Gb/s each, served by two session
    processes, each hold about half of it (the pool is shared across processes)."""
    server = gsi_server(udpx={"aggregate_rate_bps": 60_000_000})
    digest = make_file(server.fs("data/capped.bin"), 16 * MIB, seed=97)
    make_tree_readable(server.fs("data"))
    local = make_temp_dir("udpx-cap-")
    env = dict(os.environ, **shared_test_pki().client_env("test"))
    procs = [subprocess.Popen([gridcp_binary(), "-udp", "--rate", "1G",
                               server.gsiftp_url("data/capped.bin"),
                               file_url(os.path.join(local, f"capped-{i}.bin"))], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for i in range(2)]
    for i, proc in enumerate(procs):
        output, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"capped get {i}: exit {proc.returncode}\n{output}"
        assert_file_digest(os.path.join(local, f"capped-{i}.bin"), digest, f"capped get {i}")
    rates = [r["udpx_rate_bits_per_second"] for r in udpx_records(server, "RETR")]
    print("  under a 60 Mb/s server cap: " + ", ".join(f"{r / 1e6:.1f}" for r in rates) + " Mb/s",
          flush=True)
    assert len(rates) == 2, rates
    # One ran alone for a moment at the start or the end, so each may exceed 30 a little.
    assert all(r < 45e6 for r in rates), f"a transfer took more than its share: {rates}"
    assert sum(rates) < 66e6, f"the two together passed the 60 Mb/s cap: {rates}"


if __name__ == "__main__":
    run_tests(globals())
