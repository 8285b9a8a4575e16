"""Checksums computed while an upload arrives and stored with the file (docs/ARCHITECTURE.md,
"Checksums on the fly"): gridcp puts in stream mode and with -p 4 (MODE E, blocks from four
streams in any order), then CKSM over the control channel and the extended attribute itself.

* After an upload the file carries `user.gridftpd.cksum.<alg>` = "v1 <size> <s>.<ns> <hex>" for
  each configured algorithm that could be computed on the way: ADLER32 and CRC32C always, MD5 and
  SHA* only when the blocks came in order (stream mode).
* CKSM of the whole file answers that value without reading: a value planted in the attribute
  (same size and mtime) is what comes back. A partial CKSM reads the file.
* A file changed after its upload (size, or content and mtime) is answered from a fresh read,
  and that read is stored in turn. APPE removes the stored values before it writes.
"""

import hashlib
import os
import zlib

from gridftp_harness import (MIB, RawControl, crc32c, file_url, gridcp_binary, make_file,
                             make_temp_dir, run_peer, run_tests, start_gridftpd)

SIZE = 24 * MIB + 7
ALL = ["ADLER32", "MD5", "CRC32C"]


def expected(alg: str, data: bytes) -> str:
    if alg == "ADLER32":
        return f"{zlib.adler32(data) & 0xFFFFFFFF:08x}"
    if alg == "CRC32C":
        return f"{crc32c(data):08x}"
    return hashlib.new(alg.lower(), data).hexdigest()


def attribute(alg: str) -> str:
    return "user.gridftpd.cksum." + alg.lower()


def stored(path: str, alg: str) -> tuple[int, int, str] | None:
    """(size, mtime in ns, hex) of the stored value, None when there is none."""
    try:
        text = os.getxattr(path, attribute(alg)).decode()
    except OSError:
        return None
    version, size, mtime, hex_value = text.split(" ")
    assert version == "v1", f"stored value {text!r} of {path}"
    seconds, nanoseconds = mtime.split(".")
    assert len(nanoseconds) == 9, f"stored value {text!r} of {path}"
    return int(size), int(seconds) * 10**9 + int(nanoseconds), hex_value


def cksm(server, alg: str, rel: str, offset: int = 0, length: int = -1) -> str:
    ctl = RawControl(server.host, server.port)
    try:
        ctl.login()
        text = ctl.expect(f"CKSM {alg} {offset} {length} {server.path(rel)}", 213)
    finally:
        ctl.close()
    return text[4:].strip()


def put(server, rel: str, size: int, seed: int, *flags: str) -> bytes:
    source = os.path.join(make_temp_dir("cksum-src-"), "f.bin")
    make_file(source, size, seed=seed)
    run_peer([gridcp_binary(), *flags, file_url(source), server.url(rel)], timeout=300,
             what=f"gridcp {' '.join(flags)} put {rel}")
    with open(server.fs(rel), "rb") as f:
        data = f.read()
    with open(source, "rb") as f:
        assert f.read() == data, f"{rel}: the uploaded file differs from its source"
    return data


def check_stored_matches(server, rel: str, alg: str, data: bytes) -> None:
    value = stored(server.fs(rel), alg)
    assert value is not None, f"{rel}: no {attribute(alg)} after the upload"
    size, mtime_ns, hex_value = value
    assert size == len(data), f"{rel}: stored for size {size}, file has {len(data)}"
    assert mtime_ns == os.stat(server.fs(rel)).st_mtime_ns, f"{rel}: stored for another mtime"
    assert hex_value == expected(alg, data), f"{rel}: stored {alg} {hex_value} is wrong"


def plant(path: str, alg: str, hex_value: str) -> None:
    """Replaces the stored value's digits, keeping its size and mtime key (root may: the file
    belongs to the session's account). Setting an attribute changes ctime, never mtime."""
    size, mtime_ns, _ = stored(path, alg)
    text = f"v1 {size} {mtime_ns // 10**9}.{mtime_ns % 10**9:09d} {hex_value}"
    os.setxattr(path, attribute(alg), text.encode())


