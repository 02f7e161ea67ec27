"""Study kinds: a registry, and the ONE dispatcher the command line, sweeps and the Python API use.

A study kind (``[study] kind`` of a study file) is a module with these functions:

``parse(doc, *, registry, file, problems)``
    the kind's own typed spec from the parsed TOML document, its problems added to ``problems`` (``None`` when the study loader
    builds it: dynamics and wear parse in :func:`workbench.study.load.load_study_text`);
``run(study, *, registry, out=None, progress=None, **options) -> xarray.Dataset``
    run a loaded :class:`~workbench.study.load.Study`; write the result to ``out`` only when given;
``write(ds, out)``
    write a finished dataset (netCDF4, or a zarr store for a wear result);
``summary(ds) -> dict``
    the headline numbers of a result (plain numbers with their units), for sweeps and the CLI;
``summary_lines(ds) -> list[str]``
    the same as text lines for the command line;
``plots(ds, outdir) -> list[Path]``
    write the kind's PNG plots, return their paths;
``describe(study) -> str``
    a one-line description of a loaded study (what runs);
``recognise(ds) -> bool``
    whether a dataset written before ``study_kind`` was stored is of this kind.

Each module also names ``SUFFIX`` (result file suffix), ``RESUMABLE`` and ``progress_total(study)``
(the amount of work a progress bar counts, or ``None`` for a spinner).  The kind of a dataset is its
``study_kind`` attribute (written by :func:`workbench.results.dataset.provenance`); only a dataset without it
is recognised by its variables.  New kinds (non-smooth joints, flexible links) register with
:func:`register_kind`.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ..errors import WorkbenchError, choices_text, did_you_mean


@dataclass(frozen=True)
class StudyKind:
    """A registered study kind: its name, the module that implements it, and what it is."""
    name: str
    module: str
    description: str

    def impl(self) -> ModuleType:
        """The implementing module (imported on first use: a kind's heavy imports stay lazy)."""
        return importlib.import_module(self.module)


_KINDS: dict[str, StudyKind] = {}


def register_kind(name: str, module: str, description: str) -> StudyKind:
    """Register (or replace) the study kind ``name`` implemented by the module ``module``."""
    kind = StudyKind(name, module, description)
    _KINDS[name] = kind
    return kind


register_kind("dynamics", "workbench.kinds.dynamics", "planar multibody dynamics with clearance joints")
register_kind("wear", "workbench.kinds.wear", "wear loop: dynamics on worn surfaces, pressure, wear law")
register_kind("pressure", "workbench.kinds.pressure", "static contact pressure: pressure models vs FE "
                                                      "and closed forms")


def names() -> tuple[str, ...]:
    """The registered study kinds."""
    return tuple(_KINDS)


def get(name: str) -> ModuleType:
    """The module implementing the study kind ``name`` (a clear error for an unknown kind)."""
    kind = _KINDS.get(name)
    if kind is None:
        raise WorkbenchError(f"unknown study kind '{name}'.{did_you_mean(str(name), _KINDS)} "
                             f"Valid choices: {choices_text(_KINDS)}")
    return kind.impl()


def kind_of(ds) -> str:
    """The study kind of a results dataset: its ``study_kind`` attribute, else (a dataset written
    before the attribute was stored) the first kind that recognises its variables."""
    kind = ds.attrs.get("study_kind")
    if kind == "sweep":
        return "sweep"
    if kind in _KINDS:
        return str(kind)
    if kind is not None:
        raise WorkbenchError(f"the dataset's study_kind '{kind}' is not a registered study kind "
                             f"(registered: {choices_text(_KINDS)})")
    for name in ("pressure", "wear", "dynamics"):     # the old guess, most specific first
        if name in _KINDS and get(name).recognise(ds):
            return name
    return "dynamics"


def run(study, *, registry=None, out: str | Path | None = None, progress=None, **options):
    """Run ``study`` with the kind it names; write to ``out`` only when given; return the dataset.

    ``registry`` defaults to the installed plugins.  ``progress(done, total, info)`` is called as
    the run advances (kinds with a countable amount of work, see ``progress_total``).  ``options``
    are the kind's own (wear: ``resume``, ``overwrite``, ``note``, ``max_updates``); an option the
    kind does not take is an error.
    """
    if registry is None:
        from ..plugins import build_registry
        registry = build_registry()
    from ..study.sync import synced
    study = synced(study, registry=registry)   # the stored text says what runs (or a clear refusal)
    impl = get(study.kind)
    from ..runtime.watchdog import progress_budget   # [checks] progress_timeout: nothing waits forever
    checks = study.checks
    with progress_budget(getattr(checks, "progress_timeout", None), getattr(checks, "max_run_hours", None)):
        ds = impl.run(study, registry=registry, out=out, progress=progress, **options)
    from ..results.cf import cf_clean
    return cf_clean(ds) if ds is not None else ds   # the same attributes as the file written


def write(ds, out: str | Path) -> Path:
    """Write a finished dataset with the writer of its kind."""
    return get(kind_of(ds)).write(ds, out)


def summary(ds) -> dict:
    """The headline numbers of a result (see the kind's ``summary``)."""
    return get(kind_of(ds)).summary(ds)


def summary_lines(ds) -> list[str]:
    """The headline numbers of a result as text lines (the command line prints them)."""
    return get(kind_of(ds)).summary_lines(ds)


def plots(ds, outdir: str | Path, *, overwrite: bool = False, option: str = "--plot-dir") -> list[Path]:
    """Write the plots of ``ds`` into ``outdir`` with the plotter of its kind; return the files.

    Never over a file the workbench did not write; over a figure of ours only with ``overwrite``
    (:func:`workbench.results.plot_files.publish`; ``option`` names the folder's option in messages)."""
    from ..results.plot_files import publish
    kind = kind_of(ds)
    if kind == "sweep":
        from ..results.sweep_plot import plot_sweep
        return publish(lambda staging: plot_sweep(ds, staging), outdir, overwrite=overwrite, option=option)
    return publish(lambda staging: get(kind).plots(ds, staging), outdir, overwrite=overwrite, option=option)
