"""The Prometheus endpoint (issue 13, acceptance 4): `promtool check metrics` passes on a scrape
taken during a transfer, and the byte and transfer counters match the transfer log, for
sessions served in the listener (anonymous ftp) and in session processes (GSI as root, with the
real globus-url-copy at -dcpriv -p 4)."""

import ftplib
import re
import subprocess
import threading
import time
import urllib.error
import urllib.request

from gridftp_harness import (MIB, assert_file_digest, ftp_retr_bytes, make_file, make_temp_dir,
                             make_tree_readable, require_tool, run_peer, run_tests,
                             shared_test_pki, start_gridftpd, wait_until)

METRICS_RE = re.compile(r"metrics on (\S+) port (\d+)")
SAMPLE_RE = re.compile(r"^(\w+)(?:\{([^}]*)\})? (\S+)$")


def metrics_url(server) -> str:
    found = wait_until(lambda: METRICS_RE.search(server.log_text()), 10, "the metrics log line")
    return f"http://{found.group(1)}:{found.group(2)}/metrics"


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        return response.read().decode()


def promtool_check(text: str) -> None:
    result = subprocess.run([require_tool("promtool"), "check", "metrics"], input=text,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, (f"promtool check metrics failed:\n{result.stdout}"
                                    f"{result.stderr}\n--- scrape ---\n{text[:3000]}")


def samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    out = []
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        m = SAMPLE_RE.match(line)
        assert m, f"not a sample line: {line!r}"
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
        out.append((m.group(1), labels, float(m.group(3))))
    return out


def total(text: str, name: str, **match) -> float:
    return sum(value for metric, labels, value in samples(text)
               if metric == name and all(labels.get(k) == v for k, v in match.items()))


UPLOADS = {"STOR", "ESTO", "APPE", "STOU"}


def assert_counters_match_log(text: str, records: list[dict], what: str) -> None:
    for direction in ("sent", "received"):
        mine = [r for r in records if (r["command"] in UPLOADS) == (direction == "received")]
        logged_bytes = sum(r["bytes"] for r in mine)
        counted = total(text, "gridftpd_transfer_bytes_total", direction=direction)
        assert counted == logged_bytes, (f"{what}: {direction} bytes {counted} in the metrics, "
                                         f"{logged_bytes} in the transfer log")
        assert total(text, "gridftpd_transfers_total", direction=direction) == len(mine), (
            f"{what}: {direction} transfers counted differ from the transfer log's {len(mine)}")


def test_anonymous_sessions_scrape_during_a_transfer_and_match_the_log():
    server = start_gridftpd(metrics={"enabled": True, "port": 0})
    url = metrics_url(server)
    make_file(server.fs("big.bin"), 64 * MIB, seed=3)
    small = make_file(server.fs("small.bin"), MIB + 5, seed=4)
    scraped_during = {}

    def slow_get():
        with server.ftp() as ftp:
            ftp.voidcmd("TYPE I")
            conn = ftp.transfercmd("RETR big.bin")
            got = 0
            while chunk := conn.recv(256 * 1024):
                got += len(chunk)
                if "text" not in scraped_during and got > 8 * MIB:
                    scraped_during["text"] = scrape(url)
                    scraped_during["active"] = total(scraped_during["text"],
                                                     "gridftpd_sessions_active")
                time.sleep(0.002)
            conn.close()
            ftp.voidresp()
            ftp.quit()
        scraped_during["bytes"] = got

    worker = threading.Thread(target=slow_get)
    worker.start()
    with server.ftp() as ftp:
        assert len(ftp_retr_bytes(ftp, "small.bin")) == MIB + 5
        try:
            ftp_retr_bytes(ftp, "missing.bin")
            raise AssertionError("RETR of a missing file succeeded")
        except ftplib.error_perm as error:
            assert str(error).startswith("550")
        with open(server.fs("small.bin"), "rb") as f:
            ftp.storbinary("STOR incoming/up.bin", f)
        ftp.quit()
    worker.join(timeout=120)
    assert scraped_during.get("bytes") == 64 * MIB, "the slow get did not finish"
    assert "text" in scraped_during, "no scrape was taken during the transfer"
    promtool_check(scraped_during["text"])
    assert scraped_during["active"] >= 1, "no active session counted during the transfer"
    assert_file_digest(server.fs("incoming/up.bin"), small, "STOR incoming/up.bin")
    # A RETR refused before any data (550) is an error reply, not a transfer record.
    wait_until(lambda: len(server.transfer_records()) >= 3, 20, "three transfer records")
    after = scrape(url)
    promtool_check(after)
    assert_counters_match_log(after, server.transfer_records(), "anonymous ftp")
    assert total(after, "gridftpd_logins_total", method="anonymous", outcome="ok") == 2
    assert total(after, "gridftpd_error_replies_total", code="550") >= 1


def test_session_processes_count_into_the_listener_endpoint():
    """GSI as root: each session is its own process, yet the listener's endpoint counts them."""
    pki = shared_test_pki()
    server = start_gridftpd(gsi=pki, metrics={"enabled": True, "port": 0})
    url = metrics_url(server)
    digest = make_file(server.fs("data/g.bin"), 5 * MIB + 7, seed=5)
    make_tree_readable(server.fs("data"))
    out = make_temp_dir("metrics-gsi-") + "/g.bin"
    base = f"gsiftp://127.0.0.1:{server.port}"
    run_peer(["globus-url-copy", "-dcpriv", "-p", "4", f"{base}/data/g.bin", f"file://{out}"],
             env=pki.client_env("test"), timeout=120, what="gsiftp -dcpriv -p 4 get")
    assert_file_digest(out, digest, "gsiftp get")
    run_peer(["globus-url-copy", "-dcpriv", "-p", "4", f"file://{out}",
              f"{base}/incoming/g2.bin"], env=pki.client_env("test"), timeout=120,
             what="gsiftp -dcpriv -p 4 put")
    assert_file_digest(server.fs("incoming/g2.bin"), digest, "gsiftp put")
    wait_until(lambda: len(server.transfer_records()) >= 2, 20, "two transfer records")
    text = scrape(url)
    promtool_check(text)
    assert_counters_match_log(text, server.transfer_records(), "GSI session processes")
    assert total(text, "gridftpd_transfer_bytes_total", mode="extended_block",
                 security="private") == 2 * (5 * MIB + 7)
    assert total(text, "gridftpd_logins_total", method="gsi", outcome="ok") == 2


def test_the_endpoint_answers_only_metrics():
    server = start_gridftpd(metrics={"enabled": True, "port": 0})
    url = metrics_url(server)
    try:
        urllib.request.urlopen(url.replace("/metrics", "/other"), timeout=10)
        raise AssertionError("a path other than /metrics was answered")
    except urllib.error.HTTPError as error:
        assert error.code == 404
    assert "metrics on" not in start_gridftpd().log_text(), "the endpoint is on by default"


if __name__ == "__main__":
    run_tests(globals())
