"""Integration of an event-driven run phase by phase, and its samples.

:func:`integrate` holds the modes and sides of :class:`~workbench.nonsmooth.event_driven.System`
fixed within a smooth phase (scipy's ``solve_ivp`` with terminal events: slip speed through zero,
needed friction reaching ``mu_static |lambda|``, normal force through zero), and at each event
chooses the next modes (:meth:`~workbench.nonsmooth.event_driven.System.choose`: the HLCP of Wang,
Wang & Zhuang for the sides, the stick/slip consistency conditions of Pfeiffer & Glocker (1996)
§4.3).  :func:`sample` evaluates the run at output times.
"""
from __future__ import annotations

import time as _time
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from ..errors import SolverError
from .event_driven import EV_BREAKAWAY, EV_REVERSAL, EV_SIDE, EV_STICK, SLIP_POS, STICK, System

@dataclass
class Phase:
    """One smooth phase: its time span [s], the modes and sides held, the dense solution."""
    t0: float
    t1: float
    modes: list
    sides: np.ndarray
    sol: object


@dataclass
class EventRun:
    """What :func:`integrate` returns."""
    system: System
    phases: list
    events: list = field(default_factory=list)   # (time [s], joint index, kind, normal force [N])
    stats: dict = field(default_factory=dict)
    status: str = "complete"


def integrate(system: System, t_end: float, *, t0: float = 0.0, rtol: float = 1e-10,
              atol: float = 1e-12, max_step: float = 0.0, method: str = "DOP853",
              max_events: int = 100_000) -> EventRun:
    """Integrate from the assembled state to ``t_end`` [s], phase by phase.

    The state is ``(q, q', W_drv, D_fric, D_damp)``: the last three [J] are the driver work and
    the energy dissipated by friction and dampers since ``t0``.
    """
    n, nf = system.n, system.nf
    y = np.concatenate([system.q0, system.qd0, np.zeros(3)])
    t = float(t0)
    modes, sides = system.choose(t, y[:n], y[n:2 * n])
    run = EventRun(system, [])
    nfev = nsteps = 0
    wall = _time.perf_counter()
    cache = {}
    stalled = 0

    def ev(tt, yy):
        key = (tt, yy.tobytes())
        if key not in cache:
            if len(cache) > 64:
                cache.clear()
            cache[key] = system.evaluate(tt, yy[:n], yy[n:2 * n], modes, sides)
        e = cache[key]
        if e is None:
            raise SolverError(f"t = {tt:.9g} s: singular constraint system (a jammed or "
                              f"redundantly constrained mechanism)")
        return e

    def f(tt, yy):
        e = ev(tt, yy)
        return np.concatenate([yy[n:2 * n], e["qdd"], [e["p_drv"], e["p_fric"], e["p_damp"]]])

    while t < t_end * (1 - 1e-14):
        events = []
        kinds = []
        for k in range(nf):
            if system.v_eps > 0.0:
                pass
            elif modes[k] == STICK:
                def g(tt, yy, k=k):
                    e = ev(tt, yy)
                    return system.fj[k].mu_static * abs(e["N"][k]) - abs(e["F"][k])
                events.append(g); kinds.append((k, "break"))
            else:
                s = 1.0 if modes[k] == SLIP_POS else -1.0

                def g(tt, yy, k=k, s=s):
                    return s * system.slip_speed(yy[:n], yy[n:2 * n], k)
                events.append(g); kinds.append((k, "rest"))
            if k >= system.nt:
                continue   # a pin's load |lambda| has no side

            def gs(tt, yy, k=k):
                return sides[k] * ev(tt, yy)["N"][k]
            events.append(gs); kinds.append((k, "side"))
        for g in events:
            g.terminal, g.direction = True, -1
        try:
            sol = solve_ivp(f, (t, t_end), y, method=method, rtol=rtol, atol=atol,
                            max_step=max_step if max_step > 0 else np.inf, events=events or None,
                            dense_output=True)
        except KeyboardInterrupt:
            run.status = "interrupted"     # the finished phases are kept
            break
        nfev += sol.nfev
        nsteps += len(sol.t) - 1
        if sol.status == -1:
            raise SolverError(f"t = {sol.t[-1]:.9g} s: {sol.message}")
        t1 = float(sol.t[-1])
        run.phases.append(Phase(t, t1, list(modes), sides.copy(), sol.sol))
        y, t = sol.y[:, -1].copy(), t1
        if sol.status == 0:
            break
        fired = [i for i, te in enumerate(sol.t_events) if te.size]
        q, qd = y[:n], y[n:2 * n]
        no_stick, crossing = set(), set()
        old_modes, old_sides = list(modes), sides.copy()
        for i in fired:
            k, what = kinds[i]
            if what == "break":
                no_stick.add(k)
            elif what == "side":
                crossing.add(k)
        modes, sides = system.choose(t, q, qd, no_stick=no_stick)
        e = system.evaluate(t, q, qd, modes, sides)
        # A normal force through zero: at the event both sides solve the (degenerate) HLCP; the
        # force goes on through zero, so the other side touches next.
        scale = max(1e-300, float(np.abs(e["lam"]).max(initial=0.0)))
        for k in crossing:
            if sides[k] == old_sides[k] and abs(e["N"][k]) <= 1e-6 * scale:
                sides[k] = -old_sides[k]
        if t1 <= run.phases[-1].t0:
            stalled += 1
            if stalled > 20:
                raise SolverError(f"t = {t:.9g} s: the event-driven solver makes no progress "
                                  f"(events repeat at one instant)")
        else:
            stalled = 0
        for k in range(nf):
            kind = None
            if old_modes[k] != STICK and modes[k] == STICK:
                kind = EV_STICK
            elif old_modes[k] == STICK and modes[k] != STICK:
                kind = EV_BREAKAWAY
            elif old_modes[k] != modes[k]:
                kind = EV_REVERSAL
            if kind is not None:
                run.events.append((t, k, kind, float(e["N"][k])))
            if old_sides[k] != sides[k]:
                run.events.append((t, k, EV_SIDE, float(e["N"][k])))
        if len(run.events) > max_events:
            raise SolverError(f"more than {max_events} friction events by t = {t:.9g} s (chattering?)")
        if not fired:
            break
    if not run.phases:
        raise KeyboardInterrupt
    run.stats = {"steps": nsteps, "rhs_calls": nfev, "phases": len(run.phases),
                 "events": len(run.events), "wall_time": _time.perf_counter() - wall,
                 "path": "event_driven"}
    return run


