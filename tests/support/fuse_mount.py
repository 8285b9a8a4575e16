"""What the FUSE file systems of the tests share (slow_fs.py, powercut_fs.py): a daemon that runs
as a subprocess and mounts itself, steered through a control directory, and the test-side handle
that starts it, reads its status and unmounts it.

The daemon runs under /usr/bin/python3, where Debian installs python3-fusepy (imported as
`fusepy`; fusepy from pip names its module `fuse`), whatever interpreter runs the tests. It
reads CONTROL_DIR/control.json whenever that file is replaced and publishes its counters in
CONTROL_DIR/status.json, both written whole in one rename, so a reader never sees half a file.
The test side (FuseDaemon) uses the standard library only.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import threading
import time

CONTROL = "control.json"
STATUS = "status.json"
DAEMON_PYTHON = "/usr/bin/python3"


def write_json(directory: str, name: str, value: dict) -> None:
    """Replaces directory/name in one rename, so a reader never sees half a file."""
    temp = os.path.join(directory, f".{name}.{os.getpid()}.{threading.get_ident()}")
    with open(temp, "w", encoding="utf-8") as f:
        json.dump(value, f)
    os.rename(temp, os.path.join(directory, name))


def import_fusepy():
    """(FUSE, FuseOSError, Operations, fuse_get_context) from whichever name fusepy has here."""
    try:
        import fusepy as module
    except ImportError:  # fusepy from pip names its module fuse
        import fuse as module
    return module.FUSE, module.FuseOSError, module.Operations, module.fuse_get_context


def anonymous_root_over_fuse(base: str) -> tuple[str, str, str, str]:
    """Directories for a test server whose anonymous root's incoming/ is a FUSE mount: under
    `base`, the root, the backing directory (the "disk" itself, which checks read without going
    through the mount; writable by the session account), the daemon's control directory, and
    the mount point root/incoming. Returns (root, backing, control, mountpoint)."""
    root = os.path.join(base, "root")
    backing, control = os.path.join(base, "backing"), os.path.join(base, "control")
    mountpoint = os.path.join(root, "incoming")
    for directory in (mountpoint, backing, control):
        os.makedirs(directory)
    os.chmod(backing, 0o777)
    return root, backing, control, mountpoint


def is_mounted(path: str, fsname: str) -> bool:
    path = os.path.realpath(path)
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        return any(line.split()[4] == path and fsname in line for line in f)


_running: list["FuseDaemon"] = []


class FuseDaemon:
    """The daemon `script BACKING MOUNTPOINT CONTROL_DIR`, mounted at `mountpoint` over
    `backing` (both must exist). stop() (also run at exit) unmounts it and ends the daemon, only
    by the PID it started. Subclasses name their file system (`fsname`, what the daemon passes
    to FUSE) and the status a daemon that has not published yet would give (`empty_status`)."""

    fsname = "?"
    empty_status: dict = {}

    def __init__(self, script: str, backing: str, mountpoint: str, control_dir: str):
        self.backing, self.mountpoint, self.control_dir = backing, mountpoint, control_dir
        self.proc = subprocess.Popen(
            [DAEMON_PYTHON, os.path.abspath(script), backing, mountpoint, control_dir],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        _running.append(self)
        deadline = time.monotonic() + 30
        while not is_mounted(mountpoint, self.fsname):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                output = self._stop_daemon()
                raise AssertionError(
                    f"{self.fsname} did not mount {mountpoint} (exit status "
                    f"{self.proc.returncode}; is python3-fusepy installed for {DAEMON_PYTHON}? "
                    f"scripts/install-deps.sh installs it):\n{output}")
            time.sleep(0.05)

    def control(self, **settings) -> None:
        """Replaces what the daemon reads in control.json."""
        write_json(self.control_dir, CONTROL, settings)

    def status(self) -> dict:
        try:
            with open(os.path.join(self.control_dir, STATUS), encoding="utf-8") as f:
                return json.load(f)
        except FileNotFoundError:
            return dict(self.empty_status)

    def wait_for(self, predicate, what: str, timeout: float = 60) -> dict:
        """Polls status() until predicate(status) holds; the deadline only catches hangs."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.status()
            if predicate(status):
                return status
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}; "
                                     f"{self.fsname} status {status}")
            time.sleep(0.02)

    def _stop_daemon(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # fuse_main unmounts on SIGTERM
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        # A daemon that died leaves a dead mount behind ("transport endpoint is not connected").
        if is_mounted(self.mountpoint, self.fsname):
            subprocess.run(["umount", "-l", self.mountpoint], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return self.proc.stdout.read().decode(errors="replace") if self.proc.stdout else ""

    def stop(self) -> str:
        """Unmounts and ends the daemon; returns what it printed (empty when already stopped)."""
        if self not in _running:
            return ""
        _running.remove(self)
        return self._stop_daemon()


def _stop_all() -> None:
    while _running:
        _running[-1].stop()


atexit.register(_stop_all)
