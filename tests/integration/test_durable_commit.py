"""Durable commit ([storage] durable, Globus's -sync-writes, SITE DURABLE ON/OFF) through a power
cut: the server's upload directory is powercut_fs (tests/support/powercut_fs.py), a FUSE file
system that keeps every change in memory until it is synced and throws away what is unsynced
when the test cuts its power. What a power cut keeps: data synced by fsync/fdatasync of the
file; names synced by fsync of their directory.

Asserted: with durable commit on, every upload that got its 226 (stream mode and MODE E with
four streams) is on the disk after the cut under its name with exactly the bytes sent, and no
hidden `.gridftpd-part.*` upload is what remains, also below directories the upload made (MKD); with it off, the server syncs nothing and the
cut takes every upload, although each got its 226 and read back whole before the cut; a session
that says SITE DURABLE ON on a server configured off keeps its upload, SITE DURABLE OFF and a
bad argument get their replies; and with it on, every 111 restart marker names only bytes the
disk had synced when the marker came. The tests wait on the server's replies and the file system's
counters, never on the clock."""

import ftplib
import io
import os
import socket

from gridftp_harness import (MIB, MODE_E_EOD, MODE_E_EOF, RawControl, expect_ftp_error, file_url,
                             gridcp_binary, make_file, make_temp_dir, mode_e_header,
                             read_final_reply, run_peer, run_tests, sha256_bytes, sha256_file,
                             start_gridftpd)
from fuse_mount import anonymous_root_over_fuse
from powercut_fs import PowerCutDisk

HIDDEN_PREFIX = ".gridftpd-part."

# name -> (gridcp flags, size): stream mode and MODE E over four streams, odd sizes so that no
# block or write boundary hides a short file.
UPLOADS = {
    "stream-small.bin": ([], MIB + 17),
    "stream-big.bin": ([], 4 * MIB - 5),
    "modee-small.bin": (["-p", "4"], 2 * MIB + 3),
    "modee-big.bin": (["-p", "4"], 4 * MIB),
}


def powercut_root() -> tuple[str, str, PowerCutDisk]:
    """An anonymous root whose incoming/ is powercut_fs over a backing directory. Returns the
    root, the backing directory (the disk's durable state, read by the checks after the cut
    without going through the mount) and the mount's PowerCutDisk."""
    root, backing, control, mountpoint = anonymous_root_over_fuse(make_temp_dir("durable-"))
    return root, backing, PowerCutDisk(backing, mountpoint, control)


def put_uploads(server, names) -> dict[str, str]:
    """gridcp puts each of `names` (UPLOADS) into incoming/; each must end with its 226 (exit 0)
    and read back whole through the mount, so what a cut takes later the cut alone takes.
    Returns name -> sha256 of what was sent."""
    source = make_temp_dir("durable-src-")
    digests = {}
    for seed, name in enumerate(names):
        flags, size = UPLOADS[name]
        local = os.path.join(source, name)
        digests[name] = make_file(local, size, seed=seed)
        result = run_peer([gridcp_binary(), *flags, file_url(local),
                           server.url(f"incoming/{name}")], timeout=120,
                          what=f"gridcp {' '.join(flags)} put {name}")
        got = sha256_file(server.fs(f"incoming/{name}"))
        assert got == digests[name], f"{name} reads back wrong before any cut\n{result.describe()}"
        record = server.wait_transfer_record(lambda r, n=name: r["path"] == f"/incoming/{n}",
                                             f"the put of {name}")
        assert record["mode"] == ("E" if flags else "S"), f"{name} went as {record}"
    return digests


def stor(ftp: ftplib.FTP, name: str, payload: bytes) -> None:
    """A stream-mode STOR into incoming/ that must end with 226."""
    reply = ftp.storbinary(f"STOR incoming/{name}", io.BytesIO(payload))
    assert reply.startswith("226"), f"STOR {name}: {reply!r}"


def events(status: dict) -> str:
    return "\n".join(status["events"])


