"""The worn bushing profile enters the film thickness of the finite-length bearing
(workbench.lubrication.reynolds.bushing_wear, film_thickness, solve_film).

Oracle: geometry.  Wear removes bushing material, so the gap between journal and bushing grows
by the wear depth where the bushing is worn: ``h(theta) = c (1 + eps cos theta) + h_w(psi)`` with
the bushing angle ``psi = alpha + pi + theta`` (``theta`` from the largest film, opposite the
eccentricity direction ``alpha``; Pinkus & Sternlicht (1961) ch. 3 for the film of the circular
bearing).
"""
from __future__ import annotations

import math

import numpy as np

from workbench.lubrication import reynolds as rey


def test_a_worn_scar_thickens_the_film_by_its_depth_where_it_lies():
    """A scar of depth d = 0.3 c centred on bushing node psi_w (720 nodes, the wear loop's
    default) with the eccentricity along alpha: at the film angle theta_w = psi_w - alpha - pi the
    dimensionless film is thicker by exactly d / c (1e-12), everywhere else by the profile there
    (1e-12 at the nodes), and far from the scar not at all."""
    c, d, alpha, eps = 20e-6, 6e-6, 0.3, 0.7
    psi = 2 * math.pi * np.arange(720) / 720
    k_w = 250
    gap = np.angle(np.exp(1j * (psi - psi[k_w])))
    depth = d * np.exp(-(gap / 0.2) ** 2)
    wear = rey.bushing_wear(psi, depth, c, alpha)
    theta_w = psi[k_w] - alpha - math.pi
    plain = rey.film_thickness(theta_w, eps)
    worn = rey.film_thickness(theta_w, eps, wear)
    assert abs((worn - plain) - d / c) < 1e-12
    theta_nodes = psi - alpha - math.pi
    diff = rey.film_thickness(theta_nodes, eps, wear) - rey.film_thickness(theta_nodes, eps)
    np.testing.assert_allclose(diff, depth / c, rtol=0, atol=1e-12)
    assert abs(float(wear(theta_w + math.pi))) < 1e-12                 # the opposite side is unworn


def test_a_scar_in_the_load_zone_lowers_the_load_capacity():
    """The same scar under the thinnest film (theta = pi, i.e. psi_w = alpha) thickens the film
    where it carries the load: the Reynolds solution (L/D = 0.5, Gümbel, pure wedge) carries
    less (measured 41 % less at eps = 0.6 for a 0.2 c deep scar; asserted > 3 %); on the unloaded
    side (theta = 0) it changes the load by less than a fifth of that (measured 2e-5)."""
    c, d, alpha, eps = 20e-6, 4e-6, 0.3, 0.6
    psi = 2 * math.pi * np.arange(720) / 720

    def scar_at(psi_w):
        gap = np.angle(np.exp(1j * (psi - psi_w)))
        return rey.bushing_wear(psi, d * np.exp(-(gap / 0.4) ** 2), c, alpha)

    def load(wear=None):
        s = rey.solve_film(eps, 0.5, 0.0, cavitation="gumbel", n_theta=64, n_y=13, wear=wear)
        return math.hypot(s.f_e, s.f_t)
    plain = load()
    loaded_side = load(scar_at(alpha))
    free_side = load(scar_at(alpha + math.pi))
    assert loaded_side < 0.97 * plain
    assert abs(free_side - plain) < 0.2 * (plain - loaded_side)
