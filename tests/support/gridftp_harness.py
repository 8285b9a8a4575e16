"""Shared harness for the integration and interop test scripts (standard library only).

What it gives a test script:
  * start_gridftpd(root, **sections)  -- our server on port 0 with a temp TOML config
  * start_globus_server(root)         -- the real globus-gridftp-server, anonymous -> gftest
  * start_vsftpd(cert, key)           -- Debian's vsftpd as an anonymous FTPS server
  * start_server_under_test(root)     -- gridftpd, or Globus when GRIDFTP_TEST_SERVER=globus
                                         (that switch only exists to validate the peer command
                                         lines of the interop tests against the reference server)
  * gsi=TestPki on all three          -- GSI (gsiftp://) instead of anonymous; shared_test_pki()
                                         gives the process-wide throwaway PKI (test_pki.py)
  * run_peer(argv, ...)               -- run a peer tool; failure messages carry the exact
                                         command line and its output
  * RawControl                        -- a raw control-channel client for hostile input
  * GsiControl                        -- RawControl plus AUTH GSSAPI/ADAT and ENC/632 wrapping
  * file/tree helpers with SHA-256 digests, and run_tests(globals()) -- a tiny runner.

Every process started here is tracked by PID and killed (only those PIDs) at the end.
No test sleeps to wait for a server: we wait for its "listening on" line or its 220 greeting.
"""

from __future__ import annotations

import atexit
import base64
import ftplib
import hashlib
import json
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback

from test_pki import TestPki, make_test_pki

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LISTEN_RE = re.compile(r"listening on (\S+) port (\d+)")
START_DEADLINE_S = 30.0
MIB = 1024 * 1024
GIB = 1024 * MIB

_started_procs: list[subprocess.Popen] = []
_temp_dirs: list[str] = []
_servers: list["ServerBase"] = []

# gridcp remembers each UDPX path's rate under $XDG_CACHE_HOME (docs/UDPX.md §8). Every process
# that uses this harness gets a cache of its own, so that no test or benchmark starts from
# what an earlier run on the machine left behind.
_own_cache = tempfile.mkdtemp(prefix="gridftp-cache-")
os.environ["XDG_CACHE_HOME"] = _own_cache
atexit.register(shutil.rmtree, _own_cache, True)


# --------------------------------------------------------------------------------------------
# Binaries, tools, temp dirs
# --------------------------------------------------------------------------------------------

def _binary(env_name: str, name: str) -> str:
    path = os.environ.get(env_name)
    if not path:
        path = os.path.join(REPO_ROOT, "build", "debug", name)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise AssertionError(f"{name} binary not found or not executable: {path!r} "
                             f"(set ${env_name})")
    return path


def gridftpd_binary() -> str:
    return _binary("GRIDFTPD", "gridftpd")


def gridcp_binary() -> str:
    return _binary("GRIDCP", "gridcp")


def require_tool(name: str) -> str:
    """A missing peer tool is a failure, never a skip."""
    path = shutil.which(name) or (f"/usr/sbin/{name}" if os.access(f"/usr/sbin/{name}", os.X_OK)
                                  else None)
    if not path:
        raise AssertionError(f"required peer tool {name!r} is not installed (not on PATH); "
                             "install it (see docs/PEERS.md) -- this is a failure, not a skip")
    return path


def make_temp_dir(prefix: str = "gftest-") -> str:
    path = tempfile.mkdtemp(prefix=prefix)
    # Readable by the unprivileged accounts gridftpd's sessions run as (mkdtemp makes 0700).
    os.chmod(path, 0o755)
    _temp_dirs.append(path)
    return path


def make_device_root(prefix: str = "gridftpd-bench-") -> str:
    """A tmpfs root holding its own dev/zero and dev/null, for a server confined to its root
    (memory-to-memory transfers: ERET/ESTO of /dev/zero to /dev/null). Needs root (mknod).
    The caller removes it (benchmarks keep it across runs)."""
    root = tempfile.mkdtemp(prefix=prefix, dir="/dev/shm")
    os.chmod(root, 0o755)
    os.makedirs(os.path.join(root, "dev"))
    for name, minor in (("zero", 5), ("null", 3)):
        node = os.path.join(root, "dev", name)
        os.mknod(node, 0o666 | 0o020000, os.makedev(1, minor))
        os.chmod(node, 0o666)   # mknod's mode passes through the umask
    return root


def _cleanup_temp_dirs() -> None:
    if os.environ.get("GRIDFTP_TEST_KEEP_TEMP"):
        print("keeping temp dirs:", _temp_dirs, file=sys.stderr)
        return
    for path in _temp_dirs:
        shutil.rmtree(path, ignore_errors=True)
    _temp_dirs.clear()


def _kill_own_processes() -> None:
    for proc in _started_procs:
        if proc.poll() is None:
            try:
                proc.kill()
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
    _started_procs.clear()


atexit.register(_cleanup_temp_dirs)
atexit.register(_kill_own_processes)   # atexit runs LIFO: processes die before dirs go


def free_port(host: str = "127.0.0.1") -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout: float, what: str, interval: float = 0.05):
    """Polls predicate() until truthy; the deadline only catches hangs."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


# --------------------------------------------------------------------------------------------
# Data helpers
# --------------------------------------------------------------------------------------------

def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            chunk = f.read(4 * MIB)
            if not chunk:
                break
            h.update(chunk)
    return h.hexdigest()


def make_file(path: str, size: int, seed: int = 0) -> str:
    """Random bytes for small files; a repeated random 1 MiB chunk (with the chunk index mixed
    in, so a shifted or duplicated chunk still changes the digest) for big ones.
    Returns the SHA-256 of what was written."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    h = hashlib.sha256()
    with open(path, "wb") as f:
        if size <= 4 * MIB:
            data = os.urandom(size)
            f.write(data)
            h.update(data)
        else:
            base = bytearray(os.urandom(MIB))
            written, index = 0, 0
            while written < size:
                base[0:8] = (index ^ seed).to_bytes(8, "little")
                chunk = bytes(base[: min(MIB, size - written)])
                f.write(chunk)
                h.update(chunk)
                written += len(chunk)
                index += 1
    return h.hexdigest()


def make_tree(root: str, spec: dict[str, int]) -> dict[str, str]:
    """spec: relative path -> size. Returns relative path -> sha256."""
    return {rel: make_file(os.path.join(root, rel), size, seed=i)
            for i, (rel, size) in enumerate(sorted(spec.items()))}


