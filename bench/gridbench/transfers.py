"""One run, measured: the servers it needs (started once and kept while the WAN cell lasts),
the client's command, its wall time, the servers' transfer-log records, CPU and cycles.

Shapes of a run (as the published GridFTP studies and bench/gsi_bench.py run them):
  * loopback: third-party within one server, source and destination the same server process,
    driven by the client over gsiftp://localhost (the name in the throwaway PKI's host
    certificate, tests/support/test_pki.py);
  * WAN cell: third-party from a server in the emulator's namespace B to a server of the same
    kind in namespace A, the client in A, so every data byte crosses the emulated link.
Datasets: memory (ERET/ESTO of /dev/zero to /dev/null with -len), disk (one file to a file in
the same directory tree), tree (-r -cc N of N files into a fresh directory). Both servers serve
the real "/" (gridftpd with [gsi] root = ""), so the same paths name the same files on both.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time

from . import support
import gridftp_harness as h
import gsi_bench
import mode_e_bench
from .plan import PathCell, Run, Variant
from .proc_cpu import CpuMeter, CycleCounter, cycles_counter_missing
from .study import Dataset, Study
from .translog import RECEIVING, Entry, parse_globus_line, parse_gridftpd_record, summarize

# Client flags per level; "integrity" is PROT S like dcsafe, against a gridftpd whose
# [gsi] integrity_only_safe makes PROT S negotiate NULL-cipher suites.
LEVEL_FLAGS = {"none": gsi_bench.LEVELS["nodcau"], "dcau": gsi_bench.LEVELS["dcau"],
               "dcsafe": gsi_bench.LEVELS["dcsafe"], "integrity": gsi_bench.LEVELS["dcsafe"],
               "dcpriv": gsi_bench.LEVELS["dcpriv"]}
UDPX_FLAGS = {"gridcp": ["-udp"], "globus-url-copy": ["-dcstack", "udpx"]}
LOG_WAIT_SECONDS = 15      # a server writes its record just after its final reply


class RunFailed(Exception):
    """A run that did not measure what it should; the message is the reason recorded."""


# --------------------------------------------------------------------------------------------
# Programs
# --------------------------------------------------------------------------------------------

def find_binaries(study: Study) -> dict[str, str]:
    """Paths of the programs a study uses: [binaries] in the study, else $GRIDFTPD, $GRIDCP,
    $WANEM, else the tree's release build, else the installed ones on PATH."""
    release = os.path.join(support.TOP_DIR, "build", "release")
    found = {}
    for name, env in (("gridftpd", "GRIDFTPD"), ("gridcp", "GRIDCP"), ("wanem", "WANEM"),
                      ("globus-url-copy", ""), ("globus-gridftp-server", "")):
        candidates = [study.binaries.get(name), os.environ.get(env) if env else None,
                      os.path.join(release, name), shutil.which(name), f"/usr/sbin/{name}"]
        for path in candidates:
            if path and os.path.isfile(path) and os.access(path, os.X_OK):
                found[name] = os.path.abspath(path)
                break
    return found


def client_argv(client: str, variant: Variant, dataset: Dataset, source: str, dest: str,
                out_name: str) -> list[str]:
    """The client's command line. `source` and `dest` are URL prefixes (gsiftp://host:port);
    `out_name` is the run's own destination under the dataset's output directory."""
    argv = [client] + LEVEL_FLAGS[variant.level]
    if variant.transport == "udpx":
        argv += UDPX_FLAGS[variant.client]   # one flow: no -p
    else:
        argv += ["-p", str(variant.streams)]
    if dataset.kind == "memory":
        return argv + ["-len", str(dataset.size), f"{source}/dev/zero", f"{dest}/dev/null"]
    if dataset.kind == "disk":
        return argv + [f"{source}{dataset_dir(dataset)}/src.bin",
                       f"{dest}{dataset_dir(dataset)}/out/{out_name}"]
    return argv + ["-r", "-cc", str(variant.concurrency), "-cd",
                   f"{source}{dataset_dir(dataset)}/tree/", f"{dest}{dataset_dir(dataset)}/out/{out_name}/"]


