"""The wear loop (Wang & Liu (2015) §4, Fig. 14): dynamics on worn surfaces -> pressure -> wear.

Each update ``k`` (surfaces after ``N_k`` machine cycles):

1. simulate ``settle_cycles + n`` cycles of the mechanism from its assembled state with the
   current worn profiles (contact detection, penetration and normal from the worn geometry;
   contact-law stiffness from the worn clearance unless ``stiffness = "nominal"``);
2. for every worn joint, evaluate each of the ``n`` averaging cycles on its own (pressure from the
   pressure model, depth from the wear law, :mod:`.increment`): each cycle is one sample of the
   wear rate; the rate is their mean, with its standard error (:mod:`.statistics`).  ``n`` starts
   at ``average_cycles`` and grows (the simulation is repeated with more cycles) until the
   standard errors of the volume rate and of the rate profile meet ``rate_tolerance`` and
   ``profile_tolerance``, or ``max_average_cycles`` is reached (the final row, which wears
   nothing, keeps ``average_cycles``);
3. screen the cycles for outliers (penetration beyond ``penetration_limit`` of the clearance,
   peak force or wear volume above median + ``outlier_k`` max(MAD, median)): an update with an outlier is
   re-sampled once at rtol/100 and atol/100; if an outlier remains the run stops, naming the
   update, the cycle and the joint.  An outlier is never multiplied by ``dN``;
4. check the peak pressure against the hardness of the softer part (``p_max/H``: warning above
   1/3, stop above ``hardness_limit``);
5. record row ``k`` (profiles, volumes and their standard errors, peak pressure, contact force,
   output deviation from the ideal mechanism, and the averaging-cycle dynamics when selected);
6. jump ``dN`` cycles: the largest number keeping the deepest increment below ``depth_step``
   times the radial clearance, the systematic change of the rate profile over the jump below
   ``jump_tolerance`` (:func:`.statistics.jump_limit`, or with ``jump_control = "history"``
   :func:`.statistics.trend_jump_limit` over the last updates), and the cycles left; wear the surfaces by
   ``dN`` times the rate.  The increment's standard error is ``dN`` times the rate's.  The stored
   cumulative errors add the updates' variances, which treats the estimates of different updates
   as independent: each comes from its own simulation on other surfaces, and the chaotic contact
   decorrelates them (an assumption, not a proof).

Every update restarts the dynamics from the assembled state, so an update depends only on the
surfaces (and, for the jump controller, on the previous rows): a resumed run
(:func:`run_wear_study` with ``resume=True``) continues from the last complete row of the store and
ends with the same result as an uninterrupted one.
"""
from __future__ import annotations

import dataclasses
import json
import math
import time as _time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import xarray as xr

from ..errors import SolverError, WorkbenchError
from ..mbs.solver import simulate
from .chains import run_chains
from . import coupled, guide_loop, records, statistics as st   # guide_loop: translational joints
from .history import control_limit, remember, with_scatter   # jump control over the last updates
from .increment import (ContactSamples, ModelOutputError, WearRate, cycle_rates, estimate, join_cycles,
                        jump_increment, wear_rate)
from .store import WearStore, guarded
from .surfaces import WornJoint
from .validity import ValidityLog

SURFACES = records.SURFACES
_static, _dynamics, _attrs = records.static, records.dynamics, records.attrs   # store lines keep their names


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
    n_cycles: int = 1      # averaging cycles used
    resampled: bool = False  # True when an outlier made the update re-sample at rtol/100


@dataclass
class WearRun:
    """The state of a running wear study."""
    study: object
    cfg: object
    worn: dict = field(default_factory=dict)   # joint index -> WornJoint
    cycles_done: float = 0.0
    update: int = 0
    timings: Timings = field(default_factory=Timings)
    variance: dict = field(default_factory=dict)  # joint -> (vol (2,), depth (2, M)) cumulative [m^6, m^2]
    previous: dict = field(default_factory=dict)  # joint -> (rate profile, its stderr) of the last update
    previous_jump: float = 0.0                     # dN of the last update [cycles]
    previous_cycles: int = 0                       # averaging cycles of the last update
    history: dict = field(default_factory=dict)    # joint -> [(cycles done [1], rate profile, stderr, volume rate)], oldest first
    validity: ValidityLog = field(default_factory=ValidityLog)
    guides: dict = field(default_factory=dict)     # translational: joint index -> guide_loop.GuideWear


