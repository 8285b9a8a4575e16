"""Partial gets, checksums and restarts against gridftpd (issue acceptance 3 and 4).

* `globus-url-copy -off O -len L` sends `ERET P O L path`; globus-url-copy writes the bytes at
  local offset O, so the local file must hold exactly source[O:O+L] there (-p 1 and -p 4).
* `-verify-checksum -checksum-alg A` sends `CKSM A 0 -1 path` to the source before the transfer
  and compares it with the local file (get) or with `CKSM` on the destination (third-party).
  globus-url-copy 10.12 computes local checksums with OpenSSL digests only: on a get it answers
  ADLER32 and CRC32C with "Unable to use checksum algorithm" after the transfer (with either
  server). So those two are checked on a get by comparing gridftpd's CKSM reply (from -dbg)
  with Python's value, and end to end on third-party transfers, where both servers compute.
* Raw `CKSM` over the control channel: whole file, ranges, `-1`, all algorithms, zero-padded
  8-digit ADLER32/CRC32C, 550 for a missing file, 500/504 for an unknown algorithm.
* Restart (`-rst`). Observed with globus-url-copy 10.12 (-dbg), against gridftpd and against
  globus-gridftp-server alike: on a *get to a local file* the client does not restart when the
  server dies; the data callbacks fail with "an end-of-file was reached" / "EOF has been
  reached" and it exits 1; with -stall-timeout it starts a restart and at once aborts ("the
  operation was aborted"). A *third-party* transfer does restart: the client collects the
  destination's `111 Range Marker a-b,...` replies, reconnects both sides from scratch after
  -rst-interval and sends the merged list as `REST a-b,c-d,...` to the destination (after
  PASV/ALLO, before STOR) and to the source (after OPTS/PORT, before RETR). So the restart tests
  run a -p 4 third-party copy of 256 MiB from a gridftpd source (fixed port), kill that source
  with SIGKILL once the destination has reported >30% in 111 markers, start a new gridftpd on
  the same port and root, and check: identical bytes at the destination, REST sent to the new
  source, and the new source's transfer log showing fewer bytes than the file. The destination
  is globus-gridftp-server in one test (isolates gridftpd as a restarted *sender*) and gridftpd
  in the other (gridftpd as a restarted *receiver* must keep the ranges it already has).
  The source is throttled with SIGSTOP/SIGCONT (our own PID) so loopback does not finish the
  copy before the first 111 marker (5 s).
"""

import hashlib
import os
import re
import signal
import subprocess
import threading
import time
import zlib

from gridftp_harness import (MIB, GridftpdServer, RawControl, _started_procs,
                             assert_file_digest, covered, crc32c, file_url, free_port, gridcp_binary,
                             give_to_globus_user, guc_dialogue, make_file, make_temp_dir,
                             make_tree_readable, run_peer, run_tests, sha256_file,
                             start_globus_server, start_gridftpd, start_server_under_test)

GUC = "globus-url-copy"
SIZE = 6 * MIB + 3


def python_cksm(alg: str, data: bytes) -> str:
    if alg == "ADLER32":
        return f"{zlib.adler32(data) & 0xFFFFFFFF:08x}"
    if alg == "CRC32C":
        return f"{crc32c(data):08x}"
    return hashlib.new(alg.lower(), data).hexdigest()


def source_server(seed: int = 0):
    server = start_server_under_test()
    make_file(server.fs("data/f.bin"), SIZE, seed=seed)
    make_tree_readable(server.fs("data"))
    with open(server.fs("data/f.bin"), "rb") as f:
        return server, f.read()


# --------------------------------------------------------------------------------------------
# -off / -len
# --------------------------------------------------------------------------------------------

PARTIAL_CASES = [(0, 1), (1000, 600000), (MIB - 1, MIB + 2), (SIZE - 10, 10), (0, SIZE),
                 (12345, SIZE - 12345), (3 * MIB, 2 * MIB + 1), (SIZE - 100, 1000)]


