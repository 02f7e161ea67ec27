"""Revolute clearance joints in the wear loop (:mod:`.loop`): their worn state, rates, increments,
store rows and resumption -- the same shape as :mod:`.guide_loop` for the translational joints.

The loop keeps its worn revolute joints in ``run.worn`` (joint index -> :class:`~.surfaces.WornJoint`,
bushing and journal profiles over the body-fixed angle ``theta``) and their cumulative variances in
``run.variance`` (volume (2,) [m^6], depth (2, M) [m^2]).  Each update the loop asks this module and
:mod:`.guide_loop` alike: the worn geometry for the dynamics (:func:`surfaces`), the rate estimates
from the averaging cycles (:func:`rates`), the increments of a jump (:func:`increments`), the store
row (:func:`record`), and, after the row is stored, the worn surfaces (:func:`apply`);
:func:`restore` sets the joints to a stored row (resume).

Store variables: those of :func:`.records.row` (``wear_depth(cycle, joint, surface, theta)`` [m] and
its standard error, rates, increments, volumes, peak pressure, forces, penetration and impacts per
joint) and :func:`.records.static`.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import xarray as xr

from ..errors import WorkbenchError
from . import coupled, records
from .increment import (ContactSamples, ModelOutputError, cycle_rates, estimate, join_cycles,
                        jump_increment, wear_rate)
from .surfaces import WornJoint


def joints(mechanism, cfg) -> tuple:
    """Indices of the worn revolute joints of ``cfg`` (``cfg.joints``)."""
    return tuple(cfg.joints)


def start(run) -> None:
    """Fresh surfaces (``cfg.nodes`` nodes) and zero variances for every worn revolute joint."""
    cfg = run.cfg
    for j in joints(run.study.mechanism, cfg):
        run.worn[j] = WornJoint.fresh(run.study.mechanism.clearance_joints[j], cfg.nodes)
    for j in run.worn:
        run.variance.setdefault(j, (np.zeros(2), np.zeros((2, cfg.nodes))))


def surfaces(run) -> dict:
    """The worn profiles ``(h_bushing, h_journal)`` of every joint for the dynamics."""
    return {j: (w.h_bushing, w.h_journal) for j, w in run.worn.items()}


def geometries(run) -> dict:
    """The contact geometry of every worn joint (the contact law's stiffness from the worn
    clearance, ``[wear] stiffness = "worn"``)."""
    return {j: w.contact_geometry() for j, w in run.worn.items()}


@contextmanager
def context(run, worn: WornJoint):
    """Add the update, the joint and the cycles done to a model's bad-output error; a model
    (a plugin) that raises is a :class:`ModelOutputError` naming it (exit status 3), so that the
    run ends with a message and the store keeps its completed updates."""
    from ..mbs.run_control import current_deadline
    from ..runtime.watchdog import Stalled, watch
    label = f"wear update {run.update}, joint '{worn.joint.name}' (after {run.cycles_done:.6g} cycles)"
    try:
        with watch(label, deadline=current_deadline()):   # a model call that never returns is stopped
            yield
    except Stalled as exc:   # raised inside the model's frame: name the model whose code ran
        raise Stalled(f"{exc} ({_culprit(exc, run.cfg)} did not return)") from None
    except ModelOutputError as exc:
        raise ModelOutputError(f"wear update {run.update}: {exc} for joint '{worn.joint.name}' "
                               f"(after {run.cycles_done:.6g} cycles)") from None
    except WorkbenchError:
        raise
    except Exception as exc:  # noqa: BLE001 - a plugin's own exception
        from ..runtime.interrupts import is_interrupt
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


def same_prefix(a: ContactSamples, b: ContactSamples, m: int) -> bool:
    """Whether the first ``m`` samples of ``a`` and ``b`` are equal, bit for bit."""
    return all(np.array_equal(getattr(a, f)[:m], getattr(b, f)[:m])
               for f in ("force", "friction", "angle", "phi_rel", "slip", "penetration"))


def rates(run, sim, n: int, old: dict | None) -> dict:
    """Wear-rate estimates of every worn revolute joint from the ``n`` averaging cycles of ``sim``.

    ``old``: the estimates from a shorter simulation of the same update.  The integration does not
    depend on its end time, so the longer run repeats the shorter one sample for sample; when it
    does (checked bit for bit), only the added cycles are evaluated."""
    cfg = run.cfg
    start_ = cfg.settle_cycles * cfg.samples_per_cycle
    S = cfg.samples_per_cycle
    out = {}
    for j, w in run.worn.items():
        samples = ContactSamples.from_simulation(sim, j, start_)
        prev = old.get(j) if old else None
        pressure = coupled.bind(run, sim, j, start_, samples) if coupled.is_coupled(cfg) else cfg.pressure
        with context(run, w):
            if prev is not None and same_prefix(prev.samples, samples, prev.cycles.n * S):
                k = prev.cycles.n
                tail = cycle_rates(w, samples.part(k * S, len(samples.force)), n - k, pressure,
                                   cfg.law, cfg.bushing_share)
                out[j] = estimate(join_cycles(prev.cycles, tail), samples)
            else:
                out[j] = wear_rate(w, samples, n, pressure, cfg.law, cfg.bushing_share)
            out[j].pressure_model = pressure   # distributed contact: the bound model for jump_increment
    return out


def impacts(run, sim, t_start: float) -> dict:
    """Contact starts of every worn joint after ``t_start`` [s]."""
    return {j: int(np.sum((sim.impact_joint == j) & (sim.impact_time >= t_start))) for j in run.worn}


def hardness_ratios(run, meas) -> dict:
    """``p_max / H`` of every worn joint (the validity log's check, bushing and journal materials)."""
    cfg = run.cfg
    return {j: run.validity.pressure_ratio(w.joint, meas.rates[j].peak_pressure, cfg.hardness_limit,
                                           run.update, run.cycles_done) for j, w in run.worn.items()}


def increments(run, meas, dN: float) -> dict:
    """The depth increments of a jump of ``dN`` cycles and their standard errors, per joint:
    ``(bushing, journal, sliding, stderr bushing, stderr journal)`` (:func:`.increment.jump_increment`)."""
    cfg = run.cfg
    inc = {}
    for j, w in run.worn.items():
        with context(run, w):
            inc[j] = jump_increment(w, meas.rates[j], dN, cfg.law, cfg.bushing_share,
                                    meas.rates[j].pressure_model)   # distributed contact: bound model
    return inc


def record(run, meas, dN: float, inc: dict, ratios: dict) -> xr.Dataset:
    """Row ``run.update`` of the store (:func:`.records.row`)."""
    return records.row(run, meas, dN, inc, ratios)


def static(run, ideal: np.ndarray, meas) -> xr.Dataset:
    """The part of the store written once (:func:`.records.static`)."""
    return records.static(run, ideal, meas)


def apply(run, meas, dN: float, inc: dict) -> None:
    """Wear the joints by the increments of a jump of ``dN`` cycles (after the row is stored)."""
    for j, w in run.worn.items():
        db, dj, ds_, se_b, se_j = inc[j]
        w.h_bushing = w.h_bushing + db
        w.h_journal = w.h_journal + dj
        w.sliding_bushing = w.sliding_bushing + ds_
        # the same float operations as restore() on the stored standard errors, so that a
        # resumed run carries bit-identical variances
        vol_var, depth_var = run.variance[j]
        run.variance[j] = (np.sqrt(vol_var) ** 2 + (dN * meas.rates[j].volume_stderr) ** 2,
                           np.sqrt(depth_var) ** 2 + np.array([se_b, se_j]) ** 2)
        run.previous[j] = (meas.rates[j].profile, meas.rates[j].profile_stderr)


def restore(run, ds: xr.Dataset) -> None:
    """Set the joints to the state after the last complete row of ``ds``."""
    last = ds.isel(cycle=-1)
    val = lambda name, *k: np.asarray(last[name].values[k], float)  # noqa: E731
    for k, j in enumerate(sorted(run.worn)):
        w = run.worn[j]
        w.h_bushing = val("wear_depth", k, 0) + val("depth_increment", k, 0)
        w.h_journal = val("wear_depth", k, 1) + val("depth_increment", k, 1)
        w.sliding_bushing = val("sliding_distance", k) + val("sliding_increment", k)
        dN = float(last.cycle_jump.values)
        vol_var = val("wear_volume_stderr", k) ** 2 + (dN * val("volume_rate_stderr", k)) ** 2
        run.variance[j] = (vol_var, val("wear_depth_stderr", k) ** 2 + val("depth_increment_stderr", k) ** 2)
        run.previous[j] = (np.concatenate([val("wear_rate", k, 0), val("wear_rate", k, 1)]),
                           np.concatenate([val("wear_rate_stderr", k, 0), val("wear_rate_stderr", k, 1)]))
