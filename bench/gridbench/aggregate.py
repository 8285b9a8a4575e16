"""Recorded runs reduced to one cell per variant: median with min and max over the successful
repetitions, the count of failed ones, and the ratios the report prints beside them.

Medians, not means: one run slowed by a neighbour's burst moves a mean of three by a third of
its loss and a median not at all. Min and max are shown so that spread is never hidden.
"""

from __future__ import annotations

import collections
import dataclasses
import statistics

from .plan import VARIANT_FIELDS
from .study import LEVELS, SERVERS

ENCRYPTING_LEVELS = ("dcsafe", "dcpriv")   # AES-GCM under TLS 1.3 (dcsafe: no NULL suite)


@dataclasses.dataclass(frozen=True)
class Stat:
    median: float
    low: float
    high: float

    @staticmethod
    def of(values: list[float]) -> "Stat | None":
        values = [v for v in values if v is not None]
        if not values:
            return None
        return Stat(statistics.median(values), min(values), max(values))


@dataclasses.dataclass
class Cell:
    fields: dict                   # the variant (VARIANT_FIELDS)
    ok: int
    failed: int
    reasons: list[str]
    throughput: Stat | None        # bytes/s
    files_per_second: Stat | None  # files over wall time (trees: the small-files figure)
    wall_seconds: Stat | None
    cpu_seconds_per_gb: Stat | None   # servers and client together
    server_cpu_seconds: Stat | None
    client_cpu_seconds: Stat | None
    cycles_per_byte: Stat | None
    tls_version: str
    cipher: str
    # Striped puts: each mover's share of a CPU in the data phase, the share of cgroup periods
    # in which the movers were throttled, the share of the CPUs other processes took and the
    # share of all CPUs that were busy, and the client's wall-time rate.
    mover_utilisation: Stat | None = None
    mover_throttled_share: Stat | None = None
    others_share: Stat | None = None
    machine_busy_share: Stat | None = None
    wall_throughput: Stat | None = None

    @property
    def striped(self) -> bool:
        return bool(self.fields.get("movers"))

    def key(self, **override) -> tuple:
        merged = dict(self.fields, **override)
        return tuple(merged[k] for k in VARIANT_FIELDS)


def variant_key(record: dict) -> tuple:
    return tuple(record.get(k) for k in VARIANT_FIELDS)


def cells(runs: list[dict]) -> dict[tuple, Cell]:
    groups: dict[tuple, list[dict]] = {}
    for run in runs:
        groups.setdefault(variant_key(run), []).append(run)
    out = {}
    for key, group in groups.items():
        good = [r for r in group if r.get("status") == "ok"]
        bad = [r for r in group if r.get("status") != "ok"]
        ciphers = collections.Counter((r.get("tls_version") or "", r.get("cipher") or "")
                                      for r in good if r.get("cipher"))
        version, cipher = ciphers.most_common(1)[0][0] if ciphers else ("", "")

        def stat(field: str) -> Stat | None:
            return Stat.of([r.get(field) for r in good])

        out[key] = Cell(fields=dict(zip(VARIANT_FIELDS, key)), ok=len(good), failed=len(bad),
                        reasons=[r.get("reason") or r.get("status", "?") for r in bad],
                        throughput=stat("throughput_bytes_per_second"),
                        files_per_second=Stat.of([r["files"] / r["wall_seconds"] for r in good
                                                  if (r.get("files") or 0) > 1
                                                  and r.get("wall_seconds")]),
                        wall_seconds=stat("wall_seconds"),
                        cpu_seconds_per_gb=stat("cpu_seconds_per_gb"),
                        server_cpu_seconds=stat("server_cpu_seconds"),
                        client_cpu_seconds=stat("client_cpu_seconds"),
                        cycles_per_byte=stat("cycles_per_byte"),
                        tls_version=version, cipher=cipher,
                        mover_utilisation=stat("mover_utilisation"),
                        mover_throttled_share=stat("mover_throttled_share"),
                        others_share=stat("others_share"),
                        machine_busy_share=stat("machine_busy_share"),
                        wall_throughput=stat("wall_throughput_bytes_per_second"))
    return out


def ratio(table: dict[tuple, Cell], cell: Cell, **other) -> float | None:
    """cell's median throughput over that of the cell that differs only in `other`
    (e.g. server="globus-gridftp-server", or level="none"); None when either is missing."""
    peer = table.get(cell.key(**other))
    if not cell.throughput or not peer or not peer.throughput or peer.throughput.median <= 0:
        return None
    return cell.throughput.median / peer.throughput.median


def striping_efficiency(table: dict[tuple, Cell], cell: Cell) -> float | None:
    """cell's median over 0.9 x N x the median of the same variant with one mover: at least 1
    where N movers deliver at least 0.9 of N times what one does."""
    one = table.get(cell.key(movers=1))
    if not cell.throughput or not one or not one.throughput or one.throughput.median <= 0:
        return None
    return cell.throughput.median / (0.9 * cell.fields["movers"] * one.throughput.median)


def cpu_cost_bound(table: dict[tuple, Cell], cell: Cell, cipher_speed: float | None,
                   cores: int) -> float | None:
    """Throughput the level could reach if every core stayed busy: the clear (level none) cell's
    cost per byte plus one seal and one open of each byte (sender and receiver both on this
    host) at `openssl speed`'s one-core rate:  1 / (1 / none + 2 / (cores * speed)).
    Meaningful where level none is itself CPU-bound; None for levels that do not encrypt or
    where a figure is missing."""
    if cell.fields["level"] not in ENCRYPTING_LEVELS or not cipher_speed:
        return None
    clear = table.get(cell.key(level="none"))
    if not clear or not clear.throughput:
        return None
    return 1.0 / (1.0 / clear.throughput.median + 2.0 / (cores * cipher_speed))


def wan_series(cells) -> list[tuple]:
    """The (transport, server, level, streams) lines of WAN tables and plots, ordered by
    transport, gridftpd first, weakest level, fewest streams."""
    series = {(c.fields["transport"], c.fields["server"], c.fields["level"], c.fields["streams"])
              for c in cells}
    return sorted(series, key=lambda s: (s[0], SERVERS.index(s[1]), LEVELS.index(s[2]), s[3]))


def rate_unit(cells) -> tuple[str, float]:
    """GB/s (10^9 B/s) for tables and plots whose medians reach 0.1 GB/s, else MB/s (10^6):
    small-file trees move too little for two decimals of GB/s to say anything."""
    medians = [c.throughput.median for c in cells if c and c.throughput]
    return ("GB/s", 1e9) if not medians or max(medians) >= 1e8 else ("MB/s", 1e6)


def distinct(table: dict[tuple, Cell], field: str) -> list:
    """The values a field takes: levels weakest first, numbers ascending, names sorted, None
    last."""
    values = set(c.fields[field] for c in table.values())
    if field == "level":
        return sorted(values, key=LEVELS.index)
    if field == "server":
        return sorted(values, key=SERVERS.index)   # gridftpd first, as the ratios read
    return sorted(values, key=lambda v: (v is None, _sortable(v)))


def _sortable(value):
    return (0, value, "") if isinstance(value, (int, float)) else (1, 0, str(value))
