"""Striped puts (docs/STRIPING.md): globus-url-copy -stripe -sbs 1M from a real file into a
frontend whose movers write the stripes into one shared file system, gridftpd's (a frontend
with [striping] movers, movers with [striping] mover) or a real Globus striped cluster (a -r
frontend, -dn data nodes; tests/support/globus_striped.py), measured alike.

Where the hosts are:
  * with [path]: the striping bed (tests/support/striping_bed.py): the client and both
    frontends in one network namespace, mover i (gridftpd's) and data node i (Globus's) in
    namespace i, every mover's namespace joined to the client's by its own emulated link with
    the cell's RTT, loss and rate. The bed has as many links as the study's largest N; a site
    with N movers uses the first N.
  * without: everything on loopback in this namespace (no emulator, whose CPU would be charged
    to the machine the movers share).
Each mover daemon (and Globus data node) is born in a cgroup v1 cpu group of its own, so its
session processes inherit it; a run sets every group's quota to the variant's CPU limit
(cpu.cfs_quota_us = limit x cpu.cfs_period_us, -1 without one).

A run's figure: one put, the data phase from the transfer logs: gridftpd's movers each log their
own stripe (bytes summed, over the slowest mover's duration); Globus's frontend logs the whole
file (its -Z record, START to DATE), its nodes only stripe 0. Several puts at once: their bytes
over the batch's wall time (first start to last end), since gridftpd's record times have whole
seconds only. The client's wall-time figure is recorded beside either.
"""

from __future__ import annotations

import os
import shutil
import threading
import time

from . import support  # noqa: F401
import gridftp_harness as h
import gsi_bench
from .plan import PathCell, Run, Variant
from .proc_cpu import CpuMeter, tree_ticks
from .study import Dataset
from .transfers import LEVEL_FLAGS, RunFailed, dataset_dir, failure_reason
from .translog import Entry, parse_globus_line, parse_gridftpd_record, summarize
from host_cpu import TICK_SECONDS

CGROUP_CPU = "/sys/fs/cgroup/cpu"     # cgroup v1 cpu controller
CFS_PERIOD_US = 100_000
STRIPE_BLOCK = "1M"                   # -sbs: without it guc sends every block to stripe 0
WARM_UP_BYTES = 1 << 20
LOG_WAIT_SECONDS = 15


# --------------------------------------------------------------------------------------------
# CPU limits
# --------------------------------------------------------------------------------------------

class CpuGroup:
    """One cgroup v1 cpu group for one mover's process tree. The daemon is born in it (the
    launcher writes its own pid to cgroup.procs and execs the server), so every session process
    it forks later is in it too; nothing needs moving while a transfer runs."""

    def __init__(self, name: str):
        self.path = os.path.join(CGROUP_CPU, name)
        if not os.path.isdir(CGROUP_CPU):
            raise RunFailed(f"no cgroup v1 cpu controller at {CGROUP_CPU}")
        os.makedirs(self.path, exist_ok=True)
        self._write("cpu.cfs_period_us", CFS_PERIOD_US)
        self.limit(0)

    def launcher(self) -> list[str]:
        # Outside `ip netns exec`, which mounts a sysfs of its own over /sys (without the
        # cgroup mounts): the shell joins the group, then execs the rest.
        return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', self.path]

    def limit(self, cpus: float) -> None:
        """cpus > 0: that many CPUs' time per period; 0: no limit."""
        self._write("cpu.cfs_quota_us", round(cpus * CFS_PERIOD_US) if cpus > 0 else -1)

    def throttling(self) -> tuple[int, int]:
        """(periods, throttled periods) so far, from cpu.stat."""
        stat = {}
        with open(os.path.join(self.path, "cpu.stat")) as f:
            for line in f:
                key, _, value = line.partition(" ")
                stat[key] = int(value)
        return stat.get("nr_periods", 0), stat.get("nr_throttled", 0)

    def remove(self) -> None:
        # Empty once the daemon and its sessions are gone; exiting processes take a moment.
        deadline = time.monotonic() + 10
        while True:
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def _write(self, name: str, value: int) -> None:
        with open(os.path.join(self.path, name), "w") as f:
            f.write(f"{value}\n")


# --------------------------------------------------------------------------------------------
# Sites: a frontend and its movers
# --------------------------------------------------------------------------------------------

