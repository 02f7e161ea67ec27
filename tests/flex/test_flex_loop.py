"""The flexible solver's compiled step loop (workbench.flex.loop) against the Python loop of
workbench.flex.solver.simulate (the reference path: the same arithmetic), and its step-size
rules."""
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.flex import solver as flex_solver
from workbench.flex.loop import next_step, step_length
from workbench.mbs.solution import SolverSettings
from workbench.study.load import load_study

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent))
from test_flexible_mechanism import _sliding_pendulum, slider_crank  # noqa: E402


def _both(mech, settings, monkeypatch):
    out = []
    for compiled in (True, False):
        monkeypatch.setattr(flex_solver, "COMPILED_LOOP", compiled)
        out.append(flex_solver.simulate(mech, settings))
    return out


@pytest.mark.parametrize("case", ["slider_crank", "sliding_pendulum"])
def test_compiled_loop_agrees_with_the_python_loop(case, monkeypatch):
    # the studies' protocol at 207 GPa (5 % damping of the axial mode, 2.33e-6 s) and a mechanism
    # with a translational joint between rigid bodies, a constant force and a driven guide: the
    # same steps, rejections and Newton iterations, and the same samples to rounding
    mech = slider_crank(207e9, 2.329e-6) if case == "slider_crank" else _sliding_pendulum()
    # the pendulum starts consistent and unstrained (workbench.flex.start), so it runs smoothly: steps
    # up to 1e-4 s at rtol 1e-8 exercise the rejections (2)
    settings = (SolverSettings(t_end=1e-3, output_step=1e-5, rtol=1e-6, atol=1e-9) if case == "slider_crank" else
                SolverSettings(t_end=1e-3, output_step=1e-4, rtol=1e-8, atol=1e-11))
    fast, ref = _both(mech, settings, monkeypatch)
    for key in ("steps", "rejected_steps", "newton_iterations", "factorizations"):
        assert fast.stats[key] == ref.stats[key], key
    assert ref.stats["rejected_steps"] > 0 or case == "slider_crank"
    for name in ("position", "velocity", "acceleration", "driver_load", "joint_reaction", "kinetic_energy",
                 "potential_energy", "drift_position", "drift_velocity"):
        a, b = getattr(fast, name), getattr(ref, name)
        # the drifts are residuals of O(1 m, 1 m/s) terms: they agree to those terms' rounding
        atol = 1e-13 if name.startswith("drift") else 1e-9 * max(np.abs(b).max(), 1e-30)
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=atol, err_msg=name)
    for beam in fast.flex:
        np.testing.assert_allclose(fast.flex[beam]["midspan_deflection"], ref.flex[beam]["midspan_deflection"],
                                   rtol=1e-9, atol=1e-15)


def test_compiled_clearance_newton_agrees_with_the_python_iteration(monkeypatch, registry):
    # the 207 GPa study with C = 0.2 mm in both joints over its first impacts: the Newton iteration
    # with the clearance forces and their finite-difference tangent compiled
    # (flex_clearance.newton_clearance_kernel) against the Python iteration (the same arithmetic
    # up to the summation order of J^T dQ J)
    mech = load_study(ROOT / "studies" / "flexible_slider_crank_c020.toml", registry=registry).mechanism
    fast, ref = _both(mech, SolverSettings(t_end=1.5e-3, output_step=1e-5, rtol=1e-6, atol=1e-9), monkeypatch)
    assert ref.stats["events"] >= 1
    for key in ("steps", "rejected_steps", "events", "newton_iterations"):
        assert fast.stats[key] == ref.stats[key], key
    for name in ("position", "driver_load", "contact_force", "penetration"):
        a, b = getattr(fast, name), getattr(ref, name)
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-7 * max(np.abs(b).max(), 1e-30), err_msg=name)
    np.testing.assert_allclose(fast.impact_time, ref.impact_time, rtol=0, atol=1e-12)


def test_step_size_rules():
    # a remainder between h and 2 h is split in two equal steps, not a step and a sliver
    assert step_length(6e-6, 10e-6) == (5e-6, False)
    assert step_length(4e-6, 10e-6) == (4e-6, False)
    hs, land = step_length(10e-6, 10e-6 * (1 + 1e-12))
    assert land
    # after a sliver that landed on an output time, its tiny error does not grow the proposal,
    # nor does the proposal shrink to the sliver
    assert next_step(8e-6, 1e-8, True, 1e-9, 0.9, 1.0, False, 1e-5) == pytest.approx(8e-6)
    # a cut step whose error allows more than the proposal grows it; one asking for less shrinks it
    assert next_step(6e-6, 5e-6, True, 0.01, 0.9, 1.0, False, 1e-5) == pytest.approx(1e-5)
    assert next_step(6e-6, 5e-6, True, 8.0, 0.9, 1.0, False, 1e-5) == pytest.approx(5e-6 * 0.45)
    # no growth right after a rejected step; the dead band keeps a step that would grow a little
    assert next_step(1e-6, 1e-6, False, 0.01, 0.9, 1.0, True, 1e-5) == pytest.approx(1e-6)
    assert next_step(1e-6, 1e-6, False, 0.01, 0.9, 1.0, False, 1e-5) == pytest.approx(2e-6)
    assert next_step(1e-6, 1e-6, False, 0.5, 0.9, 1.2, False, 1e-5) == pytest.approx(1e-6)
