"""``workbench converge``: re-run a study at tightened settings and tabulate what it reports.

A study's numbers are only as good as its numerical settings.  This module runs the study as given
(the *base* run) and once more per *knob* (one setting tightened, the others kept), and compares
the quantities the study reports:

* dynamics: first impact (time, approach velocity, peak force), trajectory (largest distance
  between the body positions of two runs over the whole run), peak contact force, number of
  impacts, and whether the impact sequence is the same;
* wear: final wear volume, deepest wear, and the final profiles (relative L2 difference).

The knobs are the small tables :data:`DYNAMICS_KNOBS` and :data:`WEAR_KNOBS` (add a row when the
solver or the wear loop gains a setting); a knob whose field the study does not have is skipped.
The quantities and their tolerances are :data:`DYNAMICS_QUANTITIES` and :data:`WEAR_QUANTITIES`;
a deterministic quantity is *converged* when its change is within its tolerance; a statistical
one (the wear results of a chaotic contact, each run an estimate with a standard error) is judged
against the standard error of the difference as well (:mod:`workbench.converge.verdict`), and may be
*inconclusive* when the two runs cannot resolve a change of the tolerance's size.

Nothing is written but the optional table: wear runs go to a temporary directory of our own that is
removed afterwards, and the table file is created only if it does not exist yet.
"""
from __future__ import annotations

import dataclasses
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import xarray as xr

from . import signals
from .verdict import (CONVERGED, HELD_COMMON, INCONCLUSIVE, NOT_CONVERGED, VERDICT_RULE, Z,
                               statistical_changes, verdict as stat_verdict)
from ..errors import SolverError, WorkbenchError


@dataclass(frozen=True)
class Knob:
    """A setting to tighten: row ``label``; ``target`` the :class:`~workbench.study.load.Study` field
    that holds it (``"solver"``: SolverSettings, ``"wear"``: WearConfig); ``fields`` tightened
    together by ``tighten`` (the first is the one shown); ``unit`` of the shown value."""
    label: str
    target: str
    fields: tuple[str, ...]
    tighten: Callable[[float], float]
    unit: str


@dataclass(frozen=True)
class Quantity:
    """A reported quantity: ``name``, ``unit``, ``long_name``; ``tolerance`` on its change between
    the base and the tightened run, ``relative`` (|t - b| / |b|) or absolute (in ``unit``);
    ``statistical``: an estimate with a standard error, judged by
    :func:`workbench.converge.verdict.verdict`."""
    name: str
    unit: str
    long_name: str
    tolerance: float
    relative: bool = True
    statistical: bool = False


def _div(k):
    return lambda v: v / k


def _times(k):
    return lambda v: type(v)(v * k)


#: tightened settings of a dynamics study (tolerances together: "rtol / 10, atol likewise")
DYNAMICS_KNOBS = (
    Knob("rtol/10", "solver", ("rtol", "atol"), _div(10), "1"),
    Knob("rtol/100", "solver", ("rtol", "atol"), _div(100), "1"),
    Knob("output_step/2", "solver", ("output_step",), _div(2), "s"),
)
#: tightened settings of a wear study (the wear loop's output step is cycle / samples_per_cycle)
WEAR_KNOBS = (
    Knob("rtol/10", "solver", ("rtol", "atol"), _div(10), "1"),
    Knob("depth_step/2", "wear", ("depth_step",), _div(2), "1"),
    Knob("samples_per_cycle*2", "wear", ("samples_per_cycle",), _times(2), "1"),
    Knob("nodes*2", "wear", ("nodes",), _times(2), "1"),
    Knob("average_cycles*2", "wear", ("average_cycles",), _times(2), "1"),
)

