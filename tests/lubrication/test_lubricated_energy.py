"""Energy books of the Flores slider-crank with a mixed-lubricated clearance joint
(workbench.mbs.clearance.film_forces): the film and the asperities' friction dissipate and never
give energy back; the asperities' normal load stores elastic energy and returns it, booked with
the contact energy.

Oracles: the energy balance ``driver work = change of kinetic + potential energy + dissipated
energy + contact energy`` (the solver integrates each power separately); the asperity force
depends on the eccentricity ratio alone (Greenwood & Tripp (1970) pressure on the film ``h =
c (1 + eps cos theta)``), so its work is a potential, ``V(eps) = c int_0^eps F_a(e) de``,
evaluated here by quadrature on the recorded eccentricities, independently of the solver.
"""
from __future__ import annotations

import dataclasses
import numpy as np

from mechanisms import slider_crank
from workbench.lubrication import mixed as mx
from workbench.mbs.mechanism import contact_geometry
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import simulate
from workbench.plugins import build_registry

C = 0.5e-3     # m, the Flores slider-crank's radial clearance


def test_mixed_lubricated_slider_crank_energy_books():
    """One crank revolution at 5000 rpm, rod-slider joint with the mixed model (0.01 Pa s,
    roughness 2 um, L = 10 mm: the asperities carry up to ~1.8 kN; Lankarani-Nikravesh backstop,
    never reached).  Asserted: the asperities do carry load; the dissipated energy (film + the
    asperities' boundary friction) never decreases; the contact energy is the asperities'
    potential V(eps) at every sample (1e-6 of its largest value: the solver's tolerance on the
    integrated power; measured 1.7e-7 of 1.25 mJ); the books close to 1e-9 of the driver work
    (measured 5.6e-11 of 4.16 J; the film and the friction dissipate 3.86 J of it)."""
    reg = build_registry()
    ln = reg.create("contact", "lankarani_nikravesh", {"restitution": 0.9})
    dry = slider_crank(ln, None, clearance=C)
    film = reg.create("lubrication", "mixed_lubrication", {"viscosity": 0.01, "roughness": 2.0e-6})
    joint = dataclasses.replace(dry.clearance_joints[0], lubrication=film, length=0.01)
    wet = dataclasses.replace(dry, clearance_joints=(joint,))
    s = simulate(wet, SolverSettings(t_end=0.012, output_step=1e-5, rtol=1e-10, atol=1e-13))
    assert s.stats["events"] == 0                                   # the backstop never acts
    assert np.asarray(s.contact_force).max() > 100.0                # the asperities carry load
    assert np.asarray(s.film_force).max() > np.asarray(s.contact_force).max()
    D = np.asarray(s.dissipated_energy)
    assert D[-1] > 0 and np.diff(D).min() >= 0.0
    # the asperities' potential along the recorded eccentricity ratios
    p = film.pack(contact_geometry(joint))
    eps = np.linalg.norm(np.asarray(s.eccentricity)[:, 0], axis=-1) / C
    lo = 1.0 - 8.0 * 2.0e-6 / C                                      # below: h > 8 sigma, F_a = 0
    assert mx.asperity_force(lo, p) == 0.0 and eps.max() > lo
    grid = np.linspace(lo, eps.max(), 20001)
    fa = np.array([-mx.asperity_force(e, p) for e in grid])            # >= 0 [N]
    V_grid = C * np.concatenate([[0.0], np.cumsum(0.5 * (fa[1:] + fa[:-1]) * np.diff(grid))])
    V = np.interp(eps, grid, V_grid)
    E_c = np.asarray(s.contact_energy)
    assert V.max() > 1e-4                                           # J: the check is not empty
    assert np.abs(E_c - V).max() < 1e-6 * V.max() + 1e-9
    KE, PE, W = (np.asarray(x) for x in (s.kinetic_energy, s.potential_energy, s.driver_work))
    res = W - (KE + PE - KE[0] - PE[0]) - D - E_c
    assert np.abs(res).max() < 1e-9 * np.abs(W).max()
