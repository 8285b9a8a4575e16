"""A site swaps globus-gridftp-server for gridftpd and keeps everything else (issue 30,
acceptance 1 and 2): both servers are started as root with the same Globus command lines and
files and the same GSI environment (X509_USER_CERT/KEY, X509_CERT_DIR, GRIDMAP), and what a
client meets must match:
  * the addresses the control port listens on (Globus: every interface);
  * what `USER anonymous` gets, and what a plain `USER`/`PASS` of a system account gets (with
    GSI on and no anonymous access, Globus demands GSSAPI);
  * the owner of a file an anonymous client uploads (the anonymous account, never root).
Cases: a bare `-p`, `-aa -anonymous-user`, a Globus-format `-c` file, and Debian's service line
(`-S -c /etc/gridftp.conf -C /etc/gridftp.d -pidfile F`) with `$` environment lines.
Then acceptance 2: no route (TOML, Globus file, command line) starts gridftpd, as root, with a
kind of session that would run as root behind gridftpd's own path checks; each refusal names
the fix.
"""

import ftplib
import io
import os
import signal
import subprocess
import tempfile
import time

from gridftp_harness import (_read_greeting, _started_procs, ensure_globus_user, free_port,
                             give_to_globus_user, gridftpd_binary, make_temp_dir,
                             make_world_traversable, require_tool, run_tests, shared_test_pki,
                             wait_until, write_config)

UPLOAD = b"uploaded by an anonymous client\n" * 100


def site_environment() -> dict[str, str]:
    pki = shared_test_pki()
    make_world_traversable(pki.cert_dir)
    return dict(os.environ, GLOBUS_USAGE_OPTOUT="1", **pki.server_env())


def listening_addresses(port: int) -> list[str]:
    """The local addresses `ss` shows listening on `port` (e.g. ["*"], ["127.0.0.1"])."""
    out = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True,
                         check=True).stdout
    return sorted(line.split()[3].rsplit(":", 1)[0] for line in out.splitlines() if line.strip())


def alive(pid: int) -> bool:
    """A detached server is not our child: once it ends it may stay a zombie until whoever
    inherited it reaps it."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class Started:
    """A server started with `argv`; stopped by its pid, or the pid its -pidfile names."""

    def __init__(self, argv: list[str], env: dict[str, str], port: int,
                 pidfile: str | None = None):
        self.port = port
        self.pidfile = pidfile
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=env)
        _started_procs.append(self.proc)
        try:
            wait_until(lambda: (_read_greeting("127.0.0.1", port) or "").startswith("220"),
                       30, f"{argv[0]} greeting on port {port}")
        except AssertionError:
            self.stop()
            raise AssertionError(f"{' '.join(argv)} did not start: "
                                 f"{self.proc.stdout.read().decode(errors='replace')[-3000:]}")

    def stop(self) -> None:
        if self.pidfile and os.path.exists(self.pidfile):
            with open(self.pidfile) as f:
                pid = int(f.read().split()[0])
            if pid != os.getpid():
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                wait_until(lambda: not alive(pid), 20, f"pid {pid} to end")
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=20)


def final_reply(port: int, user: str, password: str) -> int:
    """The code of the last reply to USER (and PASS, unless USER was refused)."""
    ftp = ftplib.FTP()
    ftp.connect("127.0.0.1", port, timeout=30)
    try:
        reply = ftp.sendcmd(f"USER {user}")
        if reply.startswith("331"):
            reply = ftp.sendcmd(f"PASS {password}")
        return int(reply[:3])
    except ftplib.error_perm as e:
        return int(str(e)[:3])
    finally:
        ftp.close()


def anonymous_upload_owner(port: int, directory: str, name: str) -> str | None:
    """Uploads as anonymous; the owner's account name, or None when the login is refused."""
    ftp = ftplib.FTP()
    ftp.connect("127.0.0.1", port, timeout=30)
    try:
        ftp.login("anonymous", "site@example.org")
    except ftplib.error_perm:
        ftp.close()
        return None
    path = os.path.join(directory, name)
    ftp.storbinary(f"STOR {path}", io.BytesIO(UPLOAD))
    ftp.quit()
    with open(path, "rb") as f:
        assert f.read() == UPLOAD, f"upload through port {port} arrived damaged"
    import pwd
    return pwd.getpwuid(os.stat(path).st_uid).pw_name


def observe(name: str, argv: list[str], port: int, incoming: str,
            pidfile: str | None = None) -> dict:
    server = Started(argv, site_environment(), port, pidfile)
    try:
        return {
            "listening on": listening_addresses(port),
            "USER anonymous": final_reply(port, "anonymous", "site@example.org"),
            "USER/PASS of a system account": final_reply(port, ensure_globus_user().pw_name,
                                                          "not-its-password"),
            "owner of an anonymous upload": anonymous_upload_owner(port, incoming,
                                                                    f"up-{name}.txt"),
        }
    finally:
        server.stop()


