"""The wear result store: a zarr group that grows by one ``cycle`` row per update.

Every update appends one row to every variable with a ``cycle`` dimension (``to_zarr(append_dim=
"cycle")``) and *then* raises the group attribute ``updates_completed``.  A run killed while
writing leaves at most one partial row; :func:`open_store` and :meth:`WearStore.resume` trim every
variable back to ``updates_completed`` rows, so a reader, or a resumed run, only ever sees whole
updates.  The store is read with :func:`xarray.open_zarr` (``consolidated=False``) or
:func:`workbench.results.open_results`.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import xarray as xr
import zarr

from ..errors import WorkbenchError

COMPLETED = "updates_completed"
RECORDS = "records_completed"
APPEND_DIMS = {"cycle": COMPLETED, "record": RECORDS}


def _trim(path: Path) -> tuple[int, int]:
    """Cut every appended variable of the store at ``path`` to its completed rows; return the
    numbers of completed updates and dynamics records."""
    group = zarr.open_group(str(path), mode="r+")
    done = {dim: int(group.attrs.get(attr, 0)) for dim, attr in APPEND_DIMS.items()}
    for name, arr in group.arrays():
        dims = arr.attrs.get("_ARRAY_DIMENSIONS") or ()
        if dims and dims[0] in done and arr.shape[0] > done[dims[0]]:
            arr.resize((done[dims[0]],) + arr.shape[1:])
    return done["cycle"], done["record"]


def open_store(path: str | Path) -> xr.Dataset:
    """The completed updates of the wear store at ``path`` as a dataset (loaded).

    Read-only and safe while a run is appending: every appended variable is read up to the
    completed rows recorded in the group attributes, so a row being written is never seen.
    """
    group = zarr.open_group(str(path), mode="r")
    done = {dim: int(group.attrs.get(attr, 0)) for dim, attr in APPEND_DIMS.items()}
    variables = {}
    for name, arr in group.arrays():
        attrs = dict(arr.attrs)
        dims = tuple(attrs.pop("_ARRAY_DIMENSIONS", ()))
        data = arr[:done[dims[0]]] if dims and dims[0] in done else arr[...]
        variables[name] = xr.Variable(dims, np.asarray(data), attrs)
    ds = xr.decode_cf(xr.Dataset(variables), decode_times=False, decode_timedelta=False)
    return ds.assign_attrs({k: v for k, v in group.attrs.items()})


class WearStore:
    """Append-only writer of one wear run (see the module docstring)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.rows = 0
        self.records = 0
        self.attrs: dict = {}   # dataset attributes: re-sent with every append (xarray rewrites them)

    # -- lifecycle
    def create(self, first: xr.Dataset) -> None:
        """Start a new store with the first row ``first`` (overwrites an existing store)."""
        if self.path.exists():
            shutil.rmtree(self.path) if self.path.is_dir() else self.path.unlink()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.attrs = dict(first.attrs)
        first.to_zarr(str(self.path), mode="w-", consolidated=False, zarr_format=2)
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
        row = row[[v for v in row.data_vars if "cycle" in row[v].dims]].assign_attrs(self.attrs)
        row.to_zarr(str(self.path), append_dim="cycle", consolidated=False)
        if record is not None:
            record = record[[v for v in record.data_vars if "record" in record[v].dims]].assign_attrs(self.attrs)
            record.drop_vars([c for c in record.coords if "record" not in record[c].dims]).to_zarr(
                str(self.path), append_dim="record", consolidated=False)
        self._completed(self.rows + 1, self.records + (record is not None))

    def set_attrs(self, **attrs) -> None:
        attrs = {k: (json.dumps(v) if isinstance(v, (dict, list)) else v) for k, v in attrs.items()}
        self.attrs.update(attrs)
        zarr.open_group(str(self.path), mode="r+").attrs.update(attrs)

    def _completed(self, rows: int, records: int) -> None:
        self.rows, self.records = rows, records
        zarr.open_group(str(self.path), mode="r+").attrs.update({COMPLETED: rows, RECORDS: records})


def last_row(ds: xr.Dataset) -> xr.Dataset:
    return ds.isel(cycle=-1)


def as_array(v) -> np.ndarray:
    return np.asarray(v.values if hasattr(v, "values") else v, float)
