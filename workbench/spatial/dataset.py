"""The dataset of a spatial run (the dynamics kind routes the ``spatial`` engine here).

Every variable carries ``units`` and ``long_name``; dims end with ``time`` as the planar
datasets do.  The results layer (:mod:`workbench.results.dataset`: provenance, writing) is
imported inside the functions (house layering: an engine room does not import it at module level).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def to_dataset(sim, *, study=None, registry=None):
    """An ``xarray.Dataset`` of a spatial :class:`~workbench.mbs.solution.Simulation`."""
    import xarray as xr
    from ..results.dataset import study_provenance

    def var(dims, data, units, long_name, **extra):
        return xr.Variable(dims, np.asarray(data), attrs={"units": units, "long_name": long_name, **extra})

    def T(a):   # (time, ...) -> (..., time)
        a = np.asarray(a)
        return np.moveaxis(a, 0, -1)

    x = sim.extras
    nf_names = x["friction_joint_names"]
    kinds = {}
    if study is not None:
        kinds = {j.name: j.type for j in study.mechanism.joints}
        units = ["N m" if d.coordinate == "angle" else "N" for d in study.mechanism.drivers]
    else:
        units = ["N m"] * len(sim.driver_names)
    coords = {
        "time": var(("time",), sim.time, "s", "time"),
        "body": var(("body",), np.array(sim.body_names, dtype=str), "1", "moving body"),
        "xyz": var(("xyz",), np.array(["x", "y", "z"]), "1", "vector component (world or body axes as named)"),
        "quaternion_component": var(("quaternion_component",), np.array(["e0", "e1", "e2", "e3"]), "1",
                                    "Euler parameter"),
        "driver": var(("driver",), np.array(sim.driver_names, dtype=str), "1", "driver"),
        "driver_unit": var(("driver",), np.array(units, dtype=str), "1", "unit of the driver load"),
        "ideal_joint": var(("ideal_joint",), np.array(sim.joint_names, dtype=str), "1", "ideal joint"),
        "ideal_joint_type": var(("ideal_joint",), np.array([kinds.get(n, "") for n in sim.joint_names], dtype=str),
                                "1", "joint type"),
        "friction_joint": var(("friction_joint",), np.array(nf_names, dtype=str), "1", "joint with friction"),
        "journal": var(("journal",), np.array(["axis_i", "axis_j"]), "1",
                       "journal (a universal joint has two; the others use axis_i)"),
        "contact_point": var(("contact_point",), np.array(["F1", "F2", "g3", "g4"]), "1",
                             "equivalent contact point (Qi, Luo & Huang (2009): radial at the two end faces, "
                             "axial on the left and right face)"),
        "end_face": var(("end_face",), np.array(["1", "2"]), "1", "end face of the sleeve"),
        "joint": var(("joint",), np.array(sim.clearance_names, dtype=str), "1", "clearance joint"),
        "joint_type": var(("joint",), np.array(sim.clearance_kinds, dtype=str), "1",
                          "clearance joint type (spherical, cylindrical, revolute)"),
    }
    cp_names = x.get("clearance_point_names", [])
    if cp_names:
        coords["clearance_point"] = var(("clearance_point",), np.array(
            [f"{sim.clearance_names[j]}.{n}" for j, n in zip(x["clearance_point_joint"], cp_names)], dtype=str), "1",
            "contact point of a clearance joint (ball; rim_1, rim_2 at the journal's ends; shoulder_1, shoulder_2)")
    v = {}
    P = sim.position
    v["position"] = var(("body", "xyz", "time"), T(P[:, :, :3]), "m", "centre-of-mass position (world)")
    v["quaternion"] = var(("body", "quaternion_component", "time"), T(P[:, :, 3:]), "1",
                          "orientation: Euler parameters (unit quaternion, body to world)")
    v["velocity"] = var(("body", "xyz", "time"), T(sim.velocity[:, :, :3]), "m/s", "centre-of-mass velocity (world)")
    v["angular_velocity"] = var(("body", "xyz", "time"), T(sim.velocity[:, :, 3:]), "rad/s",
                                "angular velocity, world axes")
    v["angular_velocity_body"] = var(("body", "xyz", "time"), T(x["angular_velocity_body"]), "rad/s",
                                     "angular velocity, body axes")
    v["acceleration"] = var(("body", "xyz", "time"), T(sim.acceleration[:, :, :3]), "m/s^2",
                            "centre-of-mass acceleration (world)")
    v["angular_acceleration"] = var(("body", "xyz", "time"), T(sim.acceleration[:, :, 3:]), "rad/s^2",
                                    "angular acceleration, world axes")
    v["driver_load"] = var(("driver", "time"), T(sim.driver_load), units[0] if len(set(units)) == 1 else "",
                           "generalised force of the driver on body j of its joint")
    v["joint_force"] = var(("ideal_joint", "xyz", "time"), T(sim.joint_reaction[:, :, :3]), "N",
                           "constraint reaction force on body j (world)")
    v["joint_moment"] = var(("ideal_joint", "xyz", "time"), T(sim.joint_reaction[:, :, 3:]), "N m",
                            "constraint reaction moment on body j about its joint point (world)")
    v["joint_friction_force"] = var(("friction_joint", "time"), T(x["friction_force"]), "N",
                                    "axial friction force on body j (Qi, Luo & Huang (2009) eq. 25)")
    v["joint_friction_moment"] = var(("friction_joint", "journal", "time"), T(x["friction_moment"]), "N m",
                                     "friction moment on body j about the joint axis (Qi, Luo & Huang (2009) "
                                     "eqs. 26, 53, 55, 58)")
    v["contact_load"] = var(("friction_joint", "contact_point", "time"), T(x["contact_load"]), "N",
                            "normal load of the equivalent contact points")
    v["contact_azimuth"] = var(("friction_joint", "end_face", "time"), T(x["contact_azimuth"]), "rad",
                               "azimuth theta of the radial contact point on each end face")
    v["slide_rate"] = var(("friction_joint", "time"), T(x["slide_rate"]), "m/s",
                          "relative sliding speed of body j along the joint axis")
    v["rotation_rate"] = var(("friction_joint", "time"), T(x["rotation_rate"]), "rad/s",
                             "relative rotation rate of body j about the joint axis")
    v["contact_force"] = var(("joint", "time"), T(sim.contact_force), "N",
                             "normal contact force of the clearance joint (sum over its contact points)")
    if cp_names:
        v.update(clearance_variables(sim, var, T))
    for name, long in (("kinetic_energy", "kinetic energy"), ("potential_energy", "potential energy "
                       "(gravity and springs)"), ("driver_work", "work of the drivers and applied loads"),
                       ("dissipated_energy", "energy dissipated by joint friction and dampers")):
        v[name] = var(("time",), getattr(sim, name), "J", long)
    v["drift_position"] = var(("time",), sim.drift_position, "m", "norm of the position constraint violation")
    v["drift_velocity"] = var(("time",), sim.drift_velocity, "m/s", "norm of the velocity constraint violation")
    if cp_names:
        v["contact_energy"] = var(("time",), sim.contact_energy, "J", "work absorbed by the clearance joints' normal "
                                  "contact forces (stored elastic energy and hysteresis)")
    if "bristle_deflection" in x:   # LuGre Qi joints (workbench.spatial.bristles)
        coords["bristle_joint"] = var(("bristle_joint",), np.array(x["bristle_joint_names"], dtype=str), "1",
                                      "joint with LuGre friction (a universal joint: one entry per journal, "
                                      "<joint>/journal_i on axis_i, <joint>/journal_j on axis_j)")
        coords["slip_component"] = var(("slip_component",), np.array(["axial", "rotation"]), "1",
                                       "component of the slip vector (s_dot, omega R), Qi, Luo & Huang (2009) eq. 20 "
                                       "(a revolute joint and a universal joint's journal: rotation only, omega_k R_k)")
        v["bristle_deflection"] = var(("bristle_joint", "slip_component", "time"), T(x["bristle_deflection"]), "m",
                                      "LuGre bristle deflection z in the slip plane (Canudas de Wit et al. (1995) "
                                      "eq. 2)")
    attrs = study_provenance(study, registry)
    attrs.update({"study_kind": "dynamics", "dimension": 3, "engine": sim.engine, "engine_reason": sim.engine_reason,
                  "run_status": sim.status, "ideal_twin_status": "not requested"})
    for k, val in sim.stats.items():
        if isinstance(val, (int, float, str)) and not isinstance(val, bool):
            attrs[f"solver_{k}"] = val
    if study is not None:
        laws = {j.name: {"model": j.friction.name, "parameters": {k: getattr(j.friction.params, k) for k in
                                                                   j.friction.params.__dataclass_fields__}}
                for j in study.mechanism.joints if j.friction is not None}
        attrs["joint_friction_models"] = json.dumps(laws, default=str)
    ds = xr.Dataset(v, coords=coords, attrs=attrs)
    if "stick_events" in x:   # set-valued joints (workbench.spatial.stick): the one event table
        from ..nonsmooth.events import EV_BREAKAWAY, EV_REVERSAL, EV_STICK, event_table
        code = {"stick_start": EV_STICK, "stick_to_slip": EV_BREAKAWAY, "rest_slip": EV_REVERSAL}
        rows = [(t, nf_names.index(n), code[k], N) for t, n, k, N in x["stick_events"]]
        ds = event_table(ds, friction=rows, joint_names=nf_names)
    return ds


def run_study(study, *, registry, out: str | Path | None = None, selection=None):
    """Run a spatial dynamics study on its engine and write its dataset to ``out`` when given."""
    from .. import engines
    from ..results.dataset import write_dataset
    if selection is None:
        selection = engines.Selection(engines.get("spatial"), "the spatial dataset route")
    sim = engines.run(selection, study.mechanism, study.solver)
    ds = to_dataset(sim, study=study, registry=registry)
    if out is not None:
        write_dataset(ds, out)
    return ds


def clearance_variables(sim, var, T) -> dict:
    """The clearance joints' variables (:mod:`workbench.spatial.clearance`): per contact point, per
    joint, and the impact table."""
    from .clearance.forces import R_FN, R_FT, R_PEN, R_VN, R_VT
    x = sim.extras
    rec = x["clearance_point_record"]
    out = {
        "point_normal_force": var(("clearance_point", "time"), T(rec[:, :, R_FN]), "N",
                                  "normal contact force of the contact point"),
        "point_friction_force": var(("clearance_point", "time"), T(rec[:, :, R_FT]), "N",
                                    "friction force of the contact point along its slip direction (opposes it)"),
        "point_penetration": var(("clearance_point", "time"), T(rec[:, :, R_PEN]), "m",
                                 "penetration of the contact point (negative while apart)"),
        "point_penetration_rate": var(("clearance_point", "time"), T(rec[:, :, R_VN]), "m/s",
                                      "rate of the penetration (approach speed)"),
        "point_slip_speed": var(("clearance_point", "time"), T(rec[:, :, R_VT]), "m/s",
                                "slip speed in the tangent plane of the contact point"),
        "point_contact_position": var(("clearance_point", "xyz", "time"), T(rec[:, :, 5:8]), "m",
                                      "contact point on the socket / bushing (world)"),
        "point_contact_closed": var(("clearance_point", "time"), T((rec[:, :, 8] >= 0.0).astype(np.int8)), "1",
                                    "contact mode: 1 closed, 0 open"),
        "penetration": var(("joint", "time"), T(sim.penetration), "m",
                           "largest penetration of the joint's contact points (negative while apart)"),
        "friction_force": var(("joint", "time"), T(sim.friction_force), "N",
                              "sum of the friction forces of the joint's contact points"),
        "clearance_offset": var(("joint", "xyz", "time"), T(x["clearance_offset"]), "m",
                                "ball / journal centre relative to the socket / bushing centre (world)"),
        "clearance_friction_energy": var(("time",), x["clearance_friction_energy"], "J",
                                         "energy dissipated by the clearance joints' friction"),
        "impact_time": var(("impact",), sim.impact_time, "s", "start of a contact"),
        "impact_velocity": var(("impact",), sim.impact_velocity, "m/s", "approach speed at the start of the contact"),
        "impact_joint": var(("impact",), sim.impact_joint, "1", "index of the clearance joint (coordinate joint)"),
        "impact_peak_force": var(("impact",), sim.impact_peak_force, "N",
                                 "largest normal force of the joint over the contact (dense output)"),
        "impact_peak_time": var(("impact",), sim.impact_peak_time, "s", "time of the largest normal force"),
        "impact_max_penetration": var(("impact",), sim.impact_max_penetration, "m",
                                      "largest penetration of the joint over the contact (at the steps' ends)"),
    }
    return out