#: the dynamics quantities and their default tolerances.  The trajectory tolerance is the 1e-5 m a
#: converged clearance-joint run is asked to reproduce; impact data to 1e-4 (time), 1e-3 (velocity,
#: peak force); the sequence must match in joints, points and times (1 us).
DYNAMICS_QUANTITIES = (
    Quantity("first_impact_time", "s", "time of the first impact", 1e-4),
    Quantity("first_impact_velocity", "m/s", "approach speed of the first impact", 1e-3),
    Quantity("first_impact_peak_force", "N", "peak contact force of the first impact", 1e-3),
    Quantity("trajectory", "m", "largest distance between the body positions of the run and the "
             "tightest-tolerance run (change: between the base and the tightened run)", 1e-5, False),
    Quantity("peak_contact_force", "N", "largest contact force of the run (on the output samples)", 1e-2),
    Quantity("impacts", "1", "number of impacts", 0.0, False),
    Quantity("impact_sequence_differs", "1", "1 when the impacts differ from the base run's in number, "
             "joints, points or time (by more than 1 us)", 0.0, False),
) + (
    # what a crank mechanism reports beyond its impacts (workbench.converge.signals): peaks and the
    # low-pass crank moment to 0.5 %, the per-revolution means judged against their standard errors
    Quantity("crank_moment_peak", "N m", "largest |crank driver moment| (on the output samples; with beams "
             "after the start-up revolution, rigid over the whole run)", 5e-3),
    Quantity("crank_moment_lowpass_peak", "N m", "largest |crank driver moment|, low-passed (filter: the "
             "table's lowpass_filter attribute; same samples as crank_moment_peak)", 5e-3),
    Quantity("slider_acceleration_peak", "m/s^2", "largest |slider acceleration along its guide| "
             "(same samples as crank_moment_peak)", 5e-3),
    Quantity("crank_moment_peak_revolution_mean", "N m", "mean over the revolutions after the start-up one "
             "of each revolution's largest |crank driver moment|", 5e-3, statistical=True),
    Quantity("dominant_frequency_revolution_mean", "Hz", "mean over the revolutions after the start-up one "
             "of each revolution's dominant slider-acceleration frequency (above 4 crank frequencies)", 5e-3,
             statistical=True),
)
#: the quantities of :mod:`workbench.converge.signals` (reported where the mechanism has them)
SIGNAL_QUANTITIES = ("crank_moment_peak", "crank_moment_lowpass_peak", "slider_acceleration_peak",
                     "crank_moment_peak_revolution_mean", "dominant_frequency_revolution_mean")
#: the impact quantities (reported where the mechanism has clearance joints)
IMPACT_QUANTITIES = ("first_impact_time", "first_impact_velocity", "first_impact_peak_force",
                     "peak_contact_force", "impacts", "impact_sequence_differs")
#: the wear quantities and their default tolerances (volume 1 %, deepest wear 2 %, profile 2 %);
#: all statistical (standard errors from the wear loop's ``*_stderr`` variables)
WEAR_QUANTITIES = (
    Quantity("wear_volume", "m^3", "final wear volume, all worn joints and both surfaces", 1e-2,
             statistical=True),
    Quantity("deepest_wear", "m", "final deepest wear depth on any surface", 2e-2, statistical=True),
    Quantity("profile", "1", "final wear profiles: relative L2 difference to the base run "
             "(tightened run interpolated on the base nodes)", 2e-2, False, statistical=True),
)
#: what the runs of a dynamics table hold common (its statistical rows: the per-revolution means)
DYNAMICS_HELD_COMMON = ("held common: every study setting but the knob, and the start; per-revolution means: "
                        "the revolutions after the start-up one are taken as independent samples in each run "
                        "(standard error std / sqrt(n)), the two runs as independent of each other")
IMPACT_TIME_TOL = 1e-6   # s, two impacts are the same impact when their times differ by less


# ----------------------------------------------------------------------------------- runs
def tightened(study, knob: Knob):
    """``study`` with ``knob`` applied, or ``None`` when the study has no such setting."""
    holder = getattr(study, knob.target, None)
    if holder is None or not all(hasattr(holder, f) for f in knob.fields):
        return None
    new = dataclasses.replace(holder, **{f: knob.tighten(getattr(holder, f)) for f in knob.fields})
    return dataclasses.replace(study, **{knob.target: new})


