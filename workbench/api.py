"""The Python API for scripts and notebooks, reachable from the package top (``workbench.run`` ...).

>>> import workbench
>>> study = workbench.load_study("studies/flores_slider_crank.toml")   # a path, or TOML text
>>> ds = workbench.run(study)              # an xarray.Dataset; nothing is written
>>> workbench.run(study, out="flores.nc")  # the same, written (netCDF; a wear study: a zarr store)
>>> workbench.registry().names("contact")  # the installed models

Everything goes through the same loader and the same dispatcher on the study kind
(:mod:`workbench.kinds`) as the command line, so a study that ``workbench validate`` accepts runs
here, and gives the same numbers.  Errors are :class:`~workbench.errors.WorkbenchError` with the
file, key and valid choices.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .errors import WorkbenchError

_REGISTRY = None


def get_registry(*, refresh: bool = False):
    """The registry of the installed models (built once per process; ``refresh=True`` rebuilds it
    after installing a plugin)."""
    global _REGISTRY
    if _REGISTRY is None or refresh:
        from .plugins import build_registry
        _REGISTRY = build_registry()
    return _REGISTRY


registry = get_registry


def load_study(path_or_text, *, registry=None):
    """Load and check a study: ``path_or_text`` is a path (``str`` or :class:`~pathlib.Path`) to a
    TOML study file, or the TOML text itself (a string with a line break or starting with ``[``).
    Relative paths inside a study given as text are taken from the current folder."""
    from .study.load import Study, load_any
    if isinstance(path_or_text, Study):
        return path_or_text
    return load_any(path_or_text, registry=registry if registry is not None else get_registry())


def run(study, out: str | Path | None = None, *, registry=None, progress=None, overwrite: bool = False,
        **options):
    """Run a study (a loaded :class:`~workbench.study.load.Study`, a path or TOML text) and return its
    :class:`xarray.Dataset`.

    Nothing is written unless ``out`` is given; then the result goes there as ``workbench run``
    writes it (netCDF4, or a zarr store for a wear study), only to a new path or, with
    ``overwrite=True``, over a result of ours (never over any other file).  ``progress(done,
    total, info)`` follows a wear run update by update.  ``options``: the kind's own (wear:
    ``resume``, ``max_updates``, ``note``).
    """
    from . import kinds
    from .jit import load as load_numba
    load_numba()   # a run needs numba: with it loaded, the study's checks run compiled too
    reg = registry if registry is not None else get_registry()
    study = load_study(study, registry=reg)
    if out is not None:
        from .results.outputs import check_output, input_paths
        out = Path(out)
        inputs = input_paths(study.file, study.text)
        check_output(out, kind=study.kind, inputs=inputs, overwrite=overwrite,
                     resume=bool(options.get("resume")))
        if kinds.get(study.kind).RESUMABLE:
            options["overwrite"] = overwrite
    return kinds.run(study, registry=reg, out=out, progress=progress, **options)


def sweep(sweep_file, out: str | Path | None = None, *, serial: bool = True, workers: int | None = None,
          scheduler: str | None = None, dask: bool = False, overwrite: bool = False,
          case_timeout: float | None = None, registry=None):
    """Run the parameter sweep ``sweep_file`` and return the combined summary dataset.

    ``serial=True`` (the default here) runs the cases one after another in this process; pass
    ``serial=False`` (or ``workers``) for one worker process per core, forked from this one on
    Linux (a dask LocalCluster elsewhere or with ``dask=True``), or a dask ``scheduler`` address,
    as ``workbench sweep`` does.  With ``out`` the summary goes there and every case's results to
    ``<out stem>.cases/``; without it they go to a temporary folder of our own that is removed, and
    ``case_file`` is blank.
    """
    from .sweeps.run import load_sweep, run_sweep
    reg = registry if registry is not None else get_registry()
    sw = load_sweep(sweep_file, registry=reg)
    opts = dict(scheduler=scheduler, workers=workers, serial=serial and not (scheduler or workers or dask),
                dask=dask, registry=reg, overwrite=overwrite, case_timeout=case_timeout)
    if out is not None:
        return run_sweep(sw, Path(out), **opts)
    tmp = Path(tempfile.mkdtemp(prefix="workbench-sweep-"))
    try:
        ds = run_sweep(sw, tmp / "sweep.nc", **opts).load()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)   # safe: the temporary folder made just above
    ds["case_file"].values[...] = ""
    return ds


def open_results(path: str | Path):
    """A results file (netCDF) or a wear store (zarr folder), loaded into memory."""
    from .results.dataset import open_results as _open
    return _open(path)


def plots(ds, outdir: str | Path, *, overwrite: bool = False) -> list[Path]:
    """Write the plots of a result (chosen by its study kind) into ``outdir``; return the files.

    A file in ``outdir`` that the workbench did not write is never replaced; a figure of ours only
    with ``overwrite=True`` (:mod:`workbench.results.plot_files`)."""
    from . import kinds
    return kinds.plots(ds, outdir, overwrite=overwrite, option="outdir")


def calibrate(study, data, *, registry=None, **options):
    """The posterior of the wear coefficient of the wear ``study`` given measured ``data`` (a CSV or
    netCDF file, or :class:`~workbench.calibration.Measurements`), as ``workbench calibrate`` computes
    it; ``options``: ``prior``, ``method``, ``simulation``, ``keep_simulation``, ``k_max_factor``,
    ``level`` (:func:`workbench.calibration.calibrate`)."""
    from .calibration import calibrate as _calibrate
    reg = registry if registry is not None else get_registry()
    return _calibrate(study, data, registry=reg, **options)


__all__ = ["load_study", "run", "sweep", "registry", "get_registry", "open_results", "plots", "calibrate"]
