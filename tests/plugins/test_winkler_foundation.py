"""The ``winkler_foundation`` contact law: elastic-foundation force of a pin in a lined bore.

Oracles: docs/validation.md "Rigid journal in a Winkler-lined bushing" (closed form
``F = b R k c (eps - sin eps cos eps)/cos eps``, ``cos eps = c/(c + delta)``); the direct arc
integral of Wang & Liu (2015) eq. (23) ``p = k u``; the ``winkler`` pressure model (same foundation, nodal
sum); the separable energy balance of the Lankarani-Nikravesh damping form for the restitution;
the energy books of docs/validation.md for the slider-crank run.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq

from mechanisms import OMEGA, slider_crank
from workbench.errors import StudyError
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import simulate
from workbench.models import BoreSection, ContactGeometry, Material

STEEL = Material(E=207e9, nu=0.3)
#: Wang, Chen, Ma & Sun (2016) Table 1 joint: journal 10 mm, clearance 0.5 mm, length 10 mm, steel
PIN = ContactGeometry(kind="cylindrical", radius_journal=0.010, radius_bushing=0.0105, length=0.010,
                      journal=STEEL, bushing=STEEL)
K_FOUND = 3.0e13  # an explicit foundation modulus [Pa/m] for the closed-form checks


def _law(registry, **values):
    return registry.create("contact", "winkler_foundation", values)


def _closed_form(delta, geom, k):
    """docs/validation.md: F = b R k c (eps - sin eps cos eps) / cos eps, cos eps = c/(c + delta)."""
    c = geom.clearance
    eps = math.acos(c / (c + delta))
    return geom.length * geom.radius_bushing * k * c * (eps - math.sin(eps) * math.cos(eps)) / math.cos(eps)


# ------------------------------------------------------------------------------------------
# registration, parameters
# ------------------------------------------------------------------------------------------
def test_registered_through_the_entry_point(registry):
    assert "winkler_foundation" in registry.names("contact")
    entry = registry.entry("contact", "winkler_foundation")
    assert entry.plugin == "contact_winkler_foundation"
    cls = entry.cls
    assert cls.dissipative and cls.geometries == ("cylindrical",)
    assert "Wang & Liu (2015)" in cls.reference and "Lankarani" in cls.reference
    assert {i.name: i.unit for i in cls.parameters()}["stiffness"] == "Pa/m"


def test_foundation_modulus_follows_the_layer_rule(registry):
    """k = E_w / L per elastic layer, two layers in series (same rule as the winkler pressure
    model, Wang & Liu (2015) eq. 24); bonded E_w = (1-nu)E/((1+nu)(1-2nu)); p = [b R k, c, chi, v_floor]."""
    E, nu, L = 207e9, 0.3, 2e-3
    b, R = PIN.length, PIN.radius_bushing
    p = _law(registry, layer_thickness=L).pack(PIN)
    assert p[0] == pytest.approx(b * R * E / (2 * L), rel=1e-14)  # two equal layers in series
    assert p[1] == pytest.approx(0.5e-3, rel=1e-12)
    assert p[2] == pytest.approx(0.75 * (1 - 0.9 ** 2), rel=1e-14)
    bonded = _law(registry, layer_thickness=L, modulus_rule="bonded").pack(PIN)
    assert bonded[0] == pytest.approx(b * R * (1 - nu) * E / ((1 + nu) * (1 - 2 * nu)) / (2 * L), rel=1e-14)
    rigid_pin = ContactGeometry(radius_journal=0.010, radius_bushing=0.0105, length=0.010,
                                journal=Material(rigid=True), bushing=STEEL)
    assert _law(registry, layer_thickness=L).pack(rigid_pin)[0] == pytest.approx(b * R * E / L, rel=1e-14)
    assert _law(registry, stiffness=K_FOUND).pack(PIN)[0] == pytest.approx(b * R * K_FOUND, rel=1e-14)


def test_bad_parameters_and_geometries(registry):
    with pytest.raises(StudyError, match="Did you mean 'layer_thickness'"):
        registry.create("contact", "winkler_foundation", {"layer_thicknes": 1e-3}, file="s.toml", key="c")
    with pytest.raises(StudyError, match="Valid choices"):
        registry.create("contact", "winkler_foundation", {"modulus_rule": "bond"})
    with pytest.raises(StudyError, match="modulus_rule 'bond' is not valid"):
        type(_law(registry))(modulus_rule="bond")  # direct construction, no study file
    with pytest.raises(StudyError, match="above the maximum"):
        registry.create("contact", "winkler_foundation", {"restitution": 1.2})
    # the declared bounds refuse them when a study sets them (file, key, value, range) ...
    for bad in ({"layer_thickness": 0.0}, {"stiffness": 0.0}):
        with pytest.raises(StudyError, match=r"\[c\.\w+\]: \w+ must be a finite number > 0 (m|Pa/m)\b.*got 0\.0"):
            registry.create("contact", "winkler_foundation", bad, file="s.toml", key="c")
    # ... and pack() keeps its own check as a second line of defence (direct construction)
    with pytest.raises(StudyError, match="layer_thickness must be > 0"):
        type(_law(registry))(layer_thickness=0.0).pack(PIN)
    with pytest.raises(StudyError, match="foundation modulus must be > 0"):
        type(_law(registry))(stiffness=0.0).pack(PIN)
    rigid = Material(rigid=True)
    with pytest.raises(StudyError, match="both parts are rigid"):
        _law(registry).pack(ContactGeometry(journal=rigid, bushing=rigid))
    with pytest.raises(StudyError, match="not 'planar'"):
        _law(registry).pack(ContactGeometry(kind="planar", length=0.005, half_perimeter=0.013))


# ------------------------------------------------------------------------------------------
# the force against its oracles
# ------------------------------------------------------------------------------------------
def test_kernel_is_the_validation_closed_form(registry):
    """docs/validation.md closed form, evaluated with acos: its own rounding (1 - cos eps = delta/d
    carries ~1e-16 d/delta relative error, cubed through eps^3) limits the comparison to 1e-10 for
    delta >= 1e-3 c.  Elastic part only (delta_dot = 0)."""
    law = _law(registry, stiffness=K_FOUND)
    p = law.pack(PIN)
    kernel = type(law).kernel
    for delta in PIN.clearance * np.logspace(-3, 1, 41):
        assert kernel(delta, 0.0, 1.0, p) == pytest.approx(_closed_form(delta, PIN, K_FOUND), rel=1e-10)


def test_kernel_is_the_arc_integral_of_the_foundation_pressure(registry):
    """Wang & Liu (2015) eq. 23: F = int R b k (d cos th - c)+ cos th dth, integrated numerically (adaptive
    quadrature with the arc ends as breakpoints, rel 1e-11)."""
    law = _law(registry, stiffness=K_FOUND)
    p = law.pack(PIN)
    c, R, b = PIN.clearance, PIN.radius_bushing, PIN.length
    for delta in (1e-7, 3e-6, 4e-5, 2e-4, 5e-3):
        d = c + delta
        eps = math.acos(c / d)
        val, _ = quad(lambda th: R * b * K_FOUND * max(d * math.cos(th) - c, 0.0) * math.cos(th),
                      -math.pi / 2, math.pi / 2, points=[-eps, eps], epsabs=0.0, epsrel=1e-13, limit=200)
        assert type(law).kernel(delta, 0.0, 1.0, p) == pytest.approx(val, rel=1e-11)


def test_zero_clearance_limit(registry):
    """c = 0: the whole half bore is in contact, F = (pi/2) b R k delta (docs/validation.md at dR = 0);
    exact up to rounding."""
    geom = ContactGeometry(radius_journal=0.010, radius_bushing=0.010, length=0.012, journal=STEEL,
                           bushing=STEEL)
    law = _law(registry, stiffness=K_FOUND)
    p = law.pack(geom)
    for delta in (1e-12, 1e-7, 1e-5):
        expect = math.pi / 2 * 0.012 * 0.010 * K_FOUND * delta
        assert type(law).kernel(delta, 0.0, 1.0, p) == pytest.approx(expect, rel=1e-14)


def test_agrees_with_the_winkler_pressure_model(registry):
    """The dynamics law and the ``winkler`` pressure model describe the same foundation: the
    nodal pressure sum of the pressure model at a prescribed approach tends to the law's force
    (rectangle rule over a kinked integrand: error O(dtheta^2); measured 7e-6 at 7200 nodes for the
    short 2 um arc, 2e-4 at 720 nodes)."""
    L = 1e-3
    law = _law(registry, layer_thickness=L)
    p = law.pack(PIN)
    winkler = registry.create("pressure", "winkler", {"layer_thickness": L})
    n = 7200
    th = 2 * np.pi * np.arange(n) / n
    section = BoreSection(th, PIN.radius_bushing, np.full(n, PIN.clearance), PIN.length, STEEL, STEEL)
    for delta in (2e-6, 3e-5):
        sol = winkler.solve_approach(section, np.array([PIN.clearance + delta, 0.0]))
        assert sol.force[0] == pytest.approx(type(law).kernel(delta, 0.0, 1.0, p), rel=2e-5)


def test_small_penetration_is_continuous_and_hertz_like(registry):
    """delta -> 0+: the force tends to 0 continuously as the series' leading term
    F ~ (4 sqrt2 / 3) b R k delta^1.5 / sqrt(c) (next term: -0.65 delta/c relative); no NaN down to
    the smallest double; monotone over 14 decades; continuous across the series/direct switch at
    eps = 0.25."""
    law = _law(registry, stiffness=K_FOUND)
    p = law.pack(PIN)
    kernel = type(law).kernel
    c, bRk = PIN.clearance, p[0]
    for delta in (5e-324, 1e-300, 1e-200):
        f = kernel(delta, 0.0, 1.0, p)
        assert math.isfinite(f) and 0.0 <= f < 1e-250
    deltas = c * np.logspace(-14, 0.5, 300)
    f = np.array([kernel(x, 0.0, 1.0, p) for x in deltas])
    assert np.all(np.isfinite(f)) and np.all(np.diff(f) > 0.0)
    lead = 4 * math.sqrt(2) / 3 * bRk * deltas ** 1.5 / math.sqrt(c)
    small = deltas < 1e-6 * c
    np.testing.assert_allclose(f[small], lead[small], rtol=2e-6)
    assert kernel(1e-14 * c, 0.0, 1.0, p) < 1e-12  # [N], vanishes with delta
    delta_switch = c * (1 / math.cos(0.25) - 1)
    below = kernel(delta_switch * (1 - 1e-12), 0.0, 1.0, p)
    above = kernel(delta_switch * (1 + 1e-12), 0.0, 1.0, p)
    assert above > below and (above - below) / above < 1e-11  # F' delta / F ~ 1.6: 2e-12 expected


def _free_impact_restitution(kernel, p, v0=1.0, mass=0.2):
    """Outgoing over incoming speed of a mass hitting the foundation (no other forces)."""
    def rhs(t, y):
        return [y[1], -kernel(y[0], y[1], v0, p) / mass]

    def out(t, y):
        return y[0]
    out.terminal, out.direction = True, -1
    sol = solve_ivp(rhs, (0.0, 1.0), [1e-14, v0], events=out, rtol=1e-11, atol=1e-17, method="DOP853",
                    max_step=1e-6)
    return -sol.y_events[0][0][1] / v0


@pytest.mark.parametrize("e", [0.95, 0.6])
def test_restitution_of_a_free_impact(registry, e):
    """Hysteresis ``F_el (1 + chi u)``, u = delta_dot/v0: m v0^2 u du/(1 + chi u) = -F_el d delta
    separates, so the rebound e* solves chi (1 + e*) = ln((1 + chi)/(1 - chi e*)) whatever F_el is
    (the Lankarani-Nikravesh energy balance); chi = 3(1-e^2)/4.  Integration to rtol 1e-11:
    agreement 1e-6."""
    law = _law(registry, restitution=e)
    p = law.pack(PIN)
    chi = 0.75 * (1 - e * e)
    e_star = brentq(lambda x: chi * (1 + x) - math.log((1 + chi) / (1 - chi * x)), 1e-6, 1.0 - 1e-15)
    assert _free_impact_restitution(type(law).kernel, p) == pytest.approx(e_star, rel=1e-6)
    assert abs(e_star - e) < (0.01 if e > 0.9 else 0.2)  # LN is meant for e near 1


# ------------------------------------------------------------------------------------------
# in the dynamics
# ------------------------------------------------------------------------------------------
def test_flores_slider_crank_runs_and_closes_the_energy_books(registry):
    """One crank revolution of the Flores slider-crank (5000 rpm, c = 0.5 mm) with the
    foundation law and Ambrosio friction: impacts happen, forces are finite and >= 0, and
    kinetic + potential + contact + dissipated - driver work stays constant (docs/validation.md; the
    same 1e-6 bound as the Lankarani-Nikravesh run in test_mbs_dynamics)."""
    contact = registry.create("contact", "winkler_foundation", {"restitution": 0.9})
    friction = registry.create("friction", "ambrosio", {"c_f": 0.01, "v0": 1e-4, "v1": 1e-2})
    rev = 2 * math.pi / OMEGA
    sim = simulate(slider_crank(contact, friction), SolverSettings(t_end=rev, output_step=rev / 720,
                                                                   rtol=1e-9, atol=1e-11))
    assert len(sim.impact_time) >= 3
    assert np.all(np.isfinite(sim.contact_force)) and np.all(sim.contact_force >= 0.0)
    assert sim.contact_force.max() > 0.0
    pen = sim.penetration[:, 0]
    assert np.all(sim.contact_force[pen <= 0.0, 0] == 0.0)
    assert pen.max() < PIN.clearance  # a stiff lining: penetrations well below the clearance
    books = (sim.kinetic_energy + sim.potential_energy + sim.contact_energy + sim.dissipated_energy
             - sim.driver_work)
    assert np.ptp(books) < 1e-6 * sim.kinetic_energy.max()
