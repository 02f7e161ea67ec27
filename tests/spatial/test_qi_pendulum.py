"""The pendulum of Qi, Luo & Huang (2009) §5 (``studies/qi_pendulum.toml``) against the
independent minimal-coordinate Newton-Euler reference ``tests/reference/qi_pendulum.py``.

Cases: the shipped study (cylindrical joint, mu = 0.1, v0 = 1 m/s) over 1.5 s, by which time 99.8 % of
the axial speed is gone; mu = 0 (the axial velocity stays 1 m/s, energy is conserved); the revolute-
joint variant (mu = 0.1, no slide).  Both sides at rtol = 1e-11.  Tolerances: angle and slide
1e-9 (measured about 1e-11), energies and friction 1e-8 relative (measured about 1e-11)."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE)); sys.path.insert(0, str(HERE.parent / "reference"))
from pendulum import mechanism  # noqa: E402
from qi_pendulum import QiPendulum, solve  # noqa: E402

from workbench import engines  # noqa: E402
from workbench.mbs.solution import SolverSettings  # noqa: E402
from workbench.study.load import load_study  # noqa: E402

STUDY = HERE.parents[1] / "studies" / "qi_pendulum.toml"
T_END, N = 1.5, 61
RTOL, ATOL = 1e-11, 1e-12


def _angle(sim):
    return np.unwrap(2 * np.arctan2(sim.position[:, 0, 6], sim.position[:, 0, 3]))


def _run(mech, solver=None):
    s = solver or SolverSettings(t_end=T_END, engine="spatial")
    s = dataclasses.replace(s, t_end=T_END, output_step=T_END / (N - 1), rtol=RTOL, atol=ATOL)
    return engines.simulate(mech, s)


@pytest.fixture(scope="module")
def registry_module():
    from workbench.plugins import build_registry
    return build_registry()


@pytest.fixture(scope="module")
def study_case(registry_module):
    st = load_study(STUDY, registry=registry_module)
    sim = _run(st.mechanism, st.solver)
    ref = solve(QiPendulum(), T_END, sim.time, rtol=RTOL, atol=ATOL)
    return sim, ref


def _compare(sim, ref, label):
    e_phi = np.abs(_angle(sim) - ref["phi"]).max()
    e_s = np.abs(sim.position[:, 0, 2] - ref["s"]).max()
    e_ds = np.abs(sim.velocity[:, 0, 2] - ref["ds"]).max()
    scale = max(ref["kinetic"].max(), 1.0)
    e_E = np.abs(sim.dissipated_energy - ref["dissipated"]).max() / scale
    if sim.extras["friction_force"].shape[1]:
        ff, mf = sim.extras["friction_force"][:, 0], sim.extras["friction_moment"][:, 0, 0]
    else:   # a frictionless joint has no friction record
        ff = mf = np.zeros_like(sim.time)
    e_Ff = np.abs(ff - ref["Ff"]).max() / max(np.abs(ref["Ff"]).max(), 1.0)
    e_Mf = np.abs(mf - ref["Mf"]).max() / max(np.abs(ref["Mf"]).max(), 1.0)
    print(f"\n{label}: |d phi| {e_phi:.2g} rad, |d s| {e_s:.2g} m, |d s_dot| {e_ds:.2g} m/s, "
          f"|d E_diss|/E_kin,max {e_E:.2g}, friction force {e_Ff:.2g}, moment {e_Mf:.2g} (relative)")
    assert e_phi < 1e-9 and e_s < 1e-9 and e_ds < 1e-8
    assert e_E < 1e-8 and e_Ff < 1e-8 and e_Mf < 1e-8


def _books(sim):
    b = sim.kinetic_energy + sim.potential_energy + sim.dissipated_energy - sim.driver_work
    return np.abs(b - b[0]).max()


def test_the_study_agrees_with_the_newton_euler_reference(study_case):
    sim, ref = study_case
    assert sim.engine == "spatial"
    _compare(sim, ref, "mu = 0.1, cylindrical")


def test_the_slide_stops_and_friction_dissipates_the_books(study_case):
    sim, ref = study_case
    s, ds = sim.position[:, 0, 2], sim.velocity[:, 0, 2]
    print("\n  t [s]   slide s [m] (engine)   (reference)     E_diss [J] (engine)  (reference)")
    for k in range(0, N, 10):
        print(f"  {sim.time[k]:4.2f}   {s[k]:.12f}         {ref['s'][k]:.12f}   {sim.dissipated_energy[k]:.9f}"
              f"        {ref['dissipated'][k]:.9f}")
    assert np.all(np.diff(s) >= -1e-12)                     # friction never reverses the slide
    # the slide decelerates at about mu g until the swing takes over (0.5 s), then creeps out:
    # with the pendulum turning, k_s = -mu s_dot / sqrt(s_dot^2 + omega^2 R^2) is nearly viscous
    assert abs(ds[-1]) < 2e-3 and np.all(np.diff(ds) <= 1e-12) and 0.49 < s[-1] < 0.5
    # books: kinetic + potential + dissipated constant; the dissipated energy includes the
    # 39 J of the axial kinetic energy m v0^2 / 2
    print(f"  energy books: max |change| {_books(sim):.3g} J; dissipated {sim.dissipated_energy[-1]:.6f} J")
    assert _books(sim) < 1e-7
    assert sim.dissipated_energy[-1] > 0.5 * 78.0 * 1.0 ** 2


def test_frictionless_axial_velocity_constant_and_energy_conserved():
    sim = _run(mechanism(None))
    ref = solve(QiPendulum(mu=0.0), T_END, sim.time, rtol=RTOL, atol=ATOL)
    _compare(sim, ref, "mu = 0, cylindrical")
    assert np.abs(sim.velocity[:, 0, 2] - 1.0).max() < 1e-12
    assert np.abs(sim.dissipated_energy).max() == 0.0
    E = sim.kinetic_energy + sim.potential_energy
    Er = ref["kinetic"] + ref["potential"]
    print(f"  mu = 0: energy max |change| {np.abs(E - E[0]).max():.3g} J (reference {np.abs(Er - Er[0]).max():.3g} J)"
          f" with m g l = {78 * 9.80665 * 0.5:.1f} J exchanged")
    assert np.abs(E - E[0]).max() < 1e-7   # 2.6e-10 of the energy exchanged


def test_revolute_variant(registry_module):
    law = registry_module.create("friction", "coulomb", {"mu": 0.1})
    sim = _run(mechanism(law, joint="revolute"))
    ref = solve(QiPendulum(revolute=True), T_END, sim.time, rtol=RTOL, atol=ATOL)
    _compare(sim, ref, "mu = 0.1, revolute")
    assert np.abs(sim.position[:, 0, 2]).max() < 1e-12
    assert _books(sim) < 1e-7
