"""Fit a positive model parameter so that a measured quantity hits a target (Winkler calibration).

:func:`fit_winkler_stiffness` is the ONE place the Winkler foundation modulus ``k`` is fitted to a
reference contact half-angle -- the FE model's (the ``winkler`` pressure model with
``calibrate = "fem"``, and ``fit_to`` in a pressure study both call it) -- so that the discrete,
possibly worn, Winkler half-angle equals it at a load (``docs/validation.md``: calibration per
load or per wear state repairs the Winkler half-angle, not its pressure shape).
:func:`fit_positive` is the root finder underneath.
"""
from __future__ import annotations

import math
from collections.abc import Callable

from scipy.optimize import brentq

from workbench.errors import SolverError

from . import closed_forms as cf


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


def fit_winkler_stiffness(half_angle_at: Callable[[float], float], target: float, P: float, R: float,
                          dR: float) -> float:
    """Foundation modulus ``k`` [Pa/m] with ``half_angle_at(k) == target`` [rad].

    ``half_angle_at(k)``: the discrete Winkler half-angle [rad] at the calibration load with
    modulus ``k``; ``P`` [N/m] that load per unit length, ``R`` [m] the bore radius and ``dR`` [m]
    the radial clearance of the start value: the closed form of a rigid journal in a uniform gap
    (:func:`~workbench.fem.closed_forms.winkler_stiffness_for_half_angle`), or ``P / (R 1e-6)``
    without clearance.  The half-angle falls as ``k`` grows.
    """
    k0 = cf.winkler_stiffness_for_half_angle(target, P, R, dR) if dR > 0 else P / (R * 1e-6)
    return fit_positive(half_angle_at, target, k0, increasing=False)
