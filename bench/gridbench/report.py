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
    striped = {k: c for k, c in table.items() if c.striped}
    loopback = {k: c for k, c in table.items() if c.fields["rtt_ms"] is None and not c.striped}
    wan = {k: c for k, c in table.items() if c.fields["rtt_ms"] is not None and not c.striped}
    if loopback:
        out += _loopback_tables(loopback, table, speeds, cores, captured)
    if wan:
        out += _wan_tables(wan, meta)
    if striped:
        out += _striped_tables(striped, meta)
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


STRIPED_CONTEXT = ("dataset", "rtt_ms", "loss_percent", "rate_mbit")
STRIPED_ROW = ("level", "streams", "mover_cpu_limit", "concurrent_transfers", "movers")


def _striped_tables(cells: dict, meta: dict) -> list[str]:
    """Striped puts: a table per dataset and path, a row per level, -p, CPU limit, puts at once
    and N; per server the median Mb/s, the striping efficiency (against 0.9 x N x one mover)
    and the movers' CPU; the link bound (N x iperf3 through one mover's link) and the other
    processes' share of the CPUs."""
    out = ["## Striped puts (globus-url-copy -stripe)", ""]
    servers = agg.distinct(cells, "server")
    wan_ceilings = meta.get("ceilings", {}).get("wan_iperf3_bytes_per_second", {})
    contexts = sorted({tuple(c.fields[f] for f in STRIPED_CONTEXT) for c in cells.values()},
                      key=str)
    for dataset, rtt, loss, rate in contexts:
        members = [c for c in cells.values()
                   if tuple(c.fields[f] for f in STRIPED_CONTEXT) == (dataset, rtt, loss, rate)]
        where = ("loopback, no emulator" if rtt is None else
                 f"each mover's link {cell_label(rtt, loss, rate)}")
        link = wan_ceilings.get(cell_label(rtt, loss, rate)) if rtt is not None else None
        out += [f"### {dataset}, {where}", ""]
        if link:
            out += [f"One TCP stream through one mover's link (iperf3): {link * 8 / 1e6:.1f} Mb/s; "
                    "the link bound of N movers is N times that.", ""]
        header = ["level", "-p", "mover CPUs", "puts at once", "movers"]
        for server in servers:
            name = SHORT.get(server, server)
            header += [f"{name} Mb/s (min-max, n)", f"{name} / (0.9·N·1 mover)",
                       f"{name} mover CPU used (throttled)"]
        if GRIDFTPD in servers and GLOBUS in servers:
            header.append("gridftpd/globus")
        header += ["link bound Mb/s", "machine busy", "others' CPU share"]
        out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        rows = sorted({tuple(c.fields[f] for f in STRIPED_ROW) for c in members},
                      key=lambda r: (agg.LEVELS.index(r[0]), r[1:]))
        for level, streams, limit, at_once, movers in rows:
            row_cells = {s: next((c for c in members if c.fields["server"] == s and
                                  tuple(c.fields[f] for f in STRIPED_ROW) ==
                                  (level, streams, limit, at_once, movers)), None)
                         for s in servers}
            row = [level, str(streams), f"{limit:g}" if limit else "no limit", str(at_once),
                   str(movers)]
            for server in servers:
                c = row_cells[server]
                row.append(_mbit(c.throughput, c.ok) if c else "-")
                row.append("(base)" if movers == 1 else
                           _num(agg.striping_efficiency(cells, c)) if c else "-")
                row.append(_mover_cpu(c) if c else "-")
            if GRIDFTPD in servers and GLOBUS in servers:
                mine, theirs = row_cells[GRIDFTPD], row_cells[GLOBUS]
                row.append(_num(mine.throughput.median / theirs.throughput.median)
                           if mine and theirs and mine.throughput and theirs.throughput
                           else "-")
            row.append(f"{movers * link * 8 / 1e6:.0f}" if link else "-")
            busy = [c.machine_busy_share.median for c in row_cells.values()
                    if c and c.machine_busy_share]
            row.append(" / ".join(f"{b * 100:.0f} %" for b in busy) if busy else "-")
            shares = [c.others_share.high for c in row_cells.values() if c and c.others_share]
            row.append(f"≤ {max(shares) * 100:.0f} %" if shares else "-")
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    out += ["Mb/s: 10^6 bits/s of file data; one put: its data phase from the transfer logs "
            "(gridftpd: every mover's STOR record, bytes over the slowest mover's duration; "
            "Globus: the frontend's -Z record of the whole file), several at once: their bytes "
            "over the batch's wall time. Mover CPU used: each mover's process tree's CPU "
            "seconds over the data phase (several puts: the wall time; 1.00 = one core), "
            "and the share of the cgroup's 100 ms periods in which it was throttled. Machine "
            "busy: the share of all cores busy during the run (every process), per server, "
            "median. Others' CPU share: the largest share of the machine that processes outside "
            "the benchmark took during any run of the row.",
            ""]
    return out


def _mbit(stat: agg.Stat | None, n: int) -> str:
    if not stat:
        return "-"
    return (f"{stat.median * 8 / 1e6:.1f} ({stat.low * 8 / 1e6:.1f}-{stat.high * 8 / 1e6:.1f}, "
            f"n={n})")


def _mover_cpu(cell: agg.Cell) -> str:
    if not cell.mover_utilisation:
        return "-"
    text = f"{cell.mover_utilisation.median:.2f}"
    if cell.mover_throttled_share and cell.mover_throttled_share.median > 0:
        text += f" ({cell.mover_throttled_share.median * 100:.0f} %)"
    return text


def _failures(runs: list[dict]) -> list[str]:
    bad = [r for r in runs if r.get("status") != "ok"]
    if not bad:
        return []
    out = ["## Failed runs", "", "| run | variant | reason |", "|---|---|---|"]
    for r in bad:
        variant = (f"{r.get('server')}{_striping_text(r)} {r.get('level')} -p {r.get('streams')} "
                   f"{r.get('transport')} {r.get('client')} {r.get('dataset')}")
        if r.get("rtt_ms") is not None:
            variant += f" {cell_label(r['rtt_ms'], r['loss_percent'], r['rate_mbit'])}"
        reason = str(r.get("reason") or r.get("status")).replace("|", "/").replace("\n", " ")
        out.append(f"| {r.get('index')} | {variant} | {reason} |")
    return out + [""]


def _striping_text(record: dict) -> str:
    if not record.get("movers"):
        return ""
    limit = record.get("mover_cpu_limit")
    at_once = record.get("concurrent_transfers") or 1
    return (f" movers={record['movers']}" + (f" cpu={limit:g}" if limit else "")
            + (f" x{at_once}" if at_once > 1 else ""))


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
