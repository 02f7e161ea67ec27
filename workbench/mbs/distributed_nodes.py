"""The node pass of the distributed contact (:mod:`.distributed`): the clearance data at the bore
nodes of the window where the journal can touch, and an overlap bound per segment.

On a worn bore the window ``|psi - alpha| <= acos(c_min / |e|)`` spans some 40 segments of a
720-node profile while the contact patch covers a few (five-bar study, 10 um of wear: 42 segments,
3 nodes overlapping).  Two things make that cheap:

* the kernels walk the window once (:func:`journal_basis`, then :func:`node_step` node after
  node), each control point of the B-spline quasi-interpolants computed once (a rolling window of
  three, not 28 integer divisions per node), the journal's spline evaluated at ``psi_k - phi_rel``
  with ONE set of basis weights (the journal nodes and the bushing nodes share the spacing
  ``dth``, so the parameter within the journal's knot span is the same at every bushing node),
  and the node angles' cosines and sines by rotation through ``dth``; nothing is stored.
  :func:`nodes` is that walk with its data stored (tests, benchmark), :func:`.distributed._node`
  the same data node by node (the reference of ``tests/mbs/test_distributed_contact.py``).
* :func:`segment_bound` (:func:`bound` on a stored walk) bounds the overlap over a segment from its
  end data, so that the search of its critical points and roots runs only where some overlap is
  possible.
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


@njit(cache=True, inline="always")
def journal_basis(row, M, k_lo, phi_rel, journal_worn):
    """Start of a walk over the bore nodes from ``k_lo``: the journal's knot span ``i0`` at
    ``k_lo h - phi_rel``, the twelve basis weights (value, slope [1/rad], curvature [1/rad^2]) that
    hold at every node of the walk, and the journal control points ``i0 - 1 .. i0 + 1`` (all zero
    when the journal is unworn)."""
    h = TWO_PI / M
    if not journal_worn:
        return 0, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0), 0.0, 0.0, 0.0
    u = ((k_lo * h - phi_rel) % TWO_PI) / h
    i0 = int(u)
    if i0 >= M:
        i0 = M - 1
    t = u - i0
    s = 1.0 - t; t2 = t * t; t3 = t2 * t
    w = (s * s * s / 6.0, (3 * t3 - 6 * t2 + 4) / 6.0, (-3 * t3 + 3 * t2 + 3 * t + 1) / 6.0, t3 / 6.0,
         -3 * s * s / (6.0 * h), (9 * t2 - 12 * t) / (6.0 * h), (-9 * t2 + 6 * t + 3) / (6.0 * h),
         3 * t2 / (6.0 * h),
         6 * s / (6.0 * h * h), (18 * t - 12) / (6.0 * h * h), (-18 * t + 6) / (6.0 * h * h),
         6 * t / (6.0 * h * h))
    off = REV_PROFILE + M
    return i0, w, _cp(row, off, M, i0 - 1), _cp(row, off, M, i0), _cp(row, off, M, i0 + 1)


@njit(cache=True, inline="always")
def node_step(row, M, k, m, c0, journal_worn, i0, w, bm, bc, jm, jc, jn):
    """Clearance data at bore node ``k``, the ``m``-th node of a walk started by
    :func:`journal_basis`: ``(C [m], dC/dpsi [m/rad], dC/dphi_rel [m/rad], d(dC/dpsi)/dphi_rel
    [m/rad^2])``, then the rolled control points ``(bm, bc, jm, jc, jn)`` for node ``k + 1``
    (bushing ``k - 1, k`` on entry; each control point computed once per walk)."""
    h = TWO_PI / M
    bq = _cp(row, REV_PROFILE, M, k + 1)
    c = c0 + (bm + 4.0 * bc + bq) / 6.0
    sl = (bq - bm) / (2.0 * h)
    cph = 0.0; sph = 0.0
    if journal_worn:
        jq = _cp(row, REV_PROFILE + M, M, i0 + m + 2)
        c += w[0] * jm + w[1] * jc + w[2] * jn + w[3] * jq
        d = w[4] * jm + w[5] * jc + w[6] * jn + w[7] * jq
        sl += d; cph = -d
        sph = -(w[8] * jm + w[9] * jc + w[10] * jn + w[11] * jq)
        jm = jc; jc = jn; jn = jq
    return c, sl, cph, sph, bc, bq, jm, jc, jn


@njit(cache=True, inline="always")
def segment_bound(a1, s1, A1, B1, a2, s2, A2, B2, dth, em):
    """Upper bound [m] of the overlap over the segment between two nodes with clearance values
    ``a``, slopes ``s`` and ``A = e . n``, ``B = e . t`` (:func:`bound` on the walk's scalars)."""
    if B1 > 0.0 and B2 < 0.0:
        en = em
    else:
        en = A1 if A1 > A2 else A2
    return en - (min(a1, a2) - (4.0 / 27.0) * dth * (abs(s1) + abs(s2)))


@njit(cache=True)
def nodes(row, M, k_lo, k_hi, phi_rel, c0, journal_worn, ebx, eby):
    """Node pass over bore nodes ``k_lo .. k_hi`` (any integers): rows ``(C [m], dC/dpsi [m/rad],
    dC/dphi_rel [m/rad], d(dC/dpsi)/dphi_rel [m/rad^2], A = e . n [m], B = e . t [m], cos psi_k,
    sin psi_k)``, and the largest nodal overlap ``A - C`` [m] over ``k_lo .. k_hi - 1`` (a lower bound of
    the window's largest overlap).  The walk of the kernels (:func:`journal_basis`,
    :func:`node_step`, the node angles' cosines and sines by rotation from ``k_lo``), stored."""
    h = TWO_PI / M
    n = k_hi - k_lo + 1
    nd = np.empty((n, 8))
    umax = -1e300
    i0, w, jm, jc, jn = journal_basis(row, M, k_lo, phi_rel, journal_worn)
    bm = _cp(row, REV_PROFILE, M, k_lo - 1); bc = _cp(row, REV_PROFILE, M, k_lo)
    cd = math.cos(h); sd = math.sin(h)
    co = math.cos(k_lo * h); si = math.sin(k_lo * h)
    for m in range(n):
        c, sl, cph, sph, bm, bc, jm, jc, jn = node_step(row, M, k_lo + m, m, c0, journal_worn, i0, w,
                                                        bm, bc, jm, jc, jn)
        A = ebx * co + eby * si
        nd[m, 0] = c; nd[m, 1] = sl; nd[m, 2] = cph; nd[m, 3] = sph
        nd[m, 4] = A; nd[m, 5] = eby * co - ebx * si; nd[m, 6] = co; nd[m, 7] = si
        if m < n - 1 and A - c > umax:
            umax = A - c
        co, si = co * cd - si * sd, si * cd + co * sd
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