# ------------------------------------------------------------------------------ dynamics
def _settings(study, cfg, n_average: int | None = None, tighten: float = 1.0):
    T = cfg.cycle_period
    n_cyc = cfg.settle_cycles + (cfg.average_cycles if n_average is None else n_average)
    t0 = study.solver.t_start
    return dataclasses.replace(study.solver, t_end=t0 + n_cyc * T, output_step=T / cfg.samples_per_cycle,
                               rtol=study.solver.rtol * tighten, atol=study.solver.atol * tighten)


# --- flexible beams (owner: workbench.wear.flex_dynamics): a mechanism with beams runs the implicit solver: begin
def _simulator(mechanism):
    from .flex_dynamics import simulator
    return simulator(mechanism, simulate)
# --- flexible beams: end


def _ideal_output(study, cfg) -> np.ndarray:
    """The output coordinate of the ideal mechanism over one averaging cycle."""
    sim = _simulator(study.mechanism)(study.mechanism.ideal(), _settings(study, cfg, 1))
    start = cfg.settle_cycles * cfg.samples_per_cycle
    return sim.position[start:, cfg.output_body, cfg.output_coordinate].copy()


def _simulate(run: WearRun, n: int, tighten: float):
    study, cfg = run.study, run.cfg
    surfaces = {j: (w.h_bushing, w.h_journal) for j, w in run.worn.items()}
    surfaces.update(guide_loop.surfaces(run))    # translational joints
    geoms = ({j: w.contact_geometry() for j, w in run.worn.items()} if cfg.stiffness == "worn" else None)
    t = _time.perf_counter()
    try:
        if cfg.chains > 1:   # replicas side by side (workbench.wear.chains), joined into one simulation
            sim = run_chains(_simulator(study.mechanism), study.mechanism, lambda nk: _settings(study, cfg, nk, tighten), n, cfg.chains,
                             cfg.settle_cycles, cfg.samples_per_cycle, cfg.cycle_period, surfaces=surfaces,
                             geometries=geoms)
        else:
            sim = _simulator(study.mechanism)(study.mechanism, _settings(study, cfg, n, tighten), surfaces=surfaces,
                                              geometries=geoms)
    except SolverError as exc:
        raise SolverError(f"wear update {run.update} (after {run.cycles_done:.6g} cycles): {exc}") from None
    run.timings.dynamics += _time.perf_counter() - t
    return sim


def _rates(run: WearRun, sim, n: int, old: dict | None) -> dict:
    """Wear-rate estimates of every joint from ``n`` averaging cycles of ``sim``.

    ``old``: the estimates from a shorter simulation of the same update.  The integration does not
    depend on its end time, so the longer run repeats the shorter one sample for sample; when it
    does (checked bit for bit), only the added cycles are evaluated."""
    cfg = run.cfg
    start = cfg.settle_cycles * cfg.samples_per_cycle
    S = cfg.samples_per_cycle
    t = _time.perf_counter()
    rates = {}
    for j, w in run.worn.items():
        samples = ContactSamples.from_simulation(sim, j, start)
        prev = old.get(j) if old else None
        # --- distributed contact, one pressure field (owner: workbench.wear.coupled): begin
        pressure = coupled.bind(run, sim, j, start, samples) if coupled.is_coupled(cfg) else cfg.pressure
        # --- distributed contact: end
        with _context(run, w):
            if prev is not None and _same_prefix(prev.samples, samples, prev.cycles.n * S):
                k = prev.cycles.n
                tail = cycle_rates(w, samples.part(k * S, len(samples.force)), n - k, pressure,
                                   cfg.law, cfg.bushing_share)
                rates[j] = estimate(join_cycles(prev.cycles, tail), samples)
            else:
                rates[j] = wear_rate(w, samples, n, pressure, cfg.law, cfg.bushing_share)
            rates[j].pressure_model = pressure   # distributed contact: the bound model for jump_increment
    rates.update(guide_loop.rates(run, sim, n))    # translational joints
    run.timings.pressure_wear += _time.perf_counter() - t
    return rates


