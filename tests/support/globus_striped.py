"""A real Globus striped GridFTP cluster on loopback (globus-gridftp-server 13.24, `remote` DSI),
for the striping interop tests (standard library only; what it found is in docs/STRIPING.md).

    with GlobusStripedCluster(nodes=2) as c:                 # anonymous ftp://, users -> gftest
        run_peer(["globus-url-copy", "-stripe", "-sbs", "1M", file_url(src), c.url("incoming/x")])
        c.transfer_records(node=0)                           # node 0's -Z transfer log
    with GlobusStripedCluster(nodes=2, gsi=shared_test_pki()) as c:   # gsiftp:// with GSI
        run_peer([...,  c.url("incoming/x")], env=c.client_env())

What it starts, all bound to 127.0.0.1 (the data listeners themselves bind 0.0.0.0; Globus
offers no way to narrow that, SPAS still advertises 127.0.0.1):
  * `nodes` data nodes:  globus-gridftp-server -dn -p IPC_PORT ...   (-p is the port the frontend
    connects to; each node forks a session per frontend session, as the anonymous/mapped user)
  * one frontend:        globus-gridftp-server -p CTRL_PORT -r HOST:IPC_PORT,HOST:IPC_PORT ...
Each has its own log (-l, at `log_level`) and netlogger transfer log (-Z).

Modes:
  * anonymous (gsi=None): -aa -anonymous-user gftest on every process. -aa turns IPC security
    off, so no certificates are needed anywhere.
  * GSI (gsi=<TestPki>): no -aa; every process gets the PKI's host credential, cert dir and
    gridmap (pki.server_env()). IPC is GSI; with the default ipc_auth_mode `host` the frontend
    checks each node's certificate against the host name in -r, so -r says localhost:PORT (the
    host certificate is CN=localhost). `ipc_auth` ("none", "subject:<dn>", ...) adds -ia to the
    frontend and keeps -r 127.0.0.1:PORT. ("self" fails: after login the frontend's IPC
    credential is the user's delegated proxy, not the host's.)

Observed with 13.24: SPAS does not list the nodes in -r order; the order is
fixed for a given N (-r index per stripe: 2 nodes [1, 0], 3 [2, 0, 1], 4 [3, 0, 2, 1]), so
stripe 0 is the LAST node of -r; `stripe_nodes()` reports the mapping. Only the data node
serving stripe 0 writes a -Z record for a striped transfer (the others log "Finished
transferring" in -l, no stats); a single-stripe transfer (PORT to the frontend) runs on that
same last node alone. -hybrid is broken in 13.24 (SPAS drops the control connection).

Hosts of their own (tests/support/striping_bed.py: network namespaces joined by shaped links):
`node_hosts` gives each data node the address it listens on and the frontend's -r names, and
`node_launchers`/`frontend_launcher` go in front of each command (["ip", "netns", "exec", NS,
"env", "GLOBUS_HOSTNAME=name"]). With GSI the nodes' certificate (CN=localhost) then names no
such host, so such a cluster needs `ipc_auth` (e.g. "subject:" + the host certificate's DN).

Every process is tracked by PID: the daemons go into the harness's _started_procs (killed at
exit), and stop() ends the daemons and then only the session processes they forked.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import threading
import time

from gridftp_harness import (GLOBUS_USER, START_DEADLINE_S, RawControl, ServerBase, _drain,
                             _read_greeting, _started_procs, _tail, descendants,
                             ensure_globus_user, free_port, give_to_globus_user, make_temp_dir,
                             make_world_traversable, parse_pasv_reply, require_tool)
from test_pki import TestPki

HOST = "127.0.0.1"


def _listening(port: int, host: str = HOST, pid: int | None = None) -> bool:
    """Whether something listens on host:port (IPv4, from /proc/net/tcp; no connection made, so
    a data node does not fork a session for the probe). With `pid`, in that process's network
    namespace (/proc/PID/net/tcp), for a node started in a namespace of its own."""
    want = "%08X:%04X" % (int.from_bytes(bytes(map(int, host.split("."))), "little"), port)
    any_addr = "00000000:%04X" % port
    try:
        with open(f"/proc/{pid}/net/tcp" if pid else "/proc/net/tcp") as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[1] in (want, any_addr):
                    return True
    except OSError:
        pass
    return False


def _start_time(pid: int) -> str | None:
    """Field 22 of /proc/PID/stat: tells a PID apart from a later process that reuses it."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def parse_netlogger(line: str) -> dict[str, str]:
    """One -Z transfer-log line ("DATE=... NBYTES=67108864 STRIPES=2 ...") as a dict."""
    return dict(field.split("=", 1) for field in line.split() if "=" in field)


