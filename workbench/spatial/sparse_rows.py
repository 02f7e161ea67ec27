"""The spatial model's kinematics, constraint rows and applied forces written into a workspace,
without allocating: the allocation-free counterparts of :func:`.kernels.world_kinematics`,
:func:`.kernels.constraints` and :func:`.kernels.applied` (the same formulas, Haug (1989) §9.2's
basic constraints), for the frictionless right-hand side of :mod:`.fast_rhs`.

Each constraint row touches at most two bodies, so the Jacobian is kept as two blocks per row
instead of the dense ``D`` (m, 6 nb): ``G[k, 0]`` the row's coefficients of body ``GB[k, 0]`` (the
joint's body i) and ``G[k, 1]`` those of body ``GB[k, 1]`` (body j); each block is ``(v, omega')``:
the world velocity of the centre of mass [m/s] and the body-frame angular velocity [rad/s], as
the columns of ``D``.  A block of the ground (``GB = nb``) is computed and never read.  The
scratch ``vec`` (16, 3) holds a joint's vectors (:data:`SI` ...).
"""
from __future__ import annotations

import math

import numpy as np

from ..jit import njit
from .kernels import _fval

#: rows of ``vec``: the joint points' body vectors (world), their distance and its rate, the
#: frames' axes, the centripetal terms ``w x (w x s)`` and two scratch rows
SI, SJ, DIST, DDIST, XI, YI, ZI, XJ, YJ, ZJ, CCI, CCJ, T0, T1 = range(14)
#: constraint rows per joint type (:data:`.kernels.CODES`)
NROW = np.array([3, 5, 4, 5, 4, 6], np.int64)


@njit(cache=True)
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def _cross_to(a, b, out):
    """``out = a x b`` (``out`` may be ``a`` or ``b``)."""
    c0 = a[1] * b[2] - a[2] * b[1]
    c1 = a[2] * b[0] - a[0] * b[2]
    c2 = a[0] * b[1] - a[1] * b[0]
    out[0] = c0; out[1] = c1; out[2] = c2


@njit(cache=True)
def _mv_to(A, x, out):
    """``out = A x`` (3 x 3)."""
    for r in range(3):
        out[r] = A[r, 0] * x[0] + A[r, 1] * x[1] + A[r, 2] * x[2]


@njit(cache=True)
def kinematics_into(y, nb, R, A, V, W):
    """``R, A, V, W`` of the state ``y`` (the ground last) into the given arrays:
    :func:`.kernels.world_kinematics`."""
    for r in range(3):
        R[nb, r] = 0.0; V[nb, r] = 0.0; W[nb, r] = 0.0
        for c in range(3):
            A[nb, r, c] = 1.0 if r == c else 0.0
    for b in range(nb):
        o = 3 * nb + 4 * b
        nq = math.sqrt(y[o] * y[o] + y[o + 1] * y[o + 1] + y[o + 2] * y[o + 2] + y[o + 3] * y[o + 3])
        e0, e1, e2, e3 = y[o] / nq, y[o + 1] / nq, y[o + 2] / nq, y[o + 3] / nq
        Ab = A[b]
        Ab[0, 0] = e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3; Ab[0, 1] = 2 * (e1 * e2 - e0 * e3)
        Ab[0, 2] = 2 * (e1 * e3 + e0 * e2)
        Ab[1, 0] = 2 * (e1 * e2 + e0 * e3); Ab[1, 1] = e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3
        Ab[1, 2] = 2 * (e2 * e3 - e0 * e1)
        Ab[2, 0] = 2 * (e1 * e3 - e0 * e2); Ab[2, 1] = 2 * (e2 * e3 + e0 * e1)
        Ab[2, 2] = e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3
        v = 7 * nb + 6 * b
        for r in range(3):
            R[b, r] = y[3 * b + r]
            V[b, r] = y[v + r]
        for r in range(3):
            W[b, r] = Ab[r, 0] * y[v + 3] + Ab[r, 1] * y[v + 4] + Ab[r, 2] * y[v + 5]


