"""The loop over a plan's runs: a progress line per run (run k of n, ETA), each finished run
appended to runs.jsonl at once, a failed run recorded with its reason while the study goes on,
and Ctrl-C ending the loop with everything measured so far kept.

The executor is anything with run(Run) -> dict of measured fields (raising on failure) and
close(); transfers.Executor is the real one, tests pass their own.
"""

from __future__ import annotations

import datetime
import time

from . import records
from .plan import Plan, Run


class Progress:
    """"[k/n] variant ... ETA 0:12:34" before each run, the outcome after it. The ETA is the
    mean time of the runs so far times the runs left (runs of one study cost about alike)."""

    def __init__(self, total: int, write, clock=time.monotonic):
        self.total, self.write, self.clock = total, write, clock
        self.started = clock()
        self.done = 0

    def eta_seconds(self) -> float | None:
        if self.done == 0:
            return None
        return (self.clock() - self.started) / self.done * (self.total - self.done)

    def before(self, run: Run) -> None:
        eta = self.eta_seconds()
        eta_text = "ETA ?" if eta is None else f"ETA {datetime.timedelta(seconds=round(eta))}"
        self.write(f"[run {run.index} of {self.total}, repetition {run.repetition}] "
                   f"{run.variant.label()}  ({eta_text})")

    def after(self, record: dict) -> None:
        self.done += 1
        if record["status"] == "ok":
            rate = record["throughput_bytes_per_second"]
            self.write(f"    {rate / 1e9:.3f} GB/s ({rate / 1e6:.1f} MB/s), "
                       f"wall {record['wall_seconds']:.2f} s, CPU server "
                       f"{record['server_cpu_seconds']:.2f} s client "
                       f"{record['client_cpu_seconds']:.2f} s"
                       + (f", {record['tls_version']} {record['cipher']}" if record.get("cipher")
                          else ""))
        else:
            self.write(f"    FAILED: {record['reason']}")


def run_plan(plan: Plan, executor, directory: str, write, settle_seconds: float = 0.0,
             clock=time.monotonic) -> tuple[list[dict], bool]:
    """Runs every run of the plan; returns (records, interrupted)."""
    progress = Progress(len(plan.runs), write, clock)
    done: list[dict] = []
    try:
        for run in plan.runs:
            progress.before(run)
            record = {"index": run.index, "repetition": run.repetition,
                      "started": datetime.datetime.now().isoformat(timespec="seconds"),
                      **run.variant.fields()}
            try:
                record.update(executor.run(run))
                record.update(status="ok", reason="")
            except KeyboardInterrupt:
                raise
            except Exception as e:  # noqa: BLE001 - any failure of one run is that run's reason
                text = str(e).strip().splitlines()
                record.update(status="failed",
                              reason=f"{text[0] if text else type(e).__name__}"
                              + ("" if type(e).__name__ == "RunFailed"
                                 else f" ({type(e).__name__})"))
            record = records.normalized(record)
            records.append_run(directory, record)
            done.append(record)
            progress.after(record)
            if settle_seconds and run is not plan.runs[-1]:
                time.sleep(settle_seconds)
    except KeyboardInterrupt:
        write(f"interrupted: {len(done)} of {len(plan.runs)} runs recorded")
        return done, True
    return done, False
