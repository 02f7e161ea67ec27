"""The overlap on one bushing segment of the distributed contact (:mod:`.distributed`), and the
cubic that stands in for it in the patch search.

On the segment from node ``k`` to ``k + 1`` (parameter ``t`` in [0, 1], ``psi = psi_k + t dth``) the
overlap is ``u(t) = A cos(t dth) + B sin(t dth) - H(t)``: ``A = e . n(psi_k)``, ``B = e . t(psi_k)``
and ``H`` the cubic Hermite of the clearance through its nodal values and slopes (:func:`_u`).

The patch search (critical points, roots, the screen of segments that cannot overlap) runs on
``p(t)``, the cubic Hermite of ``u`` itself through its exact nodal values ``u_k = A_k - C_k`` and
slopes ``dth (B_k - C'_k)``: as ``H`` is a cubic, ``u - p`` is the Hermite remainder of
``e . n`` alone, ``|u - p| <= max|d^4(e . n)/dt^4| / 384 = |e| dth^4 / 384`` (the error term of
cubic Hermite interpolation, Burden & Faires (2011) §3.4): 7.5e-15 m on a 720-node bore of 0.5 mm
clearance.  So ``max p + |e| dth^4 / 384`` bounds the overlap of a segment (a segment below zero
carries no pressure and is skipped), the critical points of ``p`` are closed-form (those of ``u``
to ~1e-12 of a segment, where ``u`` is flat: the largest overlap moves by ~1e-24 m), and a root of
``p`` needs one Newton step on ``u`` to be a root of ``u`` to rounding.  The integrals themselves
(:func:`.distributed._accumulate`) use ``u``.
"""
from __future__ import annotations

import math

from ..jit import njit


@njit(cache=True, inline="always")
def _hermite(t, a1, m1, a2, m2):
    """Cubic Hermite on [0, 1] (tangents per unit t): value, d/dt, d2/dt2."""
    t2 = t * t; t3 = t2 * t
    v = (2 * t3 - 3 * t2 + 1) * a1 + (t3 - 2 * t2 + t) * m1 + (-2 * t3 + 3 * t2) * a2 + (t3 - t2) * m2
    d = (6 * t2 - 6 * t) * a1 + (3 * t2 - 4 * t + 1) * m1 + (-6 * t2 + 6 * t) * a2 + (3 * t2 - 2 * t) * m2
    dd = (12 * t - 6) * a1 + (6 * t - 4) * m1 + (-12 * t + 6) * a2 + (6 * t - 2) * m2
    return v, d, dd


@njit(cache=True, inline="always")
def _cs(x):
    """``(cos x, sin x)``: Taylor series for |x| <= 0.05 (a segment; error < 1e-17), else libm."""
    if abs(x) > 0.05:
        return math.cos(x), math.sin(x)
    x2 = x * x
    return (1.0 - x2 * (0.5 - x2 * (1.0 / 24.0 - x2 / 720.0)),
            x * (1.0 - x2 * (1.0 / 6.0 - x2 * (1.0 / 120.0 - x2 / 5040.0))))


@njit(cache=True, inline="always")
def _u(t, dth, A, B, a1, m1, a2, m2):
    """Overlap u [m], du/dt, d2u/dt2 on a segment at parameter ``t``; ``A = e . n(theta_0)`` and
    ``B = e . t(theta_0)`` at the segment start (so no trigonometry of the absolute angle)."""
    cx, sx = _cs(t * dth)
    v, d, dd = _hermite(t, a1, m1, a2, m2)
    en = A * cx + B * sx
    return en - v, dth * (B * cx - A * sx) - d, -dth * dth * en - dd


@njit(cache=True, inline="always")
def cubic(u1, d0, u2, d1):
    """``(c2, c3)`` of ``p(t) = u1 + d0 t + c2 t^2 + c3 t^3``, the cubic Hermite through the values
    ``u1``, ``u2`` [m] and slopes ``d0``, ``d1`` [m per unit t] at t = 0, 1."""
    return 3.0 * (u2 - u1) - 2.0 * d0 - d1, 2.0 * (u1 - u2) + d0 + d1


@njit(cache=True, inline="always")
def cubic_critical(d0, c2, c3):
    """Critical points of ``p`` (:func:`cubic`) inside (0, 1), sorted: ``(count <= 2, t1, t2)``."""
    qa = d0; qb = 2.0 * c2; qc = 3.0 * c3
    n = 0
    r1 = -1.0; r2 = -1.0
    scale = abs(qa) + abs(qb) + abs(qc)
    if abs(qc) > 1e-12 * scale:
        disc = qb * qb - 4.0 * qa * qc
        if disc >= 0.0:
            sq = math.sqrt(disc)
            q = -0.5 * (qb + (sq if qb >= 0.0 else -sq))
            x1 = q / qc
            x2 = qa / q if q != 0.0 else x1
            r1 = min(x1, x2); r2 = max(x1, x2); n = 2
    elif qb != 0.0:
        r1 = -qa / qb; n = 1
    m = 0
    o1 = -1.0; o2 = -1.0
    for ir in range(n):
        t = r1 if ir == 0 else r2
        if not (0.0 < t < 1.0) or (m == 1 and abs(t - o1) < 1e-12):
            continue
        if m == 0:
            o1 = t
        else:
            o2 = t
        m += 1
    return m, o1, o2


@njit(cache=True, inline="always")
def cubic_max(u1, d0, c2, c3, u2, nc, t1, t2):
    """Largest value of ``p`` on [0, 1] given its critical points (:func:`cubic_critical`)."""
    v = u1 if u1 > u2 else u2
    for ic in range(nc):
        t = t1 if ic == 0 else t2
        p = u1 + t * (d0 + t * (c2 + t * c3))
        if p > v:
            v = p
    return v


@njit(cache=True)
def cubic_root(ta, tb, ua, uc, u1, d0, c2, c3, dth, A, B, a1, m1, a2, m2):
    """Root of ``u`` on [ta, tb], a piece between breakpoints where ``p`` is monotone (``ua``, ``uc``
    the values of ``u`` at its ends, of opposite signs): Newton on ``p`` from the secant point, kept
    inside the bracket, then one Newton step on ``u``."""
    lo = ta; hi = tb
    up = ua > 0.0
    t = ta + (tb - ta) * ua / (ua - uc)
    if not (lo < t < hi):
        t = 0.5 * (lo + hi)
    for _ in range(40):
        p = u1 + t * (d0 + t * (c2 + t * c3))
        if (p > 0.0) == up:
            lo = t
        else:
            hi = t
        dp = d0 + t * (2.0 * c2 + 3.0 * t * c3)
        tn = t - p / dp if dp != 0.0 else 0.5 * (lo + hi)
        if not (lo < tn < hi):
            tn = 0.5 * (lo + hi)
        if abs(tn - t) < 1e-14 or hi - lo < 1e-15:
            t = tn
            break
        t = tn
    u, d, _ = _u(t, dth, A, B, a1, m1, a2, m2)
    if d != 0.0:
        tn = t - u / d
        if ta <= tn <= tb:
            t = tn
    return t
