"""The elastica of a cantilever under a tip load that keeps its direction (Bisshopp & Drucker (1945)).

A cantilever of length L and bending stiffness EI, clamped horizontally, with a vertical tip load
P: with ``alpha = P L^2 / EI`` the tip slope ``theta0`` solves

    sqrt(alpha) = K(p) - F(phi1, p),     p^2 = (1 + sin theta0) / 2,   sin phi1 = 1 / (p sqrt 2),

and the tip deflections are ``y_tip / L = 1 - 2 (E(p) - E(phi1, p)) / sqrt(alpha)`` (the tip's
drop, along the load) and ``x_tip / L = sqrt(2 sin theta0 / alpha)`` (its projection on the
clamp's axis).  K, F, E: complete and incomplete elliptic integrals of the first and second
kinds with modulus p (scipy's parameter m = p^2).
"""
from __future__ import annotations

import math

from scipy.optimize import brentq
from scipy.special import ellipe, ellipeinc, ellipk, ellipkinc


def _parts(theta0: float):
    m = (1.0 + math.sin(theta0)) / 2.0
    phi1 = math.asin(min(1.0, 1.0 / math.sqrt(2.0 * m)))
    return m, phi1


def tip(alpha: float) -> tuple[float, float, float]:
    """(theta0 [rad], x_tip / L, y_tip / L) for the load parameter ``alpha = P L^2 / EI``."""
    def f(th):
        m, phi1 = _parts(th)
        return ellipk(m) - ellipkinc(phi1, m) - math.sqrt(alpha)
    th0 = brentq(f, 1e-12, math.pi / 2 - 1e-12, xtol=1e-15, rtol=1e-15)
    m, phi1 = _parts(th0)
    y = 1.0 - 2.0 * (ellipe(m) - ellipeinc(phi1, m)) / math.sqrt(alpha)
    x = math.sqrt(2.0 * math.sin(th0) / alpha)
    return th0, x, y
