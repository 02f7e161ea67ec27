"""Study kind ``pressure``: every pressure model on every static case and load, against FE and
the closed forms.

The dataset (dimensions ``case``, ``model``, ``load``, ``theta``) holds the nodal pressure, the
contact half-angle, the peak pressure, the approach and the solver residuals of each model, their
errors relative to the baseline model (normally the FE model), the closed forms of Persson (1964)
and Hertz (``docs/validation.md``) as extra models, and each case's radii, clearance and materials.
``theta`` is measured from the load line.  The study file's schema: :mod:`workbench.kinds.pressure_config`
(parsed once, by :func:`parse`, into ``Study.pressure``).

The host never asks a model for its name: a model class with ``fe_model = True`` is an FE model
(its ``geometry_params`` take the case's outer radius and meshes; it can export VTU fields, and it
is what ``fit_to = "fem"`` targets); a model with ``calibration = "half_angle"`` fits its
parameters to a reference half-angle (``fit_half_angle``); ``half_angle_edge_exponent`` says how
its pressure falls at the contact edge.  The plots draw on :class:`matplotlib.figure.Figure`
objects (no pyplot state, no backend switch).
"""
from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from ..errors import StudyError
from ..fem import closed_forms as cf
from ..fem.contact import half_angle
from ..results.plot import PNG
from ..results.variables import var
from ..models import BoreSection

SUFFIX = ".nc"
RESUMABLE = False


def parse(doc: dict, *, registry, file, problems):
    """The typed spec (:class:`workbench.kinds.pressure_config.PressureStudy`) of a pressure study;
    every problem of the file goes to ``problems`` (:mod:`workbench.schema.pressure`)."""
    from .pressure_config import parse_pressure
    return parse_pressure(doc, file=str(file) if file is not None else None, registry=registry,
                          problems=problems)


def progress_total(study) -> float | None:
    return None


def describe(study) -> str:
    return f"pressure study '{study.title}'"


def _closed_form(name: str, case, theta: np.ndarray, F: float):
    P, R, dR = F / case.length, case.bore_radius, case.clearance
    if name == "persson":
        eps = cf.persson_half_angle(P, case.E_star, dR)
        return cf.persson_pressure(theta, eps, P, R), eps
    if dR <= 0:
        return np.full_like(theta, np.nan), math.nan
    a, _ = cf.hertz_internal(P, R - dR, R, case.E_star)
    return cf.hertz_pressure(theta, P, R - dR, R, case.E_star), a / R


def _model_class(registry, spec):
    return registry.entry("pressure", spec.plugin).cls


def _make_model(spec, case, registry, file, fitted: dict | None = None):
    params = dict(spec.params)
    cls = _model_class(registry, spec)
    if getattr(cls, "fe_model", False):
        geometry = cls.geometry_params(outer_radius_ratio=case.outer_radius / case.bore_radius,
                                       bushing_mesh=case.bushing_mesh, pin_mesh=case.pin_mesh)
        for key, value in geometry.items():
            params.setdefault(key, value)
    if fitted:
        params.update(fitted)
    return registry.create("pressure", spec.plugin, params, file=file, key=f"models.{spec.label}")


