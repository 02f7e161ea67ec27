"""The compiled contact kinematics and force assembly of the spatial clearance joints (the fast
path; the reference path is :class:`.forces.Clearances` in numpy, the same formulas of
:mod:`.geometry`).  The contact and friction laws are the plugins' own compiled kernels, called
between :func:`contact_points` and :func:`assemble` for the points in contact only.

Point arrays (``pint`` int, ``pflt`` float, one row per contact point): ``pint = (kind, i, j)``
with the ground as index ``nb``; ``pflt = (s_i[3], s_j[3], z_i[3], z_j[3], h, R_i, R_j, c, gap)``
in body coordinates [m, 1].  Output rows of :func:`contact_points`: ``G_*`` columns.
"""
from __future__ import annotations

import math

import numpy as np

from ...jit import njit
from .geometry import KIND_AXIAL, KIND_RIM, KIND_SPHERE

G_PEN, G_VN, G_VT = 0, 1, 2
G_N, G_QI, G_QJ, G_T = 3, 6, 9, 12
N_G = 15


@njit(cache=True)
def _cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@njit(cache=True)
def _unit_perp(v, axis):
    w = v - (v @ axis) * axis
    nw = math.sqrt(w @ w)
    if nw > 0.0:
        return w / nw
    return v


@njit(cache=True)
def contact_points(R, A, V, W, pint, pflt):
    """Penetration, its rate, slip speed, normal, the two material points and the unit slip
    direction of every contact point (:mod:`.geometry`), ``(npts, N_G)``."""
    npts = pint.shape[0]
    G = np.zeros((npts, N_G))
    for k in range(npts):
        kind, i, j = pint[k, 0], pint[k, 1], pint[k, 2]
        Pi = R[i] + A[i] @ pflt[k, 0:3]
        Pj = R[j] + A[j] @ pflt[k, 3:6]
        h = pflt[k, 12]; Ri = pflt[k, 13]; Rj = pflt[k, 14]; c = pflt[k, 15]; gap = pflt[k, 16]
        if kind == KIND_SPHERE:
            d = Pj - Pi
            dist = math.sqrt(d @ d)
            n = np.array([1.0, 0.0, 0.0])
            if dist > 0.0:
                n = d / dist
            delta = dist - c
            Qi = Pi + Ri * n
            Qj = Pj + Rj * n
        elif kind == KIND_RIM:
            zi = A[i] @ pflt[k, 6:9]
            zj = A[j] @ pflt[k, 9:12]
            J = Pj + h * zj
            d = J - Pi
            e = d - (d @ zi) * zi
            em = math.sqrt(e @ e)
            if em > 0.0:
                n = e / em
            else:
                n = _unit_perp(np.array([1.0, 0.0, 0.0]), zi)
            a = 0.0
            X = J
            for _ in range(2):
                X = J + Rj * _unit_perp(n, zj)
                d = X - Pi
                a = d @ zi
                e = d - a * zi
                em = math.sqrt(e @ e)
                if em > 0.0:
                    n = e / em
            delta = em - Ri
            Qi = Pi + a * zi + Ri * n
            Qj = X
        else:
            zi = A[i] @ pflt[k, 6:9]
            zj = A[j] @ pflt[k, 9:12]
            s = 1.0 if h > 0.0 else -1.0
            F = Pj + h * zj
            n = s * zi
            delta = s * ((F - Pi) @ zi) - (abs(h) + gap)
            Qi = F
            Qj = F
        vr = V[j] + _cross(W[j], Qj - R[j]) - V[i] - _cross(W[i], Qi - R[i])
        vn = vr @ n
        vt = vr - vn * n
        vtm = math.sqrt(vt @ vt)
        G[k, G_PEN] = delta; G[k, G_VN] = vn; G[k, G_VT] = vtm
        G[k, G_N:G_N + 3] = n; G[k, G_QI:G_QI + 3] = Qi; G[k, G_QJ:G_QJ + 3] = Qj
        if vtm > 0.0 and kind != KIND_AXIAL:
            G[k, G_T:G_T + 3] = vt / vtm
    return G


@njit(cache=True)
def assemble(G, fn, ft, pint, R, A, nb):
    """Generalised forces (6 nb) of the normal forces ``fn`` [N] and friction forces ``ft`` [N]
    (along the slip direction; <= 0) of every point, the power the normal forces absorb [W] and
    the friction power [W]."""
    Q = np.zeros(6 * nb)
    pc = 0.0; pf = 0.0
    for k in range(pint.shape[0]):
        if fn[k] == 0.0:
            continue
        i, j = pint[k, 1], pint[k, 2]
        F = -fn[k] * G[k, G_N:G_N + 3] + ft[k] * G[k, G_T:G_T + 3]
        if j < nb:
            Q[6 * j:6 * j + 3] += F
            Q[6 * j + 3:6 * j + 6] += A[j].T @ _cross(G[k, G_QJ:G_QJ + 3] - R[j], F)
        if i < nb:
            Q[6 * i:6 * i + 3] -= F
            Q[6 * i + 3:6 * i + 6] -= A[i].T @ _cross(G[k, G_QI:G_QI + 3] - R[i], F)
        pc += fn[k] * G[k, G_VN]
        pf += ft[k] * G[k, G_VT]
    return Q, pc, pf


@njit(cache=True)
def world(y, nb):
    """``R, A, V, W`` (world; the ground appended as index ``nb``) of a spatial state ``y``."""
    R = np.zeros((nb + 1, 3)); A = np.empty((nb + 1, 3, 3)); V = np.zeros((nb + 1, 3)); W = np.zeros((nb + 1, 3))
    A[nb] = np.eye(3)
    for b in range(nb):
        R[b] = y[3 * b:3 * b + 3]
        p = y[3 * nb + 4 * b:3 * nb + 4 * b + 4]
        p = p / math.sqrt(p @ p)
        e0, e1, e2, e3 = p[0], p[1], p[2], p[3]
        A[b, 0, 0] = 2 * (e0 * e0 + e1 * e1) - 1; A[b, 0, 1] = 2 * (e1 * e2 - e0 * e3); A[b, 0, 2] = 2 * (e1 * e3 + e0 * e2)
        A[b, 1, 0] = 2 * (e1 * e2 + e0 * e3); A[b, 1, 1] = 2 * (e0 * e0 + e2 * e2) - 1; A[b, 1, 2] = 2 * (e2 * e3 - e0 * e1)
        A[b, 2, 0] = 2 * (e1 * e3 - e0 * e2); A[b, 2, 1] = 2 * (e2 * e3 + e0 * e1); A[b, 2, 2] = 2 * (e0 * e0 + e3 * e3) - 1
        V[b] = y[7 * nb + 6 * b:7 * nb + 6 * b + 3]
        W[b] = A[b] @ y[7 * nb + 6 * b + 3:7 * nb + 6 * b + 6]
    return R, A, V, W


@njit(cache=True)
def points_of_state(y, nb, pint, pflt):
    """:func:`world` and :func:`contact_points` of the state ``y`` in one call."""
    R, A, V, W = world(y, nb)
    return R, A, V, W, contact_points(R, A, V, W, pint, pflt)
