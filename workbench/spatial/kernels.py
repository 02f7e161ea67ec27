"""The compiled right-hand side of the spatial engine (the fast path): the same equations as
:meth:`workbench.spatial.model.Model.dynamics`, on packed arrays (:func:`pack`), with numba.

Scope: every joint type, drivers, gravity, springs, applied loads and joint friction.  The
friction laws are evaluated at unit load (their force is linear in the load), so they depend on
the slip speeds only: :func:`slip_speeds` (compiled) gives those, each joint's law kernel (the
plugin's own compiled function, called from Python) gives ``ftab``, and :func:`rhs` takes the
table; no function is passed into compiled code, so every kernel here is cached on disk.  The reactions-
friction loop is the fixed-point iteration; a call where it does not converge in
:data:`FIXED_POINT_ITER` iterations returns status 1 and the caller evaluates that right-hand side
on the reference path (Powell's method there).  The revolute joint's axial contact point (Qi, Luo
& Huang (2009) eq. 36), a revolute joint's or a universal joint's journal's, is iterated likewise; a journal that is not tilted, or no consistent point,
returns status 1: the flush state (:mod:`.axial_contact`) is solved on the reference path.  An axial
load of round-off size beside the radial one is not placed (:data:`.axial_contact.ROUNDOFF`, the
reference path's test).
"""
from __future__ import annotations

import cmath
import math

import numpy as np

from ..jit import njit
from .axial_contact import FLUSH_SLACK, ROUNDOFF as AXIAL_ROUNDOFF

FIXED_POINT_ITER = 40
RTOL = 1e-13
AXIAL_ITER = 60
AXIAL_TOL = 1e-14
#: joint type codes
CODES = {"spherical": 0, "revolute": 1, "cylindrical": 2, "prismatic": 3, "universal": 4, "fixed": 5}


@njit(cache=True, inline="always")
def _cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@njit(cache=True)
def _rot(p):
    n = math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3])
    e0, e1, e2, e3 = p[0] / n, p[1] / n, p[2] / n, p[3] / n
    A = np.empty((3, 3))
    A[0, 0] = e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3; A[0, 1] = 2 * (e1 * e2 - e0 * e3); A[0, 2] = 2 * (e1 * e3 + e0 * e2)
    A[1, 0] = 2 * (e1 * e2 + e0 * e3); A[1, 1] = e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3; A[1, 2] = 2 * (e2 * e3 - e0 * e1)
    A[2, 0] = 2 * (e1 * e3 - e0 * e2); A[2, 1] = 2 * (e2 * e3 + e0 * e1); A[2, 2] = e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3
    return A


@njit(cache=True)
def _skew(a):
    S = np.zeros((3, 3))
    S[0, 1] = -a[2]; S[0, 2] = a[1]; S[1, 0] = a[2]; S[1, 2] = -a[0]; S[2, 0] = -a[1]; S[2, 1] = a[0]
    return S


@njit(cache=True)
def _fval(poly, npoly, harm, nharm, t, d):
    v = 0.0
    for k in range(npoly):
        if k >= d:
            c = 1.0
            for q in range(k - d + 1, k + 1):
                c *= q
            v += poly[k] * c * t ** (k - d)
    for m in range(nharm):
        A, w, ph = harm[m, 0], harm[m, 1], harm[m, 2]
        x = w * t + ph
        if d == 0:
            v += A * math.sin(x)
        elif d == 1:
            v += A * w * math.cos(x)
        else:
            v -= A * w * w * math.sin(x)
    return v


@njit(cache=True)
def _dot1(k, i, j, a, b, W, Phi, Jw, gam):
    Phi[k] = a @ b
    Jw[k, i, 3:] += _cross(a, b)
    Jw[k, j, 3:] += _cross(b, a)
    wa = _cross(W[i], a); wb = _cross(W[j], b)
    gam[k] = -(b @ _cross(W[i], wa) + a @ _cross(W[j], wb) + 2 * (wa @ wb))


@njit(cache=True)
def _dot2(k, i, j, a, d, dd, si, sj, cci, ccj, W, Phi, Jw, gam):
    Phi[k] = a @ d
    Jw[k, i, :3] -= a; Jw[k, j, :3] += a
    Jw[k, i, 3:] += _cross(a, d + si); Jw[k, j, 3:] += _cross(sj, a)
    wa = _cross(W[i], a)
    gam[k] = -(d @ _cross(W[i], wa) + 2 * (wa @ dd) + a @ (ccj - cci))


