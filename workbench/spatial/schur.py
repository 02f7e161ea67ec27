"""The constrained Newton-Euler equations solved by their Schur complement, without allocating.

The augmented system ``[[M, D^T], [D, 0]] [w_dot; lambda] = [Q; c]`` (``c = gamma - 2 alpha
Phi_dot - beta^2 Phi``, :func:`.kernels.augmented_system`) has a block-diagonal ``M`` (per body
the mass [kg] on the translations and the body-frame inertia tensor ``J`` [kg m^2]); eliminating
the accelerations, ``w_dot = M^-1 (Q - D^T lambda)``, leaves

    (D M^-1 D^T) lambda = D M^-1 Q - c,

an ``m x m`` symmetric positive definite system (``D`` of full row rank) solved here by Cholesky's
method; the same elimination as the planar engine's (:func:`workbench.mbs.equations.rhs`).  ``D``
comes as two blocks per row (:mod:`.sparse_rows`): an entry of ``D M^-1 D^T`` sums only over the
bodies two rows share, so it costs nothing for rows of joints that meet no common body.  A pivot
below :data:`PIVOT_TOL` of its diagonal (a redundant constraint: ``D`` not of full rank) returns
status 1 and the caller solves the dense augmented system instead (as before).
"""
from __future__ import annotations

import math

from ..jit import njit

#: smallest Cholesky pivot relative to its diagonal entry (below: treated as rank deficient)
PIVOT_TOL = 1e-13


@njit(cache=True)
def inertia_inverses(J, Jinv):
    """``Jinv[b] = J[b]^-1`` (3 x 3, by the adjugate) for each body."""
    for b in range(J.shape[0]):
        a = J[b]
        c00 = a[1, 1] * a[2, 2] - a[1, 2] * a[2, 1]
        c01 = a[1, 2] * a[2, 0] - a[1, 0] * a[2, 2]
        c02 = a[1, 0] * a[2, 1] - a[1, 1] * a[2, 0]
        det = a[0, 0] * c00 + a[0, 1] * c01 + a[0, 2] * c02
        Jinv[b, 0, 0] = c00 / det
        Jinv[b, 1, 0] = c01 / det
        Jinv[b, 2, 0] = c02 / det
        Jinv[b, 0, 1] = (a[0, 2] * a[2, 1] - a[0, 1] * a[2, 2]) / det
        Jinv[b, 1, 1] = (a[0, 0] * a[2, 2] - a[0, 2] * a[2, 0]) / det
        Jinv[b, 2, 1] = (a[0, 1] * a[2, 0] - a[0, 0] * a[2, 1]) / det
        Jinv[b, 0, 2] = (a[0, 1] * a[1, 2] - a[0, 2] * a[1, 1]) / det
        Jinv[b, 1, 2] = (a[0, 2] * a[1, 0] - a[0, 0] * a[1, 2]) / det
        Jinv[b, 2, 2] = (a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]) / det


@njit(cache=True)
def solve(nb, mass, Jinv, G, GB, Q, y, wo, Phi, Phit, gam, alpha, beta, m, Y, S, dg, first, lam, acc):
    """The accelerations ``acc`` (6 nb: ``v_dot`` world [m/s^2], ``omega'_dot`` body frame
    [rad/s^2]) and multipliers ``lam`` (m) of the augmented system (module docstring) with the
    Jacobian's blocks ``G``, ``GB`` of :func:`.sparse_rows.rows_into`, the generalised forces ``Q``,
    the velocities ``y[wo:wo + 6 nb]``, Baumgarte's ``alpha``, ``beta`` [1/s]; ``Y`` (m, 2, 6), ``S``
    (m, m), ``dg`` and ``first`` (m) are scratch.  Returns 0, or 1 when ``D M^-1 D^T`` is not numerically
    positive definite (nothing usable in ``acc``, ``lam``)."""
    for k in range(m):
        for s in range(2):
            b = GB[k, s]
            if b == nb:
                for c in range(6):
                    Y[k, s, c] = 0.0
                continue
            im = 1.0 / mass[b]
            for c in range(3):
                Y[k, s, c] = G[k, s, c] * im
            g0 = G[k, s, 3]; g1 = G[k, s, 4]; g2 = G[k, s, 5]
            for c in range(3):
                Y[k, s, 3 + c] = Jinv[b, c, 0] * g0 + Jinv[b, c, 1] * g1 + Jinv[b, c, 2] * g2
    # D M^-1 D^T (lower triangle) and its right-hand side; first[k]: the first row that shares a
    # body with row k (the envelope: the Cholesky factor has no entry left of it)
    for k in range(m):
        first[k] = k
        for l in range(k + 1):
            v = 0.0
            for s in range(2):
                b = GB[k, s]
                if b == nb:
                    continue
                for s2 in range(2):
                    if GB[l, s2] == b:
                        if l < first[k]:
                            first[k] = l
                        for c in range(6):
                            v += G[k, s, c] * Y[l, s2, c]
            S[k, l] = v
        dg[k] = S[k, k]
        r = 0.0; pd = Phit[k]
        for s in range(2):
            b = GB[k, s]
            if b == nb:
                continue
            for c in range(6):
                r += Y[k, s, c] * Q[6 * b + c]
                pd += G[k, s, c] * y[wo + 6 * b + c]
        lam[k] = r - (gam[k] - 2 * alpha * pd - beta * beta * Phi[k])
    # Cholesky, S = L L^T in the lower triangle, row by row within the envelope
    for i in range(m):
        fi = first[i]
        for j in range(fi, i):
            p0 = fi if fi > first[j] else first[j]
            u = S[i, j]
            for p in range(p0, j):
                u -= S[i, p] * S[j, p]
            S[i, j] = u / S[j, j]
        v = S[i, i]
        for p in range(fi, i):
            v -= S[i, p] * S[i, p]
        if not v > PIVOT_TOL * dg[i]:
            return 1
        S[i, i] = math.sqrt(v)
    for k in range(m):                     # L z = r
        v = lam[k]
        for p in range(first[k], k):
            v -= S[k, p] * lam[p]
        lam[k] = v / S[k, k]
    for k in range(m - 1, -1, -1):         # L^T lambda = z
        v = lam[k]
        for p in range(k + 1, m):
            v -= S[p, k] * lam[p]
        lam[k] = v / S[k, k]
    # w_dot = M^-1 (Q - D^T lambda)
    for c in range(6 * nb):
        acc[c] = Q[c]
    for k in range(m):
        for s in range(2):
            b = GB[k, s]
            if b == nb:
                continue
            for c in range(6):
                acc[6 * b + c] -= G[k, s, c] * lam[k]
    for b in range(nb):
        im = 1.0 / mass[b]
        for c in range(3):
            acc[6 * b + c] *= im
        a0 = acc[6 * b + 3]; a1 = acc[6 * b + 4]; a2 = acc[6 * b + 5]
        for c in range(3):
            acc[6 * b + 3 + c] = Jinv[b, c, 0] * a0 + Jinv[b, c, 1] * a1 + Jinv[b, c, 2] * a2
    return 0