def dataset_dir(dataset: Dataset) -> str:
    """Where a disk or tree dataset's files live for this study process."""
    return os.path.join(dataset.directory, f"gridbench-{os.getpid()}-{_slug(dataset.name)}")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def failure_reason(message: str) -> str:
    """A run_peer failure as one line: the exit status and the client's last error line."""
    if "peer command hung" in message:
        return "client " + message.split(": ", 1)[-1].splitlines()[0]
    status = re.search(r"^exit status: (\S+)", message, re.M)
    stderr = message.split("--- stderr ---", 1)[-1].strip().splitlines()
    stdout = message.split("--- stdout ---", 1)[-1].split("--- stderr ---", 1)[0].strip()
    last = next((line.strip() for line in reversed(stderr) if line.strip()), "") or \
        next((line.strip() for line in reversed(stdout.splitlines()) if line.strip()), "")
    return f"client exit {status.group(1) if status else '?'}: {last[:300]}"


# --------------------------------------------------------------------------------------------
# Servers
# --------------------------------------------------------------------------------------------

class Endpoint:
    """One started server, the host name clients use for it, and its transfer log."""

    def __init__(self, kind: str, server, host: str, globus_log: str = ""):
        self.kind, self.server, self.host, self.globus_log = kind, server, host, globus_log
        self.name = ""   # its logs' name in the study directory, e.g. "gridftpd-1"

    def transfer_log(self) -> str:
        return self.server.transfer_log if self.kind == "gridftpd" else self.globus_log

    def keep_logs(self, directory: str) -> None:
        """Copies the transfer log and the server's own output into the study's logs/."""
        os.makedirs(directory, exist_ok=True)
        if os.path.exists(self.transfer_log()):
            shutil.copyfile(self.transfer_log(),
                            os.path.join(directory, f"{self.name}.transfer.log"))
        with open(os.path.join(directory, f"{self.name}.server.log"), "w") as f:
            f.write(self.server.log_text() + "\n")

    @property
    def pid(self) -> int:
        return self.server.proc.pid

    def url(self) -> str:
        return f"gsiftp://{self.host}:{self.server.port}"

    def mark(self) -> int:
        return len(self._entries())

    def entries_since(self, mark: int) -> list[Entry]:
        return self._entries()[mark:]

    def _entries(self) -> list[Entry]:
        if self.kind == "gridftpd":
            return [parse_gridftpd_record(r) for r in self.server.transfer_records()]
        try:
            with open(self.globus_log, encoding="utf-8", errors="replace") as f:
                lines = [line for line in f if line.endswith("\n")]
        except FileNotFoundError:
            return []
        return [e for e in map(parse_globus_line, lines) if e is not None]

    def wait_idle(self) -> None:
        gsi_bench.wait_server_idle(self.server, self.pid)


