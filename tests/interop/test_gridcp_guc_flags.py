"""gridcp takes what users type to globus-url-copy (issue: "Every flag in `globus-url-copy -help`
output given to gridcp works or is refused by name with a reason; `-rp` and other unknown words
are never split").

  * every flag that the installed `globus-url-copy -help` lists is given to gridcp, with a
    plausible value where it takes one, on a gsiftp:// get from a GSI gridftpd (throwaway PKI):
    either gridcp refuses it by name with a reason ("option -rp is not supported: ...",
    exit 1, nothing copied), or it works -- the copy is byte-identical, or the flag's own effect
    is checked (-len 2K copies 2048 bytes, -list lists, -c goes on past a failed file, -version
    prints the version, ...). The flags the issue names must work, not be refused;
  * unknown one-dash words (-xyz, -foo, -vr) are "unknown option <word>", never CLI11's bundled
    short flags; -rp (a guc flag gridcp lacks) is refused whole, never read as -r -p;
  * -s/-ss/-ds: a server reached as 127.0.0.1 whose certificate says CN=localhost is refused
    without them, reached with its subject, refused with a wrong subject; -ss and -ds cover
    only their own end, -s both (also in a third-party copy);
  * sizes take K/M/G: -tcp-bs 4M reaches the server as 4194304 bytes, -bs 4k with -p 2, and a
    bad size is refused naming its flag;
  * -ipv6 gets from a gridftpd listening on ::1 (EPSV in stream mode, EPRT with -p 2).
"""

import os
import re
import subprocess

from gridftp_harness import (assert_file_digest, file_url, gridcp_binary, make_file,
                             make_temp_dir, make_tree_readable, require_tool, run_peer, run_tests,
                             sha256_file, shared_test_pki, start_gridftpd)
from test_pki import HOST_DN

SIZE = 10 * 1024 + 7
WRONG_DN = "/O=Grid/OU=Test/CN=not-this-host"


def gsi_server():
    """A GSI gridftpd with data/src.bin (readable by the mapped account) and incoming/."""
    server = start_gridftpd(gsi=shared_test_pki())
    server.digest = make_file(server.fs("data/src.bin"), SIZE, seed=71)
    make_file(server.fs("data/tree/a.bin"), 3000, seed=72)
    make_file(server.fs("data/tree/sub/b.bin"), 5000, seed=73)
    make_tree_readable(server.fs("data"))
    return server


def gridcp(args: list[str], what: str, expect_rc: int | None = 0, env: dict | None = None):
    return run_peer([gridcp_binary()] + args, timeout=60, what=what, expect_rc=expect_rc,
                    env=env if env is not None else shared_test_pki().client_env("test"))


def by_address(server, rel: str) -> str:
    """The URL of `rel` with the server's address as host, which its certificate does not name."""
    return f"gsiftp://127.0.0.1:{server.port}{server.path(rel)}"


def guc_help_flags() -> list[str]:
    """Every flag name in `globus-url-copy -help`: the option lines are indented two spaces and
    give the names joined by '|' ("  -tcp-bs <size> | -tcp-buffer-size <size>")."""
    require_tool("globus-url-copy")
    done = subprocess.run(["globus-url-copy", "-help"], capture_output=True, text=True,
                          timeout=30)
    text = done.stdout + done.stderr  # 10.12 prints its help on stderr
    flags = []
    for line in text.splitlines():
        if not re.match(r"^  -\S", line):
            continue
        for part in line.split("|"):
            name = part.split()[0].rstrip(".")
            assert name.startswith("-"), f"cannot read the option line {line!r}"
            flags.append(name)
    assert len(flags) > 90 and "-tcp-bs" in flags and "-rp" in flags, (
        f"globus-url-copy -help gave too few flags: {flags}\n{text}")
    return flags


