"""Translational clearance joints in the wear loop (:mod:`.loop`): their worn state, rates,
increments, store rows and resumption.

The loop keeps its revolute joints in ``run.worn`` (:mod:`.revolute_loop`); the worn translational
joints live in ``run.guides`` (joint index -> :class:`GuideWear`).  Both modules have the same
shape (``start``, ``surfaces``, ``rates``, ``impacts``, ``hardness_ratios``, ``increments``,
``record``, ``static``, ``apply``, ``restore``), and :mod:`.loop` calls each in turn.  Their rates
join in the update's rate dictionary (same :class:`~workbench.wear.increment.WearRate` type, keyed by the clearance-joint
index), so the averaging-cycle control, the outlier screen and the jump control treat both kinds
alike.

Store variables (every one with ``units`` and ``long_name``; dims ``guide_joint``,
``guide_surface`` = upper/lower, ``s`` = guide node, ``slider_face`` = top/bottom, ``u`` = slider face
node, ``guide_part`` = guide/slider): ``guide_wear_depth(cycle, guide_joint, guide_surface, s)``
[m] and ``slider_wear_depth(cycle, guide_joint, slider_face, u)`` [m] with their standard errors,
rates, increments and sliding distances; volumes and their errors per part; peak pressure, forces,
penetration and impacts per joint.  The node positions are the coordinates ``guide_s(guide_joint,
s)`` and ``slider_u(guide_joint, u)`` [m].
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial
from types import SimpleNamespace

import numpy as np
import xarray as xr

from ..mbs.guide_profile import GUIDE_SURFACES, SLIDER_FACES
from ..engines import simulate
from ..results.variables import var
from . import translational as tr
from .guide import WornGuide, guide_nodes


@dataclass
class GuideWear:
    """One worn translational joint in a run: its surfaces and the cumulative variances
    (volume (2,) [m^6], guide depth (2, N) and slider depth (2, Nu) [m^2])."""
    worn: WornGuide
    vol_var: np.ndarray
    guide_var: np.ndarray
    slider_var: np.ndarray


def joints(mechanism, cfg) -> tuple:
    """Indices of the worn translational joints of ``cfg`` (``cfg.guides``, empty by default)."""
    return tuple(getattr(cfg, "guides", ()) or ())


def _travel(study, cfg, j: int) -> tuple[float, float]:
    """Range of the slider point's guide coordinate [m] over one cycle of the ideal mechanism."""
    mech = study.mechanism
    c = mech.clearance_joints[j]
    T = cfg.cycle_period
    st = dataclasses.replace(study.solver, t_end=study.solver.t_start + (cfg.settle_cycles + 1) * T,
                             output_step=T / cfg.samples_per_cycle)
    sim = simulate(mech.ideal(), st)

    def glob(body, point):
        local = mech.point(body, point)
        b = mech.body_index(body)
        if b < 0:
            return np.broadcast_to(local, (len(sim.time), 2)), np.zeros(len(sim.time))
        x, y, ph = (sim.position[:, b, k] for k in range(3))
        return np.column_stack([x + np.cos(ph) * local[0] - np.sin(ph) * local[1],
                                y + np.sin(ph) * local[0] + np.cos(ph) * local[1]]), ph

    Pg, phg = glob(c.guide_body, c.guide_point)
    Ps, _ = glob(c.slider_body, c.slider_point)
    a = np.asarray(c.axis, float) / np.linalg.norm(c.axis)
    ag = np.column_stack([np.cos(phg) * a[0] - np.sin(phg) * a[1], np.sin(phg) * a[0] + np.cos(phg) * a[1]])
    s = np.sum((Ps - Pg) * ag, axis=1)
    return float(s.min()), float(s.max())


