"""Degenerate mechanisms, found before a run: assembly along the driven cycle.

A mechanism that cannot follow its drivers (a crank longer than its rod, a zero-length rod that
pins the slider to the crank) or that passes a dead point (a singular constraint Jacobian) makes
the integrator crawl for minutes or fail late.  :func:`cycle_problems` assembles the *ideal*
mechanism (clearance joints made ideal, as at the start of a run) at evenly spaced times over one
period of the drivers -- at most the run -- continuing each Newton solve from the previous
configuration, and reports the first driver value where

* the constraints cannot be met any more (Gauss-Newton stalls at a residual: lock-up), or
* the scaled constraint Jacobian loses rank (its smallest singular value below
  :data:`SINGULAR_RATIO` times the largest: a dead point, or redundant constraints).

The Jacobian is made dimensionless before its singular values are compared: angle columns are
multiplied by the mechanism's length scale (the largest point or position coordinate) and every
row is normalised, so the test does not depend on the units of lengths and angles.
Cost: one small least-squares solve per Newton iteration, a few milliseconds per sample.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .compiled import compile_mechanism
from .kinematics import constraints as _compiled_constraints
from .mechanism import Mechanism


# the check runs compiled only when numba is loaded anyway
def constraints(*args):
    """:func:`workbench.mbs.kinematics.constraints`, compiled when numba is already imported (a
    run), else its Python version, the reference path (``validate`` imports no numba);
    ``tests/test_jit.py`` checks that both find the same problems."""
    from ..jit import loaded, python_path
    if loaded():
        return _compiled_constraints(*args)
    with python_path():
        return _compiled_constraints(*args)

#: smallest accepted ratio of the scaled Jacobian's extreme singular values
SINGULAR_RATIO = 1e-7
#: samples over one driver period
SAMPLES = 180


def driver_periods(mech: Mechanism) -> list[tuple[str, float]]:
    """``(name, period [s])`` of each periodic driver: ``2 pi / |speed|`` of a constant-speed
    angle driver, or of the slowest harmonic of a purely harmonic one."""
    out = []
    for d in mech.drivers:
        f = d.function
        poly = list(f.polynomial[1:])
        if d.coordinate == "phi" and len(poly) == 1 and poly[0] != 0.0 and not f.harmonics:
            out.append((d.name, 2.0 * math.pi / abs(poly[0])))
        elif not any(poly) and f.harmonics:
            w = min(abs(h[1]) for h in f.harmonics)
            if w > 0.0:
                out.append((d.name, 2.0 * math.pi / w))
    return out


def driver_period(mech: Mechanism) -> float | None:
    """The longest period [s] of the periodic drivers (:func:`driver_periods`), ``None`` if none."""
    periods = [T for _, T in driver_periods(mech)]
    return max(periods) if periods else None


def _where(mech: Mechanism, t: float) -> str:
    d = mech.first_angle_driver() or (mech.drivers[0] if mech.drivers else None)
    if d is None:
        return f"t = {t:.6g} s"
    v = d.function(t)
    if d.coordinate == "phi":
        return (f"driver angle {math.degrees(v) % 360.0:.1f} deg (driver '{d.name}' of body "
                f"'{d.body}', t = {t:.6g} s)")
    return f"driver position {v:.6g} m (driver '{d.name}', t = {t:.6g} s)"


def _length_scale(mech: Mechanism) -> float:
    vals = [abs(c) for b in mech.bodies for p in b.points.values() for c in p]
    vals += [abs(c) for p in mech.ground_points.values() for c in p]
    vals += [abs(c) for b in mech.bodies for c in b.position]
    return max(max(vals, default=0.0), 1e-3)


def _rank(Js: np.ndarray) -> int:
    Js = Js / np.maximum(np.linalg.norm(Js, axis=1), 1e-300)[:, None]
    sv = np.linalg.svd(Js, compute_uv=False)
    return int(np.sum(sv > SINGULAR_RATIO * sv[0])) if sv.size and sv[0] > 0 else 0


def _redundant(mech: Mechanism, L: float) -> str | None:
    """A message when the ideal joints and drivers themselves (clearance joints left out, as the
    run treats them) repeat constraints at the body guesses: more equations than their rank."""
    own = compile_mechanism(replace(mech, clearance_joints=()))
    m, n = own.n_rows, 3 * own.nb
    if m == 0:
        return None
    q = np.array([c for b in mech.bodies for c in (*b.position, b.angle)], float)
    Phi = np.zeros(m); J = np.zeros((m, n)); gam = np.zeros(m); Phit = np.zeros(m)
    constraints(0.0, q, np.zeros(n), own.cons_i, own.cons_f, own.drv_f, Phi, J, gam, Phit)
    col = np.ones(n)
    col[2::3] = L
    r = _rank(J * col)
    if m > n or r < m:
        return (f"the ideal joints and drivers give {m} constraint equations on the {n} coordinates "
                f"of the {own.nb} moving bodies, but only {r} independent ones: redundant "
                f"constraints (a joint or driver that repeats another); remove the repeated ones")
    return None


def cycle_problems(mech: Mechanism, t_start: float, t_end: float, *, samples: int = SAMPLES,
                   max_iter: int = 60) -> list[str]:
    """Messages for lock-up or a singular Jacobian of the ideal ``mech`` between ``t_start`` and
    ``min(t_end, t_start + driver period)`` [s] (empty when the mechanism moves freely)."""
    L = _length_scale(mech)
    redundant = _redundant(mech, L)
    if redundant:
        return [redundant]
    cm = compile_mechanism(mech.ideal())
    m, n = cm.n_rows, 3 * cm.nb
    if m == 0:
        return []
    col = np.ones(n)
    col[2::3] = L
    q = np.array([c for b in mech.bodies for c in (*b.position, b.angle)], float)
    qd = np.zeros(n)
    Phi = np.zeros(m); J = np.zeros((m, n)); gam = np.zeros(m); Phit = np.zeros(m)
    period = driver_period(mech)
    t_stop = min(t_end, t_start + period) if period else t_end
    times = np.linspace(t_start, t_stop, samples + 1) if mech.drivers and t_stop > t_start \
        else np.array([t_start])
    tol = 1e-10 * L

    rank = [min(m, n)]  # rank of the ideal twin's Jacobian at the start (it may repeat a joint)

    def solve(t, q):
        """(q, residual [m], scaled singular-value ratio) after Gauss-Newton from ``q``."""
        q = q.copy()
        best = math.inf
        for _ in range(max_iter):
            constraints(t, q, qd, cm.cons_i, cm.cons_f, cm.drv_f, Phi, J, gam, Phit)
            res = float(np.linalg.norm(Phi))
            if not math.isfinite(res):
                return q, math.inf, 0.0
            best = min(best, res)
            if res < tol:
                Js = J * col
                Js /= np.maximum(np.linalg.norm(Js, axis=1), 1e-300)[:, None]
                sv = np.linalg.svd(Js, compute_uv=False)
                return q, res, (sv[rank[0] - 1] / sv[0] if sv[0] > 0 else 0.0)
            q -= np.linalg.lstsq(J, Phi, rcond=None)[0]
        return q, best, 0.0

    def bad(res, ratio):
        return not res < tol or ratio < SINGULAR_RATIO

    for k, t in enumerate(times):
        q_new, res, ratio = solve(t, q)
        if k == 0 and res < tol:
            # a twin that repeats an ideal joint (a clearance joint next to the ideal joint it
            # models) is rank-deficient from the start; only a later loss of rank is a dead point
            constraints(t, q_new, qd, cm.cons_i, cm.cons_f, cm.drv_f, Phi, J, gam, Phit)
            rank[0] = max(_rank(J * col), 1)
            q_new, res, ratio = solve(t, q_new)
        if bad(res, ratio):
            if k > 0:  # bisect between the last good sample and this one, for the angle
                lo, hi, q_lo = times[k - 1], t, q
                for _ in range(30):
                    mid = 0.5 * (lo + hi)
                    q_mid, r_mid, s_mid = solve(mid, q_lo)
                    if bad(r_mid, s_mid):
                        hi, res, ratio = mid, r_mid, s_mid
                    else:
                        lo, q_lo = mid, q_mid
                t = hi
            if not res < tol:
                what = ("cannot be assembled at the start" if k == 0 else "locks up")
                return [f"the mechanism {what}: at {_where(mech, t)} its joints cannot all be "
                        f"closed (constraint residual {res:.3g} m after {max_iter} Newton "
                        f"iterations). Check the link lengths (a crank longer than its rod, a "
                        f"zero-length link) and the body position/angle guesses"]
            return [f"the constraint Jacobian is singular at {_where(mech, t)}: smallest/largest "
                    f"scaled singular value {ratio:.2g} < {SINGULAR_RATIO:g} (a dead point or "
                    f"a zero-length link: the mechanism locks up or its motion is not determined "
                    f"there). Check the link lengths (e.g. a crank longer than its rod)"]
        q = q_new
    return []