def _start_server(kind: str, threads: int, integrity: bool, pki, work: str,
                  cell: PathCell | None, netns: str = "", host_name: str = "",
                  address: str = "") -> Endpoint:
    launcher = None
    if kind == "gridftpd":
        sections = {"server": {"threads": threads}} if threads else {}
        if cell is not None:
            from wanem import in_netns
            launcher = in_netns(netns, [])
            sections["listen"] = {"control_interface": "0.0.0.0", "port": 0}
        server = h.start_gridftpd(os.path.join(h.make_temp_dir("gridbench-root-"), "root"),
                                  gsi=pki, launcher=launcher,
                                  gsi_host=host_name if cell is not None else None,
                                  gsi_settings={"root": "", "integrity_only_safe": integrity},
                                  **sections)
        return Endpoint(kind, server, host_name if cell is not None else "localhost")
    # globus-gridftp-server: its -Z log is opened by each session after it becomes the mapped
    # account, so the file is made first and given to that account.
    log = tempfile.mktemp(prefix="globus-transfer-", suffix=".log", dir=work)
    open(log, "w").close()
    h.give_to_globus_user(log, pki.account)
    extra = ["-Z", log] + (["-threads", str(threads)] if threads else [])
    if cell is None:
        server = h.start_globus_server(gsi=pki, extra_args=extra)
        return Endpoint(kind, server, "localhost", log)
    from wanem import in_netns
    cert, key = pki.named_hosts[host_name]
    # In the namespace /etc/hosts is the emulator's, without the machine's own name, and Globus
    # looks that name up for every PASV ("globus_libc_gethostaddr failed"): it gets the name
    # the namespace's hosts file has, and the namespace's address for its data connections.
    launcher = in_netns(netns, ["env", f"X509_USER_CERT={cert}", f"X509_USER_KEY={key}",
                                f"GLOBUS_HOSTNAME={host_name}"])
    extra += ["-data-interface", address]
    server = h.start_globus_server(host=address, gsi=pki, launcher=launcher, extra_args=extra)
    return Endpoint(kind, server, host_name, log)


# --------------------------------------------------------------------------------------------
# The executor
# --------------------------------------------------------------------------------------------

