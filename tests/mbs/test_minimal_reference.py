"""The workbench against an independent, hand-specialised minimal-coordinate model of the same
mechanism (`tests/reference/minimal_slider_crank.py`: two degrees of freedom, its own
Dormand-Prince integrator and contact-start location, written without the workbench).

Flores slider-crank (Flores & Ambrósio 2004) with the revolute clearance joint rod-slider,
Lankarani & Nikravesh (1990) contact, Ambrósio (2003) friction, two crank revolutions at the
converged defaults.  The two codes share no line of the equations of motion, so agreement
checks the absolute-coordinate assembly, the Baumgarte-stabilised constraints, the clearance
kinematics (contact points and relative velocity, Flores & Ambrósio 2004) and the event location.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.mbs.solver import simulate
from workbench.study.load import load_study

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from reference import minimal_slider_crank as ms  # noqa: E402


@pytest.fixture(scope="module")
def both():
    from workbench.plugins import build_registry
    study = load_study(ROOT / "studies" / "flores_slider_crank.toml", registry=build_registry())
    sim = simulate(study.mechanism, study.solver)
    ref = ms.simulate(study.solver.t_end, output_step=study.solver.output_step,
                      rtol=study.solver.rtol, atol=study.solver.atol)
    return study, sim, ref


def test_same_stiffness_as_the_study(both):
    study, _, _ = both
    joint = study.mechanism.clearance_joints[0]
    from workbench.mbs.compiled import compile_mechanism
    K = compile_mechanism(study.mechanism).contact_params[0, 0]
    assert K == pytest.approx(ms.stiffness(), rel=1e-12)
    assert joint.bushing_radius == ms.R_B and joint.journal_radius == ms.R_J


def test_first_impacts_agree(both):
    _, sim, ref = both
    imp = ref["impacts"]
    assert len(imp) == len(sim.impact_time) > 30
    # first impact: 0.2272849 ms, 4.38583 m/s -- the same to 1e-9 relative
    np.testing.assert_allclose(sim.impact_time[:3], imp[:3, 0], rtol=1e-9)
    np.testing.assert_allclose(sim.impact_velocity[:3], imp[:3, 1], rtol=1e-6)


def test_slider_motion_agrees_over_two_revolutions(both):
    _, sim, ref = both
    slider = sim.body_names.index("slider")
    dx = np.abs(sim.position[:, slider, 0] - ref["x"])
    assert dx.max() < 1e-5   # measured 8e-8 m
    rod = sim.body_names.index("rod")
    assert np.abs(sim.position[:, rod, 2] - ref["phi"]).max() < 1e-3   # rad; measured ~1e-6
