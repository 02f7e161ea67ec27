"""Reading a wear store: the completed updates only, safe while a run is appending.

The store's layout and its commit record are :mod:`workbench.results.store_commit`; the writer is
:mod:`workbench.wear.store`.  Every appended variable is read up to the completed rows of the
commit record, so a row being written is never seen.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import WorkbenchError
from . import store_commit as commit
from .store_commit import COMPLETED, RECORDS, StoreDamaged


def _committed(path: Path, what: str) -> commit.Committed:
    from .store_chunks import check_chunks
    try:
        c = commit.committed(path)
        if c.updates:   # a deleted chunk file would read as fill values
            check_chunks(path, c)
        return c
    except StoreDamaged as exc:
        raise StoreDamaged(f"cannot {what}: {exc}") from None


def open_store(path: str | Path) -> "xr.Dataset":
    """The completed updates of the wear store at ``path`` as a dataset (loaded).

    Read-only and safe while a run is appending: every appended variable is read up to the
    completed rows of the commit record (:mod:`.store_commit`), so a row being written is never seen.
    """
    import xarray as xr
    path = Path(path)
    c = _committed(path, f"read the wear store {path}")
    try:
        store = xr.backends.ZarrStore.open_group(str(path), mode="r", consolidated=False)
    except Exception as exc:  # noqa: BLE001 - not a zarr group, or its metadata files are damaged
        hint = (" (its commit record is intact: `workbench run STUDY -o STORE --resume` repairs it)"
                if c.source == "state" and c.updates else "")
        raise WorkbenchError(f"{path}: cannot read it as a wear store: {exc}{hint}") from None
    try:
        variables, attrs = store.load()   # lazily indexed: nothing is read yet
        attrs = {**attrs, **(c.attrs or {}), COMPLETED: c.updates, RECORDS: c.records}
        done = {"cycle": c.updates, "record": c.records}
        variables = {name: v.isel({d: slice(0, done[d]) for d in v.dims if d in done})
                     for name, v in variables.items()}
        ds = xr.decode_cf(xr.Dataset(variables, attrs=attrs), decode_times=False, decode_timedelta=False)
        return ds.load()
    finally:
        store.close()
