#!/usr/bin/env python3
"""GSI data-channel security benchmark: gridftpd vs globus-gridftp-server, same client
(globus-url-copy), same throwaway credentials (tests/support/test_pki.py), same run.

Memory-to-memory third-party transfers over gsiftp://, source and destination the same server:
    globus-url-copy <level flags> -p N -len SIZE gsiftp://localhost:S/dev/zero gsiftp://localhost:S/dev/null
(ERET P 0 SIZE on the source, ESTO A 0 on the destination; both sessions authenticate the data
connections with the credential the client delegated to them) at each data-channel security level
    nodcau  -nodcau   DCAU N: no TLS on the data channels
    dcau    (none)    DCAU A, PROT C: TLS handshake per data connection, then clear data
    dcsafe  -dcsafe   PROT S: integrity-protected data
    dcpriv  -dcpriv   PROT P: encrypted data
and each -p. gridftpd confines mapped users to its gsi root, so that root is a tmpfs directory
holding its own dev/zero and dev/null device nodes; Globus uses the real ones.
Beside the table: the AES-GCM ceiling `openssl speed -evp` (one core) implies for this machine
(aes-128-gcm and aes-256-gcm: Globus negotiates TLS_AES_256_GCM_SHA384).

    python3 bench/gsi_bench.py                               # 2 GiB, -p 1,4, median of 3
    python3 bench/gsi_bench.py --size 256M --repeat 1        # smoke run
    python3 bench/gsi_bench.py --server globus               # Globus rows only

Targets (issue): dcpriv and dcsafe at least 1.25x globus-gridftp-server at each -p, and
dcpriv at least 0.65x gridftpd's own nodcau figure at the same -p.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "support"))
sys.path.insert(0, HERE)

import gridftp_harness as h  # noqa: E402
from host_cpu import cpu_ticks  # noqa: E402
from mode_e_bench import make_device_root  # noqa: E402
from stream_get_bench import parse_size  # noqa: E402

# globus-url-copy flags per level (as in tests/interop/test_gsi_globus_url_copy.py).
LEVELS = {"nodcau": ["-nodcau"], "dcau": [], "dcsafe": ["-dcsafe"], "dcpriv": ["-dcpriv"]}
TARGET_VS_GLOBUS = 1.25            # dcpriv and dcsafe, gridftpd / globus
TARGET_DCPRIV_VS_NODCAU = 0.65     # gridftpd dcpriv / gridftpd nodcau
TARGET_SHARE_OF_BOUND = 0.9        # dcpriv and dcsafe / nodcau, over the CPU-cost bound
CONTENDED = 0.15                   # share of all CPUs busy outside the benchmark that taints a run
# Transfer-log keys that describe data-channel protection (printed when gridftpd writes them).
SECURITY_KEY_RE = re.compile(r"secur|protect|prot$|dcau|tls|cipher|ssl", re.I)


class BenchError(Exception):
    """A failure reported as a message, without a traceback."""


# --------------------------------------------------------------------------------------------
# Ceilings
# --------------------------------------------------------------------------------------------

def openssl_speed(cipher: str, seconds: int = 1, block: int = 16384, processes: int = 1) -> float:
    """Bytes/s of `openssl speed -evp <cipher>` at one block size: one core's, or with
    `processes` > 1 the sum of that many run at once (`-multi`)."""
    multi = ["-multi", str(processes)] if processes > 1 else []
    argv = ["openssl", "speed", *multi, "-evp", cipher, "-seconds", str(seconds), "-bytes", str(block)]
    result = h.run_peer(argv, timeout=120, what=f"openssl speed {cipher}")
    # Last line: "AES-128-GCM    3792407.35k" (thousands of bytes per second).
    for line in reversed(result.stdout.splitlines()):
        m = re.match(rf"\s*{re.escape(cipher)}\s+([\d.]+)k\s*$", line, re.I)
        if m:
            return float(m.group(1)) * 1000
    raise BenchError(f"cannot parse openssl speed output for {cipher}:\n{result.describe()}")


# --------------------------------------------------------------------------------------------
# Servers
# --------------------------------------------------------------------------------------------

def gridftpd_security_log(server) -> list[str]:
    """The control-channel 'GSI authenticated ... tls=... cipher=...' lines gridftpd logs."""
    out = []
    for line in server.log_lines:
        m = re.search(r"GSI authenticated.*?(tls=\S+).*?(cipher=\S+)", line)
        if m:
            out.append(f"{m.group(1)} {m.group(2)}")
    return sorted(set(out))


def security_fields(records: list[dict]) -> list[str]:
    """'COMMAND key=value ...' for each new transfer-log record that has protection fields."""
    out = []
    for rec in records:
        fields = {k: v for k, v in rec.items() if SECURITY_KEY_RE.search(k) and v not in ("", None)}
        if fields:
            out.append(f"{rec.get('command', '?')} " + " ".join(f"{k}={v}" for k, v in sorted(fields.items())))
    return out


# --------------------------------------------------------------------------------------------
# Other load on the machine
# --------------------------------------------------------------------------------------------

def _per_task(pid: int, name: str) -> dict[int, str]:
    """{tid: text of /proc/pid/task/tid/<name>} for each thread of pid still alive."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    texts = {}
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/{name}") as f:
                texts[int(tid)] = f.read()
        except (OSError, ValueError):
            pass
    return texts