def sample(run: EventRun, times: np.ndarray) -> dict:
    """The state and forces of ``run`` at ``times`` [s] (each in the phase that holds it)."""
    s = run.system
    n, nf, m = s.n, s.nf, s.m
    nt = len(times)
    out = {k: np.zeros(sh) for k, sh in dict(
        y=(nt, 2 * n + 3), qdd=(nt, n), lam=(nt, m), F=(nt, nf), N=(nt, nf), v=(nt, nf),
        mode=(nt, nf), drift_position=(nt,), drift_velocity=(nt,)).items()}
    starts = np.array([p.t0 for p in run.phases])
    idx = np.clip(np.searchsorted(starts, times, side="right") - 1, 0, len(run.phases) - 1)
    for i, tt in enumerate(times):
        p = run.phases[idx[i]]
        yy = p.sol(min(max(tt, p.t0), p.t1))
        e = s.evaluate(tt, yy[:n], yy[n:2 * n], p.modes, p.sides)
        out["y"][i] = yy
        out["qdd"][i], out["lam"][i] = e["qdd"], e["lam"]
        out["F"][i], out["N"][i], out["v"][i] = e["F"], e["N"], e["v"]
        out["mode"][i] = p.modes
        out["drift_position"][i] = np.linalg.norm(e["Phi"])
        out["drift_velocity"][i] = np.linalg.norm(e["J"] @ yy[n:2 * n] + e["Phit"])
    return out
