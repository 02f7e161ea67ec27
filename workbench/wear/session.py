"""One run's claim on its wear store: output rules, the writer's lock, restart, resume, replace.

:class:`StoreSession` opens the store of one run *before* any work -- the output-path rules of
:mod:`workbench.results.outputs` (new path, or a store of ours; never an input, a file or a foreign
folder), the writer's lock of :mod:`workbench.runtime.locks`, and the state of an existing store
(finished, unfinished, or caught mid-creation with provably no completed update: see
:mod:`workbench.wear.store` and :mod:`.commit`).  :func:`guarded` wraps
:func:`workbench.wear.loop.run_wear_study` in a session; a failure to write the store becomes a
:class:`~workbench.wear.store.StoreWriteError` naming the cause and the updates kept.
"""
from __future__ import annotations

import functools
import os
import shutil
import warnings
from pathlib import Path

from ..errors import WorkbenchError
from ..runtime.abandoned import pid_alive
from ..runtime.locks import FolderLock
from ..results.outputs import STORE_META, OutputError, check_link, check_writable, is_our_store, write_marker
from ..results import store_commit as commit
from ..results.store_chunks import check_chunks
from ..results.store_commit import StoreDamaged
from .store import _HELD, StoreWriteError, WearStore, _os_text, completed_updates, held_here, provably_empty  # noqa: F401

# ------------------------------------------------------------------------------ the writer's session
def _has_user_entries(p: Path) -> bool:
    """Anything in the folder ``p`` besides our own marker sub-group (a run killed right after
    creating the folder may leave just that)."""
    return any(e.name != STORE_META for e in p.iterdir())


class StoreSession:
    """One run's claim on the wear store at ``path`` (see the module docstring).

    ``resume`` : continue the stored run.  ``overwrite`` : replace a store of ours (finished or
    not).  ``note(message)`` reports what the session did on the user's behalf (a stale lock taken
    over, a store caught mid-creation restarted, a replaced store); default: a RuntimeWarning.
    After :meth:`open`, :attr:`resume` says whether the run continues the stored rows.
    """

    def __init__(self, path: str | Path, *, resume: bool = False, overwrite: bool = False, note=None):
        self.path = Path(path)
        self.resume, self.overwrite = bool(resume), bool(overwrite)
        self.note = note or (lambda msg: warnings.warn(msg, RuntimeWarning, stacklevel=4))
        self.lock: FolderLock | None = None
        self.created = False              # this session made the folder
        self.replaced: Path | None = None  # where the store replaced with overwrite waits
        self._old_lock: FolderLock | None = None
        self._done_at_open = 0

    # -- opening
    def open(self) -> "StoreSession":
        p = self.path
        if self.resume and self.overwrite:
            raise OutputError(f"{p}: --resume continues the stored run and --overwrite replaces it; give one")
        if p.suffix.lower() != ".zarr":
            raise OutputError(f"{p}: a wear study writes a zarr store (a folder), so the output name must "
                              f"end in '.zarr' (got '{p.suffix or 'no suffix'}')")
        check_link(p, "the wear store", overwrite=self.overwrite)
        if p.exists() and not p.is_dir():
            raise OutputError(f"{p} is an existing file, not a wear store; it is never written over: "
                              f"choose another output path")
        if p.is_dir() and _has_user_entries(p) and not is_our_store(p):
            raise OutputError(f"{p} is an existing folder that is not a workbench wear store; it is never "
                              f"written into: choose a new name ending in '.zarr'")
        if self.resume and not p.exists():
            raise WorkbenchError(f"cannot resume: no wear store at {p}")
        self._report_leftovers()
        if not p.exists():
            try:
                p.mkdir(parents=True)
                self.created = True
            except FileExistsError:
                pass
            except OSError as exc:
                raise OutputError(f"cannot create the wear store {p}: {exc.strerror or exc}; "
                                  f"choose another output path") from None
        else:
            self._refuse_missing_chunks()
            check_writable(p / STORE_META)
        try:
            if not is_our_store(p):   # new or empty: mark it ours before anything else goes in
                write_marker(p)
        except OSError as exc:
            raise OutputError(f"cannot write into the wear store {p}: {exc.strerror or exc}") from None
        self.lock = self._lock(p)
        try:
            self._prepare()
        except BaseException:
            self._release()
            raise
        self._done_at_open = completed_updates(p)
        _HELD[str(p.resolve())] = self
        return self

    def _refuse_missing_chunks(self) -> None:
        """A store of ours missing a chunk file of a completed row is refused before the lock is
        taken, so that the refusal changes no file of it (with ``overwrite`` it is replaced)."""
        p = self.path
        if self.overwrite or not is_our_store(p):
            return
        try:
            c = commit.committed(p)
            if c.updates:
                check_chunks(p, c)
        except StoreDamaged as exc:
            raise OutputError(f"{exc}; choose another output path, or pass --overwrite to replace it") from None

    def _lock(self, folder: Path) -> FolderLock:
        lock = FolderLock(folder / STORE_META, what=f"the wear store {self.path}").acquire()
        if lock.recovered:
            from ..runtime.locks import describe
            self.note(f"{self.path}: took over the lock of a run that is no longer running "
                      f"({describe(lock.recovered)})")
        return lock

    def _prepare(self) -> None:
        """Under the lock: check the store's state; restart, continue or replace it."""
        p = self.path
        if not is_our_store(p):
            if _has_user_entries(p):
                raise OutputError(f"{p} is not a workbench wear store; it is never written into")
            write_marker(p)
        try:
            commit.remove_partials(p)   # temporary files of a write a killed run abandoned
        except OSError as exc:
            raise OutputError(f"cannot write into the wear store {p}: {exc.strerror or exc}") from None
        try:
            c = commit.committed(p)
            if c.updates:   # a deleted chunk file would reach the loop as NaN
                check_chunks(p, c)
        except StoreDamaged as exc:
            if self.overwrite:
                self._swap()
                return
            raise OutputError(f"{exc}; choose another output path, or pass --overwrite to replace it") from None
        done = c.updates
        status = str((c.attrs or {}).get("run_status", ""))
        if c.provably_empty:   # the commit record says 0, or no row is held by every variable
            if any(e.name != STORE_META for e in p.iterdir()):
                self.note(f"{p} holds a wear run stopped before its first update was completed "
                          f"({status or 'no status'}); starting it again")
                self._clear(p)
            self.resume = False
            return
        if self.resume:
            return
        if self.overwrite:
            self._swap()
            return
        if status == "complete":
            raise OutputError(f"{p} already holds a finished wear run ({done} updates); pass --overwrite "
                              f"to replace it, or choose another output path")
        raise OutputError(f"{p} holds an unfinished wear run ({done} completed updates, status "
                          f"'{status or 'interrupted'}'); continue it with --resume, or pass --overwrite "
                          f"to start again")

    @staticmethod
    def _clear(p: Path) -> None:
        for e in p.iterdir():
            if e.name == STORE_META:
                continue
            # safe: inside our own store (marker checked, our lock held) that provably holds no
            # completed update (commit.committed: its commit record says 0, or no row is whole)
            shutil.rmtree(e) if e.is_dir() and not e.is_symlink() else e.unlink()  # safe: see above

    def _swap(self) -> None:
        """Move our store aside (kept until the new run has completed an update) and start anew."""
        p = self.path
        old = p.with_name(f".{p.name}.replaced-{os.getpid()}")
        os.rename(p, old)          # same folder: atomic; our lock moves with it
        self.replaced, self._old_lock, self.lock = old, self.lock, None
        try:
            p.mkdir()
            self.created = True
            write_marker(p)
            self.lock = self._lock(p)
        except BaseException:
            self._restore_replaced()
            raise
        self.note(f"replacing the wear store {p} (--overwrite); the earlier one waits at {old} until "
                  f"the new run has completed an update")

    def _restore_replaced(self) -> None:
        p, old = self.path, self.replaced
        if self.lock is not None:
            self.lock.release()
            self.lock = None
        if p.exists() and is_our_store(p) and provably_empty(p):
            shutil.rmtree(p)  # safe: the new store this session made, provably holding no completed update
        if not p.exists():
            os.rename(old, p)
        self.replaced = None
        self.lock, self._old_lock = self._old_lock, None

    def _report_leftovers(self) -> None:
        for old in self.path.parent.glob(f".{self.path.name}.replaced-*"):
            try:
                pid = int(old.name.rsplit("-", 1)[1])
            except ValueError:
                continue
            if not pid_alive(pid) and is_our_store(old):
                self.note(f"{old} is a wear store that a run with --overwrite moved aside from {self.path} "
                          f"and did not finish replacing; move it back or delete it")

    # -- closing
    def close(self, exc: BaseException | None = None) -> None:
        """End the session: record an interruption or failure, finish or undo a replacement,
        release the lock.  Completed updates are always kept."""
        p = self.path
        try:
            done = completed_updates(p) if p.is_dir() else 0
            if exc is not None and done > 0:
                status = str((commit.committed(p).attrs or {}).get("run_status", ""))
                if isinstance(exc, KeyboardInterrupt) and status != "complete":
                    self._status("interrupted (resume with --resume)")
                elif not isinstance(exc, KeyboardInterrupt) and done > self._done_at_open:
                    self._status(f"failed: {exc} (the completed updates are kept; resume with --resume)")
            if self.replaced is not None:
                if done > 0:
                    self._release_old()
                    shutil.rmtree(self.replaced)  # safe: our store, checked before the swap and locked since; replaced as asked
                    self.replaced = None
                else:
                    self._restore_replaced()
            elif exc is not None and self.created and is_our_store(p) and provably_empty(p):
                self._release()
                shutil.rmtree(p)  # safe: the folder this session created; it provably holds no completed update
        finally:
            self._release()
            _HELD.pop(str(p.resolve()), None)

    def _status(self, status: str) -> None:
        """Commit ``run_status`` (best effort: a full disk must not hide the run's own error)."""
        try:
            c = commit.committed(self.path)
            if c.attrs is None or c.source != "state":
                return   # nothing to build a commit record from; resume repairs the store
            store = WearStore(self.path)
            store.rows, store.records, store.attrs = c.updates, c.records, dict(c.attrs)
            store.set_attrs(run_status=status)
        except (OSError, WorkbenchError) as exc:
            self.note(f"{self.path}: could not record run_status '{status[:60]}' ({exc}); the completed "
                      f"updates are kept")

    def _release_old(self) -> None:
        if self._old_lock is not None:
            self._old_lock.release()
            self._old_lock = None

    def _release(self) -> None:
        if self.lock is not None:
            self.lock.release()
            self.lock = None
        self._release_old()

    def __enter__(self) -> "StoreSession":
        return self.open()

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(exc)


