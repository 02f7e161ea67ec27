"""Independent reference: a bar hanging from a UNIVERSAL joint with set-valued Coulomb friction in
both journals (Qi, Luo & Huang (2009) eqs. 54-58: two revolute joints through a massless cross),
one journal sticking while the other slips, event to event, without the workbench.

The bar (mass ``m``, length ``L``, square section ``a``; its end ``O`` on the joint) has body axes
x along the bar, y the cross axis ``b`` of journal 2; the cross axis ``a`` of journal 1 is the
ground's z.  Its orientation is ``R = Rz(phi) Ry(psi)``: journal 1's angle ``phi``, journal 2's tilt
``psi``.  Gravity ``-g`` along y.  The run covers the motion in which journal 2 stays stuck (``psi``
constant; this is checked at every output sample and at every event, and the reference refuses to
go on when journal 2 would slip): the bar turns about the fixed axis ``a`` through ``O``, one
coordinate ``phi``.

* Newton-Euler about the fixed point ``O``: the joint's moment on the bar is ``M = I_O phi_dd a +
  omega x I_O omega - r_c x m g_vec`` and its force ``F = m a_c - m g_vec``; ``M . a`` is journal
  1's friction moment ``m1``, ``M . b`` the moment journal 2's lock carries (its needed friction
  ``m2``), ``M . n`` the cross's constraint moment (``n = a x b``).
* Each journal's contact loads (their eqs. 54-58: each journal a revolute joint, their eqs.
  38-53): two radial points at ``-+c`` along the journal axis ``e1``, each carrying ``-u_k + k (e1 x
  u_k)`` (``u_k = F_k n_k`` across the axis, ``k`` the friction coefficient: friction moment ``k R
  N``), and the axial load ``g = F . e1`` on a face at the azimuth of their eq. 36 (or on the flush
  face where eq. 36 is 0/0, :func:`face_point`), with its friction; the four across-axis equations
  (force and moment about ``O``, with the other journal's moment and ``M . n`` across it) are built
  here numerically by evaluating forces and moments ``p x f`` of the points on unit inputs (the
  linear map), not from the paper's printed matrix; ``N = |u_1| + |u_2| + |g|``.
* slip of journal 1: ``k = -mu sgn(phi_d)``; ``phi_dd`` from ``M(phi_dd) . a = k R1 N1(phi_dd)``
  (``brentq``);
* stick of a journal: ``k = m / (R N)`` with ``N = N(k)``, a scalar fixed point; stick holds while
  ``|m| <= mu_s R N``;
* events: ``phi_d`` through zero, then journal 1's stick test (the bar locked: ``phi_dd = 0``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq


@dataclass(frozen=True)
class UBar:
    L: float = 1.0            # m, bar length
    a: float = 0.1            # m, square section side
    rho: float = 7800.0       # kg/m^3
    g: float = 9.80665        # m/s^2
    R1: float = 0.05          # m, journal 1 (axis a = ground z) radius
    c1: float = 0.05          # m, half the end-face distance of journal 1
    R2: float = 0.1           # m, journal 2 (axis b = bar y) radius
    c2: float = 0.05          # m, half the end-face distance of journal 2
    mu: float = 0.5           # 1, kinetic (and static)
    psi: float = 0.05         # rad, tilt about the bar's y (journal 2's angle, held)

    @property
    def m(self):
        return self.rho * self.L * self.a * self.a

    def inertia_O(self):
        """Body-frame inertia about the end O [kg m^2]."""
        m, L, a = self.m, self.L, self.a
        l = L / 2
        return np.diag([m * 2 * a * a / 12, m * (L * L + a * a) / 12 + m * l * l, m * (L * L + a * a) / 12 + m * l * l])


def _cross(a, b):
    """``a x b`` of two 3-vectors (numpy's ``cross`` costs tens of microseconds a call)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _rot(phi, psi):
    cz, sz, cy, sy = math.cos(phi), math.sin(phi), math.cos(psi), math.sin(psi)
    Rz = np.array([[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]])
    Ry = np.array([[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]])
    return Rz @ Ry


def joint_wrench(bar: UBar, phi, dphi, ddphi):
    """``(F, M, (a, b, n))``: the joint's force [N] and moment about O [N m] on the bar (world)."""
    R = _rot(phi, bar.psi)
    IO = R @ bar.inertia_O() @ R.T
    a = np.array([0.0, 0.0, 1.0])
    b = R @ np.array([0.0, 1.0, 0.0])
    n = _cross(a, b)
    n /= np.linalg.norm(n)
    w, wd = dphi * a, ddphi * a
    rc = R @ np.array([bar.L / 2, 0.0, 0.0])
    gv = np.array([0.0, -bar.g, 0.0])
    M = IO @ wd + _cross(w, IO @ w) - _cross(rc, bar.m * gv)
    ac = _cross(wd, rc) + _cross(w, _cross(w, rc))
    F = bar.m * ac - bar.m * gv
    return F, M, (a, b, n)


def journal_load(F, M, e1, e2, e3, k, R, c, slot=None):
    """``N = F1 + F2 + g`` [N] of a journal (axis ``e1``) carrying the force ``F`` and the moment
    ``M`` across its axis (about O) with friction coefficient ``k`` at its points (the axial load
    ``g = |F . e1|`` on a face, placed by :func:`face_point`; ``slot``: the journal's name for the
    continuation of its face state, None: none)."""
    return load_of(Journal(e1, e2, e3, k, c, R, slot), F, M)


class Journal:
    """One journal's contact system: axis ``e1``, across-axis basis ``(e2, e3)`` (the paper's
    azimuth ``theta`` puts a point at ``R (sin theta e2 + cos theta e3)``, their Fig. 3), radius ``R``,
    half face distance ``c``, friction coefficient ``k``.  ``A``: the 4 x 4 map from the two radial
    points' loads ``u = (u1 . e2, u1 . e3, u2 . e2, u2 . e3)`` to the force and moment across the
    axis, built numerically from the points' forces ``f`` and moments ``p x f`` (:meth:`face`: the
    same of the axial load on a face).  ``slot``: which journal this is (any hashable; its face
    state continues from the last call with the same slot, :func:`face_point`), None: no continuation."""

    def __init__(self, e1, e2, e3, k, c, R, slot=None):
        self.e1, self.e2, self.e3, self.k, self.c, self.R, self.slot = e1, e2, e3, k, c, R, slot

        def radial(u):   # the two points' loads u across the axis: f = -u_k + k e1 x u_k
            f_tot, m_tot = np.zeros(3), np.zeros(3)
            for p, s in ((0, -1.0), (1, 1.0)):
                uk = u[2 * p] * e2 + u[2 * p + 1] * e3
                f = -uk + k * _cross(e1, uk)
                # the point: s c e1 + R n_k; R n_k x f is along e1 (the friction moment), so only the
                # axial offset enters the moment across the axis
                m = _cross(s * c * e1, f)
                f_tot += f
                m_tot += m
            return self._across(f_tot, m_tot)

        self.A = np.column_stack([radial(np.eye(4)[i]) for i in range(4)])
        self.Ainv = np.linalg.inv(self.A)

    def _across(self, f, m):
        return np.array([f @ self.e2, f @ self.e3, m @ self.e2, m @ self.e3])

    def face(self, g, n3):
        """Force and moment across the axis of the axial load ``g`` [N] (> 0: left face, force ``g
        e1`` at ``-c e1 + R n3``; < 0: right face, force ``g e1`` at ``c e1 - R n3``, their eqs. 37-38)
        with its friction ``k |g| (e1 x n)`` (their eqs. 48-49), ``n`` the point's direction."""
        e1 = self.e1
        s, n = (-1.0, n3) if g > 0 else (1.0, -n3)
        f = g * e1 + self.k * abs(g) * _cross(e1, n)
        return self._across(f, _cross(s * self.c * e1 + self.R * n, f))


def load_of(J: Journal, F, M):
    """``N = F1 + F2 + g`` [N] of the journal ``J`` (:class:`Journal`) under the force ``F`` and the
    moment ``M`` (about O) across its axis: the radial loads with the axial load placed (:func:`face_point`)."""
    rhs = J._across(F, M)
    g = float(F @ J.e1)
    u = face_point(J, rhs, g)[0]
    return math.hypot(u[0], u[1]) + math.hypot(u[2], u[3]) + abs(g)


#: an axial load at most this fraction of the radial loads is round-off of the reactions (the
#: engine's reading too): not placed on the face
ROUNDOFF = 1e-10
#: the azimuth scans of the contact states
_GRID = np.linspace(-math.pi, math.pi, 145)
#: the finer scan when the first finds no state (two roots in one cell of the first: a near-tangency)
_FINE = np.linspace(-math.pi, math.pi, 2881)
#: the last run's count of the contact states taken (``"none"``: no state held)
STATES: dict = {}
#: the continuation (:func:`face_point`): on, and its last run's count of calls ``"continued"`` and
#: ``"scanned"`` (a journal with a slot whose continuation failed, or was not tried)
CONTINUE = True
CALLS: dict = {}
#: when a list: each continued call also runs the full scan and appends ``(state, u, scanned
#: state, scanned u, load scale [N])`` (the check that both find the same state)
AUDIT = None
#: the continuation keeps a state only this far (relative) from the border of its kind, where
#: another kind takes over (a radial load, the face point's rim or sigma = 0); nearer, the full scan
MARGIN = 0.02
#: ... and a tilted state only with ``|n2 - n1|`` at least this (near 0 it meets the flush state)
ALONG_MIN = 0.05
#: the last state of each journal slot: ``(kind, mode, azimuth)``
_LAST: dict = {}


def reset():
    """Forget the journals' last face states and the counts (each reference run starts with a scan)."""
    _LAST.clear()
    STATES.clear()
    CALLS.clear()


def _unit(th):
    return np.sin(th), np.cos(th)                         # the paper's (e2, e3) components


def face_point(J: Journal, rhs, g):
    """``(u, state)``: the radial loads ``u`` (4) with the axial load ``g`` [N] on a face, and which
    contact state holds (Qi, Luo & Huang (2009) §3, written here from their equations):

    * ``"tilted"``: the face point at the azimuth ``theta3`` of their eq. 36, ``sin theta3 = (sin
      theta2 - sin theta1) / sqrt(2 - 2 cos(theta2 - theta1))`` (cos alike), ``theta_k`` the
      azimuths of the radial loads: a root in ``theta3`` of ``theta3(u(theta3)) - theta3`` (``u``
      linear in the face point), found by a scan of the circle and ``brentq``;
    * ``"flush"``: eq. 36 is 0/0 for an untilted journal (``theta1 = theta2``); both ends along one
      azimuth ``theta`` with the face point ``nu (e1 x n)``, ``|nu| <= 1`` (the limit of eq. 36,
      the engine's reading of this case, ``workbench/spatial/axial_contact.py``); or one end alone
      with the face point ``nu (e1 x n) + sigma n`` inside the rim.  For a trial ``theta`` the
      equations are linear in the other three unknowns: ``theta`` is a root of the determinant of
      the 4 x 4 system with its right-hand side (scan and ``brentq``), then the signs are checked;
    * ``"roundoff"`` (``g`` at most :data:`ROUNDOFF` of the radial loads, or zero), ``"none"`` (no
      state holds): the radial loads without the face's moment.

    The full scan takes the flush states first (both ends, then one end alone), then the tilted one
    (the reading's priority).  A journal with a slot first continues its last state: the same
    scalar equation (the determinant of that flush mode, or the eq. 36 residual) solved by
    ``brentq`` in a small bracket round the last azimuth, the same sign checks, and the state kept
    only when it lies at least :data:`MARGIN` (:data:`ALONG_MIN` for the tilt) inside its kind, where
    no other kind takes over by continuity; otherwise, or when the local solve fails, the full scan.
    :data:`AUDIT` checks that both agree."""
    u0 = np.linalg.solve(J.A, rhs)
    if abs(g) <= ROUNDOFF * (math.hypot(u0[0], u0[1]) + math.hypot(u0[2], u0[3])):
        return u0, "roundoff"
    scale = float(np.abs(rhs).max()) + abs(g)
    fsum = math.hypot(u0[0], u0[1]) + math.hypot(u0[2], u0[3]) + abs(g)
    P2, P3 = J.face(g, J.e2), J.face(g, J.e3)     # the face load's wrench is linear in its point
    last = _LAST.get(J.slot) if (CONTINUE and J.slot is not None) else None
    found = None
    if last is not None:
        found = _continued(J, rhs, scale, fsum, P2, P3, last, g)
        if found is not None and AUDIT is not None:
            full = _scan(J, rhs, g, scale, P2, P3)
            AUDIT.append((found[1], found[0], "none" if full is None else full[1],
                          u0 if full is None else full[0], fsum))
    if found is None:
        found = _scan(J, rhs, g, scale, P2, P3)
        CALLS["scanned"] = CALLS.get("scanned", 0) + 1
    else:
        CALLS["continued"] = CALLS.get("continued", 0) + 1
    if J.slot is not None:
        _LAST[J.slot] = None if found is None else found[2] + (g > 0,)
    state = "none" if found is None else found[1]
    STATES[state] = STATES.get(state, 0) + 1
    return (u0 if found is None else found[0]), state


def _scan(J, rhs, g, scale, P2, P3):
    """The full scan: ``(u, kind, (kind, mode, azimuth))`` or None."""
    for grid in (_GRID, _FINE):
        found = _flush(J, rhs, scale, P2, P3, grid)
        if found is None:
            found = _tilted(J, rhs, scale, P2, P3, grid)
        if found is not None:
            return found
    return None


def _roots(h, values, grid=_GRID, keep=lambda th: True):
    """Roots of the continuous scalar ``h`` (``values`` on ``grid``) on the circle: sign changes
    between grid points, refined by ``brentq`` (``keep``: a cheap test at the bracket whether the
    root is worth it)."""
    v = values
    out = []
    for i in np.flatnonzero((v[:-1] * v[1:] < 0) | (v[:-1] == 0.0)):
        a, b = grid[i], grid[i + 1]
        if v[i] == 0.0:
            out.append(a)
        elif keep(0.5 * (a + b)):
            out.append(brentq(h, a, b, xtol=1e-15, rtol=1e-15))
    return out


def _local_root(h, th0, steps=(1e-3, 1e-2, 0.05, 0.2)):
    """A root of ``h`` next to ``th0`` (brackets widening round it, ``brentq``), or None."""
    h0 = h(th0)
    if h0 == 0.0:
        return th0
    for d in steps:
        ha = h(th0 - d)
        if ha * h0 < 0:
            return brentq(h, th0 - d, th0, xtol=1e-15, rtol=1e-15)
        hb = h(th0 + d)
        if hb * h0 < 0:
            return brentq(h, th0, th0 + d, xtol=1e-15, rtol=1e-15)
    return None


_MODES = ("both", "end 2", "end 1")
_SLACK = 1e-9


def _flush_system(J, rhs, scale, P2, P3, mode):
    """``(det, solve, valid)`` of one flush mode: the determinant of the system with its right-hand
    side at azimuths ``th`` (an array: batched), its least-squares solve at one ``th`` (``(x,
    residual)``), and the sign test of a solution."""
    c1, c2 = J.A[:, 0:2], J.A[:, 2:4]
    # the three columns are linear in (sin th, cos th): C(th) = sin th CX + cos th CY; the unknowns
    # (F1, F2, nu) with n3 = nu (e1 x n), or (F, nu, sigma) with n3 = nu (e1 x n) + sigma n for one
    # end alone; e1 x n = -cos th e2 + sin th e3
    z = np.zeros(4)
    # columns at th = pi/2 (n = e2, e1 x n = e3) and th = 0 (n = e3, e1 x n = -e2)
    if mode == "both":
        CX, CY = np.column_stack((c1[:, 0], c2[:, 0], P3)), np.column_stack((c1[:, 1], c2[:, 1], -P2))
    else:
        ck = c2 if mode == "end 2" else c1
        CX, CY = np.column_stack((ck[:, 0], P3, P2)), np.column_stack((ck[:, 1], -P2, P3))
    MX, MY = np.column_stack((CX, z)), np.column_stack((CY, z))
    M0 = np.column_stack((np.zeros((4, 3)), rhs))

    def det(th):
        s, co = _unit(th)
        if np.ndim(th) == 0:
            return np.linalg.det(s * MX + co * MY + M0) / scale ** 4
        return np.linalg.det(np.multiply.outer(s, MX) + np.multiply.outer(co, MY) + M0) / scale ** 4

    def solve(th):
        s, co = _unit(th)
        C = s * CX + co * CY
        x, *_ = np.linalg.lstsq(C, rhs, rcond=None)
        return x, float(np.abs(C @ x - rhs).max())

    def valid(x, res, tol, sl=_SLACK):
        """The signs (to the slack ``sl``) with the residual within ``tol`` of the scale."""
        if res > tol * scale:
            return False
        if mode == "both":
            return min(x[0], x[1]) >= -sl * scale and abs(x[2]) <= 1 + sl
        return x[0] >= -sl * scale and math.hypot(x[1], x[2]) <= 1 + sl

    return det, solve, valid


def _flush_u(mode, x, th):
    s, co = _unit(th)
    F1, F2 = {"both": (x[0], x[1]), "end 2": (0.0, x[0]), "end 1": (x[0], 0.0)}[mode]
    F1, F2 = max(F1, 0.0), max(F2, 0.0)
    return np.array([F1 * s, F1 * co, F2 * s, F2 * co])


def _flush_possible(J: Journal, rhs, scale, P2, P3, modes):
    """Whether the scan of :func:`_flush` on :data:`_GRID` would refine a root in one of ``modes``:
    a sign change of its determinant whose bracket passes the loose test (the scan's own ``keep``)."""
    for mode in modes:
        det, solve, valid = _flush_system(J, rhs, scale, P2, P3, mode)
        v = det(_GRID)
        for i in np.flatnonzero((v[:-1] * v[1:] < 0) | (v[:-1] == 0.0)):
            if v[i] == 0.0 or valid(*solve(0.5 * (_GRID[i] + _GRID[i + 1])), 0.2, 0.2):
                return True
    return False


def _flush(J: Journal, rhs, scale, P2, P3, grid, modes=_MODES):
    for mode in modes:
        det, solve, valid = _flush_system(J, rhs, scale, P2, P3, mode)
        # the determinant on the whole grid at once (batched), then the brackets refined
        for th in _roots(det, det(grid), grid, keep=lambda th: valid(*solve(th), 0.2, 0.2)):
            x, res = solve(th)
            if valid(x, res, 1e-9):
                return _flush_u(mode, x, th), "flush", ("flush", mode, th)
    return None


def _tilted_system(J, rhs, P2, P3):
    """``(u_of, diff, resid)`` of the tilted state: the radial loads with the face point at
    ``theta3`` (arrays of ``theta3``: batched), ``n2 - n1`` of loads ``u``, the residual of eq. 36."""
    Ainv = J.Ainv

    def u_of(th3):
        s, co = _unit(th3)
        if np.ndim(th3) == 0:
            return Ainv @ (rhs - s * P2 - co * P3)
        return Ainv @ (rhs[:, None] - np.multiply.outer(P2, s) - np.multiply.outer(P3, co))

    def diff(u):
        """``n2 - n1`` in (e2, e3) from the azimuths of the radial loads: the numerator of eq. 36."""
        t1, t2 = np.arctan2(u[0], u[1]), np.arctan2(u[2], u[3])
        return np.sin(t2) - np.sin(t1), np.cos(t2) - np.cos(t1)

    def resid(th3):
        # eq. 36 asks n2 - n1 along n3 = (sin th3, cos th3): its component across n3 vanishes (a
        # smooth function of th3, also where the tilt n2 - n1 passes through zero), and along n3
        # it is positive (checked at the root)
        d2, d3 = diff(u_of(th3))
        return d2 * np.cos(th3) - d3 * np.sin(th3)

    return u_of, diff, resid


def _tilted_check(u_of, diff, resid, th3):
    """``(along, u)`` when ``theta3`` is a tilted state (``n2 - n1`` along ``n3`` to 1e-6 rad), else None."""
    u = u_of(th3)
    d2, d3 = diff(u)
    s3, c3 = _unit(th3)
    along = d2 * s3 + d3 * c3            # = |n2 - n1| = sqrt(2 - 2 cos(theta2 - theta1)) at a root
    if along <= 0.0 or abs(resid(th3)) > 1e-6 * along:
        return None
    return along, u


def _half(u_of, th_m, sgn):
    """Eq. 36 in half angles (arrays of ``th_m``): ``(theta_m(u) - theta_m, D)`` with the face point
    ``n3 = sgn (cos theta_m, -sin theta_m)``, ``D = theta2 - theta1`` (both wrapped to ``(-pi, pi]``)."""
    u = u_of(np.arctan2(sgn * np.cos(th_m), -sgn * np.sin(th_m)))
    t1, t2 = np.arctan2(u[0], u[1]), np.arctan2(u[2], u[3])
    D = _wrap(t2 - t1)
    return _wrap(t1 + 0.5 * D - th_m), D


def _wrap(x):
    """``x`` wrapped to ``[-pi, pi]`` (``math.remainder`` by 2 pi; arrays too)."""
    if np.ndim(x) == 0:
        return math.remainder(x, 2 * math.pi)
    return x - 2 * math.pi * np.round(x / (2 * math.pi))


def _tilted(J: Journal, rhs, scale, P2, P3, grid):
    u_of, diff, resid = _tilted_system(J, rhs, P2, P3)
    # the residual on the whole grid at once
    cands = list(_roots(resid, resid(grid), grid))

    # near the flush state (tilt D = theta2 - theta1 -> 0) the root above sits next to the root
    # n2 = n1 of the same residual, often in one grid cell: eq. 36 in half angles, n3 = sgn(D)
    # (cos theta_m, -sin theta_m) with theta_m = (theta1 + theta2)/2, is smooth there for a given
    # sign of D; a root in theta_m of theta_m(u) - theta_m for each sign, the sign then checked
    for sgn in (1.0, -1.0):
        hv = _half(u_of, grid, sgn)[0]
        hv = np.where(np.abs(hv) < 1.0, hv, np.nan)     # the jumps of theta_m(u) by pi: no roots
        for th_m in _roots(lambda t, sgn=sgn: _half(u_of, t, sgn)[0], hv, grid):
            if _half(u_of, th_m, sgn)[1] * sgn > 0:
                cands.append(math.atan2(sgn * math.cos(th_m), -sgn * math.sin(th_m)))
    best = None
    for th3 in cands:
        ok = _tilted_check(u_of, diff, resid, th3)
        if ok is not None and (best is None or ok[0] < best[0]):   # several (seen only with friction): the least tilted
            best = (ok[0], ok[1], th3)
    return None if best is None else (best[1], "tilted", ("tilted", None, best[2]))


def _continued(J, rhs, scale, fsum, P2, P3, last, g):
    """The last state's kind continued from its azimuth (:func:`face_point`): ``(u, kind, last)`` or None."""
    kind, mode, th0, left = last
    if kind == "tilted" and left != (g > 0):
        # the axial load changed faces: the face load's moment across the axis turned, and so did
        # the tilt, n3 -> about -n3: continued from the opposite azimuth
        th0 = th0 + math.pi if th0 < 0 else th0 - math.pi
    if kind == "flush":
        det, solve, valid = _flush_system(J, rhs, scale, P2, P3, mode)
        th = _local_root(det, th0)
        if th is None:
            return None
        x, res = solve(th)
        if not valid(x, res, 1e-9):
            return None
        inside = (min(x[0], x[1]) >= MARGIN * fsum and abs(x[2]) <= 1 - MARGIN if mode == "both"
                  else x[0] >= MARGIN * fsum and math.hypot(x[1], x[2]) <= 1 - MARGIN and abs(x[2]) >= MARGIN)
        # a mode the scan tries first may hold elsewhere on the circle (both ends and one end alone
        # coexist at azimuths apart): the scan's own search in those modes first
        if not inside or _flush(J, rhs, scale, P2, P3, _GRID, _MODES[:_MODES.index(mode)]) is not None:
            return None
        return _flush_u(mode, x, th), "flush", ("flush", mode, th)
    u_of, diff, resid = _tilted_system(J, rhs, P2, P3)
    th = _local_root(resid, th0)
    if th is None:
        return None
    ok = _tilted_check(u_of, diff, resid, th)
    if ok is None or ok[0] < ALONG_MIN:
        return None
    u = ok[1]
    if min(math.hypot(u[0], u[1]), math.hypot(u[2], u[3])) < MARGIN * fsum:
        return None
    if _flush_possible(J, rhs, scale, P2, P3, _MODES):    # the scan may take a flush state first
        return None
    return u, "tilted", ("tilted", None, th)


def stuck_load(F, M, e1, e2, e3, m_needed, R, c, slot=None):
    """``N`` [N] of a stuck journal carrying the friction moment ``m_needed``: the fixed point of
    ``N = N(k)``, ``k = m / (R N)`` (0 when the iteration collapses: no load carries it; ``slot``
    as :func:`journal_load`)."""
    N = journal_load(F, M, e1, e2, e3, 0.0, R, c, slot)
    for _ in range(500):
        if not N > 1e-9 * abs(m_needed) / R:
            return 0.0      # the needed moment exceeds what any load could carry: no stick
        N1 = journal_load(F, M, e1, e2, e3, m_needed / (R * N), R, c, slot)
        if abs(N1 - N) <= 1e-15 * N1:
            return N1
        N = N1
    return N


def loads(bar: UBar, phi, dphi, ddphi, k1=None, journal2=True):
    """``(m1, m2, N1, N2, margin2)`` at a state: ``k1`` journal 1's coefficient when it slips (None:
    stuck, its ``N1`` the fixed point with the needed moment); ``journal2 = False``: ``N2`` and the
    margin not computed (NaN)."""
    F, M, (a, b, n) = joint_wrench(bar, phi, dphi, ddphi)
    m1, m2 = M @ a, M @ b
    # journal 1: axis a, across (b, n), with m2 about b and M.n about n; journal 2: axis b, across (n, a)
    M1 = m2 * b + (M @ n) * n
    M2 = (M @ n) * n + m1 * a
    N1 = (journal_load(F, M1, a, b, n, k1, bar.R1, bar.c1, 1) if k1 is not None
          else stuck_load(F, M1, a, b, n, m1, bar.R1, bar.c1, 1))
    if not journal2:
        return m1, m2, N1, math.nan, math.nan
    N2 = stuck_load(F, M2, b, n, a, m2, bar.R2, bar.c2, 2)
    return m1, m2, N1, N2, bar.mu * N2 - abs(m2) / bar.R2


def acceleration(bar: UBar, phi, dphi, sgn):
    """``phi_dd`` [rad/s^2] with journal 1 slipping (direction ``sgn``)."""
    k1 = -bar.mu * sgn

    def h(dd):
        F, M, (a, b, n) = joint_wrench(bar, phi, dphi, dd)
        return M @ a - k1 * bar.R1 * loads(bar, phi, dphi, dd, k1, journal2=False)[2]

    return brentq(h, -1e3, 1e3, xtol=1e-14, rtol=1e-15)


def solve(bar: UBar, phi0: float, T: float, t_eval, rtol=1e-11, atol=1e-12) -> dict:
    """From rest at ``phi0`` [rad] to ``T`` [s]; samples at ``t_eval``: ``phi``, ``dissipated`` [J],
    ``m1``, ``m2`` [N m], ``N1``, ``N2`` [N], the smallest journal-2 margin [N] and the events
    ``(time, kind)`` of journal 1 (``rest_slip``, ``stick_start``)."""
    t_eval = np.asarray(t_eval, float)
    reset()
    events, t, y = [], 0.0, np.array([phi0, 0.0, 0.0])
    out_t, out_y, out_s, stuck = [], [], [], False   # samples: time, state, slip direction (0: stuck)
    sgn = 0.0
    while True:
        # journal 1 at rest: its stick test with the bar locked
        m1, m2, N1, N2, marg2 = loads(bar, y[0], 0.0, 0.0)
        if abs(m1) <= bar.mu * bar.R1 * N1:
            events.append((t, "stick_start"))
            stuck = True
            break
        sgn = -math.copysign(1.0, m1)          # it slips the way the needed moment resists
        events.append((t, "rest_slip"))
        if loads(bar, y[0], 0.0, acceleration(bar, y[0], 0.0, sgn), -bar.mu * sgn)[4] < 0:
            raise RuntimeError("journal 2 would slip: outside what this reference covers")

        def f(tt, yy, sgn=sgn):
            dd = acceleration(bar, yy[0], yy[1] if abs(yy[1]) > 0 else 0.0, sgn)
            return [yy[1], dd, bar.mu * bar.R1 * loads(bar, yy[0], yy[1], dd, -bar.mu * sgn, journal2=False)[2] * abs(yy[1])]

        def ev(tt, yy, sgn=sgn):
            return sgn * yy[1]
        ev.terminal, ev.direction = True, -1
        te = t_eval[(t_eval > t) & (t_eval <= T)] if t > 0 else t_eval[(t_eval >= t) & (t_eval <= T)]
        r = solve_ivp(f, (t, T), y, method="DOP853", t_eval=te, events=ev, rtol=rtol, atol=atol)
        out_t += list(r.t)
        out_y += list(r.y.T)
        out_s += [sgn] * len(r.t)
        if r.status == 0:
            break
        t, y = float(r.t_events[0][0]), r.y_events[0][0].copy()
        y[1] = 0.0
    if stuck:
        te = t_eval[(t_eval >= t) & (t_eval <= T)]
        out_t += list(te)
        out_y += [y] * len(te)
        out_s += [0.0] * len(te)
    tt, Y, S = np.array(out_t), np.array(out_y), np.array(out_s)
    order = np.argsort(tt, kind="stable")
    tt, Y, S = tt[order], Y[order], S[order]
    rec = []
    for k in range(len(tt)):
        phi, dphi = Y[k, 0], Y[k, 1]
        if S[k] != 0.0:          # slipping (from rest at the start of a slip phase: its direction)
            s = math.copysign(1.0, dphi) if dphi != 0.0 else S[k]
            rec.append(loads(bar, phi, dphi, acceleration(bar, phi, dphi, s), -bar.mu * s))
        else:
            rec.append(loads(bar, phi, 0.0, 0.0))
    rec = np.array(rec)
    if rec[:, 4].min() < 0:
        raise RuntimeError("journal 2 would slip: outside what this reference covers")
    return {"t": tt, "phi": Y[:, 0], "dphi": Y[:, 1], "dissipated": Y[:, 2], "m1": rec[:, 0], "m2": rec[:, 1],
            "N1": rec[:, 2], "N2": rec[:, 3], "margin2": rec[:, 4].min(), "events": events}