class Site:
    """A frontend with N movers of one kind, the cgroups its movers live in, and what their
    transfer logs say. Subclasses start the processes."""

    kind = "?"

    def __init__(self, name: str, movers: int, groups: list[CpuGroup]):
        self.name, self.movers, self.groups = name, movers, groups
        self.frontend_port = 0

    def url(self, path: str) -> str:
        # localhost: the name in the throwaway PKI's host certificate; in the bed, the client
        # namespace's loopback, where the frontend listens.
        return f"gsiftp://localhost:{self.frontend_port}{path}"

    def limit(self, cpus: float) -> None:
        for group in self.groups:
            group.limit(cpus)

    def throttling(self) -> tuple[int, int]:
        counts = [group.throttling() for group in self.groups]
        return sum(c[0] for c in counts), sum(c[1] for c in counts)

    def remove_groups(self) -> None:
        for group in self.groups:
            group.remove()

    # Subclasses -----------------------------------------------------------------------------
    def frontend_pid(self) -> int:
        raise NotImplementedError

    def mover_pids(self) -> list[int]:
        raise NotImplementedError

    def alive(self) -> bool:
        raise NotImplementedError

    def mark(self) -> object:
        raise NotImplementedError

    def received(self, mark) -> list[Entry]:
        """The receiving records logged since `mark` that measure the run (see module doc)."""
        raise NotImplementedError

    def wait_idle(self) -> None:
        raise NotImplementedError

    def stop(self, log_dir: str) -> None:
        raise NotImplementedError


class GridftpdSite(Site):
    kind = "gridftpd"

    def __init__(self, name: str, movers: int, groups: list[CpuGroup], pki, bed=None):
        super().__init__(name, movers, groups)
        self.movers_started = []
        for i in range(movers):
            address = bed.mover_addr(i) if bed else "127.0.0.1"
            launcher = groups[i].launcher() + (bed.in_mover(i, []) if bed else [])
            self.movers_started.append(h.start_gridftpd(
                _root(), gsi=pki, launcher=launcher, gsi_settings={"root": ""},
                listen={"control_interface": address, "port": 0}, striping={"mover": True}))
        addresses = [f"{bed.mover_addr(i) if bed else '127.0.0.1'}:{m.port}"
                     for i, m in enumerate(self.movers_started)]
        self.frontend = h.start_gridftpd(_root(), gsi=pki,
                                         launcher=bed.in_client([]) if bed else None,
                                         gsi_settings={"root": ""},
                                         striping={"movers": addresses})
        self.servers = [self.frontend] + self.movers_started
        self.frontend_port = self.frontend.port

    def frontend_pid(self) -> int:
        return self.frontend.proc.pid

    def mover_pids(self) -> list[int]:
        return [m.proc.pid for m in self.movers_started]

    def alive(self) -> bool:
        return all(s.alive() for s in self.servers)

    def mark(self) -> list[int]:
        return [len(m.transfer_records()) for m in self.movers_started]

    def received(self, mark: list[int]) -> list[Entry]:
        return [parse_gridftpd_record(r) for m, n in zip(self.movers_started, mark)
                for r in m.transfer_records()[n:]]

    def wait_idle(self) -> None:
        for server in self.servers:
            gsi_bench.wait_server_idle(server, server.proc.pid)

    def stop(self, log_dir: str) -> None:
        os.makedirs(log_dir, exist_ok=True)
        for role, server in zip(["frontend"] + [f"mover{i + 1}" for i in range(self.movers)],
                                self.servers):
            server.stop()
            if os.path.exists(server.transfer_log):
                shutil.copyfile(server.transfer_log,
                                os.path.join(log_dir, f"{self.name}-{role}.transfer.log"))
            with open(os.path.join(log_dir, f"{self.name}-{role}.server.log"), "w") as f:
                f.write(server.log_text() + "\n")