def tree_digests(root: str) -> dict[str, str]:
    """Relative path -> sha256 for every regular file under root."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            full = os.path.join(dirpath, name)
            out[os.path.relpath(full, root)] = sha256_file(full)
    return out


def tree_dirs(root: str) -> set[str]:
    out = set()
    for dirpath, dirs, _files in os.walk(root):
        for d in dirs:
            out.add(os.path.relpath(os.path.join(dirpath, d), root))
    return out


def assert_same_tree(expected: dict[str, str], actual_root: str, what: str) -> None:
    actual = tree_digests(actual_root)
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    differ = sorted(k for k in set(expected) & set(actual) if expected[k] != actual[k])
    if missing or extra or differ:
        raise AssertionError(f"{what}: tree mismatch under {actual_root}: missing={missing} "
                             f"extra={extra} content-differs={differ}")


def assert_file_digest(path: str, digest: str, what: str) -> None:
    if not os.path.isfile(path):
        raise AssertionError(f"{what}: expected file {path} does not exist")
    got = sha256_file(path)
    if got != digest:
        raise AssertionError(f"{what}: {path} sha256 {got} != expected {digest} "
                             f"(size {os.path.getsize(path)})")


def covered(ranges: list[tuple[int, int]]) -> int:
    """Bytes in the union of [start, end) ranges (restart markers may overlap)."""
    total, reach = 0, 0
    for start, end in sorted(ranges):
        start = max(start, reach)
        if end > start:
            total += end - start
            reach = end
    return total


def check_copy(path: str, digest: str, what: str, result) -> None:
    """assert_file_digest, with the command that made the file (a PeerResult) in the message."""
    try:
        assert_file_digest(path, digest, what)
    except AssertionError as e:
        raise AssertionError(f"{e}\n{result.describe()}")


def make_world_traversable(path: str) -> None:
    """tempfile dirs are 0700; the Globus server runs as gftest and must reach them."""
    path = os.path.abspath(path)
    while path not in ("/", ""):
        st = os.stat(path)
        ours = st.st_uid == os.getuid()
        scratch = (path.startswith(tempfile.gettempdir() + os.sep)
                   or path.startswith("/dev/shm" + os.sep))
        if ours and scratch:
            os.chmod(path, (st.st_mode & 0o7777) | 0o755)
        path = os.path.dirname(path)


def make_tree_readable(root: str) -> None:
    for dirpath, dirs, files in os.walk(root):
        os.chmod(dirpath, 0o755)
        for name in files:
            os.chmod(os.path.join(dirpath, name), 0o644)
    make_world_traversable(root)


# --------------------------------------------------------------------------------------------
# Peer command runner
# --------------------------------------------------------------------------------------------

class PeerResult:
    def __init__(self, argv, rc, stdout, stderr):
        self.argv, self.rc, self.stdout, self.stderr = argv, rc, stdout, stderr

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def describe(self) -> str:
        return (f"command: {shlex.join(self.argv)}\nexit status: {self.rc}\n"
                f"--- stdout ---\n{_tail(self.stdout)}\n--- stderr ---\n{_tail(self.stderr)}")


def _tail(text: str, limit: int = 6000) -> str:
    return text if len(text) <= limit else "...[cut]...\n" + text[-limit:]


def run_peer(argv: list[str], timeout: float = 300, expect_rc: int | None = 0, cwd=None,
             env=None, input_bytes: bytes | None = None, what: str = "") -> PeerResult:
    """Runs a peer tool. expect_rc=0: must succeed; None: any status; -1: must fail (non-zero).
    The timeout only catches hangs. On failure the message has the exact command line."""
    if "/" not in argv[0]:
        require_tool(argv[0])
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if input_bytes is not None
                            else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                            env=full_env, start_new_session=True)
    _started_procs.append(proc)
    try:
        out, err = proc.communicate(input=input_bytes, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)   # its own new session: only what we started
        out, err = proc.communicate()
        result = PeerResult(argv, "TIMEOUT", out.decode(errors="replace"),
                            err.decode(errors="replace"))
        raise AssertionError(f"{what or argv[0]}: peer command hung (> {timeout:.0f}s)\n"
                             + result.describe())
    finally:
        if proc in _started_procs and proc.poll() is not None:
            _started_procs.remove(proc)
    result = PeerResult(argv, proc.returncode, out.decode(errors="replace"),
                        err.decode(errors="replace"))
    if expect_rc == -1 and result.rc == 0:
        raise AssertionError(f"{what or argv[0]}: expected failure, got exit 0\n"
                             + result.describe())
    if expect_rc is not None and expect_rc != -1 and result.rc != expect_rc:
        raise AssertionError(f"{what or argv[0]}: expected exit {expect_rc}\n"
                             + result.describe())
    return result


# --------------------------------------------------------------------------------------------
# Servers
# --------------------------------------------------------------------------------------------

class ServerBase:
    kind = "?"
    proc: subprocess.Popen
    gsi: "TestPki | None" = None   # the PKI of a GSI-mode server

    def __init__(self, host: str, port: int, fs_root: str):
        self.host, self.port, self.fs_root = host, port, fs_root
        self.log_lines: list[str] = []
        _servers.append(self)

    # URL forms --------------------------------------------------------------------------
    @property
    def url_host(self) -> str:
        return f"[{self.host}]" if ":" in self.host else self.host

    def path(self, rel: str = "") -> str:
        """The FTP path of root-relative `rel` (always starts with '/')."""
        raise NotImplementedError

    def url(self, rel: str = "") -> str:
        return f"ftp://{self.url_host}:{self.port}{self.path(rel)}"

    def gsiftp_url(self, rel: str = "") -> str:
        """gsiftp:// on host `localhost`, the name in the test host certificate."""
        return f"gsiftp://localhost:{self.port}{self.path(rel)}"

    def curl_url(self, rel: str = "") -> str:
        """curl walks paths relative to the login directory; %2F makes them absolute."""
        return f"ftp://{self.url_host}:{self.port}/%2F{self.path(rel).lstrip('/')}"

    def fs(self, rel: str = "") -> str:
        return os.path.join(self.fs_root, rel)

    # ftplib -----------------------------------------------------------------------------
    def ftp(self, timeout: float = 60, cls=ftplib.FTP, cwd_root: bool = True) -> ftplib.FTP:
        f = cls()
        f.connect(self.host, self.port, timeout=timeout)
        f.login("anonymous", "test@example.org")
        if cwd_root:
            f.cwd(self.path(""))
        return f

    def log_text(self) -> str:
        return "\n".join(self.log_lines)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def assert_alive(self, what: str = "") -> None:
        if not self.alive():
            raise AssertionError(f"{self.kind} server died{(' ' + what) if what else ''} "
                                 f"(exit status {self.proc.returncode}); log tail:\n"
                                 f"{_tail(self.log_text())}")

    def stop(self, grace: float = 10.0) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.terminate()
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            except ProcessLookupError:
                pass
        if self.proc in _started_procs:
            _started_procs.remove(self.proc)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


