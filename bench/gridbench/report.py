"""The Markdown summary of a study directory (summary.md), from study.json and the runs.

Loopback tables: one per dataset, transport, client, server threads and concurrency; a row per
level and stream count; per server the median GB/s with min-max and the run count, then the
ratio columns (gridftpd / globus-gridftp-server, each server against its own level none), the
cipher the level negotiated, the CPU-cost bound and the CPU seconds per GB. WAN tables: goodput
per transport and server at each RTT and loss, against the iperf3 figure of the same cell.
GB/s is 10^9 bytes/s (MB/s, 10^6, in tables whose medians stay under 0.1 GB/s), Mb/s 10^6
bits/s.
"""

from __future__ import annotations

import itertools

from . import aggregate as agg
from .ceilings import openssl_cipher
from .plan import cell_label

GRIDFTPD, GLOBUS = "gridftpd", "globus-gridftp-server"
SHORT = {GRIDFTPD: "gridftpd", GLOBUS: "globus"}
CONTEXT_FIELDS = ("dataset", "transport", "client", "server_threads", "concurrency")


def render(meta: dict, runs: list[dict]) -> str:
    table = agg.cells(runs)
    captured = meta.get("captured_ciphers", {})
    cores = int(meta.get("machine", {}).get("cores") or 1)
    speeds = meta.get("ceilings", {}).get("openssl_bytes_per_second", {})
    out = [f"# Study: {meta.get('name', '?')}", ""]
    if meta.get("description"):
        out += [meta["description"], ""]
    out += _header(meta, runs)
    out += _ceilings(meta)
    loopback = {k: c for k, c in table.items() if c.fields["rtt_ms"] is None}
    wan = {k: c for k, c in table.items() if c.fields["rtt_ms"] is not None}
    if loopback:
        out += _loopback_tables(loopback, table, speeds, cores, captured)
    if wan:
        out += _wan_tables(wan, meta)
    out += _failures(runs)
    out += _excluded(meta)
    out += _legend()
    return "\n".join(out) + "\n"


def _header(meta: dict, runs: list[dict]) -> list[str]:
    machine = meta.get("machine", {})
    planned = meta.get("planned_runs", len(runs))
    failed = sum(1 for r in runs if r.get("status") != "ok")
    state = meta.get("state", "?")
    lines = [
        f"- study file: `{meta.get('study_file', '?')}`; started {meta.get('started', '?')}, "
        f"{state}" + (f" at {meta['ended']}" if meta.get("ended") else ""),
        f"- runs: {len(runs)} of {planned} planned, {failed} failed; "
        f"{meta.get('repetitions', '?')} repetitions, order {meta.get('order', '?')}",
        f"- machine: {machine.get('cores', '?')} cores, {machine.get('cpu', '?')}, "
        f"kernel {machine.get('kernel', '?')}, tcp congestion control "
        f"{machine.get('congestion_control', '?')}, load average at start "
        f"{machine.get('load_average', '?')}",
    ]
    for name, text in sorted(meta.get("binaries", {}).items()):
        lines.append(f"- {name}: {text}")
    if meta.get("cycles_unavailable"):
        lines.append(f"- cycles per byte: not measured ({meta['cycles_unavailable']})")
    for note in meta.get("notes", []):
        lines.append(f"- note: {note}")
    return lines + [""]


def _ceilings(meta: dict) -> list[str]:
    ceilings = meta.get("ceilings", {})
    rows = []
    for cipher, speed in sorted(ceilings.get("openssl_bytes_per_second", {}).items()):
        rows.append(f"| openssl speed -evp {cipher}, one core | {speed / 1e9:.2f} GB/s |")
    for streams, rate in sorted(ceilings.get("iperf3_bytes_per_second", {}).items(),
                                key=lambda kv: int(kv[0])):
        rows.append(f"| iperf3 loopback -P {streams} | {rate / 1e9:.2f} GB/s |")
    for cell, rate in sorted(ceilings.get("wan_iperf3_bytes_per_second", {}).items()):
        rows.append(f"| iperf3 through {cell}, one stream | {rate * 8 / 1e6:.1f} Mb/s |")
    if not rows:
        return []
    return ["## Ceilings measured in this study", "", "| ceiling | figure |", "|---|---|"] + \
        rows + [""]


