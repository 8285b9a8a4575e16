"""globus-url-copy (GCT 6.2) in MODE E against gridftpd (issue acceptance 1).

`-p N` makes globus-url-copy use extended block mode: a get is `MODE E`, `OPTS RETR
Parallelism=N,N,N;`, `PORT`, `RETR` (gridftpd opens N connections and sends), a put is `MODE E`,
`PASV`, `STOR` (the client opens N connections). Every get and put with -p 1, 4 and 16 must be
byte-identical for files of 0 B, 1 B, exactly one 1 MiB block, a big file (64 MiB, or 1 GiB with
GRIDFTP_BIG_TESTS=1) and a "sparse-ish" file (holes plus a few random chunks). The transfer log
must say "mode":"E" for all of them and "streams":4 for a -p 4 get.
"""

import os

from gridftp_harness import (MIB, GridftpdServer, assert_file_digest, file_url, make_file,
                             make_sparse_file, make_temp_dir, run_peer, run_tests,
                             start_server_under_test, wait_until)
from gridftp_harness import guc_dialogue as h_dialogue

GUC = "globus-url-copy"
BIG = 1024 * MIB if os.environ.get("GRIDFTP_BIG_TESTS") == "1" else 64 * MIB
PARALLELISM = (1, 4, 16)


def make_sources(directory: str, seed: int) -> dict[str, tuple[int, str]]:
    """name -> (size, sha256)."""
    out = {}
    for i, (name, size) in enumerate([("empty.bin", 0), ("one.bin", 1),
                                       ("one_block.bin", MIB), ("big.bin", BIG)]):
        out[name] = (size, make_file(os.path.join(directory, name), size, seed=seed + i))
    sparse_size = 10 * MIB + 12345
    out["sparse.bin"] = (sparse_size, make_sparse_file(os.path.join(directory, "sparse.bin"),
                                                       sparse_size, seed=seed))
    for name in out:
        os.chmod(os.path.join(directory, name), 0o644)
    os.chmod(directory, 0o755)
    return out


def check_log_modes(server, records_before: int, want: int, what: str) -> None:
    if not isinstance(server, GridftpdServer):
        return
    wait_until(lambda: len(server.transfer_records()) - records_before >= want, 30,
               f"{want} transfer log records for {what}")
    records = server.transfer_records()[records_before:]
    bad = [r for r in records if r.get("mode") != "E" or r.get("result") != "ok"]
    assert not bad, f"{what}: transfer log records without mode E / result ok: {bad}"


def test_get_mode_e_parallel_byte_identical():
    server = start_server_under_test()
    sources = make_sources(server.fs("data"), seed=100)
    out = make_temp_dir("guc-mode-e-get-")
    before = len(server.transfer_records()) if isinstance(server, GridftpdServer) else 0
    for p in PARALLELISM:
        for name, (size, digest) in sources.items():
            dest = os.path.join(out, f"p{p}-{name}")
            result = run_peer([GUC, "-p", str(p), server.url(f"data/{name}"), file_url(dest)],
                              timeout=900, what=f"-p {p} get {name}")
            try:
                assert_file_digest(dest, digest, f"globus-url-copy -p {p} get {name} ({size} B)")
            except AssertionError as e:
                raise AssertionError(f"{e}\n{result.describe()}")
            os.unlink(dest)
    check_log_modes(server, before, len(PARALLELISM) * len(sources), "MODE E gets")


def test_put_mode_e_parallel_byte_identical():
    server = start_server_under_test()
    src = make_temp_dir("guc-mode-e-put-")
    sources = make_sources(src, seed=200)
    before = len(server.transfer_records()) if isinstance(server, GridftpdServer) else 0
    for p in PARALLELISM:
        for name, (size, digest) in sources.items():
            target = f"incoming/p{p}-{name}"
            result = run_peer([GUC, "-p", str(p), file_url(os.path.join(src, name)),
                               server.url(target)], timeout=900, what=f"-p {p} put {name}")
            try:
                assert_file_digest(server.fs(target), digest,
                                   f"globus-url-copy -p {p} put {name} ({size} B)")
            except AssertionError as e:
                raise AssertionError(f"{e}\n{result.describe()}")
            os.unlink(server.fs(target))
    check_log_modes(server, before, len(PARALLELISM) * len(sources), "MODE E puts")


def test_transfer_log_records_mode_e_and_four_streams():
    server = start_server_under_test()
    if not isinstance(server, GridftpdServer):
        return  # the transfer log is ours
    size = 8 * MIB + 3
    digest = make_file(server.fs("data/logged.bin"), size, seed=7)
    os.chmod(server.fs("data"), 0o755)
    dest = os.path.join(make_temp_dir("guc-mode-e-log-"), "logged.bin")
    argv = [GUC, "-p", "4", server.url("data/logged.bin"), file_url(dest)]
    result = run_peer(argv, what="-p 4 get for the transfer log")
    assert_file_digest(dest, digest, "-p 4 get for the transfer log")
    rec = server.wait_transfer_record(
        lambda r: r.get("command") in ("RETR", "ERET") and r.get("path") == "/data/logged.bin",
        "the -p 4 RETR of /data/logged.bin")
    problems = []
    if rec.get("mode") != "E":
        problems.append(f"mode {rec.get('mode')!r} != 'E'")
    if rec.get("streams") != 4:
        problems.append(f"streams {rec.get('streams')!r} != 4")
    if rec.get("bytes") != size:
        problems.append(f"bytes {rec.get('bytes')!r} != {size}")
    if rec.get("result") != "ok":
        problems.append(f"result {rec.get('result')!r} != 'ok'")
    assert not problems, (f"transfer log record for a -p 4 get: {'; '.join(problems)}\n"
                          f"record: {rec}\n{result.describe()}")


def test_tcp_bs_sends_sbuf_and_transfers_intact():
    """-tcp-bs N makes globus-url-copy send SBUF N (we list SBUF in FEAT); the server must accept
    it and size the data sockets of both a get (we connect) and a put (we listen)."""
    server = start_server_under_test()
    src = make_temp_dir("guc-sbuf-")
    digest = make_file(os.path.join(src, "sbuf.bin"), 3 * MIB + 5, seed=77)
    os.chmod(os.path.join(src, "sbuf.bin"), 0o644)
    put = run_peer([GUC, "-dbg", "-tcp-bs", "2097152", "-p", "2", file_url(os.path.join(src, "sbuf.bin")),
                    server.url("incoming/sbuf.bin")], timeout=300, what="-tcp-bs put")
    assert_file_digest(server.fs("incoming/sbuf.bin"), digest, "-tcp-bs 2097152 -p 2 put")
    dest = os.path.join(src, "back.bin")
    get = run_peer([GUC, "-dbg", "-tcp-bs", "2097152", "-p", "2", server.url("incoming/sbuf.bin"),
                    file_url(dest)], timeout=300, what="-tcp-bs get")
    assert_file_digest(dest, digest, "-tcp-bs 2097152 -p 2 get")
    if isinstance(server, GridftpdServer):
        for result, what in ((put, "put"), (get, "get")):
            dialogue = h_dialogue(result.stderr)
            assert ">> SBUF 2097152" in dialogue, f"{what}: no SBUF sent: {dialogue}"
            reply = dialogue[dialogue.index(">> SBUF 2097152") + 1]
            assert reply.startswith("<< 200"), f"{what}: SBUF answered {reply!r}"


if __name__ == "__main__":
    run_tests(globals())
