"""The records of a wear run: one store row per update, the dynamics records, the static part
and the dataset attributes (every variable with ``units`` and ``long_name``)."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import xarray as xr

from ..results.variables import var as _var
from . import film_validity, ripple

SURFACES = ("bushing", "journal")


def row(run, meas, dN: float, increments: dict, ratios: dict) -> xr.Dataset:
    """Row ``run.update`` of the result store (every variable has a leading ``cycle`` of length 1).

    A run without worn revolute joints (a guide-only study) has no ``joint`` variables: the row
    holds the update's scalars, and :func:`.guide_loop.record` adds the guide variables."""
    cfg = run.cfg
    js = sorted(run.worn)
    ounit = "rad" if cfg.output_coordinate == 2 else "m"
    dev = meas.deviation
    v = {
        "average_cycles": _var((), meas.n_cycles, "1", "averaging cycles of this update"),
        "resampled": _var((), int(meas.resampled), "1", "1 when an outlier made this update re-sample at rtol/100"),
        "output_deviation_rms": _var((), np.sqrt(np.mean(dev ** 2)) if len(dev) else 0.0, ounit,
                                     f"RMS deviation of {cfg.output_name} of the output body from the ideal mechanism"),
        "output_deviation_max": _var((), np.max(np.abs(dev)) if len(dev) else 0.0, ounit,
                                     f"largest deviation of {cfg.output_name} of the output body from the ideal mechanism"),
        "cycle_jump": _var((), dN, "1", "cycles jumped after this update"),
        "update": _var((), run.update, "1", "update index"),
    }
    if js:
        v.update(_joint_variables(run, meas, increments, ratios))
    ds = xr.Dataset({k: x.expand_dims("cycle") if "cycle" not in x.dims else x
                     for k, x in ((k, xr.DataArray(x)) for k, x in v.items())})
    ds = ds.assign_coords(cycle=xr.Variable("cycle", [run.cycles_done],
                                            {"units": "1", "long_name": "machine cycles done"}))
    return ds


def _joint_variables(run, meas, increments: dict, ratios: dict) -> dict:
    """The row's variables of the worn revolute joints (dimension ``joint``)."""
    js = sorted(run.worn)
    depth = np.array([[run.worn[j].h_bushing, run.worn[j].h_journal] for j in js])
    radius = np.array([[run.worn[j].radius_bushing(), run.worn[j].radius_journal()] for j in js])
    inc = np.array([[increments[j][0], increments[j][1]] for j in js])
    inc_se = np.array([[increments[j][3], increments[j][4]] for j in js])
    slide_inc = np.array([increments[j][2] for j in js])
    vol = np.array([run.worn[j].volumes() for j in js])
    for j, d in zip(js, depth):
        for surface, h in zip(SURFACES, d):
            ripple.flag(run.validity, run.worn[j].joint.name, surface, ripple.profile_ripple(h), run.update,
                        run.cycles_done)
    film_validity.check(run)
    rate = np.array([[meas.rates[j].depth_bushing, meas.rates[j].depth_journal] for j in js])
    rate_se = np.array([[meas.rates[j].stderr_bushing, meas.rates[j].stderr_journal] for j in js])
    vrate = np.array([meas.rates[j].volume for j in js])
    vrate_se = np.array([meas.rates[j].volume_stderr for j in js])
    vol_se = np.array([np.sqrt(run.variance[j][0]) for j in js])
    depth_se = np.array([np.sqrt(run.variance[j][1]) for j in js])
    v = {
        "wear_depth": _var(("joint", "surface", "theta"), depth, "m", "wear depth of the surface, body frame"),
        "wear_depth_stderr": _var(("joint", "surface", "theta"), depth_se, "m",
                                  "standard error of the wear depth (updates' variances added)"),
        "radius": _var(("joint", "surface", "theta"), radius, "m", "worn radius of the surface, body frame"),
        "wear_rate": _var(("joint", "surface", "theta"), rate, "m/cycle", "wear depth per cycle measured at this update (mean over the averaging cycles)"),
        "wear_rate_stderr": _var(("joint", "surface", "theta"), rate_se, "m/cycle", "standard error of wear_rate"),
        "volume_rate": _var(("joint", "surface"), vrate, "m^3/cycle", "worn volume per cycle measured at this update (mean over the averaging cycles)"),
        "volume_rate_stderr": _var(("joint", "surface"), vrate_se, "m^3/cycle", "standard error of volume_rate"),
        "depth_increment": _var(("joint", "surface", "theta"), inc, "m", "depth added after this update (over cycle_jump cycles)"),
        "depth_increment_stderr": _var(("joint", "surface", "theta"), inc_se, "m", "standard error of depth_increment"),
        "sliding_distance": _var(("joint", "theta"), np.array([run.worn[j].sliding_bushing for j in js]), "m",
                                 "sliding distance under load seen by each bushing node"),
        "sliding_increment": _var(("joint", "theta"), slide_inc, "m", "sliding distance added after this update"),
        "wear_volume": _var(("joint", "surface"), vol, "m^3", "worn volume (cumulative)"),
        "wear_volume_stderr": _var(("joint", "surface"), vol_se, "m^3",
                                   "standard error of the worn volume (updates' variances added)"),
        "max_wear_depth": _var(("joint", "surface"), depth.max(axis=2), "m", "deepest wear of the surface"),
        "profile_ripple": _var(("joint", "surface"), ripple.ripples(depth), "1",
                               f"{ripple.MEASURE} (NaN: not worn; flagged above {100 * ripple.THRESHOLD:g} %, "
                               "workbench.wear.ripple)"),
        "peak_pressure": _var(("joint",), [meas.rates[j].peak_pressure for j in js], "Pa", "peak contact pressure over the averaging cycles"),
        "pressure_hardness_ratio": _var(("joint",), [ratios[j] for j in js], "1",
                                        "peak pressure over the hardness of the softer part (NaN: no hardness given)"),
        "max_contact_force": _var(("joint",), [meas.rates[j].max_force for j in js], "N", "largest sampled normal contact force over the averaging cycles"),
        "mean_contact_force": _var(("joint",), [meas.rates[j].mean_force for j in js], "N", "mean normal contact force over the averaging cycles"),
        "max_penetration_ratio": _var(("joint",), [float(meas.rates[j].cycles.max_penetration.max()) / run.worn[j].clearance for j in js],
                                      "1", "largest penetration over the averaging cycles / radial clearance"),
        "impacts": _var(("joint",), [meas.impacts[j] for j in js], "1", "contact starts (impacts) in the averaging cycles"),
    }
    # per-cycle peak force and impacts, mean +- SE
    from .trends import cycle_statistics
    v.update(cycle_statistics(run, meas))
    return v


