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
#: the integers 0..15 as a constant array: ``_I[SI]`` is an ``int64``, where a bare ``SI`` passed
#: to a compiled function is typed as its literal value, one more compiled version of the callee
#: per constant
_I = np.arange(16, dtype=np.int64)
#: constraint rows per joint type (:data:`.kernels.CODES`)
NROW = np.array([3, 5, 4, 5, 4, 6], np.int64)


@njit(cache=True)
def _dt(a, ia, b, ib):
    """``a[ia] . b[ib]`` (rows of 2-D arrays: indices, not views, keep the call free of
    reference counting)."""
    return a[ia, 0] * b[ib, 0] + a[ia, 1] * b[ib, 1] + a[ia, 2] * b[ib, 2]


@njit(cache=True)
def _cr(a, ia, b, ib, out, o):
    """``out[o] = a[ia] x b[ib]`` (``out[o]`` may be either operand)."""
    c0 = a[ia, 1] * b[ib, 2] - a[ia, 2] * b[ib, 1]
    c1 = a[ia, 2] * b[ib, 0] - a[ia, 0] * b[ib, 2]
    c2 = a[ia, 0] * b[ib, 1] - a[ia, 1] * b[ib, 0]
    out[o, 0] = c0; out[o, 1] = c1; out[o, 2] = c2


@njit(cache=True)
def _mv(A, b, src, q, off, out, o):
    """``out[o] = A[b] src[q, off:off + 3]`` (3 x 3)."""
    for r in range(3):
        out[o, r] = A[b, r, 0] * src[q, off] + A[b, r, 1] * src[q, off + 1] + A[b, r, 2] * src[q, off + 2]


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
def _dot1(k, ia, ib, i, j, W, vec, Phi, G, gam):
    """Row ``k``: ``a . b = 0`` (Haug's dot-1), ``a = vec[ia]`` on body i, ``b = vec[ib]`` on j."""
    Phi[k] = _dt(vec, ia, vec, ib)
    _cr(vec, ia, vec, ib, vec, _I[T0])
    for c in range(3):
        G[k, 0, 3 + c] += vec[T0, c]
        G[k, 1, 3 + c] -= vec[T0, c]
    _cr(W, i, vec, ia, vec, _I[T0])        # wa
    _cr(W, j, vec, ib, vec, _I[T1])        # wb
    g = 2 * _dt(vec, _I[T0], vec, _I[T1])
    _cr(W, i, vec, _I[T0], vec, _I[T0])
    _cr(W, j, vec, _I[T1], vec, _I[T1])
    gam[k] = -(_dt(vec, ib, vec, _I[T0]) + _dt(vec, ia, vec, _I[T1]) + g)


@njit(cache=True)
def _dot2(k, ia, i, W, vec, Phi, G, gam):
    """Row ``k``: ``a . d = 0`` (Haug's dot-2), ``a = vec[ia]`` on body i, ``d`` from i's point
    to j's."""
    Phi[k] = _dt(vec, ia, vec, _I[DIST])
    for c in range(3):
        G[k, 0, c] -= vec[ia, c]
        G[k, 1, c] += vec[ia, c]
        vec[T1, c] = vec[DIST, c] + vec[SI, c]
    _cr(vec, ia, vec, _I[T1], vec, _I[T0])
    _cr(vec, _I[SJ], vec, ia, vec, _I[T1])
    for c in range(3):
        G[k, 0, 3 + c] += vec[T0, c]
        G[k, 1, 3 + c] += vec[T1, c]
    _cr(W, i, vec, ia, vec, _I[T0])        # wa
    _cr(W, i, vec, _I[T0], vec, _I[T1])
    cc = 0.0
    for c in range(3):
        cc += vec[ia, c] * (vec[CCJ, c] - vec[CCI, c])
    gam[k] = -(_dt(vec, _I[DIST], vec, _I[T1]) + 2 * _dt(vec, _I[T0], vec, _I[DDIST]) + cc)


