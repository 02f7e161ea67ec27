"""Where results may be written: the output-path rules that keep a user's files safe.

A run writes its results only to a path that is new, or that already holds a result *of ours*:

* a dataset (dynamics, pressure and sweep studies) is one netCDF file ending in ``.nc``; an
  existing file is ours when it is an HDF5/netCDF file whose global attributes carry
  ``workbench_version`` and ``study_kind`` (every dataset :mod:`workbench.results.dataset` writes has them);
* a wear run writes a zarr store, a directory ending in ``.zarr``; an existing directory is ours
  when it holds the marker :data:`STORE_META` (a small zarr sub-group whose attributes say what
  made the store; it also holds the writer's lock, :mod:`workbench.runtime.locks`) or, for
  stores made before the marker existed, zarr group attributes with ``study_kind = "wear"`` and
  ``workbench_version``.  An empty directory counts as new.

Never written to: an input of the study (the study file, or any file or folder its text names),
an existing directory that is not our store (``-o .`` included), a file where a store should be.
Replacing an existing result of ours needs ``overwrite=True`` (``--overwrite`` on the command
line).  :func:`check_output` applies these rules before any work starts, and also checks that the
target's folder is writable, so a read-only folder is reported before a long run, not after it.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from ..errors import WorkbenchError
from ..runtime.files import special_kind

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: file suffix of the results by study kind
KIND_SUFFIX = {"dynamics": ".nc", "pressure": ".nc", "sweep": ".nc", "calibration": ".nc", "uq": ".nc", "wear": ".zarr"}
#: sub-group inside every wear store we create: its attributes mark the store as ours (what made it
#: and when), and it holds the writer's lock file.  A zarr sub-group, so that zarr and xarray read
#: the store without warnings about unknown files (and ignore it: it holds no arrays).
STORE_META = ".workbench"
_MARKER_WHAT = "Joint Wear Workbench wear result store"


class OutputError(WorkbenchError):
    """An output path the workbench refuses to write (input file, foreign file, wrong suffix ...)."""


# ------------------------------------------------------------------------------ what is ours
def dataset_attrs(path: str | Path) -> dict | None:
    """Global attributes of the netCDF/HDF5 file at ``path``, or ``None`` if it is not one."""
    try:
        import h5py
        with h5py.File(path, "r") as f:
            return {k: _attr_text(v) for k, v in f.attrs.items()}
    except Exception:  # noqa: BLE001 - not HDF5, unreadable, truncated: not a dataset of ours
        return None


def _attr_text(v):
    """An HDF5 attribute as Python reads it back: bytes decoded, and a one-element string array (how
    the netCDF-C library stores a non-ASCII string attribute, NC_STRING) as its string."""
    if getattr(v, "shape", None) == (1,) and getattr(v, "dtype", None) is not None and v.dtype.kind in "OSU":
        v = v[0]
    return v.decode() if isinstance(v, bytes) else v


def is_our_dataset(path: str | Path) -> bool:
    """True when ``path`` is a netCDF file written by the workbench (see the module docstring)."""
    attrs = dataset_attrs(path)
    return attrs is not None and "workbench_version" in attrs and "study_kind" in attrs


def store_attrs(path: str | Path) -> dict | None:
    """Group attributes of the zarr store at ``path``, or ``None`` if it holds no zarr group."""
    try:
        import zarr
        return dict(zarr.open_group(str(path), mode="r").attrs)
    except Exception:  # noqa: BLE001 - not a zarr group (yet)
        return None


def is_our_store(path: str | Path) -> bool:
    """True when the directory ``path`` is a wear store made by the workbench."""
    path = Path(path)
    if not path.is_dir():
        return False
    try:
        if json.loads((path / STORE_META / ".zattrs").read_text()).get("what") == _MARKER_WHAT:
            return True
    except (OSError, ValueError, AttributeError):
        pass
    attrs = store_attrs(path) or {}
    return attrs.get("study_kind") == "wear" and "workbench_version" in attrs


def write_marker(path: Path) -> None:
    """Mark the directory ``path`` as a wear store of ours."""
    from ..runtime.version import __version__
    from datetime import datetime, timezone
    meta = path / STORE_META
    meta.mkdir(exist_ok=True)
    (meta / ".zgroup").write_text('{"zarr_format": 2}\n')
    (meta / ".zattrs").write_text(json.dumps({
        "what": _MARKER_WHAT, "workbench_version": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}) + "\n")


# ------------------------------------------------------------------------------ inputs
def input_paths(study_file: str | Path | None, text: str | None = None) -> list[Path]:
    """The study file and every existing file or folder its TOML text names (mesh files, a wear
    result read by a pressure study ...), resolved: the paths a run must never write to.

    Strings are tried relative to the study's folder and as given; unparsable text adds nothing.
    """
    out: list[Path] = []
    if study_file is not None:
        out.append(Path(study_file).resolve())
    if text is None and study_file is not None:
        try:
            text = Path(study_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
    if not text:
        return out
    try:
        doc = tomllib.loads(text)
    except Exception:  # noqa: BLE001 - the loader reports a broken study file itself
        return out
    base = Path(study_file).resolve().parent if study_file is not None else Path.cwd()
    stack = [doc]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str) and 0 < len(v) < 4096 and "\n" not in v:
            for cand in (base / v, Path(v)):
                try:
                    if cand.exists():
                        out.append(cand.resolve())
                except OSError:
                    pass
    return out


# ------------------------------------------------------------------------------ the rules
def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_writable(path: Path) -> None:
    """Raise :class:`OutputError` unless a file can be created where ``path`` will be written
    (probed with a temporary file in the nearest existing folder, which is removed at once)."""
    folder = _nearest_existing(path.parent)
    if not folder.is_dir():
        raise OutputError(f"cannot write {path}: {folder} is a file, not a folder")
    try:
        fd, probe = tempfile.mkstemp(prefix=".workbench-probe-", dir=folder)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: the folder {folder} is not writable ({exc.strerror or exc}); "
                          f"choose another output path") from None
    os.close(fd)
    os.unlink(probe)  # safe: the empty probe file created just above


#: bytes the workbench adds to an output's name for the files it writes beside it
#: (``.NAME.PID.tmp``, ``.NAME.replaced-PID``, ``STEM.partial.nc``, ``STEM_plots``)
NAME_MARGIN = 24


def check_name_length(out: Path, option: str = "-o") -> None:
    """Raise :class:`OutputError` when the file name of ``out`` (or of a temporary file the workbench
    writes beside it, :data:`NAME_MARGIN` bytes longer) is longer than its file system allows
    (``ENAMETOOLONG``, usually 255 bytes), or a folder name on its path is."""
    folder = _nearest_existing(out.parent if out.name else out)
    try:
        name_max = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        name_max = 255
    for part in out.parts[:-1]:
        if len(os.fsencode(part)) > name_max:
            raise OutputError(f"{option} {out}: the folder name '{part[:40]}...' is {len(os.fsencode(part))} "
                              f"bytes long; the file system allows {name_max}: choose a shorter one")
    n = len(os.fsencode(out.name))
    if n + NAME_MARGIN > name_max:
        raise OutputError(f"{option} {out.name[:40]}...: the file name is {n} bytes long; the file system "
                          f"allows {name_max}, and the workbench needs {NAME_MARGIN} more for the "
                          f"temporary files it writes beside it: choose a name of at most "
                          f"{name_max - NAME_MARGIN} bytes")


def check_link(out: Path, option: str = "-o", *, overwrite: bool = False) -> None:
    """Raise :class:`OutputError` when ``out`` is a symbolic link the run would replace: a dangling
    link (writing would replace the link, a file of the user's), or any link with ``overwrite``
    (replacing through a link would move or delete the link instead of the result it points to).
    The message names the target, which the user may give instead."""
    if not out.is_symlink():
        return
    target = os.readlink(out)
    if not out.exists():
        raise OutputError(f"{option} {out} is a symbolic link to {target}, which does not exist; the link "
                          f"is never written over: choose another output path, or give the target itself")
    if overwrite:
        raise OutputError(f"{option} {out} is a symbolic link to {out.resolve()}; --overwrite never replaces "
                          f"a result through a link (the link itself would be moved or deleted): give "
                          f"the target itself, -o {out.resolve()}")


def check_result(path: str | Path) -> None:
    """Raise :class:`OutputError` unless ``path`` is a result the workbench wrote: a netCDF file with
    the global attribute ``workbench_version`` or ``study_kind``, or a wear store of ours
    (:func:`is_our_store`).  ``workbench plot`` and ``export`` call it before they read a file."""
    path = Path(path)
    special = special_kind(path)
    if special is not None:   # opening it would wait for a writer forever
        raise OutputError(f"{path} is {special}, not a results file or store")
    if path.is_dir():
        if is_our_store(path):
            return
        what = ("a zarr store without the workbench's marker (.workbench) or attributes"
                if (path / ".zgroup").exists() or (path / "zarr.json").exists() else "a folder")
    else:
        attrs = dataset_attrs(path)
        if attrs is not None and ("workbench_version" in attrs or "study_kind" in attrs):
            return
        what = ("a netCDF/HDF5 file without the workbench's global attributes (workbench_version, "
                "study_kind)" if attrs is not None else "not a netCDF-4/HDF5 file")
    raise OutputError(f"{path} is not a workbench result ({what}); give a file written by "
                      f"`workbench run` or `workbench sweep`")


def check_output(out: str | Path, *, kind: str, inputs=(), overwrite: bool = False,
                 resume: bool = False, option: str = "-o") -> Path:
    """Check the output path ``out`` of a ``kind`` study before the run starts; return it.

    ``inputs`` : paths the run reads (:func:`input_paths`).  ``overwrite`` : an existing result
    of ours may be replaced.  ``resume`` : a wear store is continued (it must exist; the store
    itself checks it under its lock).  Raises :class:`OutputError` naming the path, the problem
    and what to do.  A wear store's own state (finished, unfinished, being written) is checked
    by :class:`workbench.wear.session.StoreSession` when the run opens it.
    """
    out = Path(out)
    special = special_kind(out)
    if special is not None:   # writing it would wait for a reader forever (or reach a device)
        raise OutputError(f"{option} {out} is {special}, not a results file or folder; it is never "
                          f"written to: choose another output path")
    check_name_length(out, option)
    check_link(out, option, overwrite=overwrite)
    suffix = KIND_SUFFIX.get(kind)
    if suffix is None:
        raise OutputError(f"unknown result kind '{kind}'; valid: {', '.join(sorted(KIND_SUFFIX))}")
    target = out.resolve()
    for p in inputs:
        p = Path(p).resolve()
        if target == p:
            raise OutputError(f"{option} {out} is an input of the run ({p}); it is never written over: "
                              f"choose another output path")
        if target in p.parents:
            raise OutputError(f"{option} {out} is a folder that holds an input of the run ({p}); "
                              f"choose another output path")
    if out.suffix.lower() != suffix:
        what = "a zarr store (a folder)" if suffix == ".zarr" else "a netCDF file"
        raise OutputError(
            f"{option} {out}: a {kind} study writes {what}, so the output name must end in '{suffix}' "
            f"(got '{out.suffix or 'no suffix'}'), e.g. {option} {out.with_suffix(suffix).name if out.name not in ('', '.', '..') else 'results' + suffix}")
    if target == Path.cwd().resolve() or target in Path.cwd().resolve().parents:
        raise OutputError(f"{option} {out} is the current folder or one of its parents; "
                          f"choose a new name ending in '{suffix}'")
    if suffix == ".nc":
        from ..runtime.abandoned import remove_abandoned_tmp_files
        from .dataset import partial_path
        for p in (out, partial_path(out)):   # temporaries of a killed earlier write (dead writers only)
            remove_abandoned_tmp_files(p)
        if out.is_dir():
            raise OutputError(f"{option} {out} is an existing folder, not a results file; "
                              f"choose a new name ending in '.nc'")
        if out.exists():
            if not is_our_dataset(out):
                raise OutputError(f"{option} {out} exists and is not a workbench result; it is never "
                                  f"written over: choose another output path")
            if not overwrite:
                raise OutputError(f"{option} {out} already holds a workbench result; pass --overwrite "
                                  f"to replace it, or choose another output path")
    else:
        if out.exists() and not out.is_dir():
            raise OutputError(f"{option} {out} is an existing file, not a wear store; it is never "
                              f"written over: choose another output path")
        if out.is_dir() and any(e.name != STORE_META for e in out.iterdir()) and not is_our_store(out):
            raise OutputError(f"{option} {out} is an existing folder that is not a workbench wear store; "
                              f"it is never written into: choose a new name ending in '.zarr'")
        if resume and not out.exists():
            raise OutputError(f"cannot resume: no wear store at {out}")
    check_writable(out if not out.is_dir() else out / "x")
    return out


def remove_our_result(path: str | Path) -> None:
    """Delete the result at ``path`` (before a replacement is written) after checking it is ours.

    A netCDF file must be :func:`is_our_dataset`, a folder :func:`is_our_store`; anything else
    raises :class:`OutputError` and nothing is deleted.
    """
    import shutil
    path = Path(path)
    check_link(path, "the result", overwrite=True)
    if path.is_dir():
        if not is_our_store(path):
            raise OutputError(f"{path} is not a workbench wear store; it is not deleted")
        shutil.rmtree(path)  # safe: checked just above to be a wear store of ours
    elif path.exists():
        if not is_our_dataset(path):
            raise OutputError(f"{path} is not a workbench result; it is not deleted")
        path.unlink()  # safe: checked just above to be a dataset of ours
