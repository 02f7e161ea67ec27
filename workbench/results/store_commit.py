"""The commit record of a wear store: how many updates it completed, written in one atomic step.

A wear store grows by one ``cycle`` row per update (and, when the update keeps its dynamics, one
``record`` row).  Which rows are *completed* is decided by one small file, the commit record
``.workbench/state.json`` inside the store::

    {"format": 1, "updates_completed": N, "records_completed": M, "attrs": {... dataset attributes ...}}

It is written to a temporary name, flushed to the disk (``fsync``) and renamed over the old one
(``os.replace``, atomic on POSIX file systems), so at every instant the store holds either the
old record or the new one, never none and never a torn one.  An update writes its rows first,
flushes them, and only then commits the record (:func:`write_state`); a run killed anywhere in
between leaves rows beyond the committed count, which are not completed and are cut off when the
run is resumed.  The root attributes of the zarr group (``.zattrs``, what ``xarray.open_zarr``
shows) are a copy of the record, rewritten after it; they are never the authority.

Recovery (:func:`committed`) reads, in this order:

1. the commit record, checked against the arrays (a record counting more rows than an array
   holds is a damaged store: refused, nothing is cut);
2. when the record is missing or unreadable (a store of an earlier version, or a damaged file):
   the rows the arrays hold -- the number of leading rows that *every* appended variable has,
   with all of its chunk files present, never more than any variable has -- and the dataset
   attributes from the root ``.zattrs`` if they are readable (a counter there larger than
   the arrays' rows is refused as damage, not believed).

A store is *provably empty* -- the only case in which the workbench removes what a run wrote
into it -- when its commit record says 0, or, without a record, when no row is held by every
appended variable and no counter says otherwise (:attr:`Committed.provably_empty`).
"""
from __future__ import annotations

import itertools
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import WorkbenchError
from .outputs import STORE_META

COMPLETED = "updates_completed"
RECORDS = "records_completed"
APPEND_DIMS = {"cycle": COMPLETED, "record": RECORDS}
STATE_NAME = "state.json"
FORMAT = 1
#: temporary files of an abandoned write: zarr's (``NAME.<32 hex>.partial``) and ours
_PARTIAL = re.compile(r"(\.[0-9a-f]{32}\.partial$|^\.(state\.json|zattrs)\.\d+\.tmp$|^\.workbench-probe-)")


class StoreDamaged(WorkbenchError):
    """A wear store whose files contradict each other; nothing is cut or deleted."""


def state_path(store: str | Path) -> Path:
    return Path(store) / STORE_META / STATE_NAME


# ------------------------------------------------------------------------------ writing
def _plain(o):
    """JSON form of numpy values in attributes."""
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "item"):
        return o.item()
    raise TypeError(f"attribute value {o!r} of type {type(o).__name__} is not JSON")


def plain_attrs(attrs: dict) -> dict:
    """``attrs`` as JSON reads them back (numpy scalars and arrays to Python numbers and lists)."""
    return json.loads(json.dumps(attrs, default=_plain))


def fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass   # some file systems cannot sync a directory; the rename is still atomic
    finally:
        os.close(fd)


def write_state(store: str | Path, *, updates: int, records: int, attrs: dict) -> None:
    """Commit ``updates``/``records`` completed rows and the dataset ``attrs`` in one atomic step."""
    write_json(state_path(store), {"format": FORMAT, COMPLETED: int(updates), RECORDS: int(records),
                                   "attrs": attrs})


