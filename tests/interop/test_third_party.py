"""Third-party MODE E transfers with globus-url-copy -p 4 (issue acceptance 2).

globus-url-copy drives both servers: the destination gets `PASV`, `ALLO`, `STOR`, the source
gets `OPTS RETR Parallelism=4,4,4;`, `PORT <dest addr>`, `RETR` and connects 4 times to the
destination (docs/WIRE.md §1.5, §2.1). Three pairings: gridftpd -> gridftpd,
gridftpd -> globus-gridftp-server and globus-gridftp-server -> gridftpd; the bytes that land
must be identical to the source.
"""

import os

from gridftp_harness import (MIB, assert_file_digest, give_to_globus_user, make_file,
                             make_sparse_file, make_tree_readable, run_peer, run_tests,
                             start_globus_server, start_gridftpd)

GUC = "globus-url-copy"
SIZES = {"empty.bin": 0, "one.bin": 1, "one_block.bin": MIB, "odd.bin": 3_000_007,
         "big.bin": 64 * MIB}


def make_sources(server, seed: int) -> dict[str, str]:
    digests = {name: make_file(server.fs(f"data/{name}"), size, seed=seed + i)
               for i, (name, size) in enumerate(SIZES.items())}
    digests["sparse.bin"] = make_sparse_file(server.fs("data/sparse.bin"), 5 * MIB + 17,
                                             seed=seed)
    make_tree_readable(server.fs("data"))   # the Globus server reads as gftest
    return digests


def third_party(source, dest, seed: int, what: str) -> None:
    digests = make_sources(source, seed)
    for name, digest in digests.items():
        src_url, dst_url = source.url(f"data/{name}"), dest.url(f"incoming/{name}")
        result = run_peer([GUC, "-p", "4", src_url, dst_url], timeout=600,
                          what=f"{what}: -p 4 third-party {name}")
        try:
            assert_file_digest(dest.fs(f"incoming/{name}"), digest,
                               f"{what}: -p 4 third-party {name}")
        except AssertionError as e:
            raise AssertionError(f"{e}\n{result.describe()}")
    for server in (source, dest):
        server.assert_alive(f"after {what}")


def test_gridftpd_to_gridftpd():
    third_party(start_gridftpd(), start_gridftpd(), 300, "gridftpd -> gridftpd")


def test_gridftpd_to_globus():
    dest = start_globus_server()
    give_to_globus_user(dest.fs("incoming"))
    third_party(start_gridftpd(), dest, 400, "gridftpd -> globus-gridftp-server")


def test_globus_to_gridftpd():
    third_party(start_globus_server(), start_gridftpd(), 500, "globus-gridftp-server -> gridftpd")


if __name__ == "__main__":
    run_tests(globals())
