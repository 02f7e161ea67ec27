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
Revolute variant: ``s`` fixed, the closed end faces carry the axial load ``g = |F_z|`` (their eqs.
38-41), ``M_f = -mu(v) sgn(phi') R (F1 + F2 + g)`` (their eq. 53).  Without an axial force ``F_z =
0``; with ``axial_force`` ``F_a`` [N] along +z applied on the bar at ``axial_arm`` ``e`` [m] from
``P`` along the bar, the shaft carries ``F_z = F_a`` and the bar's across-axis joint moment gains
``-e F_a (sin phi, -cos phi)``.  The face load acts at ``P -+ c e_z + R n3`` (left face for ``F_z >
0``, right face at ``-n3``) and the contact state is found here by solving each state's equations
with ``scipy.optimize.fsolve`` in world components (not the workbench's method, a cubic and a root
in an azimuth): **tilted** -- unknowns ``u1, u2``, ``n3 = (n2 - n1)/|n2 - n1|`` (their eq. 36);
**flush** -- unknowns ``F1, F2, theta, nu``: ``u_k = F_k (cos theta, sin theta)``, ``n3 = nu e_z x
n`` with ``F_k >= 0``, ``|nu| <= 1``; **flush, one end alone** -- unknowns ``F, theta, nu, sigma``:
the other end's load zero, ``n3 = nu e_z x n + sigma n`` anywhere inside the rim (the reading in
:mod:`workbench.spatial.axial_contact`).  Starts of its own: the state's solution at the previous
call (continuation along the trajectory), then the azimuths of the loads without the face moment,
of the across-axis force and of the across-axis moment, and a ring of eight.  When more than one
state holds (seen with friction, swinging back) the reading's priority takes the flush states
first; :data:`STATES` counts the states taken and how often several held, and the reference stops
when none does.

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
    axial_force: float = 0.0  # N, along +z on the bar (revolute variant)
    axial_arm: float = 0.0    # m, from P along the bar

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


def _face(Fz, n3, k_r, R, c):
    """Force and moment (about P) on the shaft of the axial load ``|Fz|`` acting at ``R n3`` of
    the left face (``Fz > 0``) or at ``-R n3`` of the right face, with its friction."""
    ez = np.array([0.0, 0.0, 1.0])
    if Fz == 0.0:
        return np.zeros(3), np.zeros(3)
    side = -1.0 if Fz > 0 else 1.0          # left face z = -c pushes the shaft towards +z
    g = abs(Fz)
    n = -side * np.array([n3[0], n3[1], 0.0])
    f = -side * g * ez + k_r * g * np.cross(ez, n)
    return f, np.cross(side * c * ez + R * n, f)


def _radial(u, k_r, R, c):
    ez = np.array([0.0, 0.0, 1.0])
    F = np.zeros(3); M = np.zeros(3)
    for sgn, uk in ((-1.0, u[:2]), (1.0, u[2:])):
        U = np.array([uk[0], uk[1], 0.0])
        n = np.linalg.norm(U)
        f = -U + k_r * np.cross(ez, U)
        F += f; M += np.cross(sgn * c * ez + (R * U / n if n > 0 else 0.0), f)
    return F, M


def _system(u, n3, Fz, k_r, R, c) -> np.ndarray:
    """``(Fx, Fy, Mx, My)`` on the shaft of the radial loads ``u`` and the face load: the sums of
    :func:`_radial` and :func:`_face` with their cross products written out (scalar arithmetic:
    ``fsolve`` calls it some 10^5 times per millisecond of the pendulum's motion)."""
    fx1, fy1 = -u[0] - k_r * u[1], -u[1] + k_r * u[0]        # -u_k + k_r e_z x u_k
    fx2, fy2 = -u[2] - k_r * u[3], -u[3] + k_r * u[2]
    Fx, Fy = fx1 + fx2, fy1 + fy2
    Mx, My = c * (fy1 - fy2), c * (fx2 - fx1)               # (-+c e_z) x f_k: the radial arm adds only M_z
    if Fz != 0.0:
        side, g = (-1.0, Fz) if Fz > 0 else (1.0, -Fz)
        nx, ny = -side * n3[0], -side * n3[1]
        fx, fy, fz = -k_r * g * ny, k_r * g * nx, -side * g
        Fx, Fy = Fx + fx, Fy + fy
        Mx += R * ny * fz - side * c * fy                   # (side c e_z + R n) x f
        My += side * c * fx - R * nx * fz
    return np.array([Fx, Fy, Mx, My])


