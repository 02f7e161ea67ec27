"""The wear loop (seed 000 §4, Fig. 14): dynamics on worn surfaces -> pressure -> wear -> new surfaces.

Each update ``k`` (surfaces after ``N_k`` machine cycles):

1. simulate ``settle_cycles + average_cycles`` cycles of the mechanism from its assembled state
   with the current worn profiles (contact detection, penetration and normal from the worn
   geometry; contact-law stiffness from the worn clearance unless ``stiffness = "nominal"``);
2. for every worn joint, take the contact samples of the averaging cycles, the pressure on the
   bushing nodes from the pressure model and the depth from the wear law: the per-cycle wear
   increment of bushing and journal (:mod:`.increment`);
3. record row ``k`` (profiles, volumes, peak pressure, contact force, output deviation from the
   ideal mechanism — seed 000 §4 step 10 — and the averaging-cycle dynamics when selected);
4. jump ``dN`` cycles, the largest number keeping the deepest increment below ``depth_step`` times
   the radial clearance (and the cycles left), and wear the surfaces by the ``dN``-cycle
   increment.

Every update restarts the dynamics from the assembled state, so an update depends only on the
surfaces: a resumed run (:func:`run_wear_study` with ``resume=True``) continues from the last
complete row of the store and ends with the same result as an uninterrupted one.
"""
from __future__ import annotations

import dataclasses
import math
import time as _time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import xarray as xr

from .. import __version__
from ..errors import SolverError, WorkbenchError
from ..mbs.solver import simulate
from .increment import ContactSamples, ModelOutputError, WearRate, jump_increment, wear_rate
from .store import WearStore, guarded
from .surfaces import WornJoint

SURFACES = ("bushing", "journal")


@dataclass
class Timings:
    """Wall time per stage of a run [s]."""
    dynamics: float = 0.0
    pressure_wear: float = 0.0
    io: float = 0.0
    updates: int = 0

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass
class Measurement:
    """What one update measured on the current surfaces."""
    rates: dict            # joint index -> WearRate
    sim: object            # the Simulation of settle + averaging cycles
    start: int             # first sample of the averaging window
    deviation: np.ndarray  # output minus ideal over the averaging window [m or rad]
    impacts: dict          # joint index -> number of impacts in the averaging window


@dataclass
class WearRun:
    """The state of a running wear study."""
    study: object
    cfg: object
    worn: dict = field(default_factory=dict)   # joint index -> WornJoint
    cycles_done: float = 0.0
    update: int = 0
    timings: Timings = field(default_factory=Timings)


# ------------------------------------------------------------------------------ dynamics
def _settings(study, cfg):
    T = cfg.cycle_period
    n_cyc = cfg.settle_cycles + cfg.average_cycles
    t0 = study.solver.t_start
    return dataclasses.replace(study.solver, t_end=t0 + n_cyc * T, output_step=T / cfg.samples_per_cycle)


def _ideal_output(study, cfg) -> np.ndarray:
    """The output coordinate of the ideal mechanism over the averaging window."""
    sim = simulate(study.mechanism.ideal(), _settings(study, cfg))
    start = cfg.settle_cycles * cfg.samples_per_cycle
    return sim.position[start:, cfg.output_body, cfg.output_coordinate].copy()


def measure(run: WearRun, ideal: np.ndarray) -> Measurement:
    """Steps 1-2 of an update (see the module docstring)."""
    study, cfg = run.study, run.cfg
    surfaces = {j: (w.h_bushing, w.h_journal) for j, w in run.worn.items()}
    geoms = ({j: w.contact_geometry() for j, w in run.worn.items()} if cfg.stiffness == "worn" else None)
    t = _time.perf_counter()
    try:
        sim = simulate(study.mechanism, _settings(study, cfg), surfaces=surfaces, geometries=geoms)
    except SolverError as exc:
        raise SolverError(f"wear update {run.update} (after {run.cycles_done:.6g} cycles): {exc}") from None
    run.timings.dynamics += _time.perf_counter() - t
    t = _time.perf_counter()
    start = cfg.settle_cycles * cfg.samples_per_cycle
    rates = {}
    for j, w in run.worn.items():
        samples = ContactSamples.from_simulation(sim, j, start)
        with _context(run, w):
            rates[j] = wear_rate(w, samples, cfg.average_cycles, cfg.pressure, cfg.law, cfg.bushing_share)
    run.timings.pressure_wear += _time.perf_counter() - t
    out = sim.position[start:, cfg.output_body, cfg.output_coordinate]
    t_start = sim.time[start]
    impacts = {j: int(np.sum((sim.impact_joint == j) & (sim.impact_time >= t_start))) for j in run.worn}
    return Measurement(rates, sim, start, out - ideal[:len(out)], impacts)


