"""globus-url-copy -r -cc 4 -pp over a tree of 2,000 files of 100 KiB (GridFTP issue, item 5).

-pp pipelines the RETRs (and STORs) of one control connection, which in MODE E reuse the cached
data connections (reply 125); -cc 4 runs four control connections at once. Every file must
arrive byte-identical and the server must log no error.
"""

import hashlib
import os

from gridftp_harness import assert_same_tree, make_temp_dir, run_peer, run_tests, start_gridftpd

GUC = "globus-url-copy"
FILES = 2000
FILE_BYTES = 100 * 1024


def make_tree(root: str) -> dict[str, str]:
    """2,000 distinct 100 KiB files in nested directories; returns relative path -> sha256."""
    base = os.urandom(FILE_BYTES + 4096)
    digests = {}
    for i in range(FILES):
        rel = os.path.join(f"d{i % 7}", f"e{i % 3}", f"f{i:05d}.bin")
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = base[i % 4096:i % 4096 + FILE_BYTES]
        with open(path, "wb") as f:
            f.write(data)
        digests[rel] = hashlib.sha256(data).hexdigest()
    return digests


def test_recursive_get_and_put_with_concurrency_and_pipelining():
    server = start_gridftpd()
    digests = make_tree(server.fs("tree"))
    out = os.path.join(make_temp_dir("many-files-"), "copy")
    argv = [GUC, "-r", "-cc", "4", "-pp", "-cd", server.url("tree/"), f"file://{out}/"]
    run_peer(argv, timeout=900, what="-r -cc 4 -pp get of 2,000 files")
    assert_same_tree(digests, out, "recursive get")

    argv = [GUC, "-r", "-cc", "4", "-pp", "-cd", f"file://{out}/", server.url("incoming/tree/")]
    run_peer(argv, timeout=900, what="-r -cc 4 -pp put of 2,000 files")
    assert_same_tree(digests, server.fs("incoming/tree"), "recursive put")

    failed = [r for r in server.transfer_records() if r.get("result") != "ok"]
    assert not failed, f"the server logged failed transfers: {failed[:3]}"
    server.assert_alive("after 4,000 pipelined transfers")


if __name__ == "__main__":
    run_tests(globals())
