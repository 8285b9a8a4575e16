"""PNG and SVG figures of a study (matplotlib, Debian's python3-matplotlib, no display needed):

    throughput-vs-streams-*   GB/s (or MB/s) against -p, one line per level, one panel per server
    cost-per-byte-*           CPU seconds per GB (= ns per byte) by level, bars per -p, one
                              panel per server
    goodput-vs-rtt-*          WAN cells: Mb/s against RTT, one line per transport and server,
                              one panel per loss rate
    goodput-vs-loss-*         the same against loss, one panel per RTT

Every point is the median of the successful repetitions with a bar from min to max. One figure
per loopback context (dataset, transport, client, server threads, concurrency) or WAN group.
"""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")   # files only: no display on a benchmark host
# Text stays text in the SVGs: smaller files, and the labels can be searched and edited.
matplotlib.rcParams["svg.fonttype"] = "none"
import matplotlib.pyplot as plt  # noqa: E402

from . import aggregate as agg  # noqa: E402
from .report import CONTEXT_FIELDS, SHORT  # noqa: E402

FORMATS = ("png", "svg")


def render(runs: list[dict], directory: str) -> list[str]:
    """Writes the figures into `directory`; returns their paths."""
    table = agg.cells(runs)
    loopback = {k: c for k, c in table.items() if c.fields["rtt_ms"] is None and c.throughput}
    wan = {k: c for k, c in table.items() if c.fields["rtt_ms"] is not None and c.throughput}
    written: list[str] = []
    for context, members in _groups(loopback, CONTEXT_FIELDS).items():
        slug = _slug(context)
        written += _throughput_vs_streams(members, context, f"{directory}/throughput-vs-streams-{slug}")
        written += _cost_per_byte(members, context, f"{directory}/cost-per-byte-{slug}")
    for context, members in _groups(wan, ("dataset", "client", "rate_mbit")).items():
        context = context[:2] + (f"{context[2]:g} Mb/s",)
        slug = _slug(context)
        written += _goodput(members, context, "rtt_ms", "loss_percent",
                            f"{directory}/goodput-vs-rtt-{slug}")
        written += _goodput(members, context, "loss_percent", "rtt_ms",
                            f"{directory}/goodput-vs-loss-{slug}")
    return written


def _groups(cells: dict, fields: tuple[str, ...]) -> dict[tuple, dict]:
    out: dict[tuple, dict] = {}
    for key, cell in cells.items():
        out.setdefault(tuple(cell.fields[f] for f in fields), {})[key] = cell
    return out


def _slug(context: tuple) -> str:
    text = "-".join(str(v) for v in context if v not in (None, 0, 1, ""))
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-").lower() or "all"


def _title(context: tuple) -> str:
    return ", ".join(str(v) for v in context if v not in (None, 0, 1, ""))


def _errorbar(ax, xs, stats, scale: float, label: str, marker: str = "o") -> None:
    medians = [s.median * scale for s in stats]
    below = [(s.median - s.low) * scale for s in stats]
    above = [(s.high - s.median) * scale for s in stats]
    ax.errorbar(xs, medians, yerr=[below, above], marker=marker, capsize=3, label=label)


def _save(fig, stem: str) -> list[str]:
    paths = []
    for fmt in FORMATS:
        path = f"{stem}.{fmt}"
        fig.savefig(path, format=fmt, dpi=110, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    return paths


def _panels(count: int, width: float = 5.0):
    fig, axes = plt.subplots(1, count, figsize=(width * count, 4.0), sharey=True, squeeze=False)
    return fig, list(axes[0])


def _throughput_vs_streams(cells: dict, context: tuple, stem: str) -> list[str]:
    servers = agg.distinct(cells, "server")
    unit, scale = agg.rate_unit(cells.values())
    fig, axes = _panels(len(servers))
    for ax, server in zip(axes, servers):
        for level in agg.distinct(cells, "level"):
            points = sorted((c.fields["streams"], c.throughput) for c in cells.values()
                            if c.fields["server"] == server and c.fields["level"] == level)
            if points:
                _errorbar(ax, [p for p, _ in points], [s for _, s in points], 1 / scale, level)
        ax.set_title(SHORT.get(server, server))
        ax.set_xlabel("parallel streams (-p)")
        ax.set_xticks(agg.distinct(cells, "streams"))
        ax.grid(True, alpha=0.3)
        ax.legend(title="level", fontsize="small")
    axes[0].set_ylabel(f"{unit} (median, min-max)")
    axes[0].set_ylim(bottom=0)
    fig.suptitle(f"Throughput vs streams: {_title(context)}")
    return _save(fig, stem)


def _cost_per_byte(cells: dict, context: tuple, stem: str) -> list[str]:
    servers = agg.distinct(cells, "server")
    levels = agg.distinct(cells, "level")
    streams = agg.distinct(cells, "streams")
    fig, axes = _panels(len(servers))
    width = 0.8 / max(1, len(streams))
    for ax, server in zip(axes, servers):
        for i, p in enumerate(streams):
            xs, stats = [], []
            for j, level in enumerate(levels):
                match = [c for c in cells.values() if c.fields["server"] == server
                         and c.fields["level"] == level and c.fields["streams"] == p
                         and c.cpu_seconds_per_gb]
                if match:
                    xs.append(j + (i - (len(streams) - 1) / 2) * width)
                    stats.append(match[0].cpu_seconds_per_gb)
            if xs:
                ax.bar(xs, [s.median for s in stats], width=width, label=f"-p {p}",
                       yerr=[[s.median - s.low for s in stats], [s.high - s.median for s in stats]],
                       capsize=3)
        ax.set_xticks(range(len(levels)))
        ax.set_xticklabels(levels)
        ax.set_title(SHORT.get(server, server))
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize="small")
    axes[0].set_ylabel("CPU s per GB = ns per byte (servers + client)")
    fig.suptitle(f"Cost per byte by level: {_title(context)}")
    return _save(fig, stem)


def _goodput(cells: dict, context: tuple, x_field: str, panel_field: str, stem: str) -> list[str]:
    panels = agg.distinct(cells, panel_field)
    fig, axes = _panels(len(panels), 4.5)
    series = agg.wan_series(cells.values())
    unit = {"rtt_ms": "RTT (ms)", "loss_percent": "loss (%)"}
    for ax, value in zip(axes, panels):
        for transport, server, level, streams in series:
            points = sorted((c.fields[x_field], c.throughput) for c in cells.values()
                            if c.fields[panel_field] == value and (
                                c.fields["transport"], c.fields["server"], c.fields["level"],
                                c.fields["streams"]) == (transport, server, level, streams))
            if points:
                _errorbar(ax, [x for x, _ in points], [s for _, s in points], 8e-6,
                          f"{transport} {SHORT.get(server, server)} {level} -p {streams}")
        ax.set_title(f"RTT {value:g} ms" if panel_field == "rtt_ms" else f"loss {value:g} %")
        ax.set_xlabel(unit[x_field])
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small")
    axes[0].set_ylabel("goodput Mb/s (median, min-max)")
    axes[0].set_ylim(bottom=0)
    fig.suptitle(f"Goodput vs {unit[x_field]}: {_title(context)}")
    return _save(fig, stem)
