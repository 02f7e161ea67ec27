"""Short (Ocvirk) journal bearing, the dynamic form of Flores et al. (2006) after Pinkus &
Sternlicht (1961).

With ``L/D -> 0`` the circumferential pressure flow is negligible and the Reynolds equation
integrates in ``z`` (Ocvirk (1952); Pinkus & Sternlicht (1961) ch. 3):

    p(theta, z) = 3 mu (L^2/4 - z^2) / h^3 [c eps w sin(theta) - 2 c eps_dot cos(theta)],

``h = c (1 + eps cos theta)``, ``theta`` from the largest film, ``w = omega - 2 gamma_dot``
(:mod:`.kinematics`).  Integrated over the ``pi`` film ``0 <= theta <= pi`` (the half where the
wedge pressure is positive; the convention of Flores et al. (2006) (short-bearing forces)):

    F_e = -(mu R L^3 / (2 c^2)) [ 2 eps^2 w / (1 - eps^2)^2 + pi eps_dot (1 + 2 eps^2) / (1 - eps^2)^(5/2) ]
    F_t = +(mu R L^3 / (2 c^2)) [ pi eps w / (2 (1 - eps^2)^(3/2)) + 4 eps eps_dot / (1 - eps^2)^2 ]

``F_e`` along the eccentricity, ``F_t`` along it turned +90 deg (the sense of ``w > 0``).  Steady
state (``eps_dot = 0``, ``gamma_dot = 0``): load ``W = mu omega R L^3 eps sqrt(16 eps^2 + pi^2 (1 -
eps^2)) / (4 c^2 (1 - eps^2)^2)`` and attitude angle ``phi = arctan(pi sqrt(1 - eps^2) / (4 eps))``.
Beware the operator-precedence slip ``atan(pi*sqrt(1-e**2)/4*e)`` (that is ``pi sqrt(1-e^2) eps/4``)
found in an open implementation: at ``eps = 0.5`` it gives 34.2 deg instead of 53.7 deg.

The pi film is fixed at ``0 <= theta <= pi`` whatever the motion: with squeeze it keeps negative
pressure there, and when the whirl outruns the rotation (``w < 0``) it integrates the sub-ambient
half and pulls the journal outwards, and the bearing turning the other way is not its mirror
image.  :func:`gumbel_forces` is the same Ocvirk pressure with the Gümbel condition instead:
``p = max(0, p_Ocvirk)``.  The Ocvirk pressure at each ``z`` is ``V sin(theta - theta_0) / (1 + eps
cos theta)^3`` times a positive factor, ``V = sqrt((eps w)^2 + 4 eps_dot^2)``, ``theta_0 =
atan2(2 eps_dot, eps w)``, so it is positive exactly on ``theta_0 < theta < theta_0 + pi``; with the
Sommerfeld substitution ``1 + eps cos theta = (1 - eps^2) / (1 - eps cos gamma)`` the three integrals
become trigonometric polynomials in ``gamma``:

    int sin^2/(1 + eps cos)^3 dtheta = int sin^2 gamma dgamma / (1 - eps^2)^(3/2)
    int sin cos/(1 + eps cos)^3 dtheta = int sin gamma (cos gamma - eps) dgamma / (1 - eps^2)^2
    int cos^2/(1 + eps cos)^3 dtheta = int (cos gamma - eps)^2 dgamma / (1 - eps^2)^(5/2)

It is continuous in every input, mirror-symmetric, never pulls, and equals the pi film at steady
state (``eps_dot = 0``, ``w > 0``, ``theta_0 = 0``).
"""
from __future__ import annotations

import math

import numpy as np

from ..jit import njit
from .kinematics import couette_torque, film_state, to_frame
from .worn_film import short_film
from .worn_pi_film import short_pi_film

#: offset of the worn-bore block in the kernel's parameters (:mod:`.worn_film`)
WORN = 6


@njit(cache=True)
def ocvirk_forces(eps, eps_dot, w, mu, R, L, c):
    """``(F_e, F_t)`` [N] of the dynamic short bearing (module docstring; Flores et al. (2006) (short-bearing forces))."""
    s = 1.0 - eps * eps
    k = mu * R * L ** 3 / (2.0 * c * c)
    fe = -k * (2.0 * eps * eps * w / (s * s) + math.pi * eps_dot * (1.0 + 2.0 * eps * eps) / s ** 2.5)
    ft = k * (math.pi * eps * w / (2.0 * s ** 1.5) + 4.0 * eps * eps_dot / (s * s))
    return fe, ft