class Executor:
    """Runs the plan's runs one at a time; servers and the emulator live between runs."""

    def __init__(self, study: Study, binaries: dict[str, str], log, log_dir: str):
        self.study, self.binaries, self.log, self.log_dir = study, binaries, log, log_dir
        self.started_servers = 0
        self.work = h.make_temp_dir("gridbench-")
        self.pki = None
        self.env: dict[str, str] = {}
        self.cell: PathCell | None = None
        self.link = None
        self.endpoints: dict[tuple, Endpoint] = {}
        self.datasets = {d.name: d for d in study.datasets}
        self.prepared: set[str] = set()
        self.cycles_missing = cycles_counter_missing()
        self.ceilings = None   # set by the CLI: WAN cells measure their iperf3 figure on entry
        self.striped = None    # striping.StripedRuns, made by the first striped run
        if "gridftpd" in binaries:
            # The harness starts the binary named by $GRIDFTPD.
            os.environ["GRIDFTPD"] = binaries["gridftpd"]
        if "wanem" in binaries:
            os.environ["WANEM"] = binaries["wanem"]

    # Lifetime --------------------------------------------------------------------------------
    def close(self) -> None:
        if self.striped is not None:
            self.striped.close()
        self._stop_servers()
        self._leave_cell()
        for name in self.prepared:
            shutil.rmtree(dataset_dir(self.datasets[name]), ignore_errors=True)
        shutil.rmtree(self.work, ignore_errors=True)

    def _stop_servers(self) -> None:
        for endpoint in self.endpoints.values():
            endpoint.server.stop()
            endpoint.keep_logs(self.log_dir)
        self.endpoints.clear()

    def _leave_cell(self) -> None:
        if self.link is not None:
            link, self.link = self.link, None
            link.__exit__(None, None, None)

    def enter_cell(self, cell: PathCell | None) -> None:
        """Loopback, or a WAN cell: the emulator with that RTT, loss and rate. Servers of the
        previous cell are stopped (the namespaces they lived in go with the emulator)."""
        if cell == self.cell and (cell is None or self.link is not None):
            return
        self._stop_servers()
        self._leave_cell()
        self.cell = cell
        if cell is None:
            return
        from wanem import Wanem, require_root_and_tun
        require_root_and_tun()
        if "wanem" not in self.binaries:
            raise RunFailed("wanem not found (scripts/build.sh release wanem, or [binaries] wanem)")
        link = Wanem(rtt_ms=cell.rtt_ms, loss_percent=cell.loss_percent,
                     rate_mbit=cell.rate_mbit, queue_kb=cell.queue_kb, seed=int(time.time()))
        self.link = link.__enter__()
        if self.ceilings is not None:
            self.ceilings.iperf3_wan(cell.label(), self.link, self.study.iperf3_seconds, self.log)

    # Pieces of a run -------------------------------------------------------------------------
    def _credentials(self) -> None:
        if self.pki is None:
            self.log("building the throwaway GSI PKI (tests/support/test_pki.py) ...")
            self.pki = h.shared_test_pki()
            self.env = self.pki.client_env("test")

    def _prepare(self, dataset: Dataset) -> None:
        if dataset.name in self.prepared or dataset.kind == "memory":
            return
        base = dataset_dir(dataset)
        os.makedirs(base, exist_ok=True)
        self.prepared.add(dataset.name)
        self.log(f"preparing dataset {dataset.name} in {base} ...")
        if dataset.kind == "disk":
            block = os.urandom(16 << 20)
            with open(os.path.join(base, "src.bin"), "wb") as f:
                for offset in range(0, dataset.size, len(block)):
                    f.write(block[:min(len(block), dataset.size - offset)])
            os.chmod(os.path.join(base, "src.bin"), 0o644)
        else:
            mode_e_bench.make_tree(base, dataset.files, dataset.file_size)
        os.makedirs(os.path.join(base, "out"), exist_ok=True)
        h.make_world_traversable(base)
        h.give_to_globus_user(os.path.join(base, "out"), self.pki.account)

    def _endpoint(self, variant: Variant, side: str) -> Endpoint:
        """The server for a variant; `side` is "a" or "b" in a WAN cell ("" on loopback)."""
        key = (variant.server, variant.server_threads, variant.level == "integrity", side)
        endpoint = self.endpoints.get(key)
        if endpoint is not None and endpoint.server.alive():
            return endpoint
        if endpoint is not None:   # died in an earlier run: its logs say why
            endpoint.keep_logs(self.log_dir)
        if variant.server == "globus-gridftp-server" and "globus-gridftp-server" not in self.binaries:
            raise RunFailed("globus-gridftp-server not found (docs/PEERS.md)")
        if variant.server == "gridftpd" and "gridftpd" not in self.binaries:
            raise RunFailed("gridftpd not found (scripts/build.sh release gridftpd, or [binaries])")
        netns = host = address = ""
        if self.cell is not None:
            import wanem
            netns, host, address = {"a": (wanem.NS_A, wanem.HOST_A, wanem.ADDR_A),
                                    "b": (wanem.NS_B, wanem.HOST_B, wanem.ADDR_B)}[side]
        try:
            endpoint = _start_server(variant.server, variant.server_threads,
                                     variant.level == "integrity", self.pki, self.work,
                                     self.cell, netns, host, address)
        except AssertionError as e:
            raise RunFailed(f"{variant.server} did not start: {str(e).splitlines()[0]}") from None
        self.started_servers += 1
        endpoint.name = f"{variant.server}-{self.started_servers}"
        self.endpoints[key] = endpoint   # kept even if the warm-up fails: its logs are kept
        self._warm_up(endpoint)
        return endpoint

    def _warm_up(self, endpoint: Endpoint) -> None:
        """One untimed 1-byte transfer on a new server, then wait until it is idle: a server
        spends its first seconds loading libraries, filling caches and, for gridftpd, making
        delegation keys ahead; none of that belongs to the first run measured on it."""
        client = self.binaries.get("globus-url-copy") or self.binaries.get("gridcp")
        if client:
            argv = [client, "-nodcau", "-len", "1", f"{endpoint.url()}/dev/zero",
                    f"{endpoint.url()}/dev/null"]
            if self.cell is not None:
                import wanem
                argv = wanem.in_netns(wanem.NS_A, argv)
            try:
                h.run_peer(argv, timeout=120, env=self.env, what=f"warm-up of {endpoint.kind}")
            except AssertionError as e:
                raise RunFailed(f"warm-up transfer on {endpoint.kind} failed: "
                                f"{failure_reason(str(e))}") from None
        endpoint.wait_idle()

    # One run ---------------------------------------------------------------------------------
    def run(self, run: Run) -> dict:
        variant = run.variant
        dataset = self.datasets[variant.dataset]
        self._credentials()
        self._prepare(dataset)
        if variant.movers:
            if self.striped is None:
                from .striping import StripedRuns   # the bed and cgroups: striped studies only
                self.striped = StripedRuns(self)
            return self.striped.run(run, dataset)
        self.enter_cell(variant.path)
        if variant.path is None:
            source = dest = self._endpoint(variant, "")
        else:
            source, dest = self._endpoint(variant, "b"), self._endpoint(variant, "a")
        endpoints = [source] if source is dest else [source, dest]
        client = self.binaries.get(variant.client)
        if not client:
            raise RunFailed(f"{variant.client} not found")
        out_name = f"run-{run.index}" + (".bin" if dataset.kind == "disk" else "")
        argv = client_argv(client, variant, dataset, source.url(), dest.url(), out_name)
        if variant.path is not None:
            import wanem
            argv = wanem.in_netns(wanem.NS_A, argv)
        marks = [e.mark() for e in endpoints]
        try:
            if dataset.drop_caches:
                with open("/proc/sys/vm/drop_caches", "w") as f:
                    f.write("1\n")
            return self._measure(run, dataset, argv, endpoints, marks, dest)
        finally:
            if dataset.kind != "memory":
                target = os.path.join(dataset_dir(dataset), "out", out_name)
                if os.path.isdir(target):
                    shutil.rmtree(target, ignore_errors=True)
                elif os.path.exists(target):
                    os.unlink(target)

    def _measure(self, run: Run, dataset: Dataset, argv: list[str], endpoints: list[Endpoint],
                 marks: list[int], dest: Endpoint) -> dict:
        meter = CpuMeter([e.pid for e in endpoints])
        cycles = None if self.cycles_missing else CycleCounter()
        meter.start()
        if cycles:
            cycles.start()
        started = time.monotonic()
        try:
            h.run_peer(argv, timeout=self.study.run_timeout_seconds, env=self.env,
                       what=f"run {run.index}")
        except AssertionError as e:
            raise RunFailed(failure_reason(str(e))) from None
        finally:
            wall = time.monotonic() - started
            cycle_count = cycles.stop() if cycles else None
        for endpoint in endpoints:
            if not endpoint.server.alive():
                raise RunFailed(f"{endpoint.kind} died during the run (exit status "
                                f"{endpoint.server.proc.returncode})")
        wanted = dataset.files if dataset.kind == "tree" else 1
        dest_mark = marks[endpoints.index(dest)]
        deadline = time.monotonic() + LOG_WAIT_SECONDS
        while True:
            entries = dest.entries_since(dest_mark)
            if sum(1 for e in entries if e.command in RECEIVING) >= wanted or \
                    time.monotonic() > deadline:
                break
            time.sleep(0.05)
        for endpoint in endpoints:
            endpoint.wait_idle()
        cpu = meter.stop()
        # The sender's records say how its streams were secured too; the receiver's carry bytes.
        sent = [e for endpoint, mark in zip(endpoints, marks) if endpoint is not dest
                for e in endpoint.entries_since(mark)]
        summary = summarize(entries)
        failures = summary.failures + summarize(sent, ("RETR", "ERET")).failures
        if failures:
            raise RunFailed(f"{dest.kind} logged a failed transfer: {'; '.join(failures)[:300]}")
        expected = dataset.total_bytes
        if summary.records and summary.bytes != expected:
            raise RunFailed(f"{dest.kind} logged {summary.bytes} bytes received, expected {expected}")
        # A tree's figure is bytes over wall time: per-file commands and logins are what a
        # small-files study measures, and gridftpd's record times have one-second resolution,
        # too coarse for a span over many records.
        from_log = dataset.kind != "tree" and summary.records >= wanted and summary.seconds > 0
        version, cipher = summary.version_and_cipher()
        total_cpu = cpu["server_cpu_seconds"] + cpu["client_cpu_seconds"]
        return {
            "files": wanted,
            "bytes": expected,
            "log_bytes": summary.bytes if summary.records else None,
            "wall_seconds": wall,
            "transfer_seconds": summary.seconds if summary.seconds > 0 else None,
            "throughput_bytes_per_second": (summary.bytes / summary.seconds if from_log
                                            else expected / wall),
            "throughput_source": ("server log" if from_log else "wall time (tree)"
                                  if dataset.kind == "tree"
                                  else f"wall time ({summary.records} of {wanted} log records)"),
            "wall_throughput_bytes_per_second": expected / wall,
            "server_cpu_seconds": cpu["server_cpu_seconds"],
            "client_cpu_seconds": cpu["client_cpu_seconds"],
            "server_utilisation": cpu["server_cpu_seconds"] / wall,
            "client_utilisation": cpu["client_cpu_seconds"] / wall,
            "cpu_seconds_per_gb": total_cpu / expected * 1e9,
            "cycles": cycle_count,
            "cycles_per_byte": cycle_count / expected if cycle_count else None,
            "others_share": cpu["others_share"],
            "tls_version": version,
            "cipher": cipher,
            "stream_tls": summary.tls_text(),
            "security": summary.security,
            "server_log": f"logs/{dest.name}.transfer.log",
            "command": shlex.join(argv),
        }