def globus_cases(work: str):
    """(case, argv after the program, pidfile) for each way a site starts its server."""
    anonymous = ensure_globus_user().pw_name
    cases = []
    port = free_port()
    cases.append(("bare -p", ["-p", str(port)], port, None))
    port = free_port()
    cases.append(("-aa -anonymous-user", ["-p", str(port), "-aa", "-anonymous-user", anonymous],
                  port, None))
    port = free_port()
    conf = os.path.join(work, "gridftp-c.conf")
    with open(conf, "w") as f:
        f.write(f"# a site's file\nport {port}\nallow_anonymous 1\n"
                f"anonymous_user {anonymous}\n")
    cases.append(("-c FILE", ["-c", conf], port, None))
    # Debian's unit: -S -c /etc/gridftp.conf -C /etc/gridftp.d -pidfile F, a `$` line in it.
    port = free_port()
    etc = os.path.join(work, "etc")
    os.makedirs(os.path.join(etc, "gridftp.d"))
    with open(os.path.join(etc, "gridftp.conf"), "w") as f:
        f.write(f"port {port}\n$GLOBUS_TCP_PORT_RANGE 50000,50100\n")
    with open(os.path.join(etc, "gridftp.d", "anonymous"), "w") as f:
        f.write(f"allow_anonymous 1\nanonymous_user {anonymous}\n")
    pidfile = os.path.join(work, "server.pid")
    cases.append(("Debian service line",
                  ["-S", "-c", os.path.join(etc, "gridftp.conf"), "-C",
                   os.path.join(etc, "gridftp.d"), "-pidfile", pidfile], port, pidfile))
    return cases


def test_same_globus_start_same_defaults():
    assert os.geteuid() == 0, "sites start the server as root; so does this test"
    work = make_temp_dir("globus-defaults-")
    make_world_traversable(work)
    incoming = os.path.join(work, "incoming")
    os.makedirs(incoming)
    give_to_globus_user(incoming)
    binaries = {"globus": require_tool("globus-gridftp-server"), "gridftpd": gridftpd_binary()}
    anonymous = ensure_globus_user().pw_name
    for case, args, port, pidfile in globus_cases(work):
        seen = {}
        for name, binary in binaries.items():
            if pidfile and os.path.exists(pidfile):
                os.unlink(pidfile)
            # Each server gets the case's port in turn: the same words, the same port.
            seen[name] = observe(name, [binary] + args, port, incoming, pidfile)
            time.sleep(0.2)
        print(f"{case}: {seen['gridftpd']}", flush=True)
        assert seen["globus"] == seen["gridftpd"], (
            f"{case}: globus-gridftp-server and gridftpd differ:\n  globus:   {seen['globus']}\n"
            f"  gridftpd: {seen['gridftpd']}")
        # What they agree on is Globus's own behaviour, not an accident of both failing.
        anonymous_allowed = "-aa" in args or case != "bare -p"
        expected_owner = anonymous if anonymous_allowed else None
        assert seen["gridftpd"]["owner of an anonymous upload"] == expected_owner, (case, seen)
        assert seen["gridftpd"]["USER anonymous"] == (230 if anonymous_allowed else 530)
        assert seen["gridftpd"]["USER/PASS of a system account"] == 530


def refusal(argv: list[str], env: dict | None = None) -> str:
    """Runs gridftpd --check-config with `argv`; it must refuse; returns what it printed."""
    done = subprocess.run([gridftpd_binary(), "--check-config"] + argv, capture_output=True,
                          text=True, timeout=60, env=env or dict(os.environ))
    assert done.returncode != 0, f"gridftpd {' '.join(argv)} was accepted as root:\n{done.stdout}"
    return done.stdout + done.stderr


def test_no_route_starts_a_root_session_behind_path_checks():
    assert os.geteuid() == 0
    work = make_temp_dir("root-sessions-")
    anonymous_root = os.path.join(work, "public")
    users = os.path.join(work, "users")
    with open(users, "w") as f:
        f.write("")
    os.chmod(users, 0o600)
    clean_env = {k: v for k, v in os.environ.items()
                 if not k.startswith(("X509_", "GLOBUS_", "GRIDMAP"))}
    toml_cases = {
        "TOML anonymous without an account": {
            "listen": {"port": 0}, "tls": {"enabled": False},
            "anonymous": {"enabled": True, "root": anonymous_root, "account": ""}},
        "TOML anonymous as a uid-0 account": {
            "listen": {"port": 0}, "tls": {"enabled": False},
            "anonymous": {"enabled": True, "root": anonymous_root, "account": "root"}},
        "TOML local accounts without an account to run as": {
            "listen": {"port": 0}, "tls": {"enabled": False}, "anonymous": {"enabled": False},
            "accounts": {"password_file": users}},
        "TOML anonymous in one process": {
            "listen": {"port": 0}, "tls": {"enabled": False},
            "anonymous": {"enabled": True, "root": anonymous_root, "account": "nobody"},
            "gsi": {"enabled": False, "process_per_session": False}},
    }
    for case, sections in toml_cases.items():
        path = write_config(os.path.join(work, case.replace(" ", "-") + ".toml"), sections)
        text = refusal(["-c", path], clean_env)
        assert "account" in text or "process_per_session" in text, (
            f"{case}: the refusal does not name the fix:\n{text}")
    globus_file = os.path.join(work, "gridftp.conf")
    with open(globus_file, "w") as f:
        f.write("port 0\nallow_anonymous 1\n")
    text = refusal(["-c", globus_file], clean_env)
    assert "-anonymous-user" in text, text
    text = refusal(["-p", "0", "-aa"], clean_env)
    assert "-anonymous-user" in text, text
    text = refusal(["-p", "0", "-aa", "-anonymous-user", "root"], clean_env)
    assert "root account" in text, text
    # GSI on (a host credential in the environment) in one process: every session root.
    text = refusal(["-p", "0", "-no-fork"], site_environment())
    assert "GSI sessions would run as root" in text, text
    # The same routes with an unprivileged account are accepted: the refusals are about root.
    accepted = subprocess.run(
        [gridftpd_binary(), "--check-config", "-p", "0", "-aa", "-anonymous-user",
         ensure_globus_user().pw_name], capture_output=True, text=True, timeout=60,
        env=clean_env)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


if __name__ == "__main__":
    run_tests(globals())
