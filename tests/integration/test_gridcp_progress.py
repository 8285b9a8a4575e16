"""gridcp's reporting (issue 5): the live progress display on a real terminal (tmux), the
per-file summary lines when stdout is not a terminal, and --json (JSON Lines on stdout)."""

import json
import os
import re
import shlex
import shutil
import subprocess
import time

from gridftp_harness import (MIB, gridcp_binary, make_device_root, make_file, make_temp_dir,
                             make_tree_readable, require_tool, run_peer, run_tests,
                             start_gridftpd, wait_until)

GIB = 1024 * MIB
PANE_COLUMNS, PANE_ROWS = 120, 30
# A file line of the live display: "zero   1.20 GiB / 2.00 GiB  60%  640 MiB/s  ETA 1s  4 streams"
PROGRESS_RE = re.compile(r"(?P<done>\d+(?:\.\d+)?) (?P<unit>B|KiB|MiB|GiB) / 2\.00 GiB\s+\d+%\s+"
                         r"(?P<rate>\d+(?:\.\d+)? (?:B|KiB|MiB|GiB)/s)\s+"
                         r"ETA (?P<eta>\d+s|\d+:\d\d(?::\d\d)?)\s+4 streams")
UNITS = {"B": 1, "KiB": 1024, "MiB": MIB, "GiB": GIB}


def file_url(path: str) -> str:
    return "file://" + os.path.abspath(path)


class TmuxPane:
    """One detached tmux session on its own server socket (so nothing touches the user's tmux),
    with a fixed window size, running one shell command."""

    def __init__(self, command: str):
        self.socket = f"gridcp-test-{os.getpid()}-{time.monotonic_ns()}"
        self.tmux = require_tool("tmux")
        subprocess.run([self.tmux, "-L", self.socket, "-f", "/dev/null", "new-session", "-d",
                        "-s", "t", "-x", str(PANE_COLUMNS), "-y", str(PANE_ROWS), command],
                       check=True, env={**os.environ, "TERM": "xterm-256color"})

    def capture(self) -> str:
        result = subprocess.run([self.tmux, "-L", self.socket, "capture-pane", "-p", "-t", "t"],
                                capture_output=True, text=True)
        return result.stdout if result.returncode == 0 else ""

    def kill(self) -> None:
        subprocess.run([self.tmux, "-L", self.socket, "kill-server"], capture_output=True)


def progress_samples(captures: list[str]) -> list[tuple[int, str, str]]:
    """(bytes done, rate, ETA) of each capture that shows the live display's file line."""
    samples = []
    for screen in captures:
        for line in screen.splitlines():
            m = PROGRESS_RE.search(line)
            if m:
                done = int(float(m.group("done")) * UNITS[m.group("unit")])
                samples.append((done, m.group("rate"), m.group("eta")))
    return samples


def test_live_progress_on_a_terminal():
    """A 2 GiB MODE E get of /dev/zero (ERET of a window, so the size is known) inside tmux: the
    captured screens show the bytes growing, a rate and an ETA; at the end the display is gone
    and the file's summary line stays."""
    live_progress_of_a_2_gib_get(["-len", str(2 * GIB)], "dev/zero")


def test_live_progress_learns_the_size_of_a_single_file_get():
    """A single-file -p 4 get of a 2 GiB file that gridcp was told nothing about: the transfer
    asks SIZE, so the display shows size, percent and ETA as for a window or a listed file
    (it once showed bytes and rate only)."""
    live_progress_of_a_2_gib_get([], "sparse.bin")