def start(run) -> None:
    """Fresh surfaces for every worn translational joint of the run (nodes over the slider's
    travel in the ideal mechanism, :func:`workbench.wear.guide.guide_nodes`)."""
    cfg = run.cfg
    made = {}
    for j in joints(run.study.mechanism, cfg):
        c = run.study.mechanism.clearance_joints[j]
        lo, hi = _travel(run.study, cfg, j)
        made[j] = WornGuide.fresh(c, guide_nodes(lo, hi, c.slider_length, cfg.nodes))
    nu = max((len(w.u) for w in made.values()), default=0)
    for j, w in made.items():      # one face-node count for all joints (one store dimension)
        u = np.linspace(w.u[0], w.u[-1], nu)
        w = WornGuide(w.joint, w.s, u, np.zeros((2, len(w.s))), np.zeros((2, nu)))
        run.guides[j] = GuideWear(w, np.zeros(2), np.zeros((2, len(w.s))), np.zeros((2, nu)))


def surfaces(run) -> dict:
    """The packed worn geometry of every guide for :func:`~workbench.mbs.solver.simulate`."""
    return {j: g.worn.packed() for j, g in run.guides.items()}


def clearance(run, j: int) -> float:
    """Nominal clearance [m] of worn joint ``j`` (revolute or translational)."""
    return run.worn[j].clearance if j in run.worn else run.guides[j].worn.clearance


def rates(run, sim, n: int) -> dict:
    """Wear-rate estimates of the guides from the ``n`` averaging cycles of ``sim``."""
    cfg = run.cfg
    start_ = cfg.settle_cycles * cfg.samples_per_cycle
    out = {}
    surf = {**{j: (w.h_bushing, w.h_journal) for j, w in run.worn.items()}, **surfaces(run)}
    for j, g in run.guides.items():
        samples = tr.GuideSamples.from_simulation(sim, run.study.mechanism, surf, j, start_)
        from .revolute_loop import context   # a model's bad output or exception: named, exit status 3
        with context(run, g.worn):
            out[j] = tr.wear_rate(g.worn, samples, n, cfg.pressure, cfg.law, cfg.bushing_share)
    return out


def impacts(run, sim, t_start: float) -> dict:
    return {j: int(np.sum((sim.impact_joint == j) & (sim.impact_time >= t_start))) for j in run.guides}


def hardness_ratios(run, meas) -> dict:
    """``p_max / H`` of every guide (the validity log's check, guide and slider materials)."""
    out = {}
    for j, g in run.guides.items():
        c = g.worn.joint
        shim = SimpleNamespace(name=c.name, bushing_material=c.guide_material, journal_material=c.slider_material)
        out[j] = run.validity.pressure_ratio(shim, meas.rates[j].peak_pressure, run.cfg.hardness_limit,
                                             run.update, run.cycles_done)
    return out


def increments(run, meas, dN: float) -> dict:
    cfg = run.cfg
    return {j: (*tr.jump_increment(g.worn, meas.rates[j], dN, cfg.law, cfg.bushing_share, cfg.pressure),
                _slider_slide(meas.rates[j], dN, g.worn))
            for j, g in run.guides.items()}


def apply(run, meas, dN: float, inc: dict) -> None:
    """Wear the guides by the increments of a jump of ``dN`` cycles (after the row is stored)."""
    for j, g in run.guides.items():
        dg, du, dsl, se_g, se_u, dsu = inc[j]
        w = g.worn
        w.h_guide = w.h_guide + dg
        w.h_slider = w.h_slider + du
        w.sliding_guide = w.sliding_guide + dsl
        w.sliding_slider = w.sliding_slider + dsu
        g.vol_var = np.sqrt(g.vol_var) ** 2 + (dN * meas.rates[j].volume_stderr) ** 2
        g.guide_var = np.sqrt(g.guide_var) ** 2 + se_g ** 2
        g.slider_var = np.sqrt(g.slider_var) ** 2 + se_u ** 2
        run.previous[j] = (meas.rates[j].profile, meas.rates[j].profile_stderr)


def _slider_slide(rate, dN, w) -> np.ndarray:
    """Sliding distance of the slider's face nodes over the jump [m] (every face node slides with
    the slider while its face is loaded)."""
    s = rate.samples
    per_face = np.array([np.sum(np.where(s.force[:, [0, 1]].sum(axis=1) > 0, s.slip, 0.0)),
                         np.sum(np.where(s.force[:, [2, 3]].sum(axis=1) > 0, s.slip, 0.0))])
    return dN * per_face[:, None] / rate.cycles.n * np.ones_like(w.h_slider)


