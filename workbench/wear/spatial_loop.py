"""The wear loop of the spatial clearance joints: worn maps ``wear_depth(cycle, joint, surface, theta, z)``
of journals, caps ``wear_depth(cycle, joint, surface, theta, phi)`` of balls.

The same loop as the planar one (:mod:`.loop`), with worn maps (:mod:`.spatial_map`) or caps
(:mod:`.spatial_cap`) in place of worn profiles.  Each update:

1. the sample source (:func:`run_spatial_wear`'s ``source``: the spatial dynamics on the current
   maps, :mod:`.spatial_samples`, or a rig) gives ``n`` averaging cycles of every worn joint's
   load, axis slope, turn and slip (:class:`.spatial_map.MapSamples`; a ball's load and spin,
   :class:`.spatial_cap.CapSamples`);
2. every cycle is evaluated on its own (Winkler pressure over the map, the study's wear law:
   :func:`.spatial_map.cycle_rates`) and the cycles make the rate and its standard error
   (:func:`.increment.estimate`, :mod:`.statistics`: AR(1)-corrected); ``n`` grows until the
   volume rate and the rate map meet ``rate_tolerance`` and ``profile_tolerance`` or
   ``max_average_cycles`` is reached (the planar loop's rule, :func:`.loop.convergence_ratio`);
3. outliers are screened as in the planar loop (:func:`.loop.outliers`; the source is asked again
   at rtol/100 once, then the run stops, :func:`.stops.outlier_stop`);
4. the peak pressure is checked against the softer part's hardness (``p_max/H``: warning above
   1/3, stop above ``hardness_limit``; the planar loop's :class:`.validity.ValidityLog`) and the
   row is stored (:class:`.store.WearStore`, inside the store session of
   :func:`.session.guarded`), with the map before the jump;
5. the jump ``dN`` is the planar loop's (:func:`.loop.choose_jump`: depth step times the radial
   clearance, jump error control over the last updates, cycles left), and the maps wear by ``dN``
   times the rate (:func:`.spatial_increment.map_increment`; a running-in law at the sliding
   distances before and after the jump); cumulative standard errors add the
   updates' variances, as in the planar loop; with ``jump_control = "history"`` an update's rate
   errors are first widened to the scatter of the rates between updates
   (:func:`.history.with_scatter`, the planar loop's rule).

A stopped run continues from its store (``resume``, :mod:`.spatial_resume`).
"""
from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass

import numpy as np
import xarray as xr

from ..errors import WorkbenchError
from ..results.variables import var as _var
from . import loop
from .history import with_scatter
from .increment import estimate
from .session import guarded
from .spatial_increment import map_increment
from .spatial_map import WornMap, cycle_rates
from .spatial_resume import restore_history
from .stops import outlier_stop
from .store import WearStore, open_store
from .trends import cycle_counts, statistics_vars

SURFACES = ("bushing", "journal")


@dataclass(frozen=True)
class SpatialWearConfig:
    """The settings of a spatial wear run (SI units; the planar ``[wear]`` keys of the same name).

    cycles : machine cycles [1]; cycle_period [s]; settle_cycles, samples_per_cycle [1];
    nodes : angle nodes M [1]; z_nodes : axial nodes Nz of a journal's map, polar nodes of a ball's cap [1];
    average_cycles, max_average_cycles [1]; rate_tolerance, profile_tolerance, jump_tolerance [1];
    jump_control : ``"last_update"`` or ``"history"``; penetration_limit, outlier_k [1];
    bushing_share, depth_step [1]; max_cycle_jump [1]; hardness_limit [1] (``p_max/H`` that stops
    the run); joints : indices of the worn joints in
    ``mechanism.spatial_clearance_joints`` (journals or balls); pressure, law : the pressure model (``winkler``) and
    the wear law (plugin instances).
    """
    cycles: float
    cycle_period: float
    nodes: int
    z_nodes: int
    joints: tuple
    pressure: object
    law: object
    settle_cycles: int = 1
    samples_per_cycle: int = 360
    average_cycles: int = 2
    max_average_cycles: int = 32
    rate_tolerance: float = 0.05
    profile_tolerance: float = 0.1
    jump_tolerance: float = 0.05
    jump_control: str = "last_update"
    penetration_limit: float = 0.5
    outlier_k: float = 10.0
    bushing_share: float = 1.0
    depth_step: float = 0.05
    max_cycle_jump: float = math.inf
    hardness_limit: float = 10.0
    guides: tuple = ()   # no translational joints wear in a spatial mechanism (the planar config's field)