class GlobusSite(Site):
    kind = "globus-gridftp-server"

    def __init__(self, name: str, movers: int, groups: list[CpuGroup], pki, bed=None):
        super().__init__(name, movers, groups)
        from globus_striped import GlobusStripedCluster
        from test_pki import HOST_DN
        options = {}
        if bed is not None:
            # Nodes on addresses of their own: the host certificate (CN=localhost) names none
            # of them, so the frontend checks the node's certificate subject instead of a host
            # name (-ia subject:DN); each node knows itself by its namespace's name for it.
            options = dict(
                ipc_auth="subject:" + HOST_DN,
                node_hosts=[bed.mover_addr(i) for i in range(movers)],
                node_launchers=[groups[i].launcher() + bed.in_mover(
                    i, ["env", f"GLOBUS_HOSTNAME={bed.mover_host(i)}"]) for i in range(movers)],
                frontend_launcher=bed.in_client([]))
        else:
            options = dict(node_launchers=[groups[i].launcher() for i in range(movers)])
        self.cluster = GlobusStripedCluster(nodes=movers, gsi=pki, root=_root(),
                                            log_level="ERROR,WARN", **options)
        self.frontend_port = self.cluster.port

    def frontend_pid(self) -> int:
        return self.cluster.frontend.proc.pid

    def mover_pids(self) -> list[int]:
        return [n.proc.pid for n in self.cluster.nodes]

    def alive(self) -> bool:
        return self.cluster.alive()

    def _frontend_entries(self) -> list[Entry]:
        try:
            with open(self.cluster.frontend_transfer_log, encoding="utf-8",
                      errors="replace") as f:
                lines = [line for line in f if line.endswith("\n")]
        except FileNotFoundError:
            return []
        return [e for e in map(parse_globus_line, lines) if e is not None]

    def mark(self) -> int:
        return len(self._frontend_entries())

    def received(self, mark: int) -> list[Entry]:
        return self._frontend_entries()[mark:]

    def wait_idle(self) -> None:
        for p in self.cluster._procs():
            gsi_bench.wait_server_idle(p, p.proc.pid)

    def stop(self, log_dir: str) -> None:
        os.makedirs(log_dir, exist_ok=True)
        self.cluster.stop()
        for p in self.cluster._procs():
            for path, suffix in ((p.transfer_log, "transfer.log"), (p.log, "server.log")):
                if os.path.exists(path):
                    shutil.copyfile(path, os.path.join(log_dir, f"{self.name}-{p.name}.{suffix}"))


def _root() -> str:
    """An anonymous root nobody uses: both servers serve the real "/" to the mapped user."""
    return os.path.join(h.make_temp_dir("gridbench-striped-root-"), "root")


# --------------------------------------------------------------------------------------------
# The runs
# --------------------------------------------------------------------------------------------

