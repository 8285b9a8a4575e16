"""gridcp against a real FTPS server that is not ours: Debian's vsftpd 3.0.3 with
require_ssl_reuse=YES, TLS forced for logins and data (issue 13, acceptance 5). vsftpd refuses
every data connection whose TLS does not resume the control connection's session (522), and it
has no MODE E.

  * ftps:// get and put, a 5 MiB + 7 B file and an empty one, byte-identical by SHA-256;
  * -p 4 get and put: gridcp sees vsftpd refuse MODE E, says so, and moves the file over one
    stream-mode connection, byte-identical;
  * -f with several gets and puts: many data connections under one control connection;
  * vsftpd's own log (debug_ssl) shows that every data connection resumed the session;
  * a stream put cut off by killing the vsftpd session's processes resumes under -rst: SIZE of
    what the first STOR wrote in place, REST n + STOR, and only the rest moves.
"""

import os
import re
import signal
import subprocess
import time

from gridftp_harness import (MIB, file_url, gridcp_binary, make_file, make_self_signed_cert,
                             make_temp_dir, run_peer, run_tests, sha256_file, start_vsftpd,
                             wait_until)

SIZES = {"big.bin": 5 * MIB + 7, "empty.bin": 0}


def ftps_server():
    cert, key = make_self_signed_cert(make_temp_dir("vsftpd-cert-"))
    server = start_vsftpd(cert, key)
    server.cert = cert
    return server


def ftps_url(server, rel: str) -> str:
    return f"ftps://127.0.0.1:{server.port}{server.path(rel)}"


def gridcp(server, args: list[str], what: str, expect_rc: int | None = 0):
    # The server's self-signed certificate is the only CA gridcp needs.
    return run_peer([gridcp_binary(), "--ftps-ca", server.cert] + args, timeout=120, what=what,
                    expect_rc=expect_rc)


def resumed_data_connections(server) -> tuple[int, int]:
    """(data connections that resumed the session, handshakes that did not) in vsftpd's log.
    Each session's control connection is one of the second kind."""
    handshakes = re.findall(r"SSL version: [^,]+, SSL cipher: [^,]+, (reused|not reused)",
                            server.vsftpd_log())
    return handshakes.count("reused"), handshakes.count("not reused")


def test_get_and_put_with_session_reuse_required():
    server = ftps_server()
    digests = {name: make_file(server.fs(name), size, seed=60 + i)
               for i, (name, size) in enumerate(SIZES.items())}
    for name in SIZES:
        os.chmod(server.fs(name), 0o644)
    out = make_temp_dir("gridcp-vsftpd-")
    runs = 0
    for name, digest in digests.items():
        local = os.path.join(out, name)
        result = gridcp(server, [ftps_url(server, name), file_url(local)], f"get {name}")
        assert sha256_file(local) == digest, f"get {name} differs\n{result.describe()}"
        result = gridcp(server, [file_url(local), ftps_url(server, f"incoming/{name}")],
                        f"put {name}")
        assert sha256_file(server.fs(f"incoming/{name}")) == digest, (
            f"put {name} differs\n{result.describe()}")
        runs += 2
    # -p 4: vsftpd answers MODE E with 504; gridcp says so and runs one stream instead.
    local = os.path.join(out, "p4.bin")
    for what, args, check in (
            ("-p 4 get", [ftps_url(server, "big.bin"), file_url(local)], local),
            ("-p 4 put", [file_url(local), ftps_url(server, "incoming/p4.bin")],
             server.fs("incoming/p4.bin"))):
        result = gridcp(server, ["-p", "4"] + args, what)
        assert sha256_file(check) == digests["big.bin"], f"{what} differs\n{result.describe()}"
        assert "no MODE E" in result.stderr, f"{what}: the fallback was silent\n{result.describe()}"
        runs += 1
    # Several files over one control connection per server (-f): each data connection resumes
    # the same session, also after earlier ones have ended.
    pairs = os.path.join(out, "pairs.txt")
    with open(pairs, "w") as f:
        for name in SIZES:
            f.write(f"{ftps_url(server, name)} {file_url(os.path.join(out, 'f-' + name))}\n")
            f.write(f"{file_url(os.path.join(out, name))} "
                    f"{ftps_url(server, 'incoming/f-' + name)}\n")
    result = gridcp(server, ["-f", pairs], "-f with gets and puts")
    for name, digest in digests.items():
        for path in (os.path.join(out, "f-" + name), server.fs("incoming/f-" + name)):
            assert sha256_file(path) == digest, f"-f: {path} differs\n{result.describe()}"
    data_connections, control_connections = runs + 2 * len(SIZES), runs + 2
    reused, full = resumed_data_connections(server)
    assert reused == data_connections and full == control_connections, (
        f"{data_connections} data connections and {control_connections} control connections "
        f"expected; vsftpd logged {reused} resumed and {full} full handshakes\n"
        f"{server.vsftpd_log()[-4000:]}")
    server.assert_alive("after the transfers")


def test_stream_put_resumes_after_the_session_is_killed():
    server = ftps_server()
    src = make_temp_dir("gridcp-vsftpd-rst-")
    size = 256 * MIB
    digest = make_file(os.path.join(src, "big.bin"), size, seed=66)
    target = server.fs("incoming/big.bin")
    argv = [gridcp_binary(), "-dbg", "--ftps-ca", server.cert, "-rst", "-rst-interval", "1",
            "-rst-retries", "10", file_url(os.path.join(src, "big.bin")),
            ftps_url(server, "incoming/big.bin")]
    client = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: os.path.exists(target) and os.path.getsize(target) > 0, 60,
                   "the first bytes of the put", interval=0.001)
        # Freeze the client, then end the session on the server side: vsftpd writes in place,
        # so what it wrote stays in the file.
        os.kill(client.pid, signal.SIGSTOP)
        for pid in server.session_pids():
            os.kill(pid, signal.SIGKILL)
        wait_until(lambda: not server.session_pids(), 30, "the end of the vsftpd session")
        held = os.path.getsize(target)
        os.kill(client.pid, signal.SIGCONT)
        output, _ = client.communicate(timeout=300)
    finally:
        if client.poll() is None:
            os.kill(client.pid, signal.SIGCONT)
            client.kill()
            client.wait()
    text = output.decode(errors="replace")
    assert client.returncode == 0, (
        f"gridcp -rst did not recover: rc={client.returncode}\n{' '.join(argv)}\n{text[-6000:]}")
    assert 0 < held < size, f"the kill did not land mid-file ({held} of {size} bytes)"
    assert sha256_file(target) == digest, f"the resumed put differs\n{text[-6000:]}"
    rest = re.findall(r"C: REST (\d+)", text)
    assert len(rest) == 1 and 0 < int(rest[0]) <= held, (
        f"expected one REST within the {held} bytes held, got {rest}\n{text[-6000:]}")
    uploads = [int(n) for n in re.findall(r"OK UPLOAD: .*\"/incoming/big.bin\", (\d+) bytes",
                                          server.vsftpd_log())]
    assert uploads == [size - int(rest[0])], (
        f"the resumed STOR should carry only the rest ({size - int(rest[0])} bytes): {uploads}")
    server.assert_alive("after the killed session")


if __name__ == "__main__":
    run_tests(globals())
