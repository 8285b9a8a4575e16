"""The probes on the metrics endpoint (docs/METRICS.md, "Probes"; deploy/k8s points the
kubelet at them): /healthz answers 200 while the process serves, /readyz 200 while the control
listener accepts and 503 once SIGTERM has closed it while sessions drain, /metrics is still
scraped then, and any other path is 404. The drain is held open by an upload whose disk write
is stalled (tests/support/slow_fs.py), so the test waits on states, never on the clock."""

import os
import re
import signal
import socket
import threading
import urllib.error
import urllib.request

from gridftp_harness import (MIB, RawControl, make_temp_dir, read_final_reply, run_tests,
                             start_gridftpd, wait_until)
from fuse_mount import anonymous_root_over_fuse
from slow_fs import SlowDisk

METRICS_RE = re.compile(r"metrics on (\S+) port (\d+)")
# Slow enough that the upload is still writing when the test stalls the disk.
THROTTLE = 4 * MIB


def endpoint(server) -> str:
    found = wait_until(lambda: METRICS_RE.search(server.log_text()), 10, "the metrics log line")
    return f"http://{found.group(1)}:{found.group(2)}"


def get(url: str) -> tuple[int, str, str]:
    """Status, Content-Type and body of a GET, error statuses included."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode()


def accepts_control_connections(server) -> bool:
    try:
        with socket.create_connection((server.host, server.port), timeout=5):
            return True
    except OSError:
        return False


def test_serving_server_answers_healthz_readyz_and_metrics():
    server = start_gridftpd(metrics={"enabled": True, "port": 0})
    base = endpoint(server)
    assert get(f"{base}/healthz") == (200, "text/plain; charset=utf-8", "ok\n")
    assert get(f"{base}/readyz") == (200, "text/plain; charset=utf-8", "ready\n")
    status, kind, body = get(f"{base}/metrics")
    assert status == 200 and kind.startswith("text/plain; version=0.0.4"), (status, kind)
    assert "\ngridftpd_sessions_active " in "\n" + body, body[:500]
    assert get(f"{base}/livez")[0] == 404
    server.stop()


def test_draining_server_is_alive_but_not_ready():
    """SIGTERM closes the control listener; a session whose upload cannot end (its disk write is
    held) keeps the server draining for its grace period: meanwhile /readyz is 503, /healthz and
    /metrics still 200. Once the disk lets go the session ends and so does the server."""
    root, backing, control, mountpoint = anonymous_root_over_fuse(make_temp_dir("probes-"))
    disk = SlowDisk(backing, mountpoint, control, rate=THROTTLE)
    try:
        server = start_gridftpd(root, metrics={"enabled": True, "port": 0},
                                timeouts={"shutdown_grace_seconds": 600, "data_seconds": 600})
        base = endpoint(server)
        ctl = RawControl(server.host, server.port)
        ctl.login()
        ctl.expect("TYPE I", 200)
        data = ctl.pasv_connect(timeout=120)
        ctl.expect("STOR /incoming/held.bin", 150)
        payload = os.urandom(32 * MIB)

        def send():
            try:
                data.sendall(payload)
            except OSError:
                pass  # the shutdown cut the data connection
            data.close()
        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        disk.wait_for(lambda s: s["written"] >= MIB, "the upload to reach the slow disk")
        disk.set(rate=THROTTLE, stall=True)
        disk.wait_for(lambda s: s["waiting"] >= 1, "a write held by the stalled disk")
        assert get(f"{base}/readyz")[0] == 200, "not ready before SIGTERM"

        server.proc.send_signal(signal.SIGTERM)
        wait_until(lambda: get(f"{base}/readyz")[0] == 503, 30, "/readyz to say 503 after SIGTERM")
        assert get(f"{base}/readyz") == (503, "text/plain; charset=utf-8",
                                         "not accepting connections\n")
        assert disk.status()["waiting"] >= 1, "the disk let go while the probes were asked"
        assert get(f"{base}/healthz") == (200, "text/plain; charset=utf-8", "ok\n")
        assert get(f"{base}/metrics")[0] == 200
        assert not accepts_control_connections(server), "the control listener is still open"
        assert server.proc.poll() is None, "the server ended while its session was held"

        disk.set()
        code, text, _ = read_final_reply(ctl, 60)
        assert code in (421, 426, 451), f"the held upload at shutdown: {code} {text!r}"
        sender.join(30)
        server.proc.wait(timeout=60)
    finally:
        disk.stop()


if __name__ == "__main__":
    run_tests(globals())