# Plausible values for the flags that take one; a flag not here takes none.
VALUES = {
    "-f": None,  # the pairs file, written per run
    "-t": "5", "-rst-retries": "2", "-rst-interval": "1", "-rst-timeout": "30",
    "-stall-timeout": "0", "-st": "0",
    "-df": "/nonexistent/dump", "-dumpfile": "/nonexistent/dump", "-do": "/nonexistent/dump",
    "-dump-only": "/nonexistent/dump",
    "-s": HOST_DN, "-subject": HOST_DN, "-ss": HOST_DN, "-source-subject": HOST_DN,
    "-ds": HOST_DN, "-dest-subject": HOST_DN,
    "-tcp-bs": "4M", "-tcp-buffer-size": "64K", "-bs": "64K", "-block-size": "1M",
    "-p": "2", "-parallel": "2", "-off": "1K", "-partial-offset": "1k", "-len": "2K",
    "-partial-length": "2k", "-list": None, "-striped-block-size": "0", "-sbs": "0",
    "-mn": "file", "-module-name": "file", "-mp": "x", "-module-parameters": "x",
    "-smn": "file", "-src-module-name": "file", "-smp": "x", "-src-module-parameters": "x",
    "-dmn": "file", "-dst-module-name": "file", "-dmp": "x", "-dst-module-parameters": "x",
    "-aa": "/dev/null", "-authz-assert": "/dev/null", "-saa": "/dev/null",
    "-src-authz-assert": "/dev/null", "-daa": "/dev/null", "-dst-authz-assert": "/dev/null",
    "-concurrency": "2", "-cc": "2",
    "-src-pipe": "cat", "-SP": "cat", "-dst-pipe": "cat", "-DP": "cat", "-pipe": "cat",
    "-dcstack": "tcp,gsi", "-data-channel-stack": "tcp,gsi", "-fsstack": "file",
    "-file-system-stack": "file", "-src-dcstack": "tcp", "-source-data-channel-stack": "tcp",
    "-src-fsstack": "file", "-source-file-system-stack": "file", "-dst-dcstack": "tcp",
    "-dest-data-channel-stack": "tcp", "-dst-fsstack": "file", "-dest-file-system-stack": "file",
    "-cred": None,  # the user's proxy
    "-src-cred": "/dev/null", "-sc": "/dev/null", "-dst-cred": "/dev/null", "-dc": "/dev/null",
    "-data-cred": "auto", "-af": "/dev/null", "-alias-file": "/dev/null",
    "-sync-level": "1", "-checksum-alg": "SHA256",
}

# What the issue asks to work: never refused.
MUST_WORK = {"-version", "-ipv6", "-st", "-stall-timeout", "-c", "-continue-on-error", "-s",
             "-subject", "-ss", "-source-subject", "-ds", "-dest-subject", "-tcp-bs", "-bs",
             "-off", "-len", "-help", "-p", "-vb", "-f", "-r", "-list", "-cred"}


def check_copied(server, dest: str, result, what: str) -> None:
    assert result.rc == 0, f"{what}: failed\n{result.describe()}"
    assert_file_digest(dest, server.digest, f"{what}\n{result.describe()}")


def run_accepted(server, flag: str, value: str | None, out: str) -> None:
    """Runs `flag` where it means something and checks that it did what guc's does."""
    what = f"gridcp {flag}"
    name = flag.lstrip("-")
    args = [flag] + ([value] if value is not None else [])
    dest = os.path.join(out, f"{name}.bin")
    source = server.gsiftp_url("data/src.bin")
    if name in ("help", "usage"):
        result = gridcp(args, what)
        assert "Usage: gridcp" in result.stdout, result.describe()
    elif name == "version":
        result = gridcp(args, what)
        assert re.fullmatch(r"gridcp \d+\.\d+\.\d+\n", result.stdout), result.describe()
    elif name == "versions":
        result = gridcp(args, what)
        assert "gridcp: " in result.stdout and "CLI11: " in result.stdout, result.describe()
    elif name in ("c", "continue-on-error"):
        # guc -c: go on after a failed file, say which failed, exit non-zero.
        pairs = os.path.join(out, f"{name}.pairs")
        with open(pairs, "w") as f:
            f.write(f"{server.gsiftp_url('data/missing.bin')} {file_url(dest + '.missing')}\n")
            f.write(f"{source} {file_url(dest)}\n")
        result = gridcp([flag, "-f", pairs], what, expect_rc=-1)
        assert "missing.bin" in result.stderr, result.describe()
        assert_file_digest(dest, server.digest, result.describe())
    elif name == "f":
        pairs = os.path.join(out, "f.pairs")
        with open(pairs, "w") as f:
            f.write(f"# one pair\n{source} {file_url(dest)}\n")
        check_copied(server, dest, gridcp([flag, pairs], what), what)
    elif name in ("r", "recurse"):
        tree = os.path.join(out, f"{name}-tree") + "/"
        result = gridcp([flag, server.gsiftp_url("data/tree/"), file_url(tree)], what)
        assert_file_digest(os.path.join(tree, "sub/b.bin"),
                           sha256_file(server.fs("data/tree/sub/b.bin")), result.describe())
    elif name in ("cd", "create-dest"):
        deep = os.path.join(out, f"{name}-new", "sub", "x.bin")
        check_copied(server, deep, gridcp([flag, source, file_url(deep)], what), what)
    elif name == "list":
        result = gridcp([flag, server.gsiftp_url("data/")], what)
        assert "src.bin" in result.stdout, result.describe()
    elif name in ("off", "partial-offset", "len", "partial-length"):
        result = gridcp(args + [source, file_url(dest)], what)
        with open(server.fs("data/src.bin"), "rb") as f:
            whole = f.read()
        with open(dest, "rb") as f:
            got = f.read()
        if name.endswith("len") or name.endswith("length"):
            assert got == whole[:2048], f"{what} 2K: {len(got)} bytes\n{result.describe()}"
        else:  # guc writes the range at its offset in the destination
            assert got[1024:] == whole[1024:], f"{what} 1K: {len(got)} B\n{result.describe()}"
    elif name in ("s", "subject", "ss", "source-subject"):
        # The URL names 127.0.0.1, which the certificate (CN=localhost) does not.
        result = gridcp(args + [by_address(server, "data/src.bin"), file_url(dest)], what)
        check_copied(server, dest, result, what)
    elif name in ("ds", "dest-subject"):
        local = os.path.join(out, "put-source.bin")
        digest = make_file(local, SIZE, seed=74)
        gridcp(args + [file_url(local), by_address(server, f"incoming/{name}.bin")], what)
        assert_file_digest(server.fs(f"incoming/{name}.bin"), digest, what)
    elif name == "cred":
        env = {"X509_CERT_DIR": shared_test_pki().cert_dir,
               "X509_USER_PROXY": "/nonexistent/proxy"}
        result = gridcp([flag, shared_test_pki().user("test").proxy, source, file_url(dest)],
                        what, env=env)
        check_copied(server, dest, result, what)
    else:
        extra = {"checksum-alg": ["-verify-checksum"], "sync-level": ["-sync"],
                 "rst-retries": ["-rst"], "rst-interval": ["-rst"],
                 "rst-timeout": ["-rst"]}.get(name, [])
        check_copied(server, dest, gridcp(args + extra + [source, file_url(dest)], what,
                                          expect_rc=None), what)


