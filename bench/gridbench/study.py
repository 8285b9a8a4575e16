"""The study file: TOML read with tomllib, checked key by key into a Study.

Every error names the file and the key ("[sweep] streams: ..."), so a typo in a long study is
found before the first run rather than an hour into it. The keys and their meaning are in
bench/README.md; bench/studies/ holds ready studies.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import tomllib

from . import support  # noqa: F401  (puts bench/ on the path for parse_size)
from stream_get_bench import parse_size

# Data-channel security levels, weakest first: the order tables and plots use.
#   none       -nodcau: no TLS on the data channels
#   dcau       DCAU A, PROT C: a TLS handshake per data connection, then clear data
#   dcsafe     PROT S as Globus does it: under TLS 1.3 it encrypts (no integrity-only suite)
#   integrity  PROT S on a gridftpd with [gsi] integrity_only_safe: TLS 1.2 NULL-cipher
#              suites, so the data really is only integrity-protected
#   dcpriv     PROT P: encrypted
LEVELS = ("none", "dcau", "dcsafe", "integrity", "dcpriv")
TRANSPORTS = ("tcp", "udpx")            # MODE E over TCP; UDPX (docs/UDPX.md)
SERVERS = ("gridftpd", "globus-gridftp-server")
CLIENTS = ("gridcp", "globus-url-copy")
DATASET_KINDS = ("memory", "disk", "tree")
ORDERS = ("shuffle", "rotate", "sequential")


class StudyError(Exception):
    """A study file that cannot be run; the message names the file and the key."""


@dataclasses.dataclass(frozen=True)
class Dataset:
    name: str
    kind: str                 # memory: /dev/zero -> /dev/null; disk: one file; tree: N files
    size: int = 0             # bytes per transfer (memory, disk)
    directory: str = ""       # where disk and tree data live (disk, tree)
    files: int = 0            # tree
    file_size: int = 0        # tree
    drop_caches: bool = False  # disk, tree: echo 1 > drop_caches before each run

    @property
    def total_bytes(self) -> int:
        return self.files * self.file_size if self.kind == "tree" else self.size


@dataclasses.dataclass(frozen=True)
class PathSweep:
    """WAN emulator cells (every combination); absent from a study: loopback only."""
    rtt_ms: tuple[float, ...]
    loss_percent: tuple[float, ...]
    rate_mbit: tuple[float, ...]
    queue_kb: float = 0


@dataclasses.dataclass(frozen=True)
class Study:
    name: str
    source: str                          # the file it came from
    description: str
    repetitions: int
    order: str
    seed: int
    run_timeout_seconds: float
    settle_seconds: float
    levels: tuple[str, ...]
    streams: tuple[int, ...]
    concurrency: tuple[int, ...]
    server_threads: tuple[int, ...]
    transports: tuple[str, ...]
    servers: tuple[str, ...]
    clients: tuple[str, ...]
    datasets: tuple[Dataset, ...]
    # Striping (docs/STRIPING.md): puts with globus-url-copy -stripe into a frontend with this
    # many movers (empty: no striping), each mover under a cgroup CPU limit (0: none), and this
    # many puts at once (the aggregate rate is the figure).
    movers: tuple[int, ...]
    mover_cpu_limits: tuple[float, ...]
    concurrent_transfers: tuple[int, ...]
    path: PathSweep | None
    iperf3_seconds: float
    openssl_seconds: float
    ciphers: tuple[str, ...]
    binaries: dict[str, str]


_SECTIONS = {
    "study": {"name", "description", "repetitions", "order", "seed", "run_timeout_seconds",
              "settle_seconds"},
    "sweep": {"level", "streams", "concurrency", "server_threads", "transport", "server",
              "client", "movers", "mover_cpu_limit", "concurrent_transfers"},
    "dataset": {"name", "kind", "size", "directory", "files", "file_size", "drop_caches"},
    "path": {"rtt_ms", "loss_percent", "rate_mbit", "queue_kb"},
    "ceilings": {"iperf3_seconds", "openssl_seconds", "ciphers"},
    "binaries": {"gridftpd", "gridcp", "wanem", "globus-url-copy", "globus-gridftp-server"},
}


class _Table:
    """One TOML table and the name errors give it ("[sweep]", "[[dataset]] #2")."""

    def __init__(self, where: str, section: str, data: dict, label: str = ""):
        self.where, self.label, self.data = where, label or f"[{section}]", data
        if not isinstance(data, dict):
            raise StudyError(f"{where}: {self.label}: expected a table, got {data!r}")
        unknown = sorted(set(data) - _SECTIONS[section])
        if unknown:
            known = ", ".join(sorted(_SECTIONS[section]))
            self.fail(unknown[0], f"unknown key (known: {known})")

    def fail(self, key: str, message: str):
        raise StudyError(f"{self.where}: {self.label} {key}: {message}")

    def value(self, key: str, kind, default=None, required: bool = False):
        if key not in self.data:
            if required:
                self.fail(key, "missing (required)")
            return default
        value = self.data[key]
        # TOML integers are accepted where a float is asked; a bool is never a number.
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind in (int, float) and isinstance(value, bool)):
            self.fail(key, f"expected {_kind_name(kind)}, got {value!r}")
        return value

    def number(self, key: str, kind, default, minimum):
        value = self.value(key, kind, default)
        if value < minimum:
            self.fail(key, f"must be at least {minimum}, got {value!r}")
        return value

    def size(self, key: str, required: bool = False) -> int:
        value = self.data.get(key)
        if value is None:
            if required:
                self.fail(key, "missing (required)")
            return 0
        if isinstance(value, int) and not isinstance(value, bool):
            size = value
        elif isinstance(value, str):
            try:
                size = parse_size(value)
            except argparse.ArgumentTypeError as e:
                self.fail(key, str(e))
        else:
            self.fail(key, f"expected a size (e.g. \"2G\", \"512M\" or a byte count), got {value!r}")
        if size < 1:
            self.fail(key, f"must be at least 1 byte, got {value!r}")
        return size

    def choices(self, key: str, allowed: tuple[str, ...], default=None) -> tuple[str, ...]:
        values = self._list(key, str, default)
        for v in values:
            if v not in allowed:
                self.fail(key, f"unknown value {v!r} (choose from {', '.join(allowed)})")
        return values

    def numbers(self, key: str, kind, default, minimum) -> tuple:
        values = self._list(key, kind, default)
        for v in values:
            if v < minimum:
                self.fail(key, f"every value must be at least {minimum}, got {v!r}")
        return values

    def _list(self, key: str, kind, default) -> tuple:
        if key not in self.data:
            if default is None:
                self.fail(key, "missing (required)")
            return tuple(default)
        value = self.data[key]
        if not isinstance(value, list):
            value = [value]   # a lone value is a sweep of one
        out = []
        for v in value:
            if kind is float and isinstance(v, int) and not isinstance(v, bool):
                v = float(v)
            if not isinstance(v, kind) or (kind in (int, float) and isinstance(v, bool)):
                self.fail(key, f"expected a list of {_kind_name(kind)}s, got {value!r}")
            out.append(v)
        if not out:
            self.fail(key, "empty list")
        if len(set(out)) != len(out):
            self.fail(key, f"repeated value in {value!r}")
        return tuple(out)


def _kind_name(kind) -> str:
    return {int: "integer", float: "number", str: "string", bool: "boolean", list: "list"}.get(
        kind, kind.__name__)


def load_study(path: str) -> Study:
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError as e:
        raise StudyError(f"{path}: cannot read: {e.strerror}") from None
    return parse_study(text.decode("utf-8", errors="replace"), path)


def parse_study(text: str, where: str = "<study>") -> Study:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise StudyError(f"{where}: not valid TOML: {e}") from None
    for section in doc:
        if section not in _SECTIONS:
            raise StudyError(f"{where}: [{section}]: unknown section "
                             f"(known: {', '.join(sorted(_SECTIONS))})")
    for section in ("study", "sweep", "path", "ceilings", "binaries"):
        if section in doc and not isinstance(doc[section], dict):
            raise StudyError(f"{where}: [{section}]: expected a table, not an array of tables")

    study = _Table(where, "study", doc.get("study", {}))
    sweep = _Table(where, "sweep", doc.get("sweep", {}))
    ceilings = _Table(where, "ceilings", doc.get("ceilings", {}))
    binaries = _Table(where, "binaries", doc.get("binaries", {}))

    name = study.value("name", str, os.path.splitext(os.path.basename(where))[0])
    order = study.value("order", str, "shuffle")
    if order not in ORDERS:
        study.fail("order", f"unknown value {order!r} (choose from {', '.join(ORDERS)})")

    if "sweep" not in doc:
        raise StudyError(f"{where}: [sweep]: missing (required: at least level)")
    levels = sweep.choices("level", LEVELS)

    datasets = _datasets(where, doc.get("dataset"))
    path = None
    if "path" in doc:
        table = _Table(where, "path", doc["path"])
        path = PathSweep(rtt_ms=table.numbers("rtt_ms", float, None, 0),
                         loss_percent=table.numbers("loss_percent", float, [0.0], 0),
                         rate_mbit=table.numbers("rate_mbit", float, [1000.0], 0.001),
                         queue_kb=table.number("queue_kb", float, 0.0, 0))
        if max(path.loss_percent) >= 100:
            table.fail("loss_percent", "must be below 100")

    movers, cpu_limits, concurrent = _striping_sweep(sweep, datasets)

    bins = {}
    for key in _SECTIONS["binaries"]:
        value = binaries.value(key, str)
        if value:
            bins[key] = os.path.expanduser(value)

    return Study(
        name=name, source=where,
        description=study.value("description", str, ""),
        repetitions=study.number("repetitions", int, 3, 1),
        order=order,
        seed=study.value("seed", int, 1),
        run_timeout_seconds=study.number("run_timeout_seconds", float, 900.0, 1),
        settle_seconds=study.number("settle_seconds", float, 0.0, 0),
        levels=tuple(sorted(levels, key=LEVELS.index)),
        streams=sweep.numbers("streams", int, [1], 1),
        concurrency=sweep.numbers("concurrency", int, [1], 1),
        server_threads=sweep.numbers("server_threads", int, [0], 0),
        transports=sweep.choices("transport", TRANSPORTS, ["tcp"]),
        servers=sweep.choices("server", SERVERS, ["gridftpd"]),
        clients=sweep.choices("client", CLIENTS, ["globus-url-copy"]),
        datasets=datasets, path=path,
        movers=movers, mover_cpu_limits=cpu_limits, concurrent_transfers=concurrent,
        iperf3_seconds=ceilings.number("iperf3_seconds", float, 5.0, 0),
        openssl_seconds=ceilings.number("openssl_seconds", float, 1.0, 0),
        ciphers=ceilings._list("ciphers", str, ["aes-128-gcm", "aes-256-gcm"]),
        binaries=bins,
    )


def _striping_sweep(sweep: _Table, datasets: tuple[Dataset, ...]) -> tuple[tuple, tuple, tuple]:
    """[sweep] movers, mover_cpu_limit and concurrent_transfers. The last two only mean
    something for striped puts, and a striped put reads a real file, so both need movers and
    every dataset must be a disk dataset (a file under /dev/shm is one)."""
    if "movers" not in sweep.data:
        for key in ("mover_cpu_limit", "concurrent_transfers"):
            if key in sweep.data:
                sweep.fail(key, "applies to striped puts only: set [sweep] movers too")
        return (), (0.0,), (1,)
    movers = sweep.numbers("movers", int, None, 1)
    limits = sweep.numbers("mover_cpu_limit", float, [0.0], 0)
    concurrent = sweep.numbers("concurrent_transfers", int, [1], 1)
    for dataset in datasets:
        if dataset.kind != "disk":
            sweep.fail("movers", f"a striped put reads a real file: dataset {dataset.name!r} is "
                       f"{dataset.kind}, use kind = \"disk\" (a directory under /dev/shm is "
                       "memory-backed)")
    return movers, limits, concurrent


def _datasets(where: str, raw) -> tuple[Dataset, ...]:
    if raw is None:
        raise StudyError(f"{where}: [[dataset]]: missing (required: at least one dataset)")
    if isinstance(raw, dict):
        raw = [raw]   # [dataset] written as a single table
    out = []
    for number, data in enumerate(raw, 1):
        table = _Table(where, "dataset", data, f"[[dataset]] #{number}")
        kind = table.value("kind", str, required=True)
        if kind not in DATASET_KINDS:
            table.fail("kind", f"unknown value {kind!r} (choose from {', '.join(DATASET_KINDS)})")
        size = files = file_size = 0
        directory = ""
        if kind in ("memory", "disk"):
            size = table.size("size", required=True)
        if kind in ("disk", "tree"):
            directory = table.value("directory", str, required=True)
            if not os.path.isabs(directory):
                table.fail("directory", f"must be an absolute path, got {directory!r}")
        if kind == "tree":
            files = table.value("files", int, required=True)
            if files < 1:
                table.fail("files", f"must be at least 1, got {files!r}")
            file_size = table.size("file_size", required=True)
        for key in ("size", "directory", "files", "file_size", "drop_caches"):
            if key in data and key not in _KEYS_OF_KIND[kind]:
                table.fail(key, f"does not apply to a {kind} dataset")
        default_name = {"memory": f"memory {_size_text(size)}",
                        "disk": f"disk {_size_text(size)}",
                        "tree": f"tree {files} x {_size_text(file_size)}"}[kind]
        out.append(Dataset(name=table.value("name", str, default_name), kind=kind, size=size,
                           directory=directory, files=files, file_size=file_size,
                           drop_caches=table.value("drop_caches", bool, False)))
    names = [d.name for d in out]
    for name in names:
        if names.count(name) > 1:
            raise StudyError(f"{where}: [[dataset]] name: {name!r} names two datasets")
    return tuple(out)


_KEYS_OF_KIND = {
    "memory": {"size"},
    "disk": {"size", "directory", "drop_caches"},
    "tree": {"directory", "files", "file_size", "drop_caches"},
}


def _size_text(size: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"
