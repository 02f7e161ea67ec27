"""Independent replicas of an update's dynamics, run side by side (``[wear] chains``).

An update's wear rate is the mean over its averaging cycles (:mod:`.increment`).  Those cycles
need not come from one trajectory: ``chains = m`` runs ``m`` simulations of the same worn
mechanism at once, each ``settle_cycles + n_i`` cycles with ``sum n_i = n``, and pools their
averaging cycles.  Chain 0 starts from the assembled state (clearance joints ideal, as with one
chain); chain ``k > 0`` starts from it with the journal centre of every revolute clearance joint moving
at :data:`START_SPEED` ``x c / T`` relative to its bushing along the direction ``2 pi k / m``
(within the velocity constraints of the ideal joints and drivers), so that it reaches
the joint's stationary motion by another path.  This is the multiple-sequence estimate of a
stationary mean (Gelman & Rubin (1992): independent sequences from dispersed starts, each past
its transient, pooled): the pooled cycles carry no more correlation than one chain's.  The
integrator releases the GIL, so on ``m`` cores the wall time of the dynamics falls towards the
longest chain's (``settle + ceil(n / m)`` cycles instead of ``settle + n``).

The replicas are joined into ONE :class:`~workbench.mbs.solution.Simulation` (:func:`splice`):
chain 0 whole (its settling and averaging cycles, without its closing sample), then each further
chain's averaging cycles, their times shifted so that the cycles follow each other; so every
consumer of an update (rates, trends, records, outliers) sees ``n`` consecutive averaging cycles.
Each chain's own simulation stays on the joined one (``chains`` attribute) for what needs the
trajectory itself: the dynamics' pressure (:func:`workbench.wear.coupled.bind`) takes each
sample's impact speed from its own chain's contact starts.

A chain that fails or is interrupted stops the others (:func:`workbench.mbs.run_control.cancel_on`),
and the update is lost as with one chain; the rows written before stay.  SI units.
"""
from __future__ import annotations

import dataclasses
import math
import threading
import time

import numpy as np

from ..mbs.run_control import cancel_on, current_deadline, current_watch, wall_time_limit, watch_time

#: relative speed of a replica's journal at its start, in radial clearances per machine cycle [1]
START_SPEED = 20.0