#: the revolute reference's record of its last run (reset by :func:`solve`): how often each contact
#: state was taken, and how often more than one state was consistent (the one taken by the
#: priority of the reading, flush before tilted)
STATES: dict = {}
#: continuation: the previous solution of each state (its unknowns), the first start of the next solve
_LAST: dict = {}


def _fsolve_state(fun, starts, valid, scale):
    """The first start from which ``fsolve`` meets ``fun = 0`` to 1e-8 of ``scale`` at a ``valid``
    point; ``None`` when none does."""
    from scipy.optimize import fsolve
    for x0 in starts:
        x, info, ier, msg = fsolve(lambda x: fun(x) / scale, x0, full_output=True, xtol=1e-14)
        if np.abs(fun(x)).max() < 1e-8 * scale and valid(x):
            return x
    return None


def _revolute_contacts(Fperp, Mperp, Fz, k_r, R, c):
    """``(u, g)`` of the revolute joint under the axial load ``Fz`` on the shaft (see the module
    text): every contact state solved apart with ``fsolve`` in world components, each from its
    own starts (the previous solution of the state first: continuation along the trajectory; then
    starting rules from the loads), and taken by the priority of the reading: the flush states
    (``nu`` alone, then one end alone), then the tilted one.  Stops when no state holds."""
    target = np.array([Fperp[0], Fperp[1], Mperp[0], Mperp[1]])
    scale = np.abs(target).max() + abs(Fz)

    def resid(u, n3):
        return _system(u, n3, Fz, k_r, R, c) - target

    u0 = _contact_loads(Fperp, Mperp, 0.0, k_r, R, c)      # no face moment: the start
    F0 = np.hypot(u0[0], u0[1]), np.hypot(u0[2], u0[3])
    th0 = math.atan2(u0[1] + u0[3], u0[0] + u0[2])
    # starting azimuths of their own: the loads' mean, the across-axis force, the direction the
    # across-axis moment pushes one end (M = c e_z x u at the far end), and a ring of eight
    ring = [th0, math.atan2(Fperp[1], Fperp[0]), math.atan2(-Mperp[0], Mperp[1]), math.atan2(Mperp[0], -Mperp[1])]
    ring += list(np.linspace(-math.pi, math.pi, 8, endpoint=False))
    F_one = max(np.hypot(*Fperp), np.hypot(*Mperp) / c, 1e-3 * scale)

    def n_t(th):
        n = np.array([math.cos(th), math.sin(th)])
        return n, np.array([-n[1], n[0]])                   # n and e_z x n

    def tilt_n3(u):
        n1, n2 = u[:2] / np.linalg.norm(u[:2]), u[2:] / np.linalg.norm(u[2:])
        d = n2 - n1
        return d / np.linalg.norm(d)

    def flush(x):       # both ends along n, n3 = nu e_z x n (the limit of eq. 36)
        F1, F2, th, nu = x
        n, t = n_t(th)
        return np.concatenate([F1 * n, F2 * n]), nu * t

    def one_end(end):   # one end alone along n, n3 = nu e_z x n + sigma n anywhere inside the rim
        def state(x):
            F, th, nu, sigma = x
            n, t = n_t(th)
            u = np.concatenate([np.zeros(2), F * n] if end == 2 else [F * n, np.zeros(2)])
            return u, nu * t + sigma * n
        return state

    slack = 1e-9 * scale
    states = [
        ("flush", flush, [_LAST.get("flush")] + [[F0[0], F0[1], th, 0.0] for th in ring[:3]],
         lambda x: min(x[0], x[1]) >= -slack and abs(x[3]) <= 1 + 1e-9),
        ("flush, end 2 alone", one_end(2), [_LAST.get("flush, end 2 alone")] + [[F_one, th, 0.0, 0.0] for th in ring],
         lambda x: x[0] >= -slack and math.hypot(x[2], x[3]) <= 1 + 1e-9),
        ("flush, end 1 alone", one_end(1), [_LAST.get("flush, end 1 alone")] + [[F_one, th, 0.0, 0.0] for th in ring],
         lambda x: x[0] >= -slack and math.hypot(x[2], x[3]) <= 1 + 1e-9),
        ("tilted", None, [_LAST.get("tilted"), u0, -u0 * np.array([1, 1, -1, -1]), u0[::-1]]
         + [np.concatenate([-F0[0] * n_t(th)[0], F0[1] * n_t(th)[0]]) for th in ring[4:]],
         lambda x: min(np.hypot(x[0], x[1]), np.hypot(x[2], x[3])) > 0),
    ]
    found = []
    for name, unpack, starts, valid in states:
        starts = [x for x in starts if x is not None]
        if unpack is None:
            x = _fsolve_state(lambda x: resid(x, tilt_n3(x)), starts, valid, scale)
            if x is not None:
                found.append((name, x, x))
        else:
            x = _fsolve_state(lambda x: resid(*unpack(x)), starts, valid, scale)
            if x is not None:
                found.append((name, x, unpack(x)[0]))
    assert found, f"no contact state for {target}, {Fz}"
    name, x, u = found[0]
    _LAST[name] = np.array(x, float)
    STATES[name] = STATES.get(name, 0) + 1
    if len(found) > 1:
        STATES["several"] = STATES.get("several", 0) + 1
    return u, abs(Fz)


