"""Checks of a study beyond its schema: what ``run`` would reject, found by ``validate`` first.

:func:`pre_run` runs after the loader has built the mechanism (so ``workbench validate`` and
``workbench run`` see the same problems) and records each problem with the key path it comes
from:

* every contact and friction law is packed for its joint (``pack(geometry)``), so a parameter
  set that the law itself refuses (e.g. ``hertz`` with ``exponent = 2`` and no stiffness) is an
  error naming the file, the key and the value, not a failure at the start of the run;
* laws used outside the parameter range their source derives them for
  (``parameter(valid_range=...)``, e.g. Lankarani-Nikravesh below e = 0.8) are refused, or with
  ``[checks] allow_out_of_range = true`` kept as a warning the run writes into the dataset;
* a contact stiffness absurd for the materials: the law's force at a penetration of 1 % of the
  clearance compared with the force of the stiffness the materials and geometry give (Wang, Chen,
  Ma & Sun (2016) eq. 11 for a pin in a bore, ``F = K delta^1.5``; eq. 26 for a planar slider,
  ``F = K_s delta``), refused beyond ``[checks] max_stiffness_ratio`` either way;
* a dynamics run shorter than ``[checks] min_output_samples`` output steps;
* the ideal mechanism assembled along one period of its drivers
  (:func:`workbench.mbs.degenerate.cycle_problems`): lock-up and dead points, with the angle.

:func:`penetration_findings` is the post-run guard: the largest penetration of each clearance
joint against ``[checks] max_penetration_ratio`` times its clearance.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ..errors import StudyError, WorkbenchError
from ..mbs.mechanism import Mechanism, RevoluteClearanceJoint, contact_geometry
from ..models import out_of_valid_range, range_text
from . import schema as S

#: penetration at which a contact law's force is compared with the materials' stiffness, as a
#: fraction of the clearance
STIFFNESS_PROBE = 0.01


@dataclass(frozen=True)
class Checks:
    """The ``[checks]`` table (see :data:`workbench.study.schema.CHECKS` for units and meaning)."""
    min_output_samples: int = 10
    allow_out_of_range: bool = False
    max_stiffness_ratio: float = 1e3
    max_penetration_ratio: float = 1.0
    on_implausible: str = "stop"
    max_memory_gb: float = 4.0
    cycle_matches_drivers: bool = True
    assembly_cycle: bool = True
    progress_timeout: float = 60.0
    max_run_hours: float = 24.0
    max_cycles: float = 1e10


class ImplausibleResultError(WorkbenchError):
    """A finished run broke a plausibility guard of ``[checks]`` (``on_implausible = "stop"``)."""


def read_checks(table, probs: S.Problems) -> Checks | None:
    """``[checks]`` from the TOML document's table (``None`` when it has errors)."""
    vals = S.read_table(table, S.CHECKS, "checks", probs)
    return None if S.has_bad(vals) else Checks(**vals)


def _joint_path(i: int) -> str:
    return f"mechanism.clearance_joints[{i}]"


def _pack_models(mech: Mechanism, probs: S.Problems) -> bool:
    """Pack every law as the solver will; record failures under the law's key path."""
    ok = True
    for i, c in enumerate(mech.clearance_joints):
        geom = contact_geometry(c)
        for family, model, call in (("contact", c.contact, lambda m: m.pack(geom)),
                                    ("friction", c.friction, lambda m: m.pack()),
                                    ("lubrication", getattr(c, "lubrication", None), lambda m: m.pack(geom))):
            if model is None:
                continue
            path = f"{_joint_path(i)}.{family}"
            try:
                p = np.asarray(call(model), dtype=float)
            except StudyError as exc:
                key = f"{path}.{exc.key}" if exc.key else path
                probs.add(key, S.bare_message(exc))
                ok = False
                continue
            except Exception as exc:  # a model's own checks, or a broken third-party pack()
                probs.add(path, f"{family} model '{model.name}' cannot be used with this joint "
                                f"({model.describe()}): {type(exc).__name__}: {exc}")
                ok = False
                continue
            if p.ndim != 1 or not np.all(np.isfinite(p)):
                probs.add(path, f"{family} model '{model.name}' turns its parameters "
                                f"({model.describe()}) into non-finite values for this joint; "
                                f"check the parameters against `workbench plugins --family {family}`")
                ok = False
    return ok