def _rate(stat: agg.Stat | None, n: int, scale: float) -> str:
    if not stat:
        return "-"
    return f"{stat.median / scale:.2f} ({stat.low / scale:.2f}-{stat.high / scale:.2f}, n={n})"


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _loopback_tables(cells: dict, table: dict, speeds: dict, cores: int,
                     captured: dict) -> list[str]:
    out = ["## Throughput by level and streams (loopback)", ""]
    servers = agg.distinct(cells, "server")
    contexts = sorted({tuple(c.fields[f] for f in CONTEXT_FIELDS) for c in cells.values()},
                      key=str)
    for context in contexts:
        members = {k: c for k, c in cells.items()
                   if tuple(c.fields[f] for f in CONTEXT_FIELDS) == context}
        ctx = dict(zip(CONTEXT_FIELDS, context))
        out.append(f"### {ctx['dataset']}, {ctx['transport']}, client {ctx['client']}"
                   + (f", server threads {ctx['server_threads']}" if ctx["server_threads"]
                      else "")
                   + (f", -cc {ctx['concurrency']}" if ctx["concurrency"] > 1 else ""))
        out.append("")
        unit, scale = agg.rate_unit(members.values())
        header = ["level", "-p", "cipher (gridftpd log)"]
        probed = GLOBUS in servers and captured.get(GLOBUS)
        if probed:
            header.append("cipher (globus, on the wire)")
        header += [f"{SHORT.get(s, s)} {unit} (min-max, n)" for s in servers]
        both = GRIDFTPD in servers and GLOBUS in servers
        if both:
            header.append("gridftpd/globus")
        header += [f"{SHORT.get(s, s)}/none" for s in servers]
        header += [f"{SHORT.get(s, s)} CPU bound {unit}" for s in servers]
        header += [f"{SHORT.get(s, s)} CPU s/GB" for s in servers]
        many_files = any(c.files_per_second for c in members.values())
        if many_files:
            header += [f"{SHORT.get(s, s)} files/s" for s in servers]
        out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for level, streams in itertools.product(agg.distinct(members, "level"),
                                                agg.distinct(members, "streams")):
            row_cells = {s: table.get(_key(ctx, level=level, streams=streams, server=s,
                                           like=next(iter(members.values()))))
                         for s in servers}
            if not any(row_cells.values()):
                continue
            mine = row_cells.get(GRIDFTPD)
            cipher = (f"{mine.tls_version} {mine.cipher}".strip() if mine and mine.cipher
                      else ("clear" if level in ("none", "dcau") else "-"))
            row = [level, str(streams), cipher]
            if probed:
                row.append(captured[GLOBUS].get(level, "clear" if level == "none" else "-"))
            row += [_rate(c.throughput, c.ok, scale) if c else "-" for c in row_cells.values()]
            if both:
                row.append(_num(agg.ratio(table, mine, server=GLOBUS)) if mine else "-")
            row += [_num(agg.ratio(table, c, level="none")) if c else "-"
                    for c in row_cells.values()]
            for c in row_cells.values():
                speed = speeds.get(_openssl_name(c, captured)) if c else None
                bound = agg.cpu_cost_bound(table, c, speed, cores) if c else None
                row.append(_num(bound / scale) if bound else "-")
            row += [_num(c.cpu_seconds_per_gb.median) if c and c.cpu_seconds_per_gb else "-"
                    for c in row_cells.values()]
            if many_files:
                row += [_num(c.files_per_second.median, 1) if c and c.files_per_second else "-"
                        for c in row_cells.values()]
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    return out


def _openssl_name(cell: agg.Cell, captured: dict) -> str | None:
    """openssl's name for the cipher the cell's log recorded, or that the probe saw on the
    server's data channels at the cell's level; None where neither names one."""
    if cell.cipher:
        return openssl_cipher(cell.cipher)
    seen = captured.get(cell.fields["server"], {}).get(cell.fields["level"], "")
    return openssl_cipher(seen) if seen and not seen.startswith("clear") else None


