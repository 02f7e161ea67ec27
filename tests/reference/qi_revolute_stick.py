"""Independent reference: the Qi, Luo & Huang (2009) §5 bar on a REVOLUTE joint with set-valued
Coulomb friction, event to event, in its one coordinate, without the workbench.

The bar (mass ``m``, half-length ``l``, moment of inertia ``J_P`` about the pin) hangs by one end
on a horizontal pin along z; angle ``phi`` from +x, gravity ``-g`` along y.  No axial load, and the
bar is symmetric about its swing plane, so the joint carries no moment across the axis: the two
radial contacts of Qi, Luo & Huang (2009) eqs. 27-53 share the load equally, each contact force
being its normal load plus a friction ``k_r`` times it, so the across-axis reaction ``F`` and the
total normal load ``N = F1 + F2`` obey ``N sqrt(1 + k_r^2) = |F|`` (the friction circle; written
here from that geometry, not from the contact matrix).  Hence:

* slip (``phi' != 0``): ``k_r = mu``, ``M_f = -mu R sgn(phi') |F| / sqrt(1 + mu^2)``, with ``F = m a_c
  + m g e_y`` depending on ``phi''``: the scalar equation ``J_P phi'' = -m g l cos(phi) + M_f`` is
  solved by bisection at every call;
* stick (``phi' = 0``): ``|F| = m g``; the friction moment needed is ``M = m g l cos(phi)``, and
  ``N = sqrt(F^2 - (M/R)^2)`` (the moment ``M = k_r R N``); stick holds iff ``|M| <= mu_s R N``, i.e.
  ``|cos(phi)| <= (R / l) mu_s / sqrt(1 + mu_s^2)`` -- a stuck bar stays stuck (nothing changes);
* events: ``phi'`` through zero (``solve_ivp`` event function), then the stick test; a slip phase
  from rest goes the way gravity pulls.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp


@dataclass(frozen=True)
class Bar:
    L: float = 1.0            # m
    a: float = 0.1            # m
    rho: float = 7800.0       # kg/m^3
    g: float = 9.80665        # m/s^2
    R: float = 0.2            # m, pin (friction) radius
    mu: float = 0.5           # 1, kinetic
    mu_s: float | None = None  # 1, static (default mu)

    @property
    def m(self):
        return self.rho * self.L * self.a * self.a

    @property
    def l(self):
        return self.L / 2

    @property
    def JP(self):
        return self.m * (self.L ** 2 + self.a ** 2) / 12 + self.m * self.l ** 2

    @property
    def static(self):
        return self.mu if self.mu_s is None else self.mu_s

    def bound(self):
        """Largest ``|cos(phi)|`` [1] at which the bar can stay at rest."""
        return self.R / self.l * self.static / math.sqrt(1 + self.static ** 2)


def _reaction(b: Bar, phi, dphi, ddphi):
    ac = b.l * np.array([-math.sin(phi) * ddphi - math.cos(phi) * dphi ** 2,
                         math.cos(phi) * ddphi - math.sin(phi) * dphi ** 2])
    return float(np.hypot(*(b.m * ac + np.array([0.0, b.m * b.g]))))


def slip_acc(b: Bar, phi, dphi, sgn):
    """``(phi'', M_f, N)`` while slipping the way ``sgn``."""
    k = b.mu / math.sqrt(1 + b.mu ** 2)

    def h(x):
        return b.JP * x + b.m * b.g * b.l * math.cos(phi) + sgn * b.R * k * _reaction(b, phi, dphi, x)

    lo, hi = -1e4, 1e4
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        if h(lo) * h(mid) <= 0:
            hi = mid
        else:
            lo = mid
    x = 0.5 * (lo + hi)
    F = _reaction(b, phi, dphi, x)
    return x, -sgn * b.R * k * F, F / math.sqrt(1 + b.mu ** 2)


def solve(b: Bar, t_end, times, rtol=1e-11, atol=1e-12):
    """Samples at ``times``: ``phi`` [rad], ``dphi`` [rad/s], ``dissipated`` [J], ``Mf`` [N m] and
    the events ``(t, kind)``."""
    t, y = 0.0, np.array([0.0, 0.0, 0.0])     # phi, dphi, dissipated
    events, segs = [], []
    stuck = False
    sgn = 0.0
    while t < t_end:
        if abs(y[1]) == 0.0:
            M = b.m * b.g * b.l * math.cos(y[0])
            if abs(math.cos(y[0])) <= b.bound():
                events.append((t, "stick_start"))
                stuck = True
            else:
                sgn = -math.copysign(1.0, M)       # gravity turns it the way -M
                events.append((t, "rest_slip"))
        if stuck:
            segs.append((times[times >= t], None, y.copy()))
            break

        def f(tt, yy, sgn=sgn):
            x, Mf, _ = slip_acc(b, yy[0], yy[1], sgn)
            return [yy[1], x, -Mf * yy[1]]

        def ev(tt, yy, sgn=sgn):
            return sgn * yy[1]
        ev.terminal, ev.direction = True, -1
        te = times[(times >= t) & (times <= t_end)]
        r = solve_ivp(f, (t, t_end), y, method="DOP853", t_eval=te, rtol=rtol, atol=atol, events=ev)
        assert r.status >= 0, r.message
        segs.append((r.t, r.y.T, None))
        if r.status == 0:
            break
        t = float(r.t_events[0][0])
        y = r.y_events[0][0].copy()
        y[1] = 0.0
    ts, Y = [], []
    for tt, yy, frozen in segs:
        for k, tk in enumerate(tt):
            if ts and tk <= ts[-1]:
                continue
            ts.append(tk)
            Y.append(frozen if yy is None else yy[k])
    Y = np.array(Y)
    Mf = np.array([b.m * b.g * b.l * math.cos(p) if dp == 0.0 else slip_acc(b, p, dp, math.copysign(1.0, dp))[1]
                   for p, dp in Y[:, :2]])
    return dict(t=np.array(ts), phi=Y[:, 0], dphi=Y[:, 1], dissipated=Y[:, 2], Mf=Mf, events=events)