def test_partial_get_off_len_matches_slice():
    server, data = source_server(seed=11)
    out = make_temp_dir("guc-partial-")
    for p in ("1", "4"):
        for offset, length in PARTIAL_CASES:
            dest = os.path.join(out, f"p{p}-{offset}-{length}.bin")
            argv = [GUC, "-p", p, "-off", str(offset), "-len", str(length),
                    server.url("data/f.bin"), file_url(dest)]
            result = run_peer(argv, what=f"-p {p} -off {offset} -len {length}")
            want = data[offset:offset + length]
            assert os.path.isfile(dest), f"no local file written\n{result.describe()}"
            with open(dest, "rb") as f:
                f.seek(offset)
                got = f.read()
            size = os.path.getsize(dest)
            assert got == want and size == offset + len(want), (
                f"-p {p} -off {offset} -len {length}: local bytes [{offset}:] are {len(got)} B "
                f"(sha256 {hashlib.sha256(got).hexdigest()[:16]}), expected source[{offset}:"
                f"{offset + length}] = {len(want)} B (sha256 "
                f"{hashlib.sha256(want).hexdigest()[:16]}); local size {size}, expected "
                f"{offset + len(want)}\n{result.describe()}")


# --------------------------------------------------------------------------------------------
# -verify-checksum
# --------------------------------------------------------------------------------------------

def cksm_replies(result, alg: str) -> list[str]:
    """The values of the 213 replies that followed `CKSM alg ...` commands."""
    dialogue = guc_dialogue(result.stderr)
    values = []
    for i, line in enumerate(dialogue):
        if line.startswith(f">> CKSM {alg} "):
            reply = next((r for r in dialogue[i + 1:] if r.startswith("<< ")), "")
            values.append(reply[3:])
    return values


def test_get_verify_checksum():
    server, data = source_server(seed=12)
    out = make_temp_dir("guc-cksm-get-")
    digest = sha256_file(server.fs("data/f.bin"))
    unsupported_locally = []
    algs = ["MD5", "SHA1", "SHA256", "ADLER32"]
    if isinstance(server, GridftpdServer):
        algs.append("CRC32C")   # globus-gridftp-server 13.24 has no CRC32C
    for alg in algs:
        dest = os.path.join(out, f"{alg}.bin")
        argv = [GUC, "-dbg", "-p", "4", "-verify-checksum", "-checksum-alg", alg,
                server.url("data/f.bin"), file_url(dest)]
        result = run_peer(argv, expect_rc=None, what=f"get -verify-checksum {alg}")
        want = python_cksm(alg, data)
        replies = cksm_replies(result, alg)
        assert replies, f"{alg}: globus-url-copy sent no CKSM {alg}\n{result.describe()}"
        assert replies[0] == f"213 {want}", (
            f"{alg}: CKSM reply {replies[0]!r}, expected '213 {want}'\n{result.describe()}")
        if result.rc != 0 and alg in ("ADLER32", "CRC32C") and \
                f"Unable to use checksum algorithm {alg}" in result.output:
            unsupported_locally.append(alg)   # globus-url-copy's own limitation
        else:
            assert result.rc == 0, f"get -verify-checksum {alg} failed\n{result.describe()}"
        assert_file_digest(dest, digest, f"get -verify-checksum {alg}")
    if unsupported_locally:
        print(f"note: globus-url-copy cannot verify {unsupported_locally} locally on a get; the "
              "server's CKSM replies were checked against Python instead")


