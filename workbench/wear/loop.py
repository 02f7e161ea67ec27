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
   re-sampled once at rtol/100 and atol/100 (a penetration outlier at once, without growing the
   averaging cycles first); if an outlier remains the run stops
   (:mod:`.stops`, exit status 3), naming the update, the joint, the cycle, the time of its deepest
   penetration, the measured quantity and its limit.  An outlier is never multiplied by ``dN``;
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

import contextlib
import dataclasses
import json
import math
import time as _time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import xarray as xr

from .. import engines
from ..errors import SolverError, WorkbenchError
from ..mbs.run_control import watch_time
from .chains import run_chains
# the worn joints by kind, each a module of the same shape: revolute and translational (guide) joints
from . import coupled, guide_loop, progress as cycle_progress, records, revolute_loop, statistics as st
from .history import control_limit, remember, with_scatter   # jump control over the last updates
from .session import guarded
from .stops import outlier_stop
from .store import WearStore
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
    selection: object = None                       # the engine of the updates (workbench.engines.select)
    watch: object = None                           # follows the updates' simulated time (.progress.cycle_watch)


# ------------------------------------------------------------------------------ dynamics
def _settings(study, cfg, n_average: int | None = None, tighten: float = 1.0):
    T = cfg.cycle_period
    n_cyc = cfg.settle_cycles + (cfg.average_cycles if n_average is None else n_average)
    t0 = study.solver.t_start
    return dataclasses.replace(study.solver, t_end=t0 + n_cyc * T, output_step=T / cfg.samples_per_cycle,
                               rtol=study.solver.rtol * tighten, atol=study.solver.atol * tighten)


def _simulator(run: WearRun):
    """``simulate(mechanism, settings, **kw)`` on the engine of the run's updates."""
    if run.selection is None:
        run.selection = engines.select(run.study.mechanism, run.study.solver)
    return lambda mechanism, settings, **kw: engines.run(run.selection, mechanism, settings, **kw)


def _ideal_output(study, cfg) -> np.ndarray:
    """The output coordinate of the ideal mechanism over one averaging cycle (on the engine the
    selector picks for the ideal mechanism)."""
    sim = engines.simulate(study.mechanism.ideal(), _settings(study, cfg, 1))
    start = cfg.settle_cycles * cfg.samples_per_cycle
    return sim.position[start:, cfg.output_body, cfg.output_coordinate].copy()


def _simulate(run: WearRun, n: int, tighten: float):
    study, cfg = run.study, run.cfg
    surfaces = {**revolute_loop.surfaces(run), **guide_loop.surfaces(run)}
    geoms = revolute_loop.geometries(run) if cfg.stiffness == "worn" else None
    t = _time.perf_counter()
    following = watch_time(run.watch) if run.watch is not None else contextlib.nullcontext()
    try:
        with following:
            sim = _simulate_chains(run, n, tighten, surfaces, geoms)
    except SolverError as exc:
        raise SolverError(f"wear update {run.update} (after {run.cycles_done:.6g} cycles): {exc}") from None
    run.timings.dynamics += _time.perf_counter() - t
    return sim


def _simulate_chains(run: WearRun, n: int, tighten: float, surfaces, geoms):
    study, cfg = run.study, run.cfg
    if cfg.chains > 1:   # replicas side by side (workbench.wear.chains), joined into one simulation
        return run_chains(_simulator(run), study.mechanism, lambda nk: _settings(study, cfg, nk, tighten), n,
                          cfg.chains, cfg.settle_cycles, cfg.samples_per_cycle, cfg.cycle_period,
                          surfaces=surfaces, geometries=geoms)
    return _simulator(run)(study.mechanism, _settings(study, cfg, n, tighten), surfaces=surfaces,
                           geometries=geoms)


def _rates(run: WearRun, sim, n: int, old: dict | None) -> dict:
    """Wear-rate estimates of every worn joint from ``n`` averaging cycles of ``sim`` (``old``: the
    estimates of a shorter simulation of the same update, :func:`.revolute_loop.rates`)."""
    t = _time.perf_counter()
    rates = revolute_loop.rates(run, sim, n, old)
    rates.update(guide_loop.rates(run, sim, n))
    run.timings.pressure_wear += _time.perf_counter() - t
    return rates


def advance(run: WearRun, meas, dN: float) -> None:
    """Book an update's jump of ``dN`` cycles into ``run``: its volume rates remembered for the
    trends, the jump and the averaging cycles kept for the next update's choice, the cycle and
    update counters moved on (the planar and the spatial loop)."""
    remember(run, run.cycles_done, {j: meas.rates[j].volume for j in run.worn})
    run.previous_jump = dN
    run.previous_cycles = meas.n_cycles
    run.cycles_done += dN
    run.update += 1


