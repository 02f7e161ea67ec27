"""Frictionless pin-in-bore contact on the nodes as a linear complementarity problem.

Unknowns: nodal pressures ``p_i >= 0`` [Pa] and (force control) the approach ``e`` [m].  With
``C`` [m/Pa] the total condensed compliance (bushing + pin, in pressure units: nodal line load
``p_i R dtheta``), the normal gap at node ``i`` after deformation is

    g_i = gap_i - e . n_i + (C p)_i  >= 0,     p_i >= 0,     p_i g_i = 0,

and force control adds the equilibrium ``b R dtheta sum_i p_i n_i = F``.  The solver is a
primal-dual active-set method (Hintermüller, Ito & Kunisch (2003)) warm-started
from the previous active set; each iteration solves the equality problem on the active set with one
Cholesky factorisation (Schur complement for the two approach unknowns).  If it has not settled
after ``max_iter`` sweeps it falls back to a one-node-at-a-time active-set method, which cannot
cycle on a positive-definite ``C``.  The sweep runs compiled (:func:`workbench.fem.kernels.pdas`,
``fast=True``); the scipy implementation below is the reference path and the fallback.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from workbench.errors import SolverError

from .kernels import pdas


@dataclass
class ContactResult:
    """Nodal pressure [Pa], approach [m], gap after deformation [m] and diagnostics."""
    pressure: np.ndarray
    eccentricity: np.ndarray
    gap: np.ndarray
    active: np.ndarray
    info: dict = field(default_factory=dict)


def half_angle(theta: np.ndarray, p: np.ndarray, *, edge_exponent: float = 0.5) -> float:
    """Half the angular span [rad] of the contact: the smallest arc holding every loaded node.

    A worn bore can touch in two lobes; the span covers both (and the unloaded pocket between).
    Each end of the arc is placed between its last loaded node and the next one by extrapolating
    ``p^(1/edge_exponent)`` linearly to zero (``0.5``: square-root edge of elastic contact, ``1``:
    linear edge of a Winkler foundation); nodes are uniformly spaced.
    """
    n = len(p)
    on = np.asarray(p) > 0
    if not on.any():
        return 0.0
    if on.all():
        return math.pi
    # the largest circular run of unloaded nodes; the contact arc is its complement
    idx = np.flatnonzero(on)
    gaps = np.diff(np.append(idx, idx[0] + n)) - 1
    g = int(np.argmax(gaps))
    first, last = idx[(g + 1) % len(idx)], idx[g]
    span_nodes = (last - first) % n  # nodes strictly between the two end nodes, plus one
    q = 1.0 / edge_exponent

    def overhang(end, inward):
        a = p[end] ** q
        b = p[(end + inward) % n] ** q if on[(end + inward) % n] else 0.0
        if b > a:
            return min(max(a / (b - a), 0.0), 1.0)
        return 0.5
    ext = span_nodes + overhang(last, -1) + overhang(first, +1)
    return 0.5 * ext * 2 * math.pi / n


class ContactSolver:
    """Active-set solver for one condensed compliance.

    Parameters
    ----------
    compliance : (n, n) [m^2/N] gap opening per radial nodal line load (bushing + pin).
    theta : (n,) node angles [rad], uniformly spaced.
    radius : bore radius R [m].
    length : axial length b [m].
    """

    def __init__(self, compliance: np.ndarray, theta: np.ndarray, radius: float, length: float,
                 *, max_iter: int = 40, tol: float = 1e-10, fast: bool = True):
        self.theta = np.asarray(theta, float)
        self.n = len(self.theta)
        self.radius, self.length = float(radius), float(length)
        self.dtheta = 2 * math.pi / self.n
        self.Cp = np.ascontiguousarray(np.asarray(compliance, float) * radius * self.dtheta)
        self.N = np.column_stack([np.cos(self.theta), np.sin(self.theta)])
        self.max_iter, self.tol, self.fast = max_iter, tol, fast
        self._active = None

    # ---------------------------------------------------------------- equality problem on a set
    def _solve_set(self, A, gap, load_q, e_fixed):
        import scipy.linalg as sla  # lazily: scipy.linalg is slow to import
        CA = self.Cp[np.ix_(A, A)]
        NA = self.N[A]
        cho = sla.cho_factor(CA, check_finite=False)
        if e_fixed is None:
            X = sla.cho_solve(cho, np.column_stack([NA, gap[A]]), check_finite=False)
            S = NA.T @ X[:, :2]
            e = np.linalg.solve(S, load_q + NA.T @ X[:, 2])
            pA = X[:, :2] @ e - X[:, 2]
        else:
            e = e_fixed
            pA = sla.cho_solve(cho, NA @ e - gap[A], check_finite=False)
        return pA, e

    def _gap(self, A, pA, gap, e):
        return gap - self.N @ e + self.Cp[:, A] @ pA

    def _initial_set(self, gap, direction):
        u = self.N @ direction - (gap - gap.min()) / max(np.ptp(gap), 1e-300) * 1e-3
        k = max(3, self.n // 60)
        return np.sort(np.argsort(-u)[:k])

    # ---------------------------------------------------------------- the solver
    def solve(self, gap, *, load=None, eccentricity=None, warm: bool = True) -> ContactResult:
        """Force-controlled (``load`` [N], shape (2,)) or displacement-controlled (``eccentricity`` [m])."""
        gap = np.asarray(gap, float)
        force_control = load is not None
        if force_control == (eccentricity is not None):
            raise ValueError("give exactly one of load and eccentricity")
        scale = self.length * self.radius * self.dtheta
        if force_control:
            load = np.asarray(load, float)
            if not np.linalg.norm(load) > 0:
                return self._empty(gap, np.zeros(2))
            load_q, e_fixed, direction = load / scale, None, load / np.linalg.norm(load)
        else:
            e_fixed = np.asarray(eccentricity, float)
            load_q, direction = None, e_fixed / max(np.linalg.norm(e_fixed), 1e-300)
            if not np.any(self.N @ e_fixed - gap > 0):
                return self._empty(gap, e_fixed)
        gscale = max(np.max(np.abs(gap)), 1e-6 * self.radius)
        A = self._active if (warm and self._active is not None and len(self._active)) \
            else self._initial_set(gap, direction)
        if self.fast:
            start = np.zeros(self.n, dtype=np.bool_)
            start[A] = True
            p, e, g, act, it, ok = pdas(self.Cp, self.N, gap, start,
                                        load_q if load_q is not None else np.zeros(2),
                                        e_fixed if e_fixed is not None else np.zeros(2),
                                        force_control, self.tol * gscale, self.max_iter)
            if ok:
                A = np.flatnonzero(act)
                self._active = A
                return ContactResult(p, e, g, A, self._diagnostics(p, g, e, load, it, "pdas", gscale))
        seen = set()
        it, method = 0, "pdas"
        for it in range(1, self.max_iter + 1):
            pA, e = self._solve_set(A, gap, load_q, e_fixed)
            g = self._gap(A, pA, gap, e)
            keep = A[pA > 0]
            inA = np.zeros(self.n, bool)
            inA[A] = True
            add = np.flatnonzero(~inA & (g < -self.tol * gscale))
            newA = np.union1d(keep, add)
            if len(newA) == len(A) and np.array_equal(newA, A):
                break
            key = newA.tobytes()
            if key in seen or len(newA) == 0:
                A, method = self._fallback(A, gap, load_q, e_fixed, gscale), "single"
                pA, e = self._solve_set(A, gap, load_q, e_fixed)
                break
            seen.add(key)
            A = newA
        else:
            A, method = self._fallback(A, gap, load_q, e_fixed, gscale), "single"
            pA, e = self._solve_set(A, gap, load_q, e_fixed)
        p = np.zeros(self.n)
        p[A] = np.maximum(pA, 0.0)
        g = self._gap(A, pA, gap, e)
        self._active = A
        return ContactResult(p, e, g, A, self._diagnostics(p, g, e, load, it, method, gscale))

    def _fallback(self, A, gap, load_q, e_fixed, gscale):
        """One change at a time: drop the most negative pressure, else add the deepest penetration."""
        A = np.array(A, dtype=np.int64)
        for _ in range(4 * self.n):
            if len(A) == 0:
                A = self._initial_set(gap, np.array([1.0, 0.0]) if e_fixed is None else e_fixed)
            pA, e = self._solve_set(A, gap, load_q, e_fixed)
            if np.any(pA < 0):
                A = np.delete(A, int(np.argmin(pA)))
                continue
            g = self._gap(A, pA, gap, e)
            g[A] = np.inf
            j = int(np.argmin(g))
            if g[j] >= -self.tol * gscale:
                return A
            A = np.sort(np.append(A, j))
        raise SolverError("contact active-set fallback did not converge")

    def _empty(self, gap, e):
        z = np.zeros(self.n)
        return ContactResult(z, e, gap - self.N @ e, np.zeros(0, np.int64),
                             {"iterations": 0, "n_active": 0, "equilibrium_residual": 0.0,
                              "complementarity_residual": 0.0, "max_penetration": 0.0})

    def _diagnostics(self, p, g, e, load, it, method, gscale):
        scale = self.length * self.radius * self.dtheta
        force = scale * (self.N.T @ p)
        pscale = max(p.max(), 1e-300)
        info = {
            "iterations": it,
            "fallback": float(method == "single"),
            "n_active": int(np.count_nonzero(p > 0)),
            "max_penetration": float(max(0.0, -g.min())),
            "complementarity_residual": float(np.max(np.abs(np.minimum(p / pscale, g / gscale)))),
            "equilibrium_residual": float(np.linalg.norm(force - load) / np.linalg.norm(load))
            if load is not None else 0.0,
        }
        return info
