"""gridftpd started as a Debian site starts globus-gridftp-server (issue 13, acceptance 1 and 2).

Both servers get the same command line and the same environment, side by side, and the real
globus-url-copy (or a raw control connection) must see the same behaviour from each:
  * no gridftpd config at all, only Globus's options and the environment a site sets
    (X509_USER_CERT/X509_USER_KEY, X509_CERT_DIR, GRIDMAP, GLOBUS_TCP_PORT_RANGE): gsiftp://
    get and put of absolute paths, byte-identical, every passive port offered and every data
    connection `ss` sees on the server inside GLOBUS_TCP_PORT_RANGE (accepted) or
    GLOBUS_TCP_SOURCE_RANGE (opened by a MODE E sender);
  * `-aa -anonymous-user`: ftp:// get and put, uploads owned by the anonymous account, writes
    the account may not make refused;
  * `-restrict-paths`: the same allowed and refused gets, puts and filtered listing;
  * `-disable-command-list`: the same 500 reply;
  * `-i` behind an inetd stand-in; sessions starting in the home directory, `~`, `-home-dir`;
  * Debian's service line `-S -c FILE -C DIR -pidfile F` (gridftpd alone);
  * a Globus-format -c file and the same settings in TOML give the same `--print-config`.
"""

import os
import re
import signal
import socket
import subprocess
import threading

from gridftp_harness import (_started_procs, assert_file_digest, descendants, ensure_globus_user,
                             EstablishedPortWatch, free_port, give_to_globus_user, gridftpd_binary,
                             make_file, make_temp_dir, make_tree_readable, make_world_traversable,
                             MIB, RawControl, require_tool, run_peer, run_tests, shared_test_pki,
                             start_until_greeting, wait_until)

SIZE = 5 * MIB + 7
BIG_SIZE = 256 * MIB  # long enough for ss to catch the data connections
PASV_RE = re.compile(r"227 Entering Passive Mode \(\d+,\d+,\d+,\d+,(\d+),(\d+)\)")
EPSV_RE = re.compile(r"229 Entering Extended Passive Mode \(\|\|\|(\d+)\|\)")


def port_range():
    # Above the kernel's ephemeral range, so no outgoing connection can hold these ports; the
    # 20 after them are left free for a source range.
    low = 61000 + (os.getpid() * 7) % 4000
    return low, low + 19


def start_with_globus_command_line(binary: str, env: dict[str, str],
                                   extra: list[str] | None = None):
    """`binary -p PORT -control-interface 127.0.0.1 -d error -disable-usage-stats [extra]`, the
    same words for either server; returns (process, port) once it greets."""
    proc, port, _argv, _lines = start_until_greeting(
        lambda port: [binary, "-p", str(port), "-control-interface", "127.0.0.1", "-d", "error",
                      "-disable-usage-stats"] + (extra or []), env)
    return proc, port


def site_environment(pki, **variables: str) -> dict[str, str]:
    """The environment a GSI site starts its server with: the host credential, CAs and gridmap
    from the test PKI (its CA directory readable after the setuid), plus `variables`."""
    make_world_traversable(pki.cert_dir)
    return dict(os.environ, GLOBUS_USAGE_OPTOUT="1", **pki.server_env(), **variables)


def data_port_watch(server_pid: int, control_port: int) -> EstablishedPortWatch:
    """The local ports of every established TCP connection the server's processes hold while a
    transfer runs, apart from the control connection."""
    def select(connections):
        pids = set(descendants(server_pid))
        return [port for port, owners in connections if owners & pids and port != control_port]
    return EstablishedPortWatch(select)


