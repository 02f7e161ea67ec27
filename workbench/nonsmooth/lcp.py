"""Linear complementarity problems: find ``z`` with ``w = M z + q``, ``w >= 0``, ``z >= 0``, ``w.z = 0``.

Two solvers for the small problems of non-smooth joints (one or two unknowns per frictional
joint, a handful per mechanism):

* :func:`lemke` -- Lemke's complementary pivoting with the covering vector ``d = 1``
  (Cottle, Pang & Stone (1992) §4.4, Algorithm 4.4.5), with a lexicographic-free minimum-ratio
  test and Bland-style ties broken by the smallest index.  It terminates with a solution for
  every P-matrix and copositive-plus ``M`` (Cottle, Pang & Stone (1992) Theorem 4.4.13) and
  reports a secondary ray otherwise.
* :func:`enumerate_lcp` -- every complementary basis ``(2**n)``: each index is either "active"
  (``w_i = 0``, ``z_i`` free) or "inactive" (``z_i = 0``); a basis whose solution is
  non-negative is a solution.  Exact for the sizes involved (``n <= 12``) and the brute-force
  oracle the tests check :func:`lemke` against.

The horizontal LCP of Wang, Wang & Zhuang (their eqs 18-19) -- equations with the
complementarity pairs ``0 <= lambda_+ ⊥ lambda_- >= 0`` of the two sides of a bilateral
translational joint -- reduces to a standard LCP once its equality unknowns are eliminated.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

__all__ = ["LCPResult", "lemke", "enumerate_lcp", "is_solution"]


@dataclass(frozen=True)
class LCPResult:
    """The outcome of an LCP solve.

    Attributes
    ----------
    z, w : the solution (``w = M z + q``); ``None`` when ``status`` is not ``"solved"``.
    status : ``"solved"``, ``"ray"`` (secondary ray: no solution found, e.g. infeasible problem)
        or ``"max_iterations"``.
    pivots : number of pivots done.
    """
    z: np.ndarray | None
    w: np.ndarray | None
    status: str
    pivots: int


def is_solution(M: np.ndarray, q: np.ndarray, z: np.ndarray, tol: float = 1e-9) -> bool:
    """Whether ``z`` solves LCP(M, q) to the tolerance ``tol`` (scaled by the data's size)."""
    M = np.asarray(M, float)
    q = np.asarray(q, float)
    z = np.asarray(z, float)
    w = M @ z + q
    scale = tol * max(1.0, float(np.abs(q).max(initial=0.0)), float(np.abs(M).max(initial=0.0)))
    return bool(z.min(initial=0.0) >= -scale and w.min(initial=0.0) >= -scale
                and abs(float(z @ w)) <= scale * max(1.0, float(np.abs(z).sum())))


def lemke(M: np.ndarray, q: np.ndarray, *, max_iterations: int | None = None,
          tol: float = 1e-12) -> LCPResult:
    """Solve LCP(M, q) by Lemke's method (Cottle, Pang & Stone (1992) Algorithm 4.4.5).

    Parameters
    ----------
    M : (n, n) array, the LCP matrix [any consistent unit].
    q : (n,) array, the LCP vector [the unit of ``w``].
    max_iterations : pivot limit (default ``50 * (n + 1)``).
    tol : pivot tolerance, relative to the largest entry of the pivot column.
    """
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float)
    n = q.size
    if M.shape != (n, n):
        raise ValueError(f"lemke: M has shape {M.shape}, expected ({n}, {n}) to match q")
    if not (np.all(np.isfinite(M)) and np.all(np.isfinite(q))):
        raise ValueError("lemke: M and q must be finite")
    if n == 0 or q.min() >= 0.0:
        return LCPResult(np.zeros(n), q.copy(), "solved", 0)
    max_iterations = 50 * (n + 1) if max_iterations is None else max_iterations
    # Tableau [I | -M | -d | q] for the variables w (0..n-1), z (n..2n-1), z0 (2n).
    T = np.hstack([np.eye(n), -M, -np.ones((n, 1)), q[:, None]])
    basis = list(range(n))            # w basic
    rhs = 2 * n + 1
    # First pivot: z0 enters, the row of the most negative q leaves.
    row = int(np.argmin(T[:, rhs]))
    entering = 2 * n
    pivots = 0
    while True:
        T[row] /= T[row, entering]
        for r in range(n):
            if r != row and T[r, entering] != 0.0:
                T[r] -= T[r, entering] * T[row]
        leaving = basis[row]
        basis[row] = entering
        pivots += 1
        if leaving == 2 * n:          # z0 left the basis: a complementary solution
            break
        if pivots >= max_iterations:
            return LCPResult(None, None, "max_iterations", pivots)
        # The complement of the leaving variable enters.
        entering = leaving + n if leaving < n else leaving - n
        col = T[:, entering]
        cmax = float(np.abs(col).max())
        positive = col > tol * max(cmax, 1.0)
        if not positive.any():
            return LCPResult(None, None, "ray", pivots)
        ratios = np.full(n, np.inf)
        ratios[positive] = T[positive, rhs] / col[positive]
        rmin = ratios.min()
        ties = np.flatnonzero(ratios <= rmin + 1e-12 * max(1.0, abs(rmin)))
        # Prefer z0 leaving on a tie (ends the method), else the smallest index.
        z0_rows = [r for r in ties if basis[r] == 2 * n]
        row = int(z0_rows[0]) if z0_rows else int(ties[0])
    values = np.zeros(2 * n + 1)
    for r, var in enumerate(basis):
        values[var] = T[r, rhs]
    z = values[n:2 * n]   # (w = values[:n] is recomputed from z below, exactly)
    z = np.maximum(z, 0.0)
    return LCPResult(z, M @ z + q, "solved", pivots)


def enumerate_lcp(M: np.ndarray, q: np.ndarray, *, tol: float = 1e-10,
                  all_solutions: bool = False) -> list[np.ndarray]:
    """Solve LCP(M, q) by trying every complementary basis (brute force, ``2**n`` solves).

    Returns the solutions found (the first one only unless ``all_solutions``), each ``z`` as an
    array; an empty list means the problem has no solution.  For ``n`` above 16 this refuses,
    because the work doubles with every unknown.
    """
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float)
    n = q.size
    if n > 16:
        raise ValueError(f"enumerate_lcp: n = {n} is too large for enumeration (at most 16)")
    found: list[np.ndarray] = []
    scale = tol * max(1.0, float(np.abs(q).max(initial=0.0)))
    for active in product((False, True), repeat=n):
        idx = np.flatnonzero(active)
        z = np.zeros(n)
        if idx.size:
            sub = M[np.ix_(idx, idx)]
            try:
                z_act = np.linalg.solve(sub, -q[idx])
            except np.linalg.LinAlgError:
                continue
            if not np.allclose(sub @ z_act, -q[idx], rtol=1e-9, atol=scale):
                continue
            z[idx] = z_act
        if z.min(initial=0.0) < -scale:
            continue
        w = M @ z + q
        inactive = np.flatnonzero(~np.asarray(active))
        if inactive.size and w[inactive].min() < -scale:
            continue
        found.append(np.maximum(z, 0.0))
        if not all_solutions:
            break
    return found
