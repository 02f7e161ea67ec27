"""A writer's lock on a result folder (a wear store): one writer at a time, stale locks recovered.

The lock is the file :data:`LOCK_NAME` inside the folder, held with an exclusive, non-blocking
``fcntl.flock`` for as long as the writer runs.  The operating system releases it when the
writer's process ends in any way (``kill -9`` included), so a lock can never be left held by a
dead process; the file's content -- JSON with the holder's ``pid``, ``host``, ``started`` (UTC)
and command line -- names the holder for the message a second writer gets.  A lock file whose
content names a holder but that nobody holds was left by a writer that died: it is taken over
and :attr:`FolderLock.recovered` describes the dead holder (the caller tells the user).  On
release the content is emptied (the file itself stays, so that two processes never lock two
different files of the same name).  A lock path that is not a regular file (a folder or a link put
there) is refused with a message naming it, and left alone.

``flock`` works on local file systems and on NFS v4 (Linux emulates it with byte-range locks).
"""
from __future__ import annotations

import json
import os
import socket
import sys
from datetime import datetime, timezone
from pathlib import Path

from ..errors import WorkbenchError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

LOCK_NAME = ".workbench.lock"


class LockHeldError(WorkbenchError):
    """Another live process is writing the folder."""

    def __init__(self, message: str, holder: dict):
        super().__init__(message)
        self.holder = holder


def _read(fd: int) -> dict:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        raw = os.read(fd, 65536)
        return json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (OSError, ValueError):
        return {"unreadable": True}


def describe(holder: dict) -> str:
    """``pid 123 on host 'h', started 2026-01-01T10:00:00+00:00`` (what is known of a holder)."""
    if not holder:
        return "an unknown process"
    if holder.get("unreadable"):
        return "a process whose lock record cannot be read"
    return (f"pid {holder.get('pid', '?')} on host '{holder.get('host', '?')}', "
            f"started {holder.get('started', '?')}")


class FolderLock:
    """Exclusive writer's lock on ``folder`` (see the module docstring).

    ``what`` names the folder in messages (e.g. ``"the wear store results/a.zarr"``).
    """

    def __init__(self, folder: str | Path, what: str | None = None):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.what = what or str(self.folder)
        self.fd: int | None = None
        self.recovered: dict | None = None   # the dead holder whose lock was taken over

    @property
    def held(self) -> bool:
        return self.fd is not None

    def acquire(self) -> "FolderLock":
        """Take the lock or raise :class:`LockHeldError` naming the holder (never waits)."""
        if fcntl is None:  # pragma: no cover
            raise WorkbenchError("the writer's lock needs fcntl (POSIX); this platform has none")
        if self.path.is_symlink() or (self.path.exists() and not self.path.is_file()):
            kind = "a symbolic link" if self.path.is_symlink() else (
                "a folder" if self.path.is_dir() else "not a regular file")
            raise WorkbenchError(f"cannot lock {self.what}: its lock file {self.path} is {kind}, not the "
                                 f"file the workbench writes there; it is left as it is: move it away "
                                 f"(nothing else of the store needs to change), then try again")
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError as exc:
            raise WorkbenchError(f"cannot lock {self.what}: its lock file {self.path} cannot be opened "
                                 f"({exc.strerror or exc})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _read(fd)
            os.close(fd)
            raise LockHeldError(f"{self.what} is being written by another run ({describe(holder)}); "
                                f"wait for it to finish or stop it, then try again", holder) from None
        previous = _read(fd)
        self.recovered = previous or None
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, json.dumps({
            "pid": os.getpid(), "host": socket.gethostname(),
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "command": " ".join(sys.argv)[:2000]}).encode("utf-8"))
        os.fsync(fd)
        self.fd = fd
        return self

    def release(self) -> None:
        """Empty the lock record and release the lock (no-op when not held)."""
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        try:
            os.ftruncate(fd, 0)
        except OSError:
            pass
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> "FolderLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