def test_same_command_line_and_environment_serve_the_same_urls():
    pki = shared_test_pki()
    low, high = port_range()
    # MODE E senders connect out (a -p 4 get makes the server active): their source ports
    # come from GLOBUS_TCP_SOURCE_RANGE, the next 20 ports.
    source_low, source_high = high + 1, high + 20
    env = site_environment(pki, GLOBUS_TCP_PORT_RANGE=f"{low},{high}",
                           GLOBUS_TCP_SOURCE_RANGE=f"{source_low},{source_high}")
    work = make_temp_dir("dropin-")
    source = os.path.join(work, "data", "f.bin")
    digest = make_file(source, SIZE, seed=13)
    big = os.path.join(work, "data", "big.bin")
    big_digest = make_file(big, BIG_SIZE, seed=14)
    make_tree_readable(os.path.join(work, "data"))
    make_world_traversable(work)
    servers = {"globus": require_tool("globus-gridftp-server"), "gridftpd": gridftpd_binary()}
    for name, binary in servers.items():
        proc, port = start_with_globus_command_line(binary, env)
        try:
            incoming = os.path.join(work, f"incoming-{name}")
            os.makedirs(incoming)
            give_to_globus_user(incoming, pki.account)
            base = f"gsiftp://127.0.0.1:{port}"
            local = os.path.join(make_temp_dir("dropin-get-"), "got.bin")
            with data_port_watch(proc.pid, port) as watch:
                # The big file, so that its passive connection lives long enough for ss to see
                # it even on a loaded machine.
                got = run_peer(["globus-url-copy", "-dbg", base + big, "file://" + local],
                               env=dict(os.environ, **pki.client_env("test")), timeout=120,
                               what=f"{name}: gsiftp get of an absolute path")
                assert_file_digest(local, big_digest, f"{name}: get")
                put = run_peer(["globus-url-copy", "-dbg", "-p", "2", "file://" + source,
                                f"{base}{incoming}/put.bin"],
                               env=dict(os.environ, **pki.client_env("test")), timeout=120,
                               what=f"{name}: gsiftp put -p 2")
                big_local = os.path.join(make_temp_dir("dropin-get-big-"), "big.bin")
                run_peer(["globus-url-copy", "-p", "4", base + big, "file://" + big_local],
                         env=dict(os.environ, **pki.client_env("test")), timeout=120,
                         what=f"{name}: gsiftp get -p 4 of {BIG_SIZE} bytes")
            assert_file_digest(os.path.join(incoming, "put.bin"), digest, f"{name}: put")
            assert_file_digest(big_local, big_digest, f"{name}: get -p 4")
            assert watch.ports, f"{name}: ss saw no data connection of the server"
            assert all(low <= p <= source_high for p in watch.ports), (
                f"{name}: ss saw data connections on local ports {sorted(watch.ports)}, outside "
                f"GLOBUS_TCP_PORT_RANGE {low},{high} and GLOBUS_TCP_SOURCE_RANGE "
                f"{source_low},{source_high}")
            assert any(low <= p <= high for p in watch.ports), (
                f"{name}: ss saw no passive data connection: {sorted(watch.ports)}")
            offered = [int(a) * 256 + int(b) for a, b in PASV_RE.findall(got.output + put.output)]
            offered += [int(p) for p in EPSV_RE.findall(got.output + put.output)]
            assert offered, f"{name}: no passive reply in the -dbg output\n{got.describe()}"
            outside = [p for p in offered if not low <= p <= high]
            assert not outside, (f"{name}: passive ports {outside} outside "
                                 f"GLOBUS_TCP_PORT_RANGE {low},{high}")
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def test_anonymous_ftp_with_the_same_command_line():
    """`-aa -anonymous-user gftest` on both, started as root: ftp:// URLs with absolute paths get
    and put the same files, and uploads belong to the anonymous account on both."""
    pki = shared_test_pki()
    env = site_environment(pki)
    work = make_temp_dir("dropin-anon-")
    digest = make_file(os.path.join(work, "data", "f.bin"), SIZE, seed=19)
    make_tree_readable(work)
    make_world_traversable(work)
    anonymous = ensure_globus_user()
    for name, binary in (("globus", require_tool("globus-gridftp-server")),
                         ("gridftpd", gridftpd_binary())):
        incoming = os.path.join(work, f"incoming-{name}")
        os.makedirs(incoming)
        give_to_globus_user(incoming)
        proc, port = start_with_globus_command_line(
            binary, env, ["-aa", "-anonymous-user", anonymous.pw_name])
        try:
            base = f"ftp://127.0.0.1:{port}"
            local = os.path.join(make_temp_dir("dropin-anon-get-"), "got.bin")
            run_peer(["globus-url-copy", f"{base}{work}/data/f.bin", "file://" + local],
                     timeout=120, what=f"{name}: anonymous ftp get of an absolute path")
            assert_file_digest(local, digest, f"{name}: anonymous get")
            run_peer(["globus-url-copy", "file://" + local, f"{base}{incoming}/put.bin"],
                     timeout=120, what=f"{name}: anonymous ftp put")
            assert_file_digest(os.path.join(incoming, "put.bin"), digest, f"{name}: put")
            owner = os.stat(os.path.join(incoming, "put.bin")).st_uid
            assert owner == anonymous.pw_uid, (f"{name}: the upload belongs to uid {owner}, not "
                                               f"the anonymous account {anonymous.pw_uid}")
            refused = run_peer(["globus-url-copy", "file://" + local, f"{base}{work}/data/x.bin"],
                               timeout=120, expect_rc=None, what=f"{name}: put where the "
                               "anonymous account may not write")
            assert refused.rc != 0 and not os.path.exists(f"{work}/data/x.bin"), (
                f"{name}: a put into a directory the anonymous account cannot write succeeded")
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def test_disabled_commands_are_refused_as_globus_refuses_them():
    """`-disable-command-list DELE,mkd`: both servers answer those verbs with the same 500 and
    go on serving."""
    replies = {}
    for name, binary in (("globus", require_tool("globus-gridftp-server")),
                         ("gridftpd", gridftpd_binary())):
        proc, port = start_with_globus_command_line(
            binary, dict(os.environ, GLOBUS_USAGE_OPTOUT="1"),
            ["-aa", "-anonymous-user", ensure_globus_user().pw_name,
             "-disable-command-list", "DELE,mkd"])
        try:
            ctl = RawControl("127.0.0.1", port)
            ctl.cmd("USER anonymous")
            ctl.cmd("PASS x")
            replies[name] = [ctl.cmd(line) for line in ("DELE /tmp/none", "MKD /tmp/none",
                                                        "NOOP")]
            ctl.close()
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    assert replies["gridftpd"] == replies["globus"], replies
    assert [code for code, _ in replies["gridftpd"]] == [500, 500, 200], replies