@njit(cache=True)
def constraints(t, R, A, V, W, nb, jint, jflt, dint, dpoly, dnpoly, dharm, dnharm, m):
    Phi = np.zeros(m); Phit = np.zeros(m); gam = np.zeros(m)
    Jw = np.zeros((m, nb + 1, 6))
    for q in range(jint.shape[0]):
        typ, i, j, k = jint[q, 0], jint[q, 1], jint[q, 2], jint[q, 3]
        si = A[i] @ jflt[q, 0:3]; sj = A[j] @ jflt[q, 3:6]
        d = R[j] + sj - R[i] - si
        dd = V[j] + _cross(W[j], sj) - V[i] - _cross(W[i], si)
        Fi = A[i] @ jflt[q, 6:15].reshape(3, 3).T
        Fj = A[j] @ jflt[q, 15:24].reshape(3, 3).T
        xi, yi, zi = Fi[:, 0].copy(), Fi[:, 1].copy(), Fi[:, 2].copy()
        xj, yj, zj = Fj[:, 0].copy(), Fj[:, 1].copy(), Fj[:, 2].copy()
        cci = _cross(W[i], _cross(W[i], si)); ccj = _cross(W[j], _cross(W[j], sj))
        if typ in (0, 1, 4, 5):   # the points coincide
            for r in range(3):
                Phi[k + r] = d[r]
                Jw[k + r, j, r] += 1.0; Jw[k + r, i, r] -= 1.0
                gam[k + r] = -(ccj[r] - cci[r])
            Sj = _skew(sj); Si = _skew(si)
            for r in range(3):
                for c in range(3):
                    Jw[k + r, j, 3 + c] -= Sj[r, c]
                    Jw[k + r, i, 3 + c] += Si[r, c]
            k += 3
        if typ == 1:
            _dot1(k, i, j, xi, zj, W, Phi, Jw, gam); _dot1(k + 1, i, j, yi, zj, W, Phi, Jw, gam)
        elif typ == 2 or typ == 3:
            _dot1(k, i, j, xi, zj, W, Phi, Jw, gam); _dot1(k + 1, i, j, yi, zj, W, Phi, Jw, gam)
            _dot2(k + 2, i, j, xi, d, dd, si, sj, cci, ccj, W, Phi, Jw, gam)
            _dot2(k + 3, i, j, yi, d, dd, si, sj, cci, ccj, W, Phi, Jw, gam)
            if typ == 3:
                _dot1(k + 4, i, j, xi, yj, W, Phi, Jw, gam)
        elif typ == 4:
            _dot1(k, i, j, zi, zj, W, Phi, Jw, gam)
        elif typ == 5:
            _dot1(k, i, j, xi, yj, W, Phi, Jw, gam); _dot1(k + 1, i, j, yi, zj, W, Phi, Jw, gam)
            _dot1(k + 2, i, j, zi, xj, W, Phi, Jw, gam)
    for q in range(dint.shape[0]):
        jn, coord, k = dint[q, 0], dint[q, 1], dint[q, 2]
        i, j = jint[jn, 1], jint[jn, 2]
        Fi = A[i] @ jflt[jn, 6:15].reshape(3, 3).T
        xi, yi, zi = Fi[:, 0].copy(), Fi[:, 1].copy(), Fi[:, 2].copy()
        f0 = _fval(dpoly[q], dnpoly[q], dharm[q], dnharm[q], t, 0)
        f1 = _fval(dpoly[q], dnpoly[q], dharm[q], dnharm[q], t, 1)
        f2 = _fval(dpoly[q], dnpoly[q], dharm[q], dnharm[q], t, 2)
        if coord == 0:
            xj = A[j] @ jflt[jn, 15:18]
            th = math.atan2(yi @ xj, xi @ xj)
            x = th - f0 + math.pi
            Phi[k] = x - 2 * math.pi * math.floor(x / (2 * math.pi)) - math.pi
            Jw[k, j, 3:] += zi; Jw[k, i, 3:] -= zi
            gam[k] = f2 - _cross(W[i], zi) @ (W[j] - W[i])
        else:
            si = A[i] @ jflt[jn, 0:3]; sj = A[j] @ jflt[jn, 3:6]
            d = R[j] + sj - R[i] - si
            dd = V[j] + _cross(W[j], sj) - V[i] - _cross(W[i], si)
            cci = _cross(W[i], _cross(W[i], si)); ccj = _cross(W[j], _cross(W[j], sj))
            _dot2(k, i, j, zi, d, dd, si, sj, cci, ccj, W, Phi, Jw, gam)
            Phi[k] -= f0
            gam[k] += f2
        Phit[k] = -f1
    D = np.empty((m, 6 * nb))
    for b in range(nb):
        D[:, 6 * b:6 * b + 3] = Jw[:, b, :3]
        D[:, 6 * b + 3:6 * b + 6] = np.ascontiguousarray(Jw[:, b, 3:]) @ A[b]
    return Phi, D, Phit, gam


@njit(cache=True)
def _radial_matrix(k_s, k_r, R, c):
    A = np.empty((4, 4))
    for col in (0, 2):
        s = -1.0 if col == 0 else 1.0
        A[0, col] = -1.0; A[1, col] = k_r; A[2, col] = -s * c * k_r; A[3, col] = -(s * c + R * k_s)
        A[0, col + 1] = -k_r; A[1, col + 1] = -1.0; A[2, col + 1] = s * c + R * k_s; A[3, col + 1] = -s * c * k_r
    return A


@njit(cache=True)
def _axial_perp(g3, g4, n3, k_r, R, c):
    out = np.zeros(4)
    e1 = np.array([1.0, 0.0, 0.0])
    for q in range(2):
        g = g3 if q == 0 else g4
        s = -1.0 if q == 0 else 1.0
        n = n3 if q == 0 else -n3
        if g == 0.0:
            continue
        f = g * (-s * e1 + k_r * _cross(e1, n))
        mm = _cross(s * c * e1 + R * n, f)
        out[0] += f[1]; out[1] += f[2]; out[2] += mm[1]; out[3] += mm[2]
    return out


@njit(cache=True)
def _axial_dir(u):
    F1 = math.hypot(u[0], u[1]); F2 = math.hypot(u[2], u[3])
    d = np.zeros(3)
    if F1 == 0.0 or F2 == 0.0:
        return d
    d[1] = u[2] / F2 - u[0] / F1; d[2] = u[3] / F2 - u[1] / F1
    nd = math.sqrt(d[1] * d[1] + d[2] * d[2])
    if nd <= 1e-12:
        return np.zeros(3)
    return d / nd


