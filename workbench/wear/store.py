"""The wear result store: a zarr group that grows by one ``cycle`` row per update.

Every update appends one row to every variable with a ``cycle`` dimension (``to_zarr(append_dim=
"cycle")``), flushes those rows to the disk and *then* commits the number of completed updates
in one atomic step: the commit record ``.workbench/state.json`` of :mod:`workbench.results.store_commit`, written to a
temporary name and renamed over the old one.  The count is never absent: the root attributes
that xarray rewrites while appending carry the count of the updates completed *before* the row
being written, and the commit record holds the old or the new count at every instant.  A run
killed anywhere leaves at most one partial row; :func:`open_store` reads, and
:meth:`WearStore.resume` keeps, only the committed rows, so a reader, or a resumed run, only ever
sees whole updates.  A store whose commit record is missing or damaged is recovered from the rows
its arrays hold (:func:`workbench.results.store_commit.committed`); the workbench never deletes a completed update.
The store is read with xarray's own zarr reader: :func:`open_store` (or
:func:`workbench.results.open_results`) opens it with :class:`xarray.backends.ZarrStore` and cuts
each variable at the completed rows *before* the dataset is formed (:func:`xarray.open_zarr`
itself would refuse a store whose variables differ by a row being appended); a finished store
also opens with ``xarray.open_zarr(path, consolidated=False)``.

Safety (the writer side, :mod:`.session`): :class:`StoreSession` opens the store of one run *before* any work --
the output-path rules of :mod:`workbench.results.outputs` (new path, or a store of ours; never an input,
a file or a foreign folder), the writer's lock of :mod:`workbench.runtime.locks` (a second writer or a
``--resume`` while a run writes gets a clear message; a dead writer's lock is taken over with a
note), and the state of an existing store: finished (replaced only with ``overwrite``, the new
store written next to it and swapped in), unfinished (continued with ``resume``, or replaced
with ``overwrite``), or caught mid-creation with provably no completed update (restarted, also
by a plain re-run).  On an exception the store keeps its completed updates and its
``run_status`` says ``interrupted`` (Ctrl-C) or ``failed: ...``; both can be continued with
``resume``.  A failure to write the store (disk full, read-only, I/O error) ends the run with a
:class:`StoreWriteError` naming the file and the updates kept.  :func:`guarded` wraps
:func:`workbench.wear.loop.run_wear_study` in a session.
"""
from __future__ import annotations

import json
from pathlib import Path

import xarray as xr

from ..errors import WorkbenchError
from ..results import store_commit as commit
from ..results.outputs import OutputError, write_marker
from ..results.store_commit import APPEND_DIMS, COMPLETED, RECORDS, StoreDamaged  # noqa: F401 - public names
from ..results.store_reader import _committed, open_store  # noqa: F401 - public names

__all__ = ["COMPLETED", "RECORDS", "APPEND_DIMS", "WearStore", "StoreWriteError", "StoreDamaged", "open_store",
           "completed_updates"]


#: the open writer sessions of this process (:class:`workbench.wear.session.StoreSession`), by path
_HELD: dict = {}


def held_here(path: str | Path):
    """The open :class:`~workbench.wear.session.StoreSession` of this process on ``path``, or ``None``."""
    return _HELD.get(str(Path(path).resolve()))


class StoreWriteError(WorkbenchError):
    """The wear store could not be written (disk full, read-only, I/O error); the completed
    updates are kept."""