def test_sessions_start_in_the_home_directory_and_tilde_names_it():
    """Globus starts a session of an account in its home directory, and "~" names it: PWD, CWD ~
    and a get of ~/file agree on both servers; -home-dir names another start for everybody."""
    account = ensure_globus_user()
    name = f"dropin-home-{os.getpid()}.bin"
    in_home = os.path.join(account.pw_dir, name)
    digest = make_file(in_home, 1000 + os.getpid() % 100, seed=29)
    os.chown(in_home, account.pw_uid, account.pw_gid)
    other = make_temp_dir("dropin-home-dir-")
    make_world_traversable(other)
    seen = {}
    try:
        for server, binary in (("globus", require_tool("globus-gridftp-server")),
                               ("gridftpd", gridftpd_binary())):
            for extra in ([], ["-home-dir", other]):
                proc, port = start_with_globus_command_line(
                    binary, dict(os.environ, GLOBUS_USAGE_OPTOUT="1"),
                    ["-aa", "-anonymous-user", account.pw_name] + extra)
                try:
                    ctl = RawControl("127.0.0.1", port)
                    ctl.cmd("USER anonymous")
                    ctl.cmd("PASS x")
                    replies = [ctl.cmd("PWD")[1], ctl.cmd("CWD /")[0], ctl.cmd("CWD ~")[0],
                               ctl.cmd("PWD")[1]]
                    ctl.close()
                    seen[(server, bool(extra))] = replies
                    if not extra:
                        local = os.path.join(make_temp_dir("dropin-home-get-"), name)
                        run_peer(["globus-url-copy", f"ftp://127.0.0.1:{port}/~/{name}",
                                  "file://" + local], timeout=60, what=f"{server}: get ~/{name}")
                        assert_file_digest(local, digest, f"{server}: get of ~/{name}")
                finally:
                    proc.terminate()
                    proc.wait(timeout=20)
    finally:
        os.unlink(in_home)
    for with_home_dir in (False, True):
        assert seen[("gridftpd", with_home_dir)] == seen[("globus", with_home_dir)], seen
    assert account.pw_dir in seen[("gridftpd", False)][0], seen
    assert other in seen[("gridftpd", True)][0], seen


