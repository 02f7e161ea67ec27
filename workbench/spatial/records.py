"""The output samples of a spatial run in one compiled call (the fast path's records).

:func:`.solver.to_simulation` evaluated every sample with :meth:`.model.Model.dynamics` in Python
(~15 ms a sample on the slider-crank: most of a whole call).  :func:`sample_records` evaluates the
same quantities from the packed arrays of :func:`.kernels.pack`: the accelerations, the
multipliers and from them the joints' reactions and the drivers' loads, the kinetic and potential
energies and the constraint drift, with the right-hand side's formulas
(:func:`.kernels.constraints`, :func:`.kernels.applied`, the augmented system).  Scope: mechanisms
without joint friction (the friction records come from the reference path's loop, which keeps
those samples).
"""
from __future__ import annotations

import math

import numpy as np

from ..jit import njit
from .kernels import _reaction, applied, augmented_system, constraints, world_kinematics


@njit(cache=True)
def sample_records(times, Y, alpha, beta, nb, mass, J, grav, jint, jflt, dint, dpoly, dnpoly, dharm, dnharm, m,
                   spi, spf, fi, ff, ti, tf, QX):
    """Per sample ``k`` of the states ``Y[k]`` at ``times[k]`` with the generalised forces
    ``QX[k]`` (6 nb, the clearance joints; zeros without): the accelerations ``acc`` (nt, nb, 6;
    centre of mass [m/s^2], angular [rad/s^2], world), the joints' reactions ``react`` (nt, nj, 6;
    force [N] and moment [N m] on body j about its joint point, world), the drivers' loads
    ``dload`` (nt, nd) [N m or N], the kinetic and potential energies [J] and the position and
    velocity drifts (norms of ``Phi`` and ``Phi_dot``) -- as :func:`.solver.to_simulation`."""
    nt = times.shape[0]
    nj = jint.shape[0]
    nd = dint.shape[0]
    n = 6 * nb
    acc = np.empty((nt, nb, 6)); react = np.empty((nt, nj, 6)); dload = np.empty((nt, nd))
    ke = np.empty(nt); pe = np.empty(nt); dp = np.empty(nt); dv = np.empty(nt)
    for k in range(nt):
        y = Y[k]
        R, A, V, W = world_kinematics(y, nb)
        Phi, D, Phit, gam = constraints(times[k], R, A, V, W, nb, jint, jflt, dint, dpoly, dnpoly, dharm, dnharm, m)
        w = y[7 * nb:13 * nb]
        Q, power, damp, pot = applied(nb, mass, J, grav, R, A, V, W, w, spi, spf, fi, ff, ti, tf)
        Q += QX[k]
        K, rhs_, Phid = augmented_system(nb, mass, J, D, Q, w, Phi, Phit, gam, alpha, beta, m)
        sol = np.linalg.solve(K, rhs_)
        lam = sol[n:]
        kin = 0.0
        for b in range(nb):
            acc[k, b, :3] = sol[6 * b:6 * b + 3]
            acc[k, b, 3:] = A[b] @ sol[6 * b + 3:6 * b + 6]
            v = w[6 * b:6 * b + 3]; om = w[6 * b + 3:6 * b + 6]
            kin += 0.5 * mass[b] * (v @ v) + 0.5 * (om @ (J[b] @ om))
        for q in range(nj):
            j = jint[q, 2]
            about = R[j] + A[j] @ jflt[q, 3:6]
            F, N = _reaction(q, jint, D, lam, R, A, about, nb)
            react[k, q, :3] = F
            react[k, q, 3:] = N
        for q in range(nd):
            dload[k, q] = -lam[dint[q, 2]]
        ke[k] = kin
        pe[k] = pot
        dp[k] = math.sqrt(Phi @ Phi)
        dv[k] = math.sqrt(Phid @ Phid)
    return acc, react, dload, ke, pe, dp, dv
