"""The compiled integration loop (:mod:`workbench.spatial.integrate`) takes scipy's DOP853 steps:
against ``solve_ivp`` driving the same compiled right-hand side it makes the same calls and the
same samples (ideal joints), the same events and impacts (a clearance joint); a call whose
joint-friction loop cannot close fails over to ``solve_ivp`` and is counted; the compiled output
samples (:mod:`workbench.spatial.records`) are the reference path's records."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from pendulum import mechanism as pendulum  # noqa: E402
from slider_crank import mechanism as slider_crank  # noqa: E402

from workbench.mbs.solution import SolverSettings  # noqa: E402
from workbench.spatial.solver import simulate  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scipy_loop(monkeypatch):
    """Runs with ``solve_ivp`` driving the compiled right-hand side (the loop before this one)."""
    from workbench.spatial import loop

    def off():
        monkeypatch.setattr(loop.CompiledLoop, "make", classmethod(lambda cls, *a: None))
    return off


def test_the_ideal_slider_crank_takes_scipys_steps(scipy_loop):
    s = SolverSettings(t_end=0.006, output_step=0.0002, rtol=1e-10, atol=1e-13)
    fast = simulate(slider_crank(), s)
    scipy_loop()
    ref = simulate(slider_crank(), s)
    assert fast.stats["loop"] == "compiled" and ref.stats["loop"] == "scipy"
    assert fast.stats["rhs_calls"] == ref.stats["rhs_calls"]
    for name in ("position", "velocity", "acceleration", "joint_reaction", "driver_load", "kinetic_energy",
                 "driver_work"):
        a, b = getattr(fast, name), getattr(ref, name)
        # rounding only: the stage sums in another order than numpy's dot products
        assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max(), name


def test_the_clearance_slider_crank_has_scipys_events(scipy_loop):
    """Five impacts of the aligned clearance slider-crank (0.0015 s) at rtol 1e-10 against
    ``solve_ivp``'s events on the same right-hand side: the first contact start to rounding (1e-12
    relative; measured 2e-15); the same contact events; the later impacts and the journal's offset
    to the integration's own error.  Not to rounding: the stages' sums run in another order than
    numpy's, and the stiff contact turns a last-bit difference into another accept/reject decision
    of a step (the step sequences differ by a few per cent of the calls), so the two runs differ by
    what the tolerance allows.  At rtol 1e-8 (this test's first setting) that is more than the
    1e-5 below: against the run converged at rtol 1e-12 the fifth impact velocity was off by
    2.8e-6 with the dense right-hand side and by 2.6e-5 with the Schur-complement one (the same
    derivative to 1e-15, tests/spatial/test_fast_rhs.py), the loop against ``solve_ivp`` 1.5e-6
    and 1.5e-5; at rtol 1e-10 the run's error is about 1e-8 and the checks keep their margin."""
    from workbench import engines
    from workbench.plugins import build_registry
    from workbench.study.load import load_study
    st = load_study(ROOT / "studies" / "spatial_slider_crank_clearance.toml", registry=build_registry())
    s = dataclasses.replace(st.solver, t_end=0.0015, output_step=0.0001, rtol=1e-10, atol=1e-13)
    fast = engines.simulate(st.mechanism, s)
    scipy_loop()
    ref = engines.simulate(st.mechanism, s)
    assert fast.stats["loop"] == "compiled" and ref.stats["loop"] == "scipy"
    assert fast.stats["contact_events"] == ref.stats["contact_events"] and len(ref.impact_time) >= 4
    assert abs(fast.impact_time[0] / ref.impact_time[0] - 1.0) < 1e-12
    assert abs(fast.impact_velocity[0] / ref.impact_velocity[0] - 1.0) < 1e-12
    for name in ("impact_time", "impact_velocity", "impact_peak_force", "impact_peak_time"):
        a, b = getattr(fast, name), getattr(ref, name)
        assert np.abs(a / b - 1.0).max() < 1e-5, name
    # the offset error of the workbench at rtol 1e-8 is about 4 nm here (docs/spatial.md, the Exudyn benchmark);
    # at rtol 1e-10 well below
    assert np.abs(fast.extras["clearance_offset"] - ref.extras["clearance_offset"]).max() < 1e-8


def test_a_flush_revolute_joint_is_solved_on_the_compiled_path(registry):
    """A revolute joint with friction under an axial load and no tilting moment is flush: the
    compiled right-hand side solves the flush state itself (``kernels._flush``, the cubic of
    :func:`workbench.spatial.axial_contact.flush`), with no call of the reference path, and
    agrees with the reference path (which solves it in Python).  Until 2026-12-07 the flush state
    fell back to the reference path at every call."""
    law = registry.create("friction", "coulomb", {"mu": 0.1})
    mech = pendulum(law, joint="revolute", axial_force=50.0)
    s = SolverSettings(t_end=0.02, output_step=0.005, rtol=1e-9, atol=1e-12)
    fast = simulate(mech, s)
    ref = simulate(mech, dataclasses.replace(s, path="scipy"))
    assert fast.stats["loop"] == "compiled" and fast.stats["reference_fallbacks"] == 0
    assert len(fast.time) == len(ref.time) == 5
    assert np.abs(fast.position - ref.position).max() < 1e-9


def test_the_compiled_samples_are_the_reference_records():
    """:func:`workbench.spatial.records.sample_records` against the reference path's record on
    states off the trajectory (velocities perturbed), with generalised forces added (as a
    clearance joint's): to 1e-11 relative."""
    from workbench.spatial.kernels import pack
    from workbench.spatial.model import Model
    from workbench.spatial.solver import to_simulation
    mech = slider_crank()
    model = Model(mech)
    nb = model.nb
    sim = simulate(mech, SolverSettings(t_end=0.004, output_step=0.001, rtol=1e-8, atol=1e-11))
    t = sim.time
    rng = np.random.default_rng(29)
    Y = np.concatenate([sim.position[:, :, :3].reshape(len(t), -1), sim.position[:, :, 3:].reshape(len(t), -1),
                        np.concatenate([sim.velocity[:, :, :3], sim.extras["angular_velocity_body"]], axis=2)
                        .reshape(len(t), -1), np.zeros((len(t), 2))], axis=1)
    Y[:, 7 * nb:13 * nb] += rng.normal(0.0, 0.05, (len(t), 6 * nb))
    Q = rng.normal(0.0, 10.0, (len(t), 6 * nb))
    ref = to_simulation(model, t, Y, 10.0, 10.0, {}, extra_q=Q)
    fast = to_simulation(model, t, Y, 10.0, 10.0, {}, extra_q=Q, packed=pack(model))
    for name in ("position", "velocity", "acceleration", "joint_reaction", "driver_load", "kinetic_energy",
                 "potential_energy", "drift_position", "drift_velocity"):
        a, b = getattr(fast, name), getattr(ref, name)
        assert a.shape == b.shape and np.abs(a - b).max() <= 1e-11 * max(np.abs(b).max(), 1e-300), name
