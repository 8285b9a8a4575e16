#!/usr/bin/env python3
"""Real files on disk: gridftpd vs globus-gridftp-server, both clients, one run, ratios printed.

Both servers serve one directory on a real disk (default under /var/tmp; tmpfs is refused) over
anonymous ftp:// on loopback, the anonymous account `gftest` on both (gridftpd
`[anonymous] account`, Globus `-aa -anonymous-user`), each a process per session. Rows:

    get-null   CLIENT [-p N] ftp://S/src      file:///dev/null
    get-file   CLIENT [-p N] ftp://S/src      file:///DIR/client/get.bin
    put        CLIENT [-p N] file:///DIR/src  ftp://S/incoming/put.bin
    third      CLIENT [-p N] ftp://S/src      ftp://S/incoming/third.bin   (one server)
    cksum      put of --cksum-size, then CKSM ADLER32 on a new control connection (as FTS3 does)

for CLIENT in globus-url-copy and gridcp, -p in stream (no -p), 1, 4, 8, page cache warm (the
source read once before) or dropped (`sync; echo 1 > /proc/sys/vm/drop_caches` before; the
--dropped-size file). Put rows also run against a gridftpd with `[storage] durable = true` and,
for reference, a Globus with -sync-writes (--rows durable). Every run starts after a `sync`,
so no run pays for the write-back of the one before. Servers alternate within a repetition
(the order of the cells is shuffled with --seed, the servers of a cell take turns going first).
Per run: wall time of the whole client command, MB/s (10^6 B/s), CPU seconds of the client,
of the server's process tree (sessions included) and of the rest of the machine, each also as a
share of one core (100% = one core busy for the whole run).

The disk's own ceilings are measured in every repetition: dd read with the page cache dropped,
dd read warm, dd write (page cache) and dd write with conv=fdatasync. So is the data path's own
ceiling for every row's shape (bench/data_path_ceiling.py): the same file over the same number
of loopback TCP connections by a sendfile sender and a receiver that discards (get-null) or
splices into a file on the same disk (the other rows), no protocol. ceiling / Globus is the most
any server could reach against Globus on that row; a row where it is under 1.25 is marked
ceiling-bound, and gridftpd / ceiling says how near gridftpd came.

    python3 bench/file_bench.py                         # 1G warm, 2G dropped, 4G cksum, 3 reps
    python3 bench/file_bench.py --quick                 # smoke run: 64M everything, 1 rep
    python3 bench/file_bench.py --rows put,durable --streams 4 --clients guc

Targets: gridftpd/Globus >= 1.25 on every row with durable off; durable on: upload time <=
1.1 x (the same upload with durable off + dd conv=fdatasync of that size); upload + CKSM end to
end Globus/gridftpd >= 1.5, and gridftpd's CKSM alone < 50 ms.
"""

from __future__ import annotations

import argparse
import ftplib
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "support"))
sys.path.insert(0, HERE)

import gridftp_harness as h  # noqa: E402
from gsi_bench import OtherLoad, _tree_ticks, wait_server_idle  # noqa: E402
from host_cpu import TICK_SECONDS, children_cpu_seconds  # noqa: E402
from stream_get_bench import parse_size  # noqa: E402
import data_path_ceiling  # noqa: E402

OPS = ("get-null", "get-file", "put", "third", "cksum")
TARGET_VS_GLOBUS = 1.25       # gridftpd / Globus, durable off, every row
TARGET_DURABLE = 1.1          # on / (off + dd conv=fdatasync)
TARGET_CKSUM_E2E = 1.5        # Globus / gridftpd, upload + CKSM end to end
TARGET_CKSUM_ALONE_S = 0.050  # gridftpd's CKSM after the upload
CLIENT_BOUND_SHARE = 0.9      # a client using this much of one core is the bound
MACHINE_BOUND_SHARE = 0.9     # client + server + rest using this much of every core: the bound
NOISY_SHARE = 0.25            # other processes using this much of a core taint a run
MB = 1e6
MIB = 1 << 20
SERVERS = {   # label -> (kind, durable / -sync-writes)
    "gridftpd": ("gridftpd", False),
    "globus": ("globus", False),
    "gridftpd-durable": ("gridftpd", True),
    "globus-sync-writes": ("globus", True),
}


class BenchError(Exception):
    """A failure reported as a message, without a traceback."""


# --------------------------------------------------------------------------------------------
# Machine, disk and files
# --------------------------------------------------------------------------------------------

