"""The regularised-friction limit of the set-valued crank-rocker.

The event-driven solver's smooth mode replaces Sgn(v) by tanh(v / v_eps) (no stick mode, no slip
events; `regularisation` of :class:`workbench.nonsmooth.event_driven.System`).  On the driven
crank-rocker with the damper (c = 8 N m s/rad) the motion is kinematic, so the regularised law
differs from the set-valued one only while the slip speed v = a t passes through zero at the
reversals (theta2 = k pi).  There it dissipates less:
``mu |lambda| int |v| (1 - tanh(|v| / v_eps)) dt = mu |lambda| v_eps^2 / |a| * pi^2 / 12``
per reversal (int_0^inf x (1 - tanh x) dx = int_0^inf 2x / (e^2x + 1) dx = (1/2) int_0^inf
u / (e^u + 1) du = eta(2) / 2 = pi^2 / 24, eta the Dirichlet eta function), with
|lambda| = c |theta1'| / r and |a| = |d2r/dtheta2^2| omega^2 at the reversal: 16/3 N and 3 m/s^2
at theta2 = 0 (r = 1.5 m), 48 N and 9 m/s^2 at theta2 = pi (r = 0.5 m).  Over two revolutions
(two reversals at pi, one at 2 pi, and half ones at the start and the end) the dissipation deficit
is ``(2 * 0.2 * 48 / 9 + 2 * 0.2 * (16/3) / 3) * pi^2 / 12 * v_eps^2 = 2.339 v_eps^2`` [J with
v_eps in m/s]: second order in v_eps.
"""
import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from workbench.nonsmooth.dataset import simulate
from workbench.study.load import load_study

STUDY = Path(__file__).parents[2] / "studies" / "crank_rocker_friction_damped.toml"
COEFF = (2 * 0.2 * 48 / 9 + 2 * 0.2 * (16 / 3) / 3) * math.pi ** 2 / 12


def test_regularised_law_converges_to_set_valued_at_second_order():
    study = load_study(STUDY)
    # samples that end exactly at t_end (the last reversal, at the end, counts half)
    settings = dataclasses.replace(study.solver, output_step=study.solver.t_end / 400)
    d0 = simulate(study.mechanism, settings)[0].dissipated_energy[-1]
    v_eps = np.array([0.1, 0.03, 0.01])          # m/s
    deficit = np.array([d0 - simulate(study.mechanism, settings, regularisation=v)[0].dissipated_energy[-1]
                        for v in v_eps])
    # the closed form of the leading term (3 % for the O(v_eps^4) remainder and integration error)
    np.testing.assert_allclose(deficit, COEFF * v_eps ** 2, rtol=0.03)
    order = np.polyfit(np.log(v_eps), np.log(deficit), 1)[0]
    assert order == pytest.approx(2.0, abs=0.05)


def test_engine_regularised_joint_friction_meets_the_same_limit():
    """The same limit through the compiled fast path's friction from joint reactions
    (:mod:`workbench.mbs.joint_friction`, the `coulomb` plugin with tanh regularisation on the ideal
    translational joint): an implementation independent of the event-driven solver's smooth mode.
    Its dissipation deficit against the set-valued run follows the closed form above to 1 % at
    v_eps = 0.1 and 0.03 m/s (measured 0.93 % and 0.88 %; below 0.01 m/s the deficit, < 3e-4 J of
    77.6 J, reaches the integration error of the two runs), so the order is 2."""
    from workbench.mbs.solver import simulate as fast_simulate
    from workbench.study.load import load_study_text
    study = load_study(STUDY)
    settings = dataclasses.replace(study.solver, output_step=study.solver.t_end / 400)
    d0 = simulate(study.mechanism, settings)[0].dissipated_energy[-1]
    text = STUDY.read_text()
    old = 'friction = { model = "coulomb_set_valued", mu = 0.2 }'
    assert old in text
    v_eps = np.array([0.1, 0.03])
    deficit = []
    for v in v_eps:
        s = load_study_text(text.replace(old, f'friction = {{ model = "coulomb", mu = 0.2, v_eps = {v} }}'),
                            file="regularised.toml")
        sim = fast_simulate(s.mechanism, settings)
        deficit.append(d0 - sim.dissipated_energy[-1])
    deficit = np.array(deficit)
    np.testing.assert_allclose(deficit, COEFF * v_eps ** 2, rtol=0.02)
    order = math.log(deficit[0] / deficit[1]) / math.log(v_eps[0] / v_eps[1])
    assert abs(order - 2.0) < 0.05