def _same_prefix(a: ContactSamples, b: ContactSamples, m: int) -> bool:
    return all(np.array_equal(getattr(a, f)[:m], getattr(b, f)[:m])
               for f in ("force", "friction", "angle", "phi_rel", "slip", "penetration"))


def _converged(run: WearRun, rates: dict) -> float:
    """Largest ratio of a standard error to its tolerance over the joints (<= 1: converged)."""
    cfg = run.cfg
    return max(max(r.volume_error / cfg.rate_tolerance, r.profile_error / cfg.profile_tolerance)
               for r in rates.values())


def _outliers(run: WearRun, rates: dict) -> list:
    cfg = run.cfg
    out = []
    for j, r in rates.items():
        c = r.cycles
        for o in st.find_outliers(c.peak_force, c.volume.sum(axis=1), c.max_penetration,
                                  guide_loop.clearance(run, j), cfg.penetration_limit, cfg.outlier_k):
            out.append((j, o))
    return out


def measure(run: WearRun, ideal: np.ndarray) -> Measurement:
    """Steps 1-3 of an update (see the module docstring)."""
    cfg = run.cfg
    tighten, resampled = 1.0, False
    while True:
        # start from the number of cycles the last update needed: the spread changes slowly.  The
        # final row (no cycles left) wears nothing: it records the state with the fewest cycles
        final = run.cycles_done >= cfg.cycles
        n = cfg.average_cycles if final else min(max(cfg.average_cycles, run.previous_cycles),
                                                 cfg.max_average_cycles)
        sim = _simulate(run, n, tighten)
        rates = _rates(run, sim, n, None)
        while not final and n < cfg.max_average_cycles and _converged(run, rates) > 1.0:
            # the standard error falls as 1/sqrt(n): aim at the tolerance with a 20 % margin
            need = math.ceil(1.2 * n * min(_converged(run, rates), 10.0) ** 2)
            n = int(min(max(need, n + 1), cfg.max_average_cycles))
            sim = _simulate(run, n, tighten)
            rates = _rates(run, sim, n, rates)
        bad = _outliers(run, rates)
        if not bad:
            break
        if resampled:
            j, o = bad[0]
            machine = run.cycles_done + cfg.settle_cycles + o.cycle
            raise WorkbenchError(
                f"wear update {run.update} (after {run.cycles_done:.6g} cycles), joint "
                f"'{run.study.mechanism.clearance_joints[j].name}': averaging cycle {o.cycle} (machine cycle "
                f"{machine:.6g} of the update's simulation) is an outlier: {o.reason}; it persists "
                f"at rtol/100, so it is not extrapolated over the cycle jump.  Check the contact "
                f"parameters and the speed, or raise wear.penetration_limit / wear.outlier_k if "
                f"this contact is physical")
        tighten, resampled = 0.01, True
    start = cfg.settle_cycles * cfg.samples_per_cycle
    out = sim.position[start:, cfg.output_body, cfg.output_coordinate]
    t_start = sim.time[start]
    impacts = {j: int(np.sum((sim.impact_joint == j) & (sim.impact_time >= t_start))) for j in run.worn}
    impacts.update(guide_loop.impacts(run, sim, t_start))    # translational joints
    S = cfg.samples_per_cycle          # the ideal mechanism is periodic: one cycle, repeated
    ref = np.concatenate([np.tile(ideal[:S], n), ideal[S:S + 1]])
    dev = out[:len(ref)] - ref[:len(out)]
    return Measurement(rates, sim, start, dev, impacts, n, resampled)


