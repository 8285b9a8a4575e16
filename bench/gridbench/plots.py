"""PNG and SVG figures of a study (matplotlib, Debian's python3-matplotlib, no display needed):

    throughput-vs-streams-*   GB/s (or MB/s) against -p, one line per level, one panel per server
    cost-per-byte-*           CPU seconds per GB (= ns per byte) by level, bars per -p, one
                              panel per server
    goodput-vs-rtt-*          WAN cells: Mb/s against RTT, one line per transport and server,
                              one panel per loss rate
    goodput-vs-loss-*         the same against loss, one panel per RTT
    striped-vs-movers-*       striped puts: Mb/s against N movers, one line per level and -p,
                              one panel per server, with N x the one-mover median dashed
    striped-vs-cpu-limit-*    striped puts: Mb/s against the movers' CPU limit, one line per
                              level and number of puts at once, one panel per server

A level keeps one colour in every panel of every figure (LEVEL_COLOURS), whatever levels a panel
happens to hold; in the goodput figures a series (transport, server, level, -p) does.
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
from .study import LEVELS  # noqa: E402

FORMATS = ("png", "svg")
# matplotlib's default cycle, fixed per level: a level is the same colour in every panel.
LEVEL_COLOURS = {level: f"C{i}" for i, level in enumerate(LEVELS)}
# Within a level's colour, what else tells lines apart (-p, puts at once).
LINE_STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v")


def render(runs: list[dict], directory: str) -> list[str]:
    """Writes the figures into `directory`; returns their paths."""
    table = agg.cells(runs)
    measured = {k: c for k, c in table.items() if c.throughput}
    loopback = {k: c for k, c in measured.items() if c.fields["rtt_ms"] is None and not c.striped}
    wan = {k: c for k, c in measured.items() if c.fields["rtt_ms"] is not None and not c.striped}
    striped = {k: c for k, c in measured.items() if c.striped}
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
    for context, members in _groups(striped, ("dataset", "rtt_ms", "loss_percent",
                                              "rate_mbit")).items():
        title = (context[0], "loopback" if context[1] is None else
                 f"each mover's link {context[1]:g} ms {context[3]:g} Mb/s")
        slug = _slug(title)
        if len(agg.distinct(members, "movers")) > 1:
            written += _striped_vs_movers(members, title, f"{directory}/striped-vs-movers-{slug}")
        if len(agg.distinct(members, "mover_cpu_limit")) > 1:
            written += _striped_vs_cpu(members, title, f"{directory}/striped-vs-cpu-limit-{slug}")
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


def _errorbar(ax, xs, stats, scale: float, label: str, marker: str = "o", color=None,
              linestyle: str = "-") -> None:
    medians = [s.median * scale for s in stats]
    below = [(s.median - s.low) * scale for s in stats]
    above = [(s.high - s.median) * scale for s in stats]
    ax.errorbar(xs, medians, yerr=[below, above], marker=marker, capsize=3, label=label,
                color=color, linestyle=linestyle)


def _save(fig, stem: str) -> list[str]:
    paths = []
    for fmt in FORMATS:
        path = f"{stem}.{fmt}"
        fig.savefig(path, format=fmt, dpi=110, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    return paths


def _finish_figure(fig, axes, ylabel: str, title: str, stem: str,
                   from_zero: bool = True) -> list[str]:
    """Every figure's last steps: the y axis's label (and floor), the title, the files."""
    axes[0].set_ylabel(ylabel)
    if from_zero:
        axes[0].set_ylim(bottom=0)
    fig.suptitle(title)
    return _save(fig, stem)


def _panels(count: int, width: float = 5.0):
    fig, axes = plt.subplots(1, count, figsize=(width * count, 4.0), sharey=True, squeeze=False)
    return fig, list(axes[0])


def _throughput_vs_streams(cells: dict, context: tuple, stem: str) -> list[str]:
    servers = agg.distinct(cells, "server")
    unit, scale = agg.rate_unit(cells.values())
    fig, axes = _panels(len(servers))
    for ax, server in zip(axes, servers):
        for level in agg.distinct(cells, "level"):
            points = sorted(((c.fields["streams"], c.throughput) for c in cells.values()
                             if c.fields["server"] == server and c.fields["level"] == level),
                            key=lambda point: point[0])
            if points:
                _errorbar(ax, [p for p, _ in points], [s for _, s in points], 1 / scale, level,
                          color=LEVEL_COLOURS[level])
        ax.set_title(SHORT.get(server, server))
        ax.set_xlabel("parallel streams (-p)")
        ax.set_xticks(agg.distinct(cells, "streams"))
        ax.grid(True, alpha=0.3)
        ax.legend(title="level", fontsize="small")
    return _finish_figure(fig, axes, f"{unit} (median, min-max)",
                          f"Throughput vs streams: {_title(context)}", stem)


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
                       color=f"C{i}",   # one colour per -p in every panel
                       yerr=[[s.median - s.low for s in stats], [s.high - s.median for s in stats]],
                       capsize=3)
        ax.set_xticks(range(len(levels)))
        ax.set_xticklabels(levels)
        ax.set_title(SHORT.get(server, server))
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize="small")
    return _finish_figure(fig, axes, "CPU s per GB = ns per byte (servers + client)",
                          f"Cost per byte by level: {_title(context)}", stem, from_zero=False)


def _goodput(cells: dict, context: tuple, x_field: str, panel_field: str, stem: str) -> list[str]:
    panels = agg.distinct(cells, panel_field)
    fig, axes = _panels(len(panels), 4.5)
    series = agg.wan_series(cells.values())
    unit = {"rtt_ms": "RTT (ms)", "loss_percent": "loss (%)"}
    for ax, value in zip(axes, panels):
        for number, (transport, server, level, streams) in enumerate(series):
            points = sorted(((c.fields[x_field], c.throughput) for c in cells.values()
                             if c.fields[panel_field] == value and (
                                 c.fields["transport"], c.fields["server"], c.fields["level"],
                                 c.fields["streams"]) == (transport, server, level, streams)),
                            key=lambda point: point[0])
            if points:
                _errorbar(ax, [x for x, _ in points], [s for _, s in points], 8e-6,
                          f"{transport} {SHORT.get(server, server)} {level} -p {streams}",
                          color=f"C{number % 10}")
        ax.set_title(f"RTT {value:g} ms" if panel_field == "rtt_ms" else f"loss {value:g} %")
        ax.set_xlabel(unit[x_field])
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small")
    return _finish_figure(fig, axes, "goodput Mb/s (median, min-max)",
                          f"Goodput vs {unit[x_field]}: {_title(context)}", stem)


def _striped_line(cells: dict, x_field: str, **fields) -> list:
    """The cells whose fields equal `fields`, in order of `x_field`: one line of a panel."""
    return sorted((c for c in cells.values()
                   if all(c.fields[key] == value for key, value in fields.items())),
                  key=lambda c: c.fields[x_field])


def _finish_striped_panel(ax, server: str, xlabel: str, ticks: list,
                          legend_title: str | None = None) -> None:
    ax.set_title(SHORT.get(server, server))
    ax.set_xlabel(xlabel)
    ax.set_xticks(ticks)
    ax.grid(True, alpha=0.3)
    ax.legend(title=legend_title, fontsize="small")


def _striped_vs_movers(cells: dict, title: tuple, stem: str) -> list[str]:
    servers = agg.distinct(cells, "server")
    streams = agg.distinct(cells, "streams")
    fig, axes = _panels(len(servers))
    for ax, server in zip(axes, servers):
        for level in agg.distinct(cells, "level"):
            for i, p in enumerate(streams):
                line = _striped_line(cells, "movers", server=server, level=level, streams=p,
                                     mover_cpu_limit=0, concurrent_transfers=1)
                if not line:
                    continue
                xs = [c.fields["movers"] for c in line]
                _errorbar(ax, xs, [c.throughput for c in line], 8e-6, f"{level} -p {p}",
                          MARKERS[i % len(MARKERS)], LEVEL_COLOURS[level],
                          LINE_STYLES[i % len(LINE_STYLES)])
                if line[0].fields["movers"] == 1:   # what N movers would move at one's rate
                    one = line[0].throughput.median * 8e-6
                    ax.plot(xs, [one * n for n in xs], color=LEVEL_COLOURS[level],
                            linestyle=":", alpha=0.4, linewidth=1)
        _finish_striped_panel(ax, server, "movers (N)", agg.distinct(cells, "movers"),
                              "level, -p (dotted: N x one mover)")
    return _finish_figure(fig, axes, "Mb/s (median, min-max)",
                          f"Striped put vs movers: {_title(title)}", stem)


def _striped_vs_cpu(cells: dict, title: tuple, stem: str) -> list[str]:
    servers = agg.distinct(cells, "server")
    at_once = agg.distinct(cells, "concurrent_transfers")
    fig, axes = _panels(len(servers))
    for ax, server in zip(axes, servers):
        for level in agg.distinct(cells, "level"):
            for p in agg.distinct(cells, "streams"):
                for i, k in enumerate(at_once):
                    line = [c for c in _striped_line(cells, "mover_cpu_limit", server=server,
                                                     level=level, streams=p,
                                                     concurrent_transfers=k)
                            if c.fields["mover_cpu_limit"]]
                    if line:
                        _errorbar(ax, [c.fields["mover_cpu_limit"] for c in line],
                                  [c.throughput for c in line], 8e-6,
                                  f"{level} -p {p}, {k} at once", MARKERS[i % len(MARKERS)],
                                  LEVEL_COLOURS[level], LINE_STYLES[i % len(LINE_STYLES)])
        _finish_striped_panel(ax, server, "CPUs each mover may use (cgroup quota)",
                              sorted(v for v in agg.distinct(cells, "mover_cpu_limit") if v))
    return _finish_figure(fig, axes, "Mb/s (median, min-max; several at once: aggregate)",
                          f"Striped put vs mover CPU limit: {_title(title)}", stem)
