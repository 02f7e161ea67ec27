"""An independent Newton-Euler solution of the crank-rocker of Wang, Wang & Zhuang (their Fig. 2).

Written without the workbench's solver, as the oracle of the frictional translational-joint
tests.  Mechanism (their §4): the rocker OA turns about the fixed pivot O, the crank O1B about
the fixed pivot O1 with ``|O O1| = L4``; the slider B, a particle of mass ``m3`` pinned to the
crank at ``L3`` from O1, slides along the rocker with Coulomb friction (kinetic ``mu``, static
``mu0``).  The generalised coordinates are the angles ``theta1`` (rocker) and ``theta2`` (crank),
both measured from the vertical y axis towards x.

Geometry (our reading of their Fig. 2, stated): O is the origin and O1 = (0, L4) lies on the
vertical through O, so B = (L3 sin theta2, L4 + L3 cos theta2), the distance ``r = |OB|`` and
``theta1 = atan2(B_x, B_y)``.  With L4 > L3 the crank turns fully and the rocker swings
(theta1 = 0 at theta2 = 0 and pi).  Gravity ``g`` acts along -y (the paper's data gives no g;
the driven example's motion is kinematic and g changes only the forces).

Equations (virtual work on each rigid body, unit vectors e = (sin th, cos th) along a link and
t = de/dth = (cos th, -sin th) across it; lambda = the rocker's normal force on the slider along
t1, Ff = its friction force along e1):

    rocker:          J1 th1'' = -c th1' + m1 g L1 sin th1 - lambda r
    crank + slider:  (J2 + m3 L3^2) th2'' = tau + (m2 L2 + m3 L3) g sin th2
                                           + L3 (lambda cos(g12) - Ff sin(g12)),   g12 = th2 - th1

(the friction acts along the rocker through O, so it has no moment on the rocker), with
kinematics ``th1 = f(th2)``, ``f' = L3 (L3 + L4 cos th2) / r^2``,
``f'' = -L3 L4 (L4^2 - L3^2) sin th2 / r^4``, and slip speed ``r' = -L3 L4 sin th2 th2' / r``.
Sliding: ``Ff = -mu |lambda| sgn(r')``; sticking (``r' = 0`` with zero relative acceleration):
``|Ff| <= mu0 |lambda|``.

* :func:`driven` -- crank at constant speed (the paper's example, zero degrees of freedom):
  lambda from the rocker's equation, Ff from the slip direction, the driving moment ``tau`` from
  the crank's; closed-form expressions at each instant.
* :func:`free` -- the crank released (one degree of freedom), integrated with scipy's DOP853
  between events (slip reversal at theta2 = 0 or pi, and turning points theta2' = 0, where the
  static friction decides stick or slip).  Stick ends the motion: nothing else drives it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp


@dataclass(frozen=True)
class CrankRocker:
    """Data of Wang, Wang & Zhuang §4 (SI units)."""
    J1: float = 16.0 / 3.0   # kg m^2, rocker about O
    m1: float = 4.0          # kg
    L1: float = 1.0          # m, O to the rocker's centre of mass
    J2: float = 1.0 / 6.0    # kg m^2, crank about O1
    m2: float = 2.0          # kg
    L2: float = 0.25         # m, O1 to the crank's centre of mass
    m3: float = 0.5          # kg, slider (particle)
    L3: float = 0.5          # m, O1 to the slider
    L4: float = 1.0          # m, |O O1|
    mu: float = 0.2          # kinetic friction coefficient [-]
    mu0: float = 0.2         # static friction coefficient [-]
    c: float = 0.0           # N m s/rad, rocker damper
    g: float = 0.0           # m/s^2, gravity along -y

    def kinematics(self, th2):
        """theta1, f' = dtheta1/dtheta2, f'', r, dr/dtheta2 at crank angle(s) th2 [rad]."""
        L3, L4 = self.L3, self.L4
        s, c = np.sin(th2), np.cos(th2)
        r2 = L4 * L4 + L3 * L3 + 2.0 * L3 * L4 * c
        r = np.sqrt(r2)
        th1 = np.arctan2(L3 * s, L4 + L3 * c)
        f1 = L3 * (L3 + L4 * c) / r2
        f2 = -L3 * L4 * (L4 * L4 - L3 * L3) * s / (r2 * r2)
        dr = -L3 * L4 * s / r
        return th1, f1, f2, r, dr