def _ranges(mech: Mechanism, checks: Checks, probs: S.Problems) -> list[str]:
    warnings = []
    for i, c in enumerate(mech.clearance_joints):
        for family, model in (("contact", c.contact), ("friction", c.friction),
                              ("lubrication", getattr(c, "lubrication", None))):
            if model is None:
                continue
            for info, v in out_of_valid_range(model):
                lo, hi = info.valid_range
                text = (f"{family} model '{model.name}': {info.name} = {v:g} is outside the range "
                        f"{range_text(lo, hi, info.unit)} the law is derived for"
                        + (f" ({info.range_source})" if info.range_source else ""))
                key = f"{_joint_path(i)}.{family}.{info.name}"
                if checks.allow_out_of_range:
                    warnings.append(f"[{key}] {text}; run anyway ([checks] allow_out_of_range = true)")
                else:
                    probs.add(key, f"{text}. To run it anyway set [checks] allow_out_of_range = "
                                   f"true (the results then carry a warning)")
    return warnings


def _materials_force(geom, delta: float) -> float:
    """Force [N] of the stiffness the materials and geometry give, at penetration ``delta``."""
    K = geom.default_stiffness()
    return K * delta ** (1.0 if geom.kind == "planar" else 1.5)


def _stiffness(mech: Mechanism, checks: Checks, probs: S.Problems) -> None:
    r = checks.max_stiffness_ratio
    for i, c in enumerate(mech.clearance_joints):
        model = c.contact
        fields = {f.name: f for f in dataclasses.fields(model.params)}
        K = getattr(model.params, "stiffness", None)
        if K is None or "stiffness" not in fields or K == fields["stiffness"].default:
            continue  # the geometry's own value, or the law's default: the study did not set it
        geom = contact_geometry(c)
        delta = STIFFNESS_PROBE * c.clearance
        try:
            f_ref = _materials_force(geom, delta)
            kern = getattr(type(model).kernel, "py_func", type(model).kernel)
            f = float(kern(delta, 0.0, 1.0, np.asarray(model.pack(geom), float)))
        except Exception:  # rigid-rigid materials, or a law that cannot be probed in Python
            continue  # nothing to compare with (the kernel itself was compiled and packed above)
        if not (f_ref > 0.0 and math.isfinite(f_ref)) or not math.isfinite(f):
            continue
        ratio = f / f_ref
        if not 1.0 / r <= ratio <= r:
            probs.add(f"{_joint_path(i)}.contact.stiffness",
                      f"stiffness = {model.params.stiffness:g} is implausible for the joint's "
                      f"materials: at a penetration of {delta:.3g} m ({STIFFNESS_PROBE:g} of the "
                      f"clearance) contact model '{model.name}' gives {f:.4g} N, {ratio:.3g} times "
                      f"the {f_ref:.4g} N of the stiffness the materials and geometry give (Wang, "
                      f"Chen, Ma & Sun (2016) eq. {26 if geom.kind == 'planar' else 11}); the limit "
                      f"is a factor {r:g} either way ([checks] max_stiffness_ratio)")


def _output(solver, checks: Checks, probs: S.Problems) -> None:
    span = solver.t_end - solver.t_start
    n = span / solver.output_step
    if n < checks.min_output_samples:
        probs.add("output.step", f"step = {solver.output_step:g} s gives {math.floor(n) + 1} output "
                                 f"sample(s) over the run of {span:g} s (t = {solver.t_start:g} .. "
                                 f"{solver.t_end:g} s); at least {checks.min_output_samples} are needed "
                                 f"([checks] min_output_samples): make the step at most "
                                 f"{span / checks.min_output_samples:.3g} s")


def dynamics_bytes(mechanism: Mechanism, solver, compare_ideal: bool) -> float:
    """Estimated bytes of a dynamics run's sampled output: float64 values per sample (positions,
    velocities, accelerations: 9 per body; driver loads; 2 reactions per ideal joint; 10 per
    clearance joint; 12 energies and drifts), twice with the ideal twin."""
    m = mechanism
    per_sample = 9 * len(m.bodies) + len(m.drivers) + 2 * len(m.joints) + 10 * len(m.clearance_joints) + 12
    samples = (solver.t_end - solver.t_start) / solver.output_step + 1.0
    return 8.0 * per_sample * samples * (2.0 if compare_ideal and m.clearance_joints else 1.0)


