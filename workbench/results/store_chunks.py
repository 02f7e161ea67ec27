"""Every chunk file of a wear store's completed rows is on disk, or the store is called damaged.

zarr reads a missing chunk file as the array's fill value (NaN, 0) without a word: a chunk deleted
by hand, by a cleaning script or a sync tool would reach the wear loop as NaN profiles or radii
and end, far away, in an error blaming the contact law.  The workbench writes every chunk
(``write_empty_chunks``), so :func:`missing_chunks` lists the chunk files a store must hold -- of
every array, along the appended dimensions up to the committed rows -- and :func:`check_chunks`
raises :class:`~workbench.results.store_commit.StoreDamaged` naming the store, the variable and
the missing file.  Called when a store is read (:func:`workbench.results.store_reader.open_store`)
and when a run opens it (:class:`workbench.wear.session.StoreSession`); one ``stat`` per chunk
file (a few milliseconds for hundreds of updates).
"""
from __future__ import annotations

import itertools
import math
from pathlib import Path

from .store_commit import APPEND_DIMS, Committed, StoreDamaged, _arrays


def _names(meta: dict, rows: int | None) -> list[str]:
    """Chunk file names of an array (zarr v2 layout); along its first dimension only the chunks of
    the first ``rows`` rows when ``rows`` is given."""
    shape, chunks = list(meta["shape"]), list(meta["chunks"])
    if not shape:
        return ["0"]
    sep = meta.get("dimension_separator") or "."
    if rows is not None:
        shape[0] = min(shape[0], rows)
    grid = [range(math.ceil(s / c)) if c else range(1) for s, c in zip(shape, chunks)]
    return [sep.join(map(str, idx)) for idx in itertools.product(*grid)]


def missing_chunks(store: str | Path, c: Committed) -> list[Path]:
    """Chunk files the store at ``store`` must hold for the completed rows of ``c`` and does not."""
    store = Path(store)
    done = {"cycle": c.updates, "record": c.records}
    missing = []
    for folder, meta, dims in _arrays(store):
        rows = done[dims[0]] if dims and dims[0] in APPEND_DIMS else None
        missing += [folder / n for n in _names(meta, rows) if not (folder / n).is_file()]
    return missing


def check_chunks(store: str | Path, c: Committed) -> None:
    """Raise :class:`StoreDamaged` naming the first missing chunk file (see the module docstring)."""
    missing = missing_chunks(store, c)
    if missing:
        first = missing[0]
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise StoreDamaged(f"{store}: the chunk file {first.parent.name}/{first.name} of the variable "
                           f"'{first.parent.name}' is missing{more}: the store is damaged (a file was "
                           f"removed; zarr would read it as fill values); nothing was changed: restore "
                           f"the file from a copy of the store, or run the study again into a new store")