def _tree_pids(root_pid: int) -> list[int]:
    """root_pid and its live descendants, found through each thread's `children` file: a walk
    over this tree alone, where reading every /proc/PID/stat on the host cost a few percent of a
    core at BusiestThread's sampling rate, taken from the transfer being measured."""
    found, todo = [], [root_pid]
    while todo:
        pid = todo.pop()
        found.append(pid)
        for text in _per_task(pid, "children").values():
            todo.extend(int(child) for child in text.split())
    return found


def _tree_ticks(root_pid: int) -> int:
    """CPU ticks of root_pid and its live descendants, each with its reaped children (cutime):
    this process, the servers and their session processes, globus-url-copy."""
    ticks = 0
    for pid in _tree_pids(root_pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                rest = f.read().rsplit(")", 1)[1].split()
            ticks += sum(int(v) for v in rest[11:15])
        except (OSError, IndexError, ValueError):
            pass
    return ticks


IDLE_WAIT_SECONDS = 5.0    # session processes end after QUIT; their CPU lands in cutime
QUIET_SECONDS = 0.2        # a server tree whose ticks (10 ms) do not grow for this long is idle


def wait_server_idle(server, pid: int) -> None:
    """Until `server`'s session processes have ended (their CPU then counts in the parent's) and
    the tree under `pid` has stopped using CPU: work a transfer leaves behind, such as gridftpd
    making the delegation keys it hands to the next sessions, is charged to the run that caused
    it, not to whichever run comes next. Gives up after IDLE_WAIT_SECONDS."""
    deadline = time.monotonic() + IDLE_WAIT_SECONDS
    while h.session_processes(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    ticks = _tree_ticks(pid)
    while time.monotonic() < deadline:
        time.sleep(QUIET_SECONDS)
        now = _tree_ticks(pid)
        if now == ticks:
            return
        ticks = now


class OtherLoad:
    """Between start() and stop(): the share of the machine's CPU capacity used by processes
    outside this benchmark's tree (a compile beside the benchmark shows up here), returned by
    stop(); and each CPU's busy share, busiest first, left in `cpu_busy`."""

    def start(self) -> None:
        self.cpus, self.tree = cpu_ticks(), _tree_ticks(os.getpid())

    def stop(self) -> float:
        cpus = cpu_ticks()
        tree = _tree_ticks(os.getpid())
        spans = [(total1 - total0, busy1 - busy0)
                 for (total0, busy0), (total1, busy1) in zip(self.cpus, cpus)]
        self.cpu_busy = sorted((busy / total if total > 0 else 0.0 for total, busy in spans),
                               reverse=True)
        elapsed = sum(total for total, _ in spans)
        if elapsed <= 0:
            return 0.0
        return max(0.0, sum(busy for _, busy in spans) - (tree - self.tree)) / elapsed


class BusiestThread:
    """The largest share of one core that any single thread of a process tree (a server and its
    session processes) used during a run, sampled every `interval` seconds from
    /proc/PID/task/TID/stat. A stream whose thread sits near 100% is held by that one core,
    whatever the other cores could still do. Threads born during the run count from zero."""

    def __init__(self, root_pid: int, interval: float = 0.1):
        self.root_pid, self.interval = root_pid, interval

    def _threads(self) -> dict[int, int]:
        ticks = {}
        for pid in _tree_pids(self.root_pid):
            for tid, text in _per_task(pid, "stat").items():
                try:
                    rest = text.rsplit(")", 1)[1].split()
                    ticks[tid] = int(rest[11]) + int(rest[12])   # utime + stime
                except (IndexError, ValueError):
                    pass
        return ticks

    def __enter__(self):
        self.first = self._threads()
        self.last = dict(self.first)
        self.started = time.monotonic()
        self.stopping = threading.Event()
        self.sampler = threading.Thread(target=self._sample, daemon=True)
        self.sampler.start()
        return self

    def _sample(self) -> None:
        while not self.stopping.wait(self.interval):
            self.last.update(self._threads())

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self.sampler.join()
        self.last.update(self._threads())
        elapsed = time.monotonic() - self.started
        hz = os.sysconf("SC_CLK_TCK")
        used = [ticks - self.first.get(tid, 0) for tid, ticks in self.last.items()]
        self.share = max(used, default=0) / hz / elapsed if elapsed > 0 else 0.0


# --------------------------------------------------------------------------------------------
# Transfers
# --------------------------------------------------------------------------------------------

class Target:
    """One server under measurement and how to reach /dev/zero and /dev/null on it."""

    def __init__(self, label: str, server):
        self.label, self.server = label, server
        # The same path on both: gridftpd's is inside its gsi root, Globus's is the real device.
        # (localhost: the name in the test host certificate, as server.gsiftp_url() uses.)
        self.zero = f"gsiftp://localhost:{server.port}/dev/zero"
        self.null = f"gsiftp://localhost:{server.port}/dev/null"
        self.log_seen = 0   # transfer-log records already accounted for (gridftpd only)

    def run(self, flags: list[str], streams: int, size: int, env: dict, what: str) -> tuple[float, list[str]]:
        """Wall seconds of one transfer; and the protection fields gridftpd logged for it."""
        argv = ["globus-url-copy"] + flags + ["-p", str(streams), "-len", str(size), self.zero, self.null]
        timeout = max(600.0, size / (20 << 20))
        load = OtherLoad()
        load.start()
        started = time.monotonic()
        busiest = BusiestThread(self.server.proc.pid) if isinstance(self.server, h.GridftpdServer) else None
        try:
            if busiest:
                with busiest:
                    h.run_peer(argv, timeout=timeout, env=env, what=what)
            else:
                h.run_peer(argv, timeout=timeout, env=env, what=what)
        except AssertionError as e:
            hint = ""
            if self.label == "gridftpd":
                hint = (f"\n--- gridftpd log tail ---\n{h._tail(self.server.log_text(), 3000)}"
                        "\n(gridftpd's GSI support may be incomplete: --server globus measures the "
                        "Globus rows alone)")
            raise BenchError(f"transfer failed: {e}{hint}") from None
        elapsed = time.monotonic() - started
        self.other_load = load.stop()
        self.cpu_busy = load.cpu_busy
        self.busiest_thread = busiest.share if busiest else None
        fields: list[str] = []
        if isinstance(self.server, h.GridftpdServer):
            self.server.assert_alive(f"after {what}")
            records = self.server.transfer_records()
            new, self.log_seen = records[self.log_seen:], len(records)
            failed = [r for r in new if r.get("result") not in (None, "ok")]
            if failed:
                raise BenchError(f"{what}: globus-url-copy exited 0 but gridftpd logged a failed "
                                 f"transfer: {failed}")
            short = [r for r in new if isinstance(r.get("bytes"), int) and r["bytes"] != size]
            if short:
                raise BenchError(f"{what}: gridftpd moved a byte count other than {size}: {short}")
            fields = security_fields(new)
        return elapsed, fields


def measure(targets: list[Target], levels: list[str], streams: list[int], size: int,
            repeat: int, env: dict, with_setup: bool, retries: int,
            aes_samples: dict[str, list[float]], cores: int) -> dict:
    """rates[(level, p)][label] = bytes/s (median); also 'runs' and 'security' per row.

    A round runs every level once at one -p (in reverse order every other round), so a row's
    ratio to nodcau compares transfers made seconds apart, not minutes: this host's speed drifts
    by a quarter within minutes, and rows measured one after the other carried that drift into
    their ratios. After each level's turn in a round, `openssl speed` of aes-128-gcm is sampled
    twice, so the CPU-cost bound takes the median of samples taken among the transfers rather
    than one taken before them: one core alone (aes_samples["one core"]) and every core at once,
    per core (aes_samples["every core"]: what each core keeps while the others seal too, as they
    do during a transfer)."""
    rows = {}
    for p in streams:
        runs = {level: {t.label: [] for t in targets} for level in levels}
        security = {level: {t.label: [] for t in targets} for level in levels}
        others: dict[str, list[float]] = {level: [] for level in levels}
        busiest: dict[str, dict[str, list[float]]] = {level: {} for level in levels}
        cpu_busy: dict[str, dict[str, list[list[float]]]] = {level: {} for level in levels}
        for r in range(repeat):
            for level in (levels if r % 2 == 0 else list(reversed(levels))):
                order = targets if r % 2 == 0 else list(reversed(targets))   # alternate who goes first
                for t in order:
                    for attempt in range(retries + 1):
                        elapsed, fields = t.run(LEVELS[level], p, size, env, f"{t.label} {level} -p {p}")
                        if t.other_load <= CONTENDED:
                            break
                        if attempt < retries:
                            print(f"  ({t.label} {level} -p {p}: {elapsed:.2f} s with "
                                  f"{100 * t.other_load:.0f}% of the CPUs busy elsewhere; run again)",
                                  flush=True)
                    runs[level][t.label].append(elapsed)
                    others[level].append(t.other_load)
                    if t.busiest_thread is not None:
                        busiest[level].setdefault(t.label, []).append(t.busiest_thread)
                    cpu_busy[level].setdefault(t.label, []).append(t.cpu_busy)
                    security[level][t.label].extend(fields)
                aes_samples["one core"].append(openssl_speed("aes-128-gcm"))
                if cores > 1:
                    aes_samples["every core"].append(
                        openssl_speed("aes-128-gcm", processes=cores) / cores)
        for level in levels:
            # Fixed cost (client start-up, GSI authentication, delegation, data-channel set-up)
            # of the same command with -len 1, once, so the per-byte part can be told apart.
            setup = {}
            if with_setup:
                for t in targets:
                    setup[t.label], _ = t.run(LEVELS[level], p, 1, env, f"{t.label} {level} -p {p} -len 1")
            rows[(level, p)] = {
                "setup": setup,
                "others": max(others[level]),
                "busiest": {label: statistics.median(v) for label, v in busiest[level].items()},
                # Per CPU rank (busiest first), the median over the row's runs.
                "cpu_busy": {label: [statistics.median(rank) for rank in zip(*v)]
                             for label, v in cpu_busy[level].items()},
                "rate": {label: size / statistics.median(times) for label, times in runs[level].items()},
                "runs": runs[level],
                "security": {label: sorted(set(f)) for label, f in security[level].items()},
            }
            print_row(level, p, rows, [t.label for t in targets])
    return rows


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------

HEADER = (f"{'level':<7} {'-p':>3} {'gridftpd GB/s':>14} {'globus GB/s':>12} {'gridftpd/globus':>16} "
          f"{'gridftpd/nodcau':>16} {'globus/nodcau':>14} {'setup s g/G':>12} {'others %':>8} {'top thr %':>9}   runs (s)")


def fmt(value: float | None, width: int, digits: int = 2) -> str:
    return f"{value:>{width}.{digits}f}" if value is not None else f"{'-':>{width}}"


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def print_row(level: str, p: int, rows: dict, labels: list[str]) -> None:
    row = rows[(level, p)]
    ours, theirs = row["rate"].get("gridftpd"), row["rate"].get("globus")
    base = rows.get(("nodcau", p), {}).get("rate", {})
    others = f"{100 * row['others']:.0f}" + ("!" if row["others"] > CONTENDED else "")
    setup = "/".join(f"{row['setup'][k]:.2f}" if k in row["setup"] else "-" for k in ("gridftpd", "globus"))
    runs = " / ".join(f"{label}: " + ",".join(f"{t:.2f}" for t in row["runs"][label]) for label in labels)
    top = row["busiest"].get("gridftpd")
    print(f"{level:<7} {p:>3} {fmt(ours and ours / 1e9, 14)} {fmt(theirs and theirs / 1e9, 12)} "
          f"{fmt(ratio(ours, theirs), 16)} {fmt(ratio(ours, base.get('gridftpd')), 16)} "
          f"{fmt(ratio(theirs, base.get('globus')), 14)} {setup:>12} {others:>8} "
          f"{fmt(top and 100 * top, 9, 0)}   {runs}", flush=True)
    for field in row["security"].get("gridftpd", []):
        print(f"{'':<11} gridftpd transfer log: {field}", flush=True)


def print_cpu_bound(rows: dict, streams: list[int], aes: dict[str, float], cores: int) -> None:
    """What dcpriv/nodcau can reach when nodcau already keeps every core busy: each byte then
    costs what it cost at nodcau, plus one AES-GCM seal and one open (both servers on this host)
    at `openssl speed`'s rate. dcpriv/nodcau <= 1 / (1 + 2 * nodcau rate / (cores * speed)).
    PROT S under TLS 1.3 encrypts as well, so the same bound holds for dcsafe. Beside it: the
    busiest gridftpd thread ('top thr %'); near 100% the row is held by that one core (one
    stream's reads, seals and sends run on one thread), not by what all cores could do. And each
    CPU's busy share, softirq included (the per-thread figure leaves it out): a CPU near 100%
    while another has room means the work did not spread over the cores as the bound assumes.
    The bound takes one core's speed alone (the target's); in brackets follows the same bound at
    the speed each core keeps while every core seals at once. A transfer's seals and opens run on
    every core at once, but beside other work, so where the two differ the true bound lies
    between them."""
    every = aes.get("every core")
    print("\nbound from CPU cost (nodcau rate, aes-128-gcm at the median openssl speed above, "
          f"{cores} cores; valid where nodcau is CPU-bound)"
          + (" [at the speed of every core at once]" if every else "") + ":")
    for p in streams:
        base = rows.get(("nodcau", p), {}).get("rate", {}).get("gridftpd")
        if not base:
            continue
        bound = cpu_bound(rows, p, aes["one core"], cores)
        bound_every = cpu_bound(rows, p, every, cores) if every else None
        print(f"  -p {p}: nodcau {base / 1e9:.2f} GB/s -> dcpriv/nodcau and dcsafe/nodcau at most {bound:.2f}"
              + (f" [{bound_every:.2f}]" if bound_every else ""))
        for level in ("dcpriv", "dcsafe"):
            row = rows.get((level, p))
            ours = row and row["rate"].get("gridftpd")
            if not ours:
                continue
            top = row["busiest"].get("gridftpd")
            held = f"; busiest gridftpd thread {100 * top:.0f}% of a core" if top is not None else ""
            if top is not None and top >= 0.9:
                held += " (held by that one thread)"
            cpus = row.get("cpu_busy", {}).get("gridftpd")
            if cpus:
                held += "; CPUs busy " + "/".join(f"{100 * c:.0f}%" for c in cpus)
                if cpus[0] >= 0.97 and cpus[-1] < 0.95:
                    held += " (one CPU full while another has room)"
            share = f"{ours / base / bound:.2f}" + (f" [{ours / base / bound_every:.2f}]" if bound_every else "")
            print(f"    {level}: {ours / base:.2f} of nodcau = {share} of the bound{held}")


def cpu_bound(rows: dict, p: int, aes_speed: float, cores: int) -> float | None:
    base = rows.get(("nodcau", p), {}).get("rate", {}).get("gridftpd")
    return 1.0 / (1.0 + 2.0 * base / (cores * aes_speed)) if base else None


def print_targets(rows: dict, streams: list[int], aes: dict[str, float], cores: int) -> bool:
    print("\ntargets")
    ok = True

    def check(name: str, value: float | None, want: float, missing: str) -> None:
        nonlocal ok
        if value is None:
            print(f"  n/a   {name} (needs {missing})")
            return
        passed = value >= want
        ok = ok and passed
        print(f"  {'PASS' if passed else 'FAIL'}  {name}: {value:.2f} (target >= {want:.2f})")

    for p in streams:
        for level in ("dcpriv", "dcsafe"):
            rate = rows.get((level, p), {}).get("rate", {})
            check(f"{level} -p {p} gridftpd/globus", ratio(rate.get("gridftpd"), rate.get("globus")),
                  TARGET_VS_GLOBUS, f"--server both and level {level}")
        ours = rows.get(("dcpriv", p), {}).get("rate", {}).get("gridftpd")
        base = rows.get(("nodcau", p), {}).get("rate", {}).get("gridftpd")
        check(f"dcpriv -p {p} gridftpd/gridftpd nodcau", ratio(ours, base), TARGET_DCPRIV_VS_NODCAU,
              "gridftpd and levels nodcau,dcpriv")
        bound = cpu_bound(rows, p, aes["one core"], cores)
        for level in ("dcpriv", "dcsafe"):
            rate = rows.get((level, p), {}).get("rate", {}).get("gridftpd")
            share = ratio(rate, base)
            check(f"{level} -p {p} share of the CPU-cost bound", share and bound and share / bound,
                  TARGET_SHARE_OF_BOUND, f"gridftpd and levels nodcau,{level}")
    return ok


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def tool_version(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=30).stdout.decode(errors="replace")
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return out.strip().splitlines()[0] if out.strip() else "?"


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------

def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="2G", type=parse_size, help="bytes per transfer (default 2G)")
    parser.add_argument("--streams", default="1,4", help="comma-separated -p values (default 1,4)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the median counts (default 3)")
    parser.add_argument("--levels", default=",".join(LEVELS),
                        help=f"comma-separated, from {','.join(LEVELS)} (default all)")
    parser.add_argument("--server", choices=("both", "globus", "gridftpd"), default="both")
    parser.add_argument("--openssl-seconds", type=int, default=1)
    parser.add_argument("--contended-retries", type=int, default=2,
                        help=f"runs again (up to N times) a run during which more than {100 * CONTENDED:.0f}%% "
                             "of the CPUs were busy outside the benchmark (default 2)")
    parser.add_argument("--no-setup", action="store_true",
                        help="skip the -len 1 run per row that measures the fixed per-transfer cost")
    parser.add_argument("--gridftpd", default=os.environ.get(
        "GRIDFTPD", os.path.join(HERE, "..", "build", "release", "gridftpd")))
    args = parser.parse_args()
    try:
        args.stream_list = [int(n) for n in args.streams.split(",") if n.strip()]
    except ValueError:
        parser.error(f"--streams: bad list {args.streams!r}")
    if not args.stream_list or min(args.stream_list) < 1:
        parser.error("--streams: need positive -p values")
    args.level_list = [lv.strip() for lv in args.levels.split(",") if lv.strip()]
    unknown = [lv for lv in args.level_list if lv not in LEVELS]
    if unknown or not args.level_list:
        parser.error(f"--levels: unknown {unknown}; choose from {','.join(LEVELS)}")
    # nodcau first, so the /nodcau ratios are on hand when later rows print.
    args.level_list.sort(key=list(LEVELS).index)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def run(args) -> int:
    for tool in ("globus-url-copy", "openssl", "grid-proxy-init"):
        h.require_tool(tool)
    if args.server != "gridftpd":
        h.require_tool("globus-gridftp-server")
    if args.server != "globus":
        os.environ["GRIDFTPD"] = os.path.abspath(args.gridftpd)
        h.gridftpd_binary()   # a clear error when it is missing

    cores = os.cpu_count() or 1
    with open("/proc/sys/net/ipv4/tcp_congestion_control") as f:
        congestion = f.read().strip()
    print(f"GSI memory-to-memory third-party, {args.size} bytes ({args.size / 2**30:.2f} GiB) per transfer "
          f"(gsiftp://localhost/dev/zero -> same server /dev/null, ERET/ESTO), median of {args.repeat} "
          "(each round runs every level once, so a row and its nodcau row are measured seconds apart)")
    print(f"cores: {cores}; load average {load_average()}; tcp congestion control: {congestion}; "
          f"{tool_version(['openssl', 'version'])}; {tool_version(['globus-url-copy', '-version'])}")

    speeds = {c: openssl_speed(c, args.openssl_seconds) for c in ("aes-128-gcm", "aes-256-gcm")}
    print("\nopenssl speed -evp, 16 KiB blocks, one core; a third-party transfer on one host encrypts and "
          f"decrypts every byte once, so {cores} core(s) bound dcpriv at about cores x speed / 2:")
    for cipher, speed in speeds.items():
        print(f"  {cipher}: {speed / 1e9:.2f} GB/s per core -> dcpriv ceiling {speed * cores / 2 / 1e9:.2f} GB/s")

    print("\nbuilding the throwaway GSI PKI (tests/support/test_pki.py) ...", flush=True)
    pki = h.shared_test_pki()
    env = pki.client_env("test")
    root = None
    targets: list[Target] = []
    try:
        if args.server != "globus":
            root = make_device_root("gridftpd-gsibench-")
            try:
                server = h.start_gridftpd(root, gsi=pki)
            except AssertionError as e:
                raise BenchError(f"gridftpd did not start with GSI: {e}\n(gridftpd's GSI support may be "
                                 "incomplete: --server globus measures the Globus rows alone)") from None
            targets.append(Target("gridftpd", server))
            print(f"gridftpd {os.path.abspath(args.gridftpd)} on port {server.port}, gsi root {root}; "
                  f"transfer log {server.transfer_log}")
        if args.server != "gridftpd":
            server = h.start_globus_server(gsi=pki)
            targets.append(Target("globus", server))
            print(f"globus-gridftp-server on port {server.port} (GSI, gridmap -> {pki.account})")

        print()
        print(HEADER, flush=True)
        aes_samples: dict[str, list[float]] = {"one core": [], "every core": []}
        rows = measure(targets, args.level_list, args.stream_list, args.size, args.repeat, env,
                       not args.no_setup, args.contended_retries, aes_samples, cores)
        aes = {kind: statistics.median(v) for kind, v in aes_samples.items() if v}

        for t in targets:
            if t.label == "gridftpd":
                for line in gridftpd_security_log(t.server):
                    print(f"gridftpd control channel: {line}")
                if not any(rows[k]["security"].get("gridftpd") for k in rows):
                    print("gridftpd transfer log: no per-transfer protection fields "
                          "(keys like security/protection/tls_version/cipher)")
        print(f"load average at the end: {load_average()}; 'others %' is the largest share of all CPUs "
              "that processes outside this benchmark used during one of the row's timed runs "
              f"('!': above {CONTENDED:.0%} even after --contended-retries; rerun on a quiet machine)")
        print("\naes-128-gcm among the transfers (openssl speed after each level in each round), median "
              "per core:")
        for kind, samples in aes_samples.items():
            if samples:
                how = f" (openssl speed -multi {cores}, divided by {cores})" if kind == "every core" else ""
                print(f"  {kind}{how}: {aes[kind] / 1e9:.2f} GB/s over {len(samples)} samples, "
                      f"{min(samples) / 1e9:.2f}-{max(samples) / 1e9:.2f}")
        if "every core" in aes:
            print(f"  every core at once / one core alone: {aes['every core'] / aes['one core']:.2f}")
        print_cpu_bound(rows, args.stream_list, aes, cores)
        print_targets(rows, args.stream_list, aes, cores)
        for t in targets:
            if t.label == "gridftpd":
                t.server.assert_alive("after the benchmark")
        return 0
    finally:
        for t in targets:
            t.server.stop()
        if root:
            shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    args = parse_args()
    try:
        return run(args)
    except (BenchError, AssertionError) as e:
        print(f"\ngsi_bench: error: {e}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        print("\ngsi_bench: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