class StripedRuns:
    """The striped half of the executor: the bed for the current cell, one site per (server,
    N), the runs measured on them."""

    def __init__(self, executor):
        self.executor = executor
        self.cell: PathCell | None = None
        self.entered = False
        self.bed = None
        self.sites: dict[tuple[str, int], Site] = {}
        self.started = 0

    # Lifetime --------------------------------------------------------------------------------
    def close(self) -> None:
        self._stop_sites()
        self._leave_bed()

    def _stop_sites(self) -> None:
        for site in self.sites.values():
            site.stop(self.executor.log_dir)
        for site in self.sites.values():
            try:
                site.remove_groups()
            except OSError as e:   # a process that would not die keeps its group: say which
                self.executor.log(f"cgroup of {site.name} not removed: {e}")
        self.sites.clear()

    def _leave_bed(self) -> None:
        if self.bed is not None:
            bed, self.bed = self.bed, None
            bed.__exit__(None, None, None)

    def enter_cell(self, cell: PathCell | None) -> None:
        if self.entered and cell == self.cell:
            return
        self._stop_sites()
        self._leave_bed()
        self.cell, self.entered = cell, True
        if cell is None:
            return
        from striping_bed import StripingBed
        if "wanem" not in self.executor.binaries:
            raise RunFailed("wanem not found (scripts/build.sh release wanem, or [binaries] wanem)")
        bed = StripingBed(movers=max(self.executor.study.movers), rtt_ms=cell.rtt_ms,
                          loss_percent=cell.loss_percent, rate_mbit=cell.rate_mbit,
                          queue_kb=cell.queue_kb, seed=int(time.time()))
        self.bed = bed.__enter__()
        ceilings = self.executor.ceilings
        if ceilings is not None:
            # One TCP stream through one mover's link: the rate each mover can reach.
            ceilings.iperf3_wan(cell.label(), self.bed.links[0], self.executor.study.iperf3_seconds,
                                self.executor.log)

    def site(self, variant: Variant) -> Site:
        key = (variant.server, variant.movers)
        site = self.sites.pop(key, None)
        if site is not None and site.alive():
            self.sites[key] = site
            return site
        if site is not None:   # lost a process in an earlier run: its logs say why
            site.stop(self.executor.log_dir)
            site.remove_groups()
        if variant.server not in self.executor.binaries:
            raise RunFailed(f"{variant.server} not found")
        self.started += 1
        name = f"{'gridftpd' if variant.server == 'gridftpd' else 'globus'}-" \
               f"{variant.movers}movers-{self.started}"
        groups = [CpuGroup(f"gridbench-{os.getpid()}-{name}-m{i + 1}")
                  for i in range(variant.movers)]
        kind = GridftpdSite if variant.server == "gridftpd" else GlobusSite
        try:
            site = kind(name, variant.movers, groups, self.executor.pki, self.bed)
        except AssertionError as e:
            for group in groups:
                try:
                    group.remove()
                except OSError:
                    pass   # a half-started daemon still in it: the harness kills it at exit
            raise RunFailed(f"{variant.server} striped site did not start: "
                            f"{str(e).splitlines()[0]}") from None
        self.sites[key] = site
        self._warm_up(site)
        return site

    def _client(self, argv: list[str]) -> list[str]:
        return self.bed.in_client(argv) if self.bed else argv

    def put_argv(self, variant: Variant, source: str, target: str, site: Site) -> list[str]:
        client = self.executor.binaries["globus-url-copy"]
        return self._client([client, "-stripe", "-sbs", STRIPE_BLOCK] + LEVEL_FLAGS[variant.level]
                            + ["-p", str(variant.streams), f"file://{source}", site.url(target)])

    def _warm_up(self, site: Site) -> None:
        """One untimed 1 MiB striped put on a new site, then idle (as for unstriped servers)."""
        source = os.path.join(self.executor.work, "warm-up.bin")
        if not os.path.exists(source):
            with open(source, "wb") as f:
                f.write(os.urandom(WARM_UP_BYTES))
            os.chmod(source, 0o644)
        out_dir = self._out_dir()
        target = os.path.join(out_dir, f"warm-up-{site.name}.bin")
        argv = self.put_argv(Variant("", None, "tcp", "globus-url-copy", site.kind, 0, 1, "none",
                                     1, site.movers), source, target, site)
        try:
            h.run_peer(argv, timeout=120, env=self.executor.env, what=f"warm-up of {site.name}")
        except AssertionError as e:
            raise RunFailed(f"warm-up put on {site.name} failed: {failure_reason(str(e))}") \
                from None
        finally:
            if os.path.exists(target):
                os.unlink(target)
        site.wait_idle()

    def _out_dir(self) -> str:
        """The first prepared dataset's out/ (owned by the mapped account)."""
        dataset = next(iter(self.executor.datasets.values()))
        self.executor._prepare(dataset)
        return os.path.join(dataset_dir(dataset), "out")

    # One run ---------------------------------------------------------------------------------
    def run(self, run: Run, dataset: Dataset) -> dict:
        variant = run.variant
        self.enter_cell(variant.path)
        site = self.site(variant)
        site.limit(variant.mover_cpu_limit)
        base = dataset_dir(dataset)
        source = os.path.join(base, "src.bin")
        targets = [os.path.join(base, "out", f"run-{run.index}-{k + 1}.bin")
                   for k in range(variant.concurrent_transfers)]
        argvs = [self.put_argv(variant, source, target, site) for target in targets]
        try:
            if dataset.drop_caches:
                with open("/proc/sys/vm/drop_caches", "w") as f:
                    f.write("1\n")
            return self._measure(run, dataset, site, argvs, targets)
        finally:
            for target in targets:
                if os.path.exists(target):
                    os.unlink(target)

    def _measure(self, run: Run, dataset: Dataset, site: Site, argvs: list[list[str]],
                 targets: list[str]) -> dict:
        meter = MoverMeter(site)
        started = time.monotonic()
        errors = run_clients(argvs, self.executor.study.run_timeout_seconds, self.executor.env,
                             f"run {run.index}")
        wall = time.monotonic() - started
        if errors:
            raise RunFailed(failure_reason(errors[0]))
        if not site.alive():
            raise RunFailed(f"{site.kind} site {site.name} lost a process during the run")
        expected = dataset.size * len(targets)
        entries = _wait_records(site, meter.mark, expected)
        site.wait_idle()
        cpu = meter.stop()
        summary = summarize(entries)
        if summary.failures:
            raise RunFailed(f"{site.kind} logged a failed transfer: "
                            f"{'; '.join(summary.failures)[:300]}")
        short = [t for t in targets if not os.path.exists(t) or os.path.getsize(t) != dataset.size]
        if short:
            raise RunFailed(f"{os.path.basename(short[0])} is not {dataset.size} bytes after "
                            "the put")
        # One put: its data phase from the logs; several: the batch's wall time.
        data_seconds = _data_seconds(entries) if len(targets) == 1 else None
        if data_seconds and summary.bytes != expected:
            data_seconds = None
        return _record(run.variant, site, summary, cpu, expected, wall, data_seconds,
                       len(targets), argvs[0])