@njit(cache=True)
def _dot1(k, a, b, Wi, Wj, Phi, G, gam, t0, t1):
    """Row ``k``: ``a . b = 0`` (Haug's dot-1), ``a`` on body i, ``b`` on body j."""
    Phi[k] = _dot(a, b)
    _cross_to(a, b, t0)
    for c in range(3):
        G[k, 0, 3 + c] += t0[c]
        G[k, 1, 3 + c] -= t0[c]
    _cross_to(Wi, a, t0)        # wa
    _cross_to(Wj, b, t1)        # wb
    g = 2 * _dot(t0, t1)
    _cross_to(Wi, t0, t0)
    _cross_to(Wj, t1, t1)
    gam[k] = -(_dot(b, t0) + _dot(a, t1) + g)


@njit(cache=True)
def _dot2(k, a, vec, Wi, Phi, G, gam):
    """Row ``k``: ``a . d = 0`` (Haug's dot-2), ``a`` on body i, ``d`` from i's point to j's."""
    d = vec[DIST]; si = vec[SI]; sj = vec[SJ]; t0 = vec[T0]; t1 = vec[T1]
    Phi[k] = _dot(a, d)
    for c in range(3):
        G[k, 0, c] -= a[c]
        G[k, 1, c] += a[c]
        t1[c] = d[c] + si[c]
    _cross_to(a, t1, t0)
    _cross_to(sj, a, t1)
    for c in range(3):
        G[k, 0, 3 + c] += t0[c]
        G[k, 1, 3 + c] += t1[c]
    _cross_to(Wi, a, t0)        # wa
    _cross_to(Wi, t0, t1)
    cc = 0.0
    for c in range(3):
        cc += a[c] * (vec[CCJ, c] - vec[CCI, c])
    gam[k] = -(_dot(d, t1) + 2 * _dot(t0, vec[DDIST]) + cc)


@njit(cache=True)
def _points(q, i, j, jflt, R, A, V, W, vec):
    """The joint's point vectors, their distance and its rate, and the centripetal terms."""
    _mv_to(A[i], jflt[q, 0:3], vec[SI])
    _mv_to(A[j], jflt[q, 3:6], vec[SJ])
    _cross_to(W[j], vec[SJ], vec[T0])
    _cross_to(W[i], vec[SI], vec[T1])
    for c in range(3):
        vec[DIST, c] = R[j, c] + vec[SJ, c] - R[i, c] - vec[SI, c]
        vec[DDIST, c] = V[j, c] + vec[T0, c] - V[i, c] - vec[T1, c]
    _cross_to(W[j], vec[T0], vec[CCJ])
    _cross_to(W[i], vec[T1], vec[CCI])


