"""The compiled right-hand side of the spatial engine with its workspace: the entry point of the
fast path (:func:`rhs`, called by the compiled loop :func:`.integrate.deriv` and by the
``solve_ivp`` drivers of :mod:`.solver` and :mod:`.clearance.run`).

Without joint friction it allocates nothing: the kinematics, the constraint rows as two blocks
per row (:mod:`.sparse_rows`), the applied forces and the Schur-complement solve (:mod:`.schur`)
all write into the arrays of a workspace made once per run (:func:`workspace`, :func:`of`).  With
joint friction, or when the Schur complement is not positive definite (redundant constraints), it
hands the call to the dense right-hand side :func:`.kernels.rhs` (the augmented matrix, the
friction fixed point), whose results it reproduces to round-off.
"""
from __future__ import annotations

import numpy as np

from ..jit import njit
from . import kernels, schur, sparse_rows

#: scratch rows of :mod:`.sparse_rows`
N_VEC = 16


@njit(cache=True)
def workspace(nb, nj, m, J):
    """The arrays :func:`rhs` writes into, for ``nb`` bodies with body-frame inertia tensors ``J``
    [kg m^2], ``nj`` joints and ``m`` constraint rows (a tuple; ``Jinv`` filled here)."""
    mm = max(m, 1)
    Jinv = np.empty((nb, 3, 3))
    schur.inertia_inverses(J, Jinv)
    return (np.empty((nb + 1, 3)), np.empty((nb + 1, 3, 3)), np.empty((nb + 1, 3)), np.empty((nb + 1, 3)),
            np.empty(mm), np.empty(mm), np.empty(mm), np.empty((mm, 2, 6)), np.zeros((mm, 2), np.int64),
            np.empty((mm, 2, 6)), np.empty((mm, mm)), np.empty(mm), np.empty(mm), np.empty(6 * nb),
            np.empty((nb + 1, 3)), np.empty((nb + 1, 3)), Jinv, np.empty(6 * nb), np.empty((N_VEC, 3)),
            np.zeros(6 * nb), np.zeros((max(nj, 1), 2)), np.empty(13 * nb + 2), np.empty(mm, np.int64))


def of(packed):
    """:func:`workspace` for the arrays of :func:`.kernels.pack`."""
    return workspace(packed[0], packed[4].shape[0], packed[11], packed[2])


@njit(cache=True)
def rhs(t, y, alpha, beta, nb, mass, J, grav, jint, jflt, dint, dpoly, dnpoly, dharm, dnharm, m,
        spi, spf, fi, ff, ti, tf, ftab, qx, yd, ws):
    """Write ``y_dot`` into ``yd``; return 0, or 1 when the friction loop did not close: the
    arguments of :func:`.kernels.rhs` and the workspace ``ws`` (:func:`workspace`)."""
    nfj = 0
    for q in range(jint.shape[0]):
        if jint[q, 4] >= 0:
            nfj += 1
    if nfj > 0:
        return kernels.rhs(t, y, alpha, beta, nb, mass, J, grav, jint, jflt, dint, dpoly, dnpoly, dharm,
                           dnharm, m, spi, spf, fi, ff, ti, tf, ftab, qx, yd)
    R, A, V, W, Phi, Phit, gam, G, GB, Y, S, dg, lam, Q, Fw, Nw, Jinv, acc, vec, _, _, _, first = ws
    sparse_rows.kinematics_into(y, nb, R, A, V, W)
    sparse_rows.rows_into(t, R, A, V, W, nb, jint, jflt, dint, dpoly, dnpoly, dharm, dnharm, m, Phi, Phit, gam,
                          G, GB, vec)
    power, damp = sparse_rows.applied_into(nb, mass, J, grav, R, A, V, W, y, spi, spf, fi, ff, ti, tf, Q, Fw, Nw,
                                           vec)
    for c in range(6 * nb):
        Q[c] += qx[c]
    wo = 7 * nb      # the velocities' offset in y
    if schur.solve(nb, mass, Jinv, G, GB, Q, y, wo, Phi, Phit, gam, alpha, beta, m, Y, S, dg, first, lam,
                   acc) != 0:
        return kernels.rhs(t, y, alpha, beta, nb, mass, J, grav, jint, jflt, dint, dpoly, dnpoly, dharm,
                           dnharm, m, spi, spf, fi, ff, ti, tf, ftab, qx, yd)
    for b in range(nb):
        for c in range(3):
            yd[3 * b + c] = y[wo + 6 * b + c]
        o = 3 * nb + 4 * b
        e0, e1, e2, e3 = y[o], y[o + 1], y[o + 2], y[o + 3]
        om0, om1, om2 = y[wo + 6 * b + 3], y[wo + 6 * b + 4], y[wo + 6 * b + 5]
        pp = e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3 - 1.0
        yd[o + 0] = 0.5 * (-e1 * om0 - e2 * om1 - e3 * om2) - 0.5 * alpha * pp * e0
        yd[o + 1] = 0.5 * (e0 * om0 - e3 * om1 + e2 * om2) - 0.5 * alpha * pp * e1
        yd[o + 2] = 0.5 * (e3 * om0 + e0 * om1 - e1 * om2) - 0.5 * alpha * pp * e2
        yd[o + 3] = 0.5 * (-e2 * om0 + e1 * om1 + e0 * om2) - 0.5 * alpha * pp * e3
    for c in range(6 * nb):
        yd[7 * nb + c] = acc[c]
    drv = 0.0
    for q in range(dint.shape[0]):
        k = dint[q, 2]
        dw = 0.0
        for s in range(2):
            b = GB[k, s]
            if b == nb:
                continue
            for c in range(6):
                dw += G[k, s, c] * y[wo + 6 * b + c]
        drv += -lam[k] * dw
    yd[13 * nb] = power + drv
    yd[13 * nb + 1] = damp
    return 0
