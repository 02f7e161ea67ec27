"""The wear result store: a zarr group that grows by one ``cycle`` row per update.

Every update appends one row to every variable with a ``cycle`` dimension (``to_zarr(append_dim=
"cycle")``) and *then* raises the group attribute ``updates_completed``.  A run killed while
writing leaves at most one partial row; :func:`open_store` and :meth:`WearStore.resume` trim every
variable back to ``updates_completed`` rows, so a reader, or a resumed run, only ever sees whole
updates.  The store is read with xarray's own zarr reader: :func:`open_store` (or
:func:`workbench.results.dataset.open_results`) opens it with :class:`xarray.backends.ZarrStore` and cuts
each variable at the completed rows *before* the dataset is formed (:func:`xarray.open_zarr`
itself would refuse a store whose variables differ by a row being appended); a finished store
also opens with ``xarray.open_zarr(path, consolidated=False)``.

Safety (the writer side): :class:`StoreSession` opens the store of one run *before* any work --
the output-path rules of :mod:`workbench.results.outputs` (new path, or a store of ours; never an input,
a file or a foreign folder), the writer's lock of :mod:`workbench.runtime.locks` (a second writer or a
``--resume`` while a run writes gets a clear message; a dead writer's lock is taken over with a
note), and the state of an existing store: finished (replaced only with ``overwrite``, the new
store written next to it and swapped in), unfinished (continued with ``resume``, or replaced
with ``overwrite``), or caught mid-creation with no completed update (restarted, also by a plain
re-run).  On an exception the store keeps its completed updates and its ``run_status`` says
``interrupted`` (Ctrl-C) or ``failed: ...``; both can be continued with ``resume``.
:func:`guarded` wraps :func:`workbench.wear.loop.run_wear_study` in a session.
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import warnings
from pathlib import Path

import xarray as xr

from ..errors import WorkbenchError
from ..runtime.locks import FolderLock
from ..results.outputs import STORE_META, OutputError, check_writable, is_our_store, store_attrs, write_marker
# the store's layout and its reader live with the other file helpers (re-exported: tests and scripts use them here)
from ..results.outputs import APPEND_DIMS, COMPLETED, RECORDS, open_store  # noqa: F401



def _trim(path: Path) -> tuple[int, int]:
    """Cut every appended variable of the store at ``path`` to its completed rows; return the
    numbers of completed updates and dynamics records."""
    import zarr
    group = zarr.open_group(str(path), mode="r+")
    done = {dim: int(group.attrs.get(attr, 0)) for dim, attr in APPEND_DIMS.items()}
    for name, arr in group.arrays():
        dims = arr.attrs.get("_ARRAY_DIMENSIONS") or ()
        if dims and dims[0] in done and arr.shape[0] > done[dims[0]]:
            arr.resize((done[dims[0]],) + arr.shape[1:])
    return done["cycle"], done["record"]


class WearStore:
    """Append-only writer of one wear run (see the module docstring)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.rows = 0
        self.records = 0
        self.attrs: dict = {}   # dataset attributes: re-sent with every append (xarray rewrites them)

    # -- lifecycle
    def create(self, first: xr.Dataset) -> None:
        """Start a new store with the first row ``first``.

        The store must have been opened by a :class:`StoreSession` of this process (which checked
        and prepared the folder and holds its lock); without one, only a path that does not exist
        yet is accepted.  Nothing is ever deleted here.
        """
        session = held_here(self.path)
        if session is None:
            if self.path.exists():
                raise OutputError(f"{self.path} exists: a wear store is created only at a new path "
                                  f"or through a StoreSession (run_wear_study)")
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.attrs = dict(first.attrs)
        # in a session the folder holds only our marker and lock (the session cleared it): "a"
        # creates the group there; "w-" would refuse the non-empty folder
        mode = "a" if session is not None and completed_updates(self.path) == 0 else "w-"
        from ..results.cf import cf_clean, cf_encoding
        first = cf_clean(first)
        first.to_zarr(str(self.path), mode=mode, consolidated=False, zarr_format=2,
                      encoding=cf_encoding(first))
        self._completed(1, 1 if "record" in first.dims else 0)

    def resume(self) -> xr.Dataset:
        """Open an existing store for appending; return its completed rows (loaded)."""
        if not self.path.exists():
            raise WorkbenchError(f"cannot resume: no wear store at {self.path}")
        try:
            self.rows, self.records = _trim(self.path)
        except Exception as exc:  # not a zarr group, or unreadable
            raise WorkbenchError(f"cannot resume from {self.path}: not a wear result store ({exc})") from None
        if self.rows == 0:
            raise WorkbenchError(f"cannot resume from {self.path}: it holds no completed update")
        ds = open_store(self.path)
        self.attrs = {k: v for k, v in ds.attrs.items() if k not in (COMPLETED, RECORDS)}
        return ds

    def append(self, row: xr.Dataset, record: xr.Dataset | None = None) -> None:
        """Append one update (variables with a ``cycle`` dimension of length 1) and, optionally,
        one dynamics record (variables with a ``record`` dimension of length 1)."""
        from ..results.cf import cf_clean
        row = cf_clean(row[[v for v in row.data_vars if "cycle" in row[v].dims]].assign_attrs(self.attrs))
        row.to_zarr(str(self.path), append_dim="cycle", consolidated=False)
        if record is not None:
            record = cf_clean(record[[v for v in record.data_vars if "record" in record[v].dims]]
                              .assign_attrs(self.attrs))
            record.drop_vars([c for c in record.coords if "record" not in record[c].dims]).to_zarr(
                str(self.path), append_dim="record", consolidated=False)
        self._completed(self.rows + 1, self.records + (record is not None))

    def set_attrs(self, **attrs) -> None:
        import zarr
        from ..results.variables import json_attr   # strict JSON, the one convention
        attrs = {k: (json_attr(v) if isinstance(v, (dict, list)) else v) for k, v in attrs.items()}
        self.attrs.update(attrs)
        zarr.open_group(str(self.path), mode="r+").attrs.update(attrs)

    def _completed(self, rows: int, records: int) -> None:
        import zarr
        self.rows, self.records = rows, records
        zarr.open_group(str(self.path), mode="r+").attrs.update({COMPLETED: rows, RECORDS: records})


