"""A revolute joint's axial force of round-off size does not start the flush-face solve
(:data:`workbench.spatial.axial_contact.ROUNDOFF`): the Qi pendulum on a revolute joint turned as a
whole so that its axis is no coordinate axis (its axial reaction is then round-off, about 3e-13 N
beside a radial load of 770 N) runs as the upright one, on the fast path without falling back to the
reference path.  Before the threshold every right-hand side of the turned pendulum solved the flush
face (about 9 solves a call, 35-39 ms a call on the reference path, and every fast-path call fell
back: 48-52 ms); now 2.8 ms and 70 us (docs/spatial.md)."""
from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pendulum import mechanism  # noqa: E402

from workbench.engines.spatial import Settings  # noqa: E402
from workbench.spatial import axial_contact, solver  # noqa: E402
from workbench.spatial.joint_friction import cylinder  # noqa: E402
from workbench.spatial.rotation import from_matrix, rotation_matrix  # noqa: E402


def _turn():
    """The rotation taking z to (1, 1, 1)/sqrt(3) (Rodrigues, about (-1, 1, 0)/sqrt(2))."""
    k = np.array([-1.0, 1.0, 0.0]) / math.sqrt(2)
    a = math.acos(1 / math.sqrt(3))
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(a) * K + (1 - math.cos(a)) * K @ K


def test_a_round_off_axial_force_is_not_placed_on_the_face(monkeypatch):
    solves = []
    monkeypatch.setattr(axial_contact, "solve", lambda *a: solves.append(a) or (np.zeros(4), None, "flush"))
    R, c = 0.05, 0.5
    law = lambda v: -0.1     # noqa: E731
    F, M = (3e-13, 500.0, -560.0), (0.0, 20.0, 10.0)
    r = cylinder(F, M, law, 0.0, 2.0, R, c, True)
    r0 = cylinder((0.0,) + F[1:], M, law, 0.0, 2.0, R, c, True)
    assert solves == []
    # the same radial loads as without it; the round-off joins the friction load
    assert r[2:4] == r0[2:4] and r[4] == 3e-13 and math.isclose(r[1], r0[1], rel_tol=1e-15)
    # an axial force above the threshold (1e-10 of the radial load) is placed
    cylinder((1e-6,) + F[1:], M, law, 0.0, 2.0, R, c, True)
    assert len(solves) == 1


@pytest.fixture(scope="module")
def registry():
    from workbench.plugins import build_registry
    return build_registry()


def test_the_turned_revolute_pendulum_runs_as_the_upright_one(registry):
    law = registry.create("friction", "coulomb", dict(mu=0.1))
    plain = mechanism(law, joint="revolute")
    Q = _turn()
    b, j = plain.bodies[0], plain.joints[0]
    turned = dataclasses.replace(
        plain, gravity=tuple(Q @ np.asarray(plain.gravity)),
        bodies=(dataclasses.replace(b, position=tuple(Q @ np.asarray(b.position)),
                                    quaternion=tuple(from_matrix(Q @ rotation_matrix(b.quaternion)))),),
        joints=(dataclasses.replace(j, axis_i=tuple(Q @ np.asarray(j.axis_i))),))
    s = Settings(t_end=0.1, output_step=0.01, rtol=1e-10, atol=1e-12)
    a, t = solver.simulate(plain, s), solver.simulate(turned, s)
    assert t.stats["reference_fallbacks"] == 0 and t.stats["loop"] == "compiled"
    g = t.extras["contact_load"][:, 0, 2:]
    assert 0 < np.abs(g).max() < 1e-10 * t.extras["contact_load"][:, 0, :2].sum(axis=1).min()  # round-off
    xa = np.array([rotation_matrix(q)[:, 0] for q in a.position[:, 0, 3:]])
    xt = np.array([Q.T @ rotation_matrix(q)[:, 0] for q in t.position[:, 0, 3:]])
    print(f"\nturned revolute pendulum: |d x| {np.abs(xa - xt).max():.2g}, |d E_diss| "
          f"{np.abs(a.dissipated_energy - t.dissipated_energy).max():.2g} J, rhs {t.stats['rhs_calls']}")
    # the same motion to the digits the Qi pendulum tests ask (test_qi_pendulum.py: angle 1e-9 rad,
    # energies and friction 1e-8 relative); measured 8.8e-15 and 1.4e-11 (the two runs take
    # different steps at rtol 1e-10: the error norm sees other components)
    assert np.abs(xa - xt).max() < 1e-9
    assert np.abs(a.dissipated_energy - t.dissipated_energy).max() < 1e-8 * a.dissipated_energy.max()
    m = a.extras["friction_moment"][:, 0, 0]
    assert np.abs(t.extras["friction_moment"][:, 0, 0] - m).max() < 1e-8 * np.abs(m).max()