def friction(p: QiPendulum, phi, dphi, ds, Ff, Mf):
    """One pass of the loop: the bar's accelerations for friction ``(Ff, Mf)``, the contact system,
    the new friction ``(Ff, Mf)`` on the bar, and ``(F1, F2)``."""
    m, l = p.m, p.l
    ddphi = (-m * p.g * l * math.cos(phi) + Mf) / p.JP
    dds = 0.0 if p.revolute else Ff / m
    ac = l * np.array([-math.sin(phi) * ddphi - math.cos(phi) * dphi ** 2,
                       math.cos(phi) * ddphi - math.sin(phi) * dphi ** 2, 0.0])
    Fbar = m * ac - m * np.array([0.0, -p.g, 0.0]) - np.array([0.0, 0.0, p.axial_force])
    Mbar = (m * l * dds - p.axial_arm * p.axial_force) * np.array([math.sin(phi), -math.cos(phi)])
    # on the shaft: the opposite; the shaft moves relative to the collar by -ds, -dphi
    s_in, w_in = -ds, -dphi
    v = math.hypot(s_in, p.R * w_in)
    muv = p.mu * math.tanh(v / p.v_eps)
    k_s = 0.0 if v == 0 else -muv * s_in / v
    k_r = 0.0 if v == 0 else -muv * w_in * p.R / v
    g = 0.0
    if p.revolute:
        k_s = 0.0
    if p.revolute and p.axial_force:
        u, g = _revolute_contacts(-Fbar[:2], -Mbar, -Fbar[2], k_r, p.R, p.c)
    else:
        u = _contact_loads(-Fbar[:2], -Mbar, k_s, k_r, p.R, p.c)
    F1, F2 = math.hypot(u[0], u[1]), math.hypot(u[2], u[3])
    return ddphi, dds, -k_s * (F1 + F2), -k_r * p.R * (F1 + F2 + g), F1, F2


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
    STATES.clear(); _LAST.clear()
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