def probe_globus_ciphers(executor: "Executor", levels: tuple[str, ...]) -> dict[str, str]:
    """What globus-gridftp-server's data channels negotiate at each level, from the
    ServerHello on the wire (tlsprobe.py): one untimed 1 MiB transfer per level on a Globus
    server of its own whose passive ports lie in a range nothing else uses here."""
    from .tlsprobe import ServerHelloCapture
    executor._credentials()
    client = executor.binaries.get("globus-url-copy") or executor.binaries.get("gridcp")
    if not client or "globus-gridftp-server" not in executor.binaries:
        return {}
    # Below Linux's ephemeral range (32768-60999), so no outgoing connection lands in it.
    ports = range(27000 + (os.getpid() % 100) * 50, 27050 + (os.getpid() % 100) * 50)
    server = h.start_globus_server(gsi=executor.pki, extra_args=[
        "-port-range", f"{ports.start},{ports.stop - 1}"])
    found = {}
    try:
        url = f"gsiftp://localhost:{server.port}"
        for level in levels:
            if level in ("none", "integrity"):   # no TLS at all; a gridftpd-only level
                continue
            argv = [client] + LEVEL_FLAGS[level] + ["-p", "1", "-len", str(1 << 20),
                                                    f"{url}/dev/zero", f"{url}/dev/null"]
            with ServerHelloCapture(ports) as capture:
                h.run_peer(argv, timeout=120, env=executor.env, what=f"cipher probe {level}")
                time.sleep(0.2)   # the reader thread drains what the socket holds
            seen = capture.summary()
            found[level] = (f"clear after {seen}" if level == "dcau" and seen else seen
                            or "no TLS handshake seen")
    finally:
        server.stop()
    return found


def machine_facts() -> dict:
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name")), "?")
    except OSError:
        pass
    try:
        with open("/proc/sys/net/ipv4/tcp_congestion_control") as f:
            congestion = f.read().strip()
    except OSError:
        congestion = "?"
    commit = subprocess.run(["git", "-C", support.TOP_DIR, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    return {"cores": os.cpu_count() or 1, "cpu": cpu, "kernel": os.uname().release,
            "congestion_control": congestion, "load_average": gsi_bench.load_average(),
            "commit": commit or None}


def binary_versions(binaries: dict[str, str]) -> dict[str, str]:
    version_flag = {"gridftpd": "-version", "globus-url-copy": "-version",
                    "globus-gridftp-server": "-version"}
    out = {}
    for name, path in sorted(binaries.items()):
        flag = version_flag.get(name)
        out[name] = f"{path} ({gsi_bench.tool_version([path, flag])})" if flag else path
    return out