# ------------------------------------------------------------------------------ the writer's session
_HELD: dict[str, "StoreSession"] = {}


def held_here(path: str | Path) -> "StoreSession | None":
    """The open :class:`StoreSession` of this process on ``path``, or ``None``."""
    return _HELD.get(str(Path(path).resolve()))


def completed_updates(path: str | Path) -> int:
    """Number of completed updates recorded in the store at ``path`` (0 if none or no store)."""
    try:
        return int((store_attrs(path) or {}).get(COMPLETED, 0))
    except (TypeError, ValueError):
        return 0


def _has_user_entries(p: Path) -> bool:
    """Anything in the folder ``p`` besides our own marker sub-group (a run killed right after
    creating the folder may leave just that)."""
    return any(e.name != STORE_META for e in p.iterdir())


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


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
        done = completed_updates(p)
        status = str((store_attrs(p) or {}).get("run_status", ""))
        if done == 0:
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
            # safe: inside our own store (marker checked, our lock held) that holds no completed update
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
        if p.exists() and completed_updates(p) == 0 and is_our_store(p):
            shutil.rmtree(p)  # safe: the new store this session made, holding no completed update
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
            if not _pid_alive(pid) and is_our_store(old):
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
                status = str((store_attrs(p) or {}).get("run_status", ""))
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
            elif exc is not None and done == 0 and self.created and is_our_store(p):
                self._release()
                shutil.rmtree(p)  # safe: the folder this session created; it holds no completed update
        finally:
            self._release()
            _HELD.pop(str(p.resolve()), None)

    def _status(self, status: str) -> None:
        import zarr
        zarr.open_group(str(self.path), mode="r+").attrs["run_status"] = status

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


def guarded(run):
    """Decorate ``run_wear_study(study, *, out, resume, ...)``: open a :class:`StoreSession` on
    ``out`` before any work and close it afterwards.  Adds the keyword ``overwrite`` (replace a
    store of ours); ``note`` (a callable receiving the session's notes) is passed to the session."""
    @functools.wraps(run)
    def wrapper(study, *, out, resume: bool = False, overwrite: bool = False, note=None, **kw):
        session = StoreSession(out, resume=resume, overwrite=overwrite, note=note).open()
        try:
            result = run(study, out=out, resume=session.resume, **kw)
        except BaseException as exc:
            from ..runtime.interrupts import as_interrupt
            exc2 = as_interrupt(exc)   # Ctrl-C inside compiled code surfaces as a SystemError
            session.close(exc2)
            if exc2 is not exc:
                raise exc2 from exc
            raise
        session.close(None)
        return result
    wrapper.__doc__ = (run.__doc__ or "") + """
    Data safety (:func:`workbench.wear.store.guarded`): ``out`` is opened by a
    :class:`~workbench.wear.store.StoreSession` before any work -- a finished or unfinished store
    is replaced only with ``overwrite=True``, a store caught mid-creation is restarted, a store
    being written by another run is refused; ``note(message)`` receives what the session did on
    the user's behalf (default: a RuntimeWarning).
    """
    return wrapper
