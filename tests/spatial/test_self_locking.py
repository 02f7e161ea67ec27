"""Self-locking of a universal joint whose two journals both slip (Qi, Luo & Huang (2009)
eqs. 54-58; :mod:`workbench.spatial.self_locking`).

The bar of ``universal_bar.py`` released horizontal already turning about both cross axes (journal
radii 0.2 m and 0.1 m, faces 0.1 m apart): each journal carries the other's friction moment across
its faces, so the contact loads grow with the friction they cause.  The independent reference
``tests/reference/qi_universal_selflock.py`` (Newton-Euler about the fixed point, no workbench)
gives the critical coefficient ``mu*`` where the consistent friction runs to infinity.

Default suite: the workbench's loop closes just below ``mu*`` and fails just above it, its fault
names ``mu*``, and below it its friction is the reference's fixed point.  Slow: the brute-force
count of the reference's fixed points on either side of ``mu*`` (none above it).
"""
from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE)); sys.path.insert(0, str(HERE.parent / "reference"))
from universal_bar import mechanism  # noqa: E402

from workbench.errors import MechanismError  # noqa: E402
from workbench.spatial import stick  # noqa: E402
from workbench.spatial.solver import initial_state  # noqa: E402

R1, R2, C = 0.2, 0.1, 0.05       # journal radii [m], half their end-face distance [m]
OMEGA = (0.0, 1.0, -1.0)         # rad/s (world): -1 about a = z (swinging down), 1 about b = y (out)


@pytest.fixture(scope="module")
def registry():
    from workbench.plugins import build_registry
    return build_registry()


@pytest.fixture(scope="module")
def reference():
    from qi_universal_selflock import Joint
    from qi_universal_stick import UBar
    # the workbench's state: omega_1 = omega . a = -1 rad/s, omega_2 = omega . b = 1 rad/s
    return Joint(UBar(R1=R1, R2=R2, c1=C, c2=C, psi=0.0), 0.0, 0.0, OMEGA[2], OMEGA[1])


@pytest.fixture(scope="module")
def mu_star(reference):
    from qi_universal_selflock import critical_mu
    return critical_mu(reference)


def _friction_at_release(registry, mu):
    """The friction moments ``(m1, m2)`` [N m] of the right-hand side at t = 0, both journals slipping."""
    m = mechanism(registry.create("friction", "coulomb_set_valued", dict(mu=mu)), phi=0.0, psi=0.0, R1=R1, R2=R2)
    b = m.bodies[0]
    w = np.asarray(OMEGA, float)
    b = dataclasses.replace(b, angular_velocity=tuple(w), velocity=tuple(np.cross(w, np.asarray(b.position))))
    ss = stick.StickSlip(dataclasses.replace(m, bodies=(b,)), 0.0, 0.0)
    _, out = ss.model({}, {}).dynamics(0.0, initial_state(ss.base, 0.0), 0.0, 0.0, record=True)
    return out["friction"][0, 1:]


def test_the_loop_fails_exactly_where_the_reference_joint_self_locks(registry, mu_star):
    # the consistent friction at 1e-6 below mu* is ~3e5 times the frictionless load's moment (6e6 N m); the
    # loop closes there and fails 1e-6 above it (measured: the workbench's threshold is mu* to 2e-10)
    assert 0.34 < mu_star < 0.35
    m = _friction_at_release(registry, mu_star * (1 - 1e-6))
    assert np.all(np.isfinite(m)) and np.abs(m).max() > 1e3
    with pytest.raises(MechanismError) as err:
        _friction_at_release(registry, mu_star * (1 + 1e-6))
    msg = str(err.value)
    assert "self-locking" in msg and "'cross'" in msg and "Lower the friction coefficient" in msg
    stated = float(re.search(r"'cross': mu = ([0-9.eE+-]+)", msg).group(1))
    # the fault's critical coefficient (its own scaled-law search, 7 digits) against the reference
    assert abs(stated - mu_star) < 1e-6 * mu_star
    # the gain per pass just above mu* is just above 1
    gain = float(re.search(r"cause by ([0-9.]+) per pass", msg).group(1))
    assert 1.0 <= gain < 1.001


@pytest.mark.parametrize("mu", [0.2, 0.3])
def test_below_the_critical_coefficient_the_loop_finds_the_reference_friction(registry, reference, mu):
    from qi_universal_selflock import fixed_point
    m = _friction_at_release(registry, mu)
    x = fixed_point(reference, mu)
    # journal 1 slips with omega_1 < 0: its friction moment is positive; journal 2's negative
    assert m[0] > 0 > m[1]
    assert np.allclose(np.abs(m), x, rtol=1e-9)


def test_mu_half_the_issue_case_names_its_critical_coefficient(registry, mu_star):
    with pytest.raises(MechanismError) as err:
        _friction_at_release(registry, 0.5)
    msg = str(err.value)
    assert "t = 0 s" in msg and "self-locking" in msg and "(now 0.5)" in msg
    assert float(re.search(r"cause by ([0-9.]+) per pass", msg).group(1)) > 1.3


@pytest.mark.slow   # ~1 min (brute force over a polar grid); the default suite keeps
#                     test_the_loop_fails_exactly_where_the_reference_joint_self_locks
def test_the_reference_has_one_consistent_friction_below_mu_star_and_none_above(reference, mu_star):
    from qi_universal_selflock import fixed_points
    for mu in (0.1, 0.3, 0.99 * mu_star):
        assert len(fixed_points(reference, mu, n_r=30, n_t=12)) == 1
    for mu in (1.01 * mu_star, 0.5, 0.6):
        assert fixed_points(reference, mu, n_r=30, n_t=12) == []