def third_party_checksums(source, dest, algs, what: str) -> None:
    files = {"f.bin": SIZE, "zero1.bin": 1, "empty.bin": 0}
    for name, size in files.items():
        path = source.fs(f"data/{name}")
        if name == "zero1.bin":   # adler32 00010001: catches a missing zero pad
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(b"\0")
        else:
            make_file(path, size, seed=13)
    make_tree_readable(source.fs("data"))
    for alg in algs:
        for name in files:
            with open(source.fs(f"data/{name}"), "rb") as f:
                want = python_cksm(alg, f.read())
            target = f"incoming/{alg}-{name}"
            argv = [GUC, "-dbg", "-p", "4", "-verify-checksum", "-checksum-alg", alg,
                    source.url(f"data/{name}"), dest.url(target)]
            result = run_peer(argv, expect_rc=None, what=f"{what}: -verify-checksum {alg}")
            replies = cksm_replies(result, alg)
            assert result.rc == 0, (f"{what}: third-party -verify-checksum {alg} of {name} "
                                    f"failed (CKSM replies {replies}, Python says {want})\n"
                                    f"{result.describe()}")
            assert len(replies) >= 2 and all(r == f"213 {want}" for r in replies), (
                f"{what}: {alg} {name}: CKSM replies {replies}, expected '213 {want}' from both "
                f"servers\n{result.describe()}")
            assert_file_digest(dest.fs(target), sha256_file(source.fs(f"data/{name}")),
                               f"{what}: -verify-checksum {alg} {name}")


def test_third_party_verify_checksum_gridftpd_to_gridftpd():
    third_party_checksums(start_gridftpd(), start_gridftpd(),
                          ("MD5", "ADLER32", "SHA1", "SHA256", "CRC32C"), "gridftpd -> gridftpd")


def test_third_party_verify_checksum_with_globus():
    """globus-gridftp-server 13.24 has no CRC32C; the other four must agree exactly."""
    algs = ("MD5", "ADLER32", "SHA1", "SHA256")
    dest = start_globus_server()
    give_to_globus_user(dest.fs("incoming"))
    third_party_checksums(start_gridftpd(), dest, algs, "gridftpd -> globus-gridftp-server")
    third_party_checksums(start_globus_server(), start_gridftpd(), algs,
                          "globus-gridftp-server -> gridftpd")


# --------------------------------------------------------------------------------------------
# Raw CKSM
# --------------------------------------------------------------------------------------------

def test_raw_cksm_values_ranges_and_errors():
    server, data = source_server(seed=14)
    with open(server.fs("data/empty.bin"), "wb"):
        pass
    with open(server.fs("data/zero1.bin"), "wb") as f:
        f.write(b"\0")
    make_tree_readable(server.fs("data"))
    path = server.path("data/f.bin")
    ctl = RawControl(server.host, server.port)
    ctl.login()
    problems = []

    def check(command: str, want: str) -> None:
        code, text = ctl.cmd(command)
        if text != f"213 {want}":
            problems.append(f"{command!r}: got {text!r}, expected '213 {want}'")

    algs = ("MD5", "ADLER32", "SHA1", "SHA256", "SHA512", "CRC32C")
    is_globus = not isinstance(server, GridftpdServer)
    for alg in algs:
        if is_globus and alg == "CRC32C":
            continue
        check(f"CKSM {alg} 0 -1 {path}", python_cksm(alg, data))
        check(f"CKSM {alg} 0 {len(data)} {path}", python_cksm(alg, data))
        check(f"CKSM {alg} 1000 600000 {path}", python_cksm(alg, data[1000:601000]))
        check(f"CKSM {alg} 100 -1 {path}", python_cksm(alg, data[100:]))
        check(f"CKSM {alg} {len(data) - 1} 1 {path}", python_cksm(alg, data[-1:]))
        check(f"CKSM {alg} 0 -1 {server.path('data/empty.bin')}", python_cksm(alg, b""))
        check(f"CKSM {alg} 0 -1 {server.path('data/zero1.bin')}", python_cksm(alg, b"\0"))
    # Zero padding, spelled out: adler32("") = 00000001, adler32("\0") = 00010001.
    check(f"CKSM ADLER32 0 -1 {server.path('data/empty.bin')}", "00000001")
    check(f"CKSM ADLER32 0 -1 {server.path('data/zero1.bin')}", "00010001")
    if not is_globus:
        check(f"CKSM CRC32C 0 -1 {server.path('data/empty.bin')}", "00000000")
        check(f"CKSM crc32c 0 -1 {path}", python_cksm("CRC32C", data))
    check(f"CKSM md5 0 -1 {path}", python_cksm("MD5", data))

    code, text = ctl.cmd(f"CKSM SHA256 0 -1 {server.path('data/no-such-file.bin')}")
    # gridftpd must say 550; globus-gridftp-server 13.24 answers 500 (xio open failed).
    if code != 550 and not (is_globus and code == 500):
        problems.append(f"CKSM of a missing file: got {text!r}, expected 550")
    code, text = ctl.cmd(f"CKSM NOSUCHALG 0 -1 {path}")
    if code not in (500, 504):
        problems.append(f"CKSM with an unknown algorithm: got {text!r}, expected 500 or 504")
    code, text = ctl.cmd("NOOP")
    if code != 200:
        problems.append(f"NOOP after the CKSM errors: got {text!r}")
    ctl.close()
    assert not problems, "CKSM problems:\n  " + "\n  ".join(problems)