def run(study, *, registry, out: str | Path | None = None, progress=None):
    """Run the pressure study ``study`` (its spec: ``study.pressure``); write the dataset (netCDF,
    netcdf4 engine) to ``out`` when given, and the VTU fields of ``[output] vtu`` beside it
    (``<OUT stem>_vtu/``; none without ``out``).  Returns the dataset."""
    import xarray as xr

    from ..results.dataset import provenance, write_dataset

    spec_of = study
    study = spec_of.pressure
    study_file = str(spec_of.file) if spec_of.file is not None else None
    n = study.theta_nodes
    nodes = 2 * np.pi * np.arange(n) / n
    wrapped = np.angle(np.exp(1j * nodes))
    order = np.argsort(wrapped)
    theta = wrapped[order]
    labels = [m.label for m in study.models] + list(study.reference)
    nc, nm, nl = len(study.cases), len(labels), len(study.cases[0].loads)
    shape = (nc, nm, nl)
    pressure = np.full(shape + (n,), np.nan)
    ha, peak, approach = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
    eq_res, cp_res = np.full(shape, np.nan), np.full(shape, np.nan)
    stiffness, wall = np.full((nc, nm), np.nan), np.full((nc, nm), np.nan)
    # fem first, so that winkler models fitted to it can use its half-angles
    specs = sorted(enumerate(study.models), key=lambda im: im[1].fit_to is not None)
    vtu_files = []
    for ci, case in enumerate(study.cases):
        section = BoreSection(nodes, case.bore_radius, case.gap(nodes), case.length, case.bushing,
                              case.journal)
        fem_index = next((i for i, m in enumerate(study.models)
                          if getattr(_model_class(registry, m), "fe_model", False)), None)
        for mi, spec in specs:
            t0 = time.perf_counter()
            for li, F in enumerate(case.loads):
                fitted = None
                if spec.fit_to is not None:      # parameters fitted to the FE half-angle
                    lj = li if spec.fit_load is None else spec.fit_load
                    if getattr(_model_class(registry, spec), "calibration", None) != "half_angle" \
                            or fem_index is None:
                        raise StudyError(f"pressure model '{spec.plugin}' cannot be fitted to an FE "
                                         f"half-angle (it needs calibration = \"half_angle\" and an FE "
                                         f"model in the study)", file=study_file,
                                         key=f"models.{spec.label}.fit_to")
                    fitted = _make_model(spec, case, registry, study_file).fit_half_angle(
                        section, np.array([case.loads[lj], 0.0]), ha[ci, fem_index, lj],
                        clearance=case.clearance)
                if li == 0 or fitted is not None:
                    model = _make_model(spec, case, registry, study_file, fitted)
                sol = model.solve_load(section, np.array([F, 0.0]))
                p = sol.pressure
                pressure[ci, mi, li] = p[order]
                edge = getattr(model, "half_angle_edge_exponent", 0.5)
                ha[ci, mi, li] = sol.info.get("half_angle", half_angle(nodes, p, edge_exponent=edge))
                peak[ci, mi, li] = p.max()
                approach[ci, mi, li] = float(np.linalg.norm(sol.eccentricity))
                eq_res[ci, mi, li] = sol.info.get("equilibrium_residual", np.nan)
                cp_res[ci, mi, li] = sol.info.get("complementarity_residual", np.nan)
                if "stiffness" in sol.info:
                    stiffness[ci, mi] = sol.info["stiffness"]
            wall[ci, mi] = (time.perf_counter() - t0) / nl
            if study.vtu and out is not None and getattr(model, "fe_model", False):
                from ..fem.export import export_vtu
                vtu_dir = Path(out).parent / f"{Path(out).stem}_vtu"
                vtu_files += export_vtu(vtu_dir / f"{case.name}_{spec.label}_load{nl - 1}",
                                        model.joint_model(section), p)
        for ri, name in enumerate(study.reference):
            mi = len(study.models) + ri
            for li, F in enumerate(case.loads):
                pr, eps = _closed_form(name, case, theta, F)
                pressure[ci, mi, li], ha[ci, mi, li] = pr, eps
                peak[ci, mi, li] = np.max(pr) if np.isfinite(eps) else np.nan
    b = labels.index(study.baseline)
    with np.errstate(invalid="ignore", divide="ignore"):
        peak_err = peak / peak[:, b:b + 1] - 1
        ha_err = ha / ha[:, b:b + 1] - 1
        rms_err = np.sqrt(np.mean((pressure - pressure[:, b:b + 1]) ** 2, axis=-1)) / peak[:, b:b + 1]
    cases = study.cases

    def case_var(f, units, long_name):
        return var(("case",), np.array([f(c) for c in cases], float), units, long_name)

    cml = ("case", "model", "load")
    ds = xr.Dataset(
        {
            "pressure": var(cml + ("theta",), pressure, "Pa", "contact pressure on the bore nodes"),
            "half_angle": var(cml, ha, "rad", "contact half-angle"),
            "peak_pressure": var(cml, peak, "Pa", "peak contact pressure"),
            "approach": var(cml, approach, "m", "journal-centre displacement (eccentricity) magnitude"),
            "peak_pressure_error": var(cml, peak_err, "1", f"peak pressure relative to {study.baseline}, minus 1"),
            "half_angle_error": var(cml, ha_err, "1", f"half-angle relative to {study.baseline}, minus 1"),
            "pressure_rms_error": var(cml, rms_err, "1",
                                      f"rms pressure difference to {study.baseline} over its peak"),
            "equilibrium_residual": var(cml, eq_res, "1", "relative force-equilibrium residual"),
            "complementarity_residual": var(cml, cp_res, "1", "scaled complementarity residual"),
            "foundation_modulus": var(("case", "model"), stiffness, "Pa/m", "Winkler foundation modulus k"),
            "solve_time": var(("case", "model"), wall, "s", "mean wall time per load (incl. first build)"),
            "load_value": var(("case", "load"), np.array([c.loads for c in cases], float), "N",
                              "load on the joint (along theta = 0)"),
            "bore_radius": case_var(lambda c: c.bore_radius, "m", "bore radius"),
            "pin_radius": case_var(lambda c: c.bore_radius - c.clearance, "m", "pin radius"),
            "clearance": case_var(lambda c: c.clearance, "m", "radial clearance"),
            "outer_radius": case_var(lambda c: c.outer_radius, "m", "held outer radius of bushing/plate"),
            "length": case_var(lambda c: c.length, "m", "axial contact length"),
            "worn_depth": case_var(lambda c: c.worn_depth, "m", "depth of the worn crescent"),
            "bushing_E": case_var(lambda c: c.bushing.E, "Pa", "bushing Young's modulus"),
            "bushing_nu": case_var(lambda c: c.bushing.nu, "1", "bushing Poisson's ratio"),
            "bushing_rigid": case_var(lambda c: c.bushing.rigid, "1", "bushing rigid (1) or elastic (0)"),
            "journal_E": case_var(lambda c: c.journal.E, "Pa", "journal Young's modulus"),
            "journal_nu": case_var(lambda c: c.journal.nu, "1", "journal Poisson's ratio"),
            "journal_rigid": case_var(lambda c: c.journal.rigid, "1", "journal rigid (1) or elastic (0)"),
        },
        coords={
            "case": ("case", [c.name for c in cases], {"units": "1", "long_name": "case"}),
            "model": ("model", labels, {"units": "1", "long_name": "pressure model label"}),
            "load": ("load", np.arange(nl), {"units": "1", "long_name": "load index"}),
            "theta": ("theta", theta, {"units": "rad", "long_name": "bore angle from the load line"}),
            "plugin": ("model", [m.plugin for m in study.models] + ["closed_form"] * len(study.reference),
                       {"units": "1", "long_name": "pressure plugin or closed form"}),
        },
        attrs={
            **provenance(kind="pressure", registry=registry, title=study.title or spec_of.title,
                         description=spec_of.description, text=spec_of.text, file=spec_of.file),
            "baseline": study.baseline,
            "vtu_files": "\n".join(str(v) for v in vtu_files),
        },
    )
    if out is not None:
        write_dataset(ds, out)
    return ds


