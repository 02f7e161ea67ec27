"""Independent reference: the pendulum of Qi, Luo & Huang (2009) §5 on a cylindrical (or revolute)
joint with friction from the reactions, in its own minimal coordinates, without the workbench.

The bar (length ``L``, square section ``a = b``, density ``rho``) hangs by one end on a horizontal
shaft along world z through the origin; the collar at that end (the sleeve: end faces ``2c``
apart, bore radius ``R``) slides along and turns about the shaft.  Coordinates: the bar angle
``phi`` from +x (centre of mass at ``l (cos phi, sin phi, 0) + (0, 0, s)``, ``l = L/2``) and the
slide ``s`` of the collar centre along z.  Newton-Euler for the bar:

* moment about the shaft: ``J_P phi'' = -m g l cos(phi) + M_f`` (``J_P = m (L^2 + a^2)/12 + m l^2``);
* axial force: ``m s'' = F_f``;
* the contact system on the collar (force ``F`` and moment ``M`` about the collar centre ``P``)
  from the motion: ``F = m a_c - m (0, -g, 0)``; ``M_x, M_y`` from ``M = J_P phi'' e_z + m r_PC x a_P
  - r_PC x m (0, -g, 0)``, ``a_P = s'' e_z`` (the bar is symmetric about the plane z = s, so its
  inertia about P has no products with z): ``(M_x, M_y) = m l s'' (sin phi, -cos phi)``.

The friction follows Qi, Luo & Huang (2009) eqs. 12-26 (cylindrical) written here from scratch
for the shaft (the inner body): contact loads ``u_k`` (2-vectors across the axis, ``F_k = |u_k|``)
at ``P -+ c e_z + R u_k/|u_k|``, the force on the shaft at point ``k`` is ``-u_k + F_k k_s e_z +
k_r e_z x u_k``; the four equations "the across-axis force and moment of the contact system equal
those of the reaction" are assembled by evaluating that system (cross products in 3-D) on the
unit loads and solved; then ``F_f = -k_s (F1 + F2)``, ``M_f = -k_r R (F1 + F2)`` on the bar (the
shaft's are the opposite), ``k_s = -mu(v) s_in'/v``, ``k_r = -mu(v) omega_in R/v``, ``v =
sqrt(s'^2 + R^2 phi'^2)``, the shaft's motion relative to the collar ``s_in' = -s'``,
``omega_in = -phi'``, ``mu(v) = mu tanh(v/v_eps)`` (the workbench's Coulomb law, regularised).
Revolute variant: ``s`` fixed, the closed end faces carry the axial load ``g3 - g4 = -F_z`` at the
face point ``n3 = (n2 - n1)/|n2 - n1|`` (their eqs. 36-41) — in this pendulum ``F_z = 0`` so the
axial contacts carry nothing, and ``M_f = -mu(v) sgn(phi') R (F1 + F2)`` (their eq. 53).

``F_f, M_f`` depend on ``phi'', s''`` and those on ``F_f, M_f``: the two are iterated to a fixed
point (``mu = 0.1``: a contraction) at every right-hand side.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp


@dataclass(frozen=True)
class QiPendulum:
    L: float = 1.0            # m
    a: float = 0.1            # m
    rho: float = 7800.0       # kg/m^3
    g: float = 9.80665        # m/s^2
    R: float = 0.05           # m, friction radius
    c: float = 0.5            # m, half the end-face distance
    mu: float = 0.1           # 1
    v_eps: float = 1e-4       # m/s
    v0: float = 1.0           # m/s, axial initial velocity
    revolute: bool = False

    @property
    def m(self) -> float:
        return self.rho * self.L * self.a * self.a

    @property
    def l(self) -> float:
        return self.L / 2

    @property
    def JP(self) -> float:
        return self.m * (self.L ** 2 + self.a ** 2) / 12 + self.m * self.l ** 2


def _contact_loads(Fperp, Mperp, k_s, k_r, R, c):
    """u1, u2 (2-vectors, x-y) of the shaft's two contacts whose across-axis force/moment (on the
    shaft, about P) are ``Fperp``, ``Mperp``."""
    ez = np.array([0.0, 0.0, 1.0])

    def system(u):   # (Fx, Fy, Mx, My) of the two contact forces on the shaft
        F = np.zeros(3); M = np.zeros(3)
        for sgn, uk in ((-1.0, u[:2]), (1.0, u[2:])):
            U = np.array([uk[0], uk[1], 0.0])
            n = np.linalg.norm(U)
            f = -U + n * k_s * ez + k_r * np.cross(ez, U)
            pos = sgn * c * ez + (R * U / n if n > 0 else 0.0)
            F += f; M += np.cross(pos, f)
        return np.array([F[0], F[1], M[0], M[1]])

    A = np.column_stack([system(e) for e in np.eye(4)])
    u = np.linalg.solve(A, np.array([Fperp[0], Fperp[1], Mperp[0], Mperp[1]]))
    assert np.allclose(system(u), [Fperp[0], Fperp[1], Mperp[0], Mperp[1]], rtol=1e-10, atol=1e-9)
    return u


def friction(p: QiPendulum, phi, dphi, ds, Ff, Mf):
    """One pass of the loop: the bar's accelerations for friction ``(Ff, Mf)``, the contact system,
    the new friction ``(Ff, Mf)`` on the bar, and ``(F1, F2)``."""
    m, l = p.m, p.l
    ddphi = (-m * p.g * l * math.cos(phi) + Mf) / p.JP
    dds = 0.0 if p.revolute else Ff / m
    ac = l * np.array([-math.sin(phi) * ddphi - math.cos(phi) * dphi ** 2,
                       math.cos(phi) * ddphi - math.sin(phi) * dphi ** 2, 0.0])
    Fbar = m * ac - m * np.array([0.0, -p.g, 0.0])
    Mbar = m * l * dds * np.array([math.sin(phi), -math.cos(phi)])
    # on the shaft: the opposite; the shaft moves relative to the collar by -ds, -dphi
    s_in, w_in = -ds, -dphi
    v = math.hypot(s_in, p.R * w_in)
    muv = p.mu * math.tanh(v / p.v_eps)
    k_s = 0.0 if v == 0 else -muv * s_in / v
    k_r = 0.0 if v == 0 else -muv * w_in * p.R / v
    if p.revolute:
        k_s = 0.0
    u = _contact_loads(-Fbar[:2], -Mbar, k_s, k_r, p.R, p.c)
    F1, F2 = math.hypot(u[0], u[1]), math.hypot(u[2], u[3])
    return ddphi, dds, -k_s * (F1 + F2), -k_r * p.R * (F1 + F2), F1, F2


def solve_friction(p, phi, dphi, ds, tol=1e-14):
    Ff = Mf = 0.0
    for _ in range(200):
        ddphi, dds, Ff2, Mf2, F1, F2 = friction(p, phi, dphi, ds, Ff, Mf)
        done = max(abs(Ff2 - Ff), abs(Mf2 - Mf)) <= tol * (abs(Ff2) + abs(Mf2) + 1e-300)
        Ff, Mf = Ff2, Mf2
        if done:
            break
    ddphi, dds, _, _, F1, F2 = friction(p, phi, dphi, ds, Ff, Mf)
    return ddphi, dds, Ff, Mf, F1, F2


def rhs(t, y, p):
    phi, dphi, s, ds, E = y
    ddphi, dds, Ff, Mf, F1, F2 = solve_friction(p, phi, dphi, ds)
    return [dphi, ddphi, ds, dds, -(Ff * ds + Mf * dphi)]


def solve(p: QiPendulum, t_end: float, times, rtol=1e-12, atol=1e-13):
    """Samples at ``times``: dict of phi [rad], dphi [rad/s], s [m], ds [m/s], dissipated [J],
    kinetic, potential [J], friction force Ff [N] and moment Mf [N m] on the bar, loads F1, F2 [N]."""
    y0 = [0.0, 0.0, 0.0, 0.0 if p.revolute else p.v0, 0.0]
    sol = solve_ivp(rhs, (0.0, t_end), y0, method="DOP853", t_eval=times, rtol=rtol, atol=atol, args=(p,))
    assert sol.success, sol.message
    phi, dphi, s, ds, E = sol.y
    out = dict(t=sol.t, phi=phi, dphi=dphi, s=s, ds=ds, dissipated=E,
               kinetic=0.5 * p.m * ds ** 2 + 0.5 * p.JP * dphi ** 2,
               potential=p.m * p.g * p.l * np.sin(phi))
    rec = np.array([solve_friction(p, a, b, c)[2:] for a, b, c in zip(phi, dphi, ds)])
    out.update(Ff=rec[:, 0], Mf=rec[:, 1], F1=rec[:, 2], F2=rec[:, 3])
    return out