def wear_bytes(wear) -> float:
    """Estimated bytes of one wear update's contact samples: pressure on the nodes for every
    sample of the settling and (at most ``max_average_cycles``) averaging cycles (the dominant
    array)."""
    # an update grows its averaging cycles up to max_average_cycles (workbench.wear.loop.measure)
    cycles = wear.settle_cycles + max(wear.average_cycles, wear.max_average_cycles)
    return 8.0 * float(wear.samples_per_cycle) * cycles * float(wear.nodes) * max(len(wear.joints), 1)


def _memory(nbytes: float, what: str, key: str, checks: Checks, probs: S.Problems) -> None:
    limit = checks.max_memory_gb * 1e9
    if not nbytes <= limit:
        probs.add(key, f"{what} need about {nbytes / 1e9:.3g} GB of memory, above the limit of "
                       f"{checks.max_memory_gb:g} GB ([checks] max_memory_gb): the run would run out "
                       f"of memory; shorten it, coarsen it, or raise the limit if the machine has "
                       f"the memory")


#: relative tolerance of "a whole number of driver periods"
CYCLE_TOL = 1e-6


def _cycle_period(mechanism: Mechanism, period: float, probs: S.Problems) -> None:
    """A wear cycle must be a whole number (>= 1) of periods of every periodic driver."""
    from ..mbs.degenerate import driver_periods
    for name, T in driver_periods(mechanism):
        if not T > 0.0:   # refused with the driver's speed (workbench.study.bounds)
            continue
        n = round(period / T)
        if n < 1 or abs(period - n * T) > CYCLE_TOL * period:
            probs.add("wear.cycle_period",
                      f"cycle_period = {period:g} s is not a whole number of periods of driver "
                      f"'{name}' ({T:.6g} s, i.e. {period / T:.6g} of them): one machine cycle must "
                      f"bring the mechanism back to its start; give {T:.6g} s or a multiple, or leave "
                      f"'cycle_period' out ([checks] cycle_matches_drivers = false skips this check)")


def pre_run(mechanism: Mechanism, solver, checks: Checks, probs: S.Problems, *,
            kind: str = "dynamics", wear=None, compare_ideal: bool = True, engine=None) -> list[str]:
    """Record every problem found before a run; return the warnings the run must write.

    ``solver`` is the run's :class:`~workbench.mbs.solution.SolverSettings` (its ``t_end`` bounds
    the assembly check); the output-sample check applies to ``kind == "dynamics"`` only.
    ``engine``: the :class:`~workbench.engines.base.Engine` that will run it (default: the one
    :func:`workbench.engines.select` picks); its own problems are asked for
    (``engine.problems``, building its model once every model is packed); the general checks
    see the mechanism as the engine's ``checked`` gives it (the event-driven engine: without
    the set-valued joint friction the compliant kernels would refuse).
    """
    if engine is None and solver is not None:
        from ..engines import select
        engine = select(mechanism, solver).engine
    own = mechanism
    if engine is not None:
        mechanism = engine.checked(mechanism)
    n0 = len(probs.items)
    models_ok = _pack_models(mechanism, probs)
    warnings = _ranges(mechanism, checks, probs)
    if models_ok:
        _stiffness(mechanism, checks, probs)
        from .contact_probe import check_apart
        check_apart(mechanism)   # a force while the bodies are apart: a model fault (exit status 3)
    if kind == "dynamics" and solver is not None:
        _output(solver, checks, probs)
        _memory(dynamics_bytes(mechanism, solver, compare_ideal), "the output samples of this run",
                "output.step", checks, probs)
    if kind == "wear" and wear is not None:
        if checks.cycle_matches_drivers:
            _cycle_period(mechanism, wear.cycle_period, probs)
        _memory(wear_bytes(wear), "the contact samples of one wear update (samples_per_cycle x "
                "nodes x cycles)", "wear", checks, probs)
        from .bounds import wear_cycles
        wear_cycles(wear, checks, probs)
        _coupled_pressure(mechanism, wear, probs)
    if solver is not None and getattr(solver, "ramp", 0.0):
        from ..flex.ramp import ramp_problems
        for key, msg in ramp_problems(mechanism, solver):
            probs.add(key, msg)
    if getattr(mechanism, "beams", ()) and kind not in ("dynamics", "wear"):
        probs.add("mechanism.beams", f"flexible beams run in dynamics and wear studies only (this study "
                                     f"is '{kind}'); valid: [study] kind = \"dynamics\" or \"wear\", or "
                                     f"rigid bodies")
    # the engine's own problems (workbench.engines): its settings, what it does not run, and its
    # model built as the run will build it once every model is packed
    if engine is not None:
        build = models_ok and len(probs.items) == n0
        for key, msg in engine.problems(own, solver, wear=wear if kind == "wear" else None,
                                        build=build):
            probs.add(key, msg)
    if kind == "dynamics" and engine is not None and engine.name == "spatial" and len(probs.items) == n0:
        from .spatial_start import check_start
        check_start(own, solver, probs.file)   # the run's first right-hand side: its fault, before the run
    if engine is not None and not engine.rigid:
        return warnings
    if checks.assembly_cycle and solver is not None and len(probs.items) == n0:
        from ..mbs.degenerate import cycle_problems
        for msg in cycle_problems(mechanism, solver.t_start, solver.t_end):
            probs.add("mechanism", msg + " ([checks] assembly_cycle = false skips this check)")
    return warnings