@njit(cache=True)
def _points(q, i, j, jflt, R, A, V, W, vec):
    """The joint's point vectors, their distance and its rate, and the centripetal terms."""
    _mv(A, i, jflt, q, _I[0], vec, _I[SI])
    _mv(A, j, jflt, q, _I[3], vec, _I[SJ])
    _cr(W, j, vec, _I[SJ], vec, _I[T0])
    _cr(W, i, vec, _I[SI], vec, _I[T1])
    for c in range(3):
        vec[DIST, c] = R[j, c] + vec[SJ, c] - R[i, c] - vec[SI, c]
        vec[DDIST, c] = V[j, c] + vec[T0, c] - V[i, c] - vec[T1, c]
    _cr(W, j, vec, _I[T0], vec, _I[CCJ])
    _cr(W, i, vec, _I[T1], vec, _I[CCI])


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
            _mv(A, i, jflt, q, 6 + 3 * a, vec, _I[XI] + a)
            _mv(A, j, jflt, q, 15 + 3 * a, vec, _I[XJ] + a)
        if typ == 0 or typ == 1 or typ == 4 or typ == 5:   # the points coincide
            for r in range(3):
                Phi[k + r] = vec[DIST, r]
                G[k + r, 1, r] += 1.0; G[k + r, 0, r] -= 1.0
                gam[k + r] = -(vec[CCJ, r] - vec[CCI, r])
            # -skew(sj) on body j, +skew(si) on body i
            G[k, 1, 4] += vec[SJ, 2]; G[k, 1, 5] -= vec[SJ, 1]; G[k + 1, 1, 3] -= vec[SJ, 2]
            G[k + 1, 1, 5] += vec[SJ, 0]; G[k + 2, 1, 3] += vec[SJ, 1]; G[k + 2, 1, 4] -= vec[SJ, 0]
            G[k, 0, 4] -= vec[SI, 2]; G[k, 0, 5] += vec[SI, 1]; G[k + 1, 0, 3] += vec[SI, 2]
            G[k + 1, 0, 5] -= vec[SI, 0]; G[k + 2, 0, 3] -= vec[SI, 1]; G[k + 2, 0, 4] += vec[SI, 0]
            k += 3
        if typ == 1:
            _dot1(k, _I[XI], _I[ZJ], i, j, W, vec, Phi, G, gam)
            _dot1(k + 1, _I[YI], _I[ZJ], i, j, W, vec, Phi, G, gam)
        elif typ == 2 or typ == 3:
            _dot1(k, _I[XI], _I[ZJ], i, j, W, vec, Phi, G, gam)
            _dot1(k + 1, _I[YI], _I[ZJ], i, j, W, vec, Phi, G, gam)
            _dot2(k + 2, _I[XI], i, W, vec, Phi, G, gam)
            _dot2(k + 3, _I[YI], i, W, vec, Phi, G, gam)
            if typ == 3:
                _dot1(k + 4, _I[XI], _I[YJ], i, j, W, vec, Phi, G, gam)
        elif typ == 4:
            _dot1(k, _I[ZI], _I[ZJ], i, j, W, vec, Phi, G, gam)
        elif typ == 5:
            _dot1(k, _I[XI], _I[YJ], i, j, W, vec, Phi, G, gam)
            _dot1(k + 1, _I[YI], _I[ZJ], i, j, W, vec, Phi, G, gam)
            _dot1(k + 2, _I[ZI], _I[XJ], i, j, W, vec, Phi, G, gam)
    for q in range(dint.shape[0]):
        jn, coord, k = dint[q, 0], dint[q, 1], dint[q, 2]
        i, j = jint[jn, 1], jint[jn, 2]
        GB[k, 0] = i; GB[k, 1] = j
        for a in range(3):
            _mv(A, i, jflt, jn, 6 + 3 * a, vec, _I[XI] + a)
        f0 = _fval(dpoly[q], dnpoly[q], dharm[q], dnharm[q], t, 0)
        f1 = _fval(dpoly[q], dnpoly[q], dharm[q], dnharm[q], t, 1)
        f2 = _fval(dpoly[q], dnpoly[q], dharm[q], dnharm[q], t, 2)
        if coord == 0:
            _mv(A, j, jflt, jn, _I[15], vec, _I[XJ])
            th = math.atan2(_dt(vec, _I[YI], vec, _I[XJ]), _dt(vec, _I[XI], vec, _I[XJ]))
            x = th - f0 + math.pi
            Phi[k] = x - 2 * math.pi * math.floor(x / (2 * math.pi)) - math.pi
            for c in range(3):
                G[k, 1, 3 + c] += vec[ZI, c]
                G[k, 0, 3 + c] -= vec[ZI, c]
                vec[T1, c] = W[j, c] - W[i, c]
            _cr(W, i, vec, _I[ZI], vec, _I[T0])
            gam[k] = f2 - _dt(vec, _I[T0], vec, _I[T1])
        else:
            _points(jn, i, j, jflt, R, A, V, W, vec)
            _dot2(k, _I[ZI], i, W, vec, Phi, G, gam)
            Phi[k] -= f0
            gam[k] += f2
        Phit[k] = -f1
    # the angular columns in the body frames (D's columns of omega'): row A_b
    for k in range(m):
        for s in range(2):
            b = GB[k, s]
            w0 = G[k, s, 3]; w1 = G[k, s, 4]; w2 = G[k, s, 5]
            for c in range(3):
                G[k, s, 3 + c] = w0 * A[b, 0, c] + w1 * A[b, 1, c] + w2 * A[b, 2, c]


