"""Force-controlled contact by a primal active-set method: the robust last resort.

The force-controlled contact problem of :mod:`workbench.fem.contact` is the strictly convex
quadratic programme (``C`` positive definite)

    min_p  1/2 p.C p + gap.p     subject to   N^T p = F / (b R dtheta),   p >= 0,

whose multiplier of the equality is the approach ``e`` and whose bound multipliers are the gaps
after deformation ``gap - N e + C p``.  The primal active-set method (Nocedal & Wright, *Numerical
Optimization*, 2nd ed., Algorithm 16.3) starts from a feasible ``p`` on the two nodes whose normals
bracket the load, solves the equality problem on the working set, steps back to feasibility when a
pressure would turn negative (dropping the blocking node) and otherwise adds the most penetrated
node.  Every working set spans the load direction, so each equality problem is well posed — unlike
the primal-dual sweep, which can fall to one node at small loads (a singular system).  It adds one
node per iteration, so it is slow for wide contacts: use it only when the sweep fails.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from workbench.errors import SolverError

from .contact import ContactResult


#: smallest elastic displacement scale, as a fraction of the gap scale, at which a load is solved
#: directly; below it (loads of micro-newtons and less) the pressures would be rounding noise of
#: ``gap - N e`` (a difference of near-equal numbers), so the load is raised to this floor, where
#: the contact still sits on the nodes of the rigid touch, and the pressure is scaled back down
#: (exact while the contact set stays the two nodes of the rigid limit)
FLOOR = 1e-6


def floor_factor(load_q: float, cmax: float, gscale: float) -> float:
    """Factor >= 1 that lifts ``load_q`` [Pa] (``|F| / (b R dtheta)``) to the floor: elastic
    displacement ``load_q cmax`` (``cmax`` the largest diagonal compliance [m/Pa]) of at least
    ``FLOOR gscale`` [m]."""
    return max(1.0, FLOOR * gscale / (load_q * cmax))


def _start(N: np.ndarray, f: np.ndarray) -> tuple[list[int], np.ndarray]:
    """The two nodes nearest the load direction on either side of it, and their feasible weights."""
    d = f / np.linalg.norm(f)
    c = N @ d
    side = N[:, 0] * d[1] - N[:, 1] * d[0]
    i = int(np.argmax(np.where(side >= 0.0, c, -np.inf)))
    j = int(np.argmax(np.where(side < 0.0, c, -np.inf)))
    w = np.linalg.solve(np.column_stack([N[i], N[j]]), f)
    return [i, j], np.maximum(w, 0.0)


def solve_primal(Cp: np.ndarray, N: np.ndarray, gap: np.ndarray, load_q: np.ndarray, tol_abs: float,
                 max_iter: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pressure (n,) [Pa] and approach (2,) [m] for ``Cp`` (n, n) [m/Pa], node normals ``N``
    (n, 2), initial gap ``gap`` (n,) [m], ``load_q = F / (b R dtheta)`` [Pa] and the gap tolerance
    ``tol_abs`` [m] (the primal-dual sweep's ``tol * gap scale``)."""
    n = len(gap)
    f = np.asarray(load_q, float)
    W, pW = _start(N, f)
    # work relative to the rigid touch of the two start nodes (N_W e0 = gap_W): same problem,
    # no cancellation between the gap and the approach at small loads
    e0 = np.linalg.solve(N[W], gap[W])
    gap = gap - N @ e0
    max_iter = 4 * n + 10 if max_iter is None else max_iter
    for _ in range(max_iter):
        idx = np.asarray(W)
        NW = N[idx]
        cho = sla.cho_factor(Cp[np.ix_(idx, idx)], check_finite=False)
        X = sla.cho_solve(cho, np.column_stack([NW, gap[idx]]), check_finite=False)
        S = NW.T @ X[:, :2]
        if not abs(np.linalg.det(S)) > 1e-12 * np.trace(S) ** 2:
            raise SolverError("primal contact solve: working set does not span the load")
        e = np.linalg.solve(S, f + NW.T @ X[:, 2])
        target = X[:, :2] @ e - X[:, 2]
        neg = target < 0.0
        if neg.any():
            # step from the feasible pW towards target until the first pressure reaches zero
            ratios = np.full(len(W), np.inf)
            ratios[neg] = pW[neg] / (pW[neg] - target[neg])
            k = int(np.argmin(ratios))
            pW = pW + ratios[k] * (target - pW)
            del W[k]
            pW = np.delete(pW, k)
            continue
        pW = target
        g = gap - N @ e + Cp[:, idx] @ pW
        g[idx] = np.inf
        k = int(np.argmin(g))
        if g[k] >= -tol_abs:
            p = np.zeros(n)
            p[idx] = pW
            return p, e + e0
        W.append(k)
        pW = np.append(pW, 0.0)
    raise SolverError(f"primal contact solve did not converge in {max_iter} iterations")


def gap_scale(solver, gap: np.ndarray) -> float:
    """The gap scale [m] of :meth:`ContactSolver.solve` (its tolerance is ``tol`` times this)."""
    return max(float(np.max(np.abs(gap))), 1e-6 * solver.radius)


def _solve(solver, gap, load):
    try:
        return solver.solve(gap, load=load)
    except (np.linalg.LinAlgError, SolverError):
        pass
    scale = solver.length * solver.radius * solver.dtheta
    gscale = gap_scale(solver, gap)
    p, e = solve_primal(solver.Cp, solver.N, gap, load / scale, solver.tol * gscale)
    if not np.all(np.isfinite(p)):
        raise SolverError("primal contact solve gave non-finite pressures")
    active = np.flatnonzero(p > 0)
    solver._active = active
    g = gap - solver.N @ e + solver.Cp[:, active] @ p[active]
    info = solver._diagnostics(p, g, e, load, 0, "primal", gscale)
    info["primal"] = 1.0
    return ContactResult(p, e, g, active, info)


def solve_robust(solver, gap: np.ndarray, load: np.ndarray) -> ContactResult:
    """``solver.solve(gap, load=load)``, made robust: a load below the floor (:data:`FLOOR`) is
    solved at the floor and its pressure scaled down (``info["load_factor"]``); when the sweep fails
    (a singular working set, no settled set), the primal active-set method (``info["primal"]``).
    Leaves the solver's warm active set at the solution's."""
    gap = np.asarray(gap, float)
    load = np.asarray(load, float)
    Fm = float(np.hypot(load[0], load[1]))
    if not Fm > 0:
        return solver.solve(gap, load=load)
    scale = solver.length * solver.radius * solver.dtheta
    cmax = solver.__dict__.get("_cmax")
    if cmax is None:
        cmax = solver._cmax = float(np.max(np.diag(solver.Cp)))
    factor = floor_factor(Fm / scale, cmax, gap_scale(solver, gap))
    res = _solve(solver, gap, factor * load)
    if factor > 1.0:
        res.pressure = res.pressure / factor
        res.info["load_factor"] = factor
        res.info["equilibrium_residual"] = float(np.linalg.norm(
            scale * (solver.N.T @ res.pressure) - load) / Fm)
    return res