def already_complete(path: str | Path, study) -> int:
    """The number of updates when the store at ``path`` holds the finished run of ``study`` (same
    study text), intact (commit record, root attributes and every chunk file in place): ``--resume``
    then has nothing to do and changes nothing -- no lock taken, no attribute rewritten.  0
    otherwise (the normal resume repairs or refuses)."""
    path = Path(path)
    try:
        if path.is_symlink() or not path.is_dir() or not is_our_store(path):
            return 0
        c = commit.committed(path)
        attrs = c.attrs or {}
        if (c.source != "state" or c.updates <= 0 or c.problems or attrs.get("run_status") != "complete"
                or attrs.get("study_text") != getattr(study, "text", None)):
            return 0
        import json
        copy = json.loads((path / ".zattrs").read_text())
        if copy.get(commit.COMPLETED) != c.updates or copy.get("run_status") != "complete":
            return 0
        check_chunks(path, c)
    except (OSError, ValueError, AttributeError, WorkbenchError):
        return 0
    return c.updates


def guarded(run):
    """Decorate ``run_wear_study(study, *, out, resume, ...)``: open a :class:`StoreSession` on
    ``out`` before any work and close it afterwards.  Adds the keyword ``overwrite`` (replace a
    store of ours); ``note`` (a callable receiving the session's notes) is passed to the session."""
    @functools.wraps(run)
    def wrapper(study, *, out, resume: bool = False, overwrite: bool = False, note=None, **kw):
        if resume and not overwrite:
            n = already_complete(out, study)
            if n:   # nothing to continue: the store is left exactly as it is
                (note or (lambda m: warnings.warn(m, RuntimeWarning, stacklevel=2)))(
                    f"{out} is already complete ({n} updates of this study); nothing was run or written")
                from .store import open_store
                return open_store(out)
        session = StoreSession(out, resume=resume, overwrite=overwrite, note=note).open()
        try:
            result = run(study, out=out, resume=session.resume, **kw)
        except BaseException as exc:
            from ..runtime.interrupts import as_interrupt
            exc2 = as_interrupt(exc)   # Ctrl-C inside compiled code surfaces as a SystemError
            session.close(exc2)
            if exc2 is not exc:
                raise exc2 from exc
            if isinstance(exc, OSError):   # disk full, read-only, I/O error: a message, not a traceback
                n = completed_updates(out)
                kept = (f"{out} keeps its {n} completed updates; continue with --resume once the cause is "
                        f"fixed" if n else "no update was completed, so no store was kept")
                raise StoreWriteError(f"the wear run stopped: {_os_text(exc)}; {kept}") from exc
            raise
        session.close(None)
        return result
    wrapper.__doc__ = (run.__doc__ or "") + """
    Data safety (:func:`workbench.wear.session.guarded`): ``out`` is opened by a
    :class:`~workbench.wear.session.StoreSession` before any work -- a finished or unfinished store
    is replaced only with ``overwrite=True``, a store caught mid-creation is restarted, a store
    being written by another run is refused; ``note(message)`` receives what the session did on
    the user's behalf (default: a RuntimeWarning).
    """
    return wrapper
