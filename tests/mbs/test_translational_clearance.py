"""Translational clearance joint (Wang, Chen, Ma & Sun (2016) §1.2, eqs. 18-31): four corners, four contact states.

A rectangular slider (L x W) in a guide of height H, nothing else: static equilibria have closed
forms with the linear plane law F = K_s delta (Wang, Chen, Ma & Sun (2016) eqs. 25-26).
"""
from __future__ import annotations

import numpy as np
import pytest

from workbench.mbs.mechanism import Body, ConstantTorque, Mechanism, TranslationalClearanceJoint
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import simulate
from workbench.models import ContactGeometry

L, W, H, B = 8e-3, 5e-3, 5.4e-3, 10e-3  # slider length, height, guide height, width [m]
MASS = 0.14


def block(registry, *, gravity=(0.0, -9.81), torque=0.0, damping=2e4):
    """The slider alone in a ground-fixed guide; damping ~ 0.3 of critical so it settles."""
    contact = registry.create("contact", "kelvin_voigt", {"damping": damping})
    joint = TranslationalClearanceJoint("guide", "ground", "O", "slider", "C", slider_length=L,
                                        slider_height=W, guide_height=H, contact=contact, width=B)
    forces = (ConstantTorque("twist", "slider", torque),) if torque else ()
    inertia = MASS * (L ** 2 + W ** 2) / 12  # a solid steel-like block
    return Mechanism((Body("slider", MASS, inertia, points={"C": (0.0, 0.0)}),), (), (), forces, (joint,),
                     {"O": (0.0, 0.0)}, gravity), contact


def stiffness(contact):
    geom = ContactGeometry("planar", 0.0, 0.0, B, half_perimeter=L + B)
    return contact.pack(geom)[0]


def test_planar_stiffness_is_wang2016_eq26(registry):
    """K_s = a / (0.475 (h_i + h_j)), a = half the perimeter of the contact face (Wang, Chen, Ma & Sun (2016) eq. 26)."""
    _, contact = block(registry)
    h = (1 - 0.3 ** 2) / 207e9
    assert stiffness(contact) == pytest.approx((L + B) / (0.475 * 2 * h), rel=1e-12)


def test_block_settles_on_both_bottom_corners(registry):
    """Side contact under gravity: the two bottom corners share the weight, delta = m g / (2 K)."""
    mech, contact = block(registry)
    sim = simulate(mech, SolverSettings(t_end=0.05, output_step=1e-4, rtol=1e-8, atol=1e-12))
    K = stiffness(contact)
    c = (H - W) / 2
    assert len(sim.impact_time) >= 2  # both bottom corners touched
    assert set(sim.impact_point[:2]) <= {2, 3}  # bottom corners (points 2 and 3 of the joint)
    assert sim.contact_force[-1, 0] == pytest.approx(MASS * 9.81, rel=1e-4)
    assert sim.penetration[-1, 0] == pytest.approx(MASS * 9.81 / (2 * K), rel=1e-3)
    # slider centre sits c + delta below the guide centre line
    assert sim.eccentricity[-1, 0, 1] == pytest.approx(-(c + MASS * 9.81 / (2 * K)), rel=1e-6)


def test_torque_wedges_two_opposite_corners(registry):
    """Without gravity a torque T tilts the slider until two opposite corners carry a couple:
    with small tilt, F = T / L per corner (moment arm L) and both penetrations are equal."""
    T = 0.5
    mech, contact = block(registry, gravity=(0.0, 0.0), torque=T)
    sim = simulate(mech, SolverSettings(t_end=0.05, output_step=1e-4, rtol=1e-8, atol=1e-12))
    points = set(sim.impact_point.tolist())
    assert points >= {0, 2} or points >= {1, 3}  # an opposite pair (top-right/bottom-left or mirror)
    K = stiffness(contact)
    # total normal force of the two corners = 2 F; the tilt angle theta gives arm L cos - W sin
    phi = sim.position[-1, 0, 2]
    arm = L * np.cos(phi) - W * abs(np.sin(phi))
    assert sim.contact_force[-1, 0] == pytest.approx(2 * T / arm, rel=2e-3)
    assert sim.penetration[-1, 0] == pytest.approx(T / arm / K, rel=5e-3)