class GridftpdServer(ServerBase):
    kind = "gridftpd"

    def __init__(self, proc, host, port, fs_root, work_dir, config_path, transfer_log,
                 log_lines):
        super().__init__(host, port, fs_root)
        self.proc = proc
        self.work_dir, self.config_path, self.transfer_log = work_dir, config_path, transfer_log
        self.log_lines = log_lines

    def path(self, rel: str = "") -> str:
        return "/" + rel.lstrip("/")

    def transfer_records(self) -> list[dict]:
        """Parses the transfer log; every line must be one JSON object."""
        if not self.transfer_log or not os.path.exists(self.transfer_log):
            return []
        records = []
        with open(self.transfer_log, "r", encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.endswith("\n"):
                    break  # still being written
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    raise AssertionError(f"transfer log {self.transfer_log} line {number} is not "
                                         f"valid JSON ({e}): {line!r}")
                if not isinstance(obj, dict):
                    raise AssertionError(f"transfer log line {number} is not an object: {line!r}")
                records.append(obj)
        return records

    def wait_transfer_record(self, predicate, what: str, timeout: float = 30) -> dict:
        found = []

        def check():
            for rec in self.transfer_records():
                if predicate(rec):
                    found.append(rec)
                    return True
            return False
        try:
            wait_until(check, timeout, what)
        except AssertionError:
            raise AssertionError(f"no transfer log record for {what}; records:\n"
                                 + "\n".join(json.dumps(r) for r in self.transfer_records()))
        return found[0]


class GlobusServer(ServerBase):
    kind = "globus-gridftp-server"

    def __init__(self, proc, host, port, fs_root, argv, log_lines):
        super().__init__(host, port, fs_root)
        self.proc, self.argv = proc, argv
        self.log_lines = log_lines

    def path(self, rel: str = "") -> str:
        return os.path.join(self.fs_root, rel.lstrip("/"))


def _drain(stream, lines: list[str], on_line=None) -> None:
    for raw in iter(stream.readline, b""):
        text = raw.decode(errors="replace").rstrip("\n")
        lines.append(text)
        if on_line:
            on_line(text)
    stream.close()


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def write_config(path: str, sections: dict[str, dict]) -> str:
    with open(path, "w", encoding="utf-8") as f:
        for section, keys in sections.items():
            f.write(f"[{section}]\n")
            for key, value in keys.items():
                f.write(f"{key} = {_toml_value(value)}\n")
            f.write("\n")
    return path


def start_gridftpd(root: str | None = None, extra_args: list[str] | None = None,
                   gsi: TestPki | None = None, launcher: list[str] | None = None,
                   gsi_host: str | None = None, gsi_settings: dict | None = None,
                   **sections) -> GridftpdServer:
    """Starts our server on port 0. `root` is the anonymous root (made if None); it gets a
    writable `incoming/`. Keyword arguments are config sections to merge, e.g.
    start_gridftpd(root, listen={"control_interface": "::1"}, limits={"max_sessions": 5}).
    With gsi=<TestPki> it gets a [gsi] section (host cert/key, cert dir, gridmap, root = the
    test root that mapped users see as "/") and anonymous login is off unless `anonymous=`
    turns it on; like the Globus server, `incoming/` then belongs to the mapped account.
    `launcher` goes in front of the command, e.g. ["ip", "netns", "exec", "wanemB"].
    `gsi_host` picks one of the PKI's named host credentials (CN=<name>) instead of localhost's.
    `gsi_settings` go into the [gsi] section last, with or without a PKI (the `gsi` keyword is
    taken by the PKI), e.g. {"root": ""} for the real "/" as Globus serves it,
    {"integrity_only_safe": True} or {"fork_server": False}."""
    binary = gridftpd_binary()
    work = make_temp_dir("gridftpd-srv-")
    if root is None:
        root = os.path.join(work, "root")
    os.makedirs(os.path.join(root, "incoming"), exist_ok=True)
    transfer_log = os.path.join(work, "transfer.log")
    config = {
        "listen": {"control_interface": "127.0.0.1", "port": 0},
        "anonymous": {"enabled": gsi is None, "root": root, "writable": ["incoming"]},
        "logging": {"level": "info", "transfer_log": transfer_log},
    }
    if gsi is not None:
        host_cert, host_key = gsi.named_hosts[gsi_host] if gsi_host else (gsi.host_cert,
                                                                          gsi.host_key)
        config["gsi"] = {"enabled": True, "host_cert": host_cert, "host_key": host_key,
                         "cert_dir": gsi.cert_dir, "gridmap": gsi.gridmap, "root": root}
        make_world_traversable(root)
        give_to_globus_user(os.path.join(root, "incoming"), gsi.account)
    for section, keys in sections.items():
        config.setdefault(section, {}).update(keys)
    if gsi_settings:
        config.setdefault("gsi", {}).update(gsi_settings)
    as_account = unprivileged_server_account(config, gsi)
    if as_account:
        # Its own copy of an FTPS credential: a private key stays readable by its owner only.
        for key in ("cert", "key"):
            if config.get("tls", {}).get(key):
                copy = os.path.join(work, "tls-" + key + ".pem")
                shutil.copyfile(config["tls"][key], copy)
                os.chmod(copy, 0o600)
                config["tls"][key] = copy
    config_path = write_config(os.path.join(work, "gridftpd.toml"), config)
    if as_account:
        for path in (work, config.get("anonymous", {}).get("root", root),
                     config.get("accounts", {}).get("password_file")):
            if path:
                give_to_globus_user(path, as_account)
    run_as = (["setpriv", f"--reuid={as_account}", f"--regid={as_account}", "--init-groups"]
              if as_account else [])
    argv = (launcher or []) + run_as + [binary, "-c", config_path] + (extra_args or [])
    lines: list[str] = []
    got = {}
    ready = threading.Event()

    def on_line(text):
        m = LISTEN_RE.search(text)
        if m and not ready.is_set():
            got["host"], got["port"] = m.group(1), int(m.group(2))
            ready.set()

    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, cwd=work)
    _started_procs.append(proc)
    reader = threading.Thread(target=lambda: (_drain(proc.stdout, lines, on_line), ready.set()),
                              daemon=True)
    reader.start()
    ready.wait(START_DEADLINE_S)
    if "port" not in got:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        raise AssertionError(f"gridftpd did not log 'listening on <host> port <N>' within "
                             f"{START_DEADLINE_S:.0f}s (exit status {proc.returncode})\n"
                             f"command: {shlex.join(argv)}\nconfig:\n{open(config_path).read()}"
                             f"\nlog:\n{_tail(chr(10).join(lines))}")
    host = config["listen"]["control_interface"]
    if host in ("::", "0.0.0.0", ""):
        host = "::1" if host == "::" else "127.0.0.1"
    server = GridftpdServer(proc, host, got["port"], root, work, config_path, transfer_log, lines)
    server.gsi = gsi
    return server