@njit(cache=True)
def applied_into(nb, mass, J, grav, R, A, V, W, y, spi, spf, fi, ff, ti, tf, Q, Fw, Nw, vec):
    """Generalised applied forces into ``Q`` (6 nb) without friction; returns the loads' power
    [W] and the dampers' dissipation rate [W]: :func:`.kernels.applied` without the potential."""
    for b in range(nb + 1):
        for c in range(3):
            Fw[b, c] = mass[b] * grav[c] if b < nb else 0.0
            Nw[b, c] = 0.0
    power = 0.0; damp = 0.0
    for q in range(fi.shape[0]):
        b = fi[q]
        _mv(A, b, ff, q, _I[0], vec, _I[SI])                 # sw
        for c in range(3):
            vec[DIST, c] = ff[q, 3 + c]              # F
        _cr(vec, _I[SI], vec, _I[DIST], vec, _I[T0])
        _cr(W, b, vec, _I[SI], vec, _I[T1])
        for c in range(3):
            Fw[b, c] += vec[DIST, c]; Nw[b, c] += vec[T0, c]
            vec[T1, c] += V[b, c]
        power += _dt(vec, _I[DIST], vec, _I[T1])
    for q in range(ti.shape[0]):
        b = ti[q]
        for c in range(3):
            Nw[b, c] += tf[q, c]
        power += _dt(tf, q, W, b)
    for q in range(spi.shape[0]):
        bi, bj = spi[q, 0], spi[q, 1]
        _mv(A, bi, spf, q, _I[0], vec, _I[SI])
        _mv(A, bj, spf, q, _I[3], vec, _I[SJ])
        l2 = 0.0
        for c in range(3):
            vec[T0, c] = R[bj, c] + vec[SJ, c] - R[bi, c] - vec[SI, c]
            l2 += vec[T0, c] * vec[T0, c]
        ln = math.sqrt(l2)
        for c in range(3):
            vec[T0, c] = vec[T0, c] / ln             # e
        _cr(W, bj, vec, _I[SJ], vec, _I[T1])
        ld = 0.0
        for c in range(3):
            ld += vec[T0, c] * (V[bj, c] + vec[T1, c])
        _cr(W, bi, vec, _I[SI], vec, _I[T1])
        for c in range(3):
            ld -= vec[T0, c] * (V[bi, c] + vec[T1, c])
        T = spf[q, 6] * (ln - spf[q, 8]) + spf[q, 7] * ld + spf[q, 9]
        for c in range(3):
            vec[T0, c] = T * vec[T0, c]              # T e
        _cr(vec, _I[SJ], vec, _I[T0], vec, _I[T1])
        for c in range(3):
            Fw[bj, c] -= vec[T0, c]; Nw[bj, c] -= vec[T1, c]
        _cr(vec, _I[SI], vec, _I[T0], vec, _I[T1])
        for c in range(3):
            Fw[bi, c] += vec[T0, c]; Nw[bi, c] += vec[T1, c]
        damp += spf[q, 7] * ld * ld
    for b in range(nb):
        o = 7 * nb + 6 * b + 3
        om0, om1, om2 = y[o], y[o + 1], y[o + 2]
        h0 = J[b, 0, 0] * om0 + J[b, 0, 1] * om1 + J[b, 0, 2] * om2
        h1 = J[b, 1, 0] * om0 + J[b, 1, 1] * om1 + J[b, 1, 2] * om2
        h2 = J[b, 2, 0] * om0 + J[b, 2, 1] * om1 + J[b, 2, 2] * om2
        g0 = om1 * h2 - om2 * h1; g1 = om2 * h0 - om0 * h2; g2 = om0 * h1 - om1 * h0
        for c in range(3):
            gy = g0 if c == 0 else (g1 if c == 1 else g2)
            Q[6 * b + c] = Fw[b, c]
            Q[6 * b + 3 + c] = A[b, 0, c] * Nw[b, 0] + A[b, 1, c] * Nw[b, 1] + A[b, 2, c] * Nw[b, 2] - gy
    return power, damp