@njit(cache=True)
def rows_into(t, R, A, V, W, nb, jint, jflt, dint, dpoly, dnpoly, dharm, dnharm, m, Phi, Phit, gam, G, GB,
              vec):
    """The constraint rows ``Phi``, ``Phi_t`` and ``gamma`` and the Jacobian's two blocks per row
    ``G``, ``GB`` (module docstring): :func:`.kernels.constraints`, row for row."""
    for k in range(m):
        Phi[k] = 0.0; Phit[k] = 0.0; gam[k] = 0.0
        for s in range(2):
            for c in range(6):
                G[k, s, c] = 0.0
    for q in range(jint.shape[0]):
        typ, i, j, k = jint[q, 0], jint[q, 1], jint[q, 2], jint[q, 3]
        for r in range(NROW[typ]):
            GB[k + r, 0] = i; GB[k + r, 1] = j
        _points(q, i, j, jflt, R, A, V, W, vec)
        for a in range(3):
            _mv_to(A[i], jflt[q, 6 + 3 * a:9 + 3 * a], vec[XI + a])
            _mv_to(A[j], jflt[q, 15 + 3 * a:18 + 3 * a], vec[XJ + a])
        Wi = W[i]; Wj = W[j]
        t0 = vec[T0]; t1 = vec[T1]
        if typ == 0 or typ == 1 or typ == 4 or typ == 5:   # the points coincide
            si = vec[SI]; sj = vec[SJ]
            for r in range(3):
                Phi[k + r] = vec[DIST, r]
                G[k + r, 1, r] += 1.0; G[k + r, 0, r] -= 1.0
                gam[k + r] = -(vec[CCJ, r] - vec[CCI, r])
            # -skew(sj) on body j, +skew(si) on body i
            G[k, 1, 4] += sj[2]; G[k, 1, 5] -= sj[1]; G[k + 1, 1, 3] -= sj[2]
            G[k + 1, 1, 5] += sj[0]; G[k + 2, 1, 3] += sj[1]; G[k + 2, 1, 4] -= sj[0]
            G[k, 0, 4] -= si[2]; G[k, 0, 5] += si[1]; G[k + 1, 0, 3] += si[2]
            G[k + 1, 0, 5] -= si[0]; G[k + 2, 0, 3] -= si[1]; G[k + 2, 0, 4] += si[0]
            k += 3
        if typ == 1:
            _dot1(k, vec[XI], vec[ZJ], Wi, Wj, Phi, G, gam, t0, t1)
            _dot1(k + 1, vec[YI], vec[ZJ], Wi, Wj, Phi, G, gam, t0, t1)
        elif typ == 2 or typ == 3:
            _dot1(k, vec[XI], vec[ZJ], Wi, Wj, Phi, G, gam, t0, t1)
            _dot1(k + 1, vec[YI], vec[ZJ], Wi, Wj, Phi, G, gam, t0, t1)
            _dot2(k + 2, vec[XI], vec, Wi, Phi, G, gam)
            _dot2(k + 3, vec[YI], vec, Wi, Phi, G, gam)
            if typ == 3:
                _dot1(k + 4, vec[XI], vec[YJ], Wi, Wj, Phi, G, gam, t0, t1)
        elif typ == 4:
            _dot1(k, vec[ZI], vec[ZJ], Wi, Wj, Phi, G, gam, t0, t1)
        elif typ == 5:
            _dot1(k, vec[XI], vec[YJ], Wi, Wj, Phi, G, gam, t0, t1)
            _dot1(k + 1, vec[YI], vec[ZJ], Wi, Wj, Phi, G, gam, t0, t1)
            _dot1(k + 2, vec[ZI], vec[XJ], Wi, Wj, Phi, G, gam, t0, t1)
    for q in range(dint.shape[0]):
        jn, coord, k = dint[q, 0], dint[q, 1], dint[q, 2]
        i, j = jint[jn, 1], jint[jn, 2]
        GB[k, 0] = i; GB[k, 1] = j
        for a in range(3):
            _mv_to(A[i], jflt[jn, 6 + 3 * a:9 + 3 * a], vec[XI + a])
        f0 = _fval(dpoly[q], dnpoly[q], dharm[q], dnharm[q], t, 0)
        f1 = _fval(dpoly[q], dnpoly[q], dharm[q], dnharm[q], t, 1)
        f2 = _fval(dpoly[q], dnpoly[q], dharm[q], dnharm[q], t, 2)
        zi = vec[ZI]
        if coord == 0:
            _mv_to(A[j], jflt[jn, 15:18], vec[XJ])
            th = math.atan2(_dot(vec[YI], vec[XJ]), _dot(vec[XI], vec[XJ]))
            x = th - f0 + math.pi
            Phi[k] = x - 2 * math.pi * math.floor(x / (2 * math.pi)) - math.pi
            for c in range(3):
                G[k, 1, 3 + c] += zi[c]
                G[k, 0, 3 + c] -= zi[c]
                vec[T1, c] = W[j, c] - W[i, c]
            _cross_to(W[i], zi, vec[T0])
            gam[k] = f2 - _dot(vec[T0], vec[T1])
        else:
            _points(jn, i, j, jflt, R, A, V, W, vec)
            _dot2(k, zi, vec, W[i], Phi, G, gam)
            Phi[k] -= f0
            gam[k] += f2
        Phit[k] = -f1
    # the angular columns in the body frames (D's columns of omega'): row A_b
    for k in range(m):
        for s in range(2):
            Ab = A[GB[k, s]]
            w0 = G[k, s, 3]; w1 = G[k, s, 4]; w2 = G[k, s, 5]
            for c in range(3):
                G[k, s, 3 + c] = w0 * Ab[0, c] + w1 * Ab[1, c] + w2 * Ab[2, c]