def _simulate(study, label: str):
    from ..engines import simulate
    try:
        return simulate(study.mechanism, study.solver)
    except SolverError as exc:
        raise SolverError(f"converge, {label} run: {exc}") from None


def first_impact_peak_force(sim) -> float:
    """Peak contact force [N] of the first impact, NaN without impacts: the impact table's
    (:func:`workbench.mbs.analysis.impact`; located on the dense output, on the samples for the
    reference path)."""
    if len(sim.impact_time) == 0:
        return math.nan
    from ..mbs.analysis import impact
    return impact(sim, int(sim.impact_joint[0])).peak_force


def _positions_on(sim, times: np.ndarray) -> np.ndarray:
    """Body positions x, y [m] at ``times``, shape (nt, nb, 2) (linear in time between samples)."""
    out = np.empty((len(times), sim.position.shape[1], 2))
    for b in range(sim.position.shape[1]):
        for c in range(2):
            out[:, b, c] = np.interp(times, sim.time, sim.position[:, b, c])
    return out


def _distance(a, b) -> float:
    return float(np.max(np.hypot(a[..., 0] - b[..., 0], a[..., 1] - b[..., 1]), initial=0.0))


def _same_impacts(a, b) -> bool:
    if len(a.impact_time) != len(b.impact_time):
        return False
    return bool(np.array_equal(a.impact_joint, b.impact_joint) and np.array_equal(a.impact_point, b.impact_point)
                and np.all(np.abs(np.asarray(a.impact_time) - np.asarray(b.impact_time)) <= IMPACT_TIME_TOL))


def _dynamics_values(sim, base, reference, times, mech=None, cutoff: float = signals.LOWPASS_HZ) -> dict:
    pos = _positions_on(sim, times)
    extra = signals.values(sim, mech, cutoff)[0] if mech is not None else {}
    return {**extra,"first_impact_time": float(sim.impact_time[0]) if len(sim.impact_time) else math.nan,
            "first_impact_velocity": float(sim.impact_velocity[0]) if len(sim.impact_time) else math.nan,
            "first_impact_peak_force": first_impact_peak_force(sim),
            "trajectory": _distance(pos, _positions_on(reference, times)),
            "peak_contact_force": float(sim.contact_force.max(initial=0.0)),
            "impacts": float(len(sim.impact_time)),
            "impact_sequence_differs": 0.0 if base is None or _same_impacts(sim, base) else 1.0}


def _wear_values(ds) -> dict:
    last = ds.isel(cycle=-1)
    return {"wear_volume": float(last["wear_volume"].sum()),
            "deepest_wear": float(last["max_wear_depth"].max()),
            "profile": math.nan}


def _run_wear(study, registry, label: str, workdir: Path):
    from ..wear.loop import run_wear_study
    try:
        return run_wear_study(study, registry=registry, out=workdir / f"{len(os.listdir(workdir))}.zarr")
    except SolverError as exc:
        raise SolverError(f"converge, {label} run: {exc}") from None


# ---------------------------------------------------------------------------------- table
def with_tolerances(quantities, tolerances: dict | None):
    """``quantities`` with the tolerances of ``tolerances`` (name -> value, >= 0) replaced; an
    unknown name or a negative value is an error listing the valid names."""
    from ..errors import choices_text, did_you_mean
    tolerances = dict(tolerances or {})
    names = [q.name for q in quantities]
    for name, value in tolerances.items():
        if name not in names:
            raise WorkbenchError(f"--tol: unknown quantity '{name}'.{did_you_mean(name, names)} "
                                 f"Valid: {choices_text(names)}")
        if not (isinstance(value, (int, float)) and value >= 0 and math.isfinite(value)):
            raise WorkbenchError(f"--tol {name}: the tolerance must be a finite number >= 0, got {value!r}")
    return tuple(dataclasses.replace(q, tolerance=float(tolerances[q.name])) if q.name in tolerances else q
                 for q in quantities)