def convergence_ratio(run: WearRun, rates: dict) -> float:
    """Largest ratio of a standard error to its tolerance over the joints (<= 1: converged)."""
    cfg = run.cfg
    return max(max(r.volume_error / cfg.rate_tolerance, r.profile_error / cfg.profile_tolerance)
               for r in rates.values())


def outliers(run: WearRun, rates: dict) -> list:
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
        # a penetration beyond the limit needs no more cycles to be seen: re-sample (or stop) at
        # once instead of simulating up to max_average_cycles of a contact that cannot be used
        deep = any(float(r.cycles.max_penetration.max()) > cfg.penetration_limit * guide_loop.clearance(run, j)
                   for j, r in rates.items())
        while not final and not deep and n < cfg.max_average_cycles and convergence_ratio(run, rates) > 1.0:
            # the standard error falls as 1/sqrt(n): aim at the tolerance with a 20 % margin
            need = math.ceil(1.2 * n * min(convergence_ratio(run, rates), 10.0) ** 2)
            n = int(min(max(need, n + 1), cfg.max_average_cycles))
            sim = _simulate(run, n, tighten)
            rates = _rates(run, sim, n, rates)
        bad = outliers(run, rates)
        if not bad:
            break
        if resampled:   # a physics fault of the worn joint, named with its time (exit status 3)
            j, o = bad[0]
            raise outlier_stop(run, j, o, rates[j], n, run.study.mechanism.clearance_joints[j].name)
        tighten, resampled = 0.01, True
    start = cfg.settle_cycles * cfg.samples_per_cycle
    out = sim.position[start:, cfg.output_body, cfg.output_coordinate]
    t_start = sim.time[start]
    impacts = {**revolute_loop.impacts(run, sim, t_start), **guide_loop.impacts(run, sim, t_start)}
    S = cfg.samples_per_cycle          # the ideal mechanism is periodic: one cycle, repeated
    ref = np.concatenate([np.tile(ideal[:S], n), ideal[S:S + 1]])
    dev = out[:len(ref)] - ref[:len(out)]
    return Measurement(rates, sim, start, dev, impacts, n, resampled)


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
        if r.deepest > allowed:   # one cycle already wears more than a jump may: no progress possible
            from .increment import ModelOutputError
            raise WorkbenchError(
                f"wear update {run.update} (after {run.cycles_done:.6g} cycles), joint "
                f"'{run.study.mechanism.clearance_joints[j].name}': the wear law '{cfg.law.name}' wears "
                f"{r.deepest:.4g} m per cycle, more than the depth step of {allowed:.4g} m (depth_step "
                f"{cfg.depth_step:g} x clearance) allowed per update; the jump cannot be shorter than one "
                f"cycle, so the loop would crawl one cycle per update with the bore worn beyond its "
                f"step. The law's output (or its wear coefficient) is implausible") \
                from ModelOutputError(f"the wear law '{cfg.law.name}' returned implausible depths")
        if r.deepest > 0.0:
            dN = min(dN, max(1.0, math.floor(allowed / r.deepest)))
        lim = control_limit(run, j, r)
        if math.isfinite(lim):
            dN = min(dN, max(1.0, math.floor(lim)))
    return float(min(dN, cfg.max_cycle_jump, left))


# ------------------------------------------------------------------------------ driver
def deepest_wear(run: WearRun) -> float:
    """Deepest wear of any worn surface of the run [m]: bushings and journals of the revolute
    joints, guides and sliders of the translational ones (their current surfaces)."""
    depths = [float(max(w.h_bushing.max(), w.h_journal.max())) for w in run.worn.values()]
    depths += [g.worn.deepest() for g in run.guides.values()]
    return max(depths, default=0.0)


def _restore_history(run: WearRun, ds: xr.Dataset) -> None:
    """Set ``run`` to the state after the last row of ``ds``, with the history of the rows before:
    the rows are restored in order through the same code (bit-identical to an uninterrupted run)."""
    n = ds.sizes["cycle"]
    for k in range(max(0, n - (st.HISTORY_UPDATES - 1)), n):
        part = ds.isel(cycle=slice(0, k + 1))
        _restore(run, part)
        vol = part["volume_rate"].values[-1] if run.worn else ()   # a guide-only store has no volume_rate
        remember(run, float(part.cycle.values[-1]),
                  {j: np.asarray(vol[i], float) for i, j in enumerate(sorted(run.worn))})


def _restore(run: WearRun, ds: xr.Dataset) -> None:
    """Set ``run`` to the state after the last complete row of ``ds``."""
    last = ds.isel(cycle=-1)
    revolute_loop.restore(run, ds)
    run.previous_jump = float(last.cycle_jump.values)
    run.previous_cycles = int(last["average_cycles"].values)
    run.cycles_done = float(ds.cycle.values[-1]) + float(last.cycle_jump.values)
    run.update = int(last["update"].values) + 1
    guide_loop.restore(run, ds)
    run.validity.warnings = list(json.loads(ds.attrs.get("validity_warnings", "[]")))
    run.validity.notes = list(json.loads(ds.attrs.get("validity_notes", "[]")))