# --------------------------------------------------------------------------------------------
# Restart
# --------------------------------------------------------------------------------------------

RESTART_SIZE = 256 * MIB
RANGE_RE = re.compile(r"(\d+)-(\d+)")


def restart_third_party(dest, dest_incoming: str, what: str, client: str = GUC) -> None:
    """`client` (globus-url-copy, or gridcp, which takes the same flags) drives a -rst -p 4
    third-party copy whose source is killed once the destination's 111 markers cover 30%."""
    root = os.path.join(make_temp_dir("rst-src-"), "root")
    port = free_port()
    source = start_gridftpd(root, listen={"port": port})
    digest = make_file(source.fs("data/big.bin"), RESTART_SIZE, seed=21)
    make_tree_readable(source.fs("data"))
    argv = [client, "-dbg", "-rst", "-rst-retries", "5", "-rst-interval", "1", "-p", "4",
            source.url("data/big.bin"), dest.url("incoming/big.bin")]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    _started_procs.append(proc)
    err_lines: list[str] = []
    out_lines: list[str] = []
    readers = [threading.Thread(target=lambda s=s, acc=acc: [acc.append(l.decode(errors="replace"))
                                                              for l in iter(s.readline, b"")],
                                daemon=True)
               for s, acc in ((proc.stderr, err_lines), (proc.stdout, out_lines))]
    for r in readers:
        r.start()

    def describe() -> str:
        dialogue = [l for l in guc_dialogue("".join(err_lines))
                    if not l.startswith(("<< 211", "<< 214", "<< 112"))]
        return (f"command: {' '.join(argv)}\nexit status: {proc.poll()}\ndialogue:\n  "
                + "\n  ".join(dialogue) + "\nstdout tail:\n" + "".join(out_lines)[-2000:]
                + "\nstderr errors:\n" + "\n".join(l.rstrip() for l in err_lines
                                                    if "error" in l and "no error" not in l)[-3000:])

    def marker_ranges() -> list[tuple[int, int]]:
        ranges = []
        for line in guc_dialogue("".join(err_lines)):
            if line.startswith("<< 111"):
                ranges += [(int(a), int(b)) for a, b in RANGE_RE.findall(line)]
        return ranges

    def dest_progress() -> int:
        sizes = [os.path.getsize(os.path.join(dest_incoming, n)) for n in os.listdir(dest_incoming)
                 if os.path.isfile(os.path.join(dest_incoming, n))]
        return max(sizes or [0])

    # Throttle the source (our own process) to about 256 MiB per 20 s until the destination
    # has reported more than 30% in 111 markers; the deadline only catches hangs.
    started = time.monotonic()
    stopped = False
    try:
        while covered(marker_ranges()) <= 0.3 * RESTART_SIZE:
            if proc.poll() is not None:
                raise AssertionError(f"{what}: the copy ended before the source could be "
                                     f"killed\n{describe()}")
            if time.monotonic() - started > 120:
                raise AssertionError(f"{what}: no 111 marker covering 30% within 120 s\n"
                                     f"{describe()}")
            behind = dest_progress() < RESTART_SIZE * (time.monotonic() - started) / 20
            if behind and stopped:
                os.kill(source.proc.pid, signal.SIGCONT)
                stopped = False
            elif not behind and not stopped:
                os.kill(source.proc.pid, signal.SIGSTOP)
                stopped = True
            time.sleep(0.01)
        at_kill = covered(marker_ranges())
        source.proc.kill()          # SIGKILL, our own PID
        source.proc.wait(timeout=10)
        second = start_gridftpd(root, listen={"port": port})
        try:
            proc.wait(timeout=600)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise AssertionError(f"{what}: restarted copy hung\n{describe()}")
        for r in readers:
            r.join(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        if proc in _started_procs:
            _started_procs.remove(proc)
    print(f"  {what}: killed the source with {at_kill} B ({100 * at_kill / RESTART_SIZE:.0f}%) "
          "confirmed in 111 markers", flush=True)
    dialogue = guc_dialogue("".join(err_lines))
    rests = [l for l in dialogue if l.startswith(">> REST ")]
    for l in rests:
        print(f"  {what}: {os.path.basename(client)} sent {l[3:][:200]}", flush=True)
    assert proc.returncode == 0, f"{what}: restarted copy failed\n{describe()}"
    assert len(rests) >= 2, (f"{what}: expected REST <ranges> to both servers after the "
                             f"restart, saw {rests}\n{describe()}")
    try:
        assert_file_digest(os.path.join(dest_incoming, "big.bin"), digest,
                           f"{what}: restarted -p 4 third-party copy")
    except AssertionError as e:
        where = zero_regions(source.fs("data/big.bin"), os.path.join(dest_incoming, "big.bin"))
        raise AssertionError(f"{e}\n{where}\ndestination directory now holds: "
                             f"{sorted(os.listdir(dest_incoming))}\n{describe()}")
    rec = second.wait_transfer_record(lambda r: r.get("command") == "RETR",
                                      "the restarted RETR on the second source")
    assert rec.get("result") == "ok" and 0 < rec.get("bytes", -1) < RESTART_SIZE, (
        f"{what}: the restarted source's transfer log should show fewer than {RESTART_SIZE} "
        f"bytes (only what was missing), got {rec}\n{describe()}")
    print(f"  {what}: second source sent {rec['bytes']} of {RESTART_SIZE} B", flush=True)


def zero_regions(expected_path: str, got_path: str, chunk: int = MIB) -> str:
    """Where two files differ, in MiB-chunk runs (and whether the bad chunks are all zero)."""
    runs = []
    with open(expected_path, "rb") as a, open(got_path, "rb") as b:
        index = 0
        while True:
            x, y = a.read(chunk), b.read(chunk)
            if not x and not y:
                break
            if x != y:
                zero = not y.strip(b"\0")
                if runs and runs[-1][1] == index - 1 and runs[-1][2] == zero:
                    runs[-1][1] = index
                else:
                    runs.append([index, index, zero])
            index += 1
    text = ", ".join(f"MiB {s}-{e}{' (zeros)' if z else ''}" for s, e, z in runs[:20])
    return f"differing regions: {text or 'none'}"


def test_restart_source_killed_globus_destination():
    dest = start_globus_server()
    give_to_globus_user(dest.fs("incoming"))
    restart_third_party(dest, dest.fs("incoming"), "gridftpd (killed) -> globus-gridftp-server")


def test_restart_source_killed_gridftpd_destination():
    dest = start_gridftpd()
    restart_third_party(dest, dest.fs("incoming"), "gridftpd (killed) -> gridftpd")


def test_gridcp_restart_source_killed_globus_destination():
    dest = start_globus_server()
    give_to_globus_user(dest.fs("incoming"))
    restart_third_party(dest, dest.fs("incoming"), "gridcp: gridftpd (killed) -> globus",
                        client=gridcp_binary())


def test_gridcp_restart_source_killed_gridftpd_destination():
    dest = start_gridftpd()
    restart_third_party(dest, dest.fs("incoming"), "gridcp: gridftpd (killed) -> gridftpd",
                        client=gridcp_binary())


if __name__ == "__main__":
    run_tests(globals())