def test_parallel_put_stores_adler32_and_cksm_answers_it_without_reading():
    server = start_gridftpd()
    rel = "incoming/p4.bin"
    data = put(server, rel, SIZE, 1, "-p", "4")
    check_stored_matches(server, rel, "ADLER32", data)
    assert stored(server.fs(rel), "MD5") is None, "MD5 is not configured by default"
    assert cksm(server, "ADLER32", rel) == expected("ADLER32", data)
    # The whole-file answer comes from the attribute: a planted value is what CKSM says.
    plant(server.fs(rel), "ADLER32", "0badc0de")
    assert cksm(server, "ADLER32", rel) == "0badc0de"
    assert cksm(server, "ADLER32", rel, 0, len(data)) == "0badc0de"
    assert cksm(server, "ADLER32", rel, 0, len(data) + 99) == "0badc0de"
    # Partial requests read the file.
    assert cksm(server, "ADLER32", rel, 0, len(data) - 1) == expected("ADLER32", data[:-1])
    assert cksm(server, "ADLER32", rel, 5, -1) == expected("ADLER32", data[5:])
    assert cksm(server, "ADLER32", rel, 1000, 3 * MIB) == expected("ADLER32",
                                                                   data[1000:1000 + 3 * MIB])
    assert cksm(server, "ADLER32", rel, 0, 0) == expected("ADLER32", b"")


def test_stream_put_stores_every_configured_algorithm():
    server = start_gridftpd(storage={"checksums": ALL})
    for name, size in (("stream.bin", SIZE), ("empty.bin", 0), ("one.bin", 1)):
        rel = f"incoming/{name}"
        data = put(server, rel, size, 2)
        for alg in ALL:
            check_stored_matches(server, rel, alg, data)
            assert cksm(server, alg, rel) == expected(alg, data), f"CKSM {alg} of {rel}"


def test_parallel_put_stores_crc32c_and_cksm_computes_and_stores_md5():
    server = start_gridftpd(storage={"checksums": ALL})
    rel = "incoming/p4.bin"
    data = put(server, rel, SIZE, 3, "-p", "4")
    check_stored_matches(server, rel, "ADLER32", data)
    check_stored_matches(server, rel, "CRC32C", data)
    # MD5 was stored only if the four streams' blocks happened to come in order; either way
    # CKSM answers it, and then it is stored.
    if stored(server.fs(rel), "MD5") is not None:
        check_stored_matches(server, rel, "MD5", data)
    assert cksm(server, "MD5", rel) == expected("MD5", data)
    check_stored_matches(server, rel, "MD5", data)
    assert cksm(server, "SHA256", rel) == expected("SHA256", data)
    check_stored_matches(server, rel, "SHA256", data)


def test_a_file_changed_after_its_upload_is_never_answered_from_the_stored_value():
    server = start_gridftpd(storage={"checksums": ALL})
    rel = "incoming/changed.bin"
    path = server.fs(rel)
    data = put(server, rel, 3 * MIB + 1, 4)
    check_stored_matches(server, rel, "ADLER32", data)

    # A different size: a fresh read, which is stored in turn.
    with open(path, "ab") as f:
        f.write(b"!")
    data += b"!"
    for alg in ALL:
        assert cksm(server, alg, rel) == expected(alg, data), f"CKSM {alg} after an append"
        check_stored_matches(server, rel, alg, data)

    # The same size, other content and another mtime.
    before = os.stat(path)
    with open(path, "r+b") as f:
        f.write(b"X" * 100)
    data = b"X" * 100 + data[100:]
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1))
    for alg in ALL:
        assert cksm(server, alg, rel) == expected(alg, data), f"CKSM {alg} after a rewrite"
        check_stored_matches(server, rel, alg, data)

    # Only the mtime: the value is not trusted, though the bytes are the same.
    plant(path, "ADLER32", "0badc0de")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 2))
    assert cksm(server, "ADLER32", rel) == expected("ADLER32", data)


def test_append_removes_stored_values_and_stores_none_of_its_own():
    server = start_gridftpd(storage={"checksums": ALL})
    rel = "incoming/appended.bin"
    data = put(server, rel, MIB + 5, 5)
    check_stored_matches(server, rel, "ADLER32", data)
    extra = os.path.join(make_temp_dir("cksum-extra-"), "extra.bin")
    with open(extra, "wb") as f:
        f.write(b"appended bytes")
    ftp = server.ftp()
    try:
        with open(extra, "rb") as f:
            ftp.storbinary(f"APPE {server.path(rel)}", f)
    finally:
        ftp.quit()
    data += b"appended bytes"
    with open(server.fs(rel), "rb") as f:
        assert f.read() == data
    # The append saw only its own bytes: nothing is stored for the file it made.
    for alg in ALL:
        assert stored(server.fs(rel), alg) is None, f"{alg} stored after APPE"
    assert cksm(server, "CRC32C", rel) == expected("CRC32C", data)
    check_stored_matches(server, rel, "CRC32C", data)


if __name__ == "__main__":
    run_tests(globals())
