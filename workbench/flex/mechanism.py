"""A mechanism with flexible ANCF beams, assembled for the implicit solver.

Coordinates ``q``: the rigid bodies' ``(x, y, phi)`` in their order, then each beam's nodal
coordinates ``(r, r')`` per node (:mod:`workbench.flex.ancf_cable`).  The mass matrix is constant
(rigid: ``diag(m, m, J)``; beams: the ANCF consistent mass).  The equations of motion are

    M q'' + g(q, q', t) + Phi_q^T lambda = 0,   Phi(q, t) = 0

with ``g`` the internal minus the external forces (beam elasticity and damping, gravity, constant
forces and torques, clearance-joint contact and friction) and ``Phi`` the ideal joints (revolute:
``P_j - P_i``; translational between rigid bodies: ``n_i . (P_j - P_i)`` and the relative angle)
and the drivers (``q_c - q_rel - f(t)``).  A point of a beam is ``S(xi) e`` of its element
(cubic Hermite), so joints at beam points are linear in the beam's coordinates.

Clearance joints run the contact-law and friction plugins unchanged, through
:func:`workbench.mbs.clearance.clearance_forces`: each beam point a clearance joint uses is a
*proxy rigid body* whose position is the centre line's position there and whose angle is the
slope's direction ``atan2(r'_y, r'_x)``; the proxy's generalised force ``(F, M)`` goes back to the
beam as ``S^T F + M dtheta/de``.  The contact forces' tangent (d/dq, d/dq') is taken by forward
finite differences over the coordinates of the bodies in contact (stated: the kernels give no
derivatives).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import MechanismError
from ..mbs.mechanism import (GROUND, ConstantForce, ConstantTorque, Mechanism, RevoluteJoint,
                             SpringDamper)
from .ancf_cable import CableBeam, hermite
from .beam_forces import beam_energy, beam_forces
from .assembly import constraint_kernel, driver_acceleration_kernel, hessian_kernel, pack
from .clearance import ClearanceProxy

GROUND_PT, RIGID_PT, BEAM_PT = 0, 1, 2


def _rot(phi):
    c, s = math.cos(phi), math.sin(phi)
    return np.array([[c, -s], [s, c]])


class FlexModel(ClearanceProxy):
    """The arrays and functions of one mechanism with beams (module docstring).

    ``surfaces`` / ``geometries``: worn profiles and contact geometries of clearance joints by index
    (as :func:`workbench.mbs.compiled.compile_mechanism`).
    """

    def __init__(self, mech: Mechanism, *, surfaces: dict | None = None, geometries: dict | None = None):
        mech.validate()
        self.mech = mech
        self.nb = len(mech.bodies)
        self.rigid_index = {b.name: i for i, b in enumerate(mech.bodies)}
        off = 3 * self.nb
        self.beams, self.beam_offset = [], {}
        for bm in mech.beams:
            cb = CableBeam(bm.length, bm.area, bm.second_moment, bm.E, bm.density, bm.elements,
                           origin=bm.position, angle=bm.angle, curvature=getattr(bm, "curvature", "exact"))
            self.beams.append((bm, cb, off))
            self.beam_offset[bm.name] = off
            off += cb.n
        self.n = off
        n = self.n
        M = np.zeros((n, n))
        q0 = np.zeros(n)
        fg = np.zeros(n)
        grav = np.asarray(mech.gravity, float)
        for i, b in enumerate(mech.bodies):
            M[3 * i, 3 * i] = M[3 * i + 1, 3 * i + 1] = b.mass
            M[3 * i + 2, 3 * i + 2] = b.inertia
            q0[3 * i:3 * i + 3] = (*b.position, b.angle)
            fg[3 * i:3 * i + 2] = b.mass * grav
        for bm, cb, o in self.beams:
            M[o:o + cb.n, o:o + cb.n] = cb.M
            q0[o:o + cb.n] = cb.q0
            trans = np.zeros(cb.n)
            trans[0::4], trans[1::4] = grav[0], grav[1]
            fg[o:o + cb.n] = cb.M @ trans    # S reproduces a uniform field exactly
        self.M, self.q_ref, self.f_gravity = M, q0, fg
        self.rigid_angles = np.array([3 * i + 2 for i in range(self.nb)], dtype=int)
        self._joints()
        self._drivers()
        self.carrays = pack(self.joint_list, self.driver_list)
        self._forces()
        self._proxy(surfaces or {}, geometries or {})

    # ------------------------------------------------------------------ points
    def point(self, body: str, name):
        """Descriptor of a named point: ground, rigid (body index, body-frame vector) or beam
        (element's first column, shape functions and their x-derivatives at the point)."""
        if body == GROUND:
            return (GROUND_PT, -1, np.asarray(self.mech.ground_points[name], float), None)
        if body in self.rigid_index:
            b = self.mech.bodies[self.rigid_index[body]]
            s = np.zeros(2) if name is None else np.asarray(b.points[name], float)
            return (RIGID_PT, self.rigid_index[body], s, None)
        for bm, cb, o in self.beams:
            if bm.name == body:
                s = 0.0 if name is None else float(bm.points[name])
                k = min(int(s / cb.le), cb.n_el - 1)
                sh, ds, _ = hermite((s - k * cb.le) / cb.le, cb.le)
                return (BEAM_PT, o + 4 * k, np.asarray(sh), np.asarray(ds))
        raise MechanismError(f"unknown body '{body}'")

    @staticmethod
    def position(q, p):
        kind, i, a, b = p
        if kind == GROUND_PT:
            return a.copy()
        if kind == RIGID_PT:
            return q[3 * i:3 * i + 2] + _rot(q[3 * i + 2]) @ a
        e = q[i:i + 8]
        return np.array([a @ e[0::2], a @ e[1::2]])

    @staticmethod
    def slope(q, p):
        """Centre-line slope r' [1] at a beam point."""
        e = q[p[1]:p[1] + 8]
        return np.array([p[3] @ e[0::2], p[3] @ e[1::2]])

    def _add_jac(self, B, rows, q, p, sign, vec=None):
        """Add ``sign * dP/dq`` (or ``sign * vec . dP/dq`` into one row when ``vec`` is given)."""
        kind, i, a, _ = p
        if kind == GROUND_PT:
            return
        if kind == RIGID_PT:
            As = _rot(q[3 * i + 2]) @ a
            dA = np.array([-As[1], As[0]])
            if vec is None:
                B[rows[0], 3 * i] += sign; B[rows[1], 3 * i + 1] += sign
                B[rows[0], 3 * i + 2] += sign * dA[0]; B[rows[1], 3 * i + 2] += sign * dA[1]
            else:
                B[rows[0], 3 * i:3 * i + 2] += sign * vec
                B[rows[0], 3 * i + 2] += sign * (vec @ dA)
            return
        if vec is None:
            B[rows[0], i:i + 8:2] += sign * a
            B[rows[1], i + 1:i + 8:2] += sign * a
        else:
            B[rows[0], i:i + 8:2] += sign * vec[0] * a
            B[rows[0], i + 1:i + 8:2] += sign * vec[1] * a

    # ------------------------------------------------------------------ constraints
    def _joints(self):
        self.joint_list, row = [], 0
        beams = {bm.name for bm in self.mech.beams}
        for j in self.mech.joints:
            pi, pj = self.point(j.body_i, j.point_i), self.point(j.body_j, j.point_j)
            if isinstance(j, RevoluteJoint):
                self.joint_list.append(("rev", pi, pj, None, row))
            else:
                if j.body_i in beams or j.body_j in beams:
                    raise MechanismError(f"joint '{j.name}': a translational joint on a beam is not "
                                         f"supported (it needs the beam's slope angle); put it on a "
                                         f"rigid body (e.g. a slider pinned to the beam)")
                a = np.asarray(j.axis, float)
                a = a / np.linalg.norm(a)
                bi = self.rigid_index.get(j.body_i, -1)
                bj = self.rigid_index.get(j.body_j, -1)
                phi0 = (self.q_ref[3 * bj + 2] if bj >= 0 else 0.0) - (self.q_ref[3 * bi + 2] if bi >= 0 else 0.0)
                self.joint_list.append(("trans", pi, pj, (np.array([-a[1], a[0]]), bi, bj, phi0), row))
            row += 2
        self.joint_rows = [r for *_, r in self.joint_list]
        self.n_joint_rows = row

    def _drivers(self):
        from ..mbs.compiled import driver_row
        self.driver_list = []
        row = self.n_joint_rows
        for d in self.mech.drivers:
            if d.body not in self.rigid_index or (d.relative_to != GROUND and d.relative_to not in self.rigid_index):
                raise MechanismError(f"driver '{d.name}': drivers act on rigid bodies only; '{d.body}' "
                                     f"or '{d.relative_to}' is a beam")
            c = {"x": 0, "y": 1, "phi": 2}[d.coordinate]
            col = 3 * self.rigid_index[d.body] + c
            rel = 3 * self.rigid_index[d.relative_to] + c if d.relative_to != GROUND else -1
            self.driver_list.append((col, rel, driver_row(d.function), row))
            row += 1
        self.driver_rows = [r for *_, r in self.driver_list]
        self.m = row

    def driver_values(self, row, t):
        from ..mbs.kinematics import driver_value
        return driver_value(row, t)

    def constraints(self, q, t):
        """``(Phi, Phi_q, Phi_t)`` at ``(q, t)``: the compiled fast path
        (:func:`workbench.flex.assembly.constraint_kernel`)."""
        Phi, B, Pt = np.empty(self.m), np.empty((self.m, self.n)), np.empty(self.m)
        constraint_kernel(q, float(t), *self.carrays.args(), Phi, B, Pt)
        return Phi, B, Pt

    def constraints_reference(self, q, t):
        """``(Phi, Phi_q, Phi_t)`` at ``(q, t)``: the reference path (Python, per joint)."""
        m, n = self.m, self.n
        Phi, B, Pt = np.zeros(m), np.zeros((m, n)), np.zeros(m)
        for kind, pi, pj, extra, r in self.joint_list:
            Pi, Pj = self.position(q, pi), self.position(q, pj)
            if kind == "rev":
                Phi[r:r + 2] = Pj - Pi
                self._add_jac(B, (r, r + 1), q, pj, 1.0)
                self._add_jac(B, (r, r + 1), q, pi, -1.0)
            else:
                nprime, bi, bj, phi0 = extra
                Ai = _rot(q[3 * bi + 2]) if bi >= 0 else np.eye(2)
                ni = Ai @ nprime
                Ri = q[3 * bi:3 * bi + 2] if bi >= 0 else np.zeros(2)
                si = pi[2]
                Phi[r] = ni @ (Pj - Ri) - nprime @ si
                self._add_jac(B, (r,), q, pj, 1.0, vec=ni)
                if bi >= 0:
                    B[r, 3 * bi:3 * bi + 2] -= ni
                    B[r, 3 * bi + 2] += np.array([-ni[1], ni[0]]) @ (Pj - Ri)
                Phi[r + 1] = (q[3 * bj + 2] if bj >= 0 else 0.0) - (q[3 * bi + 2] if bi >= 0 else 0.0) - phi0
                if bj >= 0:
                    B[r + 1, 3 * bj + 2] += 1.0
                if bi >= 0:
                    B[r + 1, 3 * bi + 2] -= 1.0
        for col, rel, drow, r in self.driver_list:
            f, f1, _ = self.driver_values(drow, t)
            Phi[r] = q[col] - (q[rel] if rel >= 0 else 0.0) - f
            B[r, col] += 1.0
            if rel >= 0:
                B[r, rel] -= 1.0
            Pt[r] = -f1
        return Phi, B, Pt

    def driver_accelerations(self, t):
        """``Phi_tt`` [rad/s^2 or m/s^2] of every constraint row (drivers only)."""
        out = np.zeros(self.m)
        driver_acceleration_kernel(float(t), self.carrays.dr, self.carrays.dr_f, out)
        return out

    def constraint_hessian(self, q, lam, H=None):
        """``d(Phi_q^T lambda)/dq`` (nonzero only in the rigid bodies' angles), added to ``H`` when
        given: the compiled fast path (:func:`workbench.flex.assembly.hessian_kernel`)."""
        if H is None:
            H = np.zeros((self.n, self.n))
        c = self.carrays
        hessian_kernel(q, lam, c.pt_kind, c.pt_idx, c.pt_vec, c.jt, c.jt_f, H)
        return H

    def constraint_hessian_reference(self, q, lam):
        """``d(Phi_q^T lambda)/dq``: the reference path (Python, per joint)."""
        H = np.zeros((self.n, self.n))
        for kind, pi, pj, extra, r in self.joint_list:
            lr = lam[r:r + 2]
            if kind == "rev":
                for p, sign in ((pj, 1.0), (pi, -1.0)):
                    if p[0] == RIGID_PT:
                        i = p[1]
                        H[3 * i + 2, 3 * i + 2] -= sign * (lr @ (_rot(q[3 * i + 2]) @ p[2]))
            else:
                nprime, bi, bj, _ = extra
                l1 = lam[r]
                Ai = _rot(q[3 * bi + 2]) if bi >= 0 else np.eye(2)
                ni = Ai @ nprime
                dni = np.array([-ni[1], ni[0]])
                Ri = q[3 * bi:3 * bi + 2] if bi >= 0 else np.zeros(2)
                Pj = self.position(q, pj)
                if bj >= 0:
                    Ajs = _rot(q[3 * bj + 2]) @ pj[2]
                    H[3 * bj + 2, 3 * bj + 2] -= l1 * (ni @ Ajs)
                if bi >= 0:
                    fi = 3 * bi + 2
                    H[fi, fi] -= l1 * (ni @ (Pj - Ri))
                    H[fi, 3 * bi:3 * bi + 2] -= l1 * dni
                    H[3 * bi:3 * bi + 2, fi] -= l1 * dni
                    if bj >= 0:
                        H[fi, 3 * bj:3 * bj + 2] += l1 * dni
                        H[3 * bj:3 * bj + 2, fi] += l1 * dni
                        Ajs = _rot(q[3 * bj + 2]) @ pj[2]
                        x = l1 * (dni @ np.array([-Ajs[1], Ajs[0]]))
                        H[fi, 3 * bj + 2] += x
                        H[3 * bj + 2, fi] += x
        return H

    # ------------------------------------------------------------------ forces
    def _forces(self):
        self.const_force = np.zeros(self.n)
        self.rigid_point_forces = []   # (body index, body-frame point, F) : moment depends on phi
        beams = {bm.name for bm in self.mech.beams}
        for f in self.mech.forces:
            if isinstance(f, SpringDamper):
                raise MechanismError(f"force '{f.name}': spring-dampers are not supported in a mechanism "
                                     f"with beams yet (valid there: 'force', 'torque')")
            if isinstance(f, ConstantTorque):
                if f.body in beams:
                    raise MechanismError(f"force '{f.name}': a torque on beam '{f.body}' is not "
                                         f"supported; apply forces at beam points")
                self.const_force[3 * self.rigid_index[f.body] + 2] += f.torque
            elif isinstance(f, ConstantForce):
                p = self.point(f.body, f.point)
                F = np.asarray(f.force, float)
                if p[0] == BEAM_PT:
                    self.const_force[p[1]:p[1] + 8:2] += F[0] * p[2]
                    self.const_force[p[1] + 1:p[1] + 8:2] += F[1] * p[2]
                elif p[0] == RIGID_PT:
                    self.const_force[3 * p[1]:3 * p[1] + 2] += F
                    self.rigid_point_forces.append((p[1], p[2], F))

    def forces(self, q, v, t, with_tangent=True):
        """``(g, K, C)``: internal minus external forces [N] and their q- and v-derivatives."""
        n = self.n
        G = -(self.f_gravity + self.const_force)
        K = np.zeros((n, n))
        C = np.zeros((n, n))
        for i, s, F in self.rigid_point_forces:
            As = _rot(q[3 * i + 2]) @ s
            G[3 * i + 2] -= As[0] * F[1] - As[1] * F[0]
            K[3 * i + 2, 3 * i + 2] += As @ F
        for bm, cb, o in self.beams:
            beam_forces(q, v, o, cb.n_el, cb.le, cb.ea, cb.ei, float(bm.damping), G, K, C, True, cb.pw)
        if self.n_clr:
            Qc, active = self.clearance(q, v)
            G -= Qc
            if active and with_tangent:
                Kc, Cc = self.clearance_tangent(q, v, Qc)
                K += Kc
                C += Cc
        return G, K, C

    # ------------------------------------------------------------------ energies
    def energies(self, q, v):
        """``(kinetic, potential)`` [J]: potential = gravity and constant forces + strain energy."""
        ke = 0.5 * v @ self.M @ v
        pe = -(self.f_gravity + self.const_force) @ q
        for bm, cb, o in self.beams:
            pe += beam_energy(q, o, cb.n_el, cb.le, cb.ea, cb.ei, cb.pw)
        return ke, pe

    def midspan_deflection(self, q, bi: int):
        """Mid-span deflection [m] of beam ``bi``: the centre line at ``s = L/2`` from the chord of
        its ends (positive to the left of the chord); ``q`` one state (a float returned) or a
        (samples, n) array of states (an array returned)."""
        bm, cb, o = self.beams[bi]
        Q = np.atleast_2d(q)
        a = Q[:, o:o + 2]
        b = Q[:, o + cb.n - 4:o + cb.n - 2]
        k = min(int(0.5 * cb.L / cb.le), cb.n_el - 1)
        sh, _, _ = hermite((0.5 * cb.L - k * cb.le) / cb.le, cb.le)
        e = Q[:, o + 4 * k:o + 4 * k + 8]
        mid = np.stack([e[:, 0::2] @ sh, e[:, 1::2] @ sh], axis=1)
        d = b - a
        out = (d[:, 0] * (mid[:, 1] - a[:, 1]) - d[:, 1] * (mid[:, 0] - a[:, 0])) / np.hypot(d[:, 0], d[:, 1])
        return float(out[0]) if np.ndim(q) == 1 else out


def check_flexible(mechanism: Mechanism, solver, probs) -> None:
    """What a run of a mechanism with beams would reject, found first (``validate``): the model
    builds and the mechanism assembles at ``t_start``."""
    from ..errors import SolverError
    try:
        fm = FlexModel(mechanism)
        from .solver import assemble
        assemble(fm, solver.t_start if solver is not None else 0.0)
    except (MechanismError, SolverError) as exc:
        probs.add("mechanism", str(exc))