@contextmanager
def _context(run: WearRun, worn: WornJoint):
    """Add the update, the joint and the cycles done to a model's bad-output error."""
    try:
        yield
    except ModelOutputError as exc:
        raise WorkbenchError(f"wear update {run.update}: {exc} for joint '{worn.joint.name}' "
                             f"(after {run.cycles_done:.6g} cycles)") from None


def choose_jump(run: WearRun, meas: Measurement) -> float:
    """The cycle jump ``dN`` [cycles] of this update (0 when the run is complete)."""
    cfg = run.cfg
    left = cfg.cycles - run.cycles_done
    if left <= 0:
        return 0.0
    dN = left
    for j, r in meas.rates.items():
        allowed = cfg.depth_step * run.worn[j].clearance
        if r.deepest > 0.0:
            dN = min(dN, max(1.0, math.floor(allowed / r.deepest)))
    return float(min(dN, cfg.max_cycle_jump, left))


# ------------------------------------------------------------------------------ records
def _var(dims, data, units, long_name):
    return xr.Variable(dims, np.asarray(data), {"units": units, "long_name": long_name})


def _row(run: WearRun, meas: Measurement, dN: float, increments: dict) -> xr.Dataset:
    """Row ``run.update`` of the result store (every variable has a leading ``cycle`` of length 1)."""
    cfg = run.cfg
    js = sorted(run.worn)
    M = cfg.nodes
    depth = np.array([[run.worn[j].h_bushing, run.worn[j].h_journal] for j in js])
    radius = np.array([[run.worn[j].radius_bushing(), run.worn[j].radius_journal()] for j in js])
    inc = np.array([[increments[j][0], increments[j][1]] for j in js])
    slide_inc = np.array([increments[j][2] for j in js])
    vol = np.array([run.worn[j].volumes() for j in js])
    rate = np.array([[meas.rates[j].depth_bushing, meas.rates[j].depth_journal] for j in js])
    ounit = "rad" if cfg.output_coordinate == 2 else "m"
    dev = meas.deviation
    v = {
        "wear_depth": _var(("joint", "surface", "theta"), depth, "m", "wear depth of the surface, body frame"),
        "radius": _var(("joint", "surface", "theta"), radius, "m", "worn radius of the surface, body frame"),
        "wear_rate": _var(("joint", "surface", "theta"), rate, "m/cycle", "wear depth per cycle measured at this update"),
        "depth_increment": _var(("joint", "surface", "theta"), inc, "m", "depth added after this update (over cycle_jump cycles)"),
        "sliding_distance": _var(("joint", "theta"), np.array([run.worn[j].sliding_bushing for j in js]), "m",
                                 "sliding distance under load seen by each bushing node"),
        "sliding_increment": _var(("joint", "theta"), slide_inc, "m", "sliding distance added after this update"),
        "wear_volume": _var(("joint", "surface"), vol, "m^3", "worn volume (cumulative)"),
        "max_wear_depth": _var(("joint", "surface"), depth.max(axis=2), "m", "deepest wear of the surface"),
        "peak_pressure": _var(("joint",), [meas.rates[j].peak_pressure for j in js], "Pa", "peak contact pressure over the averaging cycles"),
        "max_contact_force": _var(("joint",), [meas.rates[j].max_force for j in js], "N", "largest sampled normal contact force over the averaging cycles"),
        "mean_contact_force": _var(("joint",), [meas.rates[j].mean_force for j in js], "N", "mean normal contact force over the averaging cycles"),
        "impacts": _var(("joint",), [meas.impacts[j] for j in js], "1", "contact starts (impacts) in the averaging cycles"),
        "output_deviation_rms": _var((), np.sqrt(np.mean(dev ** 2)) if len(dev) else 0.0, ounit,
                                     f"RMS deviation of {cfg.output_name} of the output body from the ideal mechanism"),
        "output_deviation_max": _var((), np.max(np.abs(dev)) if len(dev) else 0.0, ounit,
                                     f"largest deviation of {cfg.output_name} of the output body from the ideal mechanism"),
        "cycle_jump": _var((), dN, "1", "cycles jumped after this update"),
        "update": _var((), run.update, "1", "update index"),
    }
    ds = xr.Dataset({k: x.expand_dims("cycle") if "cycle" not in x.dims else x
                     for k, x in ((k, xr.DataArray(x)) for k, x in v.items())})
    ds = ds.assign_coords(cycle=xr.Variable("cycle", [run.cycles_done],
                                            {"units": "1", "long_name": "machine cycles done"}))
    return ds