@contextmanager
def _context(run: WearRun, worn: WornJoint):
    """Add the update, the joint and the cycles done to a model's bad-output error; a model
    (a plugin) that raises is a :class:`ModelOutputError` naming it (exit status 3), so that the
    run ends with a message and the store keeps its completed updates."""
    try:
        yield
    except ModelOutputError as exc:
        raise WorkbenchError(f"wear update {run.update}: {exc} for joint '{worn.joint.name}' "
                             f"(after {run.cycles_done:.6g} cycles)") from None
    except WorkbenchError:
        raise
    except Exception as exc:  # noqa: BLE001 - a plugin's own exception
        from ..interrupts import is_interrupt
        if is_interrupt(exc):
            raise
        raise ModelOutputError(
            f"wear update {run.update}: {_culprit(exc, run.cfg)} raised {type(exc).__name__}: {exc} for joint "
            f"'{worn.joint.name}' (after {run.cycles_done:.6g} cycles)") from exc


def _culprit(exc: BaseException, cfg) -> str:
    """The model whose code raised ``exc`` (the innermost frame in its module), or both candidates."""
    models = [("pressure model", cfg.pressure), ("wear law", cfg.law)]
    tb, modules = exc.__traceback__, []
    while tb is not None:
        modules.append(tb.tb_frame.f_globals.get("__name__", ""))
        tb = tb.tb_next
    for name in reversed(modules):
        for what, m in models:
            if name and name == type(m).__module__:
                return f"the {what} '{m.name}'"
    return " or ".join(f"the {what} '{m.name}'" for what, m in models)


def choose_jump(run: WearRun, meas: Measurement) -> float:
    """The cycle jump ``dN`` [cycles] of this update (0 when the run is complete): bounded by the
    depth step, by the jump error control (:func:`.history.control_limit`) and the cycles left."""
    cfg = run.cfg
    left = cfg.cycles - run.cycles_done
    if left <= 0:
        return 0.0
    dN = left
    for j, r in meas.rates.items():
        allowed = cfg.depth_step * guide_loop.clearance(run, j)
        if r.deepest > 0.0:
            dN = min(dN, max(1.0, math.floor(allowed / r.deepest)))
        lim = control_limit(run, j, r)
        if math.isfinite(lim):
            dN = min(dN, max(1.0, math.floor(lim)))
    return float(min(dN, cfg.max_cycle_jump, left))


# ------------------------------------------------------------------------------ driver
def _restore_history(run: WearRun, ds: xr.Dataset) -> None:
    """Set ``run`` to the state after the last row of ``ds``, with the history of the rows before:
    the rows are restored in order through the same code (bit-identical to an uninterrupted run)."""
    n = ds.sizes["cycle"]
    for k in range(max(0, n - (st.HISTORY_UPDATES - 1)), n):
        part = ds.isel(cycle=slice(0, k + 1))
        _restore(run, part)
        vol = part["volume_rate"].values[-1]
        remember(run, float(part.cycle.values[-1]),
                  {j: np.asarray(vol[i], float) for i, j in enumerate(sorted(run.worn))})