def dynamics(run, meas) -> xr.Dataset:
    """The averaging-cycle dynamics of this update: one ``record`` (written for selected updates).

    The joints are the worn revolute joints (dimension ``joint``); a guide-only run records its
    worn translational joints instead (dimension ``guide_joint``, without the revolute joints'
    contact angle and journal eccentricity)."""
    cfg, sim, k = run.cfg, meas.sim, meas.start
    e = k + cfg.samples_per_cycle + 1      # the first averaging cycle (fixed length for every record)
    js = sorted(run.worn)
    guide_only = not js
    if guide_only:
        js = sorted(run.guides)
    d = ("phase", "guide_joint" if guide_only else "joint")
    ounit = "rad" if cfg.output_coordinate == 2 else "m"
    v = {
        "dyn_contact_force": _var(d, sim.contact_force[k:e, js], "N", "normal contact force, first averaging cycle"),
        "dyn_friction_force": _var(d, sim.friction_force[k:e, js], "N", "friction force, first averaging cycle"),
        "dyn_penetration": _var(d, sim.penetration[k:e, js], "m", "penetration (negative while apart)"),
        "dyn_slip_velocity": _var(d, sim.slip_velocity[k:e, js], "m/s", "tangential slip velocity"),
        "dyn_output": _var(("phase",), sim.position[k:e, cfg.output_body, cfg.output_coordinate], ounit,
                           f"{cfg.output_name} of the output body"),
        "dyn_output_deviation": _var(("phase",), meas.deviation[:e - k], ounit, "output minus ideal output"),
    }
    if not guide_only:
        v["dyn_contact_angle"] = _var(d, sim.contact_angle[k:e, js], "rad", "contact direction in the bushing frame")
        v["dyn_eccentricity"] = _var((*d, "axis"), sim.eccentricity[k:e, js], "m", "journal centre offset, bushing frame")
        if getattr(sim, "film_force", None) is not None and any(
                getattr(run.worn[j].joint, "lubrication", None) is not None for j in js):
            # a lubricated joint: the contact force above is its solid (asperity) contact, the wear
            # law's load; the film's force, which wears nothing, is recorded apart
            v["dyn_film_force"] = _var(d, sim.film_force[k:e, js], "N",
                                       "magnitude of the lubricant film's force on the journal, first averaging cycle")
    ds = xr.Dataset({n: xr.DataArray(x).expand_dims("record") for n, x in v.items()})
    return ds.assign_coords(record_cycle=xr.Variable("record", [run.cycles_done],
                                                     {"units": "1", "long_name": "machine cycles done when recorded"}))


