"""The bottom of every result: provenance, CF attributes and the result files of every study kind.

* :func:`provenance` is the ONE builder of the provenance attrs every dataset carries, whatever
  its kind (the dynamics dataset of :mod:`workbench.kinds.dynamics_dataset`, the wear store of
  :mod:`workbench.wear.records`, the pressure study of :mod:`workbench.kinds.pressure`, the sweep
  summary of :func:`workbench.sweeps.run.combine`): ``Conventions`` (CF-1.10), ``title``,
  ``description``, ``study_kind``, ``study_text``, ``study_file``, ``workbench_version``,
  ``plugins`` (every registered plugin with its distribution and version, JSON) and ``created``
  (UTC, ISO 8601).  :func:`model_info` and :func:`json_attr` describe the models a run used.
* Every variable and coordinate carries ``units`` (one unit that pint and cf-units parse; a
  quantity with mixed units is split: ``position`` [m] and ``angle`` [rad]) and ``long_name``:
  they are built by :func:`workbench.results.variables.var`.

:func:`write_dataset` writes netCDF4 through the pinned ``netcdf4`` engine (the netCDF-C library:
a write takes a third, a read a tenth of the time ``h5netcdf`` takes, whose Python layer walks the
HDF5 objects; the files are the same netCDF4 format, and either engine reads them) to a temporary
file in the target directory and renames it over the target only when complete, so a failure never
leaves a half-written file nor destroys an earlier result.  :func:`open_results` reads a result
file or a wear store.

This module is a foundation: it imports no engine, study or interface module (the layer contract
in ``pyproject.toml``); the dynamics run and its dataset are :mod:`workbench.kinds.dynamics_run`
and :mod:`workbench.kinds.dynamics_dataset`.
"""
from __future__ import annotations

import dataclasses
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.version import __version__
from ..errors import WorkbenchError
from .variables import json_attr  # noqa: F401 (re-exported: provenance helpers in one place)

#: xarray engine of every netCDF file we write and read (see the module docstring)
ENGINE = "netcdf4"
CONVENTIONS = "CF-1.10"


def provenance(*, kind: str, registry=None, title: str = "", description: str = "",
               text: str | None = None, file: str | Path | None = None) -> dict:
    """The provenance attrs of a dataset of study kind ``kind`` (the one builder; see the module
    docstring).  ``text``/``file``: the study's text and path (``study_text``, ``study_file``;
    left out when ``text`` is ``None``, e.g. a sweep, which stores its own file's text)."""
    from .provenance import code_version, environment
    created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    attrs = {
        "Conventions": CONVENTIONS,
        "title": title or "",
        "description": description or "",
        "study_kind": kind,
        **code_version(),
        "environment": json_attr(environment()),
        "plugins": json_attr(registry.provenance()) if registry is not None else "{}",
        "created": created,
        "history": f"{created} created by workbench {__version__} ({kind} study"
                   f"{' ' + str(file) if file else ''})",
    }
    if text is not None:
        attrs["study_text"] = text
        attrs["study_file"] = str(file) if file is not None else ""
        attrs["input_files"] = json_attr(input_hashes(file, text))
    return attrs


def input_hashes(file, text: str | None) -> dict[str, str]:
    """SHA-256 of the study file and of every file its text names (meshes, worn profiles ...),
    keyed by path relative to the study's folder (the current folder for a study from text)."""
    from .outputs import input_paths
    from .provenance import file_hashes
    base = Path(file).resolve().parent if file else Path.cwd()
    return file_hashes(input_paths(file, text), base=base)


def study_provenance(study, registry=None) -> dict:
    """:func:`provenance` of a loaded :class:`~workbench.study.load.Study` (``None``: an empty one)."""
    if study is None:
        return provenance(kind="dynamics", registry=registry, text="")
    attrs = provenance(kind=study.kind, registry=registry, title=study.title,
                       description=study.description, text=study.text, file=study.file)
    changes = getattr(study, "changes", ())
    if changes:   # the text was regenerated from what ran (workbench.study.sync)
        attrs["study_changes"] = json_attr(list(changes))
        attrs["study_text_source"] = (f"regenerated from the study that ran: the study file "
                                      f"{study.file or '(text)'} with study_changes applied")
        attrs["history"] += f"; changed in Python: {'; '.join(changes)}"
    return attrs


def model_info(model, registry, geometry=None) -> dict | None:
    """Name, parameters and provider of a model instance (``None`` for no model).

    With the contact ``geometry`` of a contact law (``ContactGeometry``) every parameter is the
    number the run used: a parameter whose ``None`` means "derived" (the stiffness from the
    materials and radii) is replaced by the value ``pack`` derived, and named in ``derived``;
    ``packed`` holds every slot of the kernel's parameter array ``p``."""
    if model is None:
        return None
    info = {"model": model.name,
            "parameters": {f.name: getattr(model.params, f.name) for f in dataclasses.fields(model.params)}}
    slots = getattr(model, "slots", None)
    if slots is not None:
        try:
            p = model.pack(geometry) if geometry is not None else model.pack()
        except TypeError:   # a law that packs from a geometry, described without one
            p = None
        except Exception:  # noqa: BLE001 - provenance is best effort; the run itself reports a bad pack
            p = None
        if p is not None and len(p) == len(slots._fields):
            packed = {n: float(v) for n, v in zip(slots._fields, p)}
            info["packed"] = packed
            derived = [n for n in slots.parameters if info["parameters"].get(n) is None]
            for n in derived:
                info["parameters"][n] = packed[n]
            if derived:
                info["derived"] = derived
    if registry is not None:
        try:
            e = registry.entry(model.family, model.name)
            info["provided_by"] = f"{e.distribution} {e.version} (plugin {e.plugin})"
        except Exception:  # noqa: BLE001 - provenance is best effort for a model built outside the registry
            pass
    return info


