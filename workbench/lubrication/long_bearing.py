"""Long (Sommerfeld) journal bearing with the half-Sommerfeld (Gümbel) condition, dynamic form.

With ``L/D -> infinity`` the axial flow is negligible: ``d/dtheta (h^3 dp/dtheta) = 6 mu R^2
[w dh/dtheta + 2 dh/dt]`` (Sommerfeld (1904); Pinkus & Sternlicht (1961) ch. 3), ``h = c (1 +
eps cos theta)``, ``w = omega - 2 gamma_dot`` (:mod:`.kinematics`).  The pressure is solved on the
``pi`` film with ``p(0) = p(pi) = 0`` and set to zero on ``pi < theta < 2 pi`` (the half-Sommerfeld or
Gümbel condition; the wedge part is Sommerfeld's own solution
``6 mu w R^2 eps sin(theta) (2 + eps cos theta) / (c^2 (2 + eps^2) (1 + eps cos theta)^2)``, which
vanishes at 0 and pi).  Integrating, with the integrals ``int_0^pi (1 + eps cos)^-n``:

    F_e = -(12 mu R^3 L / c^2) [ eps^2 w / ((2 + eps^2)(1 - eps^2))
                                 + eps_dot (pi/2 - 8 / (pi (2 + eps^2))) / (1 - eps^2)^(3/2) ]
    F_t = +(12 mu R^3 L / c^2) [ pi eps w / (2 (2 + eps^2) sqrt(1 - eps^2))
                                 + 2 eps eps_dot / ((2 + eps^2)(1 - eps^2)) ]

The wedge terms are the classical half-Sommerfeld forces (e.g. Hamrock, Schmid & Jacobson (2004)
ch. 10), the ``eps_dot`` term of ``F_e`` is that of the long bearing of Flores et al. (2009) after
Pinkus & Sternlicht (1961); the ``eps_dot`` term of ``F_t`` follows from the same boundary
conditions (derived here, checked against a quadrature of the 1-D Reynolds equation in
``tests/test_lubrication.py``).  Steady attitude angle ``arctan(pi sqrt(1 - eps^2) / (2 eps))``.

The fixed half keeps sub-ambient pressure under squeeze and pins the ambient pressure at the
thinnest film, where a squeeze peaks (81-87 % off under pure approach).  The kernel's flag
``p[5] = 1`` selects instead the periodic film with the Gümbel condition wherever the pressure is
negative, by quadrature over the bore, circular or worn (:func:`.worn_film.long_film`); ``p[5] = 2``
the pi film on a worn bore (:func:`.worn_pi_film.long_pi_film`).
"""
from __future__ import annotations

import math

import numpy as np

from ..jit import njit
from .kinematics import couette_torque, film_state, to_frame
from .worn_film import long_film
from .worn_pi_film import long_pi_film

#: offset of the bore's block in the kernel's parameters (:mod:`.worn_film`; after the flag p[5])
BORE = 6


@njit(cache=True)
def sommerfeld_forces(eps, eps_dot, w, mu, R, L, c):
    """``(F_e, F_t)`` [N] of the dynamic long bearing (module docstring)."""
    s = 1.0 - eps * eps
    a = 2.0 + eps * eps
    k = 12.0 * mu * R ** 3 * L / (c * c)
    fe = -k * (eps * eps * w / (a * s) + eps_dot * (0.5 * math.pi - 8.0 / (math.pi * a)) / s ** 1.5)
    ft = k * (math.pi * eps * w / (2.0 * a * math.sqrt(s)) + 2.0 * eps * eps_dot / (a * s))
    return fe, ft


@njit(cache=True)
def long_bearing_kernel(ex, ey, vx, vy, omega, p):
    """Lubrication kernel (:class:`workbench.models.LubricationModel`); ``p = [mu, R, L, c, eps_max, 0]``
    (the pi film of :func:`sommerfeld_forces`) or ``[mu, R, L, c, eps_max, 1, bore block...]`` (the
    periodic film with the Gümbel condition on the bore, circular or worn,
    :func:`.worn_film.long_film`) or ``[mu, R, L, c, eps_max, 2, bore block...]`` (the pi film on
    a worn bore, :func:`.worn_pi_film.long_pi_film`)."""
    mu = p[0]; R = p[1]; L = p[2]; c = p[3]; eps_max = p[4]
    if p[5] == 2.0:
        return long_pi_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_max, p, BORE)
    if p[5] != 0.0:
        return long_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_max, p, BORE)
    eps, eps_dot, w, uex, uey = film_state(ex, ey, vx, vy, omega, c)
    eps = min(eps, eps_max)
    fe, ft = sommerfeld_forces(eps, eps_dot, w, mu, R, L, c)
    fx, fy = to_frame(fe, ft, uex, uey)
    return fx, fy, couette_torque(mu, R, L, c, eps, omega)


def attitude_angle(eps):
    """Steady half-Sommerfeld attitude angle ``arctan(pi sqrt(1 - eps^2) / (2 eps))`` [rad]."""
    eps = np.asarray(eps, float)
    return np.arctan(np.pi * np.sqrt(1 - eps ** 2) / (2 * eps))


def pressure(theta, eps, eps_dot, w, mu, R, c):
    """Half-Sommerfeld pressure [Pa] on ``0 <= theta <= pi`` (zero elsewhere), module docstring:
    the reference path of the forces (quadrature)."""
    th = np.asarray(theta, float)
    a = 2.0 + eps ** 2
    H = 1.0 + eps * np.cos(th)
    wedge = 6 * mu * w * R ** 2 * eps * np.sin(th) * (2 + eps * np.cos(th)) / (c ** 2 * a * H ** 2)
    # squeeze: p' = 12 mu R^2 eps_dot / c^2 (sin + C) / H^3 with p(0) = p(pi) = 0
    Ct = -4.0 * np.sqrt(1 - eps ** 2) / (np.pi * a)
    from scipy.integrate import cumulative_trapezoid
    fine = np.linspace(0.0, np.pi, 20001)
    Hf = 1.0 + eps * np.cos(fine)
    dp = (np.sin(fine) + Ct) / Hf ** 3
    ps = cumulative_trapezoid(dp, fine, initial=0.0) * 12 * mu * R ** 2 * eps_dot / c ** 2
    sq = np.interp(np.clip(th, 0, np.pi), fine, ps)
    return np.where((th >= 0) & (th <= np.pi), wedge + sq, 0.0)