@njit(cache=True)
def _det4(M):
    """The determinant of a 4 x 4 matrix by its 2 x 2 minors (no allocation, no pivoting: the
    flush system's are well scaled by the caller)."""
    s0 = M[0, 0] * M[1, 1] - M[1, 0] * M[0, 1]
    s1 = M[0, 0] * M[1, 2] - M[1, 0] * M[0, 2]
    s2 = M[0, 0] * M[1, 3] - M[1, 0] * M[0, 3]
    s3 = M[0, 1] * M[1, 2] - M[1, 1] * M[0, 2]
    s4 = M[0, 1] * M[1, 3] - M[1, 1] * M[0, 3]
    s5 = M[0, 2] * M[1, 3] - M[1, 2] * M[0, 3]
    c5 = M[2, 2] * M[3, 3] - M[3, 2] * M[2, 3]
    c4 = M[2, 1] * M[3, 3] - M[3, 1] * M[2, 3]
    c3 = M[2, 1] * M[3, 2] - M[3, 1] * M[2, 2]
    c2 = M[2, 0] * M[3, 3] - M[3, 0] * M[2, 3]
    c1 = M[2, 0] * M[3, 2] - M[3, 0] * M[2, 2]
    c0 = M[2, 0] * M[3, 1] - M[3, 0] * M[2, 1]
    return s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0


@njit(cache=True)
def _cubic_real_roots(a, b, c, d, out):
    """The real roots of ``a t^3 + b t^2 + c t + d`` into ``out`` (length 3), their count: roots whose
    imaginary part is at most 1e-9 (1 + |real part|), as :func:`.axial_contact._flush_mode` takes
    ``np.roots``'s; closed form (Cardano in complex arithmetic; the quadratic or linear one when
    the leading coefficients are zero), each real root polished by two Newton steps."""
    n = 0
    if a == 0.0:
        if b == 0.0:
            if c != 0.0:
                out[0] = -d / c
                n = 1
            return n
        disc = complex(c * c - 4.0 * b * d)
        sq = cmath.sqrt(disc)
        for k in range(2):
            r = (-c + (sq if k == 0 else -sq)) / (2.0 * b)
            if abs(r.imag) <= 1e-9 * (1.0 + abs(r.real)):
                out[n] = r.real
                n += 1
        return n
    B = b / a; Cc = c / a; D = d / a
    p = Cc - B * B / 3.0
    q = 2.0 * B * B * B / 27.0 - B * Cc / 3.0 + D
    disc = complex(q * q / 4.0 + p * p * p / 27.0)
    sq = cmath.sqrt(disc)
    w = -q / 2.0 + sq
    if abs(w) < abs(-q / 2.0 - sq):
        w = -q / 2.0 - sq
    if w == 0.0:
        C0 = complex(0.0)
    else:
        C0 = cmath.exp(cmath.log(w) / 3.0)
    om = complex(-0.5, math.sqrt(3.0) / 2.0)
    Ck = C0
    for k in range(3):
        if Ck == 0.0:
            x = complex(0.0)
        else:
            x = Ck - p / (3.0 * Ck)
        r = x - B / 3.0
        if abs(r.imag) <= 1e-9 * (1.0 + abs(r.real)):
            t = r.real
            for _ in range(2):
                f = ((a * t + b) * t + c) * t + d
                fp = (3.0 * a * t + 2.0 * b) * t + c
                if fp == 0.0:
                    break
                t = t - f / fp
            out[n] = t
            n += 1
        Ck = Ck * om
    return n


@njit(cache=True)
def _flush_fill(A, P2, P3, th, mode, C):
    """The three unknowns' columns of a flush ``mode`` (0: ``sigma = 0``, 1: ``F1 = 0``, 2: ``F2 =
    0``) at azimuth ``th`` (:func:`.axial_contact._flush_mode`) into the first three columns of ``C``."""
    s = math.sin(th); co = math.cos(th)
    for i in range(4):
        c1 = A[i, 0] * s + A[i, 1] * co
        c2 = A[i, 2] * s + A[i, 3] * co
        ct = -co * P2[i] + s * P3[i]
        cn = s * P2[i] + co * P3[i]
        if mode == 0:
            C[i, 0] = c1; C[i, 1] = c2; C[i, 2] = ct
        elif mode == 1:
            C[i, 0] = c2; C[i, 1] = ct; C[i, 2] = cn
        else:
            C[i, 0] = c1; C[i, 1] = ct; C[i, 2] = cn


@njit(cache=True)
def _lsq43(C, b, Q, r, x):
    """Least squares of the 4 x 3 ``C`` against ``b`` into ``x`` by modified Gram-Schmidt (``Q``
    4 x 3 and ``r`` 3 x 3 scratch); False when ``C`` is rank deficient (the caller then takes numpy's
    lstsq)."""
    for j in range(3):
        for i in range(4):
            Q[i, j] = C[i, j]
        cn = math.sqrt(C[0, j] ** 2 + C[1, j] ** 2 + C[2, j] ** 2 + C[3, j] ** 2)
        for k in range(j):
            rkj = Q[0, k] * Q[0, j] + Q[1, k] * Q[1, j] + Q[2, k] * Q[2, j] + Q[3, k] * Q[3, j]
            r[k, j] = rkj
            for i in range(4):
                Q[i, j] -= rkj * Q[i, k]
        nj = math.sqrt(Q[0, j] ** 2 + Q[1, j] ** 2 + Q[2, j] ** 2 + Q[3, j] ** 2)
        if not nj > 1e-12 * cn:
            return False
        r[j, j] = nj
        for i in range(4):
            Q[i, j] /= nj
    for j in range(2, -1, -1):
        y = Q[0, j] * b[0] + Q[1, j] * b[1] + Q[2, j] * b[2] + Q[3, j] * b[3]
        for k in range(j + 1, 3):
            y -= r[j, k] * x[k]
        x[j] = y / r[j, j]
    return True


