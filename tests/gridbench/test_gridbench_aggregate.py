"""gridbench's aggregation (bench/gridbench/aggregate.py) and what it is fed: medians with
min and max over the successful repetitions, failed runs counted apart, the ratio columns and
the CPU-cost bound; the transfer-log readers (bench/gridbench/translog.py) for gridftpd's JSON
and Globus's NetLogger lines; openssl's names for TLS suites. No transfers."""

import json

from gridftp_harness import run_tests
from gridbench import aggregate as agg
from gridbench.ceilings import negotiated_ciphers, openssl_cipher
from gridbench.translog import (parse_globus_line, parse_gridftpd_record,
                                summarize)

GIB = 1 << 30


def run(server="gridftpd", level="none", streams=1, rate=1e9, status="ok", **extra):
    record = {"dataset": "memory 1 GiB", "rtt_ms": None, "loss_percent": None,
              "rate_mbit": None, "transport": "tcp", "client": "globus-url-copy",
              "server": server, "server_threads": 0, "concurrency": 1, "level": level,
              "streams": streams, "status": status,
              "throughput_bytes_per_second": rate if status == "ok" else None,
              "cpu_seconds_per_gb": 2.0 if status == "ok" else None}
    record.update(extra)
    return record


def test_median_min_max_and_failures_apart():
    runs = [run(rate=3e9), run(rate=1e9), run(rate=2e9),
            run(status="failed", reason="client exit 1: reset")]
    (cell,) = agg.cells(runs).values()
    assert (cell.throughput.median, cell.throughput.low, cell.throughput.high) == (2e9, 1e9, 3e9)
    assert cell.ok == 3 and cell.failed == 1 and cell.reasons == ["client exit 1: reset"]
    (even,) = agg.cells([run(rate=1e9), run(rate=2e9)]).values()
    assert even.throughput.median == 1.5e9, "median of an even count is the middle pair's mean"
    (only_failed,) = agg.cells([run(status="failed", reason="x")]).values()
    assert only_failed.throughput is None and only_failed.failed == 1


def test_files_per_second_for_trees_only():
    (tree,) = agg.cells([run(files=20, wall_seconds=w) for w in (2.0, 4.0, 5.0)]).values()
    assert (tree.files_per_second.median, tree.files_per_second.low,
            tree.files_per_second.high) == (5.0, 4.0, 10.0)
    (single,) = agg.cells([run(files=1, wall_seconds=2.0)]).values()
    assert single.files_per_second is None


def test_rate_unit_follows_the_medians():
    fast = agg.cells([run(rate=2e9)]).values()
    slow = agg.cells([run(rate=5e7)]).values()
    assert agg.rate_unit(fast) == ("GB/s", 1e9) and agg.rate_unit(slow) == ("MB/s", 1e6)


def test_cells_keep_variants_apart():
    table = agg.cells([run(streams=1), run(streams=4), run(server="globus-gridftp-server")])
    assert len(table) == 3


def test_ratio_columns():
    runs = [run(rate=3e9), run(rate=3.3e9), run(rate=2.7e9),
            run(server="globus-gridftp-server", rate=2e9),
            run(level="dcpriv", rate=1.2e9),
            run(level="dcpriv", server="globus-gridftp-server", rate=0.8e9)]
    table = agg.cells(runs)
    ours = table[agg.variant_key(run(level="dcpriv"))]
    base = table[agg.variant_key(run())]
    assert abs(agg.ratio(table, base, server="globus-gridftp-server") - 1.5) < 1e-12
    assert abs(agg.ratio(table, ours, server="globus-gridftp-server") - 1.5) < 1e-12
    assert abs(agg.ratio(table, ours, level="none") - 0.4) < 1e-12
    assert agg.ratio(table, ours, streams=4) is None, "no such cell: no ratio"


def test_cpu_cost_bound():
    table = agg.cells([run(rate=3e9), run(level="dcpriv", rate=1e9), run(level="dcau")])
    dcpriv = table[agg.variant_key(run(level="dcpriv"))]
    bound = agg.cpu_cost_bound(table, dcpriv, 4e9, 2)
    # 1 / (1/3e9 + 2/(2*4e9)): each byte costs level none's time plus a seal and an open
    assert abs(bound - 1 / (1 / 3e9 + 2 / 8e9)) < 1, bound
    assert agg.cpu_cost_bound(table, table[agg.variant_key(run(level="dcau"))], 4e9, 2) is None
    assert agg.cpu_cost_bound(table, dcpriv, None, 2) is None


