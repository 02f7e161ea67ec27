"""The one results module: variables, units, provenance and CF attributes of every study kind.

* :func:`provenance` is the ONE builder of the provenance attrs every dataset carries, whatever
  its kind (dynamics here, the wear store of :mod:`workbench.wear.records`, the pressure study of
  :mod:`workbench.kinds.pressure`, the sweep summary of :func:`workbench.sweeps.run.combine`):
  ``Conventions`` (CF-1.10), ``title``, ``description``, ``study_kind``, ``study_text``,
  ``study_file``, ``workbench_version``, ``plugins`` (every registered plugin with its distribution
  and version, JSON) and ``created`` (UTC, ISO 8601).  :func:`model_info` and :func:`json_attr`
  describe the models a run used.
* Every variable and coordinate carries ``units`` (one unit that pint and cf-units parse; a
  quantity with mixed units is split: ``position`` [m] and ``angle`` [rad]) and ``long_name``.

:func:`simulation_to_dataset` turns a :class:`~workbench.mbs.solution.Simulation` (and, for the
comparison plots, the simulation of the ideal-joint twin) into the dynamics dataset; structured
attrs are JSON text (netCDF rejects dicts).

:func:`write_dataset` writes netCDF4 through the pinned ``netcdf4`` engine (the netCDF-C library:
a write takes a third, a read a tenth of the time ``h5netcdf`` takes, whose Python layer walks the
HDF5 objects; the files are the same netCDF4 format, and either engine reads them) to a temporary
file in the target directory and renames it over the target only when complete, so a failure never
leaves a half-written file nor destroys an earlier result.

Dimensions: ``time``; ``body`` × ``component`` (x, y of the centre of mass; the body angle is
its own variable); ``driver``; ``joint`` (the clearance joints); ``ideal_joint`` (the ideal joints);
``axis`` (x, y); ``impact`` (index coordinate, in the order of time).
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..errors import WorkbenchError
from ..mbs.mechanism import GROUND, TranslationalClearanceJoint, TranslationalJoint

#: xarray engine of every netCDF file we write and read (see the module docstring)
ENGINE = "netcdf4"
CONVENTIONS = "CF-1.10"
COMPONENTS = ("x", "y")
#: linear quantity -> (its unit, the angular quantity of the body, its unit, long name of the angle)
_MOTION = {
    "position": ("m", "angle", "rad", "angle phi of the body"),
    "velocity": ("m/s", "angular_velocity", "rad/s", "angular velocity of the body"),
    "acceleration": ("m/s^2", "angular_acceleration", "rad/s^2", "angular acceleration of the body"),
}


# --- startup: xarray is imported where it is used, so that a run's simulation does not wait for
# the background import of the results libraries (workbench.cli.startup.prefetch_results_libraries)
def _var(dims, data, units: str, long_name: str, **extra) -> xr.Variable:
    import xarray as xr
    return xr.Variable(dims, np.asarray(data), attrs={"units": units, "long_name": long_name, **extra})


def _load_var(dims, data, units: list[str], long_name: str) -> xr.Variable:
    import xarray as xr
    """A driver-load variable: one ``units`` when every driver agrees (angle drivers: N m, linear
    drivers: N); with both kinds, no combined unit string: the per-driver units are the
    ``driver_unit`` coordinate, named by the attribute ``units_variable``."""
    if len(set(units)) <= 1:
        return _var(dims, data, units[0] if units else "N m", long_name)
    return xr.Variable(dims, np.asarray(data), attrs={"long_name": long_name,
                                                      "units_variable": "driver_unit"})


def _driver_units(study, names: list[str]) -> list[str]:
    coord = {d.name: d.coordinate for d in study.mechanism.drivers} if study is not None else {}
    return ["N m" if coord.get(n, "phi") == "phi" else "N" for n in names]


def driver_values(function, t: np.ndarray) -> np.ndarray:
    """Vectorised value of a :class:`~workbench.mbs.mechanism.DriverFunction` at times ``t``."""
    return function(np.asarray(t, dtype=float))


def _on_grid(t_src: np.ndarray, data: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``data`` (time first) sampled at ``t``: as is when the grids agree, else linear interpolation."""
    data = np.asarray(data, dtype=float)
    if t_src.shape == t.shape and np.allclose(t_src, t, rtol=0.0, atol=1e-12 * max(1.0, abs(t[-1]))):
        return data
    flat = data.reshape(len(t_src), -1)
    out = np.column_stack([np.interp(t, t_src, flat[:, i]) for i in range(flat.shape[1])]) \
        if flat.shape[1] else np.empty((len(t), 0))
    return out.reshape((len(t),) + data.shape[1:])