def static(run, ideal: np.ndarray, meas) -> xr.Dataset:
    """Coordinates and variables without a ``cycle`` dimension (written once)."""
    cfg = run.cfg
    js = sorted(run.worn)
    M = cfg.nodes
    ns = len(ideal)
    phase_t = meas.sim.time[meas.start:] - meas.sim.time[meas.start]
    ounit = "rad" if cfg.output_coordinate == 2 else "m"
    data = {"ideal_output": _var(("phase",), ideal, ounit, f"{cfg.output_name} of the output body, ideal mechanism")}
    coords = {"axis": ("axis", ["x", "y"], {"units": "1", "long_name": "bushing-frame axis"}),
              "phase": ("phase", phase_t[:ns], {"units": "s", "long_name": "time since the start of the averaging cycles"})}
    if js:   # worn revolute joints (a guide-only run has none: no joint, surface or theta)
        data["nominal_radius"] = _var(("joint", "surface"), [[run.worn[j].joint.bushing_radius,
                                                              run.worn[j].joint.journal_radius] for j in js],
                                      "m", "unworn radius")
        coords.update({
            "theta": ("theta", 2 * math.pi * np.arange(M) / M, {"units": "rad", "long_name": "body-fixed node angle"}),
            "joint": ("joint", [run.worn[j].joint.name for j in js], {"units": "1", "long_name": "worn clearance joint"}),
            "surface": ("surface", list(SURFACES), {"units": "1", "long_name": "worn part"})})
    return xr.Dataset(data, coords=coords)


def _selection(run):
    if getattr(run, "selection", None) is None:
        from ..engines import select
        run.selection = select(run.study.mechanism, run.study.solver)
    return run.selection


def attrs(run, registry) -> dict:
    # provenance from the one builder of workbench.results.dataset
    from ..results.dataset import json_attr as _json, model_info as _model_info, study_provenance
    from ..mbs.mechanism import contact_geometry
    study, cfg = run.study, run.cfg
    return {
        **study_provenance(study, registry),
        "pressure_model": _json(_model_info(cfg.pressure, registry)),
        "wear_law": _json(_model_info(cfg.law, registry)),
        "contact_models": _json({c.name: _model_info(c.contact, registry, contact_geometry(c))
                                 for c in study.mechanism.clearance_joints}),
        "solver_settings": _json(dataclasses.asdict(study.solver)),
        # which engine runs the updates, and why (workbench.engines.select)
        "engine": _selection(run).name, "engine_reason": _selection(run).reason,
        "cycles_requested": cfg.cycles, "cycle_period": cfg.cycle_period,
        "cycle_period_units": "s",
        "bushing_share": cfg.bushing_share, "depth_step": cfg.depth_step,
        "statistics": ("mean over the averaging cycles of each update; standard error with the AR(1) "
                       "factor (1+rho)/(1-rho) of the lag-1 autocorrelation of the per-cycle volume "
                       "(Zwiers & von Storch 1995); cumulative errors add the updates' variances"),
        "average_cycles_min": cfg.average_cycles, "average_cycles_max": cfg.max_average_cycles,
        "rate_tolerance": cfg.rate_tolerance, "profile_tolerance": cfg.profile_tolerance,
        "jump_tolerance": cfg.jump_tolerance, "penetration_limit": cfg.penetration_limit,
        "outlier_k": cfg.outlier_k, "hardness_limit": cfg.hardness_limit,
        "output_body": study.mechanism.bodies[cfg.output_body].name, "output_coordinate": cfg.output_name,
        "run_status": "running",
        **_lubrication_bore(run),
    }


def _lubrication_bore(run) -> dict:
    """What the lubricated worn joints' films see of the wear (``LubricationModel.worn_bore``):
    each update's dynamics runs on the bushing worn by the updates before it."""
    from ..results.dataset import json_attr as _json
    seen = {w.joint.name: (w.joint.lubrication.worn_bore() or "the nominal bore (the model has no worn form)")
            for w in run.worn.values() if getattr(w.joint, "lubrication", None) is not None}
    if not seen:
        return {}
    return {"lubrication_bore": _json(seen),
            "lubrication_bore_note": ("the lubrication model of each update's dynamics is packed with the "
                                      "bushing profile worn by the updates before it plus the journal's mean "
                                      "wear (a uniform clearance increase); the rest of the journal's wear, "
                                      "which turns with the journal, is not in the film")}