def run_quiet(argv: list[str], timeout: float = 3600) -> None:
    h.run_peer(argv, timeout=timeout, what=argv[0])


def sync_disk() -> None:
    os.sync()


# This machine is a VM whose balloon device takes free guest memory back (free page reporting,
# /sys/module/page_reporting): a page freed by an unlink is handed to the host within seconds,
# and a write that later lands in it waits for the host to back it again. A 1 GiB dd write took
# 0.27-0.90 s right after a 1 GiB file was deleted and 1.07-1.30 s four seconds later, so a run
# was faster or slower depending on how long ago the file before it was deleted. Every run now
# starts after that hand-back has finished (bench/README.md, "One send per block").
REPORTED_KIB = "/sys/module/page_reporting/parameters/reported_kib"


def settle_freed_memory(quiet_for: float = 1.0, at_most: float = 8.0) -> None:
    """Waits until the balloon has handed back what was freed (its counter still for
    `quiet_for` seconds), so each run writes into memory in the same state."""
    if not os.path.exists(REPORTED_KIB):
        return
    deadline = time.monotonic() + at_most
    last, still_since = None, time.monotonic()
    while time.monotonic() < deadline:
        with open(REPORTED_KIB) as f:
            now = f.read().strip()
        if now != last:
            last, still_since = now, time.monotonic()
        elif time.monotonic() - still_since >= quiet_for:
            return
        time.sleep(0.1)


def drop_caches() -> None:
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("1\n")


def read_through(path: str) -> None:
    """Reads a file once, untimed, so it sits in the page cache."""
    with open(path, "rb", buffering=0) as f:
        buf = bytearray(4 * MIB)
        while f.readinto(buf):
            pass


def mount_of(path: str) -> dict:
    out = subprocess.run(["findmnt", "-n", "-o", "SOURCE,FSTYPE,TARGET,OPTIONS", "--target", path],
                         capture_output=True, text=True).stdout.split()
    info = dict(zip(("source", "fstype", "target", "options"), out + [""] * 4))
    device = os.path.basename(info["source"])
    rotational = f"/sys/class/block/{device}/queue/rotational"
    if os.path.exists(rotational):
        info["rotational"] = open(rotational).read().strip()
    return info


def machine_info(bench_dir: str, binaries: dict) -> dict:
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_kib = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    return {"nproc": os.cpu_count(), "cpu": model, "kernel": platform.release(),
            "memory_gib": round(mem_kib / (1 << 20), 1), "fs": mount_of(bench_dir),
            "dir": bench_dir, "commit": commit, "binaries": binaries,
            "tcp_congestion_control":
                open("/proc/sys/net/ipv4/tcp_congestion_control").read().strip()}


def make_random_file(path: str, size: int, seed: int) -> None:
    """Incompressible bytes: 1 MiB slices of a 16 MiB random pool at shifting offsets, each
    slice's first 8 bytes its index, so no two MiB of the file are alike."""
    rng = random.Random(seed)
    pool = rng.randbytes(16 * MIB + MIB)
    with open(path, "wb") as f:
        written, index = 0, 0
        while written < size:
            start = (index * 7919) % (16 * MIB)
            chunk = bytearray(pool[start:start + min(MIB, size - written)])
            chunk[:8] = index.to_bytes(8, "little")[:len(chunk[:8])]
            f.write(chunk)
            written += len(chunk)
            index += 1
    os.chmod(path, 0o644)


def adler32_of(path: str) -> int:
    value = 1
    with open(path, "rb") as f:
        while chunk := f.read(8 * MIB):
            value = zlib.adler32(chunk, value)
    return value


# --------------------------------------------------------------------------------------------
# Ceilings: the disk's own speeds, measured with dd in the same run
# --------------------------------------------------------------------------------------------

def timed_dd(args: list[str]) -> float:
    started = time.monotonic()
    run_quiet(["dd", "bs=1M", "status=none", *args])
    return time.monotonic() - started


