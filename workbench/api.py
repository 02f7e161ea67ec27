"""The Python API for scripts and notebooks, reachable from the package top (``workbench.run`` ...).

>>> import workbench
>>> study = workbench.load_study("studies/flores_slider_crank.toml")   # a path, or TOML text
>>> ds = workbench.run(study)              # an xarray.Dataset; nothing is written
>>> workbench.run(study, out="flores.nc")  # the same, written (netCDF; a wear study: a zarr store)
>>> workbench.registry().names("contact")  # the installed models
>>> wider = workbench.change(study, {"mechanism.clearance_joints[0].bushing_radius": 0.0102})
>>> ds = workbench.sweep(study, {"mechanism.clearance_joints[0].contact.restitution": [0.8, 0.9]})
>>> workbench.run(study, progress=lambda p: print(p.update, p.fraction, p.info))
>>> m = workbench.Mechanism(ground_points={"O": (0.0, 0.0)})  # a mechanism built in Python (workbench.build)

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
    from .study.load import load_any
    return load_any(path_or_text, registry=registry if registry is not None else get_registry())


def change(study, changes: dict, *, registry=None):
    """The study with its TOML keys ``changes`` set (``{"mechanism.clearance_joints[0].bushing_radius":
    0.0102}``; ``None`` removes a key), checked like a study file; the result records the changes
    and stores the regenerated text (:mod:`workbench.study.sync`).  A study changed with
    ``dataclasses.replace`` is written back the same way when it runs, or refused when a change
    has no study-file key."""
    from .study.sync import change as _change
    return _change(load_study(study, registry=registry), changes,
                   registry=registry if registry is not None else get_registry())


def to_toml(study, *, registry=None) -> str:
    """The study-file text of what ``study`` runs (regenerated when it was changed in Python)."""
    from .study.sync import to_toml as _to_toml
    return _to_toml(load_study(study, registry=registry),
                    registry=registry if registry is not None else get_registry())


def __getattr__(name: str):
    if name == "Progress":
        from .runtime.progress import Progress
        return Progress
    if name == "FigureOptions":
        from .results.figures import FigureOptions
        return FigureOptions
    raise AttributeError(f"module 'workbench.api' has no attribute '{name}'")


def run(study, out: str | Path | None = None, *, registry=None, progress=None, overwrite: bool = False,
        **options):
    """Run a study (a loaded :class:`~workbench.study.load.Study`, a path or TOML text) and return its
    :class:`xarray.Dataset`.

    Nothing is written unless ``out`` is given; then the result goes there as ``workbench run``
    writes it (netCDF4, or a zarr store for a wear study), only to a new path or, with
    ``overwrite=True``, over a result of ours (never over any other file).  ``progress(p)``
    follows the run with :class:`~workbench.runtime.progress.Progress` records (``p.done``,
    ``p.total``, ``p.fraction``, ``p.phase``, ``p.info``, ``p.elapsed``): a wear run update by
    update (``p.update``, ``p.cycle_jump``, ``p.max_depth``) and, within an update, the settling
    or averaging cycle its dynamics integrates (``p.cycle`` of ``p.of``, ``p.chains``); a
    dynamics run on the compiled engine its simulated time (``p.unit == "s"``).  A callback of
    three parameters gets ``(done, total, info)``.  ``options``: the kind's own (wear:
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


def sweep(sweep_file, grid: dict | None = None, out: str | Path | None = None, *, serial: bool = True,
          workers: int | None = None, scheduler: str | None = None, dask: bool = False,
          overwrite: bool = False, case_timeout: float | None = None, registry=None,
          set: dict | None = None, summary: list[str] | None = None, title: str | None = None):
    """Run a parameter sweep and return the combined summary dataset.

    ``sweep_file`` is a sweep file (path), or a study (a loaded study, a path or TOML text) with
    ``grid``: ``{"<toml key>": [values], ...}`` (every combination), ``set`` (keys changed in every
    case), ``summary`` (the reducers) and ``title`` -- the tables of a sweep file
    (``docs/sweep_format.md``), e.g.::

        workbench.sweep(study, {"mechanism.clearance_joints[0].contact.restitution": [0.8, 0.9]})

    ``serial=True`` (the default here) runs the cases one after another in this process; pass
    ``serial=False`` (or ``workers``) for one worker process per core, forked from this one on
    Linux (a dask LocalCluster elsewhere or with ``dask=True``), or a dask ``scheduler`` address,
    as ``workbench sweep`` does.  With ``out`` the summary goes there and every case's results to
    ``<out stem>.cases/``; without it they go to a temporary folder of our own that is removed, and
    ``case_file`` is blank.
    """
    from .sweeps.run import load_sweep, run_sweep
    reg = registry if registry is not None else get_registry()
    if isinstance(grid, (str, Path)) and out is None:   # the older form sweep(sweep_file, out)
        grid, out = None, grid
    if grid is None and set is None and summary is None and title is None \
            and isinstance(sweep_file, (str, Path)) and not str(sweep_file).lstrip().startswith("["):
        sw = load_sweep(sweep_file, registry=reg)
    else:
        if not grid:
            raise WorkbenchError("sweep: give a sweep file, or a study and a grid "
                                 "({'<toml key>': [values], ...})")
        return _sweep_of_study(load_study(sweep_file, registry=reg), grid, out, set=set, summary=summary,
                               title=title, registry=reg, serial=serial, workers=workers,
                               scheduler=scheduler, dask=dask, overwrite=overwrite,
                               case_timeout=case_timeout)
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