def _restore(run: WearRun, ds: xr.Dataset) -> None:
    """Set ``run`` to the state after the last complete row of ``ds``."""
    last = ds.isel(cycle=-1)
    js = sorted(run.worn)
    val = lambda name, *k: np.asarray(last[name].values[k], float)  # noqa: E731
    for k, j in enumerate(js):
        w = run.worn[j]
        w.h_bushing = val("wear_depth", k, 0) + val("depth_increment", k, 0)
        w.h_journal = val("wear_depth", k, 1) + val("depth_increment", k, 1)
        w.sliding_bushing = val("sliding_distance", k) + val("sliding_increment", k)
        dN = float(last.cycle_jump.values)
        vol_var = val("wear_volume_stderr", k) ** 2 + (dN * val("volume_rate_stderr", k)) ** 2
        run.variance[j] = (vol_var, val("wear_depth_stderr", k) ** 2 + val("depth_increment_stderr", k) ** 2)
        run.previous[j] = (np.concatenate([val("wear_rate", k, 0), val("wear_rate", k, 1)]),
                           np.concatenate([val("wear_rate_stderr", k, 0), val("wear_rate_stderr", k, 1)]))
    run.previous_jump = float(last.cycle_jump.values)
    run.previous_cycles = int(last["average_cycles"].values)
    run.cycles_done = float(ds.cycle.values[-1]) + float(last.cycle_jump.values)
    run.update = int(last["update"].values) + 1
    guide_loop.restore(run, ds)    # translational joints
    run.validity.warnings = list(json.loads(ds.attrs.get("validity_warnings", "[]")))
    run.validity.notes = list(json.loads(ds.attrs.get("validity_notes", "[]")))


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
    coupled.check(study)   # distributed contact (owner: workbench.wear.coupled)
    run = WearRun(study, cfg, worn={j: WornJoint.fresh(study.mechanism.clearance_joints[j], cfg.nodes)
                                    for j in cfg.joints})
    guide_loop.start(run)    # translational joints
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
        _restore_history(run, ds)
        done = float(ds.cycle_jump.values[-1]) == 0.0
    for j, w in run.worn.items():
        run.variance.setdefault(j, (np.zeros(2), np.zeros((2, cfg.nodes))))
    new = 0
    while not done:
        meas = measure(run, ideal)
        with_scatter(run, meas)    # jump_control = "history": errors widened to the scatter between updates
        ratios = {j: run.validity.pressure_ratio(w.joint, meas.rates[j].peak_pressure, cfg.hardness_limit,
                                                 run.update, run.cycles_done) for j, w in run.worn.items()}
        dN = choose_jump(run, meas)
        t = _time.perf_counter()
        inc = {}
        for j, w in run.worn.items():
            with _context(run, w):
                inc[j] = jump_increment(w, meas.rates[j], dN, cfg.law, cfg.bushing_share,
                                        meas.rates[j].pressure_model)   # distributed contact: bound model
        ginc = guide_loop.increments(run, meas, dN)    # translational joints
        run.timings.pressure_wear += _time.perf_counter() - t
        keep = dN == 0.0 or run.update == 0 or run.update % cfg.dynamics_every == 0
        t = _time.perf_counter()
        row = records.row(run, meas, dN, inc, ratios)
        row = guide_loop.record(run, meas, dN, ginc, guide_loop.hardness_ratios(run, meas), row)  # translational
        # the validity notes are committed with the update they belong to (one atomic step)
        validity = (dict(validity_warnings=list(run.validity.warnings), validity_notes=list(run.validity.notes))
                    if run.validity.warnings or run.validity.notes else None)
        if run.update == 0 and not resume:
            store.create(xr.merge([_static(run, ideal, meas), guide_loop.static(run), row, _dynamics(run, meas)])
                         .assign_attrs(_attrs(run, registry)), attrs=validity)
        else:
            store.append(row, _dynamics(run, meas) if keep else None, attrs=validity)
        run.timings.io += _time.perf_counter() - t
        run.timings.updates += 1
        if progress is not None:
            progress(run.cycles_done + dN, cfg.cycles, dN,
                     max(float(max(w.h_bushing.max(), w.h_journal.max())) for w in run.worn.values()))
        if dN == 0.0:
            break
        for j, w in run.worn.items():
            db, dj, ds_, se_b, se_j = inc[j]
            w.h_bushing = w.h_bushing + db
            w.h_journal = w.h_journal + dj
            w.sliding_bushing = w.sliding_bushing + ds_
            # the same float operations as _restore on the stored standard errors, so that a
            # resumed run carries bit-identical variances
            vol_var, depth_var = run.variance[j]
            run.variance[j] = (np.sqrt(vol_var) ** 2 + (dN * meas.rates[j].volume_stderr) ** 2,
                               np.sqrt(depth_var) ** 2 + np.array([se_b, se_j]) ** 2)
            run.previous[j] = (meas.rates[j].profile, meas.rates[j].profile_stderr)
        guide_loop.apply(run, meas, dN, ginc)    # translational joints
        remember(run, run.cycles_done, {j: meas.rates[j].volume for j in run.worn})
        run.previous_jump = dN
        run.previous_cycles = meas.n_cycles
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