def _dynamics(run: WearRun, meas: Measurement) -> xr.Dataset:
    """The averaging-cycle dynamics of this update: one ``record`` (written for selected updates)."""
    cfg, sim, k = run.cfg, meas.sim, meas.start
    js = sorted(run.worn)
    ounit = "rad" if cfg.output_coordinate == 2 else "m"
    v = {
        "dyn_contact_force": _var(("phase", "joint"), sim.contact_force[k:, js], "N", "normal contact force, averaging cycles"),
        "dyn_contact_angle": _var(("phase", "joint"), sim.contact_angle[k:, js], "rad", "contact direction in the bushing frame"),
        "dyn_penetration": _var(("phase", "joint"), sim.penetration[k:, js], "m", "penetration (negative while apart)"),
        "dyn_slip_velocity": _var(("phase", "joint"), sim.slip_velocity[k:, js], "m/s", "tangential slip velocity"),
        "dyn_eccentricity": _var(("phase", "joint", "axis"), sim.eccentricity[k:, js], "m", "journal centre offset, bushing frame"),
        "dyn_output": _var(("phase",), sim.position[k:, cfg.output_body, cfg.output_coordinate], ounit,
                           f"{cfg.output_name} of the output body"),
        "dyn_output_deviation": _var(("phase",), meas.deviation, ounit, "output minus ideal output"),
    }
    ds = xr.Dataset({n: xr.DataArray(x).expand_dims("record") for n, x in v.items()})
    return ds.assign_coords(record_cycle=xr.Variable("record", [run.cycles_done],
                                                     {"units": "1", "long_name": "machine cycles done when recorded"}))


def _static(run: WearRun, ideal: np.ndarray, meas: Measurement) -> xr.Dataset:
    """Coordinates and variables without a ``cycle`` dimension (written once)."""
    cfg = run.cfg
    js = sorted(run.worn)
    M = cfg.nodes
    ns = len(ideal)
    phase_t = meas.sim.time[meas.start:] - meas.sim.time[meas.start]
    ounit = "rad" if cfg.output_coordinate == 2 else "m"
    return xr.Dataset(
        {"ideal_output": _var(("phase",), ideal, ounit, f"{cfg.output_name} of the output body, ideal mechanism"),
         "nominal_radius": _var(("joint", "surface"), [[run.worn[j].joint.bushing_radius, run.worn[j].joint.journal_radius] for j in js],
                                "m", "unworn radius")},
        coords={"theta": ("theta", 2 * math.pi * np.arange(M) / M, {"units": "rad", "long_name": "body-fixed node angle"}),
                "joint": ("joint", [run.worn[j].joint.name for j in js], {"long_name": "worn clearance joint"}),
                "surface": ("surface", list(SURFACES), {"long_name": "worn part"}),
                "axis": ("axis", ["x", "y"], {"long_name": "bushing-frame axis"}),
                "phase": ("phase", phase_t[:ns], {"units": "s", "long_name": "time since the start of the averaging cycles"})})


def _attrs(run: WearRun, registry) -> dict:
    from ..results import _json, _model_info
    study, cfg = run.study, run.cfg
    return {
        "title": study.title, "description": study.description, "study_kind": "wear",
        "study_text": study.text, "study_file": str(study.file) if study.file is not None else "",
        "workbench_version": __version__,
        "plugins": _json(registry.provenance()) if registry is not None else "{}",
        "pressure_model": _json(_model_info(cfg.pressure, registry)),
        "wear_law": _json(_model_info(cfg.law, registry)),
        "contact_models": _json({c.name: _model_info(c.contact, registry) for c in study.mechanism.clearance_joints}),
        "solver_settings": _json(dataclasses.asdict(study.solver)),
        "cycles_requested": cfg.cycles, "cycle_period": cfg.cycle_period,
        "cycle_period_units": "s",
        "bushing_share": cfg.bushing_share, "depth_step": cfg.depth_step,
        "output_body": study.mechanism.bodies[cfg.output_body].name, "output_coordinate": cfg.output_name,
        "run_status": "running",
    }


