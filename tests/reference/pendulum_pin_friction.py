"""Independent reference: a physical pendulum with set-valued Coulomb friction in its pin.

Written in the pendulum's one coordinate (the rod angle ``phi`` from +x, centre of mass at
``l (cos phi, sin phi)`` from the pivot), from Newton-Euler, without the workbench:

* moment about the fixed pivot: ``J_O phi'' = -m g l cos(phi) + M_f`` with ``J_O = J_c + m l^2``
  (gravity along -y);
* the pin force on the rod from the centre of mass's motion: ``lambda = m a_c - m (0, -g)`` with
  ``a_c = l (-sin phi phi'' - cos phi phi'^2, cos phi phi'' - sin phi phi'^2)``;
* the friction circle (Qi, Luo & Huang (2009) eq. 53, planar): in slip ``M_f = -mu r |lambda| sgn(phi')``;
  at rest the pendulum sticks when the moment needed to hold it, ``m g l cos(phi)`` (with
  ``phi'' = 0`` the pin force is the weight, ``|lambda| = m g``), is at most ``mu_s r m g``: the
  rest condition ``|cos phi| <= mu_s r / l``.

In slip ``|lambda|`` depends on ``phi''`` and ``phi''`` on ``|lambda|``: the two equations are solved
for ``phi''`` by a scalar root finder (brentq) at every right-hand side.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq


@dataclass(frozen=True)
class Pendulum:
    m: float = 2.0          # kg
    l: float = 0.25         # m, pivot to centre of mass
    Jc: float = 2.0 * 0.5 ** 2 / 12   # kg m^2, about the centre of mass
    g: float = 9.81         # m/s^2
    r: float = 0.05         # m, pin radius
    mu: float = 0.3         # 1
    mu_s: float = 0.35      # 1

    @property
    def JO(self) -> float:
        return self.Jc + self.m * self.l ** 2

    def load(self, phi, w, a) -> float:
        """``|lambda|`` [N] at angle, rate and angular acceleration ``a``."""
        ax = self.l * (-math.sin(phi) * a - math.cos(phi) * w * w)
        ay = self.l * (math.cos(phi) * a - math.sin(phi) * w * w)
        return math.hypot(self.m * ax, self.m * (ay + self.g))

    def accel(self, phi, w) -> float:
        """``phi''`` [rad/s^2] in slip with direction ``sgn(w)``."""
        s = math.copysign(1.0, w)

        def res(a):
            return self.JO * a + self.m * self.g * self.l * math.cos(phi) + s * self.mu * self.r * self.load(phi, w, a)
        a0 = -self.m * self.g * self.l * math.cos(phi) / self.JO
        span = 10.0 * (abs(a0) + self.l * w * w + self.g / self.l)
        return brentq(res, a0 - span, a0 + span, xtol=1e-15, rtol=1e-15)

    def sticks(self, phi) -> bool:
        return abs(math.cos(phi)) <= self.mu_s * self.r / self.l


def solve(p: Pendulum, phi0: float, t_end: float, rtol=1e-12, atol=1e-13):
    """Reversal times and angles ``[(t, phi)]`` until the pendulum sticks (or ``t_end``), and the
    time it comes to rest (``None``: still swinging).  Released from rest at ``phi0``."""
    if p.sticks(phi0):
        return [], 0.0
    t, y = 0.0, np.array([phi0, 0.0])
    # from rest it slides the way gravity pulls: the sign of the moment -m g l cos(phi)
    s = -math.copysign(1.0, math.cos(phi0))
    out = []
    while t < t_end:
        def f(tt, yy, s=s):
            w = yy[1] if yy[1] != 0.0 else s * 1e-300
            return [yy[1], p.accel(yy[0], w)]

        def rev(tt, yy, s=s):
            return s * yy[1] if tt > t else 1.0
        rev.terminal, rev.direction = True, -1
        sol = solve_ivp(f, (t, t_end), y, method="DOP853", rtol=rtol, atol=atol, events=rev)
        if sol.status != 1:
            return out, None
        t, y = float(sol.t_events[0][0]), sol.y_events[0][0].copy()
        y[1] = 0.0
        out.append((t, float(y[0])))
        if p.sticks(y[0]):
            return out, t
        s = -s
    return out, None
