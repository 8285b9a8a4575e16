"""A slow disk for fault tests: a FUSE file system that mirrors a backing directory and whose
writes can be throttled, stalled or failed while a server writes through it (everything else,
reads included, passes straight through).

Run as a program (by SlowDisk below, never by hand in a test):
    python3 slow_fs.py BACKING MOUNTPOINT CONTROL_DIR
It mounts BACKING at MOUNTPOINT (allow_other, so session processes running as other accounts
can write there too) and serves in the foreground until SIGTERM or SIGINT, which unmount it.

The test steers it through CONTROL_DIR/control.json, which it re-reads whenever the file is
replaced (write a new file, rename it over the old one):
    rate         bytes per second for all writes together; 0 or absent: as fast as it can
    stall        true: every write waits (inside the file system, as a hung disk would) until
                 stall is false again
    fail_beyond  a write reaching this file offset or beyond fails, whole, with `errno`;
                 absent or null: no failures
    errno        "EIO" (the default) or "ENOSPC"
and reads what happened in CONTROL_DIR/status.json, rewritten (by rename) after each change:
    written  bytes written so far;  waiting  writes held in a stall now;  failed  writes failed.
Tests wait on those counters, not on the clock: "a write is held" is waiting >= 1.

How the daemon is run, steered and stopped, and which interpreter runs it, is shared with
powercut_fs.py: fuse_mount.py. The helper class uses the standard library only.
"""

from __future__ import annotations

import errno as errno_module
import json
import os
import sys
import threading
import time

from fuse_mount import CONTROL, STATUS, FuseDaemon, import_fusepy, write_json


# --------------------------------------------------------------------------------------------
# The daemon
# --------------------------------------------------------------------------------------------