def live_progress_of_a_2_gib_get(flags: list[str], source: str):
    """Runs gridcp -p 4 `flags` on `source` (2 GiB, under a device root) inside tmux and checks
    the live display and the summary line it leaves."""
    root = make_device_root("gridcp-progress-")
    out = make_temp_dir("gridcp-progress-out-")
    pane = None
    try:
        # A sparse file on tmpfs: 2 GiB that read as fast as /dev/zero.
        with open(os.path.join(root, "sparse.bin"), "wb") as f:
            f.truncate(2 * GIB)
        os.chmod(os.path.join(root, "sparse.bin"), 0o644)
        server = start_gridftpd(root, anonymous={"enabled": True, "root": root,
                                                 "writable": ["dev", "incoming"]})
        # The 2 GiB land on tmpfs next to the device root, and go as soon as they are checked.
        dest = os.path.join(root, "incoming", "zero.bin")
        status = os.path.join(out, "status")
        argv = [gridcp_binary(), "-p", "4", *flags, server.url(source), file_url(dest)]
        command = f"{shlex.join(argv)}; echo $? > {shlex.quote(status)}; sleep 600"
        pane = TmuxPane(command)
        captures = []
        deadline = time.monotonic() + 300   # catches a hang only
        while not os.path.exists(status) and time.monotonic() < deadline:
            captures.append(pane.capture())
            time.sleep(0.05)
        wait_until(lambda: os.path.exists(status) and open(status).read().strip(), 10,
                   "gridcp's exit status in the tmux pane")
        final = pane.capture()
        what = (f"command: {shlex.join(argv)}\nlast screen:\n{final}\n"
                f"screens captured: {len(captures)}")
        rc = open(status).read().strip()
        assert rc == "0", f"gridcp failed in tmux (exit {rc})\n{what}"
        assert os.path.getsize(dest) == 2 * GIB, f"got {os.path.getsize(dest)} bytes\n{what}"
        os.remove(dest)

        samples = progress_samples(captures)
        shown = sorted({done for done, _, _ in samples})
        progress_lines = "\n".join(f"{d} {r} ETA {e}" for d, r, e in samples)
        assert len(shown) >= 2, (
            f"the live display did not show the bytes growing with size, percent and ETA "
            f"(values seen: {shown})\n{what}\nlast captures:\n" + "\n----\n".join(captures[-5:]))
        assert shown[0] < shown[-1] <= 2 * GIB
        assert all(rate for _, rate, _ in samples), progress_lines
        assert any(eta for _, _, eta in samples), progress_lines
        assert any("total: 0 done, 1 active" in screen for screen in captures), (
            f"no total line in any capture\n{what}")

        # The display cleared itself; the summary line stays.
        assert "total:" not in final and not PROGRESS_RE.search(final), (
            f"the live display was left on the screen\n{final}")
        summary = f"copied {server.url(source)} -> {dest}: 2.00 GiB in "
        assert summary in final.replace("\n", ""), f"no summary line\n{final}"
    finally:
        if pane:
            pane.kill()
        shutil.rmtree(root, ignore_errors=True)


def seed(server) -> dict[str, int]:
    sizes = {"empty.bin": 0, "one.bin": 1, "mib_plus_one.bin": MIB + 1, "odd.bin": 3 * MIB + 7}
    for i, (name, size) in enumerate(sizes.items()):
        make_file(server.fs(f"data/{name}"), size, seed=i)
    make_tree_readable(server.fs("data"))
    return sizes


