"""What the servers' transfer logs say about one run: bytes, the data phase's duration, and
the TLS version and cipher of each data stream.

gridftpd writes one JSON object per transfer (server/logging/transfer_log.cpp): the end time,
`duration_seconds`, `bytes`, `result`, and `stream_tls` ("TLSv1.3 TLS_AES_128_GCM_SHA256, ..."
one entry per data connection, "clear" without TLS). globus-gridftp-server's -Z log is
NetLogger text, `KEY=VALUE` pairs with START and DATE (end) as YYYYmmddHHMMSS.ffffff, NBYTES and
CODE; it names no cipher.

A run's throughput is taken from the receiving side's records (STOR, ESTO, APPE): the bytes
are there once they are written. The time is the data phase only, without the client's start,
its GSI login and delegation, which wall time adds for both servers alike.
"""

from __future__ import annotations

import calendar
import collections
import dataclasses
import datetime
import re

RECEIVING = ("STOR", "ESTO", "APPE")
_PROTECTED_STREAM = re.compile(r"((?:TLS|SSL)v[\d.]+) (\S+)")
SENDING = ("RETR", "ERET")


@dataclasses.dataclass
class Entry:
    command: str
    bytes: int
    end: float | None        # seconds since the epoch
    seconds: float
    ok: bool
    error: str = ""
    stream_tls: tuple[str, ...] = ()
    security: str = ""

    @property
    def start(self) -> float | None:
        return None if self.end is None else self.end - self.seconds


@dataclasses.dataclass
class Summary:
    bytes: int
    seconds: float
    records: int
    failures: list[str]
    stream_tls: dict[str, int]     # "TLSv1.3 TLS_AES_128_GCM_SHA256" -> data connections
    security: str

    @property
    def rate(self) -> float | None:
        return self.bytes / self.seconds if self.seconds > 0 else None

    def tls_text(self) -> str:
        """"TLSv1.3 TLS_AES_128_GCM_SHA256 x4" (several kinds joined with "; ")."""
        return "; ".join(f"{k} x{n}" for k, n in sorted(self.stream_tls.items()))

    def version_and_cipher(self) -> tuple[str, str]:
        """The version and cipher most data connections negotiated ("", "" if none did)."""
        # "TLSv1.3 TLS_AES_128_GCM_SHA256" protects the data; "clear" and "clear after TLSv1.3
        # ..." (DCAU's handshake, then PROT C) do not.
        secured = [(m.groups(), n) for k, n in self.stream_tls.items()
                   if (m := _PROTECTED_STREAM.fullmatch(k))]
        if not secured:
            return "", ""
        return max(secured, key=lambda kn: kn[1])[0]


def parse_gridftpd_record(record: dict) -> Entry:
    links = tuple(s.strip() for s in str(record.get("stream_tls", "")).split(",") if s.strip())
    return Entry(command=str(record.get("command", "")), bytes=int(record.get("bytes", 0)),
                 end=_iso_time(record.get("time")),
                 seconds=float(record.get("duration_seconds", 0.0)),
                 ok=record.get("result") == "ok", error=str(record.get("error", "")),
                 stream_tls=links, security=str(record.get("security", "")))


_NETLOGGER_PAIR = re.compile(r"([A-Za-z.]+)=(\S*)")


def parse_globus_line(line: str) -> Entry | None:
    """One -Z line; None for a line that is not a transfer record."""
    pairs = dict(_NETLOGGER_PAIR.findall(line))
    if "NBYTES" not in pairs or "TYPE" not in pairs:
        return None
    start, end = _netlogger_time(pairs.get("START")), _netlogger_time(pairs.get("DATE"))
    code = pairs.get("CODE", "")
    return Entry(command=pairs["TYPE"].upper(), bytes=int(pairs["NBYTES"]), end=end,
                 seconds=(end - start) if start is not None and end is not None else 0.0,
                 ok=code == "226", error="" if code == "226" else f"code {code}",
                 stream_tls=())


def summarize(entries: list[Entry], commands: tuple[str, ...] = RECEIVING) -> Summary:
    """Bytes and data-phase seconds of the entries with these commands: one entry's own
    duration, or for many (a tree) from the first start to the last end."""
    chosen = [e for e in entries if e.command in commands]
    failures = [f"{e.command} {e.error or 'failed'}" for e in chosen if not e.ok]
    tls: collections.Counter = collections.Counter()
    for e in chosen:
        tls.update(e.stream_tls)
    if len(chosen) == 1:
        seconds = chosen[0].seconds
    elif chosen and all(e.end is not None for e in chosen):
        seconds = max(e.end for e in chosen) - min(e.start for e in chosen)
    else:
        seconds = sum(e.seconds for e in chosen)
    security = sorted({e.security for e in chosen if e.security})
    return Summary(bytes=sum(e.bytes for e in chosen), seconds=seconds, records=len(chosen),
                   failures=failures, stream_tls=dict(tls), security=", ".join(security))


def _iso_time(text) -> float | None:
    if not text:
        return None
    try:
        stamp = datetime.datetime.strptime(str(text).rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f")
    except ValueError:
        try:
            stamp = datetime.datetime.strptime(str(text).rstrip("Z"), "%Y-%m-%dT%H:%M:%S")
        except ValueError:
            return None
    return calendar.timegm(stamp.timetuple()) + stamp.microsecond / 1e6


def _netlogger_time(text: str | None) -> float | None:
    if not text:
        return None
    m = re.fullmatch(r"(\d{14})(?:\.(\d+))?", text)
    if not m:
        return None
    stamp = datetime.datetime.strptime(m.group(1), "%Y%m%d%H%M%S")
    fraction = float("0." + m.group(2)) if m.group(2) else 0.0
    # Globus writes local time; only differences are used, so the zone does not matter.
    return calendar.timegm(stamp.timetuple()) + fraction