@dataclass
class DrivenSolution:
    """Driven-crank result on the crank angles ``theta2`` [rad]."""
    theta2: np.ndarray
    theta1: np.ndarray          # rad
    theta1_dot: np.ndarray      # rad/s
    theta1_ddot: np.ndarray     # rad/s^2
    normal_force: np.ndarray    # N, lambda (along t1, on the slider)
    friction_force: np.ndarray  # N, Ff (along e1, on the slider)
    slip_velocity: np.ndarray   # m/s, r'
    driving_moment: np.ndarray  # N m, tau


def driven(m: CrankRocker, omega: float, theta2: np.ndarray, *, slip_sign=None) -> DrivenSolution:
    """The crank turning at ``omega`` [rad/s]: forces at the crank angles ``theta2`` [rad].

    ``slip_sign`` overrides ``sgn(r')`` (used at the reversal instants theta2 = 0, pi, where the
    friction jumps between its two one-sided values).
    """
    th2 = np.asarray(theta2, dtype=float)
    th1, f1, f2, r, dr = m.kinematics(th2)
    th1d = f1 * omega
    th1dd = f2 * omega * omega
    lam = (-m.J1 * th1dd - m.c * th1d + m.m1 * m.g * m.L1 * np.sin(th1)) / r
    vr = dr * omega
    sgn = np.sign(vr) if slip_sign is None else np.broadcast_to(slip_sign, th2.shape)
    ff = -m.mu * np.abs(lam) * sgn
    gam = th2 - th1
    tau = -(m.m2 * m.L2 + m.m3 * m.L3) * m.g * np.sin(th2) - m.L3 * (lam * np.cos(gam) - ff * np.sin(gam))
    return DrivenSolution(th2, th1, th1d, th1dd, lam, ff, vr, tau)


def _slip_accel(m: CrankRocker, th2: float, w2: float, s: float):
    """theta2'' and lambda while sliding with friction sign ``s`` = sgn(r'); every consistent pair.

    The two equations are linear in (theta2'', lambda) once the sign of lambda is fixed; both
    signs are tried and the consistent solutions returned (none or two: Painleve's paradox).
    """
    th1, f1, f2, r, dr = m.kinematics(th2)
    gam = th2 - th1
    Jc = m.J2 + m.m3 * m.L3 ** 2
    out = []
    for sl in (1.0, -1.0):
        # Ff = -mu |lambda| s = -mu sl s lambda
        k = -m.mu * sl * s
        # rocker:  J1 (f2 w2^2 + f1 a) + c f1 w2 - m1 g L1 sin th1 + r lambda = 0
        # crank:   Jc a - G - L3 (cos gam - k sin gam) lambda = 0
        A = np.array([[m.J1 * f1, r], [Jc, -m.L3 * (math.cos(gam) - k * math.sin(gam))]])
        b = np.array([-m.J1 * f2 * w2 * w2 - m.c * f1 * w2 + m.m1 * m.g * m.L1 * math.sin(th1),
                      (m.m2 * m.L2 + m.m3 * m.L3) * m.g * math.sin(th2)])
        a, lam = np.linalg.solve(A, b)
        if sl * lam >= 0.0:
            out.append((a, lam))
    return out


@dataclass
class FreeSolution:
    """Free-crank result: dense samples and the event list."""
    t: np.ndarray
    theta2: np.ndarray
    theta2_dot: np.ndarray
    events: list = field(default_factory=list)   # (time [s], kind, theta2 [rad])
    stuck_at: float | None = None                # s, when the motion stopped by sticking


