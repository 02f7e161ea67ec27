"""The independent Newton-Euler crank-rocker (tests/reference/crank_rocker_newton_euler.py):
the findings of Wang, Wang & Zhuang §4 and its energy books, so the oracle itself is checked."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import trapezoid

sys.path.insert(0, str(Path(__file__).parents[1] / "reference"))
from crank_rocker_newton_euler import CrankRocker, driven, free  # noqa: E402

OMEGA = 3.0   # rad/s, the paper's crank speed


def test_rocker_acceleration_vanishes_at_0_and_pi():
    # Wang, Wang & Zhuang Fig. 4: the rocker's angular acceleration is zero at theta2 = 0 and pi.
    d = driven(CrankRocker(), OMEGA, np.array([0.0, math.pi, 2 * math.pi]))
    np.testing.assert_allclose(d.theta1_ddot, 0.0, atol=1e-12)
    assert abs(driven(CrankRocker(), OMEGA, np.array([1.0])).theta1_ddot[0]) > 0.1


def test_friction_jumps_at_slip_reversal_with_damper_only():
    # Wang, Wang & Zhuang Fig. 6: with c = 8 N m s/rad, lambda != 0 at theta2 = pi while the slip
    # velocity reverses, so Ff jumps by 2 mu |lambda|; with c = 0, lambda = 0 there (no jump).
    for c, jumps in ((8.0, True), (0.0, False)):
        m = CrankRocker(c=c)
        before = driven(m, OMEGA, np.array([math.pi]), slip_sign=-1.0)
        after = driven(m, OMEGA, np.array([math.pi]), slip_sign=1.0)
        jump = abs(after.friction_force[0] - before.friction_force[0])
        if jumps:
            assert jump == pytest.approx(2 * m.mu * abs(before.normal_force[0]), rel=1e-12)
            assert jump > 1.0
        else:
            assert jump < 1e-10


@pytest.mark.parametrize("c,g", [(0.0, 0.0), (8.0, 0.0), (8.0, 9.80665)])
def test_driven_energy_books(c, g):
    # Over one crank revolution the kinetic and potential energies return: the drive's work
    # equals the friction and damper dissipation.
    m = CrankRocker(c=c, g=g)
    th2 = np.linspace(0.0, 2 * math.pi, 400001)
    d = driven(m, OMEGA, th2)
    t = th2 / OMEGA
    drive = trapezoid(d.driving_moment * OMEGA, t)
    friction = trapezoid(np.abs(d.friction_force * d.slip_velocity), t)
    damper = trapezoid(c * d.theta1_dot ** 2, t)
    assert drive == pytest.approx(friction + damper, rel=1e-6)
    assert friction > 0.0


def _energy(m, th2, w2):
    th1, f1, f2, r, dr = m.kinematics(th2)
    kin = 0.5 * m.J1 * (f1 * w2) ** 2 + 0.5 * (m.J2 + m.m3 * m.L3 ** 2) * w2 ** 2
    pot = m.g * (m.m1 * m.L1 * np.cos(th1) + (m.m2 * m.L2 + m.m3 * m.L3) * (m.L4 + 0 * th2)
                 + (m.m2 * m.L2 + m.m3 * m.L3) * np.cos(th2))
    return kin + pot


def test_free_crank_sticks_and_keeps_its_energy_books():
    # Released under gravity, the free crank (one degree of freedom) swings, loses energy to
    # friction and the damper, and sticks where static friction holds it (Coulomb's set-valued law).
    m = CrankRocker(c=0.5, g=9.80665, mu=0.2, mu0=0.3)
    sol = free(m, 1.0, 0.0, 10.0, samples=200001)
    assert sol.stuck_at is not None and sol.stuck_at < 10.0
    kinds = [k for _, k, _ in sol.events]
    assert "turning" in kinds and kinds[-1] == "stick"
    # energy books along the motion: E(0) - E(t) = friction + damper work
    moving = sol.t <= sol.stuck_at
    t, th2, w2 = sol.t[moving], sol.theta2[moving], sol.theta2_dot[moving]
    th1, f1, f2, r, dr = m.kinematics(th2)
    lam_ff = []
    from crank_rocker_newton_euler import _slip_accel
    for a, b in zip(th2, w2):
        s = math.copysign(1.0, m.kinematics(a)[4] * b) if abs(m.kinematics(a)[4] * b) > 0 else 1.0
        sols = _slip_accel(m, a, b, s)
        lam_ff.append(m.mu * abs(sols[0][1]) if sols else 0.0)
    diss = np.cumsum(np.r_[0.0, np.diff(t) * 0.5 * (
        (np.array(lam_ff) * np.abs(dr * w2) + m.c * (f1 * w2) ** 2)[1:]
        + (np.array(lam_ff) * np.abs(dr * w2) + m.c * (f1 * w2) ** 2)[:-1])])
    e = _energy(m, th2, w2)
    assert np.max(np.abs(e[0] - e - diss)) < 1e-5 * (e[0] - e.min())