@dataclass
class _Measured:
    rates: dict
    n_cycles: int
    resampled: bool


class _Mechanism:
    """The names the planar loop's messages ask for (``clearance_joints[j].name``)."""

    def __init__(self, joints):
        self.clearance_joints = joints


class _Study:
    def __init__(self, study):
        self.mechanism = _Mechanism(study.mechanism.spatial_clearance_joints)
        self.text = getattr(study, "text", None)


def start(study, cfg) -> loop.WearRun:
    """A fresh run: the planar loop's run state with a worn map per worn joint."""
    from .spatial_cap import WornCap
    run = loop.WearRun(_Study(study), cfg)
    joints = study.mechanism.spatial_clearance_joints
    kinds = {joints[j].type == "spherical" for j in cfg.joints}
    if len(kinds) > 1:
        raise WorkbenchError("spatial wear: a study wears either journals (maps over theta, z) or balls "
                             "(caps over theta, phi), not both")
    for j in cfg.joints:
        jt = joints[j]
        if jt.type == "spherical":
            if cfg.bushing_share != 1.0:
                raise WorkbenchError(f"spatial wear: ball joint '{jt.name}' wears its socket only "
                                     f"(bushing_share = 1, got {cfg.bushing_share:g})")
            run.worn[j] = WornCap.fresh(jt, cfg.nodes, cfg.z_nodes)
        else:
            run.worn[j] = WornMap.fresh(jt, cfg.nodes, cfg.z_nodes)
        run.variance[j] = (np.zeros(2), np.zeros((2, cfg.nodes * cfg.z_nodes)))
    return run


def measure(run, source) -> _Measured:
    """Steps 1-3 of an update (module docstring)."""
    cfg = run.cfg
    tighten, resampled = 1.0, False
    while True:
        final = run.cycles_done >= cfg.cycles
        n = cfg.average_cycles if final else min(max(cfg.average_cycles, run.previous_cycles),
                                                 cfg.max_average_cycles)
        rates = _rates(run, source(run, n, tighten), n)
        while not final and n < cfg.max_average_cycles and loop.convergence_ratio(run, rates) > 1.0:
            need = math.ceil(1.2 * n * min(loop.convergence_ratio(run, rates), 10.0) ** 2)
            n = int(min(max(need, n + 1), cfg.max_average_cycles))
            rates = _rates(run, source(run, n, tighten), n)
        bad = loop.outliers(run, rates)
        if not bad:
            return _Measured(rates, n, resampled)
        if resampled:
            j, o = bad[0]
            raise outlier_stop(run, j, o, rates[j], n, run.study.mechanism.clearance_joints[j].name)
        tighten, resampled = 0.01, True


def _rates(run, samples: dict, n: int) -> dict:
    cfg = run.cfg
    out = {}
    t = _time.perf_counter()
    for j, w in run.worn.items():
        cr = cycle_rates(w, samples[j], n, cfg.pressure, cfg.law, cfg.bushing_share)
        r = estimate(cr, samples[j].contact())
        r.map_samples = samples[j]
        out[j] = r
    run.timings.pressure_wear += _time.perf_counter() - t
    return out


def _split(w: WornMap, flat):
    return np.asarray(flat, float).reshape(w.shape)


