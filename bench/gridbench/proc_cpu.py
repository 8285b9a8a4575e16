"""CPU cost of one run: seconds of the server process trees and of the client from /proc and
getrusage, the share of the machine other processes took meanwhile, and cycles from perf where
the machine has the counter.

Servers are long-lived, so their cost is the growth of their process tree's ticks (each
process's own plus its reaped children's: session processes end with their session and are
counted in the parent's cutime). The client is our child and ends within the run, so its cost
is the growth of our RUSAGE_CHILDREN. The tick readers are the ones bench/gsi_bench.py uses.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile

from . import support  # noqa: F401
from gsi_bench import OtherLoad, _tree_ticks
from host_cpu import TICK_SECONDS, children_cpu_seconds


def tree_ticks(pid: int) -> int:
    """Clock ticks a process tree has used so far, reaped children included."""
    return _tree_ticks(pid)


class CpuMeter:
    """start() before the client starts, stop() once the servers are idle again."""

    def __init__(self, server_pids: list[int]):
        self.server_pids = server_pids

    def start(self) -> None:
        self.others = OtherLoad()
        self.others.start()
        self.server_ticks = sum(tree_ticks(pid) for pid in self.server_pids)
        self.client = children_cpu_seconds()

    def stop(self) -> dict:
        return {
            "server_cpu_seconds": (sum(tree_ticks(pid) for pid in self.server_pids)
                                   - self.server_ticks) * TICK_SECONDS,
            "client_cpu_seconds": children_cpu_seconds() - self.client,
            "others_share": self.others.stop(),
            # How busy the whole machine was (every process, ours too): near 1, the cores
            # themselves were the bound.
            "machine_busy_share": (sum(self.others.cpu_busy) / len(self.others.cpu_busy)
                                   if self.others.cpu_busy else None),
        }


def cycles_counter_missing() -> str:
    """Why cycles cannot be counted here ("" when they can): perf must exist and the cycles
    event must be supported (virtual machines often have no PMU) and allowed."""
    try:
        out = subprocess.run(["perf", "stat", "-x,", "-e", "cycles", "--", "true"],
                             capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        return "perf is not installed"
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"perf did not run: {e}"
    value = _cycles_value(out.stderr)
    if value is None:
        line = (out.stderr.strip().splitlines() or ["no output"])[-1]
        return f"perf stat -e cycles: {line}"
    return ""


class CycleCounter:
    """Cycles of the whole machine (perf stat -a) while a run lasts: on a quiet machine the
    transfer's cost, both servers' and the client's, kernel included."""

    def start(self) -> None:
        handle, self.path = tempfile.mkstemp(prefix="gridbench-perf-")
        os.close(handle)
        self.proc = subprocess.Popen(["perf", "stat", "-a", "-x,", "-e", "cycles", "-o",
                                      self.path], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self) -> float | None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        try:
            with open(self.path) as f:
                return _cycles_value(f.read())
        finally:
            os.unlink(self.path)


def _cycles_value(text: str) -> float | None:
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("cycles") and re.fullmatch(r"\d+", fields[0]):
            return float(fields[0])
    return None