def reported_quantities(study, quantities, names=None) -> tuple:
    """The quantities of ``quantities`` that ``study`` reports (dynamics: impact quantities with
    clearance joints, the signal quantities of :func:`workbench.converge.signals.reported`; the
    others always), restricted to ``names`` when given.  A name that is no quantity, or one the
    study does not report, is an error naming the valid choices."""
    from ..errors import choices_text, did_you_mean
    mech = study.mechanism

    def has(q):
        if study.kind != "dynamics":
            return True
        if q.name in IMPACT_QUANTITIES:
            return bool(mech.clearance_joints)
        if q.name in SIGNAL_QUANTITIES:
            return signals.reported(q.name, mech, study.solver)
        return True
    ours = tuple(q for q in quantities if has(q))
    if not names:
        return ours
    valid = [q.name for q in quantities]
    here = [q.name for q in ours]
    for name in names:
        if name not in valid:
            raise WorkbenchError(f"--quantity: unknown quantity '{name}'.{did_you_mean(name, valid)} "
                                 f"Valid for a {study.kind} study: {choices_text(valid)}")
        if name not in here:
            raise WorkbenchError(f"--quantity {name}: {study.file or 'this study'} does not report it (it needs "
                                 f"{_needs(name)}). This study reports: {choices_text(here)}")
    return tuple(q for q in ours if q.name in names)


def _needs(name: str) -> str:
    if name in IMPACT_QUANTITIES:
        return "clearance joints"
    if name.endswith("_revolution_mean"):
        return (f"a constant-speed crank and at least {signals.MIN_REVOLUTIONS} whole revolutions after the "
                f"start-up one" + (", and a slider on a ground guide" if "frequency" in name else ""))
    if name == "slider_acceleration_peak":
        return "a slider on a ground guide"
    return "an angle driver (the crank)"


def selected_knobs(study, labels=None) -> tuple:
    """The knobs of the study's kind, restricted to ``labels`` when given (an unknown label is an
    error naming the valid ones)."""
    from ..errors import choices_text, did_you_mean
    knobs = DYNAMICS_KNOBS if study.kind == "dynamics" else WEAR_KNOBS
    if not labels:
        return knobs
    valid = [k.label for k in knobs]
    for label in labels:
        if label not in valid:
            raise WorkbenchError(f"--setting: unknown setting '{label}' for a {study.kind} study."
                                 f"{did_you_mean(label, valid)} Valid: {choices_text(valid)}")
    return tuple(k for k in knobs if k.label in labels)