def row(run, meas: _Measured, dN: float, inc: dict, ratios: dict | None = None) -> xr.Dataset:
    """Row ``run.update`` of the store: the maps before this update's jump, their rates and errors."""
    js = sorted(run.worn)
    W = [run.worn[j] for j in js]
    M, nz = W[0].shape
    depth = np.array([[w.h_bushing, w.h_journal] for w in W])
    depth_se = np.array([[_split(w, np.sqrt(run.variance[j][1][k])) for k in (0, 1)] for j, w in zip(js, W)])
    r = [meas.rates[j] for j in js]
    rate = np.array([[_split(w, x.depth_bushing), _split(w, x.depth_journal)] for w, x in zip(W, r)])
    rate_se = np.array([[_split(w, x.stderr_bushing), _split(w, x.stderr_journal)] for w, x in zip(W, r)])
    d_inc = np.array([[_split(w, inc[j][0]), _split(w, inc[j][1])] for j, w in zip(js, W)])
    d_inc_se = np.array([[_split(w, inc[j][3]), _split(w, inc[j][4])] for j, w in zip(js, W)])
    slid = np.array([w.sliding_bushing for w in W])
    d_slid = np.array([_split(w, inc[j][2]) for j, w in zip(js, W)])
    vol = np.array([w.volumes() for w in W])
    vol_se = np.array([np.sqrt(run.variance[j][0]) for j in js])
    (a0, x0, at0), (a1, x1, at1) = W[0].axes
    D5 = ("joint", "surface", a0, a1)
    v = {
        "wear_depth": _var(D5, depth, "m", "wear depth over the bearing surface (before this update's jump)"),
        "wear_depth_stderr": _var(D5, depth_se, "m", "standard error of the wear depth"),
        "wear_rate": _var(D5, rate, "m", "wear depth per machine cycle (mean over the averaging cycles)"),
        "wear_rate_stderr": _var(D5, rate_se, "m", "standard error of the wear depth per machine cycle"),
        "depth_increment": _var(D5, d_inc, "m", "wear depth added by this update's jump"),
        "depth_increment_stderr": _var(D5, d_inc_se, "m", "standard error of the depth increment"),
        "sliding_distance": _var(("joint", a0, a1), slid, "m", "sliding distance each bushing node has seen "
                                 "under load (before this update's jump; a running-in law reads it)"),
        "sliding_increment": _var(("joint", a0, a1), d_slid, "m", "sliding distance added by this update's jump"),
        "wear_volume": _var(("joint", "surface"), vol, "m^3", "worn volume (before this update's jump)"),
        "wear_volume_stderr": _var(("joint", "surface"), vol_se, "m^3", "standard error of the worn volume"),
        "volume_rate": _var(("joint", "surface"), [x.volume for x in r], "m^3",
                            "worn volume per machine cycle"),
        "volume_rate_stderr": _var(("joint", "surface"), [x.volume_stderr for x in r], "m^3",
                                   "standard error of the worn volume per machine cycle"),
        "max_wear_depth": _var(("joint", "surface"), depth.max(axis=(2, 3)), "m", "deepest wear of each surface"),
        "peak_pressure": _var(("joint",), [x.peak_pressure for x in r], "Pa",
                              "largest contact pressure over the averaging cycles"),
        "max_contact_force": _var(("joint",), [x.max_force for x in r], "N",
                                  "largest contact force over the averaging cycles"),
        "mean_contact_force": _var(("joint",), [x.mean_force for x in r], "N",
                                   "mean contact force over the averaging cycles"),
        "pressure_hardness_ratio": _var(("joint",), [(ratios or {}).get(j, math.nan) for j in js], "1",
                                        "peak pressure / hardness of the softer part (NaN: no hardness given)"),
        "average_cycles": _var((), meas.n_cycles, "1", "averaging cycles of this update"),
        "resampled": _var((), int(meas.resampled), "1", "1 when an outlier made this update re-sample at rtol/100"),
        "cycle_jump": _var((), dN, "1", "cycles jumped after this update"),
        "update": _var((), run.update, "1", "update index"),
    }
    t0 = [x.map_samples.time[0] for x in r]
    v.update(statistics_vars([x.cycles.peak_force for x in r],
                             [cycle_counts(x.map_samples.contact_starts, t, run.cfg.cycle_period, meas.n_cycles)
                              for x, t in zip(r, t0)]))
    ds = xr.Dataset({k: xr.DataArray(x).expand_dims("cycle") for k, x in v.items()})
    return ds.assign_coords(
        cycle=xr.Variable("cycle", [run.cycles_done], {"units": "1", "long_name": "machine cycles done"}),
        joint=xr.Variable("joint", [w.joint.name for w in W], {"units": "1", "long_name": "worn clearance joint"}),
        surface=xr.Variable("surface", list(SURFACES), {"units": "1", "long_name": "worn part (socket: bushing, "
                                                        "ball: journal)"}),
        **{a0: xr.Variable(a0, x0, at0), a1: xr.Variable(a1, x1, at1)})