def measure_ceilings(bench_dir: str, files: dict[int, str], write_sizes: list[int],
                     dropped_size: int | None, size: int) -> list[dict]:
    """One reading of each ceiling: seconds and MB/s, as records."""
    out = []
    if dropped_size:
        drop_caches()
        seconds = timed_dd([f"if={files[dropped_size]}", "of=/dev/null"])
        out.append({"ceiling": "dd read, page cache dropped", "bytes": dropped_size,
                    "seconds": seconds})
    read_through(files[size])
    seconds = timed_dd([f"if={files[size]}", "of=/dev/null"])
    out.append({"ceiling": "dd read, page cache warm", "bytes": size, "seconds": seconds})
    target = os.path.join(bench_dir, "dd-write.bin")
    for nbytes in write_sizes:
        for label, extra in (("dd write (page cache)", []),
                             ("dd write conv=fdatasync", ["conv=fdatasync"])):
            sync_disk()
            settle_freed_memory()
            seconds = timed_dd(["if=/dev/zero", f"of={target}", f"count={nbytes // MIB}", *extra])
            out.append({"ceiling": label, "bytes": nbytes // MIB * MIB, "seconds": seconds})
            os.unlink(target)
            sync_disk()
    return out


def data_path_name(sink: str, streams: int, cache: str) -> str:
    return f"data path to {sink}, {max(1, streams)} stream(s), {cache}"


def data_path_shapes(cells: list) -> list[tuple[str, int, str, int]]:
    """(sink, streams, cache, size) of every row's data path, each once."""
    shapes = {("null" if c.op == "get-null" else "file", max(1, c.streams), c.cache, c.size)
              for c in cells if c.op != "cksum"}
    return sorted(shapes)


def measure_data_paths(bench_dir: str, files: dict[int, str],
                       shapes: list[tuple[str, int, str, int]]) -> list[dict]:
    out = []
    target = os.path.join(bench_dir, "data-path.bin")
    for sink, streams, cache, size in shapes:
        if cache == "dropped":
            drop_caches()
        else:
            read_through(files[size])
        sync_disk()
        settle_freed_memory()
        seconds = data_path_ceiling.measure(files[size], streams,
                                            target if sink == "file" else None)
        out.append({"ceiling": data_path_name(sink, streams, cache), "bytes": size,
                    "seconds": seconds})
        if sink == "file":
            os.unlink(target)
            sync_disk()
    return out


# --------------------------------------------------------------------------------------------
# Servers
# --------------------------------------------------------------------------------------------

class Endpoint:
    """One running server and how to reach a file of the bench directory through it."""

    def __init__(self, label: str, server):
        self.label, self.server, self.pid = label, server, server.proc.pid

    def url(self, rel: str) -> str:
        return f"ftp://127.0.0.1:{self.server.port}{self.server.path(rel)}"

    def wait_idle(self) -> None:
        wait_server_idle(self.server, self.pid)


def start_endpoint(label: str, root: str) -> Endpoint:
    kind, durable = SERVERS[label]
    if kind == "gridftpd":
        server = h.start_gridftpd(
            root, anonymous={"enabled": True, "root": root, "writable": ["incoming"],
                             "account": h.GLOBUS_USER},
            storage={"durable": durable, "checksums": ["ADLER32"]})
    else:
        server = h.start_globus_server(root, extra_args=["-sync-writes"] if durable else [])
    return Endpoint(label, server)


# --------------------------------------------------------------------------------------------
# One run
# --------------------------------------------------------------------------------------------

class Cell:
    """One row of the tables: an operation, a client, a cache state and a stream count, run
    against each of its servers."""

    def __init__(self, op: str, client: str, cache: str, streams: int, size: int,
                 servers: list[str]):
        self.op, self.client, self.cache, self.streams = op, client, cache, streams
        self.size, self.servers = size, servers

    @property
    def key(self) -> tuple:
        return (self.op, self.client, self.cache, self.streams)

    def streams_text(self) -> str:
        return f"-p {self.streams}" if self.streams else "stream"


class Runner:
    def __init__(self, bench_dir: str, files: dict[int, str], clients: dict[str, str],
                 endpoints: dict[str, Endpoint], cksums: dict[int, int]):
        self.dir, self.files, self.clients = bench_dir, files, clients
        self.endpoints, self.cksums = endpoints, cksums
        self.cores = os.cpu_count() or 1

    def argv(self, cell: Cell, ep: Endpoint) -> tuple[list[str], str | None]:
        """The client command and the local path of the file it makes (None: /dev/null)."""
        src_rel = os.path.basename(self.files[cell.size])
        flags = ["-p", str(cell.streams)] if cell.streams else []
        client_out = os.path.join(self.dir, "client", "get.bin")
        incoming = os.path.join(self.dir, "incoming", f"{cell.op}-{ep.label}.bin")
        if cell.op == "get-null":
            ends, made = [ep.url(src_rel), "file:///dev/null"], None
        elif cell.op == "get-file":
            ends, made = [ep.url(src_rel), "file://" + client_out], client_out
        elif cell.op in ("put", "cksum"):
            ends = ["file://" + self.files[cell.size], ep.url(os.path.relpath(incoming, self.dir))]
            made = incoming
        else:   # third-party within one server
            ends, made = [ep.url(src_rel), ep.url(os.path.relpath(incoming, self.dir))], incoming
        return [self.clients[cell.client], *flags, *ends], made

    def prepare(self, cell: Cell, made: str | None) -> None:
        if made and os.path.exists(made):
            os.unlink(made)
        if cell.cache == "dropped":
            drop_caches()
        else:
            read_through(self.files[cell.size])
            sync_disk()
        settle_freed_memory()

    def run(self, cell: Cell, label: str, rep: int) -> dict:
        ep = self.endpoints[label]
        argv, made = self.argv(cell, ep)
        self.prepare(cell, made)
        ep.wait_idle()
        others = OtherLoad()
        server0 = _tree_ticks(ep.pid)
        client0 = children_cpu_seconds()
        others.start()
        started = time.monotonic()
        h.run_peer(argv, timeout=max(600.0, cell.size / (10 * MB)),
                   what=f"{cell.client} {cell.op} -> {label}")
        wall = time.monotonic() - started
        others_share = others.stop()
        client_cpu = children_cpu_seconds() - client0
        record = {"rep": rep, "op": cell.op, "client": cell.client, "cache": cell.cache,
                  "streams": cell.streams, "server": label, "bytes": cell.size,
                  "argv": argv, "wall_s": wall, "transfer_s": wall}
        if cell.op == "cksum":
            record.update(self.checksum(ep, made, cell.size))
            record["wall_s"] = wall + record["cksum_session_s"]
        ep.wait_idle()
        server_cpu = (_tree_ticks(ep.pid) - server0) * TICK_SECONDS
        ep.server.assert_alive(f"after {cell.op}")
        if made is not None:
            got = os.path.getsize(made) if os.path.exists(made) else -1
            if got != cell.size:
                raise BenchError(f"{' '.join(argv)}: made {made} of {got} bytes, "
                                 f"expected {cell.size}")
            os.unlink(made)
        record.update({
            "mb_s": cell.size / record["wall_s"] / MB,
            "client_cpu_s": client_cpu, "server_cpu_s": server_cpu,
            "client_share": client_cpu / wall, "server_share": server_cpu / record["wall_s"],
            "others_share": others_share * self.cores})
        return record

    def checksum(self, ep: Endpoint, made: str, size: int) -> dict:
        """CKSM ADLER32 of the upload on a new control connection, as FTS3 asks right after a
        transfer: the session (connect, login, CKSM, QUIT) and the CKSM reply alone."""
        path = ep.server.path(os.path.relpath(made, self.dir))
        started = time.monotonic()
        ftp = ftplib.FTP()
        ftp.connect("127.0.0.1", ep.server.port, timeout=600)
        ftp.login("anonymous", "file-bench@example.org")
        asked = time.monotonic()
        reply = ftp.sendcmd(f"CKSM ADLER32 0 -1 {path}")
        answered = time.monotonic()
        ftp.quit()
        session = time.monotonic() - started
        value = int(reply.split()[-1], 16)
        if value != self.cksums[size]:
            raise BenchError(f"{ep.label}: CKSM ADLER32 {path} answered {reply!r}, the file's "
                             f"is {self.cksums[size]:08x}")
        return {"cksm_s": answered - asked, "cksum_session_s": session, "cksm_reply": reply}


# --------------------------------------------------------------------------------------------
# The plan
# --------------------------------------------------------------------------------------------

def selected(words: list[str], name: str) -> bool:
    return "all" in words or any(word in name for word in words)


def plan_cells(args) -> list[Cell]:
    cells = []
    durable = selected(args.rows, "durable")
    for client in args.clients:
        for op in OPS:
            if op == "cksum":
                if selected(args.rows, "cksum"):
                    cells += [Cell(op, client, "warm", s, args.cksum_size, ["gridftpd", "globus"])
                              for s in args.cksum_streams]
                continue
            if not (selected(args.rows, op) or (op == "put" and durable)):
                continue
            servers = ["gridftpd", "globus"]
            if op == "put" and durable:
                servers += ["gridftpd-durable", "globus-sync-writes"]
            for cache in args.cache:
                size = args.size if cache == "warm" else args.dropped_size
                cells += [Cell(op, client, cache, s, size, servers) for s in args.streams]
    return cells


def run_plan(runner: Runner, cells: list[Cell], args, ceiling_sizes: dict) -> tuple[list, list]:
    records, ceilings = [], []
    total = sum(len(c.servers) for c in cells) * args.reps
    done, began = 0, time.monotonic()
    for rep in range(args.reps):
        readings = measure_ceilings(runner.dir, runner.files, **ceiling_sizes)
        readings += measure_data_paths(runner.dir, runner.files, data_path_shapes(cells))
        for reading in readings:
            reading.update(rep=rep, mb_s=reading["bytes"] / reading["seconds"] / MB)
            ceilings.append(reading)
            log(f"rep {rep + 1}: {reading['ceiling']} {reading['bytes'] / MB:.0f} MB: "
                f"{reading['seconds']:.2f} s, {reading['mb_s']:.0f} MB/s")
        order = list(cells)
        random.Random(args.seed + rep).shuffle(order)
        for index, cell in enumerate(order):
            turn = (rep + index) % len(cell.servers)
            for label in cell.servers[turn:] + cell.servers[:turn]:
                rec = runner.run(cell, label, rep)
                records.append(rec)
                done += 1
                eta = (time.monotonic() - began) / done * (total - done)
                extra = f" cksm {rec['cksm_s'] * 1e3:.1f} ms" if "cksm_s" in rec else ""
                log(f"[{done}/{total} eta {eta / 60:.0f} min] rep {rep + 1} {cell.client} "
                    f"{cell.op} {cell.cache} {cell.streams_text()} {label}: "
                    f"{rec['wall_s']:.2f} s {rec['mb_s']:.0f} MB/s{extra}, client "
                    f"{100 * rec['client_share']:.0f}% server {100 * rec['server_share']:.0f}% "
                    f"rest {100 * rec['others_share']:.0f}%")
    return records, ceilings


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------

def med(records: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in records)


def by_server(records: list[dict], cell: Cell) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in records:
        if (r["op"], r["client"], r["cache"], r["streams"]) == cell.key:
            out.setdefault(r["server"], []).append(r)
    return out


def ceiling_median(ceilings: list[dict], name: str, nbytes: int) -> float | None:
    seconds = [c["seconds"] for c in ceilings
               if c["ceiling"] == name and abs(c["bytes"] - nbytes) < MIB]
    return statistics.median(seconds) if seconds else None


def transfer_table(cells: list[Cell], records: list[dict], ceilings: list[dict],
                   reps: int) -> list[str]:
    lines = [f"Durable off, median of {reps}; MB/s = 10^6 B/s over the whole client command; "
             "CPU as a share of one core (100% = one core for the whole run), gridftpd / Globus; "
             "ceiling: the row's data path with no protocol (median MB/s), ceiling / Globus the "
             "most a server could reach there, gridftpd / ceiling how near gridftpd came.",
             "",
             "| client | row | cache | -p | MB | gridftpd MB/s | Globus MB/s | ratio | "
             "ceiling MB/s | ceiling / Globus | gridftpd / ceiling | "
             "client CPU % | server CPU % | rest CPU % | CPU s/GB | >= 1.25 |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    cores = os.cpu_count() or 1

    def machine_share(r: dict) -> float:
        return r["client_share"] + r["server_share"] + r["others_share"]

    def cpu_per_gb(r: dict) -> float:
        return (r["client_share"] + r["server_share"]) * r["wall_s"] / (r["bytes"] / 1e9)
    for cell in cells:
        if cell.op == "cksum":
            continue
        runs = by_server(records, cell)
        g, G = runs["gridftpd"], runs["globus"]
        ratio = med(G, "wall_s") / med(g, "wall_s")
        bound = min(med(g, "client_share"), med(G, "client_share")) >= CLIENT_BOUND_SHARE
        busy = min(statistics.median(machine_share(r) for r in runs_of)
                   for runs_of in (g, G)) >= MACHINE_BOUND_SHARE * cores
        sink = "null" if cell.op == "get-null" else "file"
        ceiling_s = ceiling_median(ceilings, data_path_name(sink, cell.streams, cell.cache),
                                   cell.size)
        ceiling = cell.size / ceiling_s / MB if ceiling_s else float("nan")
        under = ceiling / med(G, "mb_s") < TARGET_VS_GLOBUS
        verdict = "PASS" if ratio >= TARGET_VS_GLOBUS else (
            "FAIL (client-bound)" if bound else "FAIL (ceiling-bound)" if under else
            "FAIL (machine-bound)" if busy else "FAIL")
        per_gb = (f"{statistics.median(cpu_per_gb(r) for r in g):.2f} / "
                  f"{statistics.median(cpu_per_gb(r) for r in G):.2f}")

        def pair(key):
            return f"{100 * med(g, key):.0f} / {100 * med(G, key):.0f}"
        lines.append(f"| {cell.client} | {cell.op} | {cell.cache} | {cell.streams_text()} | "
                     f"{cell.size / MB:.0f} | {med(g, 'mb_s'):.0f} | {med(G, 'mb_s'):.0f} | "
                     f"{ratio:.2f} | {ceiling:.0f} | {ceiling / med(G, 'mb_s'):.2f} | "
                     f"{med(g, 'mb_s') / ceiling:.2f} | {pair('client_share')} | "
                     f"{pair('server_share')} | "
                     f"{pair('others_share')} | {per_gb} | {verdict} |")
    lines += ["", f"client-bound: the client used at least {100 * CLIENT_BOUND_SHARE:.0f}% of "
              "one core against both servers (median), so no server can make that row faster. "
              f"ceiling-bound: the row's own data path, moved with no protocol by a sendfile "
              f"sender and a receiver that discards or splices, is under "
              f"{TARGET_VS_GLOBUS} x Globus's rate, so no server can reach {TARGET_VS_GLOBUS} x "
              "there (the ceiling's rate is measured from the first connection, the servers' "
              "over the whole client command, login included). "
              f"machine-bound: client, server and rest together used at least "
              f"{100 * MACHINE_BOUND_SHARE:.0f}% of all {cores} cores against both servers "
              "(median): the row's rate is then the machine's CPU over the CPU each byte costs, "
              "and CPU s/GB (client + server CPU seconds per 10^9 bytes, gridftpd / Globus) is "
              "the figure a server can still move. "
              "rest: every other process on the machine meanwhile (kernel threads, other users)."]
    return lines


def durable_table(cells: list[Cell], records: list[dict], ceilings: list[dict]) -> list[str]:
    lines = ["Durable uploads: on / (off + dd conv=fdatasync of that size), target <= 1.1. "
             "Globus -sync-writes (syncs only before restart markers) for reference, over its own "
             "plain upload + dd.",
             "",
             "| client | cache | -p | MB | off s | on s | dd fdatasync s | on/(off+dd) | <= 1.1 | "
             "Globus s | Globus -sync-writes s | its ratio |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for cell in cells:
        runs = by_server(records, cell)
        if cell.op != "put" or "gridftpd-durable" not in runs:
            continue
        dd = ceiling_median(ceilings, "dd write conv=fdatasync", cell.size)
        off, on = med(runs["gridftpd"], "wall_s"), med(runs["gridftpd-durable"], "wall_s")
        G, Gs = med(runs["globus"], "wall_s"), med(runs["globus-sync-writes"], "wall_s")
        ratio, ratio_g = on / (off + dd), Gs / (G + dd)
        verdict = "PASS" if ratio <= TARGET_DURABLE else "FAIL"
        lines.append(f"| {cell.client} | {cell.cache} | {cell.streams_text()} | "
                     f"{cell.size / MB:.0f} | {off:.2f} | {on:.2f} | {dd:.2f} | {ratio:.2f} | "
                     f"{verdict} | {G:.2f} | {Gs:.2f} | {ratio_g:.2f} |")
    return lines


def cksum_table(cells: list[Cell], records: list[dict]) -> list[str]:
    lines = ["Upload + CKSM ADLER32 (new control connection right after the upload, as FTS3); "
             "end to end = the upload command + connect, login, CKSM, QUIT.",
             "",
             "| client | -p | MB | gridftpd upload s | gridftpd CKSM ms | gridftpd end to end s | "
             "Globus upload s | Globus CKSM ms | Globus end to end s | Globus/gridftpd | >= 1.5 "
             "| CKSM < 50 ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for cell in cells:
        if cell.op != "cksum":
            continue
        runs = by_server(records, cell)
        g, G = runs["gridftpd"], runs["globus"]
        ratio = med(G, "wall_s") / med(g, "wall_s")
        cksm = med(g, "cksm_s")
        lines.append(
            f"| {cell.client} | {cell.streams_text()} | {cell.size / MB:.0f} | "
            f"{med(g, 'transfer_s'):.2f} | {1e3 * cksm:.1f} | {med(g, 'wall_s'):.2f} | "
            f"{med(G, 'transfer_s'):.2f} | {1e3 * med(G, 'cksm_s'):.1f} | {med(G, 'wall_s'):.2f} | "
            f"{ratio:.2f} | {'PASS' if ratio >= TARGET_CKSUM_E2E else 'FAIL'} | "
            f"{'PASS' if cksm < TARGET_CKSUM_ALONE_S else 'FAIL'} |")
    return lines


def report(machine: dict, cells: list[Cell], records: list[dict], ceilings: list[dict],
           args) -> str:
    fs = machine["fs"]
    lines = [f"## file_bench: {machine['commit']}, {args.reps} repetition(s), seed {args.seed}",
             "",
             f"Machine: {machine['nproc']} CPUs ({machine['cpu']}), {machine['memory_gib']} GiB, "
             f"kernel {machine['kernel']}, tcp {machine['tcp_congestion_control']}. Files in "
             f"{machine['dir']}: {fs.get('fstype')} on {fs.get('source')} (mounted at "
             f"{fs.get('target')}, rotational {fs.get('rotational', '?')}). Binaries: "
             + ", ".join(f"{name} {path}" for name, path in machine["binaries"].items()) + ".",
             "",
             "Servers on 127.0.0.1, anonymous ftp:// as gftest, a process per session: gridftpd "
             "(`[anonymous] account = \"gftest\"`, `[storage] durable = false`, checksums = "
             "[\"ADLER32\"], other keys at their defaults; the durable rows a second gridftpd with "
             "durable = true) and globus-gridftp-server `-aa -anonymous-user gftest -d error` "
             "(the reference rows a second one with -sync-writes). Each run after a `sync`; "
             "dropped: `echo 1 > /proc/sys/vm/drop_caches` before it.",
             "",
             "| ceiling | MB | median s | MB/s | runs s |", "|---|---|---|---|---|"]
    seen = []
    for c in ceilings:
        if (c["ceiling"], c["bytes"]) not in seen:
            seen.append((c["ceiling"], c["bytes"]))
    for name, nbytes in seen:
        runs = [c["seconds"] for c in ceilings if (c["ceiling"], c["bytes"]) == (name, nbytes)]
        s = statistics.median(runs)
        lines.append(f"| {name} | {nbytes / MB:.0f} | {s:.2f} | {nbytes / s / MB:.0f} | "
                     f"{' '.join(f'{r:.2f}' for r in runs)} |")
    rest = statistics.median(r["others_share"] for r in records)
    if rest > NOISY_SHARE:
        lines += ["", f"WARNING: other processes used {100 * rest:.0f}% of a core during the "
                      "median run: the machine was not quiet, so these figures are noise."]
    if any(c.op != "cksum" for c in cells):
        lines += [""] + transfer_table(cells, records, ceilings, args.reps)
    if any(r["server"] == "gridftpd-durable" for r in records):
        lines += [""] + durable_table(cells, records, ceilings)
    if any(c.op == "cksum" for c in cells):
        lines += [""] + cksum_table(cells, records)
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------

def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=parse_size, help="warm rows' file (default 1G)")
    parser.add_argument("--dropped-size", type=parse_size,
                        help="page-cache-dropped rows' file (default 2G)")
    parser.add_argument("--cksum-size", type=parse_size, help="upload + CKSM rows (default 4G)")
    parser.add_argument("--reps", type=int, help="repetitions (default 3)")
    parser.add_argument("--rows", default="all",
                        help="comma list; a row runs when a word is part of its name: get-null, "
                             "get-file, put, third, cksum, durable (put with durable on), all")
    parser.add_argument("--streams", default="stream,1,4,8",
                        help="comma list of -p values; 'stream' is no -p (default stream,1,4,8)")
    parser.add_argument("--cksum-streams", default="4", help="-p of the CKSM rows' upload")
    parser.add_argument("--cache", default="warm,dropped", help="warm, dropped or both")
    parser.add_argument("--clients", default="guc,gridcp", help="guc, gridcp or both")
    parser.add_argument("--dir", default="/var/tmp",
                        help="where the bench directory is made (a real disk, not tmpfs)")
    parser.add_argument("--seed", type=int, default=1, help="order of the cells")
    parser.add_argument("--json", help="write machine, ceilings, every run and the report here")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 64M files and 1 repetition unless given")
    parser.add_argument("--gridftpd", default=os.environ.get(
        "GRIDFTPD", os.path.join(HERE, "..", "build", "release", "gridftpd")))
    parser.add_argument("--gridcp", default=os.environ.get(
        "GRIDCP", os.path.join(HERE, "..", "build", "release", "gridcp")))
    args = parser.parse_args(argv)
    small = 64 * MIB
    for name, full in (("size", 1 << 30), ("dropped_size", 2 << 30), ("cksum_size", 4 << 30)):
        if getattr(args, name) is None:
            setattr(args, name, small if args.quick else full)
    if args.reps is None:
        args.reps = 1 if args.quick else 3
    args.rows = [w.strip() for w in args.rows.split(",") if w.strip()]
    args.streams = [0 if s.strip() == "stream" else int(s) for s in args.streams.split(",")]
    args.cksum_streams = [0 if s.strip() == "stream" else int(s)
                          for s in args.cksum_streams.split(",")]
    args.cache = [c.strip() for c in args.cache.split(",")]
    args.clients = [c.strip() for c in args.clients.split(",")]
    for c in args.cache:
        if c not in ("warm", "dropped"):
            parser.error(f"--cache: {c!r} is neither warm nor dropped")
    for c in args.clients:
        if c not in ("guc", "gridcp"):
            parser.error(f"--clients: {c!r} is neither guc nor gridcp")
    return args


def make_bench_dir(parent: str) -> str:
    fs = mount_of(parent)
    if fs.get("fstype") in ("tmpfs", "ramfs", "devtmpfs"):
        raise BenchError(f"{parent} is on {fs['fstype']}, not a disk; pass --dir on a real disk")
    bench_dir = tempfile.mkdtemp(prefix="gridftp-file-bench-", dir=parent)
    os.chmod(bench_dir, 0o755)
    os.makedirs(os.path.join(bench_dir, "client"))
    os.makedirs(os.path.join(bench_dir, "incoming"))
    h.give_to_globus_user(os.path.join(bench_dir, "incoming"))
    return bench_dir


def main(argv=None) -> int:
    args = parse_args(argv)
    if os.geteuid() != 0:
        raise BenchError("run as root: drop_caches, and both servers' anonymous account gftest")
    os.environ["GRIDFTPD"] = os.path.abspath(args.gridftpd)
    clients = {"guc": h.require_tool("globus-url-copy"), "gridcp": os.path.abspath(args.gridcp)}
    clients = {name: clients[name] for name in args.clients}
    h.require_tool("globus-gridftp-server")
    h.ensure_globus_user()
    cells = plan_cells(args)
    if not cells:
        raise BenchError(f"--rows {','.join(args.rows)} selects no row")
    bench_dir = make_bench_dir(args.dir)
    endpoints: dict[str, Endpoint] = {}
    try:
        binaries = {"gridftpd": os.environ["GRIDFTPD"], **clients,
                    "globus-gridftp-server": h.require_tool("globus-gridftp-server")}
        machine = machine_info(bench_dir, binaries)
        dropped = args.dropped_size if "dropped" in args.cache else None
        # The ceilings read the warm size (and the dropped size) whatever rows run.
        sizes = sorted({c.size for c in cells} | {args.size} | ({dropped} if dropped else set()))
        files = {}
        for i, size in enumerate(sizes):
            files[size] = os.path.join(bench_dir, f"src-{size}.bin")
            log(f"writing {files[size]} ({size / MB:.0f} MB)")
            make_random_file(files[size], size, seed=i)
        cksums = {s: adler32_of(files[s]) for s in {c.size for c in cells if c.op == "cksum"}}
        sync_disk()
        for label in dict.fromkeys(s for c in cells for s in c.servers):
            endpoints[label] = start_endpoint(label, bench_dir)
        durable_sizes = {c.size for c in cells if c.op == "put" and "gridftpd-durable" in c.servers}
        ceiling_sizes = {"write_sizes": sorted({args.size} | durable_sizes),
                         "dropped_size": dropped,
                         "size": args.size}
        runner = Runner(bench_dir, files, clients, endpoints, cksums)
        log(f"{len(cells)} rows, {sum(len(c.servers) for c in cells) * args.reps} runs, "
            f"files in {bench_dir} ({machine['fs'].get('fstype')} on "
            f"{machine['fs'].get('source')})")
        records, ceilings = run_plan(runner, cells, args, ceiling_sizes)
        text = report(machine, cells, records, ceilings, args)
        print(text)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"machine": machine, "args": vars(args), "ceilings": ceilings,
                           "runs": records, "report": text}, f, indent=1)
        return 0
    finally:
        for ep in endpoints.values():
            ep.server.stop()
        shutil.rmtree(bench_dir, ignore_errors=True)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (BenchError, AssertionError) as e:
        print(f"file_bench: {e}", file=sys.stderr)
        sys.exit(1)
