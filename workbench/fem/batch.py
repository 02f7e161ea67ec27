"""Many force-controlled contact solves on one condensed compliance (the samples of a wear update).

Each sample has its own load and its own gap (a worn journal turns against a worn bushing); the
compliance, and so the :class:`~workbench.fem.contact.ContactSolver`, is shared.  The compiled loop
:func:`pdas_loads` runs the primal-dual active-set sweep of :func:`workbench.fem.kernels.pdas` on
each sample, with a Cholesky factor updated from set to set and from sample to sample
(:mod:`workbench.fem.updating`), warm-started from the previous sample's active set turned by the
change of the load angle (the contact follows the load: about half the sweeps of an unturned
start), with the tolerances of :meth:`ContactSolver.solve`.  A sample whose sweep does not settle
goes through :meth:`ContactSolver.solve` (the reference path with its one-node-at-a-time
fallback) and, if that fails too (small loads), the primal active-set method of
:mod:`workbench.fem.primal`; the loop resumes after it.  The result equals a loop of
``solver.solve(gap_i, load=F_i)`` to rounding (the complementarity problem of a positive-definite
compliance has one solution, whatever the start).
"""
from __future__ import annotations

import math

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .contact import ContactSolver
from .primal import FLOOR, solve_robust
from .updating import REFRESH, pdas_updating


@njit(cache=True)
def bracket(N, d0, d1):
    """The nodes nearest the direction ``d`` on either side of it (their normals bracket ``d``)."""
    bi = bj = -1
    ci = cj = -math.inf
    for k in range(N.shape[0]):
        c = N[k, 0] * d0 + N[k, 1] * d1
        if N[k, 0] * d1 - N[k, 1] * d0 >= 0.0:
            if c > ci:
                ci, bi = c, k
        elif c > cj:
            cj, bj = c, k
    return bi, bj


@njit(cache=True)
def pdas_loads(Cp, CpT, N, gaps, loads, start, first, scale, gmin_scale, tol, max_iter, cmax, p, ecc):
    """Solve samples ``first, first+1, ...`` in place into ``p`` (ns, n) and ``ecc`` (ns, 2).

    ``CpT`` = ``Cp.T`` contiguous; ``gaps`` (ns, n) or (1, n) [m]; ``loads`` (ns, 2) [N]; ``start``
    boolean warm active set; ``scale = b R dtheta`` [m^2]; ``gmin_scale = 1e-6 R`` [m] (floor of
    the gap scale); ``tol`` the relative gap tolerance; ``cmax`` the largest diagonal entry of
    ``Cp`` [m/Pa].  Loads below the floor of :func:`workbench.fem.primal.floor_factor` are solved
    at the floor and scaled.  The sweep works on the gap relative to the rigid touch along the load
    (``gap - N e_ref``; the same problem, less cancellation at small loads).  Returns ``(stop,
    active)``: ``stop`` the first sample whose sweep did not settle (``ns`` when all did) and the
    warm active set for it.
    """
    ns = loads.shape[0]
    n = N.shape[0]
    act = start.copy()
    q = np.empty(2)
    pair = np.empty(2, dtype=np.int64)
    shifted = np.empty(n)
    prev = math.nan
    order = np.zeros(n, dtype=np.int64)
    L = np.zeros((n, n))
    m = 0
    solved = 0
    for s in range(first, ns):
        F0, F1 = loads[s, 0], loads[s, 1]
        Fm = math.sqrt(F0 * F0 + F1 * F1)
        if not Fm > 0.0:
            continue
        g = gaps[s] if gaps.shape[0] > 1 else gaps[0]
        gscale = max(np.max(np.abs(g)), gmin_scale)
        factor = max(1.0, FLOOR * gscale / (Fm / scale * cmax))
        q[0], q[1] = factor * F0 / scale, factor * F1 / scale
        d0, d1 = F0 / Fm, F1 / Fm
        pair[0], pair[1] = bracket(N, d0, d1)
        touch = math.inf
        for i in range(n):
            c = N[i, 0] * d0 + N[i, 1] * d1
            if c > 0.5:
                touch = min(touch, g[i] / c)
        e0, e1 = touch * d0, touch * d1
        for i in range(n):
            shifted[i] = g[i] - N[i, 0] * e0 - N[i, 1] * e1
        angle = math.atan2(F1, F0)
        if prev == prev:    # turn the warm set with the load: about half the sweeps
            turn = angle - prev
            shift = int(round((turn - 2 * math.pi * math.floor(turn / (2 * math.pi) + 0.5)) * n / (2 * math.pi)))
            if shift != 0:
                act = np.roll(act, shift)
        prev = angle
        work = act.copy()
        ps, es, m, _, ok = pdas_updating(Cp, CpT, N, shifted, work, q, tol * gscale, max_iter, order, m,
                                         L, solved % REFRESH == 0, pair)
        solved += 1
        if not ok:
            return s, act
        for i in range(n):
            p[s, i] = ps[i] / factor
        ecc[s, 0] = es[0] + e0
        ecc[s, 1] = es[1] + e1
        act = work
    return ns, act


def solve_loads(solver: ContactSolver, gaps: np.ndarray, loads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pressure (ns, n) [Pa] and approach (ns, 2) [m] for ``loads`` (ns, 2) [N] on ``gaps`` (ns, n)
    or (1, n) [m] (one row for all samples); zero-load samples give zeros.  Leaves the solver's warm
    active set at the last sample's."""
    ns, n = len(loads), solver.n
    p = np.zeros((ns, n))
    ecc = np.zeros((ns, 2))
    scale = solver.length * solver.radius * solver.dtheta
    first = 0
    CpT = np.ascontiguousarray(solver.Cp.T)
    cmax = float(np.max(np.diag(solver.Cp)))
    while first < ns:
        F = loads[first:]
        loaded = np.flatnonzero(np.hypot(F[:, 0], F[:, 1]) > 0)
        if not len(loaded):
            break
        j = first + int(loaded[0])
        g = gaps[j] if len(gaps) > 1 else gaps[0]
        if solver._active is None or not len(solver._active):
            res = solve_robust(solver, g, loads[j])  # cold start as the reference path
            p[j], ecc[j] = res.pressure, res.eccentricity
            first = j + 1
            continue
        start = np.zeros(n, dtype=np.bool_)
        start[solver._active] = True
        stop, act = pdas_loads(solver.Cp, CpT, solver.N, gaps, loads, start, j, scale,
                               1e-6 * solver.radius, solver.tol, solver.max_iter, cmax, p, ecc)
        solver._active = np.flatnonzero(act)
        if stop >= ns:
            break
        g = gaps[stop] if len(gaps) > 1 else gaps[0]
        res = solve_robust(solver, g, loads[stop])   # reference path with its fallbacks
        p[stop], ecc[stop] = res.pressure, res.eccentricity
        first = stop + 1
    return p, ecc
