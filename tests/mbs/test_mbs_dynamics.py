"""Validation of the planar multibody engine on the slider-crank (docs/validation.md)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mechanisms import L_ROD, OMEGA, R_CRANK, slider_crank
from reference import ideal_slider_crank_closed_form as cf
from workbench.errors import SolverError
from workbench.mbs.analysis import impact
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import simulate

REV = 2 * math.pi / OMEGA  # one crank revolution [s]


def flores(registry, clearance=0.5e-3, restitution=0.9, friction=True):
    """The Flores slider-crank: Lankarani-Nikravesh + Ambrosio friction."""
    c = registry.create("contact", "lankarani_nikravesh", {"restitution": restitution})
    f = registry.create("friction", "ambrosio", {"c_f": 0.01, "v0": 1e-4, "v1": 1e-2}) if friction else None
    return slider_crank(c, f, clearance=clearance)


def test_ideal_slider_crank_matches_closed_form():
    """Ideal in-line slider-crank: slider acceleration r w^2 (1 + r/l) at TDC and r w^2 (1 - r/l)
    at BDC (docs/validation.md), and the closed-form kinematics at every sample."""
    sim = simulate(slider_crank(ideal=True), SolverSettings(t_end=REV, output_step=REV / 360, rtol=1e-10,
                                                            atol=1e-12))
    theta = OMEGA * sim.time
    ax = sim.acceleration[:, 2, 0]
    scale = R_CRANK * OMEGA ** 2
    assert ax[0] == pytest.approx(-scale * (1 + R_CRANK / L_ROD), rel=1e-7)
    assert ax[180] == pytest.approx(scale * (1 - R_CRANK / L_ROD), rel=1e-7)
    exact = cf.slider_acceleration(theta, OMEGA, R_CRANK, L_ROD)
    assert np.max(np.abs(ax - exact)) < 1e-6 * scale
    assert np.max(sim.drift_position) < 1e-9  # Baumgarte keeps the constraints


def test_driver_torque_does_the_work():
    """The driver load is the moment the motor applies: its work equals the change of mechanical
    energy of the ideal (conservative) mechanism."""
    sim = simulate(slider_crank(ideal=True), SolverSettings(t_end=REV / 2, output_step=REV / 2000, rtol=1e-10,
                                                            atol=1e-12))
    power = sim.driver_load[:, 0] * OMEGA
    work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(sim.time))])
    energy = sim.kinetic_energy + sim.potential_energy
    assert np.max(np.abs(work - (energy - energy[0]))) < 1e-4 * np.max(energy)
    assert np.allclose(sim.driver_work, work, atol=1e-4 * np.max(energy))


def test_energy_conserved_with_pure_hertz_contact(registry):
    """Frictionless, restitution 1 (pure Hertz): mechanical energy + contact potential - driver
    work stays constant (docs/validation.md)."""
    mech = slider_crank(registry.create("contact", "hertz"), None)
    sim = simulate(mech, SolverSettings(t_end=REV, output_step=REV / 720, rtol=1e-9, atol=1e-11))
    assert len(sim.impact_time) > 5
    # contact_energy = work absorbed by the contact; for Hertz it is K delta^2.5 / 2.5
    pen = np.clip(sim.penetration[:, 0], 0.0, None)
    K = mech.clearance_joints[0].contact.pack(_geometry(mech))[0]
    assert np.allclose(sim.contact_energy, K * pen ** 2.5 / 2.5, atol=1e-6 * sim.kinetic_energy.max())
    books = sim.kinetic_energy + sim.potential_energy + sim.contact_energy - sim.driver_work
    assert np.ptp(books) < 1e-6 * sim.kinetic_energy.max()


def test_energy_books_close_with_friction_and_damping(registry):
    """With friction and contact damping, the dissipated energy closes the books (docs/validation.md)."""
    mech = flores(registry, restitution=0.5)
    sim = simulate(mech, SolverSettings(t_end=REV, output_step=REV / 720, rtol=1e-9, atol=1e-11))
    assert sim.dissipated_energy[-1] > 0.0
    books = sim.kinetic_energy + sim.potential_energy + sim.contact_energy + sim.dissipated_energy - sim.driver_work
    assert np.ptp(books) < 1e-6 * sim.kinetic_energy.max()


def _geometry(mech):
    from workbench.models import ContactGeometry
    c = mech.clearance_joints[0]
    return ContactGeometry("cylindrical", c.journal_radius, c.bushing_radius, c.length,
                           c.journal_material, c.bushing_material)


def _first_impact(mech, **kw):
    settings = dict(t_end=4e-4, output_step=2e-9, rtol=1e-10, atol=1e-12)
    settings.update(kw)
    sim = simulate(mech, SolverSettings(**settings))
    return impact(sim), sim


def test_fast_and_scipy_paths_agree(registry):
    """The compiled path and the scipy DOP853 reference path agree on the first impact and on
    the motion before it (STYLE.md: one fast path, one reference path, tested to agree)."""
    mech = flores(registry)
    fast, sf = _first_impact(mech)
    ref, sr = _first_impact(mech, path="scipy")
    assert fast.time == pytest.approx(ref.time, rel=1e-7)
    assert fast.velocity == pytest.approx(ref.velocity, rel=1e-6)
    assert fast.peak_force == pytest.approx(ref.peak_force, rel=1e-5)
    assert np.max(np.abs(sf.position - sr.position)) < 1e-9


def test_first_impact_converges_with_tolerance(registry):
    """First impact of the Flores study converges as the tolerance tightens."""
    mech = flores(registry)
    res = [_first_impact(mech, rtol=r, atol=r * 1e-2)[0] for r in (1e-6, 1e-8, 1e-10)]
    d_coarse = abs(res[0].peak_force - res[2].peak_force)
    d_fine = abs(res[1].peak_force - res[2].peak_force)
    assert d_fine <= d_coarse + 1e-9 * res[2].peak_force
    assert d_fine < 5e-4 * res[2].peak_force  # converged to 0.05 %
    assert abs(res[1].time - res[2].time) < 1e-9
    assert abs(res[1].velocity - res[2].velocity) < 1e-5 * res[2].velocity


def test_event_location_and_wu2014_step_halving_agree(registry):
    """Wu (2014)'s two-state/three-stage step halving finds the same first impact as event
    location: its contact start lies within the critical band 0 <= delta <= epsilon, so its time
    can lag by at most about epsilon / delta_dot_minus."""
    mech = flores(registry)
    eps = 1e-9
    ev, _ = _first_impact(mech)
    sh, _ = _first_impact(mech, detection="step_halving", critical_penetration=eps, min_step=1e-12)
    assert 0.0 <= sh.time - ev.time <= 2 * eps / ev.velocity + 1e-12
    assert sh.velocity == pytest.approx(ev.velocity, rel=1e-3)
    assert sh.peak_force == pytest.approx(ev.peak_force, rel=1e-3)


def test_clearance_to_zero_approaches_the_ideal_mechanism(registry):
    """As the clearance shrinks the clearance mechanism approaches the ideal one (docs/validation.md):
    the slider position error over the second revolution scales with the clearance."""
    ideal = simulate(slider_crank(ideal=True), SolverSettings(t_end=2 * REV, output_step=REV / 360))
    errs = []
    for c in (1e-4, 1e-5):
        sim = simulate(flores(registry, clearance=c), SolverSettings(t_end=2 * REV, output_step=REV / 360,
                                                                     rtol=1e-8, atol=1e-10))
        second = sim.time >= REV
        errs.append(np.max(np.abs(sim.position[second, 2, 0] - ideal.position[second, 2, 0])))
        assert errs[-1] < 3 * c  # the journal stays within its clearance circle (+ penetration)
    assert errs[1] < 0.3 * errs[0]


def test_nan_from_a_model_names_joint_model_and_time():
    """A model that returns NaN stops the run with an error naming the joint, the model and the time."""
    from broken_models import NanOnContact

    with pytest.raises(SolverError, match=r"rod_slider.*'nan_on_contact'.*t = "):
        simulate(slider_crank(NanOnContact(), None), SolverSettings(t_end=REV))


def test_lugre_bristle_state_is_integrated_with_the_dynamics(registry):
    """LuGre's bristle state z is a state of the ODE (one per contact point); the friction work
    it does closes the energy books like any other dissipation (docs/validation.md)."""
    c = registry.create("contact", "lankarani_nikravesh", {"restitution": 0.9})
    f = registry.create("friction", "lugre", {})
    sim = simulate(slider_crank(c, f), SolverSettings(t_end=REV / 2, output_step=REV / 720, rtol=1e-8,
                                                      atol=1e-11))
    assert sim.dissipated_energy[-1] > 0.0
    assert np.any(sim.friction_force[:, 0] != 0.0)
    books = sim.kinetic_energy + sim.potential_energy + sim.contact_energy + sim.dissipated_energy - sim.driver_work
    # dissipated_energy is the friction work -int f_t v_t dt, which includes the small elastic
    # energy held in the bristles, so the books close like the other cases
    assert np.ptp(books) < 1e-6 * sim.kinetic_energy.max()


def test_early_impact_times_agree_across_tolerances_and_paths(registry):
    """Early impacts are robust (docs/validation.md: compare codes on the first impacts): the start
    times of the first three impacts agree to 0.05 us between rtol 1e-8 and 1e-10 and between
    the fast and the scipy path (the exact values drift apart only later, chaotically)."""
    mech = flores(registry)
    runs = [simulate(mech, SolverSettings(t_end=1.5e-3, output_step=1e-5, **kw)).impact_time[:3]
            for kw in (dict(rtol=1e-8, atol=1e-10), dict(rtol=1e-10, atol=1e-12),
                       dict(rtol=1e-10, atol=1e-12, path="scipy"))]
    assert all(len(r) == 3 for r in runs)
    assert np.max(np.abs(runs[0] - runs[1])) < 5e-8
    assert np.max(np.abs(runs[2] - runs[1])) < 5e-8