def _refuse_to_clobber(out: Path) -> None:
    """Never replace a store without the checks of :class:`~workbench.wear.session.StoreSession`.

    ``run_wear_study`` opens its store through a session (``@guarded``) before any work: it has
    already refused a finished or unfinished store (without ``overwrite`` / ``resume``), restarted
    one caught mid-creation, and holds the store's lock.
    """
    from .session import held_here
    if held_here(out) is None:
        raise WorkbenchError(f"{out} exists and is not opened by this run; a wear store is written "
                             f"only through run_wear_study")


@guarded
def run_wear_study(study, *, registry=None, out: str | Path, resume: bool = False, progress=None,
                   max_updates: int | None = None, stage=None, within=None) -> xr.Dataset:
    """Run the wear loop of ``study`` (``kind = "wear"``) into the zarr store ``out``.

    ``progress(cycles_done, cycles_total, dN, max_depth)`` is called after every update with the
    state after its jump (cycles done [1] and the deepest wear [m] of any worn surface),
    ``stage(update, cycles_done, text)`` before each update's dynamics (what runs now), and
    ``within(update, cycles_done, positions)`` while it runs, about every 0.1 s: the settling or
    averaging cycle each chain integrates (``{chain: CyclePosition}``, :mod:`.progress`).
    ``resume=True`` continues the run stored at ``out``.  ``max_updates`` stops after that many
    new updates (for tests and benchmarks).  Returns the store's dataset (loaded).
    """
    cfg = study.wear
    coupled.check(study)   # distributed contact (owner: workbench.wear.coupled)
    run = WearRun(study, cfg)
    run.selection = engines.select(study.mechanism, study.solver)   # recorded in the store's attrs
    if within is not None:
        run.watch = cycle_progress.cycle_watch(
            cfg.cycle_period, cfg.settle_cycles, lambda where: within(run.update, run.cycles_done, where))
    revolute_loop.start(run)
    guide_loop.start(run)
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
    new = 0
    while not done:
        if stage is not None:
            stage(run.update, run.cycles_done,
                  f"update {run.update}: dynamics of {cfg.settle_cycles} settling + "
                  f"{cfg.average_cycles}..{cfg.max_average_cycles} averaging cycles"
                  + (f" on {cfg.chains} chains" if cfg.chains > 1 else ""))
        meas = measure(run, ideal)
        with_scatter(run, meas)    # jump_control = "history": errors widened to the scatter between updates
        ratios = revolute_loop.hardness_ratios(run, meas)
        dN = choose_jump(run, meas)
        t = _time.perf_counter()
        inc = revolute_loop.increments(run, meas, dN)
        ginc = guide_loop.increments(run, meas, dN)
        run.timings.pressure_wear += _time.perf_counter() - t
        keep = dN == 0.0 or run.update == 0 or run.update % cfg.dynamics_every == 0
        t = _time.perf_counter()
        row = revolute_loop.record(run, meas, dN, inc, ratios)
        row = guide_loop.record(run, meas, dN, ginc, guide_loop.hardness_ratios(run, meas), row)
        # the validity notes are committed with the update they belong to (one atomic step)
        validity = (dict(validity_warnings=list(run.validity.warnings), validity_notes=list(run.validity.notes))
                    if run.validity.warnings or run.validity.notes else None)
        if run.update == 0 and not resume:
            store.create(xr.merge([revolute_loop.static(run, ideal, meas), guide_loop.static(run), row,
                                   _dynamics(run, meas)])
                         .assign_attrs(_attrs(run, registry)), attrs=validity)
        else:
            store.append(row, _dynamics(run, meas) if keep else None, attrs=validity)
        run.timings.io += _time.perf_counter() - t
        run.timings.updates += 1
        if dN > 0.0:   # the surfaces after this update's jump (the row above holds them before it)
            revolute_loop.apply(run, meas, dN, inc)
            guide_loop.apply(run, meas, dN, ginc)
        if progress is not None:   # the state after this update: cycles and deepest wear after its jump
            progress(run.cycles_done + dN, cfg.cycles, dN, deepest_wear(run))
        if dN == 0.0:
            break
        advance(run, meas, dN)
        new += 1
        if max_updates is not None and new >= max_updates:
            break
    if done and str(store.attrs.get("run_status", "")) == "complete":
        from .store import open_store   # resumed, complete already: its attributes stay as they are
        return open_store(out)
    finished = dN == 0.0 if not done else True   # done: killed after its last update, before its status
    store.set_attrs(run_status="complete" if finished else "incomplete (resume with --resume)",
                    wall_time=_time.perf_counter() - wall, timings=run.timings.as_dict())
    from .store import open_store
    return open_store(out)
