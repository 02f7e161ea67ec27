"""Compiled assembly of the event-driven solver's linear system (the hot path of each evaluation).

:func:`build_system` is the compiled twin of the reference assembly in
:meth:`workbench.nonsmooth.event_driven.System._system_reference`; the tests check they agree.
"""
from __future__ import annotations

import math

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from ..mbs.equations import element_forces
from ..mbs.kinematics import constraints


@njit(cache=True)
def slide_row(q, qd, bi, bj, six, siy, sjx, sjy, ax0, ay0, W):
    """``W = ds/dq`` of the slide coordinate ``s = a . (P_j - P_i)`` into ``W``; returns the
    convective term ``c`` of ``s'' = W.q'' + c`` [m/s^2] and ``v = W.q'`` [m/s]."""
    W[:] = 0.0
    ci = 1.0; si = 0.0; wi = 0.0; rix = 0.0; riy = 0.0; vix = 0.0; viy = 0.0
    if bi >= 0:
        ci = math.cos(q[3 * bi + 2]); si = math.sin(q[3 * bi + 2]); wi = qd[3 * bi + 2]
        rix = q[3 * bi]; riy = q[3 * bi + 1]; vix = qd[3 * bi]; viy = qd[3 * bi + 1]
    cj = math.cos(q[3 * bj + 2]); sj = math.sin(q[3 * bj + 2]); wj = qd[3 * bj + 2]
    ax = ci * ax0 - si * ay0; ay = si * ax0 + ci * ay0
    Aix = ci * six - si * siy; Aiy = si * six + ci * siy
    Ajx = cj * sjx - sj * sjy; Ajy = sj * sjx + cj * sjy
    Pjx = q[3 * bj] + Ajx; Pjy = q[3 * bj + 1] + Ajy
    dx = Pjx - rix - Aix; dy = Pjy - riy - Aiy
    W[3 * bj] = ax; W[3 * bj + 1] = ay
    W[3 * bj + 2] = Ajx * ay - Ajy * ax
    if bi >= 0:
        W[3 * bi] = -ax; W[3 * bi + 1] = -ay
        W[3 * bi + 2] = -((Pjx - rix) * ay - (Pjy - riy) * ax)
    ddx = qd[3 * bj] - wj * Ajy - vix + wi * Aiy
    ddy = qd[3 * bj + 1] + wj * Ajx - viy - wi * Aix
    c = (-wi * wi * (ax * dx + ay * dy) + 2.0 * wi * (-ay * ddx + ax * ddy)
         + ax * (-wj * wj * Ajx + wi * wi * Aix) + ay * (-wj * wj * Ajy + wi * wi * Aiy))
    v = 0.0
    for k in range(W.shape[0]):
        v += W[k] * qd[k]
    return c, v


@njit(cache=True)
def build_system(t, q, qd, mass, cons_i, cons_f, drv_f, frc_i, frc_f, gravity, n_rows, alpha, beta,
                 fj_i, fj_f, modes, sides, v_eps, A, b, W, c, v, svec, Phi, J, Phit):
    """Fill ``A x = b`` (``x = (q'', lambda, F_stick)``; ``A`` sized for the stick joints among
    ``modes``), the friction rows ``W``, ``c``, ``v``, the slip signs ``svec`` and the constraint
    arrays; return the damper dissipation rate [W].  ``fj_i`` rows ``[row, bi, bj]``, ``fj_f``
    rows ``[s_ix, s_iy, s_jx, s_jy, a_x, a_y, mu, mu_static]``; ``modes`` 0 stick, 1 slip+, 2
    slip-; ``v_eps`` > 0 replaces the slip sign by ``tanh(v / v_eps)``."""
    n = mass.shape[0]
    m = n_rows
    nf = fj_i.shape[0]
    Q = np.zeros(n)
    pd = element_forces(q, qd, Q, frc_i, frc_f, gravity, mass)
    gam = np.zeros(max(m, 1))
    if m > 0:
        constraints(t, q, qd, cons_i, cons_f, drv_f, Phi, J, gam, Phit)
    A[:, :] = 0.0
    for i in range(n):
        A[i, i] = mass[i]
        b[i] = Q[i]
    for r in range(m):
        jq = 0.0
        for i in range(n):
            A[i, n + r] = J[r, i]
            A[n + r, i] = J[r, i]
            jq += J[r, i] * qd[i]
        b[n + r] = gam[r] - 2.0 * alpha * (jq + Phit[r]) - beta * beta * Phi[r]
    ks = 0
    for k in range(nf):
        c[k], v[k] = slide_row(q, qd, fj_i[k, 1], fj_i[k, 2], fj_f[k, 0], fj_f[k, 1], fj_f[k, 2],
                               fj_f[k, 3], fj_f[k, 4], fj_f[k, 5], W[k])
        if modes[k] == 0:
            col = n + m + ks
            for i in range(n):
                A[i, col] = -W[k, i]
                A[col, i] = W[k, i]
            b[col] = -c[k] - 2.0 * alpha * v[k]
            svec[k] = 0.0
            ks += 1
        else:
            if v_eps > 0.0:
                svec[k] = math.tanh(v[k] / v_eps)
            else:
                svec[k] = 1.0 if modes[k] == 1 else -1.0
            f = fj_f[k, 6] * svec[k] * sides[k]
            if f != 0.0:
                col = n + fj_i[k, 0]
                for i in range(n):
                    A[i, col] += f * W[k, i]
    return pd
