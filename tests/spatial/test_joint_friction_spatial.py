"""Qi, Luo & Huang (2009) equivalent point contacts (:mod:`workbench.spatial.joint_friction`):
the contact system found reproduces the reaction it came from (rebuilt here point by point with
cross products), their eq. 19 matrix (last entry read as -k_r c) holds, the revolute joint's axial
contact sits where :mod:`workbench.spatial.axial_contact` puts it, and a universal joint with friction (two revolute
journals, their eqs. 54-58) runs with closed energy books."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from workbench import engines
from workbench.mbs.solution import SolverSettings
from workbench.spatial import Body, Joint, SpatialMechanism
from workbench.spatial import axial_contact
from workbench.spatial.joint_friction import _radial_matrix, cylinder

E1 = np.array([1.0, 0.0, 0.0])


def coulomb(mu):
    return lambda v: -mu


def _n(theta):
    return np.array([0.0, math.sin(theta), math.cos(theta)])


def _rebuild(res, R, c, s_dot, omega, mu, axial, axial_n3=None):
    """Force and moment (about the sleeve centre) of the contact points ``res`` describes."""
    f_ax, m_ax, F1, F2, g3, g4, th1, th2 = res
    v = math.hypot(s_dot, omega * R)
    k_s, k_r = (-mu * s_dot / v, -mu * omega * R / v)
    if axial:
        k_s = 0.0
    F = np.zeros(3); M = np.zeros(3)
    pts = [(F1, -1.0, _n(th1)), (F2, 1.0, _n(th2))]
    for Fk, s, n in pts:
        f = -Fk * n + Fk * (k_s * E1 + k_r * np.cross(E1, n))
        F += f; M += np.cross(s * c * E1 + R * n, f)
    if axial and (g3 or g4):
        n3 = axial_n3                        # their eq. 36 or the flush state (test_axial_contact)
        for g, s, n in ((g3, -1.0, n3), (g4, 1.0, -n3)):
            f = g * (-s * E1 + k_r * np.cross(E1, n))
            F += f; M += np.cross(s * c * E1 + R * n, f)
    return F, M, k_s, k_r


@pytest.mark.parametrize("seed", range(5))
def test_cylindrical_contacts_reproduce_the_reaction(seed):
    rng = np.random.default_rng(seed)
    F, M = rng.normal(size=3) * 100, rng.normal(size=3) * 30
    F[0] = M[0] = 0.0
    R, c, mu, s_dot, om = 0.05, 0.5, 0.1, rng.normal(), rng.normal() * 5
    res = cylinder(F, M, coulomb(mu), s_dot, om, R, c, axial=False)
    Fr, Mr, k_s, k_r = _rebuild(res, R, c, s_dot, om, mu, False)
    assert np.allclose(Fr[1:], F[1:], atol=1e-10) and np.allclose(Mr[1:], M[1:], atol=1e-10)
    assert res[0] == pytest.approx(Fr[0], abs=1e-10)           # eq. 25
    assert res[1] == pytest.approx(Mr[0], abs=1e-10)           # eq. 26
    assert res[2] >= 0 and res[3] >= 0
    # their eq. 19 with X = (F1 sin th1, F1 cos th1, F2 sin th2, F2 cos th2)
    X = np.array([res[2] * math.sin(res[6]), res[2] * math.cos(res[6]),
                  res[3] * math.sin(res[7]), res[3] * math.cos(res[7])])
    A = np.array([[-1, -k_r, -1, -k_r], [k_r, -1, k_r, -1],
                  [k_r * c, k_s * R - c, -k_r * c, c + k_s * R],
                  [c - k_s * R, k_r * c, -k_s * R - c, -k_r * c]])
    assert np.allclose(A @ X, [F[1], F[2], M[1], M[2]], atol=1e-10)


@pytest.mark.parametrize("seed", range(5))
def test_revolute_axial_contact_on_the_tilt(seed):
    rng = np.random.default_rng(10 + seed)
    F, M = rng.normal(size=3) * 100, rng.normal(size=3) * 30
    M[0] = 0.0
    R, c, mu, om = 0.02, 0.04, 0.15, rng.normal() * 5
    res = cylinder(F, M, coulomb(mu), 0.0, om, R, c, axial=True)
    g3, g4 = res[4], res[5]
    assert g3 * g4 == 0 and g3 - g4 == pytest.approx(F[0])           # eqs. 39-41
    k_r = -mu * math.copysign(1.0, om)
    n3 = axial_contact.solve(_radial_matrix(0.0, k_r, R, c), np.array([F[1], F[2], M[1], M[2]]), g3, g4,
                             k_r, R, c)[1]
    Fr, Mr, _, k_r = _rebuild(res, R, c, 0.0, om, mu, True, n3)
    assert np.allclose(Fr, F, atol=1e-9) and np.allclose(Mr[1:], M[1:], atol=1e-9)
    assert res[1] == pytest.approx(-mu * math.copysign(1, om) * R * sum(res[2:6]))   # eq. 53
    assert res[0] == 0.0


def _hooke(law):
    arm = Body("arm", 2.0, (0.002, 0.03, 0.03), position=(0.3, 0.0, 0.0),
               angular_velocity=(0.0, 3.0, 0.0), velocity=(0.0, 0.0, -0.9), points={"O": (-0.3, 0.0, 0.0)})
    j = Joint("hooke", "universal", "ground", "O", "arm", "O", axis_i=(0.0, 0.0, 1.0), axis_j=(0.0, 1.0, 0.0),
              friction=law, radius=0.005, length=0.1, radius_j=0.005, length_j=0.1)
    return SpatialMechanism((arm,), (j,), gravity=(0.0, -9.81, 0.0), ground_points={"O": (0.0, 0.0, 0.0)})


def test_universal_joint_friction_closes_the_books(registry):
    # 0.4 s: the journals' axial loads at the tilt point of Qi, Luo & Huang eq. 36 or on the flush
    # face, both states solved on the compiled path
    s = SolverSettings(t_end=0.4, output_step=0.005, rtol=1e-10, atol=1e-12, engine="spatial")
    free = engines.simulate(_hooke(None), s)
    E = free.kinetic_energy + free.potential_energy
    assert np.abs(E - E[0]).max() < 1e-7
    law = registry.create("friction", "coulomb", {"mu": 0.2})
    sim = engines.simulate(_hooke(law), s)
    books = sim.kinetic_energy + sim.potential_energy + sim.dissipated_energy
    m = sim.extras["friction_moment"][:, 0]
    print(f"\nuniversal joint, mu = 0.2: dissipated {sim.dissipated_energy[-1]:.4g} J, books "
          f"{np.abs(books - books[0]).max():.2g} J, friction moments up to {np.abs(m).max(axis=0)} N m")
    assert sim.dissipated_energy[-1] > 1e-3 and np.all(np.diff(sim.dissipated_energy) >= -1e-12)
    assert np.abs(books - books[0]).max() < 1e-7
    assert np.all(np.abs(m).max(axis=0) > 0)                       # both journals rub
    assert sim.drift_position.max() < 1e-9