def write_json(path: Path, doc: dict, *, durable: bool = True) -> None:
    """Write ``doc`` as JSON to ``path`` atomically: a temporary file, renamed over it; flushed to
    the disk first (and the folder after) when ``durable``."""
    data = json.dumps(doc, default=_plain, sort_keys=True, indent=1).encode("utf-8")
    tmp = path.with_name(f".{path.name.lstrip('.')}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)  # safe: our own temporary file, made just above, never renamed into place
        except OSError:
            pass
        raise
    if durable:
        fsync_dir(path.parent)


def _syncfs(folder: Path) -> bool:
    """Flush the file system holding ``folder`` in one call (Linux ``syncfs``); False if unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(folder, os.O_RDONLY)
        try:
            return libc.syncfs(fd) == 0
        finally:
            os.close(fd)
    except (OSError, AttributeError):
        return False


def sync_rows(store: str | Path, rows: dict[str, int]) -> None:
    """Flush to the disk the files that hold row ``rows[dim]`` of every variable appended along
    ``dim`` (its chunks and metadata, and the folders listing them), so that a commit never
    reaches the disk before its rows: one ``syncfs`` of the store's file system on Linux (a
    fraction of the ~100 single ``fsync`` calls of an update of the rig), else file by file."""
    store = Path(store)
    if _syncfs(store):
        return
    for folder, meta, dims in _arrays(store):
        idx = rows.get(dims[0]) if dims else None
        if idx is None:
            continue
        names = [".zarray", ".zattrs"]
        if meta["chunks"][0] == 1:
            names += _chunk_names(meta, idx)
        for name in names:
            try:
                fd = os.open(folder / name, os.O_RDONLY)
            except OSError:
                continue   # a chunk of fill values zarr did not write
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_dir(folder)
    fsync_dir(store)


def remove_partials(store: str | Path) -> list[Path]:
    """Delete the temporary files an abandoned write left in the store; return them."""
    gone = []
    for folder, _dirs, files in os.walk(store):
        for f in files:
            if _PARTIAL.search(f):
                p = Path(folder) / f
                p.unlink()  # safe: a temporary file of zarr's or our atomic write (name pattern), never a result
                gone.append(p)
    return gone


# ------------------------------------------------------------------------------ reading
def _arrays(store: Path):
    """``(folder, .zarray metadata, dimension names)`` of every array of the store's root group."""
    try:
        entries = sorted(os.scandir(store), key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        if not e.is_dir(follow_symlinks=False) or e.name == STORE_META:
            continue
        folder = Path(e.path)
        try:
            meta = json.loads((folder / ".zarray").read_text())
        except (OSError, ValueError):
            continue
        try:
            dims = json.loads((folder / ".zattrs").read_text()).get("_ARRAY_DIMENSIONS") or []
        except (OSError, ValueError, AttributeError):
            dims = []
        yield folder, meta, dims


def _chunk_names(meta: dict, idx: int) -> list[str]:
    sep = meta.get("dimension_separator") or "."
    grid = [range(math.ceil(s / c)) if c else range(1) for s, c in zip(meta["shape"][1:], meta["chunks"][1:])]
    return [sep.join(map(str, (idx, *rest))) for rest in itertools.product(*grid)]


def _present_rows(folder: Path, meta: dict) -> int:
    """Leading rows of the array whose chunk files are all on disk (row chunks of length 1;
    otherwise its shape).  The workbench writes every chunk (``write_empty_chunks``)."""
    n = int(meta["shape"][0])
    if meta["chunks"][0] != 1:
        return n
    while n > 0 and not all((folder / c).is_file() for c in _chunk_names(meta, n - 1)):
        n -= 1
    return n


@dataclass
class Committed:
    """What a wear store holds: ``updates`` and ``records`` completed, its dataset ``attrs``
    (``None`` when unreadable), where the numbers come from (``source``: ``"state"`` -- the
    commit record; ``"arrays"`` -- recovered from the rows the arrays hold), the ``rows`` every
    appended array has, and the ``problems`` found (each a sentence)."""
    updates: int
    records: int
    attrs: dict | None
    source: str
    rows: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)

    @property
    def provably_empty(self) -> bool:
        """No completed update anywhere: the commit record says 0, or (without a record) no row
        is held by every appended variable and no counter says otherwise."""
        return self.updates == 0

    def describe(self) -> str:
        return ("; ".join(self.problems) + "; ") if self.problems else ""