#: the variables of this module hold measured (float) data
_var = partial(var, dtype=float)


def static(run) -> xr.Dataset:
    """Coordinates of the guide variables (written once)."""
    js = sorted(run.guides)
    if not js:
        return xr.Dataset()
    g = [run.guides[j].worn for j in js]
    return xr.Dataset(coords={
        "guide_joint": ("guide_joint", [w.joint.name for w in g], {"long_name": "worn translational clearance joint"}),
        "guide_surface": ("guide_surface", list(GUIDE_SURFACES), {"long_name": "guide face (+H/2 upper, -H/2 lower)"}),
        "slider_face": ("slider_face", list(SLIDER_FACES), {"long_name": "slider contact face"}),
        "guide_part": ("guide_part", ["guide", "slider"], {"long_name": "worn part of a translational joint"}),
        "guide_s": (("guide_joint", "s"), np.array([w.s for w in g]),
                    {"units": "m", "long_name": "guide node position along the guide axis from the guide point"}),
        "slider_u": (("guide_joint", "u"), np.array([w.u for w in g]),
                     {"units": "m", "long_name": "slider face node position along the slider from its centre"})})


def record(run, meas, dN: float, inc: dict, ratios: dict, row: xr.Dataset) -> xr.Dataset:
    """``row`` with the guide variables of this update added (each with a leading ``cycle``)."""
    js = sorted(run.guides)
    if not js:
        return row
    G = [run.guides[j] for j in js]
    R = [meas.rates[j] for j in js]
    N, nu = G[0].worn.nodes, len(G[0].worn.u)
    gs, sf = ("guide_joint", "guide_surface", "s"), ("guide_joint", "slider_face", "u")
    v = {
        "guide_wear_depth": _var(gs, [g.worn.h_guide for g in G], "m", "wear depth of the guide face along the guide"),
        "guide_wear_depth_stderr": _var(gs, [np.sqrt(g.guide_var) for g in G], "m",
                                        "standard error of guide_wear_depth (updates' variances added)"),
        "guide_wear_rate": _var(gs, [r.depth_bushing.reshape(2, N) for r in R], "m/cycle",
                                "guide wear depth per cycle measured at this update (mean over the averaging cycles)"),
        "guide_wear_rate_stderr": _var(gs, [r.stderr_bushing.reshape(2, N) for r in R], "m/cycle",
                                       "standard error of guide_wear_rate"),
        "guide_depth_increment": _var(gs, [inc[j][0] for j in js], "m", "guide depth added after this update (over cycle_jump cycles)"),
        "guide_depth_increment_stderr": _var(gs, [inc[j][3] for j in js], "m", "standard error of guide_depth_increment"),
        "guide_sliding_distance": _var(gs, [g.worn.sliding_guide for g in G], "m",
                                       "sliding distance under load seen by each guide node"),
        "guide_sliding_increment": _var(gs, [inc[j][2] for j in js], "m", "guide sliding distance added after this update"),
        "slider_wear_depth": _var(sf, [g.worn.h_slider for g in G], "m", "wear depth of the slider face"),
        "slider_wear_depth_stderr": _var(sf, [np.sqrt(g.slider_var) for g in G], "m",
                                         "standard error of slider_wear_depth (updates' variances added)"),
        "slider_wear_rate": _var(sf, [r.depth_journal.reshape(2, nu) for r in R], "m/cycle",
                                 "slider wear depth per cycle measured at this update"),
        "slider_wear_rate_stderr": _var(sf, [r.stderr_journal.reshape(2, nu) for r in R], "m/cycle",
                                        "standard error of slider_wear_rate"),
        "slider_depth_increment": _var(sf, [inc[j][1] for j in js], "m", "slider depth added after this update"),
        "slider_depth_increment_stderr": _var(sf, [inc[j][4] for j in js], "m", "standard error of slider_depth_increment"),
        "slider_sliding_distance": _var(sf, [g.worn.sliding_slider for g in G], "m",
                                        "sliding distance under load seen by each slider face node"),
        "slider_sliding_increment": _var(sf, [inc[j][5] for j in js], "m", "slider sliding distance added after this update"),
        "guide_wear_volume": _var(("guide_joint", "guide_part"), [g.worn.volumes() for g in G], "m^3",
                                  "worn volume of guide and slider (cumulative)"),
        "guide_wear_volume_stderr": _var(("guide_joint", "guide_part"), [np.sqrt(g.vol_var) for g in G], "m^3",
                                         "standard error of guide_wear_volume (updates' variances added)"),
        "guide_volume_rate": _var(("guide_joint", "guide_part"), [r.volume for r in R], "m^3/cycle",
                                  "worn volume per cycle of guide and slider measured at this update"),
        "guide_volume_rate_stderr": _var(("guide_joint", "guide_part"), [r.volume_stderr for r in R], "m^3/cycle",
                                         "standard error of guide_volume_rate"),
        "guide_max_wear_depth": _var(("guide_joint", "guide_part"),
                                     [[g.worn.h_guide.max(), g.worn.h_slider.max()] for g in G], "m",
                                     "deepest wear of guide and slider"),
        "guide_peak_pressure": _var(("guide_joint",), [r.peak_pressure for r in R], "Pa",
                                    "peak line-contact pressure over the averaging cycles"),
        "guide_pressure_hardness_ratio": _var(("guide_joint",), [ratios[j] for j in js], "1",
                                              "peak pressure over the hardness of the softer part (NaN: no hardness given)"),
        "guide_max_contact_force": _var(("guide_joint",), [r.max_force for r in R], "N",
                                        "largest sampled normal contact force (four corners) over the averaging cycles"),
        "guide_mean_contact_force": _var(("guide_joint",), [r.mean_force for r in R], "N",
                                         "mean normal contact force over the averaging cycles"),
        "guide_max_penetration_ratio": _var(("guide_joint",), [float(r.cycles.max_penetration.max()) / g.worn.clearance
                                                               for r, g in zip(R, G)], "1",
                                            "largest corner penetration over the averaging cycles / clearance"),
        "guide_impacts": _var(("guide_joint",), [meas.impacts.get(j, 0) for j in js], "1",
                              "corner contact starts (impacts) in the averaging cycles"),
    }
    extra = xr.Dataset({k: xr.DataArray(x).expand_dims("cycle") for k, x in v.items()})
    return xr.merge([row, extra.assign_coords(cycle=row.cycle)])


