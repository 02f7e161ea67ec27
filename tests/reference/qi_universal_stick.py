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
* Each journal's contact loads (their eqs. 55 and 58, with the axial load spread round the face:
  no moment across the axis from it): two points at ``-+c`` along the journal axis ``e1``, each
  carrying ``-u_k + k (e1 x u_k)`` (``u_k = F_k n_k`` across the axis, ``k`` the friction
  coefficient: friction moment ``k R N``); the four across-axis equations (force and moment about
  ``O``, with the other journal's moment and ``M . n`` across it) are built here numerically by
  evaluating forces and moments ``p x f`` of the two points on unit inputs (the linear map), not
  from the paper's printed matrix; ``N = |u_1| + |u_2| + |F . e1|``.
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


def journal_load(F, M, e1, e2, e3, k, R, c):
    """``N = F1 + F2 + |axial|`` [N] of a journal (axis ``e1``) carrying the force ``F`` and the
    moment ``M`` across its axis (about O) with friction coefficient ``k`` at its two points."""
    return load_of(journal_matrix(e1, e2, e3, k, c), F, M, e1, e2, e3)


def load_of(A, F, M, e1, e2, e3):
    """``N`` [N] with the journal's matrix ``A`` (:func:`journal_matrix`)."""
    rhs = np.array([F @ e2, F @ e3, M @ e2, M @ e3])
    u = np.linalg.solve(A, rhs)
    return math.hypot(u[0], u[1]) + math.hypot(u[2], u[3]) + abs(F @ e1)


def journal_matrix(e1, e2, e3, k, c):
    """The 4 x 4 map from the two points' across-axis loads ``u`` to the force and moment across
    the axis (``e2``, ``e3`` components), built numerically from the points' forces and moments."""
    def wrench(u):   # forces and moments of the two points for across-axis loads u = (u1_2, u1_3, u2_2, u2_3)
        f_tot, m_tot = np.zeros(3), np.zeros(3)
        for p, s in ((0, -1.0), (1, 1.0)):
            uk = u[2 * p] * e2 + u[2 * p + 1] * e3
            f = -uk + k * _cross(e1, uk)
            # the point: s c e1 + R n_k; R n_k x f is along e1 (the friction moment), so only the
            # axial offset enters the moment across the axis
            m = _cross(s * c * e1, f)
            f_tot += f
            m_tot += m
        return np.array([f_tot @ e2, f_tot @ e3, m_tot @ e2, m_tot @ e3])

    return np.column_stack([wrench(np.eye(4)[i]) for i in range(4)])


def stuck_load(F, M, e1, e2, e3, m_needed, R, c):
    """``N`` [N] of a stuck journal carrying the friction moment ``m_needed``: the fixed point of
    ``N = N(k)``, ``k = m / (R N)`` (0 when the iteration collapses: no load carries it)."""
    N = journal_load(F, M, e1, e2, e3, 0.0, R, c)
    for _ in range(500):
        if not N > 1e-9 * abs(m_needed) / R:
            return 0.0      # the needed moment exceeds what any load could carry: no stick
        N1 = journal_load(F, M, e1, e2, e3, m_needed / (R * N), R, c)
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
    N1 = (journal_load(F, M1, a, b, n, k1, bar.R1, bar.c1) if k1 is not None
          else stuck_load(F, M1, a, b, n, m1, bar.R1, bar.c1))
    if not journal2:
        return m1, m2, N1, math.nan, math.nan
    N2 = stuck_load(F, M2, b, n, a, m2, bar.R2, bar.c2)
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
