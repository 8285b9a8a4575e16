"""gridbench end to end on a tiny study: gridftpd (the build under test) at levels none and
dcpriv, gridcp as the client, two 8 MiB memory-to-memory runs. The client named in the study
is a wrapper that fails every -dcpriv transfer, so one run must be recorded as failed with
the client's reason while the study completes and renders; the other run's throughput must
match bytes / duration of the receiving record in the server's transfer log kept in the
study directory (within 2%)."""

import json
import os
import stat
import subprocess

from gridftp_harness import REPO_ROOT, gridcp_binary, gridftpd_binary, make_temp_dir, run_tests

GRIDBENCH = os.path.join(REPO_ROOT, "bench", "gridbench", "gridbench")

STUDY = """
[study]
repetitions = 1
order = "sequential"
run_timeout_seconds = 300

[sweep]
level = ["none", "dcpriv"]
streams = [2]
client = ["gridcp"]

[[dataset]]
kind = "memory"
size = "8M"

[ceilings]
iperf3_seconds = 0
openssl_seconds = 0

[binaries]
gridftpd = "{gridftpd}"
gridcp = "{wrapper}"
"""

WRAPPER = """#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = -dcpriv ]; then echo "error: forced failure of a -dcpriv run" >&2; exit 3; fi
done
exec {gridcp} "$@"
"""


def test_failed_run_is_recorded_and_throughput_matches_the_transfer_log():
    work = make_temp_dir("gridbench-e2e-")
    wrapper = os.path.join(work, "gridcp-fails-dcpriv")
    with open(wrapper, "w") as f:
        f.write(WRAPPER.format(gridcp=gridcp_binary()))
    os.chmod(wrapper, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    study = os.path.join(work, "tiny.toml")
    with open(study, "w") as f:
        f.write(STUDY.format(gridftpd=os.path.abspath(gridftpd_binary()), wrapper=wrapper))
    out = os.path.join(work, "out")
    result = subprocess.run([GRIDBENCH, "run", study, "--out", out], capture_output=True,
                            text=True, timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"gridbench run failed:\n{output}"
    assert "[run 2 of 2" in output and "finished" in output, output

    with open(os.path.join(out, "runs.jsonl")) as f:
        runs = [json.loads(line) for line in f]
    by_level = {r["level"]: r for r in runs}
    assert len(runs) == 2 and set(by_level) == {"none", "dcpriv"}, runs
    failed = by_level["dcpriv"]
    assert failed["status"] == "failed", failed
    assert failed["reason"] == "client exit 3: error: forced failure of a -dcpriv run", failed
    good = by_level["none"]
    assert good["status"] == "ok" and good["throughput_source"] == "server log", good
    assert good["bytes"] == good["log_bytes"] == 8 << 20, good

    with open(os.path.join(out, good["server_log"])) as f:
        records = [json.loads(line) for line in f if line.strip()]
    # The server's warm-up transfer (1 byte) is in the same log; the run moved 8 MiB.
    received = [r for r in records if r["command"] in ("ESTO", "STOR") and r["result"] == "ok"
                and r["bytes"] == 8 << 20]
    assert len(received) == 1, f"one receiving record of the run expected:\n{records}"
    from_log = received[0]["bytes"] / received[0]["duration_seconds"]
    assert abs(good["throughput_bytes_per_second"] / from_log - 1) <= 0.02, (good, from_log)
    assert good["wall_seconds"] >= received[0]["duration_seconds"], good

    with open(os.path.join(out, "summary.md")) as f:
        summary = f.read()
    assert "## Failed runs" in summary and "forced failure of a -dcpriv run" in summary, summary
    assert "| none | 2 | clear |" in summary, summary
    with open(os.path.join(out, "study.json")) as f:
        meta = json.load(f)
    assert meta["state"] == "finished" and meta["planned_runs"] == 2, meta
    assert os.listdir(os.path.join(out, "plots")), "no plots drawn"
    with open(os.path.join(out, "runs.csv")) as f:
        assert len(f.read().strip().splitlines()) == 3, "header and two runs"


if __name__ == "__main__":
    run_tests(globals())
