"""The coupled stick test (:mod:`workbench.spatial.stick_modes`): several set-valued joints at rest
at one instant are decided together.

Two bars in a row on two revolute joints with friction (``hip``, ``knee``), released horizontal at
rest.  With both joints locked the knee needs the moment ``m g L / 2`` under the load ``m g``, more
than its friction circle carries, so a joint-by-joint test lets it slip; but the hip cannot hold the
pair, and once it slips the falling pair unloads the knee: the knee needs only ``(J_C + 3 m L^2 / 4)
alpha + m g L / 2``, which it carries.  The consistent mode (hip slips, knee sticks) is checked
against the closed form of the pair turning as one rigid body about the hip.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from double_bar import G, J_C, L, M, mechanism  # noqa: E402

from workbench.engines.spatial import Settings  # noqa: E402
from workbench.spatial import stick  # noqa: E402

MU, R_HIP, R_KNEE = 0.5, 1.49, 0.9     # radii [m] chosen so that the modes differ (docstring)


@pytest.fixture(scope="module")
def registry():
    from workbench.plugins import build_registry
    return build_registry()


def test_two_joints_at_rest_at_once_are_decided_together(registry):
    law = registry.create("friction", "coulomb_set_valued", dict(mu=MU))
    sim = stick.simulate(mechanism(law, law, R_hip=R_HIP, R_knee=R_KNEE),
                         Settings(t_end=1e-3, output_step=1e-3, rtol=1e-10, atol=1e-12))
    kinds = dict(zip(sim.extras["stick_event_units"], [e[2] for e in sim.extras["stick_events"]]))
    assert kinds == {"hip": "rest_slip", "knee": "stick_start"} and sim.stats["coupled_rests"] == 1
    assert sim.stats["inconsistent_rest"] == 0
    # closed form: the pair turns as one body about the hip; friction circle N sqrt(1 + mu^2) = |F|
    mu_c = MU / math.sqrt(1 + MU * MU)
    J = 2 * J_C + M * (L / 2) ** 2 + M * (3 * L / 2) ** 2
    alpha = 2 * M * G * (mu_c * R_HIP - L) / (J - 2 * mu_c * R_HIP * M * L)   # [rad/s^2], about +z
    F_hip = 2 * M * (L * alpha + G)
    M_knee = (J_C + 3 * M * L * L / 4) * alpha + M * G * L / 2
    F_knee = M * (1.5 * L * alpha + G)
    N_knee = math.sqrt(F_knee ** 2 - (M_knee / R_KNEE) ** 2)
    # the joint-by-joint test would refuse the knee: locked, it needs m g L / 2 under m g
    assert M * G * L / 2 > mu_c * R_KNEE * M * G and abs(M_knee) <= MU * R_KNEE * N_knee
    acc = sim.acceleration[0, :, 5]
    print(f"\ncoupled rest: alpha {acc[0]:.12g} / {alpha:.12g} rad/s^2, knee moment "
          f"{sim.extras['friction_moment'][0, 1, 0]:.12g} / {M_knee:.12g} N m, knee load "
          f"{sim.extras['contact_load'][0, 1].sum():.12g} / {N_knee:.12g} N")
    assert np.allclose(acc, alpha, rtol=1e-8)
    assert math.isclose(abs(sim.extras["friction_moment"][0, 0, 0]), mu_c * R_HIP * F_hip, rel_tol=1e-8)
    assert math.isclose(abs(sim.extras["friction_moment"][0, 1, 0]), abs(M_knee), rel_tol=1e-8)
    assert math.isclose(sim.extras["contact_load"][0, 1].sum(), N_knee, rel_tol=1e-8)
    # and the knee stays stuck while the pair falls
    assert np.abs(sim.velocity[:, 1, 5] - sim.velocity[:, 0, 5]).max() < 1e-10