# ------------------------------------------------------------------------------ driver
def _restore(run: WearRun, ds: xr.Dataset) -> None:
    """Set ``run`` to the state after the last complete row of ``ds``."""
    last = ds.isel(cycle=-1)
    js = sorted(run.worn)
    for k, j in enumerate(js):
        w = run.worn[j]
        w.h_bushing = np.asarray(last.wear_depth.values[k, 0], float) + np.asarray(last.depth_increment.values[k, 0], float)
        w.h_journal = np.asarray(last.wear_depth.values[k, 1], float) + np.asarray(last.depth_increment.values[k, 1], float)
        w.sliding_bushing = (np.asarray(last.sliding_distance.values[k], float)
                             + np.asarray(last.sliding_increment.values[k], float))
    run.cycles_done = float(ds.cycle.values[-1]) + float(last.cycle_jump.values)
    run.update = int(last["update"].values) + 1


# --- data safety (owner: workbench.wear.store.StoreSession): begin
def _refuse_to_clobber(out: Path) -> None:
    """Never replace a store without the checks of :class:`~workbench.wear.store.StoreSession`.

    ``run_wear_study`` opens its store through a session (``@guarded``) before any work: it has
    already refused a finished or unfinished store (without ``overwrite`` / ``resume``), restarted
    one caught mid-creation, and holds the store's lock.
    """
    from .store import held_here
    if held_here(out) is None:
        raise WorkbenchError(f"{out} exists and is not opened by this run; a wear store is written "
                             f"only through run_wear_study")


@guarded
# --- data safety: end
def run_wear_study(study, *, registry=None, out: str | Path, resume: bool = False, progress=None,
                   max_updates: int | None = None) -> xr.Dataset:
    """Run the wear loop of ``study`` (``kind = "wear"``) into the zarr store ``out``.

    ``progress(cycles_done, cycles_total, dN, max_depth)`` is called after every update.
    ``resume=True`` continues the run stored at ``out``.  ``max_updates`` stops after that many
    new updates (for tests and benchmarks).  Returns the store's dataset (loaded).
    """
    cfg = study.wear
    run = WearRun(study, cfg, worn={j: WornJoint.fresh(study.mechanism.clearance_joints[j], cfg.nodes)
                                    for j in cfg.joints})
    store = WearStore(out)
    wall = _time.perf_counter()
    ideal = _ideal_output(study, cfg)
    done = False
    if not resume and Path(out).exists():
        _refuse_to_clobber(Path(out))
    if resume:
        ds = store.resume()
        if ds.attrs.get("study_text") != study.text:
            raise WorkbenchError(f"cannot resume {out}: it was made by a different study text "
                                 f"(study file {ds.attrs.get('study_file') or '?'})")
        _restore(run, ds)
        done = float(ds.cycle_jump.values[-1]) == 0.0
    new = 0
    while not done:
        meas = measure(run, ideal)
        dN = choose_jump(run, meas)
        t = _time.perf_counter()
        inc = {}
        for j, w in run.worn.items():
            with _context(run, w):
                inc[j] = jump_increment(w, meas.rates[j], dN, cfg.average_cycles, cfg.law, cfg.bushing_share)
        run.timings.pressure_wear += _time.perf_counter() - t
        keep = dN == 0.0 or run.update == 0 or run.update % cfg.dynamics_every == 0
        t = _time.perf_counter()
        row = _row(run, meas, dN, inc)
        if run.update == 0 and not resume:
            store.create(xr.merge([_static(run, ideal, meas), row, _dynamics(run, meas)])
                         .assign_attrs(_attrs(run, registry)))
        else:
            store.append(row, _dynamics(run, meas) if keep else None)
        run.timings.io += _time.perf_counter() - t
        run.timings.updates += 1
        if progress is not None:
            progress(run.cycles_done + dN, cfg.cycles, dN,
                     max(float(max(w.h_bushing.max(), w.h_journal.max())) for w in run.worn.values()))
        if dN == 0.0:
            break
        for j, w in run.worn.items():
            db, dj, ds_ = inc[j]
            w.h_bushing = w.h_bushing + db
            w.h_journal = w.h_journal + dj
            w.sliding_bushing = w.sliding_bushing + ds_
        run.cycles_done += dN
        run.update += 1
        new += 1
        if max_updates is not None and new >= max_updates:
            break
    finished = dN == 0.0 if not done else True
    store.set_attrs(run_status="complete" if finished else "incomplete (resume with --resume)",
                    wall_time=_time.perf_counter() - wall, timings=run.timings.as_dict())
    from .store import open_store
    return open_store(out)
