"""A study's sweep expanded into variants and runs, in the order they are measured.

Repetitions are the outer loop: every variant runs once per repetition before any runs again,
so slow drift of the machine (a neighbour's compile, thermal state, page cache) falls on all
variants alike instead of on whichever ran last. Within a repetition the variants are grouped
by WAN cell (the emulator is set up once per cell visit) and put in a new order each time:
"shuffle" (seeded, so a study replays the same order), "rotate" (each repetition starts one
place later and odd ones run backwards), or "sequential" (all repetitions of a variant back to
back: no interleaving, for debugging a single variant).
"""

from __future__ import annotations

import dataclasses
import itertools
import random

from .study import LEVELS, Study

# The fields that make a variant; a run is a variant plus its repetition. Records, aggregation
# and the report all key on these names.
VARIANT_FIELDS = ("dataset", "rtt_ms", "loss_percent", "rate_mbit", "transport", "client",
                  "server", "server_threads", "concurrency", "level", "streams", "movers",
                  "mover_cpu_limit", "concurrent_transfers")


@dataclasses.dataclass(frozen=True)
class PathCell:
    rtt_ms: float
    loss_percent: float
    rate_mbit: float
    queue_kb: float = 0

    def label(self) -> str:
        return cell_label(self.rtt_ms, self.loss_percent, self.rate_mbit)


def cell_label(rtt_ms: float, loss_percent: float, rate_mbit: float) -> str:
    """A WAN cell's name, also the key of its ceilings in study.json."""
    return f"{rtt_ms:g} ms / {loss_percent:g} % / {rate_mbit:g} Mb/s"


@dataclasses.dataclass(frozen=True)
class Variant:
    dataset: str
    path: PathCell | None     # None: loopback
    transport: str
    client: str
    server: str
    server_threads: int
    concurrency: int
    level: str
    streams: int
    movers: int = 0                  # 0: no striping; else a -stripe put through N movers
    mover_cpu_limit: float = 0       # CPUs each mover may use (cgroup cpu quota); 0: no limit
    concurrent_transfers: int = 1    # puts started at once (striped only)

    def fields(self) -> dict:
        """The variant as record fields (VARIANT_FIELDS); WAN fields empty on loopback."""
        return {k: (getattr(self.path, k) if self.path else None)
                if k in ("rtt_ms", "loss_percent", "rate_mbit") else getattr(self, k)
                for k in VARIANT_FIELDS}

    def label(self) -> str:
        where = self.path.label() if self.path else "loopback"
        threads = f" threads={self.server_threads}" if self.server_threads else ""
        cc = f" -cc {self.concurrency}" if self.concurrency > 1 else ""
        return (f"{self.server}{threads}{self.striping_label()} {self.level} -p {self.streams}"
                f"{cc} {self.transport} {self.client} {self.dataset} {where}")

    def striping_label(self) -> str:
        """" movers=2 cpu=0.5 x10" for a striped put; "" otherwise."""
        if not self.movers:
            return ""
        cpu = f" cpu={self.mover_cpu_limit:g}" if self.mover_cpu_limit else ""
        many = f" x{self.concurrent_transfers}" if self.concurrent_transfers > 1 else ""
        return f" movers={self.movers}{cpu}{many}"


@dataclasses.dataclass(frozen=True)
class Run:
    index: int           # 1-based position in the plan
    repetition: int      # 1-based
    variant: Variant


@dataclasses.dataclass
class Plan:
    runs: list[Run]
    variants: list[Variant]
    excluded: list[tuple[str, str]]   # (what, why) combinations the sweep names but cannot run
    notes: list[str]


# Combinations that cannot be measured, and why; checked in this order.
def _exclusion(server: str, level: str, transport: str, client: str = "",
               movers: int = 0) -> str | None:
    if movers and client != "globus-url-copy":
        return "a striped put is globus-url-copy -stripe; gridcp refuses -stripe"
    if movers and transport != "tcp":
        return "striped puts are MODE E over TCP"
    if server == "globus-gridftp-server" and level == "integrity":
        return ("integrity-only PROT S is gridftpd's [gsi] integrity_only_safe; "
                "globus-gridftp-server has no such setting")
    if transport == "udpx" and server == "globus-gridftp-server":
        return "globus-gridftp-server has no UDPX data channel"
    if transport == "udpx" and level == "none":
        return "UDPX keys its packets through DCAU's TLS; level none has no DCAU"
    return None


def expand(study: Study) -> Plan:
    cells: list[PathCell | None] = [None]
    if study.path:
        cells = [PathCell(r, l, b, study.path.queue_kb) for r, l, b in itertools.product(
            study.path.rtt_ms, study.path.loss_percent, study.path.rate_mbit)]
    variants: list[Variant] = []
    seen: set[Variant] = set()
    excluded: dict[tuple[str, str], None] = {}
    notes: list[str] = []
    single_file = [d.name for d in study.datasets if d.kind != "tree"]
    if max(study.concurrency) > 1 and single_file:
        notes.append(f"concurrency applies to tree datasets only; {', '.join(single_file)} "
                     "run at concurrency 1")
    if "udpx" in study.transports and max(study.streams) > 1:
        notes.append("UDPX is one flow: its runs are at -p 1 whatever streams says")
    if study.movers and study.path:
        notes.append("each mover's link is shaped alike (one emulator per mover, "
                     "tests/support/striping_bed.py); client and frontend share a namespace")
    striping = list(itertools.product(study.movers or (0,), study.mover_cpu_limits,
                                      study.concurrent_transfers))
    for dataset, cell, transport, client, server, threads, concurrency, level, streams, \
            (movers, cpu_limit, concurrent) in \
            itertools.product(study.datasets, cells, study.transports, study.clients,
                              study.servers, study.server_threads, study.concurrency,
                              study.levels, study.streams, striping):
        why = _exclusion(server, level, transport, client, movers)
        if why:
            what = f"{server} {level} {transport}" + (f" {client} -stripe" if movers else "")
            excluded[(what, why)] = None
            continue
        if dataset.kind != "tree":
            concurrency = 1
        if transport == "udpx":
            streams = 1   # UDPX is one rate-controlled flow; -p does not apply
        variant = Variant(dataset.name, cell, transport, client, server, threads, concurrency,
                          level, streams, movers, cpu_limit, concurrent)
        if variant not in seen:
            seen.add(variant)
            variants.append(variant)
    return Plan(runs=order_runs(variants, study.repetitions, study.order, study.seed),
                variants=variants, excluded=list(excluded), notes=notes)


def order_runs(variants: list[Variant], repetitions: int, order: str, seed: int) -> list[Run]:
    if order == "sequential":
        pairs = [(rep, v) for v in variants for rep in range(1, repetitions + 1)]
    else:
        pairs = []
        by_cell: dict[PathCell | None, list[Variant]] = {}
        for v in variants:
            by_cell.setdefault(v.path, []).append(v)
        cells = list(by_cell)
        rng = random.Random(seed)
        for rep in range(1, repetitions + 1):
            for cell in _arrange(cells, rep, order, rng):
                pairs += [(rep, v) for v in _arrange(by_cell[cell], rep, order, rng)]
    return [Run(index, rep, v) for index, (rep, v) in enumerate(pairs, 1)]


def _arrange(items: list, rep: int, order: str, rng: random.Random) -> list:
    if order == "shuffle":
        out = list(items)
        rng.shuffle(out)
        return out
    shift = (rep - 1) % len(items)
    out = items[shift:] + items[:shift]
    return out[::-1] if rep % 2 == 0 else out


def level_rank(level: str) -> int:
    return LEVELS.index(level)