@njit(cache=True)
def applied_into(nb, mass, J, grav, R, A, V, W, y, spi, spf, fi, ff, ti, tf, Q, Fw, Nw, vec):
    """Generalised applied forces into ``Q`` (6 nb) without friction; returns the loads' power
    [W] and the dampers' dissipation rate [W]: :func:`.kernels.applied` without the potential."""
    for b in range(nb + 1):
        for c in range(3):
            Fw[b, c] = mass[b] * grav[c] if b < nb else 0.0
            Nw[b, c] = 0.0
    power = 0.0; damp = 0.0
    t0 = vec[T0]; t1 = vec[T1]; sw = vec[SI]; swj = vec[SJ]
    for q in range(fi.shape[0]):
        b = fi[q]
        _mv_to(A[b], ff[q, 0:3], sw)
        F = ff[q, 3:6]
        _cross_to(sw, F, t0)
        _cross_to(W[b], sw, t1)
        for c in range(3):
            Fw[b, c] += F[c]; Nw[b, c] += t0[c]
            t1[c] += V[b, c]
        power += _dot(F, t1)
    for q in range(ti.shape[0]):
        b = ti[q]
        for c in range(3):
            Nw[b, c] += tf[q, c]
        power += _dot(tf[q], W[b])
    for q in range(spi.shape[0]):
        bi, bj = spi[q, 0], spi[q, 1]
        _mv_to(A[bi], spf[q, 0:3], sw)
        _mv_to(A[bj], spf[q, 3:6], swj)
        l2 = 0.0
        for c in range(3):
            t0[c] = R[bj, c] + swj[c] - R[bi, c] - sw[c]
            l2 += t0[c] * t0[c]
        ln = math.sqrt(l2)
        for c in range(3):
            t0[c] = t0[c] / ln                       # e
        _cross_to(W[bj], swj, t1)
        ld = 0.0
        for c in range(3):
            ld += t0[c] * (V[bj, c] + t1[c])
        _cross_to(W[bi], sw, t1)
        for c in range(3):
            ld -= t0[c] * (V[bi, c] + t1[c])
        T = spf[q, 6] * (ln - spf[q, 8]) + spf[q, 7] * ld + spf[q, 9]
        for c in range(3):
            t0[c] = T * t0[c]                        # T e
        _cross_to(swj, t0, t1)
        for c in range(3):
            Fw[bj, c] -= t0[c]; Nw[bj, c] -= t1[c]
        _cross_to(sw, t0, t1)
        for c in range(3):
            Fw[bi, c] += t0[c]; Nw[bi, c] += t1[c]
        damp += spf[q, 7] * ld * ld
    for b in range(nb):
        o = 7 * nb + 6 * b + 3
        om0, om1, om2 = y[o], y[o + 1], y[o + 2]
        Jb = J[b]
        h0 = Jb[0, 0] * om0 + Jb[0, 1] * om1 + Jb[0, 2] * om2
        h1 = Jb[1, 0] * om0 + Jb[1, 1] * om1 + Jb[1, 2] * om2
        h2 = Jb[2, 0] * om0 + Jb[2, 1] * om1 + Jb[2, 2] * om2
        gyro = (om1 * h2 - om2 * h1, om2 * h0 - om0 * h2, om0 * h1 - om1 * h0)
        Ab = A[b]
        for c in range(3):
            Q[6 * b + c] = Fw[b, c]
            Q[6 * b + 3 + c] = Ab[0, c] * Nw[b, 0] + Ab[1, c] * Nw[b, 1] + Ab[2, c] * Nw[b, 2] - gyro[c]
    return power, damp