def converge_study(study, *, registry=None, cycles: float | None = None, progress=None,
                   tolerances: dict | None = None, quantities=None, settings=None,
                   lowpass: float = signals.LOWPASS_HZ) -> xr.Dataset:
    """Run ``study`` (dynamics or wear) at its settings and at each knob's tightened settings.

    ``cycles`` replaces a wear study's number of cycles (a quick check).  ``progress(label)`` is
    called before each run.  ``tolerances`` (quantity name -> tolerance) replaces default
    tolerances.  ``quantities`` (names) restricts the table to these quantities, ``settings``
    (knob labels, e.g. ``["rtol/10"]``) the runs to these knobs; ``lowpass`` [Hz] is the cut-off
    of the crank moment's low-pass filter (:mod:`workbench.converge.signals`).  Returns the
    convergence table as a dataset (see :func:`table_dataset`).
    """
    if study.kind not in ("dynamics", "wear"):
        raise WorkbenchError(f"converge handles dynamics and wear studies; {study.file or 'this study'} "
                             f"is a '{study.kind}' study")
    dyn_q = with_tolerances(DYNAMICS_QUANTITIES, tolerances if study.kind == "dynamics" else None)
    wear_q = with_tolerances(WEAR_QUANTITIES, tolerances if study.kind == "wear" else None)
    if study.kind == "dynamics":
        dyn_q = reported_quantities(study, dyn_q, quantities)
    else:
        wear_q = reported_quantities(study, wear_q, quantities)
    if not (isinstance(lowpass, (int, float)) and math.isfinite(lowpass) and lowpass > 0):
        raise WorkbenchError(f"--lowpass must be a cut-off frequency > 0 Hz, got {lowpass!r}")
    if study.kind == "dynamics" and any(q.name == "crank_moment_lowpass_peak" for q in dyn_q):
        nyquist = 0.5 / study.solver.output_step
        if lowpass >= nyquist:
            raise WorkbenchError(f"--lowpass {lowpass:g} Hz: the cut-off must lie below the Nyquist "
                                 f"frequency of the output samples, {nyquist:g} Hz ([output] step = "
                                 f"{study.solver.output_step:g} s)")
    if cycles is not None:
        if study.kind != "wear":
            raise WorkbenchError("--cycles shortens a wear study; this is a dynamics study "
                                 "(set [solver] t_end or revolutions instead)")
        if not cycles > 0:
            raise WorkbenchError(f"--cycles must be > 0, got {cycles:g}")
        study = dataclasses.replace(study, wear=dataclasses.replace(study.wear, cycles=float(cycles)))
    knobs = selected_knobs(study, settings)
    runs = [(k, s) for k in knobs if (s := tightened(study, k)) is not None]
    total = len(runs)
    say = progress or (lambda label: None)
    rows = []
    stopped = None          # Ctrl-C: the label of the run it stopped, the table keeps the rows done
    if study.kind == "dynamics":
        say("base")
        base = _simulate(study, "base")
        sims = []
        try:
            for k, s in runs:
                say(k.label)
                sims.append(_simulate(s, k.label))
        except KeyboardInterrupt:
            if not sims:
                raise
            stopped = runs[len(sims)][0].label
        runs = runs[:len(sims)]
        # the reference trajectory: the tightest tolerance run
        ref = min(zip(runs, sims), key=lambda r: r[0][1].solver.rtol)[1] if sims else base
        mech = study.mechanism
        b = _dynamics_values(base, None, ref, base.time, mech, lowpass)
        b_se = signals.values(base, mech, lowpass)[1]
        for (k, s), sim in zip(runs, sims):
            t = _dynamics_values(sim, base, ref, base.time, mech, lowpass)
            change = _changes(dyn_q, b, t)
            if any(q.name == "trajectory" for q in dyn_q):
                change["trajectory"] = _distance(_positions_on(sim, base.time), _positions_on(base, base.time))
            change["impact_sequence_differs"] = t["impact_sequence_differs"]
            rows.append((k, study, s, b, t, change,
                         _dynamics_stats(dyn_q, b, t, b_se, signals.values(sim, mech, lowpass)[1], change)))
        ds = table_dataset(study, rows, dyn_q, cycles)
        if any(q.name == "crank_moment_lowpass_peak" for q in dyn_q):
            ds.attrs["lowpass_filter"] = signals.lowpass_text(lowpass)
            ds.attrs["lowpass_cutoff_hz"] = float(lowpass)
        return _status(ds, stopped, total)
    with tempfile.TemporaryDirectory(prefix="workbench-converge-") as tmp:
        say("base")
        base_ds = _run_wear(study, registry, "base", Path(tmp))
        b = _wear_values(base_ds)
        try:
            for k, s in runs:
                say(k.label)
                ds = _run_wear(s, registry, k.label, Path(tmp))
                t = _wear_values(ds)
                stats = statistical_changes(base_ds, ds)
                change = {q.name: stats[q.name]["change"] for q in wear_q}
                rows.append((k, study, s, b, t, change, stats))
        except KeyboardInterrupt:
            if not rows:
                raise
            stopped = runs[len(rows)][0].label
    return _status(table_dataset(study, rows, wear_q, cycles), stopped, total)


def _dynamics_stats(quantities, b, t, se_b, se_t, change) -> dict:
    """The standard errors and bands of a dynamics table's statistical quantities (the
    per-revolution means; the two runs taken as independent): ``{name: {"se", "change", "band"}}``
    relative to the base value like their changes."""
    out = {}
    for q in quantities:
        if not q.statistical:
            continue
        x = b[q.name]
        sa, sb = se_b.get(q.name, math.nan), se_t.get(q.name, math.nan)
        band = Z * math.sqrt(sa * sa + sb * sb) / abs(x) if x and math.isfinite(x) else math.nan
        out[q.name] = {"se": (sa, sb), "change": change[q.name], "band": band}
    return out