class MoverMeter:
    """What a run cost: CpuMeter's server (frontend and movers), client and other processes'
    figures, plus the movers' own CPU seconds and their cgroups' throttled periods."""

    def __init__(self, site: Site):
        self.site = site
        self.mark = site.mark()
        self.meter = CpuMeter([site.frontend_pid()] + site.mover_pids())
        self.mover_ticks = self._mover_ticks()
        self.throttling = site.throttling()
        self.meter.start()

    def _mover_ticks(self) -> int:
        return sum(tree_ticks(pid) for pid in self.site.mover_pids())

    def stop(self) -> dict:
        cpu = self.meter.stop()
        periods, throttled = (after - before for after, before in
                              zip(self.site.throttling(), self.throttling))
        cpu["mover_cpu_seconds"] = (self._mover_ticks() - self.mover_ticks) * TICK_SECONDS
        cpu["mover_throttled_share"] = throttled / periods if periods else 0.0
        return cpu


def _wait_records(site: Site, mark, expected: int) -> list[Entry]:
    """The receiving records of the run once their bytes add up (a mover writes its record just
    after its 226; Globus's frontend just after the client's)."""
    deadline = time.monotonic() + LOG_WAIT_SECONDS
    while True:
        entries = site.received(mark)
        if summarize(entries).bytes >= expected or time.monotonic() > deadline:
            return entries
        time.sleep(0.05)


def _data_seconds(entries: list[Entry]) -> float | None:
    """One put's data phase: the slowest gridftpd mover's stripe, or Globus's frontend record
    of the whole file."""
    durations = [e.seconds for e in entries if e.command == "STOR" and e.seconds > 0]
    return max(durations) if durations else None


def _record(variant: Variant, site: Site, summary, cpu: dict, expected: int, wall: float,
            data_seconds: float | None, puts: int, argv: list[str]) -> dict:
    """The run's record fields (records.RUN_FIELDS)."""
    seconds = data_seconds or wall
    version, cipher = summary.version_and_cipher()
    return {
        "files": puts,
        "bytes": expected,
        "log_bytes": summary.bytes if summary.records else None,
        "wall_seconds": wall,
        "transfer_seconds": data_seconds,
        "throughput_bytes_per_second": expected / seconds,
        "throughput_source": (_LOG_SOURCE[site.kind] if data_seconds else
                              f"wall time of {puts} puts at once" if puts > 1
                              else "client wall time (no log figure)"),
        "wall_throughput_bytes_per_second": expected / wall,
        "server_cpu_seconds": cpu["server_cpu_seconds"],
        "client_cpu_seconds": cpu["client_cpu_seconds"],
        "server_utilisation": cpu["server_cpu_seconds"] / wall,
        "client_utilisation": cpu["client_cpu_seconds"] / wall,
        "cpu_seconds_per_gb": (cpu["server_cpu_seconds"] + cpu["client_cpu_seconds"])
        / expected * 1e9,
        "mover_cpu_seconds": cpu["mover_cpu_seconds"],
        # Over the data phase where the logs give one: the movers work in it, and a limit shows
        # there as use near the limit, where logins over the wall time would dilute it.
        "mover_utilisation": cpu["mover_cpu_seconds"] / seconds / variant.movers,
        "mover_throttled_share": cpu["mover_throttled_share"],
        "others_share": cpu["others_share"],
        "machine_busy_share": cpu["machine_busy_share"],
        "tls_version": version,
        "cipher": cipher,
        "stream_tls": summary.tls_text(),
        "security": summary.security,
        "server_log": f"logs/{site.name}-*.transfer.log",
        "command": " ".join(argv) + (f"  (x{puts} at once)" if puts > 1 else ""),
    }


_LOG_SOURCE = {"gridftpd": "movers' logs (bytes over the slowest mover's data phase)",
               "globus-gridftp-server": "frontend's -Z record (whole file, START to DATE)"}


def run_clients(argvs: list[list[str]], timeout: float, env: dict, what: str) -> list[str]:
    """Runs the client commands at once, each in a thread of its own; returns the failure
    messages (run_peer's), empty when every one exited 0."""
    errors: list[str] = []

    def one(argv: list[str], number: int) -> None:
        try:
            h.run_peer(argv, timeout=timeout, env=env, what=f"{what} put {number}")
        except AssertionError as e:
            errors.append(str(e))

    threads = [threading.Thread(target=one, args=(argv, k + 1)) for k, argv in enumerate(argvs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors
