"""Translational clearance joint, compiled: the slider's corners against the (worn) guide faces.

Wang, Chen, Ma & Sun (2016) eqs 18-31: the four corners of the slider against the two guide faces
``+-H/2`` from the guide centre line; with wear, the guide faces carry depth profiles along their
length (:mod:`.guide_profile` packs them), interpolated by the monotone C1 cubic of Fritsch &
Carlson (1980).  :func:`.clearance.clearance_forces` calls :func:`corner` for each corner.
"""
from __future__ import annotations

import math

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .guide_profile import TR_DS, TR_NODES, TR_PROFILE, TR_REACH, TR_S0, TR_WORN
from .kinematics import material_velocity, point_position, rotate

@njit(cache=True)
def guide_depth(row, surface, s):
    """Wear depth ``g`` [m] of guide face ``surface`` (0 upper, 1 lower) at guide coordinate ``s``
    [m] and its slope ``dg/ds`` [1]: the cubic Hermite interpolant of the nodal values and slopes
    packed by :func:`workbench.mbs.guide_profile.pack_guide` (C1 and monotone between the nodes,
    Fritsch & Carlson (1980); the end value outside them)."""
    if row.shape[0] <= TR_NODES:
        return 0.0, 0.0
    N = int(row[TR_NODES])
    if N < 2 or row[TR_WORN] == 0.0:
        return 0.0, 0.0
    d = row[TR_DS]
    x = (s - row[TR_S0]) / d
    base = TR_PROFILE + 2 * N * surface
    if x <= 0.0:
        return row[base], 0.0
    if x >= N - 1:
        return row[base + N - 1], 0.0
    i = min(int(x), N - 2)
    t = x - i
    u = 1.0 - t
    y0 = row[base + i]; y1 = row[base + i + 1]
    m0 = row[base + N + i] * d; m1 = row[base + N + i + 1] * d
    t2 = t * t
    h = (1.0 + 2.0 * t) * u * u * y0 + t * u * u * m0 + t2 * (3.0 - 2.0 * t) * y1 - t2 * u * m1
    dh = (6.0 * t * u * (y1 - y0) + u * (1.0 - 3.0 * t) * m0 + t * (3.0 * t - 2.0) * m1) / d
    return h, dh


@njit(cache=True)
def corner(q, qd, bi, bj, row, k):
    """Corner ``k`` of a translational clearance joint (Wang, Chen, Ma & Sun (2016) eqs. 18-24).

    Corners 0, 1 are the slider's top corners (``+W/2``), 2, 3 the bottom ones; 0 and 3 are at
    ``+L/2`` along the slider axis.  Returns ``(X, Y, delta, Nx, Ny, tx, ty, vn, vt, s)``: the corner
    position [m], its penetration into the (worn) guide face [m], the gradient ``N`` of ``delta``
    with respect to the corner position (the outward normal of the guide face; unit when unworn,
    ``|N| = sqrt(1 + g'^2)`` on a worn face, so that ``fn vn`` is exactly the rate of work of the
    contact force), the unit tangent of the face ``t``, ``vn = d delta/dt`` [m/s], the slip speed
    ``vt`` along ``t`` [m/s] and the guide coordinate ``s`` of the corner [m].
    """
    Pgx, Pgy = point_position(q, bi, row[0], row[1])
    Cx, Cy = point_position(q, bj, row[2], row[3])
    ax, ay = rotate(q, bi, row[4], row[5])
    mx = -ay; my = ax
    ux, uy = rotate(q, bj, row[6], row[7])
    L = row[8]; W = row[9]; H = row[10]
    su = 0.5 * L if (k == 0 or k == 3) else -0.5 * L
    sv = 0.5 * W if k < 2 else -0.5 * W
    X = Cx + su * ux - sv * uy; Y = Cy + su * uy + sv * ux
    h = (X - Pgx) * mx + (Y - Pgy) * my
    s = (X - Pgx) * ax + (Y - Pgy) * ay
    worn = row.shape[0] > TR_NODES and row[TR_WORN] != 0.0
    if sv > 0.0:
        delta = h - 0.5 * H; Nx = mx; Ny = my
    else:
        delta = -0.5 * H - h; Nx = -mx; Ny = -my
    tx = ax; ty = ay
    if worn:
        g, dg = guide_depth(row, 0 if sv > 0.0 else 1, s)
        delta = delta - g - row[TR_REACH + k]
        # upper face y = H/2 + g(s), lower face y = -H/2 - g(s) (guide frame)
        Nx = Nx - dg * ax; Ny = Ny - dg * ay
        sg = dg if sv > 0.0 else -dg
        nt = math.sqrt(1.0 + dg * dg)
        tx = (ax + sg * mx) / nt; ty = (ay + sg * my) / nt
    vsx, vsy = material_velocity(q, qd, bj, X, Y)
    vgx, vgy = material_velocity(q, qd, bi, X, Y)
    vrx = vsx - vgx; vry = vsy - vgy
    vn = vrx * Nx + vry * Ny
    vt = vrx * tx + vry * ty
    return X, Y, delta, Nx, Ny, tx, ty, vn, vt, s


@njit(cache=True)
def corner_history(P, V, DM, j, clr_i, clr_f, ckern, cpar, out):
    """Per-corner contact of translational joint ``j`` at every sample (the wear loop's input).

    ``P``, ``V`` (nt, 3 nb) positions and velocities, ``DM`` (nt, 4) the corners' impact speeds
    ``delta_dot_minus`` [m/s] (the contact law's memory).  Fills ``out`` (nt, 4, 5) with
    ``[delta [m], s [m], fn [N], vt [m/s], vn [m/s]]`` per corner, ``fn`` from the joint's contact
    law as in :func:`clearance_forces`.
    """
    bi = clr_i[j, 1]; bj = clr_i[j, 2]
    cp = cpar[j].ctypes
    tmp = np.zeros(16)
    for i in range(P.shape[0]):
        q = P[i]; qd = V[i]
        for k in range(4):
            X, Y, delta, Nx, Ny, tx, ty, vn, vt, s = corner(q, qd, bi, bj, clr_f[j], k)
            fn = 0.0
            if delta > 0.0 and DM[i, k] >= 0.0:
                fn = ckern[j](delta, vn, DM[i, k], cp, tmp.ctypes)
            out[i, k, 0] = delta; out[i, k, 1] = s; out[i, k, 2] = fn
            out[i, k, 3] = vt; out[i, k, 4] = vn