class _Proc:
    """One daemon we started: its Popen, argv, output lines and log paths."""

    def __init__(self, name: str, proc: subprocess.Popen, argv: list[str], port: int,
                 log: str, transfer_log: str, lines: list[str]):
        self.name, self.proc, self.argv, self.port = name, proc, argv, port
        self.log, self.transfer_log, self.lines = log, transfer_log, lines

    def log_text(self) -> str:
        text = ""
        if os.path.exists(self.log):
            with open(self.log, encoding="utf-8", errors="replace") as f:
                text = f.read()
        return text + "\n".join(self.lines)


class GlobusStripedCluster(ServerBase):
    """N Globus data nodes and a frontend that lists them, on loopback. As a ServerBase, the
    harness's run_tests() stops it with the test; url()/gsiftp_url()/fs()/path() refer to the
    frontend (Globus URLs carry absolute file-system paths, as for GlobusServer)."""

    kind = "globus-striped-cluster"

    def __init__(self, nodes: int = 2, gsi: TestPki | None = None, root: str | None = None,
                 node_args: list[str] | None = None, frontend_args: list[str] | None = None,
                 log_level: str = "ALL", ipc_auth: str | None = None,
                 node_hosts: list[str] | None = None,
                 node_launchers: list[list[str]] | None = None,
                 frontend_launcher: list[str] | None = None):
        if nodes < 1:
            raise ValueError("a cluster needs at least one data node")
        self.node_hosts = list(node_hosts or [HOST] * nodes)
        self.node_launchers = list(node_launchers or [[]] * nodes)
        self.frontend_launcher = list(frontend_launcher or [])
        if len(self.node_hosts) != nodes or len(self.node_launchers) != nodes:
            raise ValueError("node_hosts and node_launchers need one entry per data node")
        self.binary = require_tool("globus-gridftp-server")
        ensure_globus_user()
        self.gsi, self.ipc_auth, self.log_level = gsi, ipc_auth, log_level
        self.work_dir = make_temp_dir("globus-striped-")
        if root is None:
            root = os.path.join(self.work_dir, "root")
        os.makedirs(os.path.join(root, "incoming"), exist_ok=True)
        make_world_traversable(root)
        # Sessions run as the anonymous user or the gridmap account: incoming/ must be theirs.
        give_to_globus_user(os.path.join(root, "incoming"), gsi.account if gsi else GLOBUS_USER)
        self.env = dict(os.environ, GLOBUS_USAGE_OPTOUT="1")
        for name in ("X509_USER_PROXY", "X509_USER_CERT", "X509_USER_KEY", "X509_CERT_DIR",
                     "GRIDMAP"):
            self.env.pop(name, None)
        if gsi is not None:
            make_world_traversable(gsi.cert_dir)   # read again after the setuid (DCAU, IPC)
            self.env.update(gsi.server_env())
        self.nodes: list[_Proc] = []
        self.frontend: _Proc | None = None
        try:
            for i in range(nodes):
                self.nodes.append(self._start_node(i, node_args or []))
            self.frontend = self._start_frontend(frontend_args or [])
        except BaseException:
            self._stop_all()
            raise
        super().__init__(HOST, self.frontend.port, root)
        self.proc = self.frontend.proc

    # Starting -------------------------------------------------------------------------------
    def _common_args(self, log: str, transfer_log: str, host: str = HOST) -> list[str]:
        auth = [] if self.gsi else ["-aa", "-anonymous-user", GLOBUS_USER]
        return auth + ["-control-interface", host, "-data-interface", host,
                       "-disable-usage-stats", "-d", self.log_level, "-l", log,
                       "-Z", transfer_log]

    def _spawn(self, name: str, argv: list[str], port: int, log: str,
               transfer_log: str) -> _Proc:
        lines: list[str] = []
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=self.env)
        _started_procs.append(proc)
        threading.Thread(target=_drain, args=(proc.stdout, lines), daemon=True).start()
        return _Proc(name, proc, argv, port, log, transfer_log, lines)

    def _discard(self, p: _Proc) -> str:
        if p.proc.poll() is None:
            p.proc.kill()
        p.proc.wait(timeout=10)
        if p.proc in _started_procs:
            _started_procs.remove(p.proc)
        return (f"command: {shlex.join(p.argv)}\nexit status {p.proc.returncode}\n"
                f"log:\n{_tail(p.log_text())}")

    def _start_node(self, index: int, extra: list[str]) -> _Proc:
        last_error = ""
        for _attempt in range(3):
            port = free_port()
            log = os.path.join(self.work_dir, f"node{index}.log")
            transfer_log = os.path.join(self.work_dir, f"node{index}.transfers")
            host, launcher = self.node_hosts[index], self.node_launchers[index]
            argv = (launcher + [self.binary, "-dn", "-p", str(port)]
                    + self._common_args(log, transfer_log, host) + extra)
            p = self._spawn(f"node{index}", argv, port, log, transfer_log)
            deadline = time.monotonic() + START_DEADLINE_S
            # A launcher (ip netns exec, env) execs the server: the pid is the node's own.
            while time.monotonic() < deadline and p.proc.poll() is None:
                if _listening(port, host, p.proc.pid if launcher else None):
                    return p
                time.sleep(0.05)
            last_error = self._discard(p)
        raise AssertionError(f"Globus data node {index} did not listen\n{last_error}")

    def _start_frontend(self, extra: list[str]) -> _Proc:
        # GSI with the default ipc_auth_mode `host`: the node's certificate must match the name
        # in -r, and the test host certificate is CN=localhost (127.0.0.1 is refused: "expected
        # name for the remote entity (/CN=127.0.0.1) do not match").
        remote = ",".join(f"{self._remote_name(host)}:{n.port}"
                          for host, n in zip(self.node_hosts, self.nodes))
        ia = ["-ia", self.ipc_auth] if self.ipc_auth else []
        last_error = ""
        for _attempt in range(3):
            port = free_port()
            log = os.path.join(self.work_dir, "frontend.log")
            transfer_log = os.path.join(self.work_dir, "frontend.transfers")
            argv = (self.frontend_launcher + [self.binary, "-p", str(port), "-r", remote] + ia
                    + self._common_args(log, transfer_log) + extra)
            p = self._spawn("frontend", argv, port, log, transfer_log)
            deadline = time.monotonic() + START_DEADLINE_S
            greeting = None
            while time.monotonic() < deadline and p.proc.poll() is None:
                greeting = _read_greeting(HOST, port, self.frontend_launcher or None)
                if greeting:
                    break
                time.sleep(0.05)
            if greeting and greeting.startswith("220"):
                return p
            last_error = f"greeting {greeting!r}\n" + self._discard(p)
        raise AssertionError("Globus frontend did not send a 220 greeting\n" + last_error)

    def _remote_name(self, host: str) -> str:
        """How -r names a node at `host`: "localhost" on loopback under GSI with host IPC auth,
        the name in the test host certificate; the address itself otherwise."""
        return "localhost" if self.gsi and not self.ipc_auth and host == HOST else host

    # What tests read ------------------------------------------------------------------------
    def path(self, rel: str = "") -> str:
        return os.path.join(self.fs_root, rel.lstrip("/"))

    def scheme_url(self, rel: str = "") -> str:
        """gsiftp://localhost:PORT/... in GSI mode, ftp://127.0.0.1:PORT/... otherwise."""
        return self.gsiftp_url(rel) if self.gsi else self.url(rel)

    def client_env(self, user: str = "test") -> dict[str, str]:
        """The environment a client needs (X509_CERT_DIR + X509_USER_PROXY in GSI mode)."""
        return self.gsi.client_env(user) if self.gsi else {}

    @property
    def node_ports(self) -> list[int]:
        """The data nodes' IPC ports (their -p), in -r order."""
        return [n.port for n in self.nodes]

    @property
    def node_logs(self) -> list[str]:
        return [n.log for n in self.nodes]

    @property
    def node_transfer_logs(self) -> list[str]:
        return [n.transfer_log for n in self.nodes]

    @property
    def frontend_log(self) -> str:
        return self.frontend.log

    @property
    def frontend_transfer_log(self) -> str:
        return self.frontend.transfer_log

    @property
    def daemon_pids(self) -> list[int]:
        return [p.proc.pid for p in self._procs()]

    def transfer_records(self, node: int | None = None) -> list[dict[str, str]]:
        """Parsed -Z records of data node `node`, or of the frontend when None. A data node
        writes its record after its own 226 to the frontend: poll (wait_transfer_record)."""
        path = self.frontend.transfer_log if node is None else self.nodes[node].transfer_log
        if not os.path.exists(path):
            return []
        with open(path, encoding="utf-8", errors="replace") as f:
            return [parse_netlogger(line) for line in f if line.endswith("\n")]  # whole lines

    def wait_transfer_record(self, file_path: str, timeout: float = 10) -> dict[int, dict]:
        """{node index: last record for file_path} once at least one node logged it (13.24 logs
        a striped transfer on the stripe-0 node only; {} after the timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            found = {}
            for i in range(len(self.nodes)):
                recs = [r for r in self.transfer_records(i) if r.get("FILE") == file_path]
                if recs:
                    found[i] = recs[-1]
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.1)

    def stripe_nodes(self) -> list[int]:
        """Which data node (index into self.nodes, i.e. -r order) serves each stripe: opens an
        anonymous session, sends SPAS and finds the process listening on each advertised port
        (a session child of a node daemon). Anonymous mode only (GSI needs AUTH first)."""
        if self.gsi:
            raise NotImplementedError("stripe_nodes() logs in anonymously; GSI needs GsiControl")
        if self.frontend_launcher or any(self.node_launchers):
            raise NotImplementedError("stripe_nodes() connects from here: loopback clusters only")
        ctl = RawControl(HOST, self.port)
        try:
            ctl.login()
            ctl.expect("TYPE I", 200)
            ctl.expect("MODE E", 200)
            text = ctl.expect("SPAS", 229)
            ports = [parse_pasv_reply(line)[1] for line in text.splitlines()[1:-1]]
            owners = self._listening_pids()
            order = []
            for port in ports:
                pid = owners.get(port)
                node = next((i for i, n in enumerate(self.nodes)
                             if pid is not None and pid in descendants(n.proc.pid)), None)
                if node is None:
                    raise AssertionError(f"SPAS port {port} is not held by a data node of this "
                                         f"cluster (owner pid {pid}); SPAS reply {text!r}")
                order.append(node)
            ctl.cmd("QUIT")
            return order
        finally:
            ctl.close()

    @staticmethod
    def _listening_pids() -> dict[int, int]:
        out = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True).stdout
        owners = {}
        for line in out.splitlines():
            m = re.search(r":(\d+)\s+\S+:\*\s+users:\(\(\"[^\"]*\",pid=(\d+)", line)
            if m:
                owners[int(m.group(1))] = int(m.group(2))
        return owners

    def log_text(self) -> str:
        parts = []
        for p in self._procs():
            parts.append(f"===== {p.name} (pid {p.proc.pid}, port {p.port}): "
                         f"{shlex.join(p.argv)}\n{_tail(p.log_text(), 3000)}")
        return "\n".join(parts)

    # Stopping -------------------------------------------------------------------------------
    def _procs(self) -> list[_Proc]:
        return self.nodes + ([self.frontend] if self.frontend else [])

    def alive(self) -> bool:
        return all(p.proc.poll() is None for p in self._procs())

    def _stop_all(self, grace: float = 10.0) -> None:
        # The session processes our daemons forked (pid, start time), taken before the daemons
        # go: once a daemon dies its sessions are re-parented and no longer findable.
        sessions = []
        for p in self._procs():
            if p.proc.poll() is None:
                sessions += [(pid, _start_time(pid)) for pid in descendants(p.proc.pid)
                             if pid != p.proc.pid]
        for p in self._procs():
            if p.proc.poll() is None:
                try:
                    p.proc.terminate()
                except ProcessLookupError:
                    pass
        for p in self._procs():
            try:
                p.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                p.proc.kill()
                p.proc.wait(timeout=10)
            if p.proc in _started_procs:
                _started_procs.remove(p.proc)
        killed = []
        for pid, started in sessions:
            if started is not None and _start_time(pid) == started:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except ProcessLookupError:
                    pass
        # Orphans: init reaps them; wait (briefly) until each is gone or a zombie.
        deadline = time.monotonic() + 5
        while killed and time.monotonic() < deadline:
            killed = [pid for pid in killed if _state(pid) not in (None, "Z")]
            if killed:
                time.sleep(0.05)

    def stop(self, grace: float = 10.0) -> None:
        self._stop_all(grace)


if __name__ == "__main__":
    # Smoke test: python3 tests/support/globus_striped.py [gsi]
    import sys
    from gridftp_harness import file_url, make_file, run_peer, sha256_file, shared_test_pki
    gsi = shared_test_pki() if "gsi" in sys.argv[1:] else None
    with GlobusStripedCluster(nodes=3 if gsi is None else 2, gsi=gsi) as cluster:
        print("frontend", cluster.port, "nodes", cluster.node_ports, "pids", cluster.daemon_pids)
        if gsi is None:
            print("stripe -> node:", cluster.stripe_nodes())
        source = os.path.join(make_temp_dir("striped-src-"), "src.bin")
        digest = make_file(source, 8 * 1024 * 1024 + 12345)
        dest = cluster.fs("incoming/put.bin")
        result = run_peer(["globus-url-copy", "-dbg", "-stripe", "-sbs", "1M", file_url(source),
                           cluster.scheme_url("incoming/put.bin")], env=cluster.client_env())
        print("SPAS seen:", "SPAS" in result.stderr, "sha ok:", sha256_file(dest) == digest)
        print("records:", {i: r.get("NBYTES") for i, r in
                           cluster.wait_transfer_record(dest).items()})
    print("stopped; daemons alive:", [pid for pid in cluster.daemon_pids
                                      if os.path.exists(f"/proc/{pid}")])