def _status(ds: xr.Dataset, stopped: str | None, total: int) -> xr.Dataset:
    ds.attrs["run_status"] = ("complete" if stopped is None else
                              f"interrupted during the {stopped} run: {ds.sizes['setting']} of {total} "
                              f"settings done")
    return ds


def _changes(quantities, b: dict, t: dict) -> dict:
    out = {}
    for q in quantities:
        x, y = b[q.name], t[q.name]
        if math.isnan(x) or math.isnan(y):     # absent in both runs (no impact): no change
            out[q.name] = 0.0 if math.isnan(x) and math.isnan(y) else math.inf
            continue
        d = abs(y - x)
        out[q.name] = (d / abs(x) if x != 0 else (0.0 if d == 0 else math.inf)) if q.relative else d
    return out


def table_dataset(study, rows, quantities, cycles=None) -> xr.Dataset:
    """The table: coordinates ``setting`` (one per knob) and ``run`` (base, tightened); per
    quantity ``q`` the variables ``q(setting, run)``, ``q_change(setting)`` (relative [1] or in q's
    unit, attribute ``tolerance``), ``q_status(setting)`` (converged, not converged, inconclusive)
    and ``q_converged(setting)``; a statistical quantity adds ``q_stderr(setting, run)``,
    ``q_band(setting)`` (z standard errors of the difference, in the change's unit),
    ``q_significant(setting)`` and ``q_within_tolerance(setting)``; ``setting_value(setting, run)``,
    ``verdict(setting)`` and, for wear, ``shared_updates(setting)``.

    ``rows``: ``(knob, base study, tightened study, base values, tightened values, changes,
    stats)`` with ``stats`` from :func:`workbench.converge.verdict.statistical_changes` (``{}``
    for a dynamics study)."""
    from ..runtime.version import __version__
    from ..results.variables import var
    labels = [r[0].label for r in rows]
    n = len(rows)
    v = {}

    vals = [[getattr(getattr(s0, k.target), k.fields[0]), getattr(getattr(s1, k.target), k.fields[0])]
            for k, s0, s1, *_ in rows]
    units = [r[0].unit for r in rows]
    v["setting_value"] = var(("setting", "run"), np.array(vals, float).reshape(n, 2),
                             units[0] if len(set(units)) == 1 else ", ".join(units),
                             "value of the tightened setting (units per setting, in order)")
    status = {}
    for q in quantities:
        data = np.array([[r[3][q.name], r[4][q.name]] for r in rows], float).reshape(n, 2)
        change = np.array([r[5][q.name] for r in rows], float)
        cunit = "1" if q.relative else q.unit
        within = change <= q.tolerance
        v[q.name] = var(("setting", "run"), data, q.unit, q.long_name)
        v[f"{q.name}_change"] = var(("setting",), change, cunit,
                                    f"{'relative ' if q.relative else ''}change of: {q.long_name}",
                                    tolerance=q.tolerance)
        if q.statistical and all(q.name in r[6] for r in rows):
            band = np.array([r[6][q.name]["band"] for r in rows], float)
            se = np.array([r[6][q.name]["se"] for r in rows], float).reshape(n, 2)
            st = [stat_verdict(c, b, q.tolerance) for c, b in zip(change, band)]
            v[f"{q.name}_stderr"] = var(("setting", "run"), se, cunit if q.name == "profile" else q.unit,
                                        f"standard error of: {q.long_name}"
                                        + (" (||stderr||_2 / ||profile||_2)" if q.name == "profile" else ""))
            v[f"{q.name}_band"] = var(("setting",), band, cunit,
                                      f"{Z:g} standard errors of the difference of the two runs "
                                      f"(in the unit of the change)", z=Z)
            v[f"{q.name}_significant"] = var(("setting",), (change > band).astype(np.int8), "1",
                                             "1 when the change exceeds the band (a real change)")
            v[f"{q.name}_within_tolerance"] = var(("setting",), within.astype(np.int8), "1",
                                                  f"1 when the change is within the tolerance {q.tolerance:g}")
        else:
            st = [CONVERGED if w else NOT_CONVERGED for w in within]
        status[q.name] = st
        v[f"{q.name}_status"] = var(("setting",), np.array(st, dtype=str), "1",
                                    "converged, not converged or inconclusive (band wider than tolerance)")
        v[f"{q.name}_converged"] = var(("setting",), np.array([x == CONVERGED for x in st], np.int8), "1",
                                       f"1 when the verdict on this quantity is converged (tolerance {q.tolerance:g})")
    verdicts = []
    for i in range(n):
        bad = [q.name for q in quantities if status[q.name][i] == NOT_CONVERGED]
        open_ = [q.name for q in quantities if status[q.name][i] == INCONCLUSIVE]
        verdicts.append("NOT converged: " + ", ".join(bad) if bad else
                        "inconclusive: band wider than tolerance: " + ", ".join(open_) if open_ else CONVERGED)
    v["verdict"] = var(("setting",), np.array(verdicts, dtype=str), "1",
                       "row verdict: NOT converged when a quantity is, else inconclusive when one is, "
                       "else converged")
    attrs = {"study_kind": study.kind, "study_title": study.title, "study_file": str(study.file or ""),
             "study_text": study.text, "workbench_version": __version__,
             "cycles_override": float(cycles) if cycles is not None else "none",
             "tolerances": "; ".join(f"{q.name} {q.tolerance:g}{'' if q.relative else ' ' + q.unit}"
                                     f"{' relative' if q.relative else ''}" for q in quantities),
             "verdict_rule": VERDICT_RULE}
    if any(q.statistical for q in quantities) and study.kind == "dynamics":
        attrs.update(significance_z=Z, held_common=DYNAMICS_HELD_COMMON)
    elif any(q.statistical for q in quantities):
        v["shared_updates"] = var(("setting",), np.array([r[6].get("shared_updates", 0) for r in rows], np.int64),
                                  "1", "leading updates computed from the same cycles in both runs (their "
                                       "common error enters the difference once)")
        attrs.update(significance_z=Z, held_common=HELD_COMMON)
    return xr.Dataset(v, coords={"setting": labels, "run": ["base", "tightened"]}, attrs=attrs)