GLOBUS_USER = "gftest"


def unprivileged_server_account(config: dict, gsi) -> str | None:
    """The account a test's server runs as: started as root, gridftpd refuses anonymous and
    local password-file sessions that would run as root (server/config/session_accounts.hpp),
    and serves them in a process each as the account they name. Tests that name no account and
    use no GSI exercise the one-process server, so that server runs as the Globus test account,
    as a site runs gridftpd without root; the root modes are tested where a test names an
    account or brings GSI. None: run as we are."""
    if os.geteuid() != 0 or gsi is not None or config.get("gsi", {}).get("enabled"):
        return None
    anonymous = config.get("anonymous", {})
    if anonymous.get("enabled") and anonymous.get("account"):
        return None
    if config.get("accounts", {}).get("account"):
        return None
    if not anonymous.get("enabled") and not config.get("accounts", {}).get("password_file"):
        return None
    return ensure_globus_user().pw_name


def process_status(pid: int) -> dict[str, str]:
    """/proc/PID/status as a dict: "CapEff" -> "0000000000000000", "Uid" -> "1001 1001 ...". """
    with open(f"/proc/{pid}/status") as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)


def assert_runs_as_account(pid: int, account: pwd.struct_passwd, what: str) -> None:
    """A session process that is `account` for good: every uid and gid the account's, its groups
    exactly the account's, no capabilities left (effective, permitted, inheritable, ambient,
    bounding) and no_new_privs set."""
    status = process_status(pid)
    expected_groups = sorted(os.getgrouplist(account.pw_name, account.pw_gid))
    checks = {
        "Uid": [str(account.pw_uid)] * 4,
        "Gid": [str(account.pw_gid)] * 4,
        "Groups": [str(g) for g in expected_groups],
    }
    for field, want in checks.items():
        got = status.get(field, "").split()
        if field == "Groups":
            got = sorted(got, key=int)
        assert got == want, f"{what}: {field} {got}, expected {want}\n{status}"
    for field in ("CapEff", "CapPrm", "CapInh", "CapAmb", "CapBnd"):
        assert int(status.get(field, "1"), 16) == 0, f"{what}: {field} {status.get(field)}"
    assert status.get("NoNewPrivs") == "1", f"{what}: NoNewPrivs {status.get('NoNewPrivs')}"


FORK_SERVER_NAME = "gridftpd-fork"


def _process_tree() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, comm) of every process now."""
    tree = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                head, tail = stat.read().rsplit(")", 1)
        except OSError:
            continue
        tree[int(entry)] = (int(tail.split()[1]), head.split("(", 1)[1])
    return tree


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it (session processes, fork servers' sessions)."""
    children: dict[int, list[int]] = {}
    for child, (parent, _) in _process_tree().items():
        children.setdefault(parent, []).append(child)
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        queue.extend(children.get(current, []))
    return found


class EstablishedPortWatch:
    """Polls `ss` in a thread for as long as the `with` block runs (a transfer) and keeps the
    local ports that `select` picks out of each poll's established TCP connections, given as
    (local port, pids owning the socket) pairs. Short connections can fall between polls on a
    loaded machine, so a test should move enough data for them to live a while."""

    def __init__(self, select):
        self.select = select
        self.ports: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            out = subprocess.run(["ss", "-tnpH", "state", "established"], capture_output=True,
                                 text=True).stdout
            connections = []
            for line in out.splitlines():
                fields = line.split()
                if len(fields) > 2 and ":" in fields[2]:
                    owners = {int(p) for p in re.findall(r"pid=(\d+)", line)}
                    connections.append((int(fields[2].rsplit(":", 1)[1]), owners))
            self.ports.update(self.select(connections))
            time.sleep(0.005)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=10)


def fork_servers(server) -> list[int]:
    """The server's fork servers (process per session with gsi.fork_server on)."""
    return [pid for pid, (parent, name) in _process_tree().items()
            if parent == server.proc.pid and name == FORK_SERVER_NAME]


def session_processes(server) -> list[int]:
    """The per-session processes of the server (process per session, as root): its children,
    exec'd per connection, and its fork servers' children."""
    tree = _process_tree()
    parents = {server.proc.pid} | {pid for pid, (parent, name) in tree.items()
                                    if parent == server.proc.pid and name == FORK_SERVER_NAME}
    return [pid for pid, (parent, name) in tree.items()
            if parent in parents and name != FORK_SERVER_NAME]


def cut_off_and_resume(server_to_cut, argv: list[str], partial_growing, what: str) -> str:
    """Runs gridcp `argv` (with -rst), kills `server_to_cut`'s session processes once
    `partial_growing()` says a good part of the file has moved, and returns gridcp's output once
    it has finished on its own retry."""
    proc = subprocess.Popen(argv, env=dict(os.environ, **shared_test_pki().client_env("test")),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_until(partial_growing, 30, f"the {what} to be under way")
        sessions = session_processes(server_to_cut)
        assert sessions, f"no session process to cut off in the {what}"
        for pid in sessions:  # the server's own children: the session that moves the file
            os.kill(pid, signal.SIGKILL)
        output, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, f"gridcp -udp -rst did not finish the {what}:\n{output}"
    return output


def ensure_globus_user(name: str = GLOBUS_USER) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "-m", name], check=False,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return pwd.getpwnam(name)


def give_to_globus_user(path: str, account: str = GLOBUS_USER) -> None:
    """Makes an upload directory writable by the Globus anonymous account (or by `account`,
    e.g. a GSI user's gridmap account)."""
    user = ensure_globus_user(account)
    if not os.path.isdir(path):  # one file (a password file keeps its private mode)
        os.chown(path, user.pw_uid, user.pw_gid)
        return
    for dirpath, dirs, files in os.walk(path):
        os.chown(dirpath, user.pw_uid, user.pw_gid)
        for name in files:
            os.chown(os.path.join(dirpath, name), user.pw_uid, user.pw_gid)
    make_world_traversable(path)


_GREETING_PROBE = ("import socket, sys\n"
                   "try:\n"
                   "    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)\n"
                   "    print(s.recv(4096).decode(errors='replace'), end='')\n"
                   "except OSError:\n"
                   "    pass\n")


def _read_greeting(host: str, port: int, launcher: list[str] | None = None) -> str | None:
    if launcher:  # connect from where the server runs, e.g. inside its network namespace
        probe = subprocess.run(launcher + [sys.executable, "-c", _GREETING_PROBE, host, str(port)],
                               stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=30)
        return probe.stdout or None
    try:
        with socket.create_connection((host, port), timeout=5) as s:
            data = b""
            while b"\r\n" not in data and b"\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    return None
                data += chunk
            return data.decode(errors="replace")
    except OSError:
        return None