def write(ds, out: str | Path) -> Path:
    from ..results.dataset import write_dataset
    return write_dataset(ds, out)


def summary(ds) -> dict:
    """Per case and model: the peak-pressure and half-angle errors [1] relative to the baseline
    at the largest load."""
    out = {}
    for case in ds["case"].values:
        d = ds.sel(case=case).isel(load=-1)
        out[str(case)] = {str(m): {"peak_pressure_error": float(d["peak_pressure_error"].sel(model=m)),
                                   "half_angle_error": float(d["half_angle_error"].sel(model=m))}
                          for m in ds["model"].values}
    return {"baseline": ds.attrs.get("baseline", ""), "cases": out}


def summary_lines(ds) -> list[str]:
    s = summary(ds)
    lines = []
    for case, models in s["cases"].items():
        errs = ", ".join(f"{m} {100 * v['peak_pressure_error']:+.3g} %" for m, v in models.items()
                         if m != s["baseline"] and math.isfinite(v["peak_pressure_error"]))
        lines.append(f"  {case}: peak pressure vs {s['baseline']} at the largest load: {errs}")
    return lines


def recognise(ds) -> bool:
    return "contact_force" not in ds and "pressure" in ds


def plots(ds, outdir) -> list[Path]:
    """Pressure distributions per case and load, and the errors vs load; returns the PNG paths."""
    from ..results.figures import readable
    from ..results.plot import new_figure

    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    deg = np.degrees(ds["theta"].values)
    for case in ds["case"].values:
        d = ds.sel(case=case)
        nl = d.sizes["load"]
        fig = new_figure(figsize=(3.2 * nl, 3.2))
        axes = fig.subplots(1, nl, squeeze=False, sharey=False)
        for li, ax in enumerate(axes[0]):
            pl = d["pressure"].isel(load=li).values
            for i, (m, pm) in enumerate(zip(d["model"].values, pl)):
                ax.plot(deg, pm / 1e6, color=f"C{i % 10}", label=readable(str(m)))
            loaded = np.abs(deg[np.any(np.nan_to_num(pl) > 0, axis=0)])
            lim = min(180.0, 1.15 * loaded.max() + 1.0) if loaded.size else 180.0
            ax.set_xlim(-lim, lim)
            from ..results.figures import number_text
            ax.set_title(f"F = {number_text(float(d['load_value'].isel(load=li)))} N", fontsize=9)
        fig.supxlabel("angle θ from the load line [°]", fontsize="medium")
        axes[0][0].set_ylabel("pressure [MPa]")
        axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))   # off the peaks
        fig.suptitle(f"{readable(case)}: contact pressure", fontsize=10)
        fig.tight_layout()
        from ..results.figures import save
        p = save(fig, outdir / f"pressure_{case}.png", dpi=110, pil_kwargs=PNG)
        paths.append(p)

        fig = new_figure(figsize=(9, 3.4))
        axes = fig.subplots(1, 2)
        F = d["load_value"].values
        for i, m in enumerate(d["model"].values):
            if m == ds.attrs.get("baseline"):
                continue
            style = dict(color=f"C{i % 10}", marker="o", label=readable(str(m)))
            axes[0].plot(F, 100 * d["peak_pressure_error"].sel(model=m), **style)
            axes[1].plot(F, 100 * d["half_angle_error"].sel(model=m), **style)
        for ax, what in zip(axes, ("peak pressure", "half-angle")):
            ax.set_xscale("log")
            ax.axhline(0, color="k", lw=0.5)
            ax.set_xlabel("load [N]")
            ax.set_ylabel(f"{what} error vs {ds.attrs.get('baseline')} [%]")
        axes[1].legend(fontsize=7)
        fig.suptitle(f"{readable(case)}: error relative to {readable(ds.attrs.get('baseline'))}", fontsize=10)
        fig.tight_layout()
        p = save(fig, outdir / f"errors_{case}.png", dpi=110, pil_kwargs=PNG)
        paths.append(p)
    return paths