def json_attr(obj: Any) -> str:
    """``obj`` as JSON text, for a netCDF/zarr attribute (keys sorted; unknown types as str)."""
    return json.dumps(obj, sort_keys=True, default=str)


_json = json_attr


def provenance(*, kind: str, registry=None, title: str = "", description: str = "",
               text: str | None = None, file: str | Path | None = None) -> dict:
    """The provenance attrs of a dataset of study kind ``kind`` (the one builder; see the module
    docstring).  ``text``/``file``: the study's text and path (``study_text``, ``study_file``;
    left out when ``text`` is ``None``, e.g. a sweep, which stores its own file's text)."""
    attrs = {
        "Conventions": CONVENTIONS,
        "title": title or "",
        "description": description or "",
        "study_kind": kind,
        "workbench_version": __version__,
        "plugins": json_attr(registry.provenance()) if registry is not None else "{}",
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if text is not None:
        attrs["study_text"] = text
        attrs["study_file"] = str(file) if file is not None else ""
    return attrs


def study_provenance(study, registry=None) -> dict:
    """:func:`provenance` of a loaded :class:`~workbench.study.load.Study` (``None``: an empty one)."""
    if study is None:
        return provenance(kind="dynamics", registry=registry, text="")
    return provenance(kind=study.kind, registry=registry, title=study.title,
                      description=study.description, text=study.text, file=study.file)


def model_info(model, registry) -> dict | None:
    """Name, parameters and provider of a model instance (``None`` for no model)."""
    if model is None:
        return None
    info = {"model": model.name,
            "parameters": {f.name: getattr(model.params, f.name) for f in dataclasses.fields(model.params)}}
    if registry is not None:
        try:
            e = registry.entry(model.family, model.name)
            info["provided_by"] = f"{e.distribution} {e.version} (plugin {e.plugin})"
        except Exception:  # noqa: BLE001 - provenance is best effort for a model built outside the registry
            pass
    return info


def _attr_value(v: Any) -> Any:
    """A netCDF-safe attribute value (str or number), or ``None`` to drop it."""
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, float, np.integer, np.floating, str)):
        return v
    return _json(v)


def _slider(mechanism) -> tuple[str, tuple[float, float]] | None:
    """The slider body and its guide direction (global frame) when the guide is on the ground."""
    for c in mechanism.clearance_joints:
        if isinstance(c, TranslationalClearanceJoint):
            axis = c.axis if c.guide_body == GROUND else (1.0, 0.0)
            return c.slider_body, axis
    for j in mechanism.joints:
        if isinstance(j, TranslationalJoint):
            if j.body_i == GROUND:
                return j.body_j, j.axis
            if j.body_j == GROUND:
                return j.body_i, j.axis
    return None