def test_every_guc_help_flag_works_or_is_refused_by_name():
    server = gsi_server()
    out = make_temp_dir("gridcp-guc-flags-")
    refused = []
    for flag in guc_help_flags():
        value = VALUES.get(flag)
        takes_value = flag in VALUES
        dest = os.path.join(out, "refused" + flag + ".bin")
        args = [flag] + ([value or "x"] if takes_value else [])
        probe = gridcp(args + [server.gsiftp_url("data/src.bin"), file_url(dest)],
                       f"gridcp {flag}", expect_rc=None)
        if f"option {flag} is not supported: " in probe.stderr:
            reason = probe.stderr.split("is not supported: ", 1)[1].strip()
            assert probe.rc != 0 and len(reason) > 10, f"{flag}: no reason\n{probe.describe()}"
            assert not os.path.exists(dest), f"{flag}: refused but copied\n{probe.describe()}"
            assert flag not in MUST_WORK, f"{flag} must work\n{probe.describe()}"
            refused.append(flag)
            continue
        # Not refused: never a generic CLI11 complaint, and the flag must do its job.
        assert "argument" not in probe.stderr and "unknown option" not in probe.stderr, (
            f"{flag}: neither accepted nor refused by name\n{probe.describe()}")
        run_accepted(server, flag, value, out)
    print(f"refused by name: {' '.join(refused)}")
    assert "-rp" in refused and "-stripe" not in refused


def test_unknown_words_are_refused_whole():
    server = gsi_server()
    out = make_temp_dir("gridcp-unknown-")
    for word in ("-xyz", "-foo", "-vr", "-rx", "-p4"):
        dest = os.path.join(out, word + ".bin")
        result = gridcp([word, server.gsiftp_url("data/src.bin"), file_url(dest)],
                        f"gridcp {word}", expect_rc=1)
        assert f"gridcp: error: unknown option {word} " in result.stderr, result.describe()
        assert not os.path.exists(dest), result.describe()
    # -rp is guc's -relative-paths: refused as itself, not as -r and -p.
    result = gridcp(["-rp", server.gsiftp_url("data/"), file_url(out + "/rp/")], "gridcp -rp",
                    expect_rc=1)
    assert "option -rp is not supported: " in result.stderr, result.describe()
    assert "-p" not in result.stderr.replace("-rp", ""), result.describe()
    assert not os.path.exists(os.path.join(out, "rp")), result.describe()