def _read_json(path: Path):
    """``(value, None)`` or ``(None, problem)``; ``(None, None)`` when the file does not exist."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{path} cannot be read ({exc.strerror or exc})"
    try:
        return json.loads(raw.decode("utf-8")), None
    except (UnicodeDecodeError, ValueError):
        return None, f"{path} is not valid JSON ({len(raw)} bytes)"


def _valid_state(state) -> bool:
    return (isinstance(state, dict) and state.get("format") == FORMAT and isinstance(state.get("attrs"), dict)
            and all(isinstance(state.get(k), int) and state[k] >= 0 for k in (COMPLETED, RECORDS)))


def _record_cycles(store: Path, n: int) -> list[float] | None:
    """The ``record_cycle`` values of the first ``n`` records (``None`` when not readable)."""
    try:
        import zarr
        return [float(v) for v in zarr.open_array(str(store / "record_cycle"), mode="r")[:n]]
    except Exception:  # noqa: BLE001 - no such variable, or unreadable: no record mapping
        return None


def _last_cycle(store: Path, n: int) -> float | None:
    try:
        import zarr
        return float(zarr.open_array(str(store / "cycle"), mode="r")[n - 1]) if n else None
    except Exception:  # noqa: BLE001
        return None


def committed(store: str | Path) -> Committed:
    """Read what the wear store at ``store`` completed (see the module docstring).

    Raises :class:`StoreDamaged` when the files contradict each other (a counter larger than
    the rows an array holds); nothing is changed here.
    """
    store = Path(store)
    # the record first, the arrays after: a writer only adds rows and commits after writing them,
    # so arrays read after the record hold at least the rows it counts, also during a live write
    state, problem = _read_json(state_path(store))
    present: dict[str, list] = {d: [] for d in APPEND_DIMS}
    for folder, meta, dims in _arrays(store):
        if dims and dims[0] in APPEND_DIMS:
            present[dims[0]].append((_present_rows(folder, meta), folder.name))
    rows = {d: min((n for n, _ in present[d]), default=0) for d in APPEND_DIMS}
    problems = []
    if problem:
        problems.append(problem)
    elif state is not None and not _valid_state(state):
        problems.append(f"{state_path(store)} is not a commit record of this workbench")
    if _valid_state(state):
        got = {"cycle": state[COMPLETED], "record": state[RECORDS]}
        for d, n in got.items():
            short = [name for size, name in present[d] if size < n]
            if short:
                raise StoreDamaged(f"{store}: the commit record {state_path(store)} counts {n} completed rows "
                                   f"along '{d}', but the variable '{short[0]}' holds fewer whole rows: the store "
                                   f"is damaged (a file was removed or truncated); nothing was changed")
        return Committed(state[COMPLETED], state[RECORDS], dict(state["attrs"]), "state", rows, problems)
    # no usable commit record: what the arrays hold
    attrs, problem = _read_json(store / ".zattrs")
    if problem:
        problems.append(problem)
    if attrs is not None and not (isinstance(attrs, dict) and "study_kind" in attrs):
        problems.append(f"{store / '.zattrs'} holds no dataset attributes of a wear run")
        attrs = None
    updates = rows["cycle"]
    said = (attrs or {}).get(COMPLETED)
    if isinstance(said, int) and said > updates:
        raise StoreDamaged(f"{store}: its attributes count {said} completed updates, but only {updates} rows are "
                           f"held by every variable: the store is damaged; nothing was changed")
    records = rows["record"]
    cycles = _record_cycles(store, records)
    if cycles is not None:   # records belong to completed updates only
        last = _last_cycle(store, updates)
        records = sum(1 for c in cycles if last is not None and c <= last)
    if attrs is not None:
        attrs = {k: v for k, v in attrs.items() if k not in (COMPLETED, RECORDS)}
    return Committed(updates, records, attrs, "arrays", rows, problems)