class WearStore:
    """Append-only writer of one wear run (see the module docstring)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.rows = 0
        self.records = 0
        self.attrs: dict = {}   # the committed dataset attributes (without the counters)

    # -- lifecycle
    def create(self, first: xr.Dataset, attrs: dict | None = None) -> None:
        """Start a new store with the first row ``first`` (and dataset attributes ``attrs``
        committed with it).

        The store must have been opened by a :class:`StoreSession` of this process (which checked
        and prepared the folder and holds its lock); without one, only a path that does not exist
        yet is accepted.  Nothing is ever deleted here.
        """
        session = held_here(self.path)
        if session is None:
            if self.path.exists():
                raise OutputError(f"{self.path} exists: a wear store is created only at a new path "
                                  f"or through a StoreSession (run_wear_study)")
            self.path.mkdir(parents=True)
            write_marker(self.path)
        elif not commit.committed(self.path).provably_empty:   # the session cleared it
            raise OutputError(f"{self.path} holds completed updates: it is continued with resume, never "
                              f"created again")
        self.attrs = commit.plain_attrs({**first.attrs, **_encoded(attrs or {})})
        self.rows = self.records = 0
        commit.write_state(self.path, updates=0, records=0, attrs=self.attrs)   # before any row
        from ..results.cf import cf_clean, cf_encoding
        first = cf_clean(first.assign_attrs(self._counted()))
        first.to_zarr(str(self.path), mode="a", consolidated=False, zarr_format=2, write_empty_chunks=True,
                      encoding=cf_encoding(first))
        self._commit(1, 1 if "record" in first.dims else 0)

    def resume(self) -> xr.Dataset:
        """Open an existing store for appending; return its completed rows (loaded).

        Cuts the rows beyond the committed ones (a partial update of a killed run), removes the
        temporary files of an abandoned write, and repairs a missing or damaged commit record or
        root attributes file from the other (or from the arrays).  Never cuts a completed row.
        """
        if not self.path.exists():
            raise WorkbenchError(f"cannot resume: no wear store at {self.path}")
        c = _committed(self.path, f"resume from {self.path}")
        if c.updates == 0:
            raise WorkbenchError(f"cannot resume from {self.path}: it holds no completed update")
        if c.attrs is None:
            raise WorkbenchError(
                f"cannot resume from {self.path}: {c.describe()}the attributes that say which study made it "
                f"are lost, so the run cannot be continued; its {c.updates} completed updates are kept in "
                f"the arrays (nothing was changed)")
        try:
            commit.remove_partials(self.path)
            self.rows, self.records, self.attrs = c.updates, c.records, dict(c.attrs)
            self._mirror()   # first: zarr cannot open a group whose .zattrs is damaged
            _cut(self.path, {"cycle": c.updates, "record": c.records})
            if c.source != "state":
                commit.write_state(self.path, updates=self.rows, records=self.records, attrs=self.attrs)
        except OSError as exc:
            raise StoreWriteError(f"cannot resume {self.path}: {_os_text(exc)}; its {c.updates} completed "
                                  f"updates are kept") from None
        return open_store(self.path)

    def append(self, row: xr.Dataset, record: xr.Dataset | None = None, attrs: dict | None = None) -> None:
        """Append one update (variables with a ``cycle`` dimension of length 1) and, optionally,
        one dynamics record (variables with a ``record`` dimension of length 1); ``attrs`` (dataset
        attributes) are committed with it."""
        counted = self._counted()   # xarray rewrites the root attributes: with the count as it is
        if record is not None:      # the record first: a completed row always has its record
            from ..results.cf import cf_clean
            record = cf_clean(record[[v for v in record.data_vars if "record" in record[v].dims]].assign_attrs(counted))
            record.drop_vars([c for c in record.coords if "record" not in record[c].dims]).to_zarr(
                str(self.path), append_dim="record", consolidated=False, write_empty_chunks=True)
        from ..results.cf import cf_clean
        row = cf_clean(row[[v for v in row.data_vars if "cycle" in row[v].dims]].assign_attrs(counted))
        row.to_zarr(str(self.path), append_dim="cycle", consolidated=False, write_empty_chunks=True)
        self._commit(self.rows + 1, self.records + (record is not None), attrs)

    def set_attrs(self, **attrs) -> None:
        """Commit dataset attributes (dicts and lists stored as JSON text) with the current count."""
        self._commit(self.rows, self.records, attrs)

    def _counted(self) -> dict:
        return {**self.attrs, COMPLETED: self.rows, RECORDS: self.records}

    def _commit(self, rows: int, records: int, attrs: dict | None = None) -> None:
        """Flush the new rows, commit the count (atomic), then copy it to the root attributes."""
        new = {**self.attrs, **commit.plain_attrs(_encoded(attrs or {}))}
        if rows > self.rows or records > self.records:
            commit.sync_rows(self.path, {"cycle": rows - 1 if rows > self.rows else None,
                                         "record": records - 1 if records > self.records else None})
        commit.write_state(self.path, updates=rows, records=records, attrs=new)
        self.rows, self.records, self.attrs = rows, records, new
        self._mirror()

    def _mirror(self) -> None:
        """Copy the committed attributes and count to the root ``.zattrs`` (atomic rename)."""
        commit.write_json(self.path / ".zattrs", self._counted(), durable=False)   # a copy: the record rules


def _encoded(attrs: dict) -> dict:
    return {k: (json.dumps(v) if isinstance(v, (dict, list)) else v) for k, v in attrs.items()}


def _cut(path: Path, done: dict) -> None:
    """Cut every appended variable of the store at ``path`` to its ``done[dim]`` completed rows."""
    import zarr
    group = zarr.open_group(str(path), mode="r+", zarr_format=2)
    for _name, arr in group.arrays():
        dims = arr.attrs.get("_ARRAY_DIMENSIONS") or ()
        if dims and dims[0] in done and arr.shape[0] > done[dims[0]]:
            arr.resize((done[dims[0]],) + arr.shape[1:])


def _os_text(exc: OSError) -> str:
    import errno
    name = errno.errorcode.get(exc.errno or 0, "")
    where = f": {exc.filename}" if exc.filename else ""
    return f"{exc.strerror or exc}{f' ({name})' if name else ''}{where}"


def completed_updates(path: str | Path) -> int:
    """Number of completed updates of the store at ``path`` (:func:`.commit.committed`; 0 if no
    store, or a damaged one -- which :func:`provably_empty` never calls empty)."""
    try:
        return commit.committed(path).updates if Path(path).is_dir() else 0
    except StoreDamaged:
        return 0


def provably_empty(path: str | Path) -> bool:
    """True only when the store at ``path`` provably holds no completed update (the condition
    for the workbench to remove what a run wrote there); False for a damaged store."""
    try:
        return commit.committed(path).provably_empty
    except StoreDamaged:
        return False