def test_subject_replaces_the_host_check():
    server = gsi_server()
    out = make_temp_dir("gridcp-subject-")
    url = by_address(server, "data/src.bin")
    dest = os.path.join(out, "plain.bin")
    result = gridcp([url, file_url(dest)], "no subject, 127.0.0.1 vs CN=localhost", expect_rc=1)
    assert "is not for host 127.0.0.1" in result.stderr, result.describe()
    assert not os.path.exists(dest), result.describe()

    for flag in ("-ss", "-s", "-source-subject"):
        dest = os.path.join(out, f"right{flag}.bin")
        check_copied(server, dest, gridcp([flag, HOST_DN, url, file_url(dest)], flag), flag)
        dest = os.path.join(out, f"wrong{flag}.bin")
        result = gridcp([flag, WRONG_DN, url, file_url(dest)], f"{flag} wrong", expect_rc=1)
        assert f"is not the expected subject {WRONG_DN}" in result.stderr, result.describe()
        assert not os.path.exists(dest), result.describe()

    # -ds is the destination's subject only: the source's is still its host.
    local = os.path.join(out, "local.bin")
    digest = make_file(local, SIZE, seed=74)
    target = by_address(server, "incoming/ds.bin")
    gridcp(["-ds", HOST_DN, file_url(local), target], "-ds put")
    assert_file_digest(server.fs("incoming/ds.bin"), digest, "-ds put")
    result = gridcp(["-ss", HOST_DN, file_url(local), by_address(server, "incoming/ss.bin")],
                    "-ss does not cover the destination", expect_rc=1)
    assert "is not for host 127.0.0.1" in result.stderr, result.describe()
    result = gridcp(["-ds", WRONG_DN, file_url(local), target], "-ds wrong", expect_rc=1)
    assert WRONG_DN in result.stderr, result.describe()

    # Third-party: -s covers both servers, -ss only the source.
    other = gsi_server()
    gridcp(["-s", HOST_DN, url, by_address(other, "incoming/tp.bin")], "-s third-party")
    assert_file_digest(other.fs("incoming/tp.bin"), server.digest, "-s third-party")
    result = gridcp(["-ss", HOST_DN, url, by_address(other, "incoming/tp2.bin")],
                    "-ss third-party", expect_rc=1)
    assert f"127.0.0.1:{other.port}" in result.stderr, result.describe()
    assert not os.path.exists(other.fs("incoming/tp2.bin")), result.describe()


def test_sizes_take_k_m_g():
    server = gsi_server()
    out = make_temp_dir("gridcp-sizes-")
    dest = os.path.join(out, "tcp.bin")
    result = gridcp(["-dbg", "-tcp-bs", "4M", server.gsiftp_url("data/src.bin"), file_url(dest)],
                    "-tcp-bs 4M")
    assert re.search(r"(SBUF|RETRBUFSIZE) 4194304\b", result.stderr), result.describe()
    check_copied(server, dest, result, "-tcp-bs 4M")
    local = os.path.join(out, "put.bin")
    digest = make_file(local, SIZE, seed=74)
    gridcp(["-bs", "4k", "-p", "2", file_url(local), server.gsiftp_url("incoming/bs.bin")],
           "-bs 4k -p 2")
    assert_file_digest(server.fs("incoming/bs.bin"), digest, "-bs 4k -p 2")
    for flag in ("-tcp-bs", "-bs", "-off", "-len"):
        result = gridcp([flag, "1x", server.gsiftp_url("data/src.bin"), file_url(dest + "x")],
                        f"{flag} 1x", expect_rc=1)
        assert f"bad {flag} '1x'" in result.stderr, result.describe()
    result = gridcp(["-len", "1K", file_url(local), file_url(dest + "local")], "-len file://",
                    expect_rc=1)
    assert "-off and -len apply to copies to or from a server" in result.stderr, result.describe()


def test_ipv6_reaches_a_server_on_an_ipv6_address():
    # guc -ipv6: "use ipv6 when available". gridcp always does; EPSV/EPRT carry the addresses.
    server = start_gridftpd(listen={"control_interface": "::1"})
    digest = make_file(server.fs("data/v6.bin"), SIZE, seed=75)
    out = make_temp_dir("gridcp-ipv6-")
    for extra in ([], ["-p", "2"]):
        dest = os.path.join(out, f"v6{len(extra)}.bin")
        result = gridcp(["-ipv6", "-dbg"] + extra + [server.url("data/v6.bin"), file_url(dest)],
                        f"-ipv6 {extra}")
        assert "[::1]" in server.url() and re.search(r"C: (EPSV|EPRT \|2\|::1\|)",
                                                     result.stderr), result.describe()
        assert_file_digest(dest, digest, f"-ipv6 {extra}\n{result.describe()}")

if __name__ == "__main__":
    run_tests(globals())
