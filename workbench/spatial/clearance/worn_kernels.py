"""The worn maps' depths on the compiled path: the lookup of :mod:`.worn` as one compiled call.

Once a bore is worn, every right-hand side takes the map's depth at each worn contact point;
on the Python path (:meth:`.worn.WornView.depth`: the section frame, the journal's turn, then
:meth:`workbench.wear.spatial_map.WornMap.depth_at`) that cost ~0.15 ms per point, more than the
rest of the compiled contact, and a worn run's right-hand sides took ~4x the unworn ones.
:func:`pack` lays the maps out as arrays once per run (the maps are fixed during a run: the wear
loop updates them between runs) and :func:`take_depths` subtracts the depths from the compiled
points' penetrations, with the same formulas in the same order of operations as the Python path
(bilinear: periodic linear in the angle, linear in ``z`` or the polar angle, clipped at the
outermost nodes).

Packed arrays, one row per worn contact point: ``wint = (point, kind, i, j, offset, M, N,
journal)`` (kind :data:`MAP` or :data:`CAP`; bodies with the ground as index ``nb``; ``offset``
into ``depths``, where the bushing's (socket's) ``M x N`` map lies, the journal's right after it
when ``journal`` is 1) and ``wflt = (s_i[3], x_b[3], y_b[3], z_i[3], x_j[3], z_0, dz)`` (the
bushing point and section frame in body-i axes, the journal's reference direction in body-j
axes [m, 1]; the first axial node and the node spacing [m]).
"""
from __future__ import annotations

import math

import numpy as np

from ...jit import njit
from .kernels import G_PEN, G_QI

MAP, CAP = 0, 1
N_WINT, N_WFLT = 8, 17


def pack(clr, view, nb: int):
    """``(wint, wflt, depths)`` of the worn points of ``clr`` (a :class:`.forces.Clearances`) with
    their maps in ``view`` (a :class:`.worn.WornView`); ``nb`` bodies (the ground is ``nb``)."""
    g = lambda b: nb if b < 0 else b   # noqa: E731
    wint, wflt, chunks = [], [], []
    offsets = {}
    size = 0
    for k in clr.worn_points:
        q = clr.points[k].joint
        i, j, s_i = clr.data[q][0], clr.data[q][1], clr.data[q][2]
        w = view.maps[q]
        M, N = w.h_bushing.shape
        journal = int(q in view.frames and bool(np.any(w.h_journal)))
        if q not in offsets:
            offsets[q] = size
            chunks.append(np.ascontiguousarray(w.h_bushing, float).ravel())
            size += M * N
            if journal:
                chunks.append(np.ascontiguousarray(w.h_journal, float).ravel())
                size += M * N
        if q in view.frames:
            xb, yb, xj = view.frames[q]
            zi = clr.data[q][4]
            z = w.z
            wint.append((k, MAP, g(i), g(j), offsets[q], M, N, journal))
            wflt.append((*s_i, *xb, *yb, *zi, *xj, z[0], z[1] - z[0]))
        else:
            wint.append((k, CAP, g(i), g(j), offsets[q], M, N, 0))
            wflt.append((*s_i, *np.zeros(12), 0.0, 0.0))
    return (np.array(wint, np.int64).reshape(-1, N_WINT), np.array(wflt, float).reshape(-1, N_WFLT),
            np.concatenate(chunks) if chunks else np.zeros(0))


@njit(cache=True)
def _periodic(depths, base, M, N, m, a, theta):
    """Bilinear value of the ``M x N`` map at ``depths[base:]``: periodic linear in ``theta``
    [rad] over ``M`` nodes, weight ``a`` between columns ``m`` and ``m + 1``."""
    u = np.mod(theta, 2.0 * math.pi) * (M / (2.0 * math.pi))
    i0 = int(math.floor(u))
    f = u - i0
    i0 = i0 % M
    i1 = (i0 + 1) % M
    c0 = (1.0 - a) * depths[base + i0 * N + m] + a * depths[base + i0 * N + m + 1]
    c1 = (1.0 - a) * depths[base + i1 * N + m] + a * depths[base + i1 * N + m + 1]
    return c0 * (1.0 - f) + c1 * f


@njit(cache=True)
def take_depths(G, R, A, wint, wflt, depths):
    """Subtract the worn depth at each worn point's bushing point ``Q_i`` from its penetration
    (``G[:, G_PEN]``, in place): :meth:`.worn.WornView.depth` compiled."""
    for r in range(wint.shape[0]):
        k, kind, i, j = wint[r, 0], wint[r, 1], wint[r, 2], wint[r, 3]
        base, M, N, journal = wint[r, 4], wint[r, 5], wint[r, 6], wint[r, 7]
        P = R[i] + A[i] @ wflt[r, 0:3]
        d = G[k, G_QI:G_QI + 3] - P
        if kind == CAP:
            v = A[i].T @ d
            nv = math.sqrt(v @ v)
            if not nv > 0.0:   # a wild trial stage (huge or NaN state): its step is rejected anyway
                continue
            th = math.atan2(v[1], v[0])
            ph = math.acos(max(-1.0, min(1.0, v[2] / nv)))
            fz = min(max(ph * N / math.pi - 0.5, 0.0), N - 1.0)
            m = min(int(fz), N - 2)
            G[k, G_PEN] -= _periodic(depths, base, M, N, m, fz - m, th)
            continue
        x = A[i] @ wflt[r, 3:6]
        y = A[i] @ wflt[r, 6:9]
        z = A[i] @ wflt[r, 9:12]
        fz = min(max((d @ z - wflt[r, 15]) / wflt[r, 16], 0.0), N - 1.0)
        m = min(int(fz), N - 2)
        a = fz - m
        theta = math.atan2(d @ y, d @ x)
        h = _periodic(depths, base, M, N, m, a, theta)
        if journal == 1:
            xj = A[j] @ wflt[r, 12:15]
            h += _periodic(depths, base + M * N, M, N, m, a, theta - math.atan2(xj @ y, xj @ x))
        G[k, G_PEN] -= h
