"""gridbench's Markdown summary and plots (bench/gridbench/report.py, plots.py) rendered from a
recorded study (fixtures/recorded: study.json and runs.jsonl as `gridbench run` writes them,
with made-up figures), and `gridbench report DIR`, which renders a study directory again. No
transfers."""

import csv
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys

from gridftp_harness import make_temp_dir, run_tests
from gridbench import plots, records, report

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "recorded")
GRIDBENCH = os.path.join(HERE, "..", "..", "bench", "gridbench", "gridbench")


def fixture():
    return records.load_study_meta(FIXTURE), records.load_runs(FIXTURE)


def median_rate(runs, **fields) -> float:
    values = [r["throughput_bytes_per_second"] for r in runs if r["status"] == "ok"
              and all(r[k] == v for k, v in fields.items())]
    assert values, fields
    return statistics.median(values)


def table_rows(markdown: str, heading: str) -> list[list[str]]:
    """The rows of the first table after `heading`, as lists of cell texts."""
    lines = markdown.split(heading, 1)[1].splitlines()
    rows = []
    for line in lines:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif rows:
            break
    return rows


def test_loopback_table_has_both_servers_ratios_and_ciphers():
    meta, runs = fixture()
    markdown = report.render(meta, runs)
    rows = table_rows(markdown, "### memory 2 GiB, tcp, client globus-url-copy")
    header, body = rows[0], rows[2:]
    for column in ("level", "-p", "cipher (gridftpd log)", "cipher (globus, on the wire)",
                   "gridftpd GB/s (min-max, n)",
                   "globus GB/s (min-max, n)", "gridftpd/globus", "gridftpd/none",
                   "globus/none", "gridftpd CPU bound GB/s"):
        assert column in header, f"{column!r} missing from {header}"
    col = {name: i for i, name in enumerate(header)}
    got = {(r[col["level"]], r[col["-p"]]): r for r in body}
    assert sorted(got) == sorted((lv, p) for lv in ("none", "dcau", "integrity", "dcpriv")
                                 for p in ("1", "4")), sorted(got)
    for (level, p), row in got.items():
        ours = median_rate(runs, server="gridftpd", level=level, streams=int(p),
                           dataset="memory 2 GiB")
        assert row[col["gridftpd GB/s (min-max, n)"]].startswith(f"{ours / 1e9:.2f} ("), row
        if level != "integrity":
            theirs = median_rate(runs, server="globus-gridftp-server", level=level,
                                 streams=int(p), dataset="memory 2 GiB")
            assert row[col["gridftpd/globus"]] == f"{ours / theirs:.2f}", (row, ours / theirs)
        else:
            assert row[col["globus GB/s (min-max, n)"]] == "-", "globus has no integrity level"
        base = median_rate(runs, server="gridftpd", level="none", streams=int(p),
                           dataset="memory 2 GiB")
        assert row[col["gridftpd/none"]] == f"{ours / base:.2f}"
    assert got[("dcpriv", "4")][col["cipher (gridftpd log)"]] == "TLSv1.3 TLS_AES_128_GCM_SHA256"
    assert got[("integrity", "1")][col["cipher (gridftpd log)"]] == "TLSv1.2 ECDHE-RSA-NULL-SHA"
    assert got[("none", "1")][col["cipher (gridftpd log)"]] == "clear"
    wire = col["cipher (globus, on the wire)"]
    assert got[("dcpriv", "1")][wire] == "TLSv1.3 TLS_AES_256_GCM_SHA384"
    assert got[("dcau", "4")][wire] == "clear after TLSv1.3 TLS_AES_256_GCM_SHA384"
    assert got[("integrity", "4")][wire] == "-" and got[("none", "4")][wire] == "clear"
    assert got[("dcpriv", "1")][col["globus CPU bound GB/s"]] != "-", \
        "the captured cipher's openssl speed gives Globus a bound too"
    assert got[("dcpriv", "1")][col["gridftpd CPU bound GB/s"]] != "-"
    assert got[("dcau", "1")][col["gridftpd CPU bound GB/s"]] == "-"
    assert "n=2" in got[("dcpriv", "4")][col["globus GB/s (min-max, n)"]] or \
        "n=3" in got[("dcpriv", "4")][col["globus GB/s (min-max, n)"]]


