"""Where a revolute journal's axial load sits: the tilted and the flush contact states.

Qi, Luo & Huang (2009) §3 put the axial contact of a revolute joint at the point of the end face
that the tilted journal reaches first, ``n3 = (n2 - n1)/|n2 - n1|`` (their eqs. 28-37, ``n_k =
(sin theta_k, cos theta_k)`` the azimuths of the two radial contacts), with ``n4 = -n3``.

**Our reading of the case their eq. 36 leaves open.**  Eq. 36 holds only for a tilted journal:
their eq. 29 asks for ``kappa_1 = 1/sqrt(beta_2^2 + beta_3^2) > 0`` and eq. 34 gives the tilt
``beta`` from ``n1 - n2``, so for ``n1 = n2`` (journal parallel to the bore, its end face flush
with the sleeve's face) eq. 36 is ``0/0``.  That is the state an axial load ``g`` drives the joint
into when the face's own moment ``g R`` exceeds the moment the joint has to carry: with ``F_perp =
0``, the tilted state gives the radial loads ``c (F1 + F2) = |M_perp| - g R`` (the point ``R n3``
resists the tilt it comes from), which has no solution with ``F_k >= 0`` once ``g R > |M_perp|``:
the "no solution" of the earlier sessions.  The journal then does not tilt; the flush face carries
its load on the rim (radius ``R``, as the paper's eqs. 44 and 48-49 take it) with any distribution,
whose resultant acts at ``R n3`` with ``|n3| <= 1`` (the set-valued extension of eq. 36, as
Coulomb's set-valued sign extends ``v/|v|``).  One more condition makes the flush state
determinate: the limit of eq. 36 as the tilt vanishes, ``n3 . n1 = 0`` (``n2 - n1`` is tangent to
the unit circle at ``n1`` when ``n2 -> n1``).  So the flush state is: ``n1 = n2 = n``, ``n3 = nu
(e1 x n)`` with ``|nu| <= 1``; the radial line contact carries the moment about ``e1 x n`` (through
``F1 != F2``), the face the moment about ``n`` (through ``nu``), and at ``|nu| = 1`` it meets the
tilted state continuously.

Evidence: (a) for ``F_perp = 0``, ``mu = 0`` the two states split the loads exactly: tilted for
``|M_perp| > g R``, flush for ``|M_perp| < g R`` (checked in ``tests/spatial/test_axial_contact.py``);
(b) for random loads without friction exactly one state is consistent in every sample there; (c) the
independent reference ``tests/reference/qi_pendulum.py`` (a pendulum on a revolute joint under an
axial force) solves both states its own way and stops unless exactly one holds.  The friction
moment, their eq. 53 ``mu R (F1 + F2 + g3 + g4)``, is the same for any rim distribution (every rim point slides at ``omega R``); what the
choice of ``n3`` changes is the radial loads ``F1 + F2`` through the across-axis friction and moment
terms.  Uniqueness is not proved: without friction exactly one state is consistent in every sample
of the tests (it is then a convex problem: the journal's pose maximises the load's work over the
clearance, the face adding the cone term ``-g R |beta|``, whose subgradient is the set-valued
``n3``); with friction, random loads at ``mu >= 0.1`` gave both or neither in a few per thousand
(measured with an earlier, fixed-point solver of the tilted state; the friction terms make the
problem non-convex), and :func:`solve` takes the flush one, or for neither the axial load spread evenly
round the rim (no moment from it).

Joint frame as in :mod:`.joint_friction`: ``e1`` the axis, azimuth ``theta`` at ``(sin theta, cos
theta)`` in ``(e2, e3)``; ``u = (u1, u2)`` the radial loads ``u_k = F_k n_k``; ``A`` the 4 x 4 radial
matrix (their eq. 19 with ``k_s = 0``), ``b0`` the reaction ``(F2, F3, M2, M3)``.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import MechanismError
from .rotation import cross

#: slack allowed on ``F_k >= 0`` and ``|nu| <= 1`` of the flush state (relative)
FLUSH_SLACK = 1e-12
#: an axial load at most this fraction of the radial load (``F1 + F2`` solved without it) is taken
#: as round-off of the reactions (a joint whose axial reaction is zero but for the last digits,
#: e.g. gravity across the axis): its place on the face is not solved, it only joins the friction
#: load ``F1 + F2 + g3 + g4`` (placing it would change the radial loads by its own size, 1e-10 of
#: them at most).  The flush-face solve costs about 2 ms a call on the reference path and sends the
#: compiled path to it.
ROUNDOFF = 1e-10


def negligible(g: float, u) -> bool:
    """True when the axial load ``g`` [N] is round-off beside the radial loads ``u`` (the 4-vector
    ``(u1, u2)`` solved without it): ``g <= ROUNDOFF (F1 + F2)``."""
    return g <= ROUNDOFF * (math.hypot(u[0], u[1]) + math.hypot(u[2], u[3]))


def axial_perp(g3, g4, n3, k_r, R, c) -> np.ndarray:
    """``(F2, F3, M2, M3)`` of the axial loads ``g3`` (left face) and ``g4`` (right face) acting at
    ``R n3`` and ``-R n3`` (``n3`` a joint-frame 3-vector, ``|n3| <= 1``: the resultant of a rim
    distribution), with their friction ``k_r g (e1 x n)``; linear in ``n3``."""
    out = np.zeros(4)
    e1 = np.array([1.0, 0.0, 0.0])
    for g, s, n in ((g3, -1.0, n3), (g4, 1.0, -n3)):
        if g == 0.0:
            continue
        f = g * (-s * e1) + g * k_r * cross(e1, n)
        m = cross(s * c * e1, f) + cross(R * n, -s * g * e1)
        out += (f[1], f[2], m[1], m[2])
    return out


def direction(u) -> np.ndarray:
    """``n3 = (n2 - n1)/|n2 - n1|`` (their eq. 36) as a joint-frame 3-vector; zero when the journal
    is not tilted (or a radial contact carries no load)."""
    F1, F2 = math.hypot(u[0], u[1]), math.hypot(u[2], u[3])
    if F1 == 0.0 or F2 == 0.0:
        return np.zeros(3)
    d = np.array([0.0, u[2] / F2 - u[0] / F1, u[3] / F2 - u[1] / F1])
    nd = float(np.linalg.norm(d))
    return d / nd if nd > 1e-12 else np.zeros(3)


def _n(th):
    return np.array([0.0, math.sin(th), math.cos(th)])


def _tangent(th):
    """``e1 x n(theta)``: the unit vector of the face tangent to the rim at azimuth ``theta``."""
    return np.array([0.0, -math.cos(th), math.sin(th)])


def tilted(A, b0, g3, g4, k_r, R, c):
    """The tilted state: radial loads ``u`` with the face point of their eq. 36; ``(u, n3)`` or
    ``None`` when there is none.

    Eq. 36 in the azimuths: ``n2 - n1 = -2 sin(D/2) (e1 x n(theta_m))`` with ``D = theta2 - theta1``
    (wrapped to ``(-pi, pi]``) and ``theta_m = theta1 + D/2``, so ``n3 = nu (e1 x n(theta_m))`` with
    ``nu = -sgn D``.  For ``nu = +-1`` and a trial ``theta_m`` the radial loads follow linearly; the
    state is a root of ``r(theta_m) = theta_m(u) - theta_m`` with ``nu D(u) < 0``.  Unlike the
    direction ``(n2 - n1)/|n2 - n1|``, ``r`` stays smooth as the tilt ``D`` vanishes, so the roots
    near the flush state are found as well as the others (scan of the circle, bisection)."""
    # first the secant method on the mean azimuth from the loads without the face moment (compiled,
    # kernels._tilted_secant: the compiled path's own first try, so both paths take the same root)
    from .kernels import _tilted_secant
    A = np.ascontiguousarray(A, dtype=float)
    b0 = np.asarray(b0, dtype=float)
    ok, u, n3 = _tilted_secant(A, b0, float(g3), float(g4), float(k_r), float(R), float(c), np.linalg.solve(A, b0))
    if ok:
        return u, n3
    # then the scan of the circle, compiled (kernels._tilted_scan, the steps of _tilted_scan_py;
    # about 5 ms a call in Python, where the set-valued runs of the universal joint spent most of
    # their time)
    from .kernels import _tilted_scan
    ok, u, n3 = _tilted_scan(A, b0, float(g3), float(g4), float(k_r), float(R), float(c))
    if ok:
        return u, n3
    return _tilted_opposite(A, b0, g3, g4, k_r, R, c)


def _tilted_scan_py(A, b0, g3, g4, k_r, R, c):
    """The scan of :func:`tilted` in Python (the check of its compiled form, ``kernels._tilted_scan``):
    for ``nu = +-1`` the sign changes of ``r(theta_m)`` on 145 azimuths, bisected; the least tilted
    root with ``nu D < 0``.  ``(u, n3)`` or None."""
    def solve_u(nu, th):
        return np.linalg.solve(A, b0 - axial_perp(g3, g4, nu * _tangent(th), k_r, R, c))

    def resid(nu, th):
        u = solve_u(nu, th)
        if u[:2].any() and u[2:].any():
            t1, t2 = math.atan2(u[0], u[1]), math.atan2(u[2], u[3])
            D = math.remainder(t2 - t1, 2 * math.pi)
            return math.remainder(t1 + 0.5 * D - th, 2 * math.pi), D, u
        return math.nan, 0.0, u

    grid = np.linspace(-math.pi, math.pi, 145)
    best = None
    for nu in (1.0, -1.0):
        for th in _bisected_roots(lambda x, nu=nu: resid(nu, x), grid):
            r, D, u = resid(nu, th)
            if abs(r) <= 1e-9 and nu * D < 0:
                # several tilted roots (seen only with friction): the least tilted one
                if best is None or abs(D) < best[0]:
                    best = (abs(D), u, nu * _tangent(th))
    return None if best is None else (best[1], best[2])


def _bisected_roots(f, grid):
    """Each sign change of ``f(x)[0]`` between neighbours of ``grid`` (both finite), bisected 80
    times (or until ``f`` is not finite): yields the middle of the last bracket."""
    vals = [f(x)[0] for x in grid]
    for a, b, fa, fb in zip(grid[:-1], grid[1:], vals[:-1], vals[1:]):
        if not (np.isfinite(fa) and np.isfinite(fb) and fa * fb <= 0):
            continue
        for _ in range(80):
            m = 0.5 * (a + b)
            fm = f(m)[0]
            if not np.isfinite(fm):
                break
            if fa * fm <= 0:
                b = m
            else:
                a, fa = m, fm
        yield 0.5 * (a + b)


def _tilted_opposite(A, b0, g3, g4, k_r, R, c):
    """The tilted state near ``D = +-pi`` (radial contacts nearly opposite), where ``theta_m`` of
    :func:`tilted` jumps by ``pi``: a root in the azimuth ``phi`` of ``n3`` itself, ``n3(u) = -sgn D
    (e1 x n(theta_m))`` (continuous there; it flips only at ``D = 0``, the flush state)."""
    def resid(phi):
        n3 = np.array([0.0, math.sin(phi), math.cos(phi)])
        u = np.linalg.solve(A, b0 - axial_perp(g3, g4, n3, k_r, R, c))
        if not (u[:2].any() and u[2:].any()):
            return math.nan, u, n3
        t1, t2 = math.atan2(u[0], u[1]), math.atan2(u[2], u[3])
        D = math.remainder(t2 - t1, 2 * math.pi)
        m = -math.copysign(1.0, D) * _tangent(t1 + 0.5 * D)
        return math.remainder(math.atan2(m[1], m[2]) - phi, 2 * math.pi), u, n3

    for phi in _bisected_roots(resid, np.linspace(-math.pi, math.pi, 145)):
        r, u, n3 = resid(phi)
        if abs(r) <= 1e-9:
            return u, n3
    return None


def flush(A, b0, g3, g4, k_r, R, c):
    """The flush state (:func:`flush_py`), solved by its compiled form (``kernels._flush``, the same
    steps; the Python one costs about 2 ms a call): ``(u, n3)`` or ``None``."""
    from .kernels import _flush
    found, u, n3 = _flush(np.ascontiguousarray(A, dtype=float), np.asarray(b0, dtype=float), float(g3),
                          float(g4), float(k_r), float(R), float(c))
    return (u, n3) if found else None


def flush_py(A, b0, g3, g4, k_r, R, c):
    """The flush state: ``u1 = F1 n``, ``u2 = F2 n``, ``n3 = nu (e1 x n) + sigma n`` with ``F_k >= 0``,
    ``nu^2 + sigma^2 <= 1``; ``(u, n3)`` or ``None``.

    Five unknowns, four equations: the extra condition is ``sigma = 0`` (the limit of their eq. 36,
    see the module text) where that leaves ``F1, F2 >= 0``; otherwise the radial load that would
    turn negative is zero (``F1 = 0`` or ``F2 = 0``: that end only touches) and ``sigma`` is free,
    the nearest state to ``sigma = 0`` that the signs allow.  For a given azimuth ``theta`` of ``n``
    the equations are linear in the three remaining unknowns, so ``theta`` is a root of ``h(theta)
    = det[c1 c2 c3 b0]``, a homogeneous cubic in ``(sin theta, cos theta)``: a cubic in ``tan
    theta``, solved exactly; each root (and ``theta + pi``) is checked for the signs."""
    P2 = axial_perp(g3, g4, np.array([0.0, 1.0, 0.0]), k_r, R, c)
    P3 = axial_perp(g3, g4, np.array([0.0, 0.0, 1.0]), k_r, R, c)
    scale = float(np.max(np.abs(b0))) or 1.0
    f_scale = float(np.abs(b0[:2]).sum() + np.abs(b0[2:]).sum() / c) or 1.0   # [N]
    for mode in ("sigma0", "F1=0", "F2=0"):
        found = _flush_mode(A, b0, P2, P3, mode, scale, f_scale)
        if found is not None:
            return found
    return None


def _flush_mode(A, b0, P2, P3, mode, scale, f_scale):
    def columns(th):
        s, co = math.sin(th), math.cos(th)
        c1, c2 = A[:, 0] * s + A[:, 1] * co, A[:, 2] * s + A[:, 3] * co
        ct, cn = -co * P2 + s * P3, s * P2 + co * P3      # n3 along e1 x n, along n
        return np.column_stack({"sigma0": (c1, c2, ct), "F1=0": (c2, ct, cn), "F2=0": (c1, ct, cn)}[mode])

    def h_over_cos3(t):   # h(atan t) / cos^3(atan t), a cubic in t
        th = math.atan(t)
        return np.linalg.det(np.column_stack([columns(th), b0])) / math.cos(th) ** 3

    ts = np.array([-1.0, 0.0, 1.0, 2.0])
    coef = np.polyfit(ts, [h_over_cos3(t) for t in ts], 3)
    cands = [math.pi / 2, -math.pi / 2]
    for r in np.roots(coef) if np.any(coef) else []:
        if abs(r.imag) <= 1e-9 * (1 + abs(r.real)):
            th = math.atan(r.real)
            cands += [th, th + math.pi]
    best = None
    for th in cands:
        C = columns(th)
        x, *_ = np.linalg.lstsq(C, b0, rcond=None)
        res = float(np.max(np.abs(C @ x - b0)))
        if res > 1e-9 * scale:
            continue
        F1, F2, nu, sigma = {"sigma0": (x[0], x[1], x[2], 0.0), "F1=0": (0.0, x[0], x[1], x[2]),
                             "F2=0": (x[0], 0.0, x[1], x[2])}[mode]
        if min(F1, F2) < -FLUSH_SLACK * f_scale or math.hypot(nu, sigma) > 1 + FLUSH_SLACK:
            continue
        F1, F2 = max(F1, 0.0), max(F2, 0.0)
        n = _n(th)
        cand = (np.array([F1 * n[1], F1 * n[2], F2 * n[1], F2 * n[2]]),
                nu * cross([1.0, 0.0, 0.0], n) + sigma * n)
        if best is None or res < best[0]:
            best = (res, cand)
    return None if best is None else best[1]


def solve(A, b0, g3, g4, k_r, R, c):
    """Radial loads ``u`` (4), the axial point ``n3`` and the state (``"tilted"`` or ``"flush"``)
    of a revolute joint carrying the axial load ``g3`` or ``g4`` [N]."""
    f = flush(A, b0, g3, g4, k_r, R, c)
    if f is not None:
        return f[0], f[1], "flush"
    t = tilted(A, b0, g3, g4, k_r, R, c)
    if t is not None:
        return t[0], t[1], "tilted"
    # neither state (seen only with friction, mu >= 0.05, in about 2 of 1000 random loads; the
    # friction terms make the contact problem non-convex): the axial load spread evenly round
    # the rim, no moment from it (the reading of the earlier sessions)
    return np.linalg.solve(A, b0), np.zeros(3), "ring"