def simulation_to_dataset(sim, *, ideal=None, study=None, registry=None) -> xr.Dataset:
    """Build the results dataset of one dynamics run.

    Parameters
    ----------
    sim : the :class:`~workbench.mbs.solution.Simulation` of the study's mechanism.
    ideal : the simulation of ``study.mechanism.ideal()`` on the same settings, or ``None``; its
        motion, driver loads and the reactions of the joints that replace the clearance joints
        are stored as ``ideal_*`` variables (interpolated onto ``time`` if the grids differ).
    study : the :class:`~workbench.study.load.Study` (text, file, mechanism, output options).
    registry : the model registry, for the plugin provenance.
    """
    import xarray as xr
    t = np.asarray(sim.time, dtype=float)
    mech = study.mechanism if study is not None else None
    out_opts = study.output if study is not None else None

    def want(flag: str) -> bool:
        return out_opts is None or getattr(out_opts, flag)

    drv_units = _driver_units(study, list(sim.driver_names))
    clearance_of = {c.name: c for c in mech.clearance_joints} if mech is not None else {}
    coords = {
        "time": _var(("time",), t, "s", "time"),
        "body": _var(("body",), np.array(sim.body_names, dtype=str), "1", "moving body"),
        "component": _var(("component",), np.array(COMPONENTS), "1",
                          "coordinate of the body's centre of mass, global frame"),
        "driver": _var(("driver",), np.array(sim.driver_names, dtype=str), "1", "driver"),
        "driver_unit": _var(("driver",), np.array(drv_units, dtype=str), "1", "unit of the driver load"),
        "joint": _var(("joint",), np.array(sim.clearance_names, dtype=str), "1", "clearance joint"),
        "joint_kind": _var(("joint",), np.array(sim.clearance_kinds, dtype=str), "1",
                           "kind of clearance joint (revolute or translational)"),
        "ideal_joint": _var(("ideal_joint",), np.array(sim.joint_names, dtype=str), "1", "ideal joint"),
        "axis": _var(("axis",), np.array(["x", "y"]), "1", "vector component"),
        "impact": _var(("impact",), np.arange(len(sim.impact_time), dtype=np.int32), "1",
                       "impact index (contact starts in the order of time)"),
    }
    T = lambda a: np.moveaxis(np.asarray(a, dtype=float), 0, -1)  # noqa: E731 - time first -> time last
    v: dict[str, xr.Variable] = {}
    for name, (unit, angular, aunit, along) in _MOTION.items():
        data = T(getattr(sim, name))                     # (body, 3, time): x, y, phi
        v[name] = _var(("body", "component", "time"), data[:, :2], unit,
                       f"{name} of the centre of mass, global frame")
        v[angular] = _var(("body", "time"), data[:, 2], aunit, along)
    v["driver_load"] = _load_var(("driver", "time"), T(sim.driver_load), drv_units,
                                 "generalised force applied by the driver (moment for angle drivers)")
    v["contact_force"] = _var(("joint", "time"), T(sim.contact_force), "N",
                              "normal contact force (sum over contact points)")
    v["friction_force"] = _var(("joint", "time"), T(sim.friction_force), "N",
                               "friction force along the tangent (sum over contact points)")
    v["penetration"] = _var(("joint", "time"), T(sim.penetration), "m",
                            "largest penetration (negative while apart)")
    v["eccentricity"] = _var(("joint", "axis", "time"), T(sim.eccentricity), "m",
                             "journal centre relative to the bushing centre, bushing frame "
                             "(translational: slider centre relative to the guide line, guide frame)")
    v["clearance"] = _var(("joint",), [clearance_of[n].clearance if n in clearance_of else math.nan
                                       for n in sim.clearance_names], "m",
                          "radial clearance (revolute) or clearance C = (H - W)/2 (translational)")
    if want("slip_velocity"):
        v["slip_velocity"] = _var(("joint", "time"), T(sim.slip_velocity), "m/s",
                                  "relative tangential (slip) velocity at the contact")
    if want("joint_reactions"):
        v["joint_reaction"] = _var(("ideal_joint", "axis", "time"), T(sim.joint_reaction), "N",
                                   "force of the ideal joint on its body_j, global frame")
    if want("energies"):
        for name, long in (("kinetic_energy", "kinetic energy"),
                           ("potential_energy", "gravitational and spring potential energy"),
                           ("contact_energy", "work absorbed by the normal contact forces (elastic storage + hysteresis loss)"),
                           ("driver_work", "work done by the drivers since the start"),
                           ("dissipated_energy", "energy dissipated by friction and dampers")):
            v[name] = _var(("time",), getattr(sim, name), "J", long)
    if want("constraint_drift"):
        v["drift_position"] = _var(("time",), sim.drift_position, "m",
                                   "norm of the position constraint violation")
        v["drift_velocity"] = _var(("time",), sim.drift_velocity, "m/s",
                                   "norm of the velocity constraint violation")
    names = np.asarray(sim.clearance_names, dtype=object)
    ij = np.asarray(sim.impact_joint, dtype=int)
    v["impact_time"] = _var(("impact",), np.asarray(sim.impact_time, dtype=float), "s",
                            "time at which a contact begins (located by root finding)")
    v["impact_velocity"] = _var(("impact",), np.asarray(sim.impact_velocity, dtype=float), "m/s",
                                "approach speed at the start of the contact (delta_dot_minus)")
    v["impact_joint"] = _var(("impact",), np.array([str(names[i]) for i in ij], dtype=str), "1",
                             "clearance joint of the impact")
    v["impact_point"] = _var(("impact",), np.asarray(sim.impact_point, dtype=np.int32), "1",
                             "index of the contact point (translational joints: slider corner)")
    # impact table (solver): extremes of each contact located on the integrator's dense output
    v["impact_peak_force"] = _var(("impact",), np.asarray(sim.impact_peak_force, dtype=float), "N",
                                  "peak normal contact force of the joint during the contact "
                                  "(located on the dense output; NaN when not tracked)")
    v["impact_peak_time"] = _var(("impact",), np.asarray(sim.impact_peak_time, dtype=float), "s",
                                 "time of the peak normal contact force of the contact")
    v["impact_max_penetration"] = _var(("impact",), np.asarray(sim.impact_max_penetration, dtype=float),
                                       "m", "largest penetration of the joint during the contact "
                                       "(located on the dense output; NaN when not tracked)")
    attrs: dict[str, Any] = {}
    if mech is not None:
        drv = mech.first_angle_driver()
        if drv is not None:
            v["crank_angle"] = _var(("time",), driver_values(drv.function, t), "rad",
                                    f"angle prescribed by the first angle driver '{drv.name}' (unwrapped)")
            attrs["crank_driver"] = drv.name
        slider = _slider(mech)
        if slider is not None:
            attrs["slider_body"] = slider[0]
            ax = np.asarray(slider[1], dtype=float)
            attrs["slider_axis"] = (ax / np.linalg.norm(ax)).tolist()
        attrs["joint_models"] = _json({c.name: {"contact": model_info(c.contact, registry),
                                                "friction": model_info(c.friction, registry),
                                                **({"lubrication": model_info(c.lubrication, registry)}
                                                   if getattr(c, "lubrication", None) is not None else {})}
                                       for c in mech.clearance_joints})
    if ideal is not None:
        ti = np.asarray(ideal.time, dtype=float)
        for name, (unit, angular, aunit, along) in _MOTION.items():
            data = T(_on_grid(ti, getattr(ideal, name), t))
            v[f"ideal_{name}"] = _var(("body", "component", "time"), data[:, :2], unit,
                                      f"{name} of the centre of mass, ideal-joint mechanism")
            v[f"ideal_{angular}"] = _var(("body", "time"), data[:, 2], aunit,
                                         f"{along}, ideal-joint mechanism")
        v["ideal_driver_load"] = _load_var(("driver", "time"), T(_on_grid(ti, ideal.driver_load, t)),
                                           drv_units, "driver load of the ideal-joint mechanism")
        idx = [list(ideal.joint_names).index(n) for n in sim.clearance_names]
        react = _on_grid(ti, np.asarray(ideal.joint_reaction)[:, idx, :], t)
        v["ideal_joint_force"] = _var(("joint", "axis", "time"), T(react), "N",
                                      "reaction of the ideal joint that replaces the clearance joint "
                                      "(ideal-joint mechanism), global frame")
        v["ideal_contact_force"] = _var(("joint", "time"), T(np.linalg.norm(react, axis=-1)), "N",
                                        "magnitude of the ideal joint's reaction in place of the "
                                        "clearance joint (ideal-joint mechanism)")
        attrs["ideal_solver_stats"] = _json(ideal.stats)
    if getattr(sim, "flex", None):
        from ..flex.results import beam_variables
        fv, fc, fa = beam_variables(sim, mech)
        v.update(fv); coords.update(fc); attrs.update(fa)
    attrs.update(study_provenance(study, registry))
    attrs["study_kind"] = "dynamics"
    attrs.update({
        "solver_settings": _json(dataclasses.asdict(study.solver)) if study is not None and study.solver else "",
        "solver_stats": _json(sim.stats),
    })
    for k, val in sim.stats.items():
        if isinstance(val, (int, float, np.integer, np.floating)) and not isinstance(val, bool):
            attrs[f"solver_{k}"] = val
    attrs = {k: a for k, a in ((k, _attr_value(a) if not isinstance(a, list) else a)
                               for k, a in attrs.items()) if a is not None}
    return xr.Dataset(v, coords=coords, attrs=attrs)


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
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    encoding = {name: {"zlib": True, "complevel": 4} for name, var in ds.data_vars.items()
                if var.dtype.kind == "f" and var.size > 1024}
    try:
        ds.to_netcdf(tmp, engine=ENGINE, encoding=encoding)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)  # safe: our own temporary file beside the output
        raise WorkbenchError(f"cannot write the results file {path}: {exc}") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)  # safe: our own temporary file beside the output
        raise
    return path


