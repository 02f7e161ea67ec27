"""Asperity contact pressure of two rough surfaces, Greenwood & Tripp (1970).

Two nominally flat rough surfaces with Gaussian summit heights (composite roughness ``sigma`` [m],
asperity density ``eta`` [1/m^2], asperity summit radius ``beta`` [m]) at a mean separation ``h``
[m] carry the nominal pressure

    p_a(h) = K E* F_{5/2}(h / sigma),   K = (16 sqrt(2) / 15) pi (eta beta sigma)^2 sqrt(sigma / beta),

``1/E* = (1 - nu_1^2)/E_1 + (1 - nu_2^2)/E_2`` (Greenwood & Tripp (1970), whose ``E'`` is this
modulus of Hertz's law ``P = (4/3) E' sqrt(R) w^(3/2)`` as in Greenwood & Williamson (1966); the
same form in mixed-lubrication bearing models, e.g. Hu et al. (1994); written with ``8 sqrt(2)/15``
it goes with the modulus ``E' = 2 E*``).  The prefactor follows from summing Hertz contacts of
summit pairs of radius ``beta`` (reduced radius ``beta/2``) offset by ``r``, overlapping by ``s - h
- r^2/(4 beta)``, ``eta^2 2 pi r dr`` pairs per unit area, over the Gaussian summed summit heights
``s`` (composite ``sigma``): ``(4/3) E* sqrt(beta/2) 4 pi beta (2/5) = (16 sqrt 2/15) pi E* beta^(3/2)``
times ``eta^2 sigma^(5/2) F_{5/2}(h/sigma)``; ``tests/lubrication/test_greenwood_tripp.py`` sums the
pairs numerically and finds the closed form to 7e-14.  ``F_n(t) = (2 pi)^(-1/2) int_t^inf (s - t)^n exp(-s^2/2) ds`` (the
Gaussian summit-height integral, Greenwood & Williamson (1966)); in closed form with the parabolic
cylinder function ``D_nu``: ``F_n(t) = Gamma(n + 1) exp(-t^2/4) D_{-n-1}(t) / sqrt(2 pi)``
(from the integral representation of Abramowitz & Stegun (1964) eq. 19.5.3, ``U(a, x) = D_{-a-1/2}(x)``).  ``F_{5/2}(0) =
2^(3/4) Gamma(7/4) / sqrt(2 pi) = 0.61664``.

The compiled kernels use a table of ``ln F_{5/2}`` on ``t in [T_MIN, T_MAX]`` (step ``T_STEP``,
linear interpolation of the logarithm; measured error 2.2e-6 relative on [-3, 6], ``tests/test_lubrication.py``); the
common curve fit ``F_{5/2}(t) = 4.4086e-5 (4 - t)^6.804`` for ``t < 4`` (Arcoumanis et al. (1997))
is offered for comparison (measured -10.7 %, -3.5 %, -9.2 %, -74 % at t = 0, 1, 2, 3; its attribution
varies between papers, see docs/lubrication.md).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..jit import njit

T_MIN, T_MAX, T_STEP = -10.0, 8.0, 0.005
#: F_{5/2}(0) in closed form
F52_AT_ZERO = 2 ** 0.75 * math.gamma(1.75) / math.sqrt(2 * math.pi)


def F(n: float, t):
    """``F_n(t)`` [1], exact (parabolic cylinder function; scipy)."""
    from scipy.special import gamma, pbdv
    t = np.asarray(t, float)
    d, _ = pbdv(-n - 1.0, t)
    return gamma(n + 1.0) * np.exp(-t * t / 4.0) * d / math.sqrt(2 * math.pi)


def F_quad(n: float, t: float) -> float:
    """``F_n(t)`` by adaptive quadrature of the definition (the reference of the reference)."""
    from scipy.integrate import quad
    val, _ = quad(lambda s: (s - t) ** n * math.exp(-s * s / 2.0), t, math.inf, epsabs=0, epsrel=1e-12,
                  limit=200)
    return val / math.sqrt(2 * math.pi)


def F52_fit(t):
    """The curve fit ``4.4086e-5 (4 - t)^6.804`` (0 for ``t >= 4``)."""
    t = np.asarray(t, float)
    return np.where(t < 4.0, 4.4086e-5 * np.clip(4.0 - t, 0.0, None) ** 6.804, 0.0)


@functools.lru_cache(maxsize=1)
def f52_table() -> np.ndarray:
    """``[T_MIN, T_STEP, n, ln F_{5/2}(t_0..t_{n-1})]`` for :func:`f52`."""
    t = np.arange(T_MIN, T_MAX + 0.5 * T_STEP, T_STEP)
    return np.concatenate([[T_MIN, T_STEP, len(t)], np.log(F(2.5, t))])


@njit(cache=True)
def f52(t, tab, off):
    """``F_{5/2}(t)`` from the table stored in ``tab[off:]`` (0 above the table, the end value's
    growth ``(t_0 - t)^2.5`` scaling below it)."""
    t0 = tab[off]; dt = tab[off + 1]; n = int(tab[off + 2])
    u = (t - t0) / dt
    if u >= n - 1:
        return 0.0
    if u <= 0.0:
        # F_{5/2}(t) ~ |t|^2.5 for t -> -inf: continue the end value with that law
        return math.exp(tab[off + 3]) * ((-t) / (-t0)) ** 2.5
    i = int(u)
    f = u - i
    return math.exp(tab[off + 3 + i] * (1.0 - f) + tab[off + 4 + i] * f)


def prefactor(sigma: float, eta: float, beta: float) -> float:
    """``K = (16 sqrt 2 / 15) pi (eta beta sigma)^2 sqrt(sigma / beta)`` [1]."""
    return 16.0 * math.sqrt(2.0) / 15.0 * math.pi * (eta * beta * sigma) ** 2 * math.sqrt(sigma / beta)


def asperity_pressure(h, sigma: float, eta: float, beta: float, E_star: float):
    """``p_a(h)`` [Pa] at film thickness ``h`` [m] (exact ``F_{5/2}``)."""
    return prefactor(sigma, eta, beta) * E_star * F(2.5, np.asarray(h, float) / sigma)
