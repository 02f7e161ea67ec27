"""Compiled equations of motion of a planar mechanism in absolute coordinates.

State ``y = [q, qdot, z, W]``: ``q = (x, y, phi)`` per moving body [m, m, rad], their rates, one
friction state per contact point (LuGre bristle deflection [m]) and four energy integrals [J]:
driver work, work absorbed by contact forces, friction dissipation, damper dissipation.

Equations (Wang & Liu (2015) eq. 38, Wang, Chen, Ma & Sun (2016) eq. 41): ``M qdd + Phi_q^T lambda = Q`` with
``Phi_q qdd = gamma - 2 alpha Phi_dot - beta^2 Phi`` (Baumgarte).  Because ``M`` is diagonal the
multipliers come from the Schur complement ``Phi_q M^-1 Phi_q^T`` (``L D L^T``, in place:
:func:`cholesky_solve`).
Constraints are in :mod:`.kinematics`, clearance joints in :mod:`.clearance`.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .clearance import clearance_forces
from .compiled import FORCE, SPRING, TORQUE
from .kernels import N_OUT
from .kinematics import apply_force, constraints, material_velocity, point_position


@njit(cache=True)
def element_forces(q, qd, Q, frc_i, frc_f, gravity, mass):
    """Gravity and force elements into ``Q``; returns the damper dissipation rate [W]."""
    nb = mass.shape[0] // 3
    for b in range(nb):
        Q[3 * b] += mass[3 * b] * gravity[0]
        Q[3 * b + 1] += mass[3 * b] * gravity[1]
    pd = 0.0
    for k in range(frc_i.shape[0]):
        typ = frc_i[k, 0]; bi = frc_i[k, 1]; bj = frc_i[k, 2]
        if typ == SPRING:
            pix, piy = point_position(q, bi, frc_f[k, 0], frc_f[k, 1])
            pjx, pjy = point_position(q, bj, frc_f[k, 2], frc_f[k, 3])
            dx = pjx - pix; dy = pjy - piy
            l = math.sqrt(dx * dx + dy * dy)
            if l < 1e-300:
                continue
            ex = dx / l; ey = dy / l
            vix, viy = material_velocity(q, qd, bi, pix, piy)
            vjx, vjy = material_velocity(q, qd, bj, pjx, pjy)
            ld = (vjx - vix) * ex + (vjy - viy) * ey
            f = frc_f[k, 4] * (l - frc_f[k, 6]) + frc_f[k, 5] * ld + frc_f[k, 7]  # tension > 0
            apply_force(Q, q, bi, pix, piy, f * ex, f * ey)
            apply_force(Q, q, bj, pjx, pjy, -f * ex, -f * ey)
            pd += frc_f[k, 5] * ld * ld
        elif typ == FORCE:
            px, py = point_position(q, bi, frc_f[k, 0], frc_f[k, 1])
            apply_force(Q, q, bi, px, py, frc_f[k, 2], frc_f[k, 3])
        elif typ == TORQUE:
            if bi >= 0:
                Q[3 * bi + 2] += frc_f[k, 0]
    return pd


#: Work buffers of :func:`rhs` (one named tuple, :func:`workspace`): generalised forces ``Q``,
#: friction-state rates ``zdot``, the kernel wrappers' ``tmp``, and per constraint row ``Phi``,
#: ``gam`` (acceleration right-hand side), ``Phit``, ``Jqd`` (``Phi_q qdot``), ``b`` and ``x``
#: (the multipliers' system), the Jacobian ``J`` and the Schur complement ``S``.
#: ``cs`` holds each body's ``cos phi``, ``sin phi`` (:func:`.kinematics.constraints`).
Workspace = namedtuple("Workspace", ["Q", "zdot", "tmp", "Phi", "gam", "Phit", "Jqd", "b", "x", "J", "S",
                                     "cs"])


@njit(cache=True)
def workspace(n, n_rows, npts):
    """The :data:`Workspace` of a mechanism with ``n`` coordinates, ``n_rows`` constraint rows
    and ``npts`` contact points."""
    m = max(n_rows, 1)
    return Workspace(np.zeros(n), np.zeros(max(npts, 1)), np.zeros(N_OUT), np.zeros(m), np.zeros(m),
                     np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m), np.zeros((m, n)), np.zeros((m, m)),
                     np.zeros((n // 3, 2)))


@njit(cache=True)
def cholesky_solve(S, b, x, m):
    """Solve ``S x = b`` for symmetric positive definite ``S`` by ``S = L D L^T`` (no square roots;
    ``S``'s lower triangle is overwritten by ``L``, its diagonal by ``1/D``).  Returns False when
    ``S`` is not positive definite (redundant or degenerate constraints)."""
    for j in range(m):
        d = S[j, j]
        for k in range(j):
            d -= S[j, k] * S[j, k] * S[k, k]   # S[k, k] holds D_k; replaced by 1/D_k below
        if not (d > 1e-300):
            return False
        S[j, j] = d
        r = 1.0 / d
        for i in range(j + 1, m):
            v = S[i, j]
            for k in range(j):
                v -= S[i, k] * S[j, k] * S[k, k]
            S[i, j] = v * r
    for i in range(m):
        v = b[i]
        for k in range(i):
            v -= S[i, k] * x[k]
        x[i] = v
    for i in range(m):
        x[i] = x[i] / S[i, i]
    for i in range(m - 1, -1, -1):
        v = x[i]
        for k in range(i + 1, m):
            v -= S[k, i] * x[k]
        x[i] = v
    return True


@njit(cache=True)
def constrained_accelerations(t, q, qd, Q, qdd, lam, ws, alpha, beta, model):
    """Accelerations ``qdd`` and multipliers ``lam`` of ``M qdd + Phi_q^T lam = Q`` with the
    Baumgarte-stabilised acceleration constraints; returns ``(code, driver power [W])`` with code
    -1 when all is well, -2 when the constraint system is singular, -3 when it is not finite.

    The Jacobian is sparse: a row touches the coordinates of at most two bodies (its joint's or
    driver's).  ``Phi_q qd``, ``Phi_q M^-1 Q`` and the Schur complement ``Phi_q M^-1 Phi_q^T`` are
    summed over those bodies only (``model.row_body``, ``model.schur``: the pattern is fixed by the
    topology), with the inverse masses precomputed."""
    n_rows = model.n_rows
    minv = model.minv; rb = model.row_body; sch = model.schur
    J = ws.J; S = ws.S; b = ws.b; x = ws.x; Jqd = ws.Jqd
    Phi = ws.Phi; gam = ws.gam; Phit = ws.Phit
    constraints(t, q, qd, model.cons_i, model.cons_f, model.drv_f, Phi, J, gam, Phit, ws.cs)
    for i in range(n_rows):
        acc = 0.0
        acc2 = 0.0
        for side in range(2):
            bb = rb[i, side]
            if bb < 0:
                continue
            for c in range(3):
                kk = 3 * bb + c
                acc += J[i, kk] * qd[kk]
                acc2 += J[i, kk] * Q[kk] * minv[kk]
        Jqd[i] = acc
        b[i] = acc2 - (gam[i] - 2.0 * alpha * (Jqd[i] + Phit[i]) - beta * beta * Phi[i])
        if not math.isfinite(b[i]):
            return -3, 0.0
        for j in range(i + 1):
            S[i, j] = 0.0
    for e in range(sch.shape[0]):
        i = sch[e, 0]; j = sch[e, 1]
        acc = 0.0
        for side in range(2):
            bb = sch[e, 2 + side]
            if bb < 0:
                break
            for c in range(3):
                kk = 3 * bb + c
                acc += J[i, kk] * J[j, kk] * minv[kk]
        S[i, j] = acc
    if not cholesky_solve(S, b, x, n_rows):
        return -2, 0.0
    for i in range(n_rows):
        lam[i] = x[i]
    for k in range(q.shape[0]):
        qdd[k] = Q[k] * minv[k]
    for i in range(n_rows):
        for side in range(2):
            bb = rb[i, side]
            if bb < 0:
                continue
            for c in range(3):
                kk = 3 * bb + c
                qdd[kk] -= J[i, kk] * x[i] * minv[kk]
    # driver power: -lambda * (Phi_q qd) on driver rows
    pdrv = 0.0
    drows = model.driver_rows
    for k in range(drows.shape[0]):   # (an array iterator here cost as much as the Cholesky)
        r = drows[k]
        pdrv += -x[r] * Jqd[r]
    return -1, pdrv


@njit(cache=True)
def rhs(t, y, dm, ydot, lam, rec, ws, alpha, beta, model):
    """Right-hand side ``ydot = f(t, y)`` of :data:`.compiled.Model` ``model``; also fills the
    multipliers ``lam`` and the clearance record ``rec``.  ``ws`` is its :data:`Workspace`,
    ``alpha``, ``beta`` [1/s] the Baumgarte parameters.  Returns -1 when all is well,
    ``joint * N_FAULT + cause`` >= 0 when a clearance joint's model output failed its check (see
    :func:`.clearance.clearance_forces`), -2 when the constraint system is singular, -3 when the
    state is not finite."""
    n = model.mass.shape[0]
    npts = ydot.shape[0] - 2 * n - 4
    q = y[:n]; qd = y[n:2 * n]; z = y[2 * n:2 * n + npts]
    Q = ws.Q; zdot = ws.zdot
    Q[:] = 0.0
    pd = element_forces(q, qd, Q, model.frc_i, model.frc_f, model.gravity, model.mass)
    pc, pf, bad = clearance_forces(q, qd, z, dm, Q, zdot, model.clr_i, model.clr_f, model.ckern,
                                   model.fkern, model.cpar, model.fpar, model.has_z, rec, ws.tmp)
    if bad >= 0:
        return bad
    qdd = ydot[n:2 * n]
    pdrv = 0.0
    if model.n_rows > 0:
        code, pdrv = constrained_accelerations(t, q, qd, Q, qdd, lam, ws, alpha, beta, model)
        if code != -1:
            return code
    else:
        for i in range(n):
            qdd[i] = Q[i] / model.mass[i]
    ydot[:n] = qd
    for i in range(npts):
        ydot[2 * n + i] = zdot[i]
    ydot[2 * n + npts] = pdrv
    ydot[2 * n + npts + 1] = pc
    ydot[2 * n + npts + 2] = pf
    ydot[2 * n + npts + 3] = pd
    return bad


@njit(cache=True)
def mechanical_energy(y, n, mass, gravity, frc_i, frc_f):
    """Kinetic [J] and potential [J] energy (gravity, springs, constant forces and torques)."""
    q = y[:n]; qd = y[n:2 * n]
    ke = 0.0
    for i in range(n):
        ke += 0.5 * mass[i] * qd[i] * qd[i]
    pe = 0.0
    nb = n // 3
    for b in range(nb):
        pe -= mass[3 * b] * (gravity[0] * q[3 * b] + gravity[1] * q[3 * b + 1])
    for k in range(frc_i.shape[0]):
        typ = frc_i[k, 0]; bi = frc_i[k, 1]; bj = frc_i[k, 2]
        if typ == SPRING:
            pix, piy = point_position(q, bi, frc_f[k, 0], frc_f[k, 1])
            pjx, pjy = point_position(q, bj, frc_f[k, 2], frc_f[k, 3])
            l = math.sqrt((pjx - pix) ** 2 + (pjy - piy) ** 2)
            pe += 0.5 * frc_f[k, 4] * (l - frc_f[k, 6]) ** 2 + frc_f[k, 7] * l
        elif typ == FORCE:
            px, py = point_position(q, bi, frc_f[k, 0], frc_f[k, 1])
            pe -= frc_f[k, 2] * px + frc_f[k, 3] * py
        elif typ == TORQUE and bi >= 0:
            pe -= frc_f[k, 0] * q[3 * bi + 2]
    return ke, pe