def partial_path(out: str | Path) -> Path:
    """Where the samples of a failed or interrupted run go: ``<OUT stem>.partial.nc`` beside OUT."""
    out = Path(out)
    return out.with_name(out.stem + ".partial" + (out.suffix or ".nc"))


def _keep_partial(sim, study, registry, out: Path | None, status: str) -> str:
    """Write the partial simulation ``sim`` beside ``out``; return a sentence saying where (or why not).

    Without ``out`` (a run from Python that writes nothing) the samples stay on the error only."""
    if out is None:
        return "nothing was written (no output path was given)"
    where = partial_path(out)
    try:
        ds = simulation_to_dataset(sim, study=study, registry=registry)
        ds.attrs["run_status"] = status
        write_dataset(ds, where)
    except Exception as exc:  # noqa: BLE001 - the run's own error is the one to report
        return f"the samples computed before could not be kept ({exc})"
    return f"the samples computed before it stopped are in {where}"


def run_dynamics(study, *, registry, out: str | Path | None = None) -> xr.Dataset:
    """Run a dynamics study and write its dataset to ``out`` (nothing when ``None``); return it.

    Simulates the mechanism and, when it has clearance joints and ``[output] compare_ideal`` is
    true, its ideal twin (:meth:`Mechanism.ideal`) on the same settings.  What a run finished is
    never thrown away by a later stage:

    * the main run fails (:class:`SolverError` with a partial simulation) or is interrupted
      (``KeyboardInterrupt`` carrying a ``partial`` attribute): its samples go to
      :func:`partial_path` with ``run_status`` ``failed: ...`` / ``interrupted``; the error is
      raised again, naming that file;
    * the ideal twin fails: the clearance run is written to ``out`` without the ``ideal_*``
      variables, with ``ideal_twin_status = "failed: ..."`` in the attrs and a RuntimeWarning;
      interrupted: the same with ``interrupted``, then the ``KeyboardInterrupt`` goes on.

    ``attrs["ideal_twin_status"]`` is ``ok``, ``not requested``, ``failed: ...`` or ``interrupted``.
    """
    from ..errors import SolverError
    from ..mbs.solver import simulate
    # a mechanism with beams runs the implicit solver
    if getattr(study.mechanism, "beams", ()):
        from ..flex.solver import simulate
    out = Path(out) if out is not None else None
    try:
        sim = simulate(study.mechanism, study.solver)
    except SolverError as exc:
        if exc.partial is None:
            raise
        kept = _keep_partial(exc.partial, study, registry, out, f"failed: {exc}")
        raise SolverError(f"{exc}; {kept}", partial=exc.partial) from None
    except BaseException as exc:
        from ..runtime.interrupts import as_interrupt
        intr = as_interrupt(exc)   # Ctrl-C inside compiled code can surface as a SystemError
        if not isinstance(intr, KeyboardInterrupt):
            raise
        partial = getattr(exc, "partial", None)
        if partial is not None:
            intr.kept = _keep_partial(partial, study, registry, out, "interrupted")
        if intr is exc:
            raise
        raise intr from exc
    # physical plausibility of the finished run ([checks], workbench.study.checks): stop, keeping
    # the samples beside the output marked rejected, or carry the findings as warnings
    from ..study.checks import Checks, ImplausibleResultError, penetration_findings
    checks = study.checks if study.checks is not None else Checks()
    found = list(getattr(study, "warnings", ()) or ())
    findings = penetration_findings(sim, study.mechanism, checks)
    if findings and checks.on_implausible == "stop":
        kept = _keep_partial(sim, study, registry, out, "rejected: " + "; ".join(findings))
        where = f"{study.file}: " if study.file is not None else ""
        raise ImplausibleResultError(
            f"{where}the run finished but its results are implausible:\n  - " + "\n  - ".join(findings)
            + f"\n{kept} (marked rejected). Set [checks] on_implausible = \"warn\" to write them to "
              "the output with a warning instead")
    found += findings
    ideal, twin = None, "not requested"
    interrupted = None
    if study.mechanism.clearance_joints and study.output.compare_ideal:
        try:
            ideal = simulate(study.mechanism.ideal(), study.solver)
            twin = "ok"
        except BaseException as exc:  # a later stage: never lose the finished clearance run
            from ..runtime.interrupts import as_interrupt
            if isinstance(as_interrupt(exc), KeyboardInterrupt):
                twin, interrupted = "interrupted", as_interrupt(exc)
            elif not isinstance(exc, Exception):
                raise
            else:
                msg = str(exc) if isinstance(exc, WorkbenchError) else f"{type(exc).__name__}: {exc}"
                twin = f"failed: {msg}"
                where = f"written to {out}" if out is not None else "returned"
                warnings.warn(f"the ideal-joint twin of '{study.title}' failed ({msg}); the clearance run "
                              f"is {where} without the ideal_* variables", RuntimeWarning, stacklevel=2)
    ds = simulation_to_dataset(sim, ideal=ideal, study=study, registry=registry)
    ds.attrs["ideal_twin_status"] = twin
    if found:
        ds.attrs["warnings"] = "\n".join(found)
    if out is not None:
        write_dataset(ds, out)
    if interrupted is not None:
        interrupted.kept = (f"the clearance run is in {out}" if out is not None else
                            "the clearance run was finished") + " (its ideal-joint twin was interrupted)"
        interrupted.dataset = ds
        raise interrupted
    return ds


def open_results(path: str | Path) -> xr.Dataset:
    """Read a results file (netCDF) or a wear store (zarr directory) fully into memory."""
    import xarray as xr
    if Path(path).is_dir():
        from ..wear.store import open_store
        return open_store(path)
    with xr.open_dataset(path, engine=ENGINE, decode_timedelta=False) as ds:
        return ds.load()
