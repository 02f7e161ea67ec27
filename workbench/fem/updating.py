"""Primal-dual active-set sweep with an updated Cholesky factor (the batch's fast path).

The sweep of :func:`workbench.fem.kernels.pdas` factorises the compliance of the active set anew in
every iteration (``m^3/6`` for ``m`` active nodes).  Between iterations, and between the samples of
a batch, the set changes by a few nodes, so here the factor ``L L^T = C[A, A]`` is kept and
updated: a node leaves by deleting its row and column and a rank-one update of the trailing block,
a node enters by appending a row (each ``O(m^2)``).  The set is kept in insertion order (``order``);
the equality problem, the gap and the set update are those of ``pdas``, so both sweeps visit the
same sets and end on the same solution.  A factor is rebuilt from scratch when many nodes change at
once, when an appended pivot is not positive, and every ``REFRESH`` samples (bounds the rounding
that updates accumulate).
"""
from __future__ import annotations

import math

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .kernels import approach_from_active_set, cho_solve_inplace as _solve, switch_active_set

#: rebuild the factor from scratch every this many samples
REFRESH = 32


@njit(cache=True, fastmath=True)
def factor(Cp, order, m, L):
    """Cholesky factor of ``Cp[order[:m]][:, order[:m]]`` into ``L[:m, :m]``; False if not SPD."""
    for j in range(m):
        oj = order[j]
        s = Cp[oj, oj]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if s <= 0.0:
            return False
        d = math.sqrt(s)
        L[j, j] = d
        for i in range(j + 1, m):
            t = Cp[order[i], oj]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / d
    return True


@njit(cache=True, fastmath=True)
def delete(order, m, L, pos):
    """Remove the node at ``pos`` from the factor of ``m`` nodes (rank-one update of the trailing
    block with the removed column); returns ``m - 1``."""
    x = np.empty(m - pos - 1)
    for i in range(pos + 1, m):
        x[i - pos - 1] = L[i, pos]
    for i in range(pos, m - 1):           # rows up by one, dropping column pos
        for k in range(pos):
            L[i, k] = L[i + 1, k]
        for k in range(pos, i + 1):
            L[i, k] = L[i + 1, k + 1]
        order[i] = order[i + 1]
    for k in range(pos, m - 1):           # L' L'^T = L L^T + x x^T on the trailing block
        xk = x[k - pos]
        lkk = L[k, k]
        r = math.sqrt(lkk * lkk + xk * xk)
        c, s = r / lkk, xk / lkk
        L[k, k] = r
        for i in range(k + 1, m - 1):
            li = (L[i, k] + s * x[i - pos]) / c
            x[i - pos] = c * x[i - pos] - s * li
            L[i, k] = li
    return m - 1


@njit(cache=True, fastmath=True)
def append(Cp, order, m, L, j):
    """Add node ``j`` as the last row of the factor; returns ``(m + 1, ok)`` (not ok: pivot <= 0)."""
    s = Cp[j, j]
    for a in range(m):
        t = Cp[order[a], j]
        for k in range(a):
            t -= L[a, k] * L[m, k]
        t /= L[a, a]
        L[m, a] = t
        s -= t * t
    if s <= 0.0:
        return m, False
    L[m, m] = math.sqrt(s)
    order[m] = j
    return m + 1, True


@njit(cache=True, fastmath=True)
def pdas_updating(Cp, CpT, N, gap, act, load_q, tol_abs, max_iter, order, m0, L, fresh, pair):
    """Force-controlled sweep from the boolean start set ``act`` (in place), with the factor of the
    nodes ``order[:m0]`` held in ``L`` (``fresh``: rebuild it first).  ``CpT`` is ``Cp.T``
    contiguous (row access for the gap).  ``pair``: two nodes whose normals bracket the load; they
    join any set of fewer than two nodes (one node cannot carry a load off its normal: the
    equality problem would be singular — the sweep's end test still certifies the solution).
    Returns ``(p, e, m, iterations, converged)``; on return ``order[:m]``/``L`` hold the factor
    of the final set."""
    n = gap.size
    p = np.zeros(n)
    g = np.empty(n)
    e = np.zeros(2)
    pos = np.full(n, -1)
    m = m0
    rebuild = fresh
    for it in range(1, max_iter + 1):
        count = 0
        for i in range(n):
            if act[i]:
                count += 1
        if count < 2:
            act[pair[0]] = True
            act[pair[1]] = True
        # bring the factor to the set act: drop, then add
        for a in range(n):
            pos[a] = -1
        for a in range(m):
            pos[order[a]] = a
        changes = 0
        for i in range(n):
            if act[i] != (pos[i] >= 0):
                changes += 1
        if changes == 0 and m == 0:
            return p, e, m, it, False
        if rebuild or 6 * changes > m + 6:
            m = 0
            for i in range(n):
                if act[i]:
                    order[m] = i
                    m += 1
            if m == 0 or not factor(Cp, order, m, L):
                return p, e, 0, it, False
            rebuild = False
        else:
            for a in range(m - 1, -1, -1):
                if not act[order[a]]:
                    m = delete(order, m, L, a)
            for i in range(n):
                if act[i] and pos[i] < 0:
                    m, ok = append(Cp, order, m, L, i)
                    if not ok:
                        m = 0
                        for k in range(n):
                            if act[k]:
                                order[m] = k
                                m += 1
                        if not factor(Cp, order, m, L):
                            return p, e, 0, it, False
                        break
        if m == 0:
            return p, e, m, it, False
        # equality problem on the set (Schur complement for the approach), as pdas
        B = np.empty((m, 3))
        for a in range(m):
            B[a, 0] = N[order[a], 0]
            B[a, 1] = N[order[a], 1]
            B[a, 2] = gap[order[a]]
        _solve(L, m, B)
        if not approach_from_active_set(N, order, B, m, load_q, e):
            return p, e, m, it, False
        p[:] = 0.0
        for i in range(n):
            g[i] = gap[i] - N[i, 0] * e[0] - N[i, 1] * e[1]
        for a in range(m):
            pa = B[a, 0] * e[0] + B[a, 1] * e[1] - B[a, 2]
            oa = order[a]
            p[oa] = pa
            row = CpT[oa]
            for i in range(n):
                g[i] += row[i] * pa
        if switch_active_set(p, g, act, tol_abs):
            return p, e, m, it, True
    return p, e, m, max_iter, False
