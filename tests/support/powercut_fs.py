"""A disk with a volatile write cache, for crash tests: a FUSE file system over a backing
directory that holds every change in memory until it is synced, and whose power can be cut.

What a power cut keeps: data synced by fsync/fdatasync of the file; names synced by fsync of
their directory. Precisely, the file system has two states:
  * the volatile state, what processes see now: every file's bytes and size and every
    directory's names, changed at once by write, truncate, create, mkdir, rename, unlink, rmdir;
  * the durable state, what survives a power cut: the BACKING directory itself.
fsync or fdatasync of a file (FUSE `fsync`, either flag) copies that file's bytes and size
(and its mode and owner) into its durable copy, wherever that copy is named durably, now or
later. fsync of a directory (FUSE `fsyncdir`: fsync of a descriptor opened O_RDONLY|O_DIRECTORY)
makes that directory's names durable as they are now: names created or renamed into it appear
in BACKING, names renamed or unlinked out of it go. Nothing else syncs: not close, not a
file's fsync for its name, not a directory's fsync for its files' bytes. So a file created,
written and renamed into place whose directory is never synced is gone after a power cut, and
one whose name was synced but whose data never was comes back with its durable bytes: empty if
it never had any (ext4 without auto_da_alloc, or any file system that journals only metadata).
A rename across directories is durable in each directory by that directory's own fsync, so until
both are synced the name may survive twice or not at all; the tests rename within a directory.
Files, directories and their attributes are modelled; links, symlinks and special files are not
(EPERM).

Run as a program (by PowerCutDisk below, never by hand in a test):
    python3 powercut_fs.py BACKING MOUNTPOINT CONTROL_DIR
It loads BACKING (files and directories only) as both states, mounts at MOUNTPOINT (allow_other,
so session processes running as other accounts can write there too) and serves in the
foreground until SIGTERM or SIGINT, which unmount it. Durable file bytes live in
CONTROL_DIR/store, one file per inode, and each durable name in BACKING is a hard link to its
inode's store file (so CONTROL_DIR must be on BACKING's file system); a synced file updates
every durable name of it at once.

The test cuts the power through CONTROL_DIR/control.json (see fuse_mount.py): {"power_cut":
true} makes every later operation fail with EIO and leaves BACKING as the durable state was;
PowerCutDisk.power_cut() then unmounts. CONTROL_DIR/status.json counts what happened, rewritten
after every change: writes, written (bytes), fsyncs, fdatasyncs, fsyncdirs, unsynced_bytes
(bytes written since their file's last sync), unsynced_dirs (directories whose names differ
from their durable ones), synced (for each file synced at least once, by the path of its last
sync: the [start, end) ranges of written bytes that sync made durable), cut, and events (the
last namespace changes and syncs, in order, for failure messages). Tests wait on those
counters, not on the clock.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import sys
import threading
import time

from fuse_mount import CONTROL, STATUS, FuseDaemon, import_fusepy, write_json

FSNAME = "powercut_fs"
ROOT = 1
EVENTS_KEPT = 200


def _error(code: int) -> OSError:
    return OSError(code, os.strerror(code))


# --------------------------------------------------------------------------------------------
# The model: both states, no FUSE
# --------------------------------------------------------------------------------------------

class Inode:
    """One file or directory as processes see it now (the volatile state)."""

    def __init__(self, number: int, mode: int, uid: int, gid: int):
        self.number = number
        self.mode = mode  # with its S_IFREG or S_IFDIR bits
        self.uid, self.gid = uid, gid
        self.atime = self.mtime = self.ctime = time.time_ns()
        self.names = 0  # links from directories of the volatile state
        self.handles = 0  # open file handles
        self.entries: dict[str, int] = {}  # a directory's names -> inode numbers
        self.data = bytearray()  # a file's bytes
        self.written: list[tuple[int, int]] = []  # [start, end) that hold written bytes
        self.unsynced: list[tuple[int, int]] = []  # [start, end) written since the last sync
        self.unsynced_bytes = 0
        self.synced: list[tuple[int, int]] = []  # what `written` was at the last sync
        self.synced_as = ""  # the path of that sync

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


class VolatileDisk:
    """The two states and the operations on them. Not thread-safe: the caller holds one lock
    around every call. Errors are OSError with an errno, which fusepy passes to the kernel."""

    def __init__(self, backing: str, store: str):
        self.backing, self.store = backing, store
        self.inodes: dict[int, Inode] = {}
        self.next_number = ROOT
        # The durable state: each durable directory's names, which inodes are directories, and
        # the st_ino of the BACKING directory that holds each durable directory.
        self.durable_entries: dict[int, dict[str, int]] = {}
        self.durable_is_dir: dict[int, bool] = {}
        self.backing_dir_ino: dict[int, int] = {}
        self.counters = {"writes": 0, "written": 0, "fsyncs": 0, "fdatasyncs": 0,
                         "fsyncdirs": 0}
        self.events: list[str] = []
        self._load(backing)

    # Loading BACKING as both states -------------------------------------------------------
    def _load(self, path: str) -> Inode:
        info = os.lstat(path)
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            raise SystemExit(f"{FSNAME}: {path} is neither a file nor a directory; "
                             "only those are modelled")
        inode = self._new_inode(info.st_mode, info.st_uid, info.st_gid)
        inode.atime, inode.mtime = info.st_atime_ns, info.st_mtime_ns
        inode.ctime = info.st_ctime_ns
        self.durable_is_dir[inode.number] = inode.is_dir
        if inode.is_dir:
            self.backing_dir_ino[inode.number] = info.st_ino
            for name in sorted(os.listdir(path)):
                child = self._load(os.path.join(path, name))
                inode.entries[name] = child.number
                child.names += 1
            self.durable_entries[inode.number] = dict(inode.entries)
        else:
            os.link(path, self._store_path(inode.number))
            with open(path, "rb") as f:
                inode.data = bytearray(f.read())
            inode.written = inode.synced = [(0, len(inode.data))]
        return inode

    def _new_inode(self, mode: int, uid: int, gid: int) -> Inode:
        inode = Inode(self.next_number, mode, uid, gid)
        self.inodes[inode.number] = inode
        self.next_number += 1
        return inode

    def _store_path(self, number: int) -> str:
        return os.path.join(self.store, str(number))

    def _log(self, event: str) -> None:
        self.events.append(event)
        del self.events[:-EVENTS_KEPT]

    # Lookups ----------------------------------------------------------------------------------
    def lookup(self, path: str) -> Inode:
        inode = self.inodes[ROOT]
        for part in path.split("/"):
            if not part:
                continue
            if not inode.is_dir:
                raise _error(errno.ENOTDIR)
            number = inode.entries.get(part)
            if number is None:
                raise _error(errno.ENOENT)
            inode = self.inodes[number]
        return inode

    def parent_of(self, path: str) -> tuple[Inode, str]:
        head, name = os.path.split(path.rstrip("/"))
        parent = self.lookup(head)
        if not parent.is_dir:
            raise _error(errno.ENOTDIR)
        return parent, name

    def forget_if_unused(self, inode: Inode) -> None:
        if inode.names == 0 and inode.handles == 0 and inode.number != ROOT:
            self.inodes.pop(inode.number, None)

    # The namespace (volatile until the directory is synced) -------------------------------
    def create(self, path: str, mode: int, uid: int, gid: int) -> Inode:
        parent, name = self.parent_of(path)
        if name in parent.entries:
            raise _error(errno.EEXIST)
        inode = self._new_inode(stat.S_IFREG | (mode & 0o7777), uid, gid)
        self._link(parent, name, inode)
        self._log(f"create {path}")
        return inode

    def mkdir(self, path: str, mode: int, uid: int, gid: int) -> None:
        parent, name = self.parent_of(path)
        if name in parent.entries:
            raise _error(errno.EEXIST)
        self._link(parent, name, self._new_inode(stat.S_IFDIR | (mode & 0o7777), uid, gid))
        self._log(f"mkdir {path}")

    def _link(self, parent: Inode, name: str, inode: Inode) -> None:
        parent.entries[name] = inode.number
        inode.names += 1
        parent.mtime = parent.ctime = time.time_ns()

    def _unlink(self, parent: Inode, name: str) -> None:
        inode = self.inodes[parent.entries.pop(name)]
        inode.names -= 1
        inode.ctime = parent.mtime = parent.ctime = time.time_ns()
        self.forget_if_unused(inode)

    def unlink(self, path: str) -> None:
        parent, name = self.parent_of(path)
        if self.lookup(path).is_dir:
            raise _error(errno.EISDIR)
        self._unlink(parent, name)
        self._log(f"unlink {path}")

    def rmdir(self, path: str) -> None:
        parent, name = self.parent_of(path)
        inode = self.lookup(path)
        if not inode.is_dir:
            raise _error(errno.ENOTDIR)
        if inode.entries:
            raise _error(errno.ENOTEMPTY)
        self._unlink(parent, name)
        self._log(f"rmdir {path}")

    def rename(self, old: str, new: str) -> None:
        # The kernel has already refused a directory moved below itself.
        old_parent, old_name = self.parent_of(old)
        new_parent, new_name = self.parent_of(new)
        inode = self.lookup(old)
        target_number = new_parent.entries.get(new_name)
        if target_number == inode.number:
            return
        if target_number is not None:
            target = self.inodes[target_number]
            if inode.is_dir and not target.is_dir:
                raise _error(errno.ENOTDIR)
            if not inode.is_dir and target.is_dir:
                raise _error(errno.EISDIR)
            if target.is_dir and target.entries:
                raise _error(errno.ENOTEMPTY)
            self._unlink(new_parent, new_name)
        old_parent.entries.pop(old_name)
        inode.names -= 1
        self._link(new_parent, new_name, inode)
        old_parent.mtime = old_parent.ctime = inode.ctime = time.time_ns()
        self._log(f"rename {old} -> {new}")

    # File bytes (volatile until the file is synced) -----------------------------------------
    def write(self, inode: Inode, offset: int, data: bytes) -> int:
        end = offset + len(data)
        if end > len(inode.data):
            inode.data.extend(bytes(end - len(inode.data)))
        inode.data[offset:end] = data
        inode.written.append((offset, end))
        self._note_unsynced(inode, offset, end)
        inode.mtime = inode.ctime = time.time_ns()
        self.counters["writes"] += 1
        self.counters["written"] += len(data)
        return len(data)

    def truncate(self, inode: Inode, length: int, path: str) -> None:
        if inode.is_dir:
            raise _error(errno.EISDIR)
        if length < len(inode.data):
            del inode.data[length:]
        else:
            inode.data.extend(bytes(length - len(inode.data)))
        inode.written = [(start, min(end, length)) for start, end in _merged(inode.written)
                         if start < length]
        self._note_unsynced(inode, length, length)  # the size itself is unsynced
        inode.mtime = inode.ctime = time.time_ns()
        self._log(f"truncate {path} {length}")

    @staticmethod
    def _note_unsynced(inode: Inode, start: int, end: int) -> None:
        inode.unsynced.append((start, end))
        inode.unsynced_bytes += end - start
        if len(inode.unsynced) > 256:  # MODE E writes arrive out of order: keep the lists short
            inode.unsynced = _merged(inode.unsynced)
            inode.written = _merged(inode.written)

    @staticmethod
    def read(inode: Inode, offset: int, size: int) -> bytes:
        return bytes(inode.data[offset:offset + size])

    # Syncs: the only way into the durable state ----------------------------------------------
    def sync_file(self, inode: Inode, datasync: bool, path: str | None) -> None:
        """fsync/fdatasync: the file's bytes, size, mode and owner become durable."""
        if not inode.is_dir:
            fd = os.open(self._store_path(inode.number), os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                os.ftruncate(fd, len(inode.data))
                view = memoryview(inode.data)
                for start, end in _merged(inode.unsynced):
                    end = min(end, len(inode.data))
                    if end > start:
                        os.pwrite(fd, view[start:end], start)
                os.fchmod(fd, inode.mode & 0o7777)
                os.fchown(fd, inode.uid, inode.gid)
            finally:
                os.close(fd)
            inode.unsynced, inode.unsynced_bytes = [], 0
            inode.written = inode.synced = _merged(inode.written)
            inode.synced_as = path or f"#{inode.number}"
        self.counters["fdatasyncs" if datasync else "fsyncs"] += 1
        self._log(f"{'fdatasync' if datasync else 'fsync'} {path or '#' + str(inode.number)}")

    def sync_dir(self, inode: Inode, path: str | None) -> None:
        """fsync of a directory: its names, as they are now, become durable."""
        if not inode.is_dir:
            raise _error(errno.ENOTDIR)
        self.durable_entries[inode.number] = dict(inode.entries)
        for number in inode.entries.values():
            child = self.inodes[number]
            self.durable_is_dir[number] = child.is_dir
            if child.is_dir:
                self.durable_entries.setdefault(number, {})
        self.counters["fsyncdirs"] += 1
        self._log(f"fsyncdir {path or '#' + str(inode.number)}")
        self._materialize(ROOT, self.backing)

    def _materialize(self, number: int, path: str) -> None:
        """Makes BACKING's directory `path` hold exactly the durable names of directory
        `number`, and so on below it: what a power cut would leave."""
        wanted = self.durable_entries.get(number, {})
        for name in os.listdir(path):
            if name not in wanted:
                self._remove_backing(os.path.join(path, name))
        for name, child in wanted.items():
            child_path = os.path.join(path, name)
            try:
                present = os.lstat(child_path)
            except FileNotFoundError:
                present = None
            if self.durable_is_dir[child]:
                if present is None or present.st_ino != self.backing_dir_ino.get(child):
                    if present is not None:
                        self._remove_backing(child_path)
                    mode = self.inodes[child].mode if child in self.inodes else 0o755
                    os.mkdir(child_path, mode & 0o7777)
                    self.backing_dir_ino[child] = os.lstat(child_path).st_ino
                self._materialize(child, child_path)
                continue
            store = self._store_path(child)
            if not os.path.exists(store):  # named durably, never synced: no bytes
                os.close(os.open(store, os.O_WRONLY | os.O_CREAT, 0o644))
            if present is None or present.st_ino != os.lstat(store).st_ino:
                if present is not None:
                    self._remove_backing(child_path)
                os.link(store, child_path)

    @staticmethod
    def _remove_backing(path: str) -> None:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)

    # Status ---------------------------------------------------------------------------------
    def unsynced_dirs(self) -> int:
        return sum(1 for inode in self.inodes.values()
                   if inode.is_dir and inode.entries != self.durable_entries.get(inode.number))

    def status(self) -> dict:
        return dict(self.counters,
                    unsynced_bytes=sum(i.unsynced_bytes for i in self.inodes.values()),
                    unsynced_dirs=self.unsynced_dirs(), events=list(self.events),
                    synced={inode.synced_as: inode.synced for inode in self.inodes.values()
                            if inode.synced_as})


# --------------------------------------------------------------------------------------------
# The daemon: VolatileDisk behind FUSE
# --------------------------------------------------------------------------------------------

def _serve(backing: str, mountpoint: str, control_dir: str) -> None:
    FUSE, FuseOSError, Operations, fuse_get_context = import_fusepy()
    store = os.path.join(control_dir, "store")
    shutil.rmtree(store, ignore_errors=True)  # a store left by an earlier mount is stale
    os.makedirs(store)
    if os.stat(store).st_dev != os.stat(backing).st_dev:
        raise SystemExit(f"{FSNAME}: {control_dir} must be on the file system of {backing} "
                         "(durable names are hard links into its store)")

    class PowerCutFs(Operations):
        use_ns = True

        def __init__(self):
            self.lock = threading.Lock()
            self.disk = VolatileDisk(backing, store)
            self.handles: dict[int, Inode] = {}
            self.next_handle = 1
            self.cut = False
            self.publish()
            threading.Thread(target=self.watch_control, daemon=True).start()

        # Every operation runs alone, and none after the power cut.
        def __call__(self, op, *args):
            with self.lock:
                if self.cut and op not in ("release", "releasedir", "destroy"):
                    raise FuseOSError(errno.EIO)
                result = super().__call__(op, *args)
                if op not in ("getattr", "read", "readdir", "access", "statfs", "opendir",
                              "releasedir", "open", "release", "flush"):
                    self.publish()
                return result

        def publish(self) -> None:
            write_json(control_dir, STATUS, dict(self.disk.status(), cut=self.cut))

        def watch_control(self) -> None:
            # A power cut may come while no operation runs: poll for it.
            path = os.path.join(control_dir, CONTROL)
            while True:
                try:
                    with open(path, encoding="utf-8") as f:
                        cut = bool(json.load(f).get("power_cut"))
                except (FileNotFoundError, ValueError):
                    cut = False
                if cut:
                    with self.lock:
                        self.cut = True
                        self.publish()
                    return
                time.sleep(0.01)

        # Handles ----------------------------------------------------------------------------
        def inode_of(self, path, fh=None) -> Inode:
            # fusepy passes a null pointer, not None, when there is no open file.
            if isinstance(fh, int) and fh in self.handles:
                return self.handles[fh]
            if path is None:
                raise FuseOSError(errno.ENOENT)
            return self.disk.lookup(path)

        def new_handle(self, inode: Inode) -> int:
            handle = self.next_handle
            self.next_handle += 1
            self.handles[handle] = inode
            inode.handles += 1
            return handle

        def drop_handle(self, fh) -> None:
            inode = self.handles.pop(fh, None)
            if inode is not None:
                inode.handles -= 1
                self.disk.forget_if_unused(inode)

        # Metadata ---------------------------------------------------------------------------
        def getattr(self, path, fh=None):
            inode = self.inode_of(path, fh)
            size = 4096 if inode.is_dir else len(inode.data)
            links = (2 + sum(1 for n in inode.entries.values() if self.disk.inodes[n].is_dir)
                     if inode.is_dir else inode.names)
            return {"st_mode": inode.mode, "st_nlink": links, "st_uid": inode.uid,
                    "st_gid": inode.gid, "st_size": size, "st_blocks": (size + 511) // 512,
                    "st_ino": inode.number, "st_atime": inode.atime, "st_mtime": inode.mtime,
                    "st_ctime": inode.ctime}  # nanoseconds: use_ns

        def access(self, path, amode):
            self.inode_of(path)
            return 0

        def readdir(self, path, fh):
            return [".", ".."] + list(self.inode_of(path, fh).entries)

        def statfs(self, path):
            st = os.statvfs(backing)
            return {key: getattr(st, key) for key in (
                "f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files",
                "f_flag", "f_frsize", "f_namemax")}

        def chmod(self, path, mode):
            inode = self.inode_of(path)
            inode.mode = (inode.mode & ~0o7777) | (mode & 0o7777)
            inode.ctime = time.time_ns()
            return 0

        def chown(self, path, uid, gid):
            inode = self.inode_of(path)
            if uid != -1:
                inode.uid = uid
            if gid != -1:
                inode.gid = gid
            inode.ctime = time.time_ns()
            return 0

        def utimens(self, path, times=None):
            inode = self.inode_of(path)
            now = time.time_ns()
            inode.atime, inode.mtime = times if times else (now, now)
            inode.ctime = now
            return 0

        # The namespace ----------------------------------------------------------------------
        def mkdir(self, path, mode):
            uid, gid, _ = fuse_get_context()
            self.disk.mkdir(path, mode, uid, gid)
            return 0

        def rmdir(self, path):
            self.disk.rmdir(path)
            return 0

        def unlink(self, path):
            self.disk.unlink(path)
            return 0

        def rename(self, old, new):
            self.disk.rename(old, new)
            return 0

        def link(self, target, source):
            raise FuseOSError(errno.EPERM)  # not modelled

        def symlink(self, target, source):
            raise FuseOSError(errno.EPERM)  # not modelled

        def mknod(self, path, mode, dev):
            raise FuseOSError(errno.EPERM)  # not modelled

        # Files ------------------------------------------------------------------------------
        def create(self, path, mode, fi=None):
            uid, gid, _ = fuse_get_context()
            return self.new_handle(self.disk.create(path, mode, uid, gid))

        def open(self, path, flags):
            inode = self.inode_of(path)
            if flags & os.O_TRUNC and inode.data:
                self.disk.truncate(inode, 0, path)
            return self.new_handle(inode)

        def release(self, path, fh):
            self.drop_handle(fh)
            return 0

        def opendir(self, path):
            return self.new_handle(self.inode_of(path))

        def releasedir(self, path, fh):
            self.drop_handle(fh)
            return 0

        def read(self, path, size, offset, fh):
            return self.disk.read(self.inode_of(path, fh), offset, size)

        def write(self, path, data, offset, fh):
            return self.disk.write(self.inode_of(path, fh), offset, data)

        def truncate(self, path, length, fh=None):
            self.disk.truncate(self.inode_of(path, fh), length, path)
            return 0

        def flush(self, path, fh):
            return 0  # close syncs nothing

        def fsync(self, path, datasync, fh):
            self.disk.sync_file(self.inode_of(path, fh), bool(datasync), path)
            return 0

        def fsyncdir(self, path, datasync, fh):
            # Implemented, so the kernel forwards a directory's fsync here at all.
            self.disk.sync_dir(self.inode_of(path, fh), path)
            return 0

    # No writeback cache (fusepy's default): every write reaches the daemon before write()
    # returns, so nothing sits in the kernel that a sync would have to push here first.
    # hard_remove: a file unlinked while open goes at once instead of lingering as .fuse_hidden*.
    FUSE(PowerCutFs(), mountpoint, foreground=True, allow_other=True, big_writes=True,
         max_write=128 * 1024, hard_remove=True, fsname=FSNAME, subtype=FSNAME)


# --------------------------------------------------------------------------------------------
# The test side
# --------------------------------------------------------------------------------------------

class PowerCutDisk(FuseDaemon):
    """The daemon above, mounted at `mountpoint` over `backing` (which must be on the file
    system of `control_dir`). power_cut() drops every unsynced change and unmounts; BACKING is
    then what the disk kept."""

    fsname = FSNAME
    empty_status = {"writes": 0, "written": 0, "fsyncs": 0, "fdatasyncs": 0, "fsyncdirs": 0,
                    "unsynced_bytes": 0, "unsynced_dirs": 0, "synced": {}, "cut": False,
                    "events": []}

    def __init__(self, backing: str, mountpoint: str, control_dir: str):
        write_json(control_dir, CONTROL, {})
        super().__init__(__file__, backing, mountpoint, control_dir)

    def power_cut(self) -> dict:
        """Cuts the power: no operation changes anything after this, and the mount goes.
        Returns the status at the cut."""
        self.control(power_cut=True)
        status = self.wait_for(lambda s: s["cut"], "the power cut")
        self.stop()
        return status


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: powercut_fs.py BACKING MOUNTPOINT CONTROL_DIR")
    _serve(*sys.argv[1:])