def test_failed_runs_ceilings_wan_and_exclusions_are_listed():
    meta, runs = fixture()
    markdown = report.render(meta, runs)
    failed = table_rows(markdown, "## Failed runs")
    (bad,) = [r for r in runs if r["status"] != "ok"]
    assert [str(bad["index"])] == [row[0] for row in failed[2:]]
    assert bad["reason"] in failed[2][2]
    assert f"runs: {len(runs)} of {meta['planned_runs']} planned, 1 failed" in markdown
    assert "openssl speed -evp aes-128-gcm, one core | 4.40 GB/s" in markdown
    assert "iperf3 loopback -P 4 | 4.50 GB/s" in markdown
    wan = table_rows(markdown, "## Goodput through the WAN emulator")
    assert len(wan) == 2 + 4, wan   # header, rule, 2 RTTs x 2 losses
    assert "tcp gridftpd dcau -p 8 Mb/s" in wan[0] and "udpx gridftpd dcau -p 8 Mb/s" in wan[0]
    assert wan[2][:3] == ["10", "0", "284.0"], wan[2]
    assert "globus-gridftp-server integrity tcp" in markdown.split("cannot run", 1)[1]


def png_size(path: str) -> tuple[int, int]:
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def test_plots_are_drawn():
    _, runs = fixture()
    out = make_temp_dir("gridbench-plots-")
    written = plots.render(runs, out)
    names = sorted(os.path.basename(p) for p in written)
    for stem in ("throughput-vs-streams-memory-2-gib-tcp-globus-url-copy",
                 "cost-per-byte-memory-2-gib-tcp-globus-url-copy",
                 "goodput-vs-rtt-memory-256-mib-gridcp-300-mb-s",
                 "goodput-vs-loss-memory-256-mib-gridcp-300-mb-s"):
        for ext in ("png", "svg"):
            assert f"{stem}.{ext}" in names, f"{stem}.{ext} not among {names}"
    for path in written:
        size = os.path.getsize(path)
        assert size > 10_000, f"{path}: only {size} bytes"
        if path.endswith(".png"):
            width, height = png_size(path)
            assert width > 400 and height > 300, (path, width, height)
        else:
            with open(path, encoding="utf-8") as f:
                svg = f.read()
            assert "<svg" in svg and svg.count("<path") > 10, path
    with open(os.path.join(out, "throughput-vs-streams-memory-2-gib-tcp-globus-url-copy.svg")) as f:
        svg = f.read()
    for label in ("none", "dcau", "integrity", "dcpriv", "gridftpd", "globus", "parallel streams"):
        assert label in svg, f"{label!r} is not drawn"
    with open(os.path.join(out, "goodput-vs-rtt-memory-256-mib-gridcp-300-mb-s.svg")) as f:
        svg = f.read()
    assert "udpx gridftpd dcau -p 8" in svg and "RTT (ms)" in svg


def test_gridbench_report_renders_a_study_directory_again():
    directory = os.path.join(make_temp_dir("gridbench-report-"), "study")
    shutil.copytree(FIXTURE, directory)
    result = subprocess.run([sys.executable, GRIDBENCH, "report", directory],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    runs = records.load_runs(FIXTURE)
    with open(os.path.join(directory, "runs.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0].keys()) == list(records.RUN_FIELDS)
    assert len(rows) == len(runs)
    assert float(rows[0]["throughput_bytes_per_second"]) == runs[0]["throughput_bytes_per_second"]
    with open(os.path.join(directory, "runs.json")) as f:
        assert json.load(f) == runs
    with open(os.path.join(directory, "summary.md")) as f:
        assert f.read() == report.render(*fixture())
    drawn = os.listdir(os.path.join(directory, "plots"))
    assert len([n for n in drawn if n.endswith(".png")]) == 4, drawn


def test_gridbench_report_on_a_directory_without_runs():
    empty = make_temp_dir("gridbench-empty-")
    result = subprocess.run([sys.executable, GRIDBENCH, "report", empty], capture_output=True,
                            text=True, timeout=120)
    output = result.stdout + result.stderr
    assert result.returncode == 2 and "study.json" in output and \
        "not a gridbench study directory" in output, output


if __name__ == "__main__":
    run_tests(globals())
