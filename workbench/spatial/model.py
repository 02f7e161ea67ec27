"""A spatial mechanism compiled to arrays, and its equations of motion.

**Coordinates.**  Per moving body ``b``: position ``r_b`` [m] and Euler parameters ``p_b`` [1]
(7 numbers); velocities ``w_b = (v_b, omega'_b)``: the centre-of-mass velocity (world) [m/s] and
the angular velocity in body axes [rad/s] (6 numbers).  The state is ``y = (r, p, w, W, E)``
with two quadratures: ``W`` the work of the drivers and applied loads [J], ``E`` the energy
dissipated by friction and dampers [J].

**Equations** (Nikravesh (1988) ch. 11; Haug (1989) ch. 11): Newton-Euler with the constraint
reactions, an index-1 DAE in the augmented form

    [ M   D^T ] [ w_dot  ]   [ Q(t, q, w) + Q_f                      ]
    [ D    0  ] [ lambda ] = [ gamma - 2 alpha Phi_dot - beta^2 Phi ]

``M = diag(m_b I, J'_b)``, ``Q`` gravity, springs, applied loads and the gyroscopic moment
``-omega' x J' omega'``, ``Q_f`` the joint friction (:mod:`.joint_friction`, from ``lambda``:
a fixed point, see :meth:`Model.dynamics`), ``D = dPhi/d(w)`` the constraint Jacobian in the
velocities ``w`` (virtual rotations in body axes), ``gamma`` the velocity terms of
``Phi_ddot``, ``alpha``, ``beta`` the Baumgarte factors [1/s] (Baumgarte (1972); Wang, Chen, Ma &
Sun (2016) eq. 41: the same form as the planar engine).

**Normalisation of the Euler parameters.**  Not a constraint row: the velocities are angular
velocities, so ``p_dot = G(p)^T omega' / 2`` keeps ``|p| = 1`` exactly (``G p = 0``), and only the
integration error moves it.  That drift is (a) projected out wherever ``p`` is used (the rotation
matrix of ``p/|p|``, :func:`~.rotation.rotation_matrix`) and (b) driven back by a Baumgarte term
of the same factor, ``p_dot = G^T omega'/2 - alpha (p.p - 1) p / 2``.  Outputs report ``p/|p|``
and the largest ``| |p| - 1 |`` (``stats['quaternion_drift']``).

Constraints (Haug (1989) §9.2, the basic constraints): ``sph`` (three rows, the points coincide),
``dot1`` (a vector on body i perpendicular to one on body j), ``dot2`` (a vector on body i
perpendicular to the line between the points), and the drivers' ``angle`` and ``slide`` rows.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import MechanismError
from .mechanism import GROUND, SpatialMechanism
from .rotation import cross, g_matrix, perpendicular, rotation_matrix

#: fixed point of the joint friction: largest number of iterations, relative tolerance
FIXED_POINT_ITER = 40
FRICTION_RTOL = 1e-13
#: largest residual (relative to the friction values) the root finder may leave
FRICTION_FLOOR = 1e-10


@dataclass
class CJoint:
    """A joint as arrays: body indices (``-1`` ground), points and frames in body coordinates."""
    name: str
    type: str
    i: int
    j: int
    s_i: np.ndarray
    s_j: np.ndarray
    frame_i: np.ndarray   # rows x, y, z (z = axis), body-i coordinates
    frame_j: np.ndarray   # rows x, y, z, body-j coordinates
    rows: slice = None
    law: object = None    # f_t(v) at unit load, or None
    R: float = 0.0
    c: float = 0.0
    R2: float = 0.0
    c2: float = 0.0
    sleeve: str = "i"
    friction_index: int = -1


def _law_function(law, compiled: bool):
    """``v -> f_t(v, 1)`` of a friction plugin (its Python kernel on the reference path)."""
    if law is None:
        return None
    k = law.kernel if compiled else getattr(law.kernel, "py_func", law.kernel)
    p = law.pack()
    return lambda v: k(v, 1.0, 0.0, p)[0]


class Model:
    """The compiled mechanism: :meth:`dynamics` is the right-hand side, :meth:`constraints` the
    constraint terms."""

    def __init__(self, mech: SpatialMechanism, *, compiled_laws: bool = False):
        mech.validate()
        self.mechanism = mech
        self.names = [b.name for b in mech.bodies]
        self.nb = nb = len(mech.bodies)
        self.index = {n: k for k, n in enumerate(self.names)}
        self.index[GROUND] = -1
        self.mass = np.array([b.mass for b in mech.bodies], float)
        self.J = np.array([b.inertia_matrix() for b in mech.bodies], float)
        self.gravity = np.asarray(mech.gravity, float)
        self.A0 = np.array([rotation_matrix(b.quaternion) for b in mech.bodies] + [np.eye(3)])
        self.joints: list[CJoint] = []
        n_rows = 0
        nf = 0
        for jt in mech.joints:
            cj = self._compile_joint(jt, compiled_laws)
            k = {"spherical": 3, "revolute": 5, "cylindrical": 4, "prismatic": 5, "universal": 4, "fixed": 6}[jt.type]
            cj.rows = slice(n_rows, n_rows + k)
            n_rows += k
            if cj.law is not None:
                cj.friction_index = nf
                nf += 1
            self.joints.append(cj)
        self.n_joint_rows = n_rows
        self.drivers = []
        for d in mech.drivers:
            cj = next(c for c in self.joints if c.name == d.joint)
            self.drivers.append((cj, d.coordinate, d.function, n_rows))
            n_rows += 1
        self.n_rows = n_rows
        self.friction_joints = [c for c in self.joints if c.law is not None]
        self.nf = nf
        self.n_dof = 6 * nb
        self.n_state = 7 * nb + 6 * nb + 2
        self.springs = [(self.index[s.body_i], self._point(s.body_i, s.point_i), self.index[s.body_j],
                         self._point(s.body_j, s.point_j), s) for s in mech.spring_dampers]
        self.forces = [(self.index[f.body], self._point(f.body, f.point) if f.point else np.zeros(3),
                        np.asarray(f.force, float)) for f in mech.forces]
        self.torques = [(self.index[t.body], np.asarray(t.torque, float)) for t in mech.torques]

    # ------------------------------------------------------------------ compile
    def _point(self, body, point) -> np.ndarray:
        return np.asarray(self.mechanism.points_of(body)[point], float)

    def _compile_joint(self, jt, compiled_laws) -> CJoint:
        i, j = self.index[jt.body_i], self.index[jt.body_j]
        Ai, Aj = self.A0[i], self.A0[j]
        if jt.type == "universal":
            zi = _unit(jt.axis_i)
            zj = _unit(jt.axis_j)
            fi = _frame(zi, None)
            fj = _frame(zj, None)
        elif jt.type in ("revolute", "cylindrical", "prismatic"):
            zi = _unit(jt.axis_i)
            zj = _unit(jt.axis_j) if jt.axis_j is not None else Aj.T @ Ai @ zi
            fi = _frame(zi, jt.reference_i)
            xj = Aj.T @ Ai @ fi[0]
            fj = _frame(zj, xj)
        else:  # spherical, fixed: body i's coordinate axes, and the same carried by body j
            fi = _frame(np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]))
            fj = (Aj.T @ Ai @ fi.T).T
        return CJoint(jt.name, jt.type, i, j, self._point(jt.body_i, jt.point_i), self._point(jt.body_j, jt.point_j),
                      fi, fj, law=_law_function(jt.friction, compiled_laws), R=jt.radius, c=jt.length / 2,
                      R2=jt.radius_j, c2=jt.length_j / 2, sleeve=jt.sleeve)

    # ------------------------------------------------------------------ state
    def split(self, y):
        nb = self.nb
        r = y[:3 * nb].reshape(nb, 3)
        p = y[3 * nb:7 * nb].reshape(nb, 4)
        w = y[7 * nb:13 * nb].reshape(nb, 6)
        return r, p, w

    def kinematics(self, y):
        """World quantities with the ground appended (index -1): ``r, A, v, omega`` (world)."""
        nb = self.nb
        r, p, w = self.split(y)
        R = np.zeros((nb + 1, 3)); R[:nb] = r
        A = np.empty((nb + 1, 3, 3)); A[nb] = np.eye(3)
        for b in range(nb):
            A[b] = rotation_matrix(p[b])
        V = np.zeros((nb + 1, 3)); V[:nb] = w[:, :3]
        W = np.zeros((nb + 1, 3)); W[:nb] = np.einsum("bij,bj->bi", A[:nb], w[:, 3:])
        return R, A, V, W

    # ------------------------------------------------------------------ constraints
    def constraints(self, t, kin):
        """``Phi, D, Phi_t, gamma`` at time ``t`` (``D``: n_rows x 6 nb, columns ``(v_b, omega'_b)``)."""
        R, A, V, W = kin
        m = self.n_rows
        Phi = np.zeros(m); Phit = np.zeros(m); gam = np.zeros(m)
        Jw = np.zeros((m, self.nb + 1, 6))   # world velocity/omega columns, ground last
        for cj in self.joints:
            self._joint_rows(cj, R, A, V, W, Phi, Jw, gam)
        for cj, coord, f, row in self.drivers:
            self._driver_row(t, cj, coord, f, row, R, A, V, W, Phi, Phit, Jw, gam)
        D = np.empty((m, 6 * self.nb))
        for b in range(self.nb):
            D[:, 6 * b:6 * b + 3] = Jw[:, b, :3]
            D[:, 6 * b + 3:6 * b + 6] = Jw[:, b, 3:] @ A[b]
        return Phi, D, Phit, gam

    def _points(self, cj, R, A, V, W):
        si, sj = A[cj.i] @ cj.s_i, A[cj.j] @ cj.s_j
        d = R[cj.j] + sj - R[cj.i] - si
        dd = V[cj.j] + cross(W[cj.j], sj) - V[cj.i] - cross(W[cj.i], si)
        return si, sj, d, dd

    def _joint_rows(self, cj, R, A, V, W, Phi, Jw, gam):
        i, j, k = cj.i, cj.j, cj.rows.start
        si, sj, d, dd = self._points(cj, R, A, V, W)
        wi, wj = W[i], W[j]
        Fi, Fj = A[i] @ cj.frame_i.T, A[j] @ cj.frame_j.T   # columns x, y, z (world)
        xi, yi, zi = Fi.T
        xj, yj, zj = Fj.T
        cc_i = cross(wi, cross(wi, si))
        cc_j = cross(wj, cross(wj, sj))

        def sph(k):
            Phi[k:k + 3] = d
            Jw[k:k + 3, j, :3] += np.eye(3); Jw[k:k + 3, j, 3:] += -_skew(sj)
            Jw[k:k + 3, i, :3] -= np.eye(3); Jw[k:k + 3, i, 3:] += _skew(si)
            gam[k:k + 3] = -(cc_j - cc_i)
            return k + 3

        def dot1(k, a, b):
            Phi[k] = a @ b
            Jw[k, i, 3:] += cross(a, b); Jw[k, j, 3:] += cross(b, a)
            wa, wb = cross(wi, a), cross(wj, b)
            gam[k] = -(b @ cross(wi, wa) + a @ cross(wj, wb) + 2 * wa @ wb)
            return k + 1

        def dot2(k, a):
            Phi[k] = a @ d
            Jw[k, i, :3] -= a; Jw[k, j, :3] += a
            Jw[k, i, 3:] += cross(a, d + si); Jw[k, j, 3:] += cross(sj, a)
            wa = cross(wi, a)
            gam[k] = -(d @ cross(wi, wa) + 2 * wa @ dd + a @ (cc_j - cc_i))
            return k + 1

        t = cj.type
        if t == "spherical":
            sph(k)
        elif t == "revolute":
            k = sph(k); k = dot1(k, xi, zj); dot1(k, yi, zj)
        elif t == "cylindrical":
            k = dot1(k, xi, zj); k = dot1(k, yi, zj); k = dot2(k, xi); dot2(k, yi)
        elif t == "prismatic":
            k = dot1(k, xi, zj); k = dot1(k, yi, zj); k = dot2(k, xi); k = dot2(k, yi); dot1(k, xi, yj)
        elif t == "universal":
            k = sph(k); dot1(k, zi, zj)
        elif t == "fixed":
            k = sph(k); k = dot1(k, xi, yj); k = dot1(k, yi, zj); dot1(k, zi, xj)

    def _driver_row(self, t, cj, coord, f, k, R, A, V, W, Phi, Phit, Jw, gam):
        i, j = cj.i, cj.j
        wi, wj = W[i], W[j]
        xi, yi, zi = (A[i] @ cj.frame_i.T).T
        f0, f1, f2 = f(t), f(t, 1), f(t, 2)
        if coord == "angle":
            xj = A[j] @ cj.frame_j[0]
            th = math.atan2(yi @ xj, xi @ xj)
            Phi[k] = (th - f0 + math.pi) % (2 * math.pi) - math.pi
            Jw[k, j, 3:] += zi; Jw[k, i, 3:] -= zi
            gam[k] = f2 - cross(wi, zi) @ (wj - wi)
        else:
            si, sj, d, dd = self._points(cj, R, A, V, W)
            Phi[k] = zi @ d - f0
            Jw[k, i, :3] -= zi; Jw[k, j, :3] += zi
            Jw[k, i, 3:] += cross(zi, d + si); Jw[k, j, 3:] += cross(sj, zi)
            wa = cross(wi, zi)
            gam[k] = -(d @ cross(wi, wa) + 2 * wa @ dd
                       + zi @ (cross(wj, cross(wj, sj)) - cross(wi, cross(wi, si)))) + f2
        Phit[k] = -f1

    def joint_angle(self, cj, A):
        """Relative rotation [rad] of a joint about its axis (from its reference direction)."""
        xi, yi, _ = (A[cj.i] @ cj.frame_i.T).T
        xj = A[cj.j] @ cj.frame_j[0]
        return math.atan2(yi @ xj, xi @ xj)

    # ------------------------------------------------------------------ forces
    def applied(self, kin, w):
        """Generalised applied forces ``Q`` (6 nb) without friction, the power of the applied
        loads [W] and the damper dissipation rate [W]; the potential energy [J]."""
        R, A, V, W = kin
        nb = self.nb
        Fw = np.zeros((nb + 1, 3)); Nw = np.zeros((nb + 1, 3))
        Fw[:nb] = self.mass[:, None] * self.gravity
        power = 0.0
        damp = 0.0
        pot = -float(self.mass @ (R[:nb] @ self.gravity))
        for b, s, F in self.forces:
            sw = A[b] @ s
            Fw[b] += F; Nw[b] += cross(sw, F)
            power += F @ (V[b] + cross(W[b], sw))
        for b, T in self.torques:
            Nw[b] += T
            power += T @ W[b]
        for bi, si, bj, sj, s in self.springs:
            swi, swj = A[bi] @ si, A[bj] @ sj
            dvec = R[bj] + swj - R[bi] - swi
            l = float(np.linalg.norm(dvec))
            if l == 0.0:
                raise MechanismError(f"spring-damper '{s.name}': its two points coincide (length 0)")
            e = dvec / l
            ld = e @ (V[bj] + cross(W[bj], swj) - V[bi] - cross(W[bi], swi))
            T = s.stiffness * (l - s.free_length) + s.damping * ld + s.force
            Fw[bj] -= T * e; Nw[bj] -= cross(swj, T * e)
            Fw[bi] += T * e; Nw[bi] += cross(swi, T * e)
            damp += s.damping * ld * ld
            pot += 0.5 * s.stiffness * (l - s.free_length) ** 2 + s.force * l
        Q = np.empty(6 * nb)
        for b in range(nb):
            om = w[b, 3:]
            Q[6 * b:6 * b + 3] = Fw[b]
            Q[6 * b + 3:6 * b + 6] = A[b].T @ Nw[b] - cross(om, self.J[b] @ om)
        return Q, power, damp, pot

    def wrench_to_q(self, Q, b, F, N, point):
        """Add force ``F`` at world ``point`` and moment ``N`` (world) on body ``b`` to ``Q``."""
        if b < 0:
            return
        Q[6 * b:6 * b + 3] += F
        Q[6 * b + 3:6 * b + 6] += self.A[b].T @ (N + cross(point - self.R[b], F))

    def reaction(self, cj, D, lam, about):
        """Force and moment [N, N m] (world; moment about the world point ``about``) of the joint's
        constraint rows on body j (on body i negated when body j is the ground)."""
        b, sgn = (cj.j, 1.0) if cj.j >= 0 else (cj.i, -1.0)
        rows = cj.rows
        g = -(D[rows, 6 * b:6 * b + 6].T @ lam[rows])
        F = g[:3]
        N = self.A[b] @ g[3:] - cross(about - self.R[b], F)
        return sgn * F, sgn * N

    # ------------------------------------------------------------------ friction
    def _friction_frame(self, cj):
        """Sleeve centre (world), joint frame rows ``(e1, e2, e3) = (z_i, x_i, y_i)`` (world),
        slide rate and rotation rate about ``e1``."""
        R, A, V, W = self.R, self.A, self.V, self.W
        b = cj.i if cj.sleeve == "i" else cj.j
        s = cj.s_i if cj.sleeve == "i" else cj.s_j
        P = R[b] + A[b] @ s
        Fi = A[cj.i] @ cj.frame_i.T
        E = np.array([Fi[:, 2], Fi[:, 0], Fi[:, 1]])
        vP = [V[k] + cross(W[k], P - R[k]) for k in (cj.i, cj.j)]
        e1 = E[0]
        return P, E, e1 @ (vP[1] - vP[0]), e1 @ (W[cj.j] - W[cj.i])

    def friction(self, D, lam, state):
        """New friction values from the reactions ``lam``: per friction joint ``(f, m1, m2)``
        (axial force, moment about axis i, moment about axis j) and its record
        ``(F1, F2, g3, g4, theta1, theta2, s_dot, omega)`` (universal: journal loads in F1, F2)."""
        out = np.zeros((self.nf, 3))
        rec = np.zeros((self.nf, 8))
        for cj in self.friction_joints:
            k = cj.friction_index
            P, E, sdot, om = self._friction_frame(cj)
            F, N = self.reaction(cj, D, lam, P)
            if cj.type == "universal":
                a = E[0]
                b = self.A[cj.j] @ cj.frame_j[2]
                n = cross(a, b); n /= np.linalg.norm(n)
                wr = self.W[cj.j] - self.W[cj.i]
                m1, m2, L1, L2 = _universal(F @ a, F @ b, F @ n, N @ n, state[k, 1], state[k, 2], cj.law,
                                            wr @ a, wr @ b, cj.R, cj.c, cj.R2, cj.c2)
                out[k] = (0.0, m1, m2)
                rec[k] = (L1, L2, 0, 0, 0, 0, 0, wr @ a)
            else:
                # the contact model is written for the inner body (the journal); when the sleeve
                # is body j's, the journal is body i: its wrench and motion are the negatives
                sg = 1.0 if cj.sleeve == "i" else -1.0
                r = _cylinder(sg * (E @ F), sg * (E @ N), cj.law, sg * sdot, sg * om, cj.R, cj.c,
                              cj.type == "revolute")
                out[k] = (sg * r[0], sg * r[1], 0.0)
                rec[k] = r[2:] + (sdot, om)
        return out, rec

    def friction_q(self, fr):
        """Generalised forces of the friction values ``fr`` and their power [W] (<= 0)."""
        Q = np.zeros(6 * self.nb)
        power = 0.0
        for cj in self.friction_joints:
            f, m1, m2 = fr[cj.friction_index]
            P, E, sdot, om = self._friction_frame(cj)
            if cj.type == "universal":
                a = E[0]
                b = self.A[cj.j] @ cj.frame_j[2]
                N = m1 * a + m2 * b
                F = np.zeros(3)
                wr = self.W[cj.j] - self.W[cj.i]
                power += N @ wr
            else:
                F, N = f * E[0], m1 * E[0]
                power += f * sdot + m1 * om
            self.wrench_to_q(Q, cj.j, F, N, P)
            self.wrench_to_q(Q, cj.i, -F, -N, P)
        return Q, power

    # ------------------------------------------------------------------ right-hand side
    def _close_friction_loop(self, t, D, lu, rhs, Q, n, sol, lu_solve):
        """The friction values consistent with the reactions they change: fixed-point iteration
        from zero friction (a contraction for ``mu`` well below 1), and when it has not met
        :data:`FRICTION_RTOL` after :data:`FIXED_POINT_ITER` iterations (it stalls at round-off or
        circles, e.g. a universal joint whose two journals carry each other's friction moment),
        Powell's hybrid method on ``F(fr) - fr = 0`` from the last iterate.  When that fails too,
        :func:`.self_locking.explain` tells the fault whether the joints are self-locking (and below
        which friction coefficient the loop closes) or the solve failed."""
        fr = np.zeros((self.nf, 3))

        def image(x):
            s_ = lu_solve(lu, _with(rhs, n, Q + self.friction_q(x)[0]))
            return self.friction(D, s_[n:], x)[0]

        for it in range(FIXED_POINT_ITER):
            new = image(fr)
            delta = np.max(np.abs(new - fr))
            fr = new
            if delta <= FRICTION_RTOL * (np.max(np.abs(fr)) + 1e-300):
                break
        else:
            from scipy.optimize import root
            res = root(lambda x: (image(x.reshape(fr.shape)) - x.reshape(fr.shape)).ravel(), fr.ravel(),
                       method="hybr", options={"xtol": 1e-13})
            x = res.x.reshape(fr.shape)
            resid = np.max(np.abs(image(x) - x))
            if not resid <= FRICTION_FLOOR * (np.max(np.abs(x)) + 1e-300):
                from .self_locking import explain
                laws = {j.name: j.friction for j in self.mechanism.joints if j.friction is not None}
                why = explain(image, fr.shape, float(np.max(np.abs(x))), self.friction_joints, laws)
                raise MechanismError(f"joint friction: the reactions and the friction did not agree at "
                                     f"t = {t:.9g} s (residual {resid:.3g}).{why}")
            fr = x
        Qf, fpow = self.friction_q(fr)
        sol = lu_solve(lu, _with(rhs, n, Q + Qf))
        rec = self.friction(D, sol[n:], fr)[1]
        return fr, rec, fpow, sol

    def dynamics(self, t, y, alpha, beta, *, record=False, extra_q=None, rows=None):
        """``y_dot`` (and, with ``record``, the multipliers, accelerations and friction record);
        ``extra_q`` (6 nb): generalised forces added to the applied ones (clearance joints);
        ``rows(t, kin)``: the constraint rows ``Phi, D, Phi_t, gamma`` in place of
        :meth:`constraints` (the compiled ones of :func:`.kernels.constraint_rows` for the output
        samples of the fast path).

        Friction: ``lambda`` depends on the friction, the friction on ``lambda``; the augmented
        matrix does not depend on either, so it is factorised once and the loop is closed with it
        (:meth:`_close_friction_loop`)."""
        from scipy.linalg import lu_factor, lu_solve
        nb = self.nb
        kin = self.kinematics(y)
        self.R, self.A, self.V, self.W = kin
        r, p, w = self.split(y)
        Phi, D, Phit, gam = (rows or self.constraints)(t, kin)
        Q, power, damp, pot = self.applied(kin, w)
        if extra_q is not None:   # the clearance joints' forces (:mod:`.clearance.forces`)
            Q = Q + extra_q
        n, m = self.n_dof, self.n_rows
        K = np.zeros((n + m, n + m))
        for b in range(nb):
            K[6 * b:6 * b + 3, 6 * b:6 * b + 3] = self.mass[b] * np.eye(3)
            K[6 * b + 3:6 * b + 6, 6 * b + 3:6 * b + 6] = self.J[b]
        K[:n, n:] = D.T
        K[n:, :n] = D
        wf = w.reshape(-1)
        Phid = D @ wf + Phit
        rhs = np.concatenate([Q, gam - 2 * alpha * Phid - beta * beta * Phi])
        lu = lu_factor(K)
        sol = lu_solve(lu, rhs)
        fr = np.zeros((self.nf, 3)); rec = np.zeros((self.nf, 8)); fpow = 0.0
        if self.nf:
            fr, rec, fpow, sol = self._close_friction_loop(t, D, lu, rhs, Q, n, sol, lu_solve)
        acc, lam = sol[:n], sol[n:]
        yd = np.empty_like(y)
        yd[:3 * nb] = w[:, :3].reshape(-1)
        for b in range(nb):
            pb = p[b]
            yd[3 * nb + 4 * b:3 * nb + 4 * b + 4] = 0.5 * g_matrix(pb).T @ w[b, 3:] - 0.5 * alpha * (pb @ pb - 1.0) * pb
        yd[7 * nb:13 * nb] = acc
        drv = 0.0
        for cj, coord, f, row in self.drivers:
            drv += -lam[row] * (D[row] @ wf)
        yd[13 * nb] = power + drv
        yd[13 * nb + 1] = -fpow + damp
        if not record:
            return yd
        return yd, dict(lam=lam, acc=acc, D=D, Phi=Phi, Phid=Phid, friction=fr, friction_record=rec,
                        potential=pot, driver_power=drv)


def _with(rhs, n, top):
    out = rhs.copy()
    out[:n] = top
    return out


def _unit(v) -> np.ndarray:
    a = np.asarray(v, float)
    return a / np.linalg.norm(a)


def _frame(z, x) -> np.ndarray:
    """Rows ``x, y, z`` of a right-handed orthonormal frame with axis ``z`` and ``x`` the part of
    the given reference perpendicular to ``z`` (default :func:`~.rotation.perpendicular`)."""
    z = _unit(z)
    if x is None:
        x = perpendicular(z)
    else:
        x = np.asarray(x, float) - (np.dot(x, z)) * z
        if np.linalg.norm(x) < 1e-9:
            x = perpendicular(z)
        x = _unit(x)
    return np.array([x, cross(z, x), z])


def _skew(a) -> np.ndarray:
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def _cylinder(F, N, law, sdot, om, R, c, axial):
    from .joint_friction import cylinder
    return cylinder(F, N, law, sdot, om, R, c, axial)


def _universal(Fa, Fb, Fn, Mn, m1, m2, law, om1, om2, R1, c1, R2, c2):
    from .joint_friction import universal
    return universal((Fa, Fb, Fn), Mn, m1, m2, law, om1, om2, R1, c1, R2, c2)