def restore(run, ds: xr.Dataset) -> None:
    """Set the guides to the state after the last complete row of ``ds`` (as :func:`.loop._restore`)."""
    if not run.guides:
        return
    last = ds.isel(cycle=-1)
    dN = float(last.cycle_jump.values)
    for k, j in enumerate(sorted(run.guides)):
        g = run.guides[j]
        val = lambda name: np.asarray(last[name].values[k], float)  # noqa: E731
        w = g.worn
        w.s = np.asarray(ds["guide_s"].values[k], float)
        w.u = np.asarray(ds["slider_u"].values[k], float)
        w.h_guide = val("guide_wear_depth") + val("guide_depth_increment")
        w.h_slider = val("slider_wear_depth") + val("slider_depth_increment")
        w.sliding_guide = val("guide_sliding_distance") + val("guide_sliding_increment")
        w.sliding_slider = val("slider_sliding_distance") + val("slider_sliding_increment")
        g.vol_var = val("guide_wear_volume_stderr") ** 2 + (dN * val("guide_volume_rate_stderr")) ** 2
        g.guide_var = val("guide_wear_depth_stderr") ** 2 + val("guide_depth_increment_stderr") ** 2
        g.slider_var = val("slider_wear_depth_stderr") ** 2 + val("slider_depth_increment_stderr") ** 2
        run.previous[j] = (np.concatenate([val("guide_wear_rate").ravel(), val("slider_wear_rate").ravel()]),
                           np.concatenate([val("guide_wear_rate_stderr").ravel(), val("slider_wear_rate_stderr").ravel()]))

