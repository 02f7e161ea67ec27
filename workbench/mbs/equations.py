"""Compiled equations of motion of a planar mechanism in absolute coordinates.

State ``y = [q, qdot, z, W]``: ``q = (x, y, phi)`` per moving body [m, m, rad], their rates, one
friction state per contact point (LuGre bristle deflection [m]) and four energy integrals [J]:
driver work, work absorbed by contact forces, friction dissipation, damper dissipation.

Equations (Wang & Liu (2015) eq. 38, Wang, Chen, Ma & Sun (2016) eq. 41): ``M qdd + Phi_q^T lambda = Q`` with
``Phi_q qdd = gamma - 2 alpha Phi_dot - beta^2 Phi`` (Baumgarte).  Because ``M`` is diagonal the
multipliers come from the Schur complement ``Phi_q M^-1 Phi_q^T`` (Cholesky, in place).
Constraints are in :mod:`.kinematics`, clearance joints in :mod:`.clearance`.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .clearance import clearance_forces_lubricated
from .compiled import DRV_PHI, FORCE, REV, SPRING, TORQUE, TRANS
from .joint_friction import close_loop  # joint friction (owner: reactions)
from .ldl import cholesky_solve, ldl_factor, ldl_solve  # noqa: F401 - re-exported
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
                if frc_f[k, 1] != 0.0:
                    Q[3 * bi + 2] -= frc_f[k, 1] * qd[3 * bi + 2]
                    pd += frc_f[k, 1] * qd[3 * bi + 2] * qd[3 * bi + 2]
    return pd


#: The work arrays of :func:`rhs` (:func:`workspace`): generalised forces ``Q`` [N, N m], inverse
#: masses ``minv`` [1/kg, 1/(kg m^2)] (filled by :func:`workspace`), friction-state rates
#: ``zdot``, the kernels' scratch ``tmp``, per constraint row the violation ``Phi``, ``gam``
#: (acceleration right-hand side), ``Phit``, ``Jqd`` (``Phi_q qd``), the Schur right-hand side
#: ``b`` and the two bodies ``rb0``, ``rb1`` (-1 = ground), the Jacobian ``J`` (rows x
#: coordinates) and the Schur complement ``S`` (factorised in place by :func:`ldl_factor`, so a
#: second solve can reuse it).  Separate arrays rather than views of one flat buffer: no slice or
#: 2-D reshape per call (measured no faster by itself, tests/benchmarks/bench_dynamics.py).
Work = namedtuple("Work", ["Q", "minv", "zdot", "tmp", "Phi", "gam", "Phit", "Jqd", "b", "rb0", "rb1",
                           "J", "S"])


@njit(cache=True)
def workspace(mass, n_rows, npts):
    """The :data:`Work` arrays :func:`rhs` needs for a model of masses ``mass`` (the model's
    ``mass`` array [kg, kg m^2], one per coordinate), ``n_rows`` constraint rows and ``npts``
    contact points.  ``minv`` is filled here, once, not in every right-hand side: the work
    arrays belong to that model."""
    n = mass.shape[0]
    m = max(n_rows, 1)
    minv = np.zeros(n)
    for k in range(n):
        minv[k] = 1.0 / mass[k]
    return Work(np.zeros(n), minv, np.zeros(max(npts, 1)), np.zeros(N_OUT), np.zeros(m),
                np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m, np.int64),
                np.zeros(m, np.int64), np.zeros((m, n)), np.zeros((m, m)))


@njit(cache=True)
def rhs(t, y, dm, ydot, lam, rec, ws, alpha, beta, model):
    """Right-hand side ``ydot = f(t, y)`` of :data:`.compiled.Model` ``model``; also fills the
    multipliers ``lam`` and the clearance record ``rec``.  ``ws`` holds the :data:`Work` arrays
    (:func:`workspace` of this model's masses), ``alpha``, ``beta`` [1/s] the Baumgarte
    parameters.  Returns -1 when all is well, ``joint * N_FAULT + cause`` >= 0 when a clearance
    joint's model output failed its check (see :func:`.clearance.clearance_forces`), -2 when the
    constraint system is singular, -3 when the state is not finite.

    It hands the model's arrays to :func:`rhs_arrays` one by one: this measures as fast as the
    original positional right-hand side, where a version that read the named tuple's fields
    itself (with a precomputed Schur pattern) measured about 20 % slower per call; which of the
    two cost it was not isolated.  :func:`rhs_arrays` is inlined into it (one site).

    A call, not inlined (``inline="always"``) into its callers: inlined, numba typed and compiled
    its body at each of the integrator's three sites and in the output sampler, and the first run
    of the Flores study compiled for 81.7 s of CPU; as one call, 72.9 s (cold cache, 2026-12-07,
    results bit-identical).  The call costs about 200 ns of the ~1100 ns of a right-hand side
    (from another compiled library, so never inlined by LLVM; docs/performance.md has the run
    times)."""
    return rhs_arrays(t, y, dm, ydot, lam, rec, ws, alpha, beta, model.n_rows, model.mass,
                      model.cons_i, model.cons_f, model.drv_f, model.frc_i, model.frc_f, model.gravity,
                      model.clr_i, model.clr_f, model.ckern, model.fkern, model.cpar, model.fpar,
                      model.has_z,
                      model.jf_i, model.jf_f, model.jkern, model.jpar, model.jinfo,  # joint friction
                      (model.lflag, model.lkern, model.lpar, model.dist))  # lubrication and the
    # distributed flag: one argument (30 at most: with more, CPython calls through *args, which
    # numba cannot inline)


@njit(cache=True, inline="always")
def rhs_arrays(t, y, dm, ydot, lam, rec, ws, alpha, beta, n_rows,
               mass, cons_i, cons_f, drv_f, frc_i, frc_f, gravity, clr_i, clr_f,
               ckern, fkern, cpar, fpar, has_z,
               jf_i, jf_f, jkern, jpar, jinfo, lub):
    """:func:`rhs` on the arrays of the model (:data:`.compiled.Model` fields of those names,
    ``has_z`` = ``has_z``, ``ckern``/``fkern`` the kernel tuples, ``cpar``/``fpar`` the packed
    parameters; ``jf_i`` ... ``jinfo`` the ideal joints' friction, :mod:`.joint_friction`, whose
    faults are codes <= :data:`.joint_friction.FAULT_BASE`; ``lub`` the lubrication's ``(lflag,
    lkern, lpar)`` and the distributed flag ``dist``, :func:`.clearance.clearance_forces_lubricated`;
    a feature the model lacks is None and compiled out, :func:`.compiled.features`)."""
    n = mass.shape[0]
    npts = ydot.shape[0] - 2 * n - 4
    m = max(n_rows, 1)
    q = y[:n]; qd = y[n:2 * n]; z = y[2 * n:2 * n + npts]
    Q = ws.Q; minv = ws.minv; zdot = ws.zdot
    Q[:] = 0.0
    pd = element_forces(q, qd, Q, frc_i, frc_f, gravity, mass)
    pc, pf, bad = clearance_forces_lubricated(q, qd, z, dm, Q, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar,
                                   has_z, rec, ws.tmp, lub[0], lub[1], lub[2], lub[3])
    if bad >= 0:
        return bad
    qdd = ydot[n:2 * n]
    pdrv = 0.0
    if n_rows > 0:
        rb0 = ws.rb0; rb1 = ws.rb1      # the bodies of each row (-1 = ground)
        Phi = ws.Phi; gam = ws.gam; Phit = ws.Phit; Jqd = ws.Jqd; b = ws.b
        J = ws.J; S = ws.S
        x = lam
        constraints(t, q, qd, cons_i, cons_f, drv_f, Phi, J, gam, Phit)
        # The Jacobian is sparse: a row touches the coordinates of at most two bodies (its joint's
        # or driver's).  The Schur complement Phi_q M^-1 Phi_q^T, Phi_q qd and Phi_q M^-1 Q are
        # summed over those bodies only, multiplied by the inverse masses (dividing inside the
        # sums, over every coordinate, was most of the right-hand side's cost).
        for k in range(cons_i.shape[0]):
            typ = cons_i[k, 0]; r = cons_i[k, 3]
            nr = 2 if (typ == REV or typ == TRANS) else 1
            for i in range(r, r + nr):
                rb0[i] = cons_i[k, 1]; rb1[i] = cons_i[k, 2]
        # Q assembled -> Schur complement Phi_q M^-1 Phi_q^T and its right-hand side
        for i in range(m):
            acc = 0.0
            acc2 = 0.0
            for side in range(2):
                bb = rb0[i] if side == 0 else rb1[i]
                if bb < 0:
                    continue
                for c in range(3):
                    kk = 3 * bb + c
                    acc += J[i, kk] * qd[kk]
                    acc2 += J[i, kk] * Q[kk] * minv[kk]
            Jqd[i] = acc
            b[i] = acc2 - (gam[i] - 2.0 * alpha * (Jqd[i] + Phit[i]) - beta * beta * Phi[i])
            if not math.isfinite(b[i]):
                return -3
            for j2 in range(i + 1):
                acc = 0.0
                for side in range(2):
                    bb = rb0[i] if side == 0 else rb1[i]
                    if bb < 0 or (bb != rb0[j2] and bb != rb1[j2]):
                        continue
                    for c in range(3):
                        kk = 3 * bb + c
                        acc += J[i, kk] * J[j2, kk] * minv[kk]
                S[i, j2] = acc
        # -> factorised (S = L D L^T in place) -> solved for the multipliers -> qdd
        if not ldl_factor(S, m):
            return -2
        ldl_solve(S, b, x, m)
        # close the reaction-friction loop
        jbad, pjf = reaction_friction(q, qd, x, S, J, minv, Q, cons_i, cons_f, jf_i, jf_f, jkern, jpar,
                                      jinfo, m, z, zdot)
        if jbad != -1:
            return jbad
        pf += pjf
        for k in range(n):
            qdd[k] = Q[k] * minv[k]
        for i in range(m):
            for side in range(2):
                bb = rb0[i] if side == 0 else rb1[i]
                if bb < 0:
                    continue
                for c in range(3):
                    kk = 3 * bb + c
                    qdd[kk] -= J[i, kk] * x[i] * minv[kk]
        # driver power: -lambda * (Phi_q qd) on driver rows
        for k in range(cons_i.shape[0]):
            if cons_i[k, 0] >= DRV_PHI:
                r = cons_i[k, 3]
                pdrv += -x[r] * Jqd[r]
    else:
        for i in range(n):
            qdd[i] = Q[i] / mass[i]
    for i in range(n):   # a loop, not a slice assignment: see integrator._copy
        ydot[i] = qd[i]
    for i in range(npts):
        ydot[2 * n + i] = zdot[i]
    ydot[2 * n + npts] = pdrv
    ydot[2 * n + npts + 1] = pc
    ydot[2 * n + npts + 2] = pf
    ydot[2 * n + npts + 3] = pd
    return bad


@njit(cache=True)
def reaction_friction(q, qd, x, S, J, minv, Q, cons_i, cons_f, jf_i, jf_f, jkern, jpar, jinfo, m, z, zdot):
    """The ideal joints' friction loop (:func:`.joint_friction.close_loop`): ``(fault code or -1,
    friction power [W])``; ``(-1, 0.0)`` without joint friction.  ``jf_i`` None (a model without
    it, :func:`.compiled.features`): the branch is pruned before typing and the loop not compiled."""
    if jf_i is None:
        return -1, 0.0
    if jf_i.shape[0] == 0:
        return -1, 0.0
    return close_loop(q, qd, x, S, J, minv, Q, cons_i, cons_f, jf_i, jf_f, jkern, jpar, jinfo, m, z, zdot)


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
