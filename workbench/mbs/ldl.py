"""The dense ``L D L^T`` factorisation (no square roots) of the constraint system's Schur complement
``Phi_q M^-1 Phi_q^T``: factorised once per right-hand side by :func:`.equations.rhs_arrays`, solved
for the multipliers, and solved again with the same factors for each friction joint of
:mod:`.joint_friction` (its reaction-friction loop)."""
from __future__ import annotations

from ..jit import njit  # house: numba is imported when a compiled function is first needed


@njit(cache=True)
def ldl_factor(S, m):
    """Factorise the symmetric positive definite ``S`` (its leading ``m x m`` block) as
    ``S = L D L^T`` in place, without square roots: ``S``'s strict lower triangle becomes ``L``, its
    diagonal ``D``.  Returns False when ``S`` is not positive definite (redundant or degenerate
    constraints)."""
    for j in range(m):
        d = S[j, j]
        for k in range(j):
            d -= S[j, k] * S[j, k] * S[k, k]
        if not (d > 1e-300):
            return False
        S[j, j] = d
        r = 1.0 / d
        for i in range(j + 1, m):
            v = S[i, j]
            for k in range(j):
                v -= S[i, k] * S[j, k] * S[k, k]
            S[i, j] = v * r
    return True


@njit(cache=True)
def ldl_solve(S, b, x, m):
    """Solve ``S x = b`` with the factors of :func:`ldl_factor` (``b`` and ``x`` may not alias)."""
    for i in range(m):
        v = b[i]
        for k in range(i):
            v -= S[i, k] * x[k]
        x[i] = v
    for i in range(m):
        x[i] = x[i] / S[i, i]
    for i in range(m - 1, -1, -1):
        v = x[i]
        for k in range(i + 1, m):
            v -= S[k, i] * x[k]
        x[i] = v


@njit(cache=True)
def cholesky_solve(S, b, x, m):
    """Solve ``S x = b`` for symmetric positive definite ``S``: :func:`ldl_factor` (in place), then
    :func:`ldl_solve`.  Returns False when ``S`` is not positive definite."""
    if not ldl_factor(S, m):
        return False
    ldl_solve(S, b, x, m)
    return True