def start_until_greeting(make_argv, env: dict[str, str] | None = None, attempts: int = 3):
    """Starts `make_argv(port)` on a free port and waits (30 s) for 127.0.0.1:port to greet with
    220; a start that ends or stays silent is tried again on another port. Returns
    (process, port, argv, output lines)."""
    for _attempt in range(attempts):
        port = free_port()
        argv = make_argv(port)
        lines: list[str] = []
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=env)
        _started_procs.append(proc)
        threading.Thread(target=_drain, args=(proc.stdout, lines), daemon=True).start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            greeting = _read_greeting("127.0.0.1", port)
            if greeting and greeting.startswith("220"):
                return proc, port, argv, lines
            time.sleep(0.05)
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
    raise AssertionError(f"{argv[0]} did not greet with {argv}\n" + "\n".join(lines[-40:]))


def start_globus_server(root: str | None = None, host: str = "127.0.0.1",
                        extra_args: list[str] | None = None,
                        gsi: TestPki | None = None,
                        launcher: list[str] | None = None) -> GlobusServer:
    """The real globus-gridftp-server, anonymous users mapped to gftest. `root` (made if None)
    gets a writable `incoming/` like ours; Globus URLs use absolute filesystem paths.
    With gsi=<TestPki> it runs in GSI mode instead (no -aa: AUTH GSSAPI with the PKI's host
    credential, gridmap and cert dir); it then setuids to each user's gridmap account, so
    `incoming/` belongs to pki.account.
    `launcher` goes in front of the command, e.g. ["ip", "netns", "exec", "wanemB"] (then the
    port is picked here, not in the launcher's namespace, and the greeting read through it)."""
    binary = require_tool("globus-gridftp-server")
    ensure_globus_user()
    if root is None:
        root = os.path.join(make_temp_dir("globus-srv-"), "root")
    os.makedirs(os.path.join(root, "incoming"), exist_ok=True)
    make_world_traversable(root)
    give_to_globus_user(os.path.join(root, "incoming"), gsi.account if gsi else GLOBUS_USER)
    env = dict(os.environ, GLOBUS_USAGE_OPTOUT="1")
    if gsi is not None:
        make_world_traversable(gsi.cert_dir)   # read again after the setuid (data channels)
        env.update(gsi.server_env())
    last_error = ""
    for _attempt in range(3):
        port = free_port("127.0.0.1" if launcher else host)
        auth_args = [] if gsi else ["-aa", "-anonymous-user", GLOBUS_USER]
        argv = (launcher or []) + [binary, "-p", str(port), "-control-interface", host]
        argv += auth_args + ["-disable-usage-stats", "-d", "error"] + (extra_args or [])
        lines: list[str] = []
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=env)
        _started_procs.append(proc)
        threading.Thread(target=_drain, args=(proc.stdout, lines), daemon=True).start()
        deadline = time.monotonic() + START_DEADLINE_S
        greeting = None
        while time.monotonic() < deadline and proc.poll() is None:
            greeting = _read_greeting(host, port, launcher)
            if greeting:
                break
            time.sleep(0.05)
        if greeting and greeting.startswith("220"):
            server = GlobusServer(proc, host, port, root, argv, lines)
            server.gsi = gsi
            return server
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        _started_procs.remove(proc)
        last_error = (f"command: {shlex.join(argv)}\nexit status {proc.returncode}, greeting "
                      f"{greeting!r}\nlog:\n{_tail(chr(10).join(lines))}")
    raise AssertionError("globus-gridftp-server did not send a 220 greeting\n" + last_error)


class VsftpdServer(ServerBase):
    kind = "vsftpd"

    def __init__(self, proc, host, port, fs_root, config_path, log_path, log_lines):
        super().__init__(host, port, fs_root)
        self.proc, self.config_path, self.log_path = proc, config_path, log_path
        self.log_lines = log_lines

    def path(self, rel: str = "") -> str:
        return "/" + rel.lstrip("/")   # anonymous users are chrooted to the root

    def session_pids(self) -> list[int]:
        """The processes vsftpd forked for its sessions (each session has two), ours to kill."""
        found, todo = [], [self.proc.pid]
        while todo:
            out = subprocess.run(["pgrep", "-P", str(todo.pop())], capture_output=True,
                                 text=True).stdout.split()
            found += [int(pid) for pid in out]
            todo += [int(pid) for pid in out]
        return found

    def vsftpd_log(self) -> str:
        """vsftpd's own log: the FTP dialogue, transfers and, with debug_ssl, each handshake."""
        if not os.path.exists(self.log_path):
            return ""
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()