def missing_syncs(name: str, status: dict) -> str:
    """What the disk never saw for the upload of `name`, read from its events: a sync of the
    file's data (under its hidden name before the rename, or its own name after) and, after the
    rename into place, a sync of the directory."""
    seen = status["events"]
    path = "/" + name
    into = [i for i, event in enumerate(seen)
            if event.startswith("rename ") and event.endswith(f" -> {path}")]
    if not into:
        return f"the disk saw no rename into {path}"
    renamed = into[-1]
    temp = seen[renamed][len("rename "):-len(f" -> {path}")]
    data_syncs = {f"{verb} {p}" for verb in ("fsync", "fdatasync") for p in (temp, path)}
    missing = []
    if not any(event in data_syncs for event in seen):
        missing.append(f"no fsync or fdatasync of {temp} (its data)")
    directory = os.path.dirname(path)
    if f"fsyncdir {directory}" not in seen[renamed + 1:]:
        missing.append(f"no fsync of the directory {directory} after `{seen[renamed]}` "
                       f"(its name)")
    return "; ".join(missing) or "every sync it needed, yet the bytes differ"


def assert_kept(backing: str, digests: dict[str, str], status: dict, what: str) -> None:
    """After the cut, every file of `digests` is in `backing` with exactly its bytes; if not,
    the message says which sync the server left out."""
    for name, digest in sorted(digests.items()):
        path = os.path.join(backing, name)
        if os.path.isfile(path) and sha256_file(path) == digest:
            continue
        kept = f"{os.path.getsize(path)} other bytes" if os.path.isfile(path) else "nothing"
        raise AssertionError(f"{what}: {name} got its 226, and after the power cut the disk "
                             f"holds {kept} under its name: {missing_syncs(name, status)}; "
                             f"the disk kept {sorted(os.listdir(backing))} and saw, in "
                             f"order:\n{events(status)}")


def hidden(backing: str) -> list[str]:
    return sorted(n for n in os.listdir(backing) if n.startswith(HIDDEN_PREFIX))


def test_durable_uploads_survive_a_power_cut():
    """[storage] durable = true: stream-mode and MODE E (-p 4) uploads each get their 226; after
    a power cut each is on the disk whole under its name, and no hidden upload file remains.
    Each upload cost at least one sync of its file and one of its directory."""
    root, backing, disk = powercut_root()
    server = start_gridftpd(root, storage={"durable": True})
    digests = put_uploads(server, UPLOADS)
    before = disk.status()
    syncs = before["fsyncs"] + before["fdatasyncs"]
    assert syncs >= len(digests) and before["fsyncdirs"] >= len(digests), (
        f"{len(digests)} durable uploads, {syncs} file syncs, {before['fsyncdirs']} directory "
        f"syncs; the disk saw:\n{events(before)}")
    status = disk.power_cut()
    server.stop()
    assert_kept(backing, digests, status, "durable commit on")
    assert hidden(backing) == [], f"hidden upload files after the cut: {hidden(backing)}"
    assert sorted(os.listdir(backing)) == sorted(digests), sorted(os.listdir(backing))


def test_a_durable_upload_into_directories_it_made_survives_a_power_cut():
    """Durable commit on, gridcp -cd puts a file two directories below incoming/, making both
    (MKD): the 226 promises the file, so after a power cut it is there whole, which needs the
    new directories' names synced in their parents too, not only the file's name in its own."""
    root, backing, disk = powercut_root()
    server = start_gridftpd(root, storage={"durable": True})
    local = os.path.join(make_temp_dir("durable-src-"), "deep.bin")
    digest = make_file(local, 2 * MIB + 9)
    run_peer([gridcp_binary(), "-cd", file_url(local), server.url("incoming/made/below/deep.bin")],
             timeout=120, what="gridcp -cd put")
    status = disk.power_cut()
    server.stop()
    path = os.path.join(backing, "made", "below", "deep.bin")
    kept = sorted(os.path.relpath(os.path.join(d, n), backing)
                  for d, dirs, files in os.walk(backing) for n in dirs + files)
    seen = status["events"]
    unsynced = [f"no fsync of {os.path.dirname(e[len('mkdir '):])} after `{e}`"
                for i, e in enumerate(seen) if e.startswith("mkdir ")
                and f"fsyncdir {os.path.dirname(e[len('mkdir '):])}" not in seen[i + 1:]]
    assert os.path.isfile(path) and sha256_file(path) == digest, (
        f"made/below/deep.bin got its 226 and is not on the disk whole after the power cut: "
        f"{'; '.join(unsynced) or missing_syncs('made/below/deep.bin', status)}; the disk kept "
        f"{kept} and saw, in order:\n{events(status)}")


def test_without_durable_commit_a_power_cut_takes_the_uploads():
    """The default, durable commit off: the same uploads each get their 226 and read back whole,
    but the server syncs nothing (no fsync, fdatasync or directory fsync), so the power cut
    takes every one: no name was ever synced, and the disk comes back as it was mounted,
    empty. This is what durable commit exists to prevent."""
    root, backing, disk = powercut_root()
    server = start_gridftpd(root)
    put_uploads(server, UPLOADS)
    before = disk.status()
    assert (before["fsyncs"], before["fdatasyncs"], before["fsyncdirs"]) == (0, 0, 0), (
        f"durable commit off, yet the server synced: {before}\n{events(before)}")
    assert before["unsynced_bytes"] > 0 and before["unsynced_dirs"] == 1, before
    disk.power_cut()
    server.stop()
    assert os.listdir(backing) == [], (
        f"nothing was synced, yet the disk kept {sorted(os.listdir(backing))}")


def assert_durable_state(ftp: ftplib.FTP, durable: bool, what: str) -> None:
    """SITE DURABLE without an argument answers 200 and says whether the session is durable."""
    reply = ftp.sendcmd("SITE DURABLE")
    says_durable = reply.startswith("200") and "not durable" not in reply.lower()
    assert reply.startswith("200") and says_durable == durable, (
        f"SITE DURABLE {what}: {reply!r}, expected it to say {'' if durable else 'not '}durable")


def test_site_durable_on_makes_one_session_durable():
    """On a server configured off, a session that says SITE DURABLE ON (200) keeps its upload
    through the cut. What others did shows the model's two failures: an upload by another
    session before it lost its bytes but not its name (the durable session's fsync of the
    directory made every name there durable, not their data: plain.bin comes back empty, a
    partial file passed off as complete), and an upload after SITE DURABLE OFF (200) is gone
    (nothing synced its name). SITE DURABLE with a bad argument gets a 5xx and changes nothing;
    without one it says (200) which the session is."""
    root, backing, disk = powercut_root()
    server = start_gridftpd(root)
    plain, durable, after_off = (os.urandom(size) for size in (MIB + 1, 3 * MIB + 7, MIB))
    with server.ftp() as ftp:
        stor(ftp, "plain.bin", plain)
    with server.ftp() as ftp:
        expect_ftp_error(lambda: ftp.sendcmd("SITE DURABLE MAYBE"), "5",
                         "SITE DURABLE with a bad argument")
        assert_durable_state(ftp, False, "before SITE DURABLE ON")
        synced_before = disk.status()["fsyncdirs"]
        reply = ftp.sendcmd("SITE DURABLE ON")
        assert reply.startswith("200"), f"SITE DURABLE ON: {reply!r}"
        assert_durable_state(ftp, True, "after SITE DURABLE ON")
        stor(ftp, "durable.bin", durable)
        assert disk.status()["fsyncdirs"] > synced_before, "SITE DURABLE ON synced no directory"
        reply = ftp.sendcmd("SITE DURABLE OFF")
        assert reply.startswith("200"), f"SITE DURABLE OFF: {reply!r}"
        assert_durable_state(ftp, False, "after SITE DURABLE OFF")
        synced_before = disk.status()
        stor(ftp, "after-off.bin", after_off)
        after = disk.status()
        for counter in ("fsyncs", "fdatasyncs", "fsyncdirs"):
            assert after[counter] == synced_before[counter], (
                f"an upload after SITE DURABLE OFF synced ({counter}):\n{events(after)}")
    status = disk.power_cut()
    server.stop()
    assert_kept(backing, {"durable.bin": sha256_bytes(durable)}, status, "SITE DURABLE ON")
    assert os.path.getsize(os.path.join(backing, "plain.bin")) == 0, (
        "plain.bin's data was never synced, yet the disk kept "
        f"{os.path.getsize(os.path.join(backing, 'plain.bin'))} bytes of it")
    assert sorted(os.listdir(backing)) == ["durable.bin", "plain.bin"], (
        f"after the cut: {sorted(os.listdir(backing))}\n{events(status)}")


def test_globus_sync_writes_flag_means_durable_commit():
    """gridftpd started with Globus's -sync-writes on its command line (the config file says
    nothing of durability) commits durably: a stream-mode and a MODE E upload survive the cut
    whole."""
    root, backing, disk = powercut_root()
    server = start_gridftpd(root, extra_args=["-sync-writes"])
    digests = put_uploads(server, ["stream-small.bin", "modee-small.bin"])
    status = disk.power_cut()
    server.stop()
    assert_kept(backing, digests, status, "-sync-writes")
    assert sorted(os.listdir(backing)) == sorted(digests), sorted(os.listdir(backing))


def marker_ranges(text: str) -> list[tuple[int, int]]:
    """[start, end) ranges of a "111 Range Marker 0-1048576,2097152-3145728" reply."""
    ranges = text.split("Range Marker", 1)[1].strip()
    return [tuple(int(x) for x in part.split("-")) for part in ranges.split(",")]


def assert_marker_synced(text: str, synced: list[list[int]], what: str) -> None:
    for start, end in marker_ranges(text):
        if not any(s <= start and end <= e for s, e in synced):
            raise AssertionError(f"{what}: {text!r} names {start}-{end}, but the disk had "
                                 f"synced only {synced} of the upload when the marker came")


def test_durable_restart_markers_name_only_synced_bytes():
    """Durable commit on, a MODE E STOR sent a MiB at a time with markers every second (TREV
    RESTART 1): after each MiB the test reads 111 markers until one names it, and every 111 of
    the upload, the last one before 226 included, names only bytes of the hidden upload file
    that the disk had synced when the marker came (the file system publishes each sync before
    it returns, so a marker sent after its sync finds it). A restart from such a marker after a
    power cut would find every byte it counts on."""
    root, backing, disk = powercut_root()
    server = start_gridftpd(root, storage={"durable": True})
    payload = os.urandom(3 * MIB)
    temp = "/" + HIDDEN_PREFIX + "marked.bin"
    ctl = RawControl(server.host, server.port, timeout=60)
    ctl.login()
    ctl.expect("TREV RESTART 1", 200)
    address = ctl.mode_e_passive()
    ctl.send("STOR /incoming/marked.bin")
    stream = socket.create_connection(address, timeout=60)
    markers = 0
    for offset in range(0, len(payload), MIB):
        stream.sendall(mode_e_header(0, MIB, offset) + payload[offset:offset + MIB])
        while True:
            code, text = ctl.read_reply()
            assert code in (111, 112, 150), f"mid-upload: {text!r}"
            if code != 111:
                continue
            markers += 1
            assert_marker_synced(text, disk.status()["synced"].get(temp, []),
                                 f"marker {markers}")
            if any(end >= offset + MIB for _, end in marker_ranges(text)):
                break
    stream.sendall(mode_e_header(MODE_E_EOD | MODE_E_EOF, 0, 1))
    stream.close()
    code, text, prelims = read_final_reply(ctl, 60)
    assert code == 226, f"the marked upload: {text!r}"
    synced = disk.status()["synced"].get(temp, [])
    for marker in (t for t in prelims if t.startswith("111")):
        assert_marker_synced(marker, synced, "a marker before 226")
    ctl.close()
    status = disk.power_cut()
    server.stop()
    assert_kept(backing, {"marked.bin": sha256_bytes(payload)}, status, "the marked upload")


if __name__ == "__main__":
    run_tests(globals())