def print_table(ds: xr.Dataset, console) -> None:
    """The table on ``console`` (rich): a header saying how statistical changes are judged and what
    the runs hold common; per setting its base and tightened value, then one line per quantity
    (base, tightened, change, band of a statistical quantity, tolerance, the quantity's verdict)."""
    from rich.markup import escape
    from rich.table import Table
    quantities = [n[:-len("_change")] for n in ds.data_vars if n.endswith("_change")]
    if "held_common" in ds.attrs:
        console.print(escape(f"Statistical rows: a change is real when it exceeds the band, "
                             f"{ds.attrs['significance_z']:g} standard errors of the difference of the two "
                             f"runs; 'inconclusive' when it does not and the band is wider than the "
                             f"tolerance.  {ds.attrs['held_common'][0].upper()}{ds.attrs['held_common'][1:]}."))
    table = Table(title=escape(f"convergence: {ds.attrs.get('study_title', '')}"))
    for col, just in (("setting", "left"), ("base -> tightened", "right"), ("quantity", "left"),
                      ("base", "right"), ("tightened", "right"), ("change", "right"), ("band", "right"),
                      ("tolerance", "right"), ("verdict", "left")):
        table.add_column(col, justify=just, no_wrap=col in ("base", "tightened", "change", "band", "tolerance"),
                         overflow="fold")
    colour = {CONVERGED: "{}", NOT_CONVERGED: "[red]{}[/]", INCONCLUSIVE: "[yellow]{}[/]"}
    for i, label in enumerate(ds["setting"].values):
        val = ds["setting_value"].values[i]
        for k, q in enumerate(quantities):
            b, t = ds[q].values[i]
            c = ds[f"{q}_change"]
            unit = ds[q].attrs["units"]
            status = str(ds[f"{q}_status"].values[i])
            cu = "" if c.attrs["units"] == "1" else f" {c.attrs['units']}"
            change = f"{float(c.values[i]):.2e}{cu}"
            band = f"±{float(ds[f'{q}_band'].values[i]):.2e}" if f"{q}_band" in ds else ""
            text = "inconclusive: band wider than tolerance" if status == INCONCLUSIVE else status
            if k == 0 and "shared_updates" in ds and int(ds["shared_updates"].values[i]):
                text += f" ({int(ds['shared_updates'].values[i])} shared updates)"
            first = k == 0
            table.add_row(escape(str(label)) if first else "", f"{val[0]:.4g} -> {val[1]:.4g}" if first else "",
                          escape(f"{q} [{unit}]"), f"{b:.6g}", f"{t:.6g}",
                          colour[status].format(change), band, f"{c.attrs['tolerance']:g}",
                          colour[status].format(escape(text)), end_section=k == len(quantities) - 1)
    console.print(table)


