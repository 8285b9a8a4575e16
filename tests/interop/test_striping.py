"""gridcp -stripe against a real Globus striped cluster (issue 33; GFD.20 SPAS, SPOR and OPTS RETR
StripeLayout; docs/WIRE.md §3.1).

The bed: two globus-gridftp-server data nodes (`-dn`, each its own transfer log `-Z`) and a
frontend that lists them (`-r 127.0.0.1:A,127.0.0.1:B`), anonymous users mapped to gftest, all
on loopback and one file system, as Globus requires of a cluster. Covered, bytes checked by
SHA-256:
  * gridcp -stripe put, Blocked (-sbs 256K) and Partitioned (-sbs 0): SPAS gives two addresses,
    gridcp sends each stripe its own blocks, and the data node's transfer log shows the share of
    the file the layout gives its stripe (Blocked: whole 256 KiB blocks in turn; Partitioned:
    halves; the two shares differ, so a log holding one proves the split). Globus 13.24 writes
    the record of one of its two nodes only, with globus-url-copy as the client too;
  * gridcp -stripe without -sbs: every block on the first stripe, as globus-url-copy sends it,
    and the file still whole;
  * third-party with -stripe -sbs: gridftpd as the source, given OPTS RETR StripeLayout and SPOR
    with both data nodes' addresses, into the cluster; and the cluster as the source into
    gridftpd, whose SPAS names its one address;
  * a -sbs that is no size is refused with a message, before any connection.
"""

import os
import re
import subprocess
import threading
import time

from gridftp_harness import (GLOBUS_USER, MIB, _drain, _started_procs, assert_file_digest,
                             ensure_globus_user, file_url, free_port, give_to_globus_user,
                             gridcp_binary, make_file, make_temp_dir, make_tree_readable,
                             make_world_traversable, require_tool, run_peer, run_tests,
                             start_globus_server, start_gridftpd, wait_until)

SIZE = 5 * MIB + 123_457      # not a whole number of 256 KiB blocks
BLOCK = 256 * 1024


class GlobusCluster:
    """A Globus frontend with two data nodes; `transfer_bytes(i)` reads node i's transfer log."""

    def __init__(self):
        ensure_globus_user()
        binary = require_tool("globus-gridftp-server")
        self.logdir = make_temp_dir("globus-cluster-")
        self.node_logs, node_ports = [], []
        env = dict(os.environ, GLOBUS_USAGE_OPTOUT="1")
        for i in range(2):
            port = free_port()
            log = os.path.join(self.logdir, f"node{i}.transfers")
            argv = [binary, "-dn", "-p", str(port), "-aa", "-anonymous-user", GLOBUS_USER,
                    "-ia", "none", "-control-interface", "127.0.0.1", "-data-interface",
                    "127.0.0.1", "-disable-usage-stats", "-d", "error", "-Z", log]
            lines: list[str] = []
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, env=env)
            _started_procs.append(proc)
            threading.Thread(target=_drain, args=(proc.stdout, lines), daemon=True).start()
            wait_until(lambda p=port: _listening(p), 30, f"Globus data node {i} on port {port}")
            self.node_logs.append(log)
            node_ports.append(port)
        nodes = ",".join(f"127.0.0.1:{port}" for port in node_ports)
        self.frontend = start_globus_server(extra_args=["-r", nodes, "-ia", "none"])

    def url(self, rel: str) -> str:
        return self.frontend.url(rel)

    def fs(self, rel: str) -> str:
        return self.frontend.fs(rel)

    def transfer_bytes(self, node: int, path: str) -> int:
        """NBYTES of the last record for `path` in the node's transfer log (0 when none)."""
        found = 0
        if os.path.exists(self.node_logs[node]):
            with open(self.node_logs[node]) as f:
                for line in f:
                    if f"FILE={path} " in line:
                        found = int(re.search(r"NBYTES=(\d+)", line).group(1))
        return found


def _listening(port: int) -> bool:
    out = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True)
    return str(port) in out.stdout


def cluster() -> GlobusCluster:
    # One per test: the harness stops a test's servers when it passes.
    return GlobusCluster()


def gridcp(args: list[str], what: str, expect_rc: int | None = 0):
    return run_peer([gridcp_binary(), *args], timeout=180, what=what, expect_rc=expect_rc)


def blocked_share(size: int, block: int, stripe: int, stripes: int) -> int:
    return sum(min(block, size - start) for start in range(stripe * block, size, stripes * block))


def put_and_check_shares(sbs: str | None, name: str, shares: list[int] | None) -> None:
    c = cluster()
    source = os.path.join(make_temp_dir("stripe-put-"), "src.bin")
    digest = make_file(source, SIZE, seed=len(name))
    flags = ["-stripe"] + (["-sbs", sbs] if sbs is not None else [])
    result = gridcp([*flags, "-dbg", file_url(source), c.url(f"incoming/{name}")],
                    f"gridcp {' '.join(flags)} put to a Globus cluster")
    assert "SPAS" in result.output, f"no SPAS in the dialogue:\n{result.output}"
    assert_file_digest(c.fs(f"incoming/{name}"), digest, f"gridcp {' '.join(flags)} put")
    if shares is None:
        return
    assert_a_node_logged_one_share(c, c.fs(f"incoming/{name}"), shares)