def test_json_lines_with_true_byte_counts():
    """--json: every stdout line is one JSON object, one per file (a failure included), then a
    summary; the byte counts are the files' real sizes."""
    server = start_gridftpd()
    sizes = seed(server)
    out = make_temp_dir("gridcp-json-")
    pairs = [(server.url(f"data/{name}"), file_url(os.path.join(out, name))) for name in sizes]
    # a put in MODE E, and a file that does not exist
    pairs.append((file_url(os.path.join(out, "odd.bin")), server.url("incoming/odd-put.bin")))
    pairs.append((server.url("data/missing.bin"), file_url(os.path.join(out, "missing.bin"))))
    url_file = os.path.join(out, "pairs.txt")
    with open(url_file, "w") as f:
        f.write("".join(f"{s} {d}\n" for s, d in pairs))
    result = run_peer([gridcp_binary(), "--json", "-p", "2", "-f", url_file], timeout=300,
                      expect_rc=-1, what="gridcp --json")
    records = []
    for line in result.stdout.splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise AssertionError(f"stdout line is not JSON ({e}): {line!r}\n{result.describe()}")
    files = [r for r in records if r.get("type") == "file"]
    summaries = [r for r in records if r.get("type") == "summary"]
    assert len(files) == len(pairs) and len(summaries) == 1 and records[-1] is summaries[0], (
        result.describe())

    by_dest = {r["dest"]: r for r in files}
    for name, size in sizes.items():
        record = by_dest[os.path.join(out, name)]
        assert record["result"] == "copied" and record["source"] == server.url(f"data/{name}"), record
        assert record["bytes"] == size == os.path.getsize(os.path.join(out, name)), record
        assert record["attempts"] == 1 and record["streams"] == 2 and "error" not in record, record
        assert record["seconds"] >= 0 and record["rate_bytes_per_second"] >= 0, record
    put = by_dest[server.url("incoming/odd-put.bin")]
    assert put["result"] == "copied", put
    assert put["bytes"] == os.path.getsize(server.fs("incoming/odd-put.bin")) == sizes["odd.bin"]
    missing = by_dest[os.path.join(out, "missing.bin")]
    assert missing["result"] == "failed" and "missing.bin" in missing["error"], missing
    assert missing["bytes"] == 0, missing

    summary = summaries[0]
    assert summary["files"] == len(pairs) and summary["failed"] == 1, summary
    assert summary["skipped"] == 0, summary
    assert summary["bytes"] == sum(sizes.values()) + sizes["odd.bin"], summary
    assert summary["seconds"] > 0 and summary["rate_bytes_per_second"] > 0, summary
    # The failure is still explained, on stderr.
    assert "missing.bin" in result.stderr, result.describe()


def test_json_byte_counts_of_a_pipelined_third_party_url_list():
    """-pp with -f pairs: the 226 of a pipelined file does not say how many bytes moved and a
    pairs file carries no sizes, so the counts must come from the source (they once read 0)."""
    source, dest = start_gridftpd(), start_gridftpd()
    sizes = seed(source)
    out = make_temp_dir("gridcp-json-pp-")
    url_file = os.path.join(out, "pairs.txt")
    with open(url_file, "w") as f:
        f.write("".join(f"{source.url(f'data/{name}')} {dest.url(f'incoming/pp-{name}')}\n"
                        for name in sizes))
    result = run_peer([gridcp_binary(), "-json", "-pp", "-f", url_file], timeout=300,
                      what="gridcp -json -pp -f")
    records = [json.loads(line) for line in result.stdout.splitlines()]
    files = {r["dest"]: r for r in records if r.get("type") == "file"}
    assert len(files) == len(sizes), result.describe()
    for name, size in sizes.items():
        record = files[dest.url(f"incoming/pp-{name}")]
        assert record["result"] == "copied", record
        assert record["bytes"] == size == os.path.getsize(dest.fs(f"incoming/pp-{name}")), record
    assert records[-1]["type"] == "summary" and records[-1]["bytes"] == sum(sizes.values()), (
        records[-1])


def test_summary_lines_when_stdout_is_not_a_terminal():
    """Without a terminal: no live display and no escape sequences, one line per copied file;
    -vb keeps globus-url-copy's lines; -q prints nothing."""
    server = start_gridftpd()
    sizes = seed(server)
    out = make_temp_dir("gridcp-lines-")
    source = server.url("data/mib_plus_one.bin")
    dest = os.path.join(out, "x.bin")
    result = run_peer([gridcp_binary(), source, file_url(dest)], what="gridcp plain")
    assert result.stdout == f"copied {source} -> {dest}: 1.00 MiB in " + \
        result.stdout.split(" in ", 1)[1], result.describe()
    assert len(result.stdout.splitlines()) == 1 and "\x1b" not in result.output, result.describe()

    result = run_peer([gridcp_binary(), "-vb", source, file_url(dest)], what="gridcp -vb")
    lines = result.stdout.splitlines()
    assert lines[:2] == [f"Source: {source}", f"Dest:   {dest}"], result.describe()
    assert re.fullmatch(rf"\s*{sizes['mib_plus_one.bin']} bytes\s+\d+\.\d\d MB/sec avg",
                        lines[2]), result.describe()

    result = run_peer([gridcp_binary(), "-q", source, file_url(dest)], what="gridcp -q")
    assert result.output == "", result.describe()


if __name__ == "__main__":
    run_tests(globals())
