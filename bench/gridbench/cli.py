"""gridbench's command line.

    gridbench run STUDY.toml [--out DIR] [--dry-run]
    gridbench report DIR

`run` measures the study into DIR (default ./gridbench-NAME-YYYYmmdd-HHMMSS) and renders it;
`report` renders a study directory again from what it recorded: runs.csv, runs.json,
summary.md and plots/. Exit status: 0 when the study ran to its end (failed runs included:
they are recorded), 130 when interrupted (what was measured is kept and rendered), 2 for a
study file or directory that cannot be used.
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import signal
import sys

from . import records, report
from .plan import expand
from .study import Study, StudyError, load_study

SUMMARY_MD = "summary.md"
PLOTS_DIR = "plots"


def say(text: str) -> None:
    print(text, flush=True)


def render(directory: str) -> list[str]:
    """runs.csv, runs.json, summary.md and the plots from study.json and runs.jsonl."""
    from . import plots   # matplotlib: loaded only where figures are drawn
    meta = records.load_study_meta(directory)
    runs = records.load_runs(directory)
    records.write_tables(directory, runs)
    with open(os.path.join(directory, SUMMARY_MD), "w", encoding="utf-8") as f:
        f.write(report.render(meta, runs))
    plot_dir = os.path.join(directory, PLOTS_DIR)
    shutil.rmtree(plot_dir, ignore_errors=True)
    os.makedirs(plot_dir)
    written = [records.RUNS_CSV, records.RUNS_JSON, SUMMARY_MD]
    written += [os.path.relpath(p, directory) for p in plots.render(runs, plot_dir)]
    return written


def cmd_report(args) -> int:
    try:
        written = render(args.directory)
    except records.RecordError as e:
        print(f"gridbench report: {e}", file=sys.stderr)
        return 2
    say(f"rendered {args.directory}: " + ", ".join(written))
    return 0


def _study_meta(study: Study, plan, study_file: str) -> dict:
    return {
        "name": study.name, "description": study.description,
        "study_file": os.path.abspath(study_file), "repetitions": study.repetitions,
        "order": study.order, "seed": study.seed, "planned_runs": len(plan.runs),
        "excluded": plan.excluded, "notes": plan.notes,
        "started": datetime.datetime.now().isoformat(timespec="seconds"),
        "state": "running", "ceilings": {}, "binaries": {}, "machine": {},
    }


def cmd_run(args) -> int:
    try:
        study = load_study(args.study)
    except StudyError as e:
        print(f"gridbench: {e}", file=sys.stderr)
        return 2
    plan = expand(study)
    if not plan.runs:
        print(f"gridbench: {args.study}: the sweep leaves no run to make", file=sys.stderr)
        return 2
    for what, why in plan.excluded:
        say(f"not run: {what}: {why}")
    for note in plan.notes:
        say(f"note: {note}")
    say(f"{len(plan.variants)} variants x {study.repetitions} repetitions = {len(plan.runs)} runs")
    if args.dry_run:
        for run in plan.runs:
            say(f"  {run.index:>4} rep {run.repetition}  {run.variant.label()}")
        return 0

    # Loaded only to measure: `report` and --dry-run need neither the harness nor the peers.
    from . import transfers
    from .ceilings import Ceilings, negotiated_ciphers
    from .runner import run_plan

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    directory = args.out or f"gridbench-{study.name}-{stamp}"
    os.makedirs(directory, exist_ok=True)
    if os.path.exists(os.path.join(directory, records.RUNS_JSONL)):
        print(f"gridbench: {directory} already holds a study's runs; name another --out",
              file=sys.stderr)
        return 2
    shutil.copyfile(args.study, os.path.join(directory, "study.toml"))
    meta = _study_meta(study, plan, args.study)
    binaries = transfers.find_binaries(study)
    meta["binaries"] = transfers.binary_versions(binaries)
    meta["machine"] = transfers.machine_facts()
    executor = transfers.Executor(study, binaries, say, os.path.join(directory, "logs"))
    meta["cycles_unavailable"] = executor.cycles_missing
    ceilings = Ceilings()
    meta["ceilings"] = ceilings.data
    executor.ceilings = ceilings
    records.save_study(directory, meta)
    open(os.path.join(directory, records.RUNS_JSONL), "w").close()   # a study with no run yet
    say(f"study {study.name}: {len(plan.runs)} runs into {directory}")
    # SIGTERM ends the study as Ctrl-C does: what was measured is kept and rendered.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    interrupted = False
    done: list[dict] = []
    try:
        try:
            for cipher in study.ciphers:
                ceilings.openssl(cipher, study.openssl_seconds, say)
            if any(run.variant.path is None for run in plan.runs):
                for streams in sorted({run.variant.streams for run in plan.runs}):
                    ceilings.iperf3_loopback(streams, study.iperf3_seconds, say)
            if "globus-gridftp-server" in study.servers:
                try:
                    found = transfers.probe_globus_ciphers(executor, study.levels)
                except (AssertionError, OSError) as e:
                    found = {}
                    say(f"cipher probe of globus-gridftp-server: {str(e).splitlines()[0]}")
                meta["captured_ciphers"] = {"globus-gridftp-server": found}
                for level, seen in found.items():
                    say(f"globus-gridftp-server {level}: {seen} (ServerHello on the wire)")
            records.save_study(directory, meta)
            done, interrupted = run_plan(plan, executor, directory, say, study.settle_seconds)
            if not interrupted:
                for cipher in negotiated_ciphers(done):
                    ceilings.openssl(cipher, study.openssl_seconds, say)
        except KeyboardInterrupt:
            interrupted = True
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)   # a second Ctrl-C must not lose the data
        executor.close()
        meta["state"] = (f"interrupted after {len(records.load_runs(directory))} of "
                         f"{len(plan.runs)} runs" if interrupted else "finished")
        meta["ended"] = datetime.datetime.now().isoformat(timespec="seconds")
        records.save_study(directory, meta)
        written = render(directory)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    say(f"{meta['state']}; wrote {directory}: " + ", ".join(written))
    return 130 if interrupted else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="gridbench", description="Security-vs-throughput studies of gridftpd and "
        "globus-gridftp-server (bench/README.md).")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a study file")
    run.add_argument("study", help="study TOML file (see bench/studies/)")
    run.add_argument("--out", help="output directory (default ./gridbench-NAME-TIMESTAMP)")
    run.add_argument("--dry-run", action="store_true", help="print the planned runs and stop")
    run.set_defaults(func=cmd_run)
    rep = sub.add_parser("report", help="render a study directory again")
    rep.add_argument("directory")
    rep.set_defaults(func=cmd_report)
    args = parser.parse_args(argv)
    return args.func(args)