def attr_value(v: Any) -> Any:
    """A netCDF-safe attribute value (str or number), or ``None`` to drop it."""
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, float, np.integer, np.floating, str)):
        return v
    return json_attr(v)


def write_dataset(ds: xr.Dataset, path: str | Path) -> Path:
    """Write ``ds`` to ``path`` (netCDF4, engine :data:`ENGINE`) atomically; return the path.

    The data go to a temporary file next to ``path`` that replaces ``path`` only once complete.
    An existing ``path`` is replaced only when it is a workbench result
    (:func:`workbench.results.outputs.is_our_dataset`); whether a result of ours may be replaced at all
    (``--overwrite``) is decided before the run, by :func:`workbench.results.outputs.check_output`.
    """
    path = Path(path)
    if path.is_dir():
        raise WorkbenchError(f"cannot write the results file {path}: it is an existing folder")
    if path.exists():
        from .outputs import is_our_dataset
        if not is_our_dataset(path):
            raise WorkbenchError(f"cannot write the results file {path}: a file that is not a workbench "
                                 f"result is there, and it is never written over")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WorkbenchError(f"cannot create the directory of the results file {path}: {exc}") from exc
    from ..runtime.abandoned import remove_abandoned_tmp_files
    remove_abandoned_tmp_files(path)   # a killed earlier write's .OUT.PID.tmp (dead writers only)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    from .cf import cf_clean, cf_encoding
    ds = cf_clean(ds)
    encoding = cf_encoding(ds, {name: {"zlib": True, "complevel": 4} for name, var in ds.data_vars.items()
                                if var.dtype.kind == "f" and var.size > 1024})
    from ..runtime.deferred import deferred_interrupts
    try:
        with deferred_interrupts():   # Ctrl-C never leaves xarray's netCDF lock held
            ds.to_netcdf(tmp, engine=ENGINE, encoding=encoding)
            os.replace(tmp, path)
    except (OSError, RuntimeError) as exc:   # the netCDF library reports a full disk as "HDF error"
        from ..runtime.interrupts import is_interrupt
        tmp.unlink(missing_ok=True)  # safe: our own temporary file beside the output
        if is_interrupt(exc):
            raise
        raise WorkbenchError(f"cannot write the results file {path}: {_write_failure(exc, tmp)}; "
                             f"the partial file was removed"
                             + ("" if not path.exists() else f" and {path} is unchanged")) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)  # safe: our own temporary file beside the output
        raise
    return path


def _write_failure(exc: BaseException, tmp: Path) -> str:
    """Why writing ``tmp`` failed, in words: the OS error, or -- the netCDF library says only
    "NetCDF: HDF error" -- the likely cause found on the machine (a full disk, a file-size limit)."""
    import errno
    from ..runtime.files import os_error_text
    if isinstance(exc, OSError):
        return os_error_text(exc)
    causes = []
    try:
        st = os.statvfs(tmp.parent)
        free = st.f_bavail * st.f_frsize
        if free < 16 * 2 ** 20:
            causes.append(f"the disk holding {tmp.parent} is full ({free / 2 ** 20:.3g} MB free, "
                          f"{errno.errorcode[errno.ENOSPC]})")
    except OSError:
        pass
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
        if soft != resource.RLIM_INFINITY:
            causes.append(f"this process may write files of at most {soft:,} bytes (a file-size limit, "
                          f"`ulimit -f`; {errno.errorcode[errno.EFBIG]})")
    except (ImportError, OSError, ValueError):
        pass
    text = f"{type(exc).__name__}: {exc}"
    return text + (f" -- most likely {' and '.join(causes)}" if causes else "")


def partial_path(out: str | Path) -> Path:
    """Where the samples of a failed or interrupted run go: ``<OUT stem>.partial.nc`` beside OUT."""
    out = Path(out)
    return out.with_name(out.stem + ".partial" + (out.suffix or ".nc"))


def open_results(path: str | Path) -> xr.Dataset:
    """Read a results file (netCDF) or a wear store (zarr directory) fully into memory."""
    import xarray as xr
    from ..runtime.files import special_kind
    special = special_kind(path)
    if special is not None:   # reading it would wait for a writer forever
        raise WorkbenchError(f"{path} is {special}, not a results file or store")
    if Path(path).is_dir():
        from .store_reader import open_store
        return open_store(path)
    with xr.open_dataset(path, engine=ENGINE, decode_timedelta=False) as ds:
        return ds.load()