def _coupled_pressure(mechanism: Mechanism, wear, probs: S.Problems) -> None:
    """``wear.pressure = "dynamics"`` needs a distributed contact law on every worn joint (the
    pressure is the one the dynamics computed): what :func:`workbench.wear.coupled.check` refuses
    at the start of a run, found by ``validate`` first."""
    from ..wear.coupled import MODEL, is_coupled
    if not is_coupled(wear):
        return
    for j in wear.joints:
        joint = mechanism.clearance_joints[j]
        if not getattr(joint.contact, "distributed", False):
            probs.add("wear.pressure.model",
                      f"'{MODEL}' takes the pressure from the dynamics, but clearance joint "
                      f"'{joint.name}' has the point-contact law '{joint.contact.name}'. Valid: a "
                      f"distributed contact law (distributed_winkler) on the joint, or a pressure model "
                      f"that computes its own field (approximate_area, winkler, fem)")


def penetration_findings(sim, mechanism: Mechanism, checks: Checks) -> list[str]:
    """Clearance joints whose largest sampled penetration passes ``max_penetration_ratio`` times
    the clearance (or times the journal radius / slider height, if smaller)."""
    out = []
    pen = np.asarray(sim.penetration, float)
    if pen.size == 0:
        return out
    for k, c in enumerate(mechanism.clearance_joints):
        col = pen[:, k]
        size = c.journal_radius if isinstance(c, RevoluteClearanceJoint) else c.slider_height
        limit = checks.max_penetration_ratio * min(c.clearance, size)
        if not np.all(np.isfinite(col)):
            t = float(sim.time[int(np.argmin(np.isfinite(col)))])
            out.append(f"clearance joint '{c.name}': the penetration is not finite from t = {t:.6g} s")
            continue
        worst = float(col.max())
        if not worst <= limit:
            t = float(sim.time[int(np.argmax(col))])
            out.append(f"clearance joint '{c.name}': penetration reached {worst:.4g} m at t = {t:.6g} s, "
                       f"{worst / c.clearance:.3g} times its clearance of {c.clearance:.4g} m; the "
                       f"limit is {limit:.4g} m ([checks] max_penetration_ratio = "
                       f"{checks.max_penetration_ratio:g}): the contact law is far outside the small "
                       f"deformations it models (speed, load or stiffness implausible)")
    return out


def film_range_findings(sim, mechanism: Mechanism) -> list[str]:
    """Lubricated clearance joints whose journal left the range their film model was built for
    (:meth:`workbench.models.LubricationModel.range_validity` of the largest sampled eccentricity
    ratio, ``1 + penetration / clearance``): reported, the run stands."""
    out = []
    pen = np.asarray(sim.penetration, float)
    if pen.size == 0:
        return out
    for k, c in enumerate(mechanism.clearance_joints):
        lub = getattr(c, "lubrication", None)
        col = pen[:, k]
        if lub is None or not isinstance(c, RevoluteClearanceJoint) or not np.isfinite(col).any():
            continue
        note = lub.range_validity(1.0 + float(np.nanmax(col)) / c.clearance)
        if note:
            out.append(f"clearance joint '{c.name}' ({lub.name}): {note}")
    return out
