"""The machine's CPU time as the benchmarks read it: each CPU's clock ticks from /proc/stat, the
whole machine's, and the CPU seconds of this process's finished children (the clients a
benchmark ran)."""

from __future__ import annotations

import os
import resource

TICK_SECONDS = 1.0 / os.sysconf("SC_CLK_TCK")


def cpu_ticks() -> list[tuple[int, int]]:
    """(total, busy) clock ticks of each CPU since boot, from the cpuN lines of /proc/stat; busy
    is all but idle and iowait. It counts softirq time, which /proc's per-thread times leave
    out (on loopback the sending thread's CPU also runs the receive side of TCP there), and
    steal, time the hypervisor gave to others."""
    ticks = []
    with open("/proc/stat") as f:
        for line in f:
            name, *fields = line.split()
            if not name.startswith("cpu") or name == "cpu":
                continue
            # user .. steal; guest and guest_nice behind them are already counted in user and nice.
            values = [int(v) for v in fields[:8]]
            idle = values[3] + (values[4] if len(values) > 4 else 0)
            ticks.append((sum(values), sum(values) - idle))
    return ticks


def machine_ticks() -> tuple[int, int]:
    """(total, busy) clock ticks of the whole machine since boot: cpu_ticks() summed."""
    per_cpu = cpu_ticks()
    return sum(total for total, _ in per_cpu), sum(busy for _, busy in per_cpu)


def children_cpu_seconds() -> float:
    """User and system CPU seconds of this process's reaped children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