def _key(ctx: dict, like: agg.Cell, **fields) -> tuple:
    merged = dict(like.fields, **ctx, **fields)
    return tuple(merged[k] for k in agg.VARIANT_FIELDS)


def _wan_tables(cells: dict, meta: dict) -> list[str]:
    wan_ceilings = meta.get("ceilings", {}).get("wan_iperf3_bytes_per_second", {})
    out = ["## Goodput through the WAN emulator", ""]
    series = agg.wan_series(cells.values())
    groups = sorted({(c.fields["dataset"], c.fields["client"], c.fields["rate_mbit"])
                     for c in cells.values()}, key=str)
    for dataset, client, rate in groups:
        out.append(f"### {dataset}, client {client}, {rate:g} Mb/s bottleneck")
        out.append("")
        header = ["RTT ms", "loss %", "iperf3 Mb/s"]
        header += [f"{t} {SHORT.get(s, s)} {lv} -p {p} Mb/s" for t, s, lv, p in series]
        out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for rtt, loss in sorted({(c.fields["rtt_ms"], c.fields["loss_percent"])
                                 for c in cells.values()}):
            row = [f"{rtt:g}", f"{loss:g}"]
            ceiling = wan_ceilings.get(cell_label(rtt, loss, rate))
            row.append(f"{ceiling * 8 / 1e6:.1f}" if ceiling else "-")
            for transport, server, level, streams in series:
                match = [c for c in cells.values() if c.fields["rtt_ms"] == rtt
                         and c.fields["loss_percent"] == loss and c.fields["rate_mbit"] == rate
                         and c.fields["dataset"] == dataset and c.fields["client"] == client
                         and (c.fields["transport"], c.fields["server"], c.fields["level"],
                              c.fields["streams"]) == (transport, server, level, streams)]
                c = match[0] if match else None
                if c and c.throughput:
                    t = c.throughput
                    row.append(f"{t.median * 8 / 1e6:.1f} ({t.low * 8 / 1e6:.1f}-"
                               f"{t.high * 8 / 1e6:.1f})")
                else:
                    row.append("-")
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    return out


def _failures(runs: list[dict]) -> list[str]:
    bad = [r for r in runs if r.get("status") != "ok"]
    if not bad:
        return []
    out = ["## Failed runs", "", "| run | variant | reason |", "|---|---|---|"]
    for r in bad:
        variant = (f"{r.get('server')} {r.get('level')} -p {r.get('streams')} "
                   f"{r.get('transport')} {r.get('client')} {r.get('dataset')}")
        if r.get("rtt_ms") is not None:
            variant += f" {cell_label(r['rtt_ms'], r['loss_percent'], r['rate_mbit'])}"
        reason = str(r.get("reason") or r.get("status")).replace("|", "/").replace("\n", " ")
        out.append(f"| {r.get('index')} | {variant} | {reason} |")
    return out + [""]


def _excluded(meta: dict) -> list[str]:
    excluded = meta.get("excluded", [])
    if not excluded:
        return []
    out = ["## Combinations the sweep names but that cannot run", ""]
    out += [f"- {what}: {why}" for what, why in excluded]
    return out + [""]


def _legend() -> list[str]:
    return [
        "## Columns",
        "",
        "- GB/s: bytes moved over the data phase of the receiving server's transfer-log record "
        "(from its start, which includes waiting for the sender to connect, to its end; wall "
        "time, with the client's start and GSI login, is in runs.csv); for trees, bytes over wall time (per-file commands are what such a study "
        "measures); median of the successful repetitions, (min-max, n runs).",
        "- gridftpd/globus: ratio of the two medians; X/none: a server's median against its "
        "own level none at the same -p.",
        "- cipher: what gridftpd's transfer log says its data connections negotiated; "
        "globus-gridftp-server's log names none, so its column is the ServerHello seen on the "
        "loopback device during one untimed 1 MiB transfer per level on a server of its own.",
        "- CPU bound: the level's throughput if every core stayed busy with level none's cost "
        "per byte plus one seal and one open per byte at `openssl speed`'s one-core rate; "
        "meaningful where level none is CPU-bound.",
        "- CPU s/GB: CPU seconds of the server process trees and the client per 10^9 bytes.",
        "- files/s (trees): files over the client's wall time, median.",
    ]