def start_vsftpd(cert: str, key: str, root: str | None = None,
                 require_ssl_reuse: bool = True) -> VsftpdServer:
    """Debian's vsftpd as an FTPS server on loopback, in the foreground, with its own config:
    anonymous logins (no password) chrooted to `root` (made if None; root-owned, not writable, as
    vsftpd insists) with a writable `incoming/`, which anonymous users may also overwrite and
    resume into; TLS forced for logins and data with `cert`/`key`; require_ssl_reuse as asked;
    debug_ssl so that its log says whether each data connection resumed the session."""
    binary = require_tool("vsftpd")
    try:
        pwd.getpwnam("ftp")   # anonymous sessions run as ftp (ftp_username)
    except KeyError:
        subprocess.run(["useradd", "-r", "-M", "-d", "/srv/ftp", "-s", "/usr/sbin/nologin",
                        "ftp"], check=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    work = make_temp_dir("vsftpd-srv-")
    if root is None:
        root = os.path.join(work, "root")
    os.makedirs(os.path.join(root, "incoming"), exist_ok=True)
    os.chmod(root, 0o755)
    ftp_user = pwd.getpwnam("ftp")
    os.chown(os.path.join(root, "incoming"), ftp_user.pw_uid, ftp_user.pw_gid)
    empty = os.path.join(work, "empty")   # where the unprivileged helper is chrooted
    os.makedirs(empty, mode=0o755)
    log_path = os.path.join(work, "vsftpd.log")
    last_error = ""
    for _attempt in range(3):
        port = free_port()
        settings = {
            "listen": "YES", "listen_ipv6": "NO", "listen_address": "127.0.0.1",
            "listen_port": port, "background": "NO", "seccomp_sandbox": "NO",
            "anonymous_enable": "YES", "no_anon_password": "YES", "local_enable": "NO",
            "anon_root": root, "write_enable": "YES", "anon_upload_enable": "YES",
            "anon_other_write_enable": "YES", "anon_umask": "022",
            "secure_chroot_dir": empty, "pasv_enable": "YES",
            "pasv_min_port": 40000 + port % 20000, "pasv_max_port": 40199 + port % 20000,
            "ssl_enable": "YES", "allow_anon_ssl": "YES", "force_anon_logins_ssl": "YES",
            "force_anon_data_ssl": "YES",
            "require_ssl_reuse": "YES" if require_ssl_reuse else "NO",
            # Its default list (DES-CBC3-SHA) is gone from OpenSSL 3.
            "ssl_ciphers": "HIGH", "rsa_cert_file": cert, "rsa_private_key_file": key,
            "debug_ssl": "YES", "vsftpd_log_file": log_path, "log_ftp_protocol": "YES",
            "xferlog_enable": "YES",
        }
        config_path = os.path.join(work, "vsftpd.conf")
        with open(config_path, "w", encoding="utf-8") as f:
            f.writelines(f"{key}={value}\n" for key, value in settings.items())
        lines: list[str] = []
        proc = subprocess.Popen([binary, config_path], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        _started_procs.append(proc)
        threading.Thread(target=_drain, args=(proc.stdout, lines), daemon=True).start()
        deadline = time.monotonic() + START_DEADLINE_S
        greeting = None
        while time.monotonic() < deadline and proc.poll() is None:
            greeting = _read_greeting("127.0.0.1", port)
            if greeting:
                break
            time.sleep(0.05)
        if greeting and greeting.startswith("220"):
            return VsftpdServer(proc, "127.0.0.1", port, root, config_path, log_path, lines)
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        _started_procs.remove(proc)
        last_error = (f"config:\n{open(config_path).read()}\nexit status {proc.returncode}, "
                      f"greeting {greeting!r}\noutput:\n{_tail(chr(10).join(lines))}")
    raise AssertionError("vsftpd did not send a 220 greeting\n" + last_error)


def make_self_signed_cert(directory: str, name: str = "localhost") -> tuple[str, str]:
    """A throwaway self-signed certificate (with its key) for `name` and 127.0.0.1, made by
    openssl; it is its own CA, so a client trusts it by naming the certificate file."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    run_peer(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
              "-out", cert, "-days", "2", "-subj", f"/CN={name}",
              "-addext", f"subjectAltName=DNS:{name},IP:127.0.0.1"], what="openssl req -x509")
    os.chmod(key, 0o600)
    return cert, key


def start_server_under_test(root: str | None = None, gsi: TestPki | None = None,
                            **sections) -> ServerBase:
    """Interop tests run the peers against gridftpd. GRIDFTP_TEST_SERVER=globus points the same
    tests at the reference server instead (to validate the peer command lines)."""
    if under_test_is_globus():
        host = sections.get("listen", {}).get("control_interface", "127.0.0.1")
        return start_globus_server(root, host=host, gsi=gsi)
    return start_gridftpd(root, gsi=gsi, **sections)


def under_test_is_globus() -> bool:
    return os.environ.get("GRIDFTP_TEST_SERVER") == "globus"


_shared_pki: list[TestPki] = []


def shared_test_pki() -> TestPki:
    """The throwaway GSI PKI of this test process (built on first use, a few seconds)."""
    if not _shared_pki:
        base = os.path.join(make_temp_dir("gsi-pki-"), "pki")
        _shared_pki.append(make_test_pki(base))
        make_world_traversable(_shared_pki[0].cert_dir)
    return _shared_pki[0]


# --------------------------------------------------------------------------------------------
# Raw control channel
# --------------------------------------------------------------------------------------------

class RawControl:
    """Line-level control connection for hostile input. read_reply() parses RFC 959 multi-line
    replies (only `DDD<SP>` with the first line's code ends one)."""

    def __init__(self, host: str, port: int, timeout: float = 30, source: str | None = None):
        """`source` binds the client's address (another 127.x.y.z on loopback: a second host)."""
        self.sock = socket.create_connection((host, port), timeout=timeout,
                                             source_address=(source, 0) if source else None)
        self.buf = b""
        self.greeting = self.read_reply()

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\r\n")

    def _read_line(self) -> str:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise AssertionError(f"control connection closed by server (pending "
                                     f"{self.buf[:200]!r})")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.rstrip(b"\r").decode(errors="replace")

    def read_reply(self) -> tuple[int, str]:
        first = self._read_line()
        if len(first) < 3 or not first[:3].isdigit():
            raise AssertionError(f"malformed reply line: {first!r}")
        code = first[:3]
        lines = [first]
        if len(first) > 3 and first[3] == "-":
            while True:
                line = self._read_line()
                lines.append(line)
                if line.startswith(code + " ") or line == code:
                    break
        return int(code), "\n".join(lines)

    def cmd(self, line: str) -> tuple[int, str]:
        self.send(line)
        return self.read_reply()

    def expect(self, line: str, *codes: int) -> str:
        code, text = self.cmd(line)
        if code not in codes:
            raise AssertionError(f"{line[:80]!r}: expected reply {codes}, got {text!r}")
        return text

    def login(self) -> None:
        code, text = self.cmd("USER anonymous")
        if code == 331:
            code, text = self.cmd("PASS test@example.org")
        if code != 230:
            raise AssertionError(f"anonymous login failed: {text!r}")

    def mode_e_passive(self) -> tuple[str, int]:
        """TYPE I, MODE E and PASV on a logged-in session: where the data connections go."""
        self.expect("TYPE I", 200)
        self.expect("MODE E", 200)
        return parse_pasv_reply(self.expect("PASV", 227))

    def pasv_connect(self, timeout: float = 30) -> socket.socket:
        text = self.expect("PASV", 227)
        m = re.search(r"(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)", text)
        if not m:
            raise AssertionError(f"unparsable PASV reply {text!r}")
        n = [int(x) for x in m.groups()]
        return socket.create_connection((".".join(map(str, n[:4])), n[4] * 256 + n[5]),
                                        timeout=timeout)

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def abort_connection(self) -> None:
        """Closes with RST (SO_LINGER 0): an abrupt disconnect."""
        abort_socket(self.sock)


class GsiControl(RawControl):
    """RawControl that logs in with GSI the way globus-url-copy does on the control channel
    (docs/WIRE.md §5.1, §5.3): `AUTH GSSAPI`, the TLS handshake carried base64 in
    `ADAT`/`335 ADAT=` lines, the GSI post-handshake bytes, then every command wrapped as
    `ENC <b64>` and every `632` reply line unwrapped. Python's ssl on memory BIOs is the
    initiator. It delegates only when asked (flag 'D', the request signed by openssl as
    test_pki.sign_delegation_request does); otherwise flag '0', enough for authentication
    outcomes, hostile ADAT and protected commands, not for DCAU A transfers."""

    def __init__(self, host: str, port: int, timeout: float = 30):
        super().__init__(host, port, timeout)
        self.tls: ssl.SSLObject | None = None
        self._in = ssl.MemoryBIO()
        self._out = ssl.MemoryBIO()
        self.exchange: list[str] = []   # first line of each reply during AUTH/ADAT

    @staticmethod
    def tls_context(proxy: str, ca_file: str) -> ssl.SSLContext:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(cafile=ca_file)
        ctx.load_cert_chain(proxy)   # proxy cert, its key, then the user cert (the chain)
        return ctx

    def _adat(self, token: bytes) -> tuple[int, str, bytes]:
        code, text = self.cmd("ADAT " + base64.b64encode(token).decode())
        self.exchange.append(text.split("\n")[0][:120])
        data = b""
        m = re.match(r"\d{3}[ -]ADAT=(\S*)", text)
        if m:
            data = base64.b64decode(m.group(1))
        return code, text, data

    def authenticate(self, proxy: str, ca_file: str, server_hostname: str = "localhost",
                     delegate: bool = False) -> tuple[int, str]:
        """AUTH GSSAPI + the ADAT exchange. Returns the final reply: 235 on success, the
        server's rejection (e.g. 530) otherwise. Only a reply that breaks the protocol raises.
        With `delegate`, the server gets a proxy of `proxy` (what DCAU A transfers need)."""
        code, text = self.cmd("AUTH GSSAPI")
        self.exchange.append(text.split("\n")[0])
        if code != 334:
            return code, text
        obj = self.tls_context(proxy, ca_file).wrap_bio(self._in, self._out,
                                                         server_hostname=server_hostname)
        while True:
            try:
                obj.do_handshake()
                done = True
            except ssl.SSLWantReadError:
                done = False
            token = self._out.read()
            if not done:
                code, text, data = self._adat(token)
                if code != 335:
                    return code, text
                self._in.write(data)
                continue
            if token:
                # TLS 1.3: our last flight completes the handshake; the acceptor answers it
                # with one application byte (0x00), which we read and drop.
                code, text, data = self._adat(token)
                if code != 335:
                    return code, text
                self._in.write(data)
                sync = obj.read(1)
                if sync != b"\x00":
                    raise AssertionError(f"GSI sync byte: expected b'\\x00', got {sync!r}")
            if delegate:
                code, text, data = self._delegate(obj, proxy)
                if code != 235:
                    return code, text
            else:
                obj.write(b"0")   # the delegation flag: no delegation
                code, text, data = self._adat(self._out.read())
            if data:
                self._in.write(data)
            if code == 235:
                self.tls = obj
            return code, text

    def _delegate(self, obj: ssl.SSLObject, proxy: str) -> tuple[int, str, bytes]:
        """Flag 'D', then the acceptor's DER certificate request comes back (in one or more
        335 replies); we answer with the signed proxy certificate (docs/WIRE.md §5.4)."""
        from test_pki import sign_delegation_request
        obj.write(b"D")
        token = self._out.read()
        request = b""
        while True:
            code, text, data = self._adat(token)
            if code != 335:
                return code, text, data
            self._in.write(data)
            try:
                request += obj.read(65536)
            except ssl.SSLWantReadError:
                pass
            if len(request) >= 2 and len(request) >= _der_length(request):
                break
            token = b""
        obj.write(sign_delegation_request(request, proxy))
        return self._adat(self._out.read())

    def _unwrap(self, text: str) -> tuple[int, str]:
        plain = b""
        for line in text.split("\n"):
            self._in.write(base64.b64decode(line[4:].strip()))
            try:
                while True:
                    chunk = self.tls.read(65536)
                    if not chunk:
                        break
                    plain += chunk
            except ssl.SSLWantReadError:
                pass
        decoded = plain.decode(errors="replace").replace("\r\n", "\n").rstrip("\n")
        if len(decoded) < 3 or not decoded[:3].isdigit():
            raise AssertionError(f"unwrapped reply is not an FTP reply: {decoded!r}")
        return int(decoded[:3]), decoded

    def enc_cmd(self, line: str) -> tuple[int, str]:
        """Sends `ENC <wrapped line>`; returns the unwrapped reply (a reply that came back
        unprotected, e.g. a 5xx about the ENC itself, is returned as it is)."""
        if self.tls is None:
            raise AssertionError("enc_cmd before a successful GSI authentication")
        self.tls.write(line.encode() + b"\r\n")
        self.send("ENC " + base64.b64encode(self._out.read()).decode())
        code, text = self.read_reply()
        if code in (631, 632, 633):
            return self._unwrap(text)
        return code, text

    def enc_read_reply(self) -> tuple[int, str]:
        """The next reply, unwrapped: the final reply of a transfer begun earlier."""
        code, text = self.read_reply()
        if code in (631, 632, 633):
            return self._unwrap(text)
        return code, text

    def enc_expect(self, line: str, *codes: int) -> str:
        code, text = self.enc_cmd(line)
        if code not in codes:
            raise AssertionError(f"ENC {line[:80]!r}: expected reply {codes}, got {text!r}")
        return text

    def gsi_login(self, proxy: str, ca_file: str, delegate: bool = False) -> str:
        """Full login: authenticate, then USER :globus-mapping: / PASS (what globus-url-copy
        sends). Returns the 230 text (Globus: '230 User gftest logged in.')."""
        code, text = self.authenticate(proxy, ca_file, delegate=delegate)
        if code != 235:
            raise AssertionError(f"GSI authentication failed: {text!r} (exchange "
                                 f"{self.exchange})")
        code, text = self.enc_cmd("USER :globus-mapping:")
        if code == 331:
            code, text = self.enc_cmd("PASS ")
        if code != 230:
            raise AssertionError(f"GSI login failed after 235: {text!r}")
        return text


def _der_length(der: bytes) -> int:
    """Total length of the DER object at the start of `der` (header + content); a large
    number while the length octets themselves are incomplete."""
    if len(der) < 2:
        return 1 << 30
    first = der[1]
    if first < 0x80:
        return 2 + first
    count = first & 0x7F
    if len(der) < 2 + count:
        return 1 << 30
    return 2 + count + int.from_bytes(der[2:2 + count], "big")


def abort_socket(sock: socket.socket) -> None:
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


def ftp_retr_bytes(ftp: ftplib.FTP, path: str, rest: int | None = None) -> bytes:
    chunks: list[bytes] = []
    ftp.retrbinary(f"RETR {path}", chunks.append, rest=rest)
    return b"".join(chunks)


def expect_ftp_error(fn, code_prefix: str | tuple[str, ...], what: str):
    """Runs fn(); it must raise an ftplib error whose reply starts with code_prefix (a string
    or a tuple of accepted prefixes)."""
    try:
        result = fn()
    except ftplib.all_errors as e:
        text = str(e)
        if not text.startswith(code_prefix):
            raise AssertionError(f"{what}: expected {code_prefix}, got {text!r}")
        return text
    raise AssertionError(f"{what}: expected {code_prefix} error, but it succeeded "
                         f"(returned {str(result)[:200]!r})")


# --------------------------------------------------------------------------------------------
# Runner
# --------------------------------------------------------------------------------------------

# A session process that died of a fault (a test's own SIGKILL is not one), or a sanitizer
# report from any gridftpd process: a test that passed its checks still fails on these.
_CRASH_RE = re.compile(r"session process \d+ ended by signal (4|6|7|8|11)\b"
                       r"|ERROR: AddressSanitizer|runtime error:|WARNING: ThreadSanitizer")


def _crash_lines(server: "ServerBase") -> list[str]:
    if server.kind != "gridftpd":
        return []
    return [line for line in server.log_lines if _CRASH_RE.search(line)]


def _crash_report(server: "ServerBase", lines: int = 200) -> str:
    """The log from the first crash line on: the sanitizer's report with its stacks."""
    for at, line in enumerate(server.log_lines):
        if _CRASH_RE.search(line):
            return "\n".join(server.log_lines[at:at + lines])
    return ""


def run_tests(namespace: dict) -> None:
    """Runs every test_* function of the module in definition order (or those named on the
    command line); prints PASS/FAIL for each; exits non-zero if any failed."""
    tests = [(name, fn) for name, fn in namespace.items()
             if name.startswith("test_") and callable(fn)]
    wanted = set(sys.argv[1:])
    if wanted:
        tests = [(n, f) for n, f in tests if n in wanted]
    failed = []
    for name, fn in tests:
        servers_before = len(_servers)
        started = time.monotonic()
        print(f"--- {name}", flush=True)
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - report everything, including KeyboardInterrupt
            failed.append(name)
            print(f"FAIL {name} ({time.monotonic() - started:.1f}s): "
                  f"{type(e).__name__}: {e}", flush=True)
            traceback.print_exc(file=sys.stdout)
            for server in _servers[servers_before:]:
                print(f"--- {server.kind} log tail (port {server.port}) ---")
                print(_tail(server.log_text(), 4000))
            if isinstance(e, KeyboardInterrupt):
                break
        else:
            for server in _servers[servers_before:]:
                server.stop()
            crashes = [line for server in _servers[servers_before:]
                       for line in _crash_lines(server)]
            if crashes:
                failed.append(name)
                print(f"FAIL {name} ({time.monotonic() - started:.1f}s): a gridftpd process "
                      f"crashed:\n" + "\n".join(crashes[:20]), flush=True)
                for server in _servers[servers_before:]:
                    print(_crash_report(server), flush=True)
            else:
                print(f"PASS {name} ({time.monotonic() - started:.1f}s)", flush=True)
        finally:
            for server in _servers[servers_before:]:
                server.stop()
    _kill_own_processes()
    total = len(tests)
    print(f"=== {total - len(failed)}/{total} passed"
          + (f"; failed: {', '.join(failed)}" if failed else ""), flush=True)
    sys.exit(1 if failed or not tests else 0)


# --------------------------------------------------------------------------------------------
# MODE E helpers (appended for the MODE E, third-party, restart and checksum suites)
# --------------------------------------------------------------------------------------------

def file_url(path: str) -> str:
    return "file://" + os.path.abspath(path)


def make_sparse_file(path: str, size: int, chunks: int = 7, seed: int = 0) -> str:
    """A "sparse-ish" file: truncate() to `size` (holes read as zeros), then a few random
    chunks (1 B .. 300 KiB) written at scattered offsets, always including the first and the
    last byte. Returns the SHA-256 of the whole file."""
    import random
    rng = random.Random(seed)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(size)
        if size:
            spots = [(0, min(size, 1 + rng.randrange(4096))), (size - 1, 1)]
            for _ in range(chunks):
                length = min(size, 1 + rng.randrange(300 * 1024))
                spots.append((rng.randrange(max(1, size - length + 1)), length))
            for offset, length in spots:
                f.seek(offset)
                f.write(rng.randbytes(length))
    return sha256_file(path)


_GRIDCP_DEBUG_LINE = re.compile(r"^debug: (?:src|dst|ctl)? ?\S+ (C|S): (.*)$")


def guc_dialogue(stderr: str) -> list[str]:
    """The control-channel dialogue from `globus-url-copy -dbg` or `gridcp -dbg` output: '>> CMD'
    for each command sent and '<< reply' for the first line of each reply received (gridcp
    prints every reply line: continuation lines, which start with a space, are left out)."""
    lines = stderr.splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.startswith("debug: sending command") and i + 1 < len(lines):
            out.append(">> " + lines[i + 1].strip())
        elif line.startswith("debug: response from") and i + 1 < len(lines):
            out.append("<< " + lines[i + 1].strip())
        elif match := _GRIDCP_DEBUG_LINE.match(line):
            sent, text = match.group(1) == "C", match.group(2)
            if sent:
                out.append(">> " + text.strip())
            elif text[:3].isdigit() and text[3:4] in (" ", "-", ""):
                out.append("<< " + text.strip())
    return out


def mode_e_header(desc: int, count: int, offset: int) -> bytes:
    """A GFD.20 extended block header: 1-byte descriptor, 64-bit count and offset (BE)."""
    return bytes([desc]) + count.to_bytes(8, "big") + offset.to_bytes(8, "big")


MODE_E_EOF, MODE_E_EOD, MODE_E_CLOSE = 0x40, 0x08, 0x04


def parse_pasv_reply(text: str) -> tuple[str, int]:
    m = re.search(r"(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)", text)
    if not m:
        raise AssertionError(f"unparsable PASV reply {text!r}")
    n = [int(x) for x in m.groups()]
    return ".".join(map(str, n[:4])), n[4] * 256 + n[5]


def read_final_reply(ctl: "RawControl", timeout: float = 60) -> tuple[int, str, list[str]]:
    """Reads replies until a non-1xx one; returns (code, text, [preliminary reply texts]).
    The timeout only catches hangs."""
    old = ctl.sock.gettimeout()
    ctl.sock.settimeout(timeout)
    prelims: list[str] = []
    try:
        while True:
            try:
                code, text = ctl.read_reply()
            except socket.timeout:
                raise AssertionError(f"no final reply within {timeout:.0f}s (preliminary "
                                     f"replies so far: {prelims})")
            if 100 <= code < 200:
                prelims.append(text)
                continue
            return code, text, prelims
    finally:
        ctl.sock.settimeout(old)


_CRC32C_TABLE: list[int] = []


def crc32c(data: bytes, crc: int = 0) -> int:
    """CRC-32C (Castagnoli, reflected 0x82F63B78), as in iSCSI/ext4; pure Python."""
    if not _CRC32C_TABLE:
        for n in range(256):
            c = n
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            _CRC32C_TABLE.append(c)
    table = _CRC32C_TABLE
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF
