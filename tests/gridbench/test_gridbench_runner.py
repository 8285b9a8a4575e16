"""gridbench's run loop (bench/gridbench/runner.py) with a stand-in executor: a run that fails
is recorded as failed with its reason and the study goes on; Ctrl-C ends the loop keeping
every run measured; the progress line counts runs and gives an ETA. Also the client command
lines of each dataset and the one-line reason of a failed client (transfers.py). No
transfers."""

import os

from gridftp_harness import make_temp_dir, run_tests
from gridbench import cli, records
from gridbench.plan import expand
from gridbench.runner import Progress, run_plan
from gridbench.study import parse_study
from gridbench.transfers import RunFailed, client_argv, dataset_dir, failure_reason

STUDY = """
[study]
repetitions = 2
order = "rotate"
[sweep]
level = ["none", "dcpriv"]
streams = [1, 4]
[[dataset]]
kind = "memory"
size = "1M"
"""


class FakeExecutor:
    """Measures nothing; fails the runs named in `fail`, raises KeyboardInterrupt at run
    `interrupt_at` as Ctrl-C would."""

    def __init__(self, fail: dict[int, Exception], interrupt_at: int | None = None):
        self.fail, self.interrupt_at, self.ran = fail, interrupt_at, []

    def run(self, run):
        self.ran.append(run.index)
        if run.index == self.interrupt_at:
            raise KeyboardInterrupt
        if run.index in self.fail:
            raise self.fail[run.index]
        return {"bytes": 1 << 20, "wall_seconds": 0.5, "throughput_bytes_per_second": 4e6,
                "server_cpu_seconds": 0.2, "client_cpu_seconds": 0.01, "cipher": "",
                "cpu_seconds_per_gb": 200.0}


def study_dir(plan) -> str:
    directory = make_temp_dir("gridbench-runner-")
    records.save_study(directory, {"name": "fake", "planned_runs": len(plan.runs),
                                   "state": "finished", "machine": {"cores": 2}})
    return directory


def test_failed_run_is_recorded_with_its_reason_and_the_study_goes_on():
    plan = expand(parse_study(STUDY, "fake.toml"))
    directory = study_dir(plan)
    lines = []
    executor = FakeExecutor({2: RunFailed("client exit 1: 451 forced failure"),
                             5: ValueError("unexpected")})
    done, interrupted = run_plan(plan, executor, directory, lines.append)
    assert not interrupted and executor.ran == list(range(1, 9))
    saved = records.load_runs(directory)
    assert saved == done and len(saved) == 8
    by_index = {r["index"]: r for r in saved}
    assert by_index[2]["status"] == "failed"
    assert by_index[2]["reason"] == "client exit 1: 451 forced failure"
    assert by_index[5]["status"] == "failed" and by_index[5]["reason"] == "unexpected (ValueError)"
    assert all(r["status"] == "ok" and r["reason"] == "" for i, r in by_index.items()
               if i not in (2, 5))
    assert by_index[2]["level"] == plan.runs[1].variant.level, "the variant is in the record"
    assert any("FAILED: client exit 1: 451 forced failure" in line for line in lines), lines
    cli.render(directory)
    with open(os.path.join(directory, "summary.md")) as f:
        summary = f.read()
    assert "| 2 |" in summary and "451 forced failure" in summary, summary


def test_ctrl_c_keeps_what_was_measured():
    plan = expand(parse_study(STUDY, "fake.toml"))
    directory = study_dir(plan)
    lines = []
    done, interrupted = run_plan(plan, FakeExecutor({}, interrupt_at=4), directory,
                                 lines.append)
    assert interrupted
    assert [r["index"] for r in records.load_runs(directory)] == [1, 2, 3]
    assert lines[-1] == "interrupted: 3 of 8 runs recorded", lines[-1]
    written = cli.render(directory)
    assert "summary.md" in written and any(w.endswith(".png") for w in written), written


def test_progress_line_counts_runs_and_gives_an_eta():
    plan = expand(parse_study(STUDY, "fake.toml"))
    now = [100.0]
    lines = []
    progress = Progress(len(plan.runs), lines.append, clock=lambda: now[0])
    progress.before(plan.runs[0])
    assert lines[-1].startswith("[run 1 of 8, repetition 1] ") and lines[-1].endswith("(ETA ?)")
    now[0] += 30
    progress.after({"status": "ok", "throughput_bytes_per_second": 2e9, "wall_seconds": 1.0,
                    "server_cpu_seconds": 1.5, "client_cpu_seconds": 0.1, "cipher": ""})
    progress.before(plan.runs[1])
    assert lines[-1].startswith("[run 2 of 8, repetition 1]")
    assert lines[-1].endswith("(ETA 0:03:30)"), lines[-1]    # 30 s a run, 7 runs left
    assert "2.000 GB/s" in lines[1]


def test_client_command_lines():
    study = parse_study(STUDY.replace('level = ["none", "dcpriv"]',
                                      'level = ["none", "dcau", "dcsafe", "integrity", "dcpriv"]')
                        + '[[dataset]]\nkind = "disk"\nsize = "1M"\ndirectory = "/var/tmp"\n'
                        + '[[dataset]]\nkind = "tree"\nfiles = 3\nfile_size = "1K"\n'
                        + 'directory = "/var/tmp"\n', "argv.toml")
    plan = expand(study)
    memory, disk, tree = study.datasets
    src, dst = "gsiftp://localhost:1", "gsiftp://localhost:2"

    def variant(**fields):
        return next(v for v in plan.variants if all(getattr(v, k) == w for k, w in fields.items()))

    v = variant(dataset=memory.name, level="none", streams=4)
    assert client_argv("guc", v, memory, src, dst, "run-1") == [
        "guc", "-nodcau", "-p", "4", "-len", str(1 << 20), f"{src}/dev/zero", f"{dst}/dev/null"]
    assert client_argv("guc", variant(dataset=memory.name, level="dcau", streams=1), memory,
                       src, dst, "r")[1:3] == ["-p", "1"], "dcau is the clients' default"
    for level, flag in (("dcsafe", "-dcsafe"), ("integrity", "-dcsafe"), ("dcpriv", "-dcpriv")):
        assert client_argv("guc", variant(dataset=memory.name, level=level, streams=1), memory,
                           src, dst, "r")[1] == flag
    base = dataset_dir(disk)
    assert client_argv("guc", variant(dataset=disk.name, level="dcpriv", streams=1), disk, src,
                       dst, "run-7.bin")[-2:] == [f"{src}{base}/src.bin",
                                                  f"{dst}{base}/out/run-7.bin"]
    argv = client_argv("guc", variant(dataset=tree.name, level="none", streams=1), tree, src,
                       dst, "run-9")
    assert argv[-6:] == ["-r", "-cc", "1", "-cd", f"{src}{dataset_dir(tree)}/tree/",
                         f"{dst}{dataset_dir(tree)}/out/run-9/"]
    udpx = parse_study(STUDY.replace(
        "[sweep]", '[sweep]\ntransport = ["udpx"]\nclient = ["gridcp", "globus-url-copy"]'),
        "u.toml")
    for v in expand(udpx).variants:
        argv = client_argv(v.client, v, udpx.datasets[0], src, dst, "r")
        wanted = ["-udp"] if v.client == "gridcp" else ["-dcstack", "udpx"]
        assert argv[2:2 + len(wanted)] == wanted and "-p" not in argv, argv


def test_failure_reason_is_one_line():
    message = ("run 3: expected exit 0\ncommand: globus-url-copy -p 1 a b\nexit status: 1\n"
               "--- stdout ---\n\n--- stderr ---\nerror: the server sent an error response:\n"
               "  451 forced failure\n\n")
    assert failure_reason(message) == "client exit 1: 451 forced failure"
    hung = "run 4: peer command hung (> 300s)\ncommand: x\nexit status: TIMEOUT\n"
    assert failure_reason(hung) == "client peer command hung (> 300s)"


if __name__ == "__main__":
    run_tests(globals())
