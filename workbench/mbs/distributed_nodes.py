"""The node pass of the distributed contact (:mod:`.distributed`): the clearance data at the bore
nodes of the window where the journal can touch, and an overlap bound per segment.

On a worn bore the window ``|psi - alpha| <= acos(c_min / |e|)`` spans some 40 segments of a
720-node profile while the contact patch covers a few (five-bar study, 10 um of wear: 42 segments,
3 nodes overlapping).  Two things make that cheap:

* :func:`nodes` walks the window once, each control point of the B-spline quasi-interpolants
  computed once (a rolling window of three, not 28 integer divisions per node), and the journal's
  spline evaluated at ``psi_k - phi_rel`` with ONE set of basis weights: the journal nodes and the
  bushing nodes share the spacing ``dth``, so the parameter within the journal's knot span is the
  same at every bushing node.  :func:`.distributed._node` is the same data node by node (the
  reference of ``tests/test_distributed_contact.py``).
* :func:`bound` bounds the overlap over a segment from its end data, so that the Newton search of
  its critical points and roots runs only where some overlap is possible.
"""
from __future__ import annotations

import math

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .compiled import REV_PROFILE

TWO_PI = 2.0 * math.pi


@njit(cache=True, inline="always")
def _wrap(i, M):
    """``i mod M`` for any integer ``i`` (a branch in the usual case, a division only outside
    ``[-M, 2M)``)."""
    if i >= M:
        i -= M
        if i >= M:
            i %= M
    elif i < 0:
        i += M
        if i < 0:
            i %= M
    return i


@njit(cache=True, inline="always")
def _cp(row, off, M, i):
    """Control point ``i`` (any integer) of the periodic quasi-interpolant of ``row[off:off + M]``:
    ``(8 h_i - h_(i-1) - h_(i+1)) / 6`` (:func:`.distributed.control_points`)."""
    im = _wrap(i, M)
    a = row[off + (im - 1 if im > 0 else M - 1)]
    c = row[off + (im + 1 if im < M - 1 else 0)]
    return (8.0 * row[off + im] - a - c) / 6.0


@njit(cache=True)
def nodes(row, M, k_lo, k_hi, phi_rel, c0, journal_worn, ebx, eby):
    """Node pass over bore nodes ``k_lo .. k_hi`` (any integers): rows ``(C [m], dC/dpsi [m/rad],
    dC/dphi_rel [m/rad], d(dC/dpsi)/dphi_rel [m/rad^2], A = e . n [m], B = e . t [m], cos psi_k,
    sin psi_k)``, and the largest nodal overlap ``A - C`` [m] over ``k_lo .. k_hi - 1`` (a lower bound of
    the window's largest overlap)."""
    h = TWO_PI / M
    n = k_hi - k_lo + 1
    nd = np.empty((n, 8))
    umax = -1e300
    # bushing: C = c0 + (c_(k-1) + 4 c_k + c_(k+1)) / 6, slope (c_(k+1) - c_(k-1)) / (2 h)
    bm = _cp(row, REV_PROFILE, M, k_lo - 1); bc = _cp(row, REV_PROFILE, M, k_lo)
    # journal at x_k = k h - phi_rel: knot span i_k = i_0 + (k - k_lo), the same parameter t
    jw0 = jw1 = jw2 = jw3 = jd0 = jd1 = jd2 = jd3 = jdd0 = jdd1 = jdd2 = jdd3 = 0.0
    jm = jc = jn = 0.0; i0 = 0
    if journal_worn:
        u = ((k_lo * h - phi_rel) % TWO_PI) / h
        i0 = int(u)
        if i0 >= M:
            i0 = M - 1
        t = u - i0
        s = 1.0 - t; t2 = t * t; t3 = t2 * t
        jw0 = s * s * s / 6.0; jw1 = (3 * t3 - 6 * t2 + 4) / 6.0
        jw2 = (-3 * t3 + 3 * t2 + 3 * t + 1) / 6.0; jw3 = t3 / 6.0
        jd0 = -3 * s * s / (6.0 * h); jd1 = (9 * t2 - 12 * t) / (6.0 * h)
        jd2 = (-9 * t2 + 6 * t + 3) / (6.0 * h); jd3 = 3 * t2 / (6.0 * h)
        jdd0 = 6 * s / (6.0 * h * h); jdd1 = (18 * t - 12) / (6.0 * h * h)
        jdd2 = (-18 * t + 6) / (6.0 * h * h); jdd3 = 6 * t / (6.0 * h * h)
        jm = _cp(row, REV_PROFILE + M, M, i0 - 1); jc = _cp(row, REV_PROFILE + M, M, i0)
        jn = _cp(row, REV_PROFILE + M, M, i0 + 1)
    for m in range(n):
        k = k_lo + m
        bq = _cp(row, REV_PROFILE, M, k + 1)
        c = c0 + (bm + 4.0 * bc + bq) / 6.0
        sl = (bq - bm) / (2.0 * h)
        cph = 0.0; sph = 0.0
        if journal_worn:
            jq = _cp(row, REV_PROFILE + M, M, i0 + m + 2)
            c += jw0 * jm + jw1 * jc + jw2 * jn + jw3 * jq
            d = jd0 * jm + jd1 * jc + jd2 * jn + jd3 * jq
            sl += d; cph = -d
            sph = -(jdd0 * jm + jdd1 * jc + jdd2 * jn + jdd3 * jq)
            jm = jc; jc = jn; jn = jq
        bm = bc; bc = bq
        th = k * h
        co = math.cos(th); si = math.sin(th)
        A = ebx * co + eby * si
        nd[m, 0] = c; nd[m, 1] = sl; nd[m, 2] = cph; nd[m, 3] = sph
        nd[m, 4] = A; nd[m, 5] = eby * co - ebx * si; nd[m, 6] = co; nd[m, 7] = si
        if m < n - 1 and A - c > umax:
            umax = A - c
    return nd, umax


@njit(cache=True, inline="always")
def bound(nd, i, dth, cd, sd, em):
    """Upper bound [m] of the overlap u over segment ``i`` of the node pass ``nd``: the largest
    ``e . n`` on it (``em`` when the eccentricity's direction lies inside the segment, else the
    larger end value; ``cd``, ``sd`` = cos, sin of ``dth``) minus the lowest the Hermite cubic of the
    clearance can reach, ``min(C1, C2) - (4/27) dth (|C'1| + |C'2|)`` (the Hermite basis functions
    of the end tangents peak at 4/27 in magnitude; the end-value part stays between C1 and C2)."""
    A = nd[i, 4]; B = nd[i, 5]
    A1 = A * cd + B * sd
    if B > 0.0 and B * cd - A * sd < 0.0:
        en = em
    else:
        en = A if A > A1 else A1
    cmin = min(nd[i, 0], nd[i + 1, 0]) - (4.0 / 27.0) * dth * (abs(nd[i, 1]) + abs(nd[i + 1, 1]))
    return en - cmin