def test_debian_service_command_line():
    """Debian's unit runs `-S -c /etc/gridftp.conf -C /etc/gridftp.d -pidfile FILE`: gridftpd
    detaches, writes its PID there, and serves what the files say (the directory's first,
    the main file over it)."""
    work = make_temp_dir("dropin-service-")
    conf_dir = os.path.join(work, "gridftp.d")
    os.makedirs(conf_dir)
    port = free_port()
    with open(os.path.join(work, "gridftp.conf"), "w") as f:
        f.write(f"# /etc/gridftp.conf\nport {port}\ncontrol_interface 127.0.0.1\n")
    with open(os.path.join(conf_dir, "anonymous"), "w") as f:
        f.write(f"allow_anonymous 1\nanonymous_user {ensure_globus_user().pw_name}\n"
                "banner \"site DTN\"\nport 1\n")
    with open(os.path.join(conf_dir, "anonymous.dpkg-old"), "w") as f:
        f.write("no_such_option 1\n")
    pidfile = os.path.join(work, "gridftpd.pid")
    launcher = subprocess.run([gridftpd_binary(), "-S", "-c", os.path.join(work, "gridftp.conf"),
                               "-C", conf_dir, "-pidfile", pidfile], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
    assert launcher.returncode == 0, f"gridftpd -S exited with {launcher.returncode}"
    pid = int(wait_until(lambda: os.path.exists(pidfile) and open(pidfile).read().strip(), 10,
                         "the pid file"))
    try:
        assert os.path.exists(f"/proc/{pid}"), "the pid file names no running process"
        ctl = RawControl("127.0.0.1", port)
        assert "site DTN" in ctl.greeting[1], ctl.greeting
        ctl.expect("USER anonymous", 331)
        ctl.expect("PASS x", 230)
        ctl.close()
    finally:
        os.kill(pid, signal.SIGTERM)
        wait_until(lambda: not os.path.exists(f"/proc/{pid}") or
                   open(f"/proc/{pid}/stat").read().split()[2] == "Z", 20, "gridftpd to stop")


def guc_ok(args: list[str], what: str) -> tuple[bool, str]:
    pki = shared_test_pki()
    result = run_peer(["globus-url-copy"] + args, env=pki.client_env("test"), timeout=120,
                      expect_rc=None, what=what)
    return result.rc == 0, result.output


def test_restrict_paths_confine_sessions_as_globus_does():
    """`-rp R<work>/data,RW<work>/incoming`: absolute URLs unchanged, reads only in R trees,
    writes only in W trees, and a listing of <work> shows only the ways to them, on both."""
    pki = shared_test_pki()
    env = site_environment(pki)
    work = make_temp_dir("dropin-rp-")
    digest = make_file(os.path.join(work, "data", "f.bin"), SIZE, seed=17)
    make_file(os.path.join(work, "outside", "o.bin"), 1000, seed=18)
    make_tree_readable(work)
    make_world_traversable(work)
    rp = ["-rp", f"R{work}/data,RW{work}/incoming"]
    outcomes = {}
    for name, binary in (("globus", require_tool("globus-gridftp-server")),
                         ("gridftpd", gridftpd_binary())):
        incoming = os.path.join(work, "incoming")
        subprocess.run(["rm", "-rf", incoming], check=True)
        os.makedirs(incoming)
        give_to_globus_user(incoming, pki.account)
        proc, port = start_with_globus_command_line(binary, env, rp)
        try:
            base = f"gsiftp://127.0.0.1:{port}"
            out_dir = make_temp_dir("dropin-rp-out-")
            got = {}
            got["get allowed"], _ = guc_ok([f"{base}{work}/data/f.bin",
                                            f"file://{out_dir}/f.bin"], f"{name}: get in R tree")
            if got["get allowed"]:
                assert_file_digest(f"{out_dir}/f.bin", digest, f"{name}: get in the R tree")
            got["get outside"], _ = guc_ok([f"{base}{work}/outside/o.bin",
                                            f"file://{out_dir}/o.bin"], f"{name}: get outside")
            got["put allowed"], _ = guc_ok([f"file://{work}/data/f.bin",
                                            f"{base}{work}/incoming/p.bin"], f"{name}: put in W")
            if got["put allowed"]:
                assert_file_digest(f"{work}/incoming/p.bin", digest, f"{name}: put in the W tree")
            got["put in R tree"], _ = guc_ok([f"file://{work}/data/f.bin",
                                              f"{base}{work}/data/p.bin"], f"{name}: put in R")
            ok, listing = guc_ok(["-list", f"{base}{work}/"], f"{name}: list the parent")
            got["parent listing"] = ok and sorted(
                line.strip().rstrip("/") for line in listing.splitlines()
                if line.strip() and not line.startswith("gsiftp://"))
            outcomes[name] = got
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    expected = {"get allowed": True, "get outside": False, "put allowed": True,
                "put in R tree": False, "parent listing": ["data", "incoming"]}
    for name, got in outcomes.items():
        assert got == expected, f"{name} under -rp: {got}, expected {expected}"


def test_globus_config_file_and_toml_give_the_same_settings():
    ensure_globus_user()
    work = make_temp_dir("dropin-conf-")
    globus_conf = os.path.join(work, "gridftp.conf")
    with open(globus_conf, "w") as f:
        f.write("# as a site writes it\nport 2812\nthreads 3\nconnections_max 50\n"
                "port_range 50000,50100\nallow_anonymous 1\nbanner \"Site DTN\"\n"
                "log_level WARN,ERROR\nanonymous_user gftest\n")
    toml_conf = os.path.join(work, "gridftpd.toml")
    with open(toml_conf, "w") as f:
        f.write("[listen]\ncontrol_interface = \"::\"\nport = 2812\npassive_port_min = 50000\n"
                "passive_port_max = 50100\n"
                "[server]\nthreads = 3\nbanner = \"Site DTN\"\n[limits]\nmax_sessions = 50\n"
                "[anonymous]\nenabled = true\nroot = \"/\"\nwritable = [\".\"]\n"
                "account = \"gftest\"\n[logging]\nlevel = \"warn\"\n"
                "transfer_log_format = \"netlogger\"\n")
    # A Globus-format file applies over Globus's defaults (every interface, no FTPS), and its
    # -aa users see the real "/" as on Globus: the TOML spells out what differs from gridftpd's.
    printed = {}
    for name, path in (("globus", globus_conf), ("toml", toml_conf)):
        printed[name] = run_peer([gridftpd_binary(), "-c", path, "--print-config"],
                                 timeout=30, what=f"--print-config with the {name} file").output
    assert printed["globus"] == printed["toml"], (
        f"the Globus-format file and the TOML differ:\n--- globus\n{printed['globus']}\n"
        f"--- toml\n{printed['toml']}")
    assert "port = 2812" in printed["toml"] and "threads = 3" in printed["toml"]


def test_refused_options_stop_the_server_naming_them():
    result = run_peer([gridftpd_binary(), "-p", "0", "-chroot-path", "/srv"], timeout=30,
                      expect_rc=None, what="gridftpd -chroot-path")
    assert result.rc != 0 and "chroot_path" in result.output, result.describe()
    # -r is taken (a frontend), but not without the host certificate its movers check.
    result = run_peer([gridftpd_binary(), "-p", "0", "-aa", "-anonymous-user", "nobody", "-r",
                       "dtn1:6001"], timeout=30,
                      expect_rc=None, what="gridftpd -r without GSI")
    assert result.rc != 0 and "[striping] needs [gsi]" in result.output, result.describe()


def serve_one_connection_inetd_style(argv: list[str], env: dict[str, str]):
    """What inetd does: accept one connection and start `argv` with it as stdin, stdout and
    stderr. Returns (port, thread); the thread ends when the server process does."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def run():
        conn, _ = listener.accept()
        listener.close()
        proc = subprocess.Popen(argv, stdin=conn.fileno(), stdout=conn.fileno(),
                                stderr=conn.fileno(), env=env)
        _started_procs.append(proc)
        conn.close()
        proc.wait(timeout=120)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return port, thread


def test_inetd_mode_serves_the_connection_on_stdin():
    """`-i -aa -anonymous-user gftest` under an inetd stand-in: globus-url-copy gets the same
    file from both servers, and the process ends with the session."""
    work = make_temp_dir("dropin-inetd-")
    digest = make_file(os.path.join(work, "data", "f.bin"), SIZE, seed=23)
    make_tree_readable(work)
    make_world_traversable(work)
    env = dict(os.environ, GLOBUS_USAGE_OPTOUT="1")
    for name, binary in (("globus", require_tool("globus-gridftp-server")),
                         ("gridftpd", gridftpd_binary())):
        argv = [binary, "-i", "-aa", "-anonymous-user", ensure_globus_user().pw_name, "-d",
                "error", "-disable-usage-stats"]
        port, thread = serve_one_connection_inetd_style(argv, env)
        local = os.path.join(make_temp_dir("dropin-inetd-get-"), "got.bin")
        run_peer(["globus-url-copy", f"ftp://127.0.0.1:{port}{work}/data/f.bin",
                  "file://" + local], timeout=120, what=f"{name}: get through inetd mode")
        assert_file_digest(local, digest, f"{name}: inetd get")
        thread.join(timeout=60)
        assert not thread.is_alive(), f"{name}: the inetd-mode server outlived its session"


if __name__ == "__main__":
    run_tests(globals())
