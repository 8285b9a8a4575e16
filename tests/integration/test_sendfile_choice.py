"""Which send MODE E blocks take ([storage] sendfile, docs/STORAGE.md "Sending"): with
"other-hosts", the default, a loopback peer gets the copying send (read a slice, send it);
"always" keeps sendfile(2) for it and "never" copies for everyone. Every setting must deliver
the file byte for byte with one and with four streams, for a file that ends inside a block and
inside a slice; stream mode (sendfile whatever the setting) alongside.
"""

import os

from gridftp_harness import (MIB, file_url, gridcp_binary, make_file, make_temp_dir, run_peer,
                             run_tests, start_gridftpd)

SIZE = 5 * MIB + 128 * 1024 + 3  # past 256 KiB blocks and 128 KiB slices, with a ragged end


def get(server, rel: str, *flags: str) -> bytes:
    dest = os.path.join(make_temp_dir("sendfile-get-"), "f.bin")
    run_peer([gridcp_binary(), *flags, server.url(rel), file_url(dest)], timeout=120,
             what=f"gridcp {' '.join(flags)} get {rel}")
    with open(dest, "rb") as f:
        return f.read()


def check_every_mode(sendfile: str) -> None:
    server = start_gridftpd(storage={"sendfile": sendfile})
    try:
        make_file(server.fs("src.bin"), SIZE, seed=7)
        with open(server.fs("src.bin"), "rb") as f:
            data = f.read()
        for flags in ([], ["-p", "1"], ["-p", "4"]):
            got = get(server, "src.bin", *flags)
            assert got == data, f"sendfile={sendfile} {flags}: {len(got)} bytes, differs"
    finally:
        server.stop()


def test_other_hosts_default_copies_to_loopback_and_delivers_every_byte():
    check_every_mode("other-hosts")


def test_always_uses_sendfile_to_loopback_and_delivers_every_byte():
    check_every_mode("always")


def test_never_copies_and_delivers_every_byte():
    check_every_mode("never")


def test_an_unknown_setting_is_refused_at_start():
    try:
        start_gridftpd(storage={"sendfile": "sometimes"})
    except Exception as error:  # the harness raises when the server exits before it listens
        assert "storage.sendfile" in str(error), f"the refusal does not name the key: {error}"
    else:
        raise AssertionError("gridftpd started with storage.sendfile = 'sometimes'")


if __name__ == "__main__":
    run_tests(globals())