def apply(run, meas: _Measured, dN: float, inc: dict) -> None:
    """Wear the maps by the increments of a jump of ``dN`` cycles (after the row is stored)."""
    for j, w in run.worn.items():
        db, dj, ds_, se_b, se_j = inc[j]
        w.h_bushing = w.h_bushing + _split(w, db)
        w.h_journal = w.h_journal + _split(w, dj)
        w.sliding_bushing = w.sliding_bushing + _split(w, ds_)
        vol_var, depth_var = run.variance[j]
        run.variance[j] = (vol_var + (dN * meas.rates[j].volume_stderr) ** 2,
                           depth_var + np.array([se_b, se_j]) ** 2)
        run.previous[j] = (meas.rates[j].profile, meas.rates[j].profile_stderr)


@guarded
def run_spatial_wear(study, *, out, source, resume: bool = False, progress=None,
                     max_updates: int | None = None) -> xr.Dataset:
    """Run the spatial wear loop of ``study`` (its ``mechanism`` with ``spatial_clearance_joints``,
    its ``wear``: a :class:`SpatialWearConfig`) into the zarr store ``out``.

    ``source(run, n_cycles, tighten)`` returns ``{joint index: MapSamples}`` over ``n_cycles``
    averaging cycles of ``samples_per_cycle`` samples on the current maps (``run.worn``), at the
    solver tolerances times ``tighten``.  ``progress(cycles_done, cycles_total, dN, max_depth)``
    after every update.  Returns the store's dataset (loaded)."""
    cfg = study.wear
    run = start(study, cfg)
    store = WearStore(out)
    wall = _time.perf_counter()
    new = 0
    dN = math.nan
    known = None       # a resumed store keeps the variables it was made with
    if resume:
        ds = store.resume()
        known = set(ds.data_vars)
        if ds.attrs.get("study_text") != (run.study.text or ""):
            raise WorkbenchError(f"cannot resume {out}: it was made by a different study text "
                                 f"(study file {ds.attrs.get('study_file') or '?'})")
        restore_history(run, ds)
        dN = 0.0 if float(ds.cycle_jump.values[-1]) == 0.0 else math.nan   # 0: killed after its last update
    while dN != 0.0:
        meas = measure(run, source)
        with_scatter(run, meas)    # jump_control = "history": errors widened to the scatter between updates
        ratios = {j: run.validity.pressure_ratio(_Materials(w.joint), meas.rates[j].peak_pressure, cfg.hardness_limit,
                                                 run.update, run.cycles_done) for j, w in run.worn.items()}
        dN = loop.choose_jump(run, meas)
        inc = {j: map_increment(w, meas.rates[j], dN, cfg.law, cfg.bushing_share, cfg.pressure)
               for j, w in run.worn.items()}
        r = row(run, meas, dN, inc, ratios)
        # the validity notes are committed with the update they belong to (one atomic step)
        validity = (dict(validity_warnings=list(run.validity.warnings), validity_notes=list(run.validity.notes))
                    if run.validity.warnings or run.validity.notes else None)
        if run.update == 0:
            store.create(r.assign_attrs(study_text=run.study.text or "", title=getattr(study, "title", ""),
                                        wear_law=cfg.law.name, pressure_model=cfg.pressure.name,
                                        wear_map="spatial"), attrs=validity)
        else:
            if known is not None:   # a store from before a variable was added to the rows
                r = r[[k for k in r.data_vars if k in known]]
            store.append(r, attrs=validity)
        if dN > 0.0:
            apply(run, meas, dN, inc)
        if progress is not None:
            progress(run.cycles_done + dN, cfg.cycles, dN, loop.deepest_wear(run))
        if dN == 0.0:
            break
        loop.advance(run, meas, dN)
        new += 1
        if max_updates is not None and new >= max_updates:
            break
    store.set_attrs(run_status="complete" if dN == 0.0 else "incomplete (resume with --resume)",
                    wall_time=_time.perf_counter() - wall)
    return open_store(out)


class _Materials:
    """A spatial clearance joint seen by :class:`.validity.ValidityLog` (which names the bushing's
    and the journal's materials; the spatial joint's ``material_i`` and ``material_j``)."""

    def __init__(self, joint):
        self.name = joint.name
        self.bushing_material = joint.material_i
        self.journal_material = joint.material_j


def groove_taper(depth: np.ndarray, z: np.ndarray) -> float:
    """Least-squares slope [1] of a groove's depth ``depth(z)`` [m] along ``z`` [m] (the taper)."""
    return float(np.polyfit(np.asarray(z, float), np.asarray(depth, float), 1)[0])


__all__ = ["SpatialWearConfig", "run_spatial_wear", "start", "measure", "row", "apply", "groove_taper"]