def test_levels_sorted_weakest_first_and_gridftpd_first():
    table = agg.cells([run(level="dcpriv"), run(level="none"), run(level="dcau"),
                       run(server="globus-gridftp-server")])
    assert agg.distinct(table, "level") == ["none", "dcau", "dcpriv"]
    assert agg.distinct(table, "server") == ["gridftpd", "globus-gridftp-server"]


def test_gridftpd_transfer_record():
    record = json.loads('{"time":"2026-11-26T10:00:02.500Z","command":"ESTO","bytes":1073741824,'
                        '"streams":4,"duration_seconds":0.5,"security":"dcau=A prot=P",'
                        '"stream_tls":"TLSv1.3 TLS_AES_128_GCM_SHA256, TLSv1.3 TLS_AES_128_GCM_SHA256,'
                        ' TLSv1.3 TLS_AES_128_GCM_SHA256, TLSv1.3 TLS_AES_128_GCM_SHA256",'
                        '"network":"tcp","result":"ok"}')
    entry = parse_gridftpd_record(record)
    summary = summarize([entry, parse_gridftpd_record(dict(record, command="ERET"))])
    assert summary.records == 1, "only the receiving side's record counts"
    assert summary.bytes == GIB and summary.seconds == 0.5 and summary.rate == 2 * GIB
    assert summary.tls_text() == "TLSv1.3 TLS_AES_128_GCM_SHA256 x4"
    assert summary.version_and_cipher() == ("TLSv1.3", "TLS_AES_128_GCM_SHA256")
    assert summary.security == "dcau=A prot=P" and not summary.failures
    clear = summarize([parse_gridftpd_record(dict(record, stream_tls="clear, clear"))])
    assert clear.version_and_cipher() == ("", "") and clear.tls_text() == "clear x2"
    dcau = summarize([parse_gridftpd_record(dict(
        record, stream_tls="clear after TLSv1.3 TLS_AES_128_GCM_SHA256"))])
    assert dcau.version_and_cipher() == ("", ""), "DCAU's handshake, then clear data"
    failed = summarize([parse_gridftpd_record(dict(record, result="failed", error="reset"))])
    assert failed.failures == ["ESTO reset"]


def test_tree_of_records_spans_first_start_to_last_end():
    records = [{"time": f"2026-11-26T10:00:0{end}.000Z", "command": "STOR", "bytes": 100,
                "duration_seconds": 1.0, "result": "ok", "stream_tls": "clear"}
               for end in (2, 3, 5)]
    summary = summarize([parse_gridftpd_record(r) for r in records])
    assert summary.records == 3 and summary.bytes == 300
    assert abs(summary.seconds - 4.0) < 1e-6, summary.seconds   # 10:00:01 .. 10:00:05


def test_globus_netlogger_line():
    line = ("DATE=20261126100003.750000 HOST=h PROG=globus-gridftp-server NL.EVNT=FTP_INFO "
            "START=20261126100001.250000 USER=gftest FILE=/dev/null BUFFER=0 BLOCK=262144 "
            "NBYTES=2147483648 VOLUME=/ STREAMS=4 STRIPES=1 DEST=[127.0.0.1] TYPE=ESTO CODE=226\n")
    entry = parse_globus_line(line)
    assert entry.command == "ESTO" and entry.bytes == 2 * GIB and entry.ok
    assert abs(entry.seconds - 2.5) < 1e-6, entry.seconds
    assert parse_globus_line("some other log line\n") is None
    bad = parse_globus_line(line.replace("CODE=226", "CODE=426"))
    assert summarize([bad]).failures == ["ESTO code 426"]


def test_openssl_names_of_suites():
    assert openssl_cipher("TLS_AES_128_GCM_SHA256") == "aes-128-gcm"
    assert openssl_cipher("TLS_AES_256_GCM_SHA384") == "aes-256-gcm"
    assert openssl_cipher("ECDHE-RSA-AES256-GCM-SHA384") == "aes-256-gcm"
    assert openssl_cipher("TLS_CHACHA20_POLY1305_SHA256") == "chacha20-poly1305"
    assert openssl_cipher("ECDHE-RSA-NULL-SHA") == "sha1"
    assert openssl_cipher("NULL-SHA256") == "sha256"
    assert openssl_cipher("clear") is None
    assert negotiated_ciphers([{"cipher": "TLS_AES_256_GCM_SHA384"}, {"cipher": ""},
                               {"cipher": "TLS_AES_128_GCM_SHA256"}]) == ["aes-128-gcm",
                                                                          "aes-256-gcm"]


if __name__ == "__main__":
    run_tests(globals())