def markdown_table(ds: xr.Dataset) -> str:
    """The table as Markdown (a docs page's table, as produced): one row per setting and quantity
    with base, tightened, change, band (statistical rows), tolerance and verdict, then the
    filter and the verdict rule."""
    quantities = [n[:-len("_change")] for n in ds.data_vars if n.endswith("_change")]
    lines = [f"convergence: {ds.attrs.get('study_title', '')}", "",
             "| setting | base -> tightened | quantity | base | tightened | change | band | tolerance | verdict |",
             "|---|---:|---|---:|---:|---:|---:|---:|---|"]
    for i, label in enumerate(ds["setting"].values):
        val = ds["setting_value"].values[i]
        for k, q in enumerate(quantities):
            b, t = ds[q].values[i]
            c = ds[f"{q}_change"]
            cu = "" if c.attrs["units"] == "1" else f" {c.attrs['units']}"
            band = f"±{float(ds[f'{q}_band'].values[i]):.2e}" if f"{q}_band" in ds else ""
            first = k == 0
            lines.append(f"| {label if first else ''} | {f'{val[0]:.4g} -> {val[1]:.4g}' if first else ''} | "
                         f"{q} [{ds[q].attrs['units']}] | {b:.6g} | {t:.6g} | {float(c.values[i]):.2e}{cu} | "
                         f"{band} | {c.attrs['tolerance']:g} | {ds[f'{q}_status'].values[i]} |")
    lines.append("")
    if "lowpass_filter" in ds.attrs:
        lines.append(f"Low-pass: {ds.attrs['lowpass_filter']}.")
    if "held_common" in ds.attrs:
        lines.append(f"{ds.attrs['held_common'][0].upper()}{ds.attrs['held_common'][1:]}.")
    lines.append(f"Verdict rule: {ds.attrs['verdict_rule']}.")
    if ds.attrs.get("run_status", "complete") != "complete":
        lines.append(f"Status: {ds.attrs['run_status']}.")
    return "\n".join(lines)


def check_output_path(out: Path) -> None:
    """Refuse an output that exists (never overwrite) or whose directory does not."""
    if out.exists() or out.is_symlink():
        raise WorkbenchError(f"{out} exists: converge never overwrites a file; choose another -o")
    if not out.parent.is_dir():
        raise WorkbenchError(f"{out}: the directory {out.parent} does not exist (converge creates nothing "
                             f"but the table file)")


def write_table(ds: xr.Dataset, out: Path) -> Path:
    """Write the table to ``out`` (netCDF4, h5netcdf); fails rather than replace an existing file:
    the data go to a temporary file that is hard-linked to ``out`` (atomic, no clobber)."""
    from ..results.dataset import ENGINE
    out = Path(out)
    check_output_path(out)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        ds.to_netcdf(tmp, engine=ENGINE)
        os.link(tmp, out)
    except FileExistsError:
        raise WorkbenchError(f"{out} exists: converge never overwrites a file; choose another -o") from None
    except OSError as exc:
        raise WorkbenchError(f"cannot write the convergence table {out}: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)  # safe: our own temporary file, hard-linked to the output or failed
    return out
