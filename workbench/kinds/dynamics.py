"""Study kind ``dynamics``: the planar multibody solver with clearance joints, and its ideal twin.

The run and its dataset are :func:`workbench.kinds.dynamics_run.run_dynamics` (which keeps a failed run's
samples beside the output) and :mod:`workbench.kinds.dynamics_dataset`; the plots are :func:`workbench.results.plot.plot_results`
(a spatial run's: :func:`workbench.spatial.plot.plot_spatial`).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

SUFFIX = ".nc"
RESUMABLE = False


def parse(doc: dict, *, registry, file, problems=None):
    """Dynamics studies are parsed by :func:`workbench.study.load.load_study_text` (no own spec)."""
    return None


def progress_total(study) -> float | None:
    """Simulated time [s] of the run (and of its ideal twin) on the compiled engine, which reports
    how far it has come; ``None`` (a spinner) on the engines that do not."""
    from ..engines import select
    if select(study.mechanism, study.solver).name != "compiled":
        return None
    s = study.solver
    twin = bool(study.mechanism.clearance_joints and study.output.compare_ideal)
    return (s.t_end - s.t_start) * (2 if twin else 1)


#: the engines whose runs build their own dataset (their event tables and frictional joints),
#: module and function; every other engine's run is :func:`workbench.kinds.dynamics_run.run_dynamics`
#: (with the ideal-joint twin and the plausibility guard)
_OWN_DATASET = {"event_driven": (".dynamics_run", "run_event_driven"),
                "moreau_jean": (".dynamics_run", "run_moreau_jean"),
                "spatial": ("..spatial.dataset", "run_study")}


def describe(study) -> str:
    s = study.solver
    from ..engines import describe_run, select
    sel = select(study.mechanism, s)
    twin = (" (and the ideal-joint twin)" if study.mechanism.clearance_joints
            and study.output.compare_ideal and sel.name not in _OWN_DATASET else "")
    return f"'{study.title}': t = {s.t_start:g} .. {s.t_end:g} s, {describe_run(sel.engine, s, study.mechanism)}{twin}"


def run(study, *, registry, out: str | Path | None = None, progress=None):
    """Simulate the mechanism on the engine :func:`workbench.engines.select` picks (and its ideal
    twin); write the dataset to ``out`` when given."""
    from ..engines import select
    sel = select(study.mechanism, study.solver)
    if sel.name in _OWN_DATASET:
        import importlib
        module, function = _OWN_DATASET[sel.name]
        route = getattr(importlib.import_module(module, __package__), function)
        return route(study, registry=registry, out=out, selection=sel)
    from .dynamics_run import run_dynamics
    from ..runtime.progress import caller
    return run_dynamics(study, registry=registry, out=out, selection=sel, progress=caller(progress))


def write(ds, out: str | Path) -> Path:
    from ..results.dataset import write_dataset
    return write_dataset(ds, out)


def summary(ds) -> dict:
    """Per clearance joint: impacts and peak contact force [N] (the impact table's peaks, located
    on the dense output, when larger than the sampled maximum); the first driver's peak |load|;
    the solver's steps and wall time [s]."""
    joints = {}
    ij = ds["impact_joint"] if "impact_joint" in ds else None   # a spatial run without clearance joints has none
    for k, j in enumerate(ds["joint"].values):
        f = float(ds["contact_force"].sel(joint=j).max())
        # planar tables name the joint, spatial ones give its index (workbench.spatial.dataset)
        mine = None if ij is None else ij == (k if np.issubdtype(ij.dtype, np.number) else j)
        n = 0 if mine is None else int(mine.sum())
        if n and "impact_peak_force" in ds:
            peaks = ds["impact_peak_force"].where(mine).values
            if np.isfinite(peaks).any():
                f = max(f, float(np.nanmax(peaks)))
        joints[str(j)] = {"impacts": n, "peak_contact_force": f, "peak_contact_force_units": "N"}
    out: dict = {"joints": joints}
    if "driver" in ds.dims and ds.sizes["driver"]:
        name = str(ds["driver"].values[0])
        out["driver"] = {"name": name,
                         "peak_load": float(abs(ds["driver_load"].isel(driver=0)).max()),
                         "peak_load_units": str(ds["driver_unit"].values[0])}
    if "event_kind" in ds:
        names = ds["event_kind"].attrs["flag_meanings"].split()
        values = [int(v) for v in ds["event_kind"].attrs["flag_values"]]
        kinds = [int(k) for k in ds["event_kind"].values]
        out["friction_events"] = {n: kinds.count(v) for n, v in zip(names, values) if n != "impact"}
        if "impact" in names:   # the event table holds the impacts too (workbench.nonsmooth.events)
            out["impacts"] = kinds.count(values[names.index("impact")])
    if ds.attrs.get("solver_steps") is not None:
        out["solver"] = {"steps": int(ds.attrs["solver_steps"]),
                         "wall_time": float(ds.attrs.get("solver_wall_time", float("nan"))),
                         "wall_time_units": "s"}
    return out


def summary_lines(ds) -> list[str]:
    s = summary(ds)
    lines = [f"  joint {j}: {v['impacts']} impacts, peak contact force {v['peak_contact_force']:.5g} N"
             for j, v in s["joints"].items()]
    if "driver" in s:
        d = s["driver"]
        lines.append(f"  driver {d['name']}: peak |load| {d['peak_load']:.4g} {d['peak_load_units']}")
    if "per_revolution_summary" in ds.attrs:
        lines.append("  " + ds.attrs["per_revolution_summary"])
    if "friction_events" in s:   # the event-driven engine's friction events
        lines.append("  friction events: " + ", ".join(f"{n} {c}" for n, c in s["friction_events"].items()))
    if "solver" in s:
        lines.append(f"  solver: {s['solver']['steps']} steps, {s['solver']['wall_time']:.2f} s")
    return lines


def plots(ds, outdir: str | Path) -> list[Path]:
    from ..spatial.plot import is_spatial
    if is_spatial(ds):   # bodies in 3-D, Qi joints' friction, spatial clearance joints
        from ..spatial.plot import plot_spatial
        return plot_spatial(ds, outdir)
    from ..results.plot import plot_results
    paths = plot_results(ds, outdir)
    # the slider-acceleration spectrum
    from ..flex.plot import flex_plots
    paths += flex_plots(ds, outdir)
    return paths


def recognise(ds) -> bool:
    return "contact_force" in ds and "time" in ds.dims