@njit(cache=True)
def _gamma(theta, k):
    """Sommerfeld's angle ``gamma(theta)``: ``tan(gamma/2) = k tan(theta/2)``, ``k = sqrt((1 - eps) /
    (1 + eps))``, continuous and increasing on (-2 pi, 2 pi)."""
    return 2.0 * math.atan2(k * math.sin(0.5 * theta), math.cos(0.5 * theta))


@njit(cache=True)
def gumbel_forces(eps, eps_dot, w, mu, R, L, c):
    """``(F_e, F_t)`` [N] of the Ocvirk pressure with the Gümbel condition (module docstring)."""
    s = 1.0 - eps * eps
    k = mu * R * L ** 3 / (2.0 * c * c)
    a = eps * w; b = 2.0 * eps_dot
    if a == 0.0 and b == 0.0:
        return 0.0, 0.0
    th0 = math.atan2(b, a)
    kk = math.sqrt((1.0 - eps) / (1.0 + eps))
    g1 = _gamma(th0, kk); g2 = _gamma(th0 + math.pi, kk)
    s1, c1 = math.sin(g1), math.cos(g1)
    s2, c2 = math.sin(g2), math.cos(g2)
    iss = (0.5 * (g2 - g1) - 0.5 * (s2 * c2 - s1 * c1)) / s ** 1.5
    isc = (0.5 * (s2 * s2 - s1 * s1) + eps * (c2 - c1)) / (s * s)
    icc = (0.5 * (g2 - g1) + 0.5 * (s2 * c2 - s1 * c1) - 2.0 * eps * (s2 - s1) + eps * eps * (g2 - g1)) / s ** 2.5
    return k * (a * isc - b * icc), k * (a * iss - b * isc)


@njit(cache=True)
def short_bearing_kernel(ex, ey, vx, vy, omega, p):
    """Lubrication kernel (:class:`workbench.models.LubricationModel`); ``p = [mu, R, L, c, eps_max,
    gumbel]`` (``gumbel`` 1: :func:`gumbel_forces`, 0: the pi film of :func:`ocvirk_forces`; 2: the
    Gümbel film of a worn bushing, the bore's block (:mod:`.worn_film`) from ``p[WORN]`` on; 3:
    the pi film of a worn bushing, :func:`.worn_pi_film.short_pi_film`, on the same block).  The
    solver passes ``p`` as a pointer: the flag, not the length, says whether the block is there."""
    mu = p[0]; R = p[1]; L = p[2]; c = p[3]; eps_max = p[4]
    if p[5] == 2.0:
        return short_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_max, p, WORN)
    if p[5] == 3.0:
        return short_pi_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_max, p, WORN)
    eps, eps_dot, w, uex, uey = film_state(ex, ey, vx, vy, omega, c)
    eps = min(eps, eps_max)
    if p[5] != 0.0:
        fe, ft = gumbel_forces(eps, eps_dot, w, mu, R, L, c)
    else:
        fe, ft = ocvirk_forces(eps, eps_dot, w, mu, R, L, c)
    fx, fy = to_frame(fe, ft, uex, uey)
    return fx, fy, couette_torque(mu, R, L, c, eps, omega)


def steady_load(eps, mu, omega, R, L, c):
    """Steady load capacity ``W`` [N] (module docstring)."""
    eps = np.asarray(eps, float)
    return (mu * omega * R * L ** 3 * eps * np.sqrt(16 * eps ** 2 + np.pi ** 2 * (1 - eps ** 2))
            / (4 * c ** 2 * (1 - eps ** 2) ** 2))


def attitude_angle(eps):
    """Steady attitude angle ``arctan(pi sqrt(1 - eps^2) / (4 eps))`` [rad]."""
    eps = np.asarray(eps, float)
    return np.arctan(np.pi * np.sqrt(1 - eps ** 2) / (4 * eps))


def sommerfeld_number(eps, l_over_d):
    """Sommerfeld number ``S = (R/c)^2 mu N / P`` (``N`` rev/s, ``P = W / (L D)``) of the short bearing:
    ``(D/L)^2 (1 - eps^2)^2 / (pi eps sqrt(16 eps^2 + pi^2 (1 - eps^2)))``."""
    eps = np.asarray(eps, float)
    return (1 - eps ** 2) ** 2 / (l_over_d ** 2 * np.pi * eps * np.sqrt(16 * eps ** 2 + np.pi ** 2 * (1 - eps ** 2)))