@njit(cache=True)
def _flush_mode(A, b0, P2, P3, mode, scale, f_scale, Cb, C, Q, r, x, roots):
    """:func:`.axial_contact.flush_py`'s modes compiled: ``(found, u, n3)`` (``Cb`` 4 x 4, ``C``, ``Q``
    4 x 3, ``r`` 3 x 3, ``x``, ``roots`` 3: scratch).  The steps of the Python one with its numpy
    calls written out: the determinants by their minors, the cubic's coefficients and real roots
    in closed form, least squares by Gram-Schmidt."""
    hv0 = 0.0; hv1 = 0.0; hv2 = 0.0; hv3 = 0.0
    for k in range(4):
        t = -1.0 + k
        th = math.atan(t)
        _flush_fill(A, P2, P3, th, mode, Cb)
        for i in range(4):
            Cb[i, 3] = b0[i]
        h = _det4(Cb) / math.cos(th) ** 3
        if k == 0:
            hv0 = h
        elif k == 1:
            hv1 = h
        elif k == 2:
            hv2 = h
        else:
            hv3 = h
    # the cubic through the four values at t = -1, 0, 1, 2 (np.polyfit's), in closed form
    d = hv1
    b = 0.5 * (hv0 + hv2) - d
    a = (hv3 - 4.0 * b - d - hv2 + hv0) / 6.0
    c = 0.5 * (hv2 - hv0) - a
    nr = 0
    if a != 0.0 or b != 0.0 or c != 0.0 or d != 0.0:
        nr = _cubic_real_roots(a, b, c, d, roots)
    best_res = math.inf
    u = np.zeros(4)
    n3 = np.zeros(3)
    for m in range(2 + 2 * nr):
        if m == 0:
            th = math.pi / 2
        elif m == 1:
            th = -math.pi / 2
        else:
            th = math.atan(roots[(m - 2) // 2]) + (math.pi if (m - 2) % 2 == 1 else 0.0)
        _flush_fill(A, P2, P3, th, mode, C)
        if not _lsq43(C, b0, Q, r, x):
            x[:] = np.linalg.lstsq(C, b0)[0]
        res = 0.0
        for i in range(4):
            res = max(res, abs(C[i, 0] * x[0] + C[i, 1] * x[1] + C[i, 2] * x[2] - b0[i]))
        if not res <= 1e-9 * scale:
            continue
        if mode == 0:
            F1 = x[0]; F2 = x[1]; nu = x[2]; sigma = 0.0
        elif mode == 1:
            F1 = 0.0; F2 = x[0]; nu = x[1]; sigma = x[2]
        else:
            F1 = x[0]; F2 = 0.0; nu = x[1]; sigma = x[2]
        if min(F1, F2) < -FLUSH_SLACK * f_scale or math.hypot(nu, sigma) > 1.0 + FLUSH_SLACK:
            continue
        if res < best_res:
            best_res = res
            F1 = max(F1, 0.0); F2 = max(F2, 0.0)
            u[0] = F1 * math.sin(th); u[1] = F1 * math.cos(th)
            u[2] = F2 * math.sin(th); u[3] = F2 * math.cos(th)
            # n3 = nu (e1 x n) + sigma n, n = (0, sin th, cos th)
            n3[1] = -nu * math.cos(th) + sigma * math.sin(th)
            n3[2] = nu * math.sin(th) + sigma * math.cos(th)
    return best_res < math.inf, u, n3


@njit(cache=True)
def _flush(A, b0, g3, g4, k_r, R, c):
    """:func:`.axial_contact.flush` compiled: ``(found, u, n3)``."""
    e2 = np.array([0.0, 1.0, 0.0]); e3 = np.array([0.0, 0.0, 1.0])
    P2 = _axial_perp(g3, g4, e2, k_r, R, c)
    P3 = _axial_perp(g3, g4, e3, k_r, R, c)
    scale = np.max(np.abs(b0))
    if scale == 0.0:
        scale = 1.0
    f_scale = abs(b0[0]) + abs(b0[1]) + (abs(b0[2]) + abs(b0[3])) / c
    if f_scale == 0.0:
        f_scale = 1.0
    Cb = np.empty((4, 4)); C = np.empty((4, 3)); Q = np.empty((4, 3)); r = np.empty((3, 3))
    x = np.empty(3); roots = np.empty(3)
    for mode in range(3):
        found, u, n3 = _flush_mode(A, b0, P2, P3, mode, scale, f_scale, Cb, C, Q, r, x, roots)
        if found:
            return True, u, n3
    return False, np.zeros(4), np.zeros(3)


@njit(cache=True)
def _wrap(x):
    """``math.remainder(x, 2 pi)``: ``x`` wrapped to ``[-pi, pi]``."""
    return x - 2.0 * math.pi * np.rint(x / (2.0 * math.pi))


@njit(cache=True)
def _tilted_resid(A, b0, g3, g4, k_r, R, c, nu, th):
    """:func:`.axial_contact.tilted`'s ``resid``: ``(r, D, u)``, ``r`` NaN when a radial load is zero."""
    n3 = np.array([0.0, -nu * math.cos(th), nu * math.sin(th)])
    u = np.linalg.solve(A, b0 - _axial_perp(g3, g4, n3, k_r, R, c))
    if (u[0] != 0.0 or u[1] != 0.0) and (u[2] != 0.0 or u[3] != 0.0):
        t1 = math.atan2(u[0], u[1]); t2 = math.atan2(u[2], u[3])
        D = _wrap(t2 - t1)
        return _wrap(t1 + 0.5 * D - th), D, u
    return math.nan, 0.0, u


@njit(cache=True)
def _tilted_secant(A, b0, g3, g4, k_r, R, c, u0):
    """The first try of :func:`.axial_contact.tilted` compiled: the secant method on the mean
    azimuth from the loads without the face moment ``u0``; ``(found, u, n3)``."""
    n3 = np.zeros(3)
    if not ((u0[0] != 0.0 or u0[1] != 0.0) and (u0[2] != 0.0 or u0[3] != 0.0)):
        return False, u0, n3
    t1 = math.atan2(u0[0], u0[1]); t2 = math.atan2(u0[2], u0[3])
    D0 = _wrap(t2 - t1)
    nu = -1.0 if D0 >= 0 else 1.0
    x0 = t1 + 0.5 * D0
    x1 = x0 + 1e-3
    f0 = _tilted_resid(A, b0, g3, g4, k_r, R, c, nu, x0)[0]
    for _ in range(30):
        f1, D, u = _tilted_resid(A, b0, g3, g4, k_r, R, c, nu, x1)
        if not (np.isfinite(f0) and np.isfinite(f1)) or f1 == f0:
            break
        x0, x1, f0 = x1, x1 - f1 * (x1 - x0) / (f1 - f0), f1
        if abs(x1 - x0) <= 1e-13:
            r, D, u = _tilted_resid(A, b0, g3, g4, k_r, R, c, nu, x1)
            if abs(r) <= 1e-9 and nu * D < 0:
                n3[1] = -nu * math.cos(x1); n3[2] = nu * math.sin(x1)
                return True, u, n3
            break
    return False, u0, n3


@njit(cache=True)
def _tilted_scan(A, b0, g3, g4, k_r, R, c):
    """:func:`.axial_contact.tilted`'s scan when the secant fails, compiled (the same steps as
    :func:`.axial_contact._tilted_scan_py`): for ``nu = +-1`` each sign change of ``resid`` between
    neighbours of 145 azimuths over the circle, bisected 80 times (or until ``resid`` is not
    finite), kept when ``|r| <= 1e-9`` and ``nu D < 0``; of several the least tilted (smallest
    ``|D|``).  ``(found, u, n3)``."""
    n = 145
    grid = np.linspace(-math.pi, math.pi, n)
    vals = np.empty(n)
    found = False
    best = np.inf
    ub = np.zeros(4)
    n3 = np.zeros(3)
    for q in range(2):
        nu = 1.0 if q == 0 else -1.0
        for i in range(n):
            vals[i] = _tilted_resid(A, b0, g3, g4, k_r, R, c, nu, grid[i])[0]
        for i in range(n - 1):
            fa = vals[i]
            fb = vals[i + 1]
            if not (np.isfinite(fa) and np.isfinite(fb) and fa * fb <= 0):
                continue
            a = grid[i]
            b = grid[i + 1]
            for _ in range(80):
                m = 0.5 * (a + b)
                fm = _tilted_resid(A, b0, g3, g4, k_r, R, c, nu, m)[0]
                if not np.isfinite(fm):
                    break
                if fa * fm <= 0:
                    b = m
                else:
                    a = m
                    fa = fm
            th = 0.5 * (a + b)
            r, D, u = _tilted_resid(A, b0, g3, g4, k_r, R, c, nu, th)
            if abs(r) <= 1e-9 and nu * D < 0 and (not found or abs(D) < best):
                found = True
                best = abs(D)
                ub = u.copy()
                n3 = np.array([0.0, -nu * math.cos(th), nu * math.sin(th)])
    return found, ub, n3


@njit(cache=True)
def cylinder(F, M, ft, s_dot, omega, R, c, axial):
    """:func:`workbench.spatial.joint_friction.cylinder`; status 1 when the axial point
    iteration has no consistent point (the caller falls back to the reference path)."""
    v = math.sqrt(s_dot * s_dot + omega * omega * R * R)
    k_s = 0.0; k_r = 0.0
    if v > 0.0:
        k_s = ft * s_dot / v; k_r = ft * omega * R / v
    if axial:
        k_s = 0.0
    A = _radial_matrix(k_s, k_r, R, c)
    b0 = np.array([F[1], F[2], M[1], M[2]])
    g3 = max(F[0], 0.0) if axial else 0.0
    g4 = max(-F[0], 0.0) if axial else 0.0
    u = np.linalg.solve(A, b0)
    status = 0
    if (g3 != 0.0 or g4 != 0.0) and (
            max(g3, g4) > AXIAL_ROUNDOFF * (math.hypot(u[0], u[1]) + math.hypot(u[2], u[3]))):
        # the flush state first, then the tilted one by the secant method, as axial_contact.solve
        found, uf, _ = _flush(A, b0, g3, g4, k_r, R, c)
        if not found:
            found, uf, _ = _tilted_secant(A, b0, g3, g4, k_r, R, c, u)
        n3 = _axial_dir(u)
        if found:
            u = uf
        elif n3[1] == 0.0 and n3[2] == 0.0:
            status = 1     # neither flush nor tilted from here: the reference path decides
        else:
            ok = False
            for it in range(AXIAL_ITER):
                u = np.linalg.solve(A, b0 - _axial_perp(g3, g4, n3, k_r, R, c))
                n3n = _axial_dir(u)
                if n3n @ n3 < 0.0:
                    break
                if np.max(np.abs(n3n - n3)) <= AXIAL_TOL:
                    ok = True
                    break
                n3 = n3n
            if not ok:
                status = 1
    F1 = math.hypot(u[0], u[1]); F2 = math.hypot(u[2], u[3])
    return k_s * (F1 + F2), k_r * R * (F1 + F2 + g3 + g4), status


@njit(cache=True)
def world_kinematics(y, nb):
    """``R, A, V, W`` of the state ``y`` (world positions, rotations, velocities, angular
    velocities; the ground last), :meth:`.model.Model.kinematics`."""
    R = np.zeros((nb + 1, 3)); A = np.empty((nb + 1, 3, 3)); V = np.zeros((nb + 1, 3)); W = np.zeros((nb + 1, 3))
    A[nb] = np.eye(3)
    for b in range(nb):
        R[b] = y[3 * b:3 * b + 3]
        A[b] = _rot(y[3 * nb + 4 * b:3 * nb + 4 * b + 4])
        V[b] = y[7 * nb + 6 * b:7 * nb + 6 * b + 3]
        W[b] = A[b] @ y[7 * nb + 6 * b + 3:7 * nb + 6 * b + 6]
    return R, A, V, W


@njit(cache=True)
def applied(nb, mass, J, grav, R, A, V, W, w, spi, spf, fi, ff, ti, tf):
    """Generalised applied forces ``Q`` (6 nb) without friction, the loads' power [W], the
    dampers' dissipation rate [W] and the potential energy [J] (:meth:`.model.Model.applied`)."""
    n = 6 * nb
    pot = 0.0
    for b in range(nb):
        pot -= mass[b] * (R[b] @ grav)
    # applied forces (gravity, loads, springs) as world force / moment per body
    Fw = np.zeros((nb + 1, 3)); Nw = np.zeros((nb + 1, 3))
    for b in range(nb):
        Fw[b] = mass[b] * grav
    power = 0.0; damp = 0.0
    for q in range(fi.shape[0]):
        b = fi[q]; sw = A[b] @ ff[q, 0:3]; F = ff[q, 3:6]
        Fw[b] += F; Nw[b] += _cross(sw, F); power += F @ (V[b] + _cross(W[b], sw))
    for q in range(ti.shape[0]):
        b = ti[q]; Nw[b] += tf[q]; power += tf[q] @ W[b]
    for q in range(spi.shape[0]):
        bi, bj = spi[q, 0], spi[q, 1]
        swi = A[bi] @ spf[q, 0:3]; swj = A[bj] @ spf[q, 3:6]
        dv = R[bj] + swj - R[bi] - swi
        l = math.sqrt(dv @ dv)
        e = dv / l
        ld = e @ (V[bj] + _cross(W[bj], swj) - V[bi] - _cross(W[bi], swi))
        T = spf[q, 6] * (l - spf[q, 8]) + spf[q, 7] * ld + spf[q, 9]
        Fw[bj] -= T * e; Nw[bj] -= _cross(swj, T * e)
        Fw[bi] += T * e; Nw[bi] += _cross(swi, T * e)
        damp += spf[q, 7] * ld * ld
        pot += 0.5 * spf[q, 6] * (l - spf[q, 8]) ** 2 + spf[q, 9] * l
    Q = np.empty(n)
    for b in range(nb):
        om = w[6 * b + 3:6 * b + 6]
        Q[6 * b:6 * b + 3] = Fw[b]
        Q[6 * b + 3:6 * b + 6] = A[b].T @ Nw[b] - _cross(om, J[b] @ om)
    return Q, power, damp, pot


@njit(cache=True)
def augmented_system(nb, mass, J, D, Q, w, Phi, Phit, gam, alpha, beta, m):
    """The augmented system of the Newton-Euler equations with ``m`` constraint rows: the matrix
    ``[[M, D^T], [D, 0]]`` (M: masses [kg] and body-frame inertia tensors ``J`` [kg m^2]), its
    right-hand side ``[Q; gam - 2 alpha Phi_dot - beta^2 Phi]`` (Baumgarte's terms, ``alpha``
    [1/s], ``beta`` [1/s]) and the constraint velocity ``Phi_dot = D w + Phi_t``."""
    n = 6 * nb
    K = np.zeros((n + m, n + m))
    for b in range(nb):
        for r in range(3):
            K[6 * b + r, 6 * b + r] = mass[b]
        K[6 * b + 3:6 * b + 6, 6 * b + 3:6 * b + 6] = J[b]
    K[:n, n:] = D.T
    K[n:, :n] = D
    Phid = D @ w + Phit
    rhs_ = np.empty(n + m)
    rhs_[:n] = Q
    rhs_[n:] = gam - 2 * alpha * Phid - beta * beta * Phi
    return K, rhs_, Phid


@njit(cache=True)
def rhs(t, y, alpha, beta, nb, mass, J, grav, jint, jflt, dint, dpoly, dnpoly, dharm, dnharm, m,
        spi, spf, fi, ff, ti, tf, ftab, qx, yd):
    """Write ``y_dot`` into ``yd``; return 0, or 1 when the friction loop did not close.
    ``ftab[q, k]``: the friction law's force at unit load at the slip speed of joint ``q``
    (journal ``k`` of a universal joint), :func:`slip_speeds`; ``qx`` (6 nb): generalised forces
    added to the applied ones (the clearance joints, :mod:`.clearance.forces`; zeros without)."""
    R, A, V, W = world_kinematics(y, nb)
    Phi, D, Phit, gam = constraints(t, R, A, V, W, nb, jint, jflt, dint, dpoly, dnpoly, dharm, dnharm, m)
    n = 6 * nb
    w = y[7 * nb:13 * nb]
    Q, power, damp, _ = applied(nb, mass, J, grav, R, A, V, W, w, spi, spf, fi, ff, ti, tf)
    Q += qx
    K, rhs_, Phid = augmented_system(nb, mass, J, D, Q, w, Phi, Phit, gam, alpha, beta, m)
    status = 0
    nfj = 0
    for q in range(jint.shape[0]):
        if jint[q, 4] >= 0:
            nfj += 1
    fpow = 0.0
    if nfj == 0:   # one solve (half the cost of the inverse the friction loop reuses)
        sol = np.linalg.solve(K, rhs_)
    else:
        Kinv = np.linalg.inv(K)
        sol = Kinv @ rhs_
        fr = np.zeros((jint.shape[0], 3))
        converged = False
        for it in range(FIXED_POINT_ITER):
            new = np.zeros_like(fr)
            lam = sol[n:]
            for q in range(jint.shape[0]):
                if jint[q, 4] < 0:
                    continue
                new[q], st = _friction_values(q, jint, jflt, D, lam, R, A, V, W, fr[q], ftab[q])
                if st != 0:
                    return 1
            delta = np.max(np.abs(new - fr))
            fr = new
            Qf, fpow = _friction_q(jint, jflt, fr, R, A, V, W, nb)
            rhs_[:n] = Q + Qf
            sol = Kinv @ rhs_
            if delta <= RTOL * (np.max(np.abs(fr)) + 1e-300):
                converged = True
                break
        if not converged:
            return 1
    acc = sol[:n]; lam = sol[n:]
    for b in range(nb):
        yd[3 * b:3 * b + 3] = w[6 * b:6 * b + 3]
        p = y[3 * nb + 4 * b:3 * nb + 4 * b + 4]
        om = w[6 * b + 3:6 * b + 6]
        e0, e1, e2, e3 = p[0], p[1], p[2], p[3]
        pp = p @ p - 1.0
        yd[3 * nb + 4 * b + 0] = 0.5 * (-e1 * om[0] - e2 * om[1] - e3 * om[2]) - 0.5 * alpha * pp * e0
        yd[3 * nb + 4 * b + 1] = 0.5 * (e0 * om[0] - e3 * om[1] + e2 * om[2]) - 0.5 * alpha * pp * e1
        yd[3 * nb + 4 * b + 2] = 0.5 * (e3 * om[0] + e0 * om[1] - e1 * om[2]) - 0.5 * alpha * pp * e2
        yd[3 * nb + 4 * b + 3] = 0.5 * (-e2 * om[0] + e1 * om[1] + e0 * om[2]) - 0.5 * alpha * pp * e3
    yd[7 * nb:13 * nb] = acc
    drv = 0.0
    for q in range(dint.shape[0]):
        k = dint[q, 2]
        drv += -lam[k] * (D[k] @ w)
    yd[13 * nb] = power + drv
    yd[13 * nb + 1] = -fpow + damp
    return status


@njit(cache=True)
def _frame(q, jflt, R, A, V, W, jint):
    i, j, sleeve = jint[q, 1], jint[q, 2], jint[q, 5]
    b = i if sleeve == 0 else j
    s = jflt[q, 0:3] if sleeve == 0 else jflt[q, 3:6]
    P = R[b] + A[b] @ s
    Fi = A[i] @ jflt[q, 6:15].reshape(3, 3).T
    E = np.empty((3, 3))
    E[0] = Fi[:, 2]; E[1] = Fi[:, 0]; E[2] = Fi[:, 1]
    vPi = V[i] + _cross(W[i], P - R[i]); vPj = V[j] + _cross(W[j], P - R[j])
    return P, E, E[0] @ (vPj - vPi), E[0] @ (W[j] - W[i])


@njit(cache=True)
def _reaction(q, jint, D, lam, R, A, about, nb):
    i, j, k0, typ = jint[q, 1], jint[q, 2], jint[q, 3], jint[q, 0]
    nrow = (3, 5, 4, 5, 4, 6)[typ]
    b = j; sgn = 1.0
    if j == nb:
        b = i; sgn = -1.0
    g = -(np.ascontiguousarray(D[k0:k0 + nrow, 6 * b:6 * b + 6].T) @ lam[k0:k0 + nrow])
    F = g[:3].copy()
    N = A[b] @ g[3:] - _cross(about - R[b], F)
    return sgn * F, sgn * N


@njit(cache=True)
def _friction_values(q, jint, jflt, D, lam, R, A, V, W, state, ft):
    nb = R.shape[0] - 1
    P, E, sdot, om = _frame(q, jflt, R, A, V, W, jint)
    F, N = _reaction(q, jint, D, lam, R, A, P, nb)
    out = np.zeros(3)
    typ = jint[q, 0]
    if typ == 4:
        a = E[0].copy()
        bv = A[jint[q, 2]] @ jflt[q, 21:24]
        nv = _cross(a, bv); nv = nv / math.sqrt(nv @ nv)
        wr = W[jint[q, 2]] - W[jint[q, 1]]
        Fa, Fb, Fn, Mn = F @ a, F @ bv, F @ nv, N @ nv
        r1 = cylinder(np.array([Fa, Fb, Fn]), np.array([0.0, state[2], Mn]), ft[0], 0.0, wr @ a,
                      jflt[q, 24], jflt[q, 25], True)
        r2 = cylinder(np.array([Fb, Fn, Fa]), np.array([0.0, Mn, state[1]]), ft[1], 0.0, wr @ bv,
                      jflt[q, 26], jflt[q, 27], True)
        out[1] = r1[1]; out[2] = r2[1]
        return out, r1[2] + r2[2]
    sg = 1.0 if jint[q, 5] == 0 else -1.0
    r = cylinder(sg * (E @ F), sg * (E @ N), ft[0], sg * sdot, sg * om, jflt[q, 24], jflt[q, 25],
                 typ == 1)
    out[0] = sg * r[0]; out[1] = sg * r[1]
    return out, r[2]


@njit(cache=True)
def slip_speeds(y, nb, jint, jflt):
    """Slip speed [m/s] of each joint with friction (``sqrt(s_dot^2 + omega^2 R^2)``; a universal
    joint's two journals ``|omega_k| R_k``), ``(nj, 2)``: what the friction law is evaluated at."""
    R = np.zeros((nb + 1, 3)); A = np.empty((nb + 1, 3, 3)); V = np.zeros((nb + 1, 3)); W = np.zeros((nb + 1, 3))
    A[nb] = np.eye(3)
    for b in range(nb):
        R[b] = y[3 * b:3 * b + 3]
        A[b] = _rot(y[3 * nb + 4 * b:3 * nb + 4 * b + 4])
        V[b] = y[7 * nb + 6 * b:7 * nb + 6 * b + 3]
        W[b] = A[b] @ y[7 * nb + 6 * b + 3:7 * nb + 6 * b + 6]
    out = np.zeros((jint.shape[0], 2))
    for q in range(jint.shape[0]):
        if jint[q, 4] < 0:
            continue
        P, E, sdot, om = _frame(q, jflt, R, A, V, W, jint)
        if jint[q, 0] == 4:
            wr = W[jint[q, 2]] - W[jint[q, 1]]
            bv = A[jint[q, 2]] @ jflt[q, 21:24]
            out[q, 0] = abs(wr @ E[0]) * jflt[q, 24]
            out[q, 1] = abs(wr @ bv) * jflt[q, 26]
        else:
            sd = 0.0 if jint[q, 0] == 1 else sdot
            out[q, 0] = math.sqrt(sd * sd + om * om * jflt[q, 24] * jflt[q, 24])
    return out


@njit(cache=True)
def _friction_q(jint, jflt, fr, R, A, V, W, nb):
    Q = np.zeros(6 * nb)
    power = 0.0
    for q in range(jint.shape[0]):
        if jint[q, 4] < 0:
            continue
        i, j = jint[q, 1], jint[q, 2]
        P, E, sdot, om = _frame(q, jflt, R, A, V, W, jint)
        if jint[q, 0] == 4:
            a = E[0].copy(); bv = A[j] @ jflt[q, 21:24]
            N = fr[q, 1] * a + fr[q, 2] * bv
            F = np.zeros(3)
            power += N @ (W[j] - W[i])
        else:
            F = fr[q, 0] * E[0]; N = fr[q, 1] * E[0]
            power += fr[q, 0] * sdot + fr[q, 1] * om
        for side in range(2):
            b = j if side == 0 else i
            sg = 1.0 if side == 0 else -1.0
            if b == nb:
                continue
            Q[6 * b:6 * b + 3] += sg * F
            Q[6 * b + 3:6 * b + 6] += A[b].T @ (sg * N + _cross(P - R[b], sg * F))
    return Q, power


def pack(model):
    """The arrays :func:`rhs` takes, from a :class:`~workbench.spatial.model.Model` (``None``: a
    driver function longer than the packed tables, 8 terms)."""
    nb = model.nb
    model.compiled_laws = {q: (j.friction.kernel, np.asarray(j.friction.pack(), float))
                           for q, j in enumerate(model.mechanism.joints) if j.friction is not None}
    g = lambda b: nb if b < 0 else b   # noqa: E731 (ground last)
    nj = len(model.joints)
    jint = np.zeros((nj, 6), np.int64); jflt = np.zeros((nj, 28))
    for q, cj in enumerate(model.joints):
        jint[q] = (CODES[cj.type], g(cj.i), g(cj.j), cj.rows.start, cj.friction_index, 0 if cj.sleeve == "i" else 1)
        jflt[q, 0:3] = cj.s_i; jflt[q, 3:6] = cj.s_j
        jflt[q, 6:15] = cj.frame_i.ravel(); jflt[q, 15:24] = cj.frame_j.ravel()
        jflt[q, 24:28] = (cj.R, cj.c, cj.R2, cj.c2)
    nd = len(model.drivers)
    dint = np.zeros((nd, 3), np.int64); dpoly = np.zeros((nd, 8)); dnpoly = np.zeros(nd, np.int64)
    dharm = np.zeros((nd, 8, 3)); dnharm = np.zeros(nd, np.int64)
    for q, (cj, coord, f, row) in enumerate(model.drivers):
        if len(f.polynomial) > 8 or len(f.harmonics) > 8:
            return None
        dint[q] = (model.joints.index(cj), 0 if coord == "angle" else 1, row)
        dpoly[q, :len(f.polynomial)] = f.polynomial; dnpoly[q] = len(f.polynomial)
        if f.harmonics:
            dharm[q, :len(f.harmonics)] = f.harmonics
        dnharm[q] = len(f.harmonics)
    ns = len(model.springs)
    spi = np.zeros((ns, 2), np.int64); spf = np.zeros((ns, 10))
    for q, (bi, si, bj, sj, s) in enumerate(model.springs):
        spi[q] = (g(bi), g(bj)); spf[q] = (*si, *sj, s.stiffness, s.damping, s.free_length, s.force)
    fi = np.array([g(b) for b, s, F in model.forces], np.int64)
    ff = np.array([(*s, *F) for b, s, F in model.forces], float).reshape(-1, 6)
    ti = np.array([g(b) for b, T in model.torques], np.int64)
    tf = np.array([T for b, T in model.torques], float).reshape(-1, 3)
    return (nb, model.mass, model.J, model.gravity, jint, jflt, dint, dpoly, dnpoly, dharm, dnharm,
            model.n_rows, spi, spf, fi, ff, ti, tf)


def constraint_rows(packed):
    """``rows(t, kin)`` for :meth:`.model.Model.dynamics`: the compiled :func:`constraints` with the
    arrays of :func:`pack` (``kin``: the model's world kinematics, the ground last)."""
    nb, rest = packed[0], packed[4:12]
    fun = constraints.dispatcher() if hasattr(constraints, "dispatcher") else constraints

    def rows(t, kin):
        R, A, V, W = kin
        return fun(t, R, A, V, W, nb, *rest)
    return rows


def friction_table(model, packed, y):
    """``ftab`` of :func:`rhs`: each friction joint's law (its compiled kernel) at unit load at
    the joint's slip speeds."""
    nb, jint, jflt = packed[0], packed[4], packed[5]
    ftab = np.zeros((len(model.joints), 2))
    if not model.nf:
        return ftab
    v = slip_speeds(y, nb, jint, jflt)
    for q, j in enumerate(model.mechanism.joints):
        if j.friction is not None:
            k, p = model.compiled_laws[q]
            ftab[q, 0] = k(v[q, 0], 1.0, 0.0, p)[0]
            if j.type == "universal":
                ftab[q, 1] = k(v[q, 1], 1.0, 0.0, p)[0]
    return ftab