def _sweep_of_study(study, grid: dict, out, *, set, summary, title, registry, **opts):
    """A sweep of ``study`` over ``grid``: its sweep file is written, with the study's text when it
    was changed in Python, into a temporary folder of our own."""
    import tomli_w
    from .study.sync import to_toml
    study_text = to_toml(study, registry=registry)
    tmp = Path(tempfile.mkdtemp(prefix="workbench-sweep-spec-"))
    try:
        if study.file is not None and study_text == Path(study.file).read_text(encoding="utf-8"):
            base = Path(study.file).resolve()       # relative paths inside stay the file's
        else:
            base = tmp / "study.toml"
            base.write_text(study_text, encoding="utf-8")
        doc = {"sweep": {"title": title or f"{study.title}: sweep", "base": str(base)},
               "grid": {k: list(v) for k, v in grid.items()}}
        if summary:
            doc["sweep"]["summary"] = list(summary)
        if set:
            doc["set"] = dict(set)
        spec = tmp / "sweep.toml"
        spec.write_text(tomli_w.dumps(doc), encoding="utf-8")
        return sweep(spec, out=out, registry=registry, **opts)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)   # safe: the temporary folder made just above


def compare(results, outdir: str | Path, **figure) -> list[Path]:
    """Overlay the same quantities of several results (paths or datasets) into ``outdir``
    (:mod:`workbench.results.compare`); ``figure``: ``format``, ``width``, ``style``, ``dpi``."""
    from .results.compare import compare as _compare
    from .results.figures import figure_options
    results = list(results)
    names = [str(r) if isinstance(r, (str, Path)) else str(r.attrs.get("title", f"result {i}"))
             for i, r in enumerate(results)]
    data = [open_results(r) if isinstance(r, (str, Path)) else r for r in results]
    with figure_options(**figure):
        return _compare(data, names, outdir)


def open_results(path: str | Path):
    """A results file (netCDF) or a wear store (zarr folder), loaded into memory."""
    from .results.dataset import open_results as _open
    return _open(path)


def plots(ds, outdir: str | Path, *, overwrite: bool = False, **figure) -> list[Path]:
    """Write the plots of a result (chosen by its study kind) into ``outdir``; return the files.

    A file in ``outdir`` that the workbench did not write is never replaced; a figure of ours only
    with ``overwrite=True`` (:mod:`workbench.results.plot_files`).  ``figure``: ``format`` (png,
    pdf, svg), ``width`` [in], ``style`` (screen, paper), ``dpi``."""
    from . import kinds
    from .results.figures import figure_options
    with figure_options(**figure):
        return kinds.plots(ds, outdir, overwrite=overwrite, option="outdir")


def calibrate(study, data, *, registry=None, **options):
    """The posterior of the wear coefficient of the wear ``study`` given measured ``data`` (a CSV or
    netCDF file, or :class:`~workbench.calibration.Measurements`), as ``workbench calibrate`` computes
    it; ``options``: ``prior``, ``method``, ``simulation``, ``keep_simulation``, ``k_max_factor``,
    ``level`` (:func:`workbench.calibration.calibrate`)."""
    from .calibration import calibrate as _calibrate
    reg = registry if registry is not None else get_registry()
    return _calibrate(study, data, registry=reg, **options)


__all__ = ["load_study", "run", "sweep", "registry", "get_registry", "open_results", "plots", "calibrate",
           "change", "to_toml", "compare", "Progress", "FigureOptions"]