def free(m: CrankRocker, theta2_0: float, omega_0: float, t_end: float, *, rtol: float = 1e-11,
         atol: float = 1e-12, samples: int = 2001) -> FreeSolution:
    """The crank released at ``theta2_0`` [rad] with speed ``omega_0`` [rad/s], up to ``t_end`` [s]."""
    t_out = np.linspace(0.0, t_end, samples)
    ts, th, wd = [], [], []
    events = []
    t0, y0 = 0.0, np.array([theta2_0, omega_0])
    stuck = None
    while t0 < t_end:
        th2, w2 = y0
        th1, f1, f2, r, dr = m.kinematics(th2)
        rev_dir, turn_dir = 0, 0
        if w2 == 0.0:
            # At rest: stick if static friction can hold it (Coulomb's set-valued law).
            gam = th2 - th1
            lam = m.m1 * m.g * m.L1 * math.sin(th1) / r
            G = (m.m2 * m.L2 + m.m3 * m.L3) * m.g * math.sin(th2)
            sg = math.sin(gam)
            ff_needed = (G + m.L3 * lam * math.cos(gam)) / (m.L3 * sg) if sg else math.inf
            if abs(ff_needed) <= m.mu0 * abs(lam):
                stuck = t0
                events.append((t0, "stick", float(th2)))
                break
            # Slip starts in the direction whose friction opposes it (r'' and s agree).
            cands = [(s, a) for s in (1.0, -1.0) for a, _ in _slip_accel(m, th2, 0.0, s)
                     if s * dr * a > 0.0]
            if not cands:
                raise RuntimeError(f"no consistent slip onset at t = {t0} s, theta2 = {th2} rad")
            s, a0 = cands[0]
            turn_dir = -int(math.copysign(1.0, a0))     # the next turning point: theta2' back to 0
            events.append((t0, "slip" if t0 == 0.0 else "stick->slip", float(th2)))
        elif abs(math.sin(th2)) < 1e-12:
            # A slip reversal (r' = 0 at theta2 = 0, pi): just after it r' ~ (d^2 r/dtheta2^2) w2^2 dt.
            s = math.copysign(1.0, -math.cos(th2))
            rev_dir = -int(math.copysign(1.0, math.cos(th2) * w2))
        else:
            s = math.copysign(1.0, dr * w2)

        def rhs(t, y, s=s):
            sols = _slip_accel(m, y[0], y[1], s)
            if len(sols) != 1:
                raise RuntimeError(f"{len(sols)} consistent solutions at theta2 = {y[0]} (Painleve)")
            return [y[1], sols[0][0]]

        def reversal(t, y):     # r' changes sign where sin(theta2) = 0
            return math.sin(y[0])
        reversal.terminal, reversal.direction = True, rev_dir

        def turning(t, y):      # theta2' = 0
            return y[1]
        turning.terminal, turning.direction = True, turn_dir

        sol = solve_ivp(rhs, (t0, t_end), y0, method="DOP853", rtol=rtol, atol=atol,
                        events=(reversal, turning), dense_output=True)
        sel = (t_out >= t0) & (t_out <= sol.t[-1])
        if sel.any():
            yy = sol.sol(t_out[sel])
            ts.append(t_out[sel])
            th.append(yy[0])
            wd.append(yy[1])
        if sol.status != 1:
            break
        t0 = float(sol.t[-1])
        y0 = sol.y[:, -1].copy()
        if sol.t_events[1].size:
            y0[1] = 0.0
            events.append((t0, "turning", float(y0[0])))
        else:
            y0[0] = math.pi * round(y0[0] / math.pi)
            events.append((t0, "reversal", float(y0[0])))
    if stuck is not None:
        sel = t_out > stuck
        ts.append(t_out[sel])
        th.append(np.full(sel.sum(), y0[0]))
        wd.append(np.zeros(sel.sum()))
    return FreeSolution(np.concatenate(ts), np.concatenate(th), np.concatenate(wd), events, stuck)
