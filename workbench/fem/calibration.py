"""Fit a positive model parameter so that a measured quantity hits a target (Winkler calibration).

Used to calibrate the Winkler foundation modulus ``k`` so that the (discrete, possibly worn)
Winkler contact half-angle equals a reference one — Persson's or the FE model's — at a load
(``docs/validation.md``: calibration per load or per wear state repairs the Winkler half-angle, not its
pressure shape).
"""
from __future__ import annotations

import math
from collections.abc import Callable

from scipy.optimize import brentq

from workbench.errors import SolverError


def fit_positive(measure: Callable[[float], float], target: float, x0: float, *,
                 increasing: bool, rtol: float = 1e-8, max_doublings: int = 80) -> float:
    """``x > 0`` with ``measure(x) == target``, for a monotone ``measure``.

    Brackets by doubling/halving from ``x0`` in ``log x``, then Brent's method on ``log x``.
    ``increasing`` says whether ``measure`` grows with ``x``.
    """
    if not (x0 > 0 and math.isfinite(x0)):
        raise SolverError(f"calibration start value must be positive and finite, got {x0}")

    def f(logx):
        return measure(math.exp(logx)) - target

    a = math.log(x0)
    fa = f(a)
    if fa == 0:
        return x0
    direction = 1.0 if (fa < 0) == increasing else -1.0
    b = a + direction * math.log(2.0)
    fb = f(b)
    for _ in range(max_doublings):
        if fa * fb <= 0:
            break
        a, fa = b, fb
        b = a + direction * math.log(2.0)
        fb = f(b)
    else:
        raise SolverError(f"calibration could not bracket the target {target}")
    if fb == 0:
        return math.exp(b)
    return math.exp(brentq(f, min(a, b), max(a, b), xtol=rtol))