def _serve(backing: str, mountpoint: str, control_dir: str) -> None:
    FUSE, FuseOSError, Operations, _ = import_fusepy()

    class SlowFs(Operations):
        use_ns = True

        def __init__(self):
            self.lock = threading.Lock()
            self.control: dict = {}
            self.control_key = None
            self.next_free = 0.0  # when the throttled "disk" can take the next byte
            self.status = {"written": 0, "waiting": 0, "failed": 0}
            self.publish()

        # Control and status -------------------------------------------------------------
        def settings(self) -> dict:
            path = os.path.join(control_dir, CONTROL)
            try:
                st = os.stat(path)
                key = (st.st_ino, st.st_mtime_ns, st.st_size)
            except FileNotFoundError:
                return {}
            with self.lock:
                if key != self.control_key:
                    with open(path, encoding="utf-8") as f:
                        self.control = json.load(f)
                    self.control_key = key
                return self.control

        def publish(self) -> None:
            # Called with self.lock held (or before any thread runs).
            write_json(control_dir, STATUS, self.status)

        def count(self, field: str, delta: int) -> None:
            with self.lock:
                self.status[field] += delta
                self.publish()

        # Paths ----------------------------------------------------------------------------
        def real(self, path: str) -> str:
            return os.path.join(backing, path.lstrip("/"))

        # Metadata -------------------------------------------------------------------------
        def getattr(self, path, fh=None):
            # fusepy passes a null pointer, not None, when there is no open file.
            st = os.fstat(fh) if isinstance(fh, int) else os.lstat(self.real(path))
            attrs = {key: getattr(st, key) for key in (
                "st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_blocks", "st_ino")}
            attrs.update(st_atime=st.st_atime_ns, st_mtime=st.st_mtime_ns,
                         st_ctime=st.st_ctime_ns)  # nanoseconds: use_ns
            return attrs

        def access(self, path, amode):
            if not os.access(self.real(path), amode):
                raise FuseOSError(errno_module.EACCES)
            return 0

        def readdir(self, path, fh):
            return [".", ".."] + os.listdir(self.real(path))

        def readlink(self, path):
            return os.readlink(self.real(path))

        def statfs(self, path):
            st = os.statvfs(self.real(path))
            return {key: getattr(st, key) for key in (
                "f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files",
                "f_flag", "f_frsize", "f_namemax")}

        def chmod(self, path, mode):
            os.chmod(self.real(path), mode)
            return 0

        def chown(self, path, uid, gid):
            os.lchown(self.real(path), uid, gid)
            return 0

        def utimens(self, path, times=None):
            os.utime(self.real(path), ns=times, follow_symlinks=False)
            return 0

        def mkdir(self, path, mode):
            os.mkdir(self.real(path), mode)
            return 0

        def rmdir(self, path):
            os.rmdir(self.real(path))
            return 0

        def unlink(self, path):
            os.unlink(self.real(path))
            return 0

        def rename(self, old, new):
            os.rename(self.real(old), self.real(new))
            return 0

        def symlink(self, target, source):
            os.symlink(source, self.real(target))
            return 0

        def link(self, target, source):
            os.link(self.real(source), self.real(target))
            return 0

        # Files ----------------------------------------------------------------------------
        def open(self, path, flags):
            return os.open(self.real(path), flags & ~os.O_CREAT)

        def create(self, path, mode, fi=None):
            return os.open(self.real(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)

        def read(self, path, size, offset, fh):
            return os.pread(fh, size, offset)

        def truncate(self, path, length, fh=None):
            if isinstance(fh, int):
                os.ftruncate(fh, length)
            else:
                os.truncate(self.real(path), length)
            return 0

        def flush(self, path, fh):
            return 0

        def fsync(self, path, datasync, fh):
            os.fsync(fh)
            return 0

        def release(self, path, fh):
            os.close(fh)
            return 0

        def write(self, path, data, offset, fh):
            settings = self.settings()
            if settings.get("stall"):
                self.count("waiting", 1)
                try:
                    while self.settings().get("stall"):
                        time.sleep(0.02)
                finally:
                    self.count("waiting", -1)
                settings = self.settings()
            limit = settings.get("fail_beyond")
            if limit is not None and offset + len(data) > limit:
                self.count("failed", 1)
                raise FuseOSError(getattr(errno_module, settings.get("errno", "EIO")))
            rate = settings.get("rate") or 0
            if rate > 0:
                # One disk for every writer: each write books the next free slot of the
                # throttled bandwidth and returns when its slot ends.
                with self.lock:
                    start = max(time.monotonic(), self.next_free)
                    self.next_free = start + len(data) / rate
                    done_at = self.next_free
                time.sleep(max(0.0, done_at - time.monotonic()))
            written = os.pwrite(fh, data, offset)
            self.count("written", written)
            return written

    # hard_remove: a file unlinked while open goes at once, as on a real disk, instead of
    # lingering as .fuse_hidden* until closed.
    FUSE(SlowFs(), mountpoint, foreground=True, allow_other=True, big_writes=True,
         max_write=128 * 1024, hard_remove=True, fsname="slow_fs", subtype="slow_fs")


# --------------------------------------------------------------------------------------------
# The test side
# --------------------------------------------------------------------------------------------

class SlowDisk(FuseDaemon):
    """The FUSE daemon above, mounted at `mountpoint` over `backing` (both must exist), with
    `faults` from the start. stop() (also run at exit) lifts every fault, then unmounts and
    ends the daemon, only by the PID it started."""

    fsname = "slow_fs"
    empty_status = {"written": 0, "waiting": 0, "failed": 0}

    def __init__(self, backing: str, mountpoint: str, control_dir: str, **faults):
        write_json(control_dir, CONTROL, faults)
        super().__init__(__file__, backing, mountpoint, control_dir)

    def set(self, **faults) -> None:
        """Replaces the faults: rate=, stall=, fail_beyond=, errno= (see the module text)."""
        self.control(**faults)

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.set()  # a writer held in a stall goes on, so nothing waits on a dead mount
        return super().stop()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: slow_fs.py BACKING MOUNTPOINT CONTROL_DIR")
    _serve(*sys.argv[1:])
