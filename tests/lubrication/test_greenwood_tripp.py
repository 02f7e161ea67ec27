"""Greenwood & Tripp (1970) asperity pressure: its prefactor from the Hertz pairs it sums, and the
asperity force of the mixed model over the bore (workbench.lubrication.greenwood_tripp, .mixed).

The prefactor ``K = (16 sqrt 2 / 15) pi (eta beta sigma)^2 sqrt(sigma / beta)`` goes with the
modulus of Hertz's law ``P = (4/3) E' sqrt(R) w^(3/2)`` for one asperity pair, ``1/E' = (1 -
nu_1^2)/E_1 + (1 - nu_2^2)/E_2`` (Greenwood & Williamson (1966), whose ``E'`` Greenwood & Tripp
(1970) use; ``E*`` in the code).  Writing the prefactor ``8 sqrt 2 / 15`` goes with twice that
modulus (Hu et al. (1994) define it so); the two agree, and a factor 2 on the asperity load
would follow from mixing them.  The check below re-derives the prefactor by summing the pairs
numerically, so it does not rest on any paper's printed constant.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.integrate import quad

from workbench.lubrication import greenwood_tripp as gt
from workbench.lubrication import mixed as mx
from workbench.models import ContactGeometry, Material


def _pair_sum_pressure(h, sigma, eta, beta, E):
    """Nominal pressure [Pa] of two rough surfaces at mean separation ``h``, summed over asperity
    pairs (Greenwood & Tripp (1970) construction): two summits of radius ``beta`` with heights
    summing to ``s`` (Gaussian, standard deviation ``sigma``: the composite roughness) and lateral
    offset ``r`` overlap by ``w = s - h - r^2 / (4 beta)`` (each sphere falls ``(r/2)^2 / (2 beta)``
    at the midpoint) and press with Hertz's ``(4/3) E sqrt(beta / 2) w^(3/2)`` (reduced radius
    ``beta / 2``); pairs per unit area ``eta^2 2 pi r dr``.  Integrated numerically over ``r`` and
    ``s``: no closed form is used."""
    def over_r(s):
        d = s - h
        if d <= 0.0:
            return 0.0
        r_max = math.sqrt(4.0 * beta * d)
        f = lambda r: 2 * math.pi * r * (4 / 3) * E * math.sqrt(beta / 2) * (d - r * r / (4 * beta)) ** 1.5  # noqa: E731
        return quad(f, 0.0, r_max, epsabs=0, epsrel=1e-12)[0]
    g = lambda s: over_r(s) * math.exp(-0.5 * (s / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))  # noqa: E731
    val = quad(g, h, h + 12 * sigma, epsabs=0, epsrel=1e-11, limit=200)[0]
    return eta ** 2 * val


def test_prefactor_is_the_sum_of_hertz_asperity_pairs():
    """K E* F_5/2(h / sigma) equals the numerically summed pairs at h / sigma = -1, 0, 1, 2, 3
    to 1e-9 (measured 7e-14; the quadratures' own error): the prefactor 16 sqrt(2)/15 goes with the Hertz modulus E* of
    one pair (1/E* = sum (1 - nu^2)/E); with E' = 2 E* the pressure would be twice the sum."""
    sigma, eta, beta, E = 0.5e-6, 4.0e9, 2.0e-5, 1.1e11
    for t in (-1.0, 0.0, 1.0, 2.0, 3.0):
        ref = _pair_sum_pressure(t * sigma, sigma, eta, beta, E)
        got = float(gt.asperity_pressure(t * sigma, sigma, eta, beta, E))
        assert abs(got / ref - 1) < 1e-9, (t, got, ref)


def test_mixed_asperity_force_is_the_bore_integral_of_the_pressure():
    """The compiled asperity force of the mixed model (trapezoidal rule over the window where
    h / sigma < 8, 96 points by default) against adaptive quadrature of ``R L int p_a(h(theta))
    cos(theta) dtheta`` over the whole bore with the exact F_5/2: 1e-4 relative at eps = 0.9, 0.95,
    0.98, 1.0 and 1.01 (steel, R 10 mm, L 10 mm, c 10 um, sigma 0.5 um; measured <= 2e-5)."""
    E = ContactGeometry(journal=Material(E=207e9, nu=0.3), bushing=Material(E=207e9, nu=0.3)).E_star
    R, L, c, sigma, eta, beta = 0.01, 0.01, 10e-6, 0.5e-6, 4e9, 2e-5
    p = mx.pack(0.04, R, L, c, 0.999, "short_bearing", sigma, eta, beta, E, 0.12, 1e-4)
    for eps in (0.9, 0.95, 0.98, 1.0, 1.01):
        def f(th):
            h = c * (1 + eps * math.cos(th))
            return float(gt.asperity_pressure(h, sigma, eta, beta, E)) * math.cos(th)
        ref = R * L * quad(f, 0.0, 2 * math.pi, points=[math.pi], epsabs=0, epsrel=1e-10, limit=400)[0]
        got = mx.asperity_force(eps, p)
        assert ref < 0.0 and abs(got / ref - 1) < 1e-5, (eps, got, ref)
    assert mx.asperity_force(0.5, p) == 0.0          # h_min = 10 sigma: no asperity touches
