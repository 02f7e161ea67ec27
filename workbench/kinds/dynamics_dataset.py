"""The dataset of the dynamics study kind, built from a :class:`~workbench.mbs.solution.Simulation`.

:func:`simulation_to_dataset` turns a simulation (and, for the comparison plots, the simulation of
the ideal-joint twin) into the dynamics dataset; structured attrs are JSON text (netCDF rejects
dicts).  Every engine's run of a dynamics study ends here (the compiled and scipy paths, the
event-driven and Moreau-Jean solvers, generalised-alpha with beams, whose own variables come from
:func:`workbench.flex.results.beam_variables`); :mod:`workbench.kinds.dynamics_run` runs them.

Dimensions: ``time``; ``body`` x ``component`` (x, y of the centre of mass; the body angle is
its own variable); ``driver``; ``joint`` (the clearance joints); ``ideal_joint`` (the ideal joints);
``axis`` (x, y); ``impact`` (index coordinate, in the order of time).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from ..mbs.mechanism import contact_geometry, guided_slider
from ..results.dataset import attr_value, model_info, study_provenance
from ..results.variables import json_attr
from ..results.variables import var as _var

COMPONENTS = ("x", "y")
#: linear quantity -> (its unit, the angular quantity of the body, its unit, long name of the angle)
_MOTION = {
    "position": ("m", "angle", "rad", "angle phi of the body"),
    "velocity": ("m/s", "angular_velocity", "rad/s", "angular velocity of the body"),
    "acceleration": ("m/s^2", "angular_acceleration", "rad/s^2", "angular acceleration of the body"),
}


def _load_var(dims, data, units: list[str], long_name: str) -> xr.Variable:
    """A driver-load variable: one ``units`` when every driver agrees (angle drivers: N m, linear
    drivers: N); with both kinds, no combined unit string: the per-driver units are the
    ``driver_unit`` coordinate, named by the attribute ``units_variable``."""
    import xarray as xr
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
    lubricated = [getattr(clearance_of.get(n), "lubrication", None) is not None for n in sim.clearance_names]
    if any(lubricated) and getattr(sim, "film_force", None) is not None:
        # a lubricated joint: contact_force is the solid contact (contact law + asperities), the
        # film's force is apart (workbench.mbs.clearance.film_forces)
        v["film_force"] = _var(("joint", "time"), T(sim.film_force), "N",
                               "magnitude of the lubricant film's force on the journal (without the "
                               "asperity contact, which is in contact_force; 0 without lubrication)")
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
    if getattr(sim, "engine", ""):   # which engine ran, and why (workbench.engines.select)
        attrs["engine"], attrs["engine_reason"] = sim.engine, sim.engine_reason
    if mech is not None:
        drv = mech.first_angle_driver()
        if drv is not None:
            v["crank_angle"] = _var(("time",), driver_values(drv.function, t), "rad",
                                    f"angle prescribed by the first angle driver '{drv.name}' (unwrapped)")
            attrs["crank_driver"] = drv.name
        slider = guided_slider(mech)
        if slider is not None:
            attrs["slider_body"] = slider[0]
            ax = np.asarray(slider[1], dtype=float)
            attrs["slider_axis"] = (ax / np.linalg.norm(ax)).tolist()
        attrs["joint_models"] = json_attr({c.name: {"contact": model_info(c.contact, registry, contact_geometry(c)),
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
        attrs["ideal_solver_stats"] = json_attr(ideal.stats)
    if getattr(sim, "flex", None):
        from ..flex.results import beam_variables
        fv, fc, fa = beam_variables(sim, mech)
        v.update(fv); coords.update(fc); attrs.update(fa)
    elif mech is not None:
        # rigid runs of several revolutions: per-revolution statistics (chaotic impacting motion)
        from ..flex.results import crank_revolution_variables
        fv, fc, fa = crank_revolution_variables(sim, mech)
        v.update(fv); coords.update(fc); attrs.update(fa)
    attrs.update(study_provenance(study, registry))
    attrs["study_kind"] = "dynamics"
    attrs.update({
        "solver_settings": json_attr(dataclasses.asdict(study.solver)) if study is not None and study.solver else "",
        "solver_stats": json_attr(sim.stats),
    })
    for k, val in sim.stats.items():
        if isinstance(val, (int, float, np.integer, np.floating)) and not isinstance(val, bool):
            attrs[f"solver_{k}"] = val
    attrs = {k: a for k, a in ((k, attr_value(a) if not isinstance(a, list) else a)
                               for k, a in attrs.items()) if a is not None}
    from ..results.cf import cf_clean
    return cf_clean(xr.Dataset(v, coords=coords, attrs=attrs))