def split(n: int, m: int) -> list[int]:
    """``n`` averaging cycles over ``m`` chains, the first ones one longer (each >= 1)."""
    m = max(1, min(m, n))
    return [n // m + (1 if k < n % m else 0) for k in range(m)]


def replica_start(mech, t0: float, k: int, m: int, period: float, assembled: tuple | None = None):
    """``(q0, qd0)`` of chain ``k`` of ``m``: the assembled state, and for ``k > 0`` with every
    revolute clearance joint's journal centre moving at ``START_SPEED c / period`` [m/s] along
    ``2 pi k / m`` relative to its bushing point: the smallest change of the assembled velocities
    that does so within the velocity constraints of the ideal joints and drivers (the clearance
    joints' own freedom, their null space).  ``assembled``: ``(q0, qd0)`` if already made."""
    from scipy.linalg import null_space

    from ..mbs.compiled import compile_mechanism
    from ..mbs.kinematics import rotate
    from ..mbs.mechanism import RevoluteClearanceJoint
    from ..mbs.solver import _constraint_arrays, assemble
    q0, qd0 = assemble(mech, t0) if assembled is None else assembled
    if k == 0:
        return q0, qd0
    a = 2.0 * math.pi * k / m
    rows, target = [], []
    for c in mech.clearance_joints:
        if isinstance(c, RevoluteClearanceJoint):
            g = np.zeros((2, len(q0)))
            for body, point, sign in ((c.journal_body, c.journal_point, 1.0), (c.bushing_body, c.bushing_point, -1.0)):
                if body == "ground":
                    continue
                # the point's velocity v_i + w_i x r, r its offset from the centre in the global frame
                i = mech.body_index(body)
                rx, ry = rotate(q0, i, *mech.point(body, point))
                g[0, 3 * i] += sign; g[1, 3 * i + 1] += sign
                g[0, 3 * i + 2] -= sign * ry; g[1, 3 * i + 2] += sign * rx
            v = START_SPEED * (c.bushing_radius - c.journal_radius) / period
            rows.append(g); target += [v * math.cos(a), v * math.sin(a)]
    if not rows:
        return q0, qd0
    cm = compile_mechanism(mech, angles=q0[2::3])
    _, J, _, _ = _constraint_arrays(cm, t0, q0, qd0)
    N = null_space(J) if J.shape[0] else np.eye(len(q0))
    G = np.vstack(rows)
    alpha = np.linalg.lstsq(G @ N, np.asarray(target) - G @ qd0, rcond=None)[0]
    return q0, qd0 + N @ alpha


def run_chains(simulate, mech, settings_of, n: int, m: int, settle: int, S: int, period: float, **kwargs):
    """Simulate the ``m`` chains of ``n`` averaging cycles at once (chain ``k`` with
    ``settings_of(n_k)``, chain 0 in this thread) and join them (:func:`splice`); ``S`` samples
    per cycle of ``period`` [s]; ``simulate(mech, settings, initial=..., **kwargs)``."""
    ns = split(n, m)
    sets = [settings_of(nk) for nk in ns]
    from ..mbs.solver import assemble
    assembled = assemble(mech, sets[0].t_start)    # once: every replica starts from it
    starts = [replica_start(mech, sets[0].t_start, k, len(ns), period, assembled) for k in range(len(ns))]
    out: list = [None] * len(ns)
    errors: list = [None] * len(ns)
    cancel = threading.Event()
    deadline = current_deadline()
    outer = current_watch()   # a watch of the simulated time sees every chain, with its index

    def watch(k):
        return None if outer is None else (lambda t, t0, t1: outer(t, t0, t1, chain=k))

    def work(k):
        try:
            left = deadline - time.monotonic() if math.isfinite(deadline) else math.inf
            with cancel_on(cancel), wall_time_limit(max(left, 0.0)), watch_time(watch(k)):
                out[k] = simulate(mech, sets[k], initial=starts[k], **kwargs)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
            errors[k] = exc
            cancel.set()

    threads = [threading.Thread(target=work, args=(k,), name=f"workbench-chain-{k}", daemon=True)
               for k in range(1, len(ns))]
    for t in threads:
        t.start()
    try:
        with cancel_on(cancel), watch_time(watch(0)):
            out[0] = simulate(mech, sets[0], initial=starts[0], **kwargs)
    except BaseException:
        cancel.set()
        for t in threads:
            t.join()
        raise
    for t in threads:
        t.join()
    for e in errors:
        if e is not None:
            raise e
    return splice(out, ns, settle, S, period)


#: the impact table's columns, shifted with the chain's time where they are times
_IMPACT = ("impact_time", "impact_velocity", "impact_joint", "impact_point", "impact_peak_force",
           "impact_peak_time", "impact_max_penetration")


def splice(sims: list, ns: list, settle: int, S: int, period: float):
    """One :class:`~workbench.mbs.solution.Simulation` of ``settle + sum(ns)`` cycles from the
    chains ``sims`` (chain ``k``: ``settle + ns[k]`` cycles of ``S`` samples, ``period`` [s] each):
    chain 0 whole, then the averaging cycles of the others, shifted in time to follow on (the
    closing sample is the last chain's).  Per-sample arrays and the impact table are joined; the
    energies and the work are each chain's own (a step at every join); ``stats`` counts the
    steps of all chains.  ``chains`` lists ``(sim, first sample in it, first sample here,
    samples)`` of every part."""
    if len(sims) == 1:
        sims[0].chains = [(sims[0], 0, 0, len(sims[0].time))]
        return sims[0]
    first = sims[0]
    nt = len(first.time)
    per_sample = [f.name for f in dataclasses.fields(first)
                  if isinstance(getattr(first, f.name), np.ndarray) and getattr(first, f.name).shape[:1] == (nt,)
                  and f.name not in _IMPACT]
    parts, imp, chains = {f: [] for f in per_sample}, {f: [] for f in _IMPACT}, []
    t0 = first.time[0]
    at = 0           # cycles placed so far (settling of chain 0 included)
    for k, (sim, nk) in enumerate(zip(sims, ns)):
        last = k == len(sims) - 1
        a = 0 if k == 0 else settle * S                   # first sample taken from this chain
        b = (settle + nk) * S + (1 if last else 0)        # one past the last
        shift = (at - (0 if k == 0 else settle)) * period
        for f in per_sample:
            x = getattr(sim, f)[a:b]
            parts[f].append(x + shift if f == "time" else x)
        lo, hi = sim.time[a], sim.time[min(b, len(sim.time) - 1)]
        keep = (sim.impact_time >= (lo if k else -math.inf)) & ((sim.impact_time < hi) | last)
        for f in _IMPACT:
            x = getattr(sim, f)[keep]
            imp[f].append(x + shift if f in ("impact_time", "impact_peak_time") else x)
        chains.append((sim, a, sum(len(p) for p in parts["time"][:-1]), b - a))
        at += (settle + nk) if k == 0 else nk
    joined = dataclasses.replace(first, **{f: np.concatenate(parts[f]) for f in per_sample},
                                 **{f: np.concatenate(imp[f]) for f in _IMPACT},
                                 stats=_stats(sims), status=_status(sims))
    joined.chains = chains
    return joined


def _stats(sims) -> dict:
    out = dict(sims[0].stats)
    for key in ("steps", "rejected_steps", "rhs_calls", "events", "contact_probes"):
        if all(key in s.stats for s in sims):
            out[key] = sum(int(s.stats[key]) for s in sims)
    out["chains"] = len(sims)
    out["wall_time"] = max(float(s.stats.get("wall_time", 0.0)) for s in sims)
    return out


def _status(sims) -> str:
    bad = [s.status for s in sims if s.status != "complete"]
    return bad[0] if bad else "complete"