def assert_a_node_logged_one_share(c, path: str, shares: list[int]) -> None:
    """Which data node the frontend makes stripe 0 is its choice, and Globus 13.24 writes the
    transfer record of one node only (the other's log stays empty, with globus-url-copy as the
    client too): the record there must hold exactly one stripe's share."""
    deadline = time.monotonic() + 10
    logged = [n for n in (c.transfer_bytes(node, path) for node in range(2)) if n]
    while not logged and time.monotonic() < deadline:
        time.sleep(0.1)  # a data node writes its record after its own 226 to the frontend
        logged = [n for n in (c.transfer_bytes(node, path) for node in range(2)) if n]
    assert logged and all(n in shares for n in logged), \
        f"data nodes' transfer logs show {logged} bytes, the layout gives {shares}"


def test_a_blocked_striped_put_sends_each_data_node_its_blocks():
    shares = [blocked_share(SIZE, BLOCK, i, 2) for i in range(2)]
    put_and_check_shares("256K", "blocked.bin", shares)


def test_a_partitioned_striped_put_sends_each_data_node_its_half():
    half = (SIZE + 1) // 2
    put_and_check_shares("0", "partitioned.bin", [half, SIZE - half])


def test_a_striped_put_without_a_layout_puts_every_block_on_the_first_stripe():
    put_and_check_shares(None, "nolayout.bin", [SIZE, 0])


def test_third_party_from_gridftpd_into_a_striped_cluster():
    c = cluster()
    source = start_gridftpd()
    digest = make_file(source.fs("data/third.bin"), SIZE, seed=31)
    make_tree_readable(source.fs("data"))
    result = gridcp(["-stripe", "-sbs", "256K", "-p", "2", "-dbg", source.url("data/third.bin"),
                     c.url("incoming/from-gridftpd.bin")],
                    "gridcp -stripe third-party gridftpd -> Globus cluster")
    assert "OPTS RETR StripeLayout=Blocked;BlockSize=262144;Parallelism=2,2,2;" in result.output, \
        result.output
    assert re.search(r"SPOR \S+ \S+", result.output), result.output
    assert_file_digest(c.fs("incoming/from-gridftpd.bin"), digest,
                       "third-party gridftpd -> striped Globus cluster")
    # gridftpd, the sender, honours the layout: each data node got exactly its stripe's blocks.
    assert_a_node_logged_one_share(c, c.fs("incoming/from-gridftpd.bin"),
                                   [blocked_share(SIZE, BLOCK, i, 2) for i in range(2)])


def test_globus_url_copy_stripes_a_third_party_copy_from_gridftpd_by_partitions():
    c = cluster()
    source = start_gridftpd()
    digest = make_file(source.fs("data/guc-third.bin"), SIZE, seed=33)
    make_tree_readable(source.fs("data"))
    run_peer(["globus-url-copy", "-stripe", "-sbs", "0", "-p", "2",
                source.url("data/guc-third.bin"), c.url("incoming/guc-from-gridftpd.bin")],
             timeout=120, what="globus-url-copy -stripe -sbs 0 third-party gridftpd -> cluster")
    assert_file_digest(c.fs("incoming/guc-from-gridftpd.bin"), digest,
                       "guc -stripe third-party gridftpd -> striped Globus cluster")
    half = (SIZE + 1) // 2
    assert_a_node_logged_one_share(c, c.fs("incoming/guc-from-gridftpd.bin"), [half, SIZE - half])


def test_third_party_from_a_striped_cluster_into_gridftpd():
    c = cluster()
    dest = start_gridftpd()
    digest = make_file(c.fs("incoming/to-gridftpd.bin"), SIZE, seed=32)
    give_to_globus_user(c.fs("incoming"))
    make_world_traversable(c.fs("incoming"))
    gridcp(["-stripe", "-sbs", "256K", c.url("incoming/to-gridftpd.bin"),
            dest.url("incoming/from-cluster.bin")],
           "gridcp -stripe third-party Globus cluster -> gridftpd")
    assert_file_digest(dest.fs("incoming/from-cluster.bin"), digest,
                       "third-party striped Globus cluster -> gridftpd")


def test_a_striped_block_size_that_is_no_size_is_refused():
    result = gridcp(["-stripe", "-sbs", "lots", "file:///etc/hostname", "ftp://127.0.0.1:1/x"],
                    "gridcp -sbs lots", expect_rc=None)
    assert result.rc != 0 and "bad -sbs 'lots'" in result.output, result.describe()


if __name__ == "__main__":
    run_tests(globals())
