"""The event-driven solver with set-valued Coulomb friction on Wang, Wang & Zhuang's crank-rocker.

Oracle: the independent Newton-Euler solution tests/reference/crank_rocker_newton_euler.py
(closed form for the driven crank, DOP853 between events for the free one).  Also the paper's
findings (their Figs 4-6 and §4): zero rocker acceleration at theta2 = 0 and pi, the friction
jump 2 mu |lambda| where the slip reverses with the damper, Baumgarte's alpha, beta > 1 holding
the constraints where alpha = beta = 0 drifts; and the energy books.
"""
import dataclasses
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.study.load import load_study
from workbench.nonsmooth.dataset import simulate
from workbench.nonsmooth.event_driven import EV_REVERSAL, EV_STICK
from workbench.nonsmooth.phases import sample

sys.path.insert(0, str(Path(__file__).parents[1] / "reference"))
from crank_rocker_newton_euler import CrankRocker, driven, free  # noqa: E402

STUDIES = Path(__file__).parents[2] / "studies"
OMEGA = 3.0   # rad/s


@pytest.fixture(scope="module", params=[0.0, 8.0], ids=["c0", "c8"])
def driven_run(request):
    c = request.param
    name = "crank_rocker_friction.toml" if c == 0.0 else "crank_rocker_friction_damped.toml"
    study = load_study(STUDIES / name)
    sim, run, smp = simulate(study.mechanism, study.solver)
    return c, study, sim, run, smp


def _angles(sim):
    """theta1, theta1'' (rocker) and theta2 (crank) [rad, rad/s^2]: theta = pi/2 - phi."""
    return (math.pi / 2 - sim.position[:, 0, 2], -sim.acceleration[:, 0, 2],
            math.pi / 2 - sim.position[:, 1, 2])


def test_driven_crank_matches_newton_euler(driven_run):
    c, study, sim, run, smp = driven_run
    th1, th1dd, th2 = _angles(sim)
    np.testing.assert_allclose(th2, OMEGA * sim.time, atol=1e-9)
    ref = driven(CrankRocker(c=c), OMEGA, th2)
    # at theta2 = 0 (t = 0) the slip speed is zero and the reference's sgn(0) = 0: compare where
    # the slip direction is defined
    away = np.abs(np.sin(th2)) > 1e-6
    err = {"theta1": np.abs(th1 - ref.theta1).max(),
           "theta1_ddot": np.abs(th1dd - ref.theta1_ddot).max(),
           "friction": np.abs(smp["F"][away, 0] - ref.friction_force[away]).max(),
           "normal": np.abs(smp["N"][:, 0] - ref.normal_force).max(),
           "moment": np.abs(-sim.driver_load[away, 0] - ref.driving_moment[away]).max()}
    # tolerances: rtol 1e-10 of the integration on quantities of size 0.5 rad, 12 rad/s^2,
    # 30 N, 150 N and 70 N m
    assert err["theta1"] < 1e-8, err
    assert err["theta1_ddot"] < 1e-6, err
    assert err["friction"] < 1e-6, err
    assert err["normal"] < 1e-5, err
    assert err["moment"] < 1e-5, err
    # friction really acts: kinetic Coulomb at every sample away from the reversals
    np.testing.assert_allclose(np.abs(smp["F"][away, 0]), 0.2 * np.abs(smp["N"][away, 0]), rtol=1e-12)


def test_rocker_acceleration_zero_at_reversals_and_friction_jump(driven_run):
    # Wang, Wang & Zhuang Fig. 4 and Fig. 6: at theta2 = 0 and pi the rocker's angular
    # acceleration is zero while the slip reverses; with the damper lambda != 0 there, so the
    # friction force jumps by 2 mu |lambda|.
    c, study, sim, run, smp = driven_run
    rev = [e for e in run.events if e[2] == EV_REVERSAL]
    assert len(rev) == 4       # theta2 = pi, 2 pi, 3 pi, 4 pi (the end) within two revolutions
    np.testing.assert_allclose([e[0] for e in rev[:3]], [k * math.pi / OMEGA for k in (1, 2, 3)],
                               atol=1e-9)
    for t_ev, _, _, lam in rev[:3]:
        after = sample(run, np.array([t_ev]))
        before = sample(run, np.array([np.nextafter(t_ev, 0.0)]))
        assert abs(after["qdd"][0, 2]) < 1e-7             # rocker phi'' = -theta1''
        jump = abs(after["F"][0, 0] - before["F"][0, 0])
        if c == 0.0:
            assert abs(lam) < 1e-7 and jump < 1e-6
        else:
            # lambda = -c theta1' / r at theta1'' = 0 (rocker equation)
            th2 = OMEGA * t_ev
            _, f1, _, r, _ = CrankRocker().kinematics(th2)
            assert abs(lam) == pytest.approx(c * abs(f1 * OMEGA) / r, rel=1e-6)
            assert jump == pytest.approx(2 * 0.2 * abs(lam), rel=1e-6)
            assert jump > 1.0


def test_energy_books(driven_run):
    # drive work = kinetic energy change + friction dissipation + damper dissipation
    c, study, sim, run, smp = driven_run
    W, KE, D = sim.driver_work, sim.kinetic_energy, sim.dissipated_energy
    residual = np.abs(W - (KE - KE[0]) - D).max()
    assert residual < 1e-7 * np.abs(W).max(), residual
    assert D[-1] > 10.0            # J: friction (and the damper) really dissipate
    assert np.all(np.diff(D) >= -1e-12)
    assert sim.drift_position.max() < 1e-8 and sim.drift_velocity.max() < 1e-7


def test_slider_inertia_split_does_not_matter():
    # The particle slider turns with the rocker, so its inertia adds to the rocker's; with the
    # rocker's reduced by the same amount the equations are the same whatever the split.
    study = load_study(STUDIES / "crank_rocker_friction_damped.toml")
    settings = dataclasses.replace(study.solver, t_end=1.2, output_step=0.01)
    out = []
    for share in (1e-4, 1e-1):
        bodies = list(study.mechanism.bodies)
        bodies[0] = dataclasses.replace(bodies[0], inertia=4.0 / 3.0 - share)
        bodies[2] = dataclasses.replace(bodies[2], inertia=share)
        mech = dataclasses.replace(study.mechanism, bodies=tuple(bodies))
        sim, run, smp = simulate(mech, settings)
        out.append((smp["N"][:, 0], smp["F"][:, 0], sim.driver_load[:, 0]))
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, atol=1e-6 * np.abs(b).max())


@pytest.fixture(scope="module")
def free_study():
    return load_study(STUDIES / "crank_rocker_free.toml")


def test_free_crank_sticks_like_newton_euler(free_study):
    sim, run, smp = simulate(free_study.mechanism, free_study.solver)
    th2 = math.pi / 2 - sim.position[:, 1, 2]
    ref = free(CrankRocker(g=9.81), math.pi - 2.0, 0.0, free_study.solver.t_end, samples=len(sim.time))
    np.testing.assert_allclose(ref.t, sim.time, atol=1e-12)
    assert np.abs(th2 - ref.theta2).max() < 1e-7
    sticks = [e for e in run.events if e[2] == EV_STICK]
    assert len(sticks) == 1 and sticks[0][0] == pytest.approx(ref.stuck_at, abs=1e-7)
    # the two turning points before it slip on (reversals), as in the reference
    turning = [e[0] for e in ref.events if e[1] == "turning"]
    revs = [e[0] for e in run.events if e[2] == EV_REVERSAL]
    np.testing.assert_allclose(revs, turning[:2], atol=1e-7)
    # stuck: at rest, the needed friction within mu_static |lambda|
    after = sim.time > ref.stuck_at + 1e-3
    assert np.abs(sim.velocity[after]).max() < 1e-9
    assert np.all(np.abs(smp["F"][after, 0]) <= 0.2 * np.abs(smp["N"][after, 0]) + 1e-12)
    # energy: no drive, so the potential and kinetic energy lost is what friction dissipated
    books = (sim.kinetic_energy - sim.kinetic_energy[0] + sim.potential_energy
             - sim.potential_energy[0] + sim.dissipated_energy)
    assert np.abs(books).max() < 1e-7 and sim.dissipated_energy[-1] > 1.0


def test_baumgarte_alpha_beta_hold_the_constraints(free_study):
    # Wang, Wang & Zhuang §4: alpha, beta > 1 at h <= 1e-3 hold the constraints, alpha = beta = 0
    # drifts.  RK23 with tolerances loose enough that the step is h = 1e-3 throughout, so the
    # truncation error of each step feeds the drift.
    drift = {}
    for ab in (0.0, 2.0, 5.0):
        s = dataclasses.replace(free_study.solver, baumgarte_alpha=ab, baumgarte_beta=ab,
                                rtol=1e-2, atol=1e-2, method="RK23", max_step=1e-3,
                                output_step=0.01, t_end=2.5)
        drift[ab] = simulate(free_study.mechanism, s)[0].drift_position
    d0 = drift[0.0]
    n = len(d0)
    # without stabilisation the violation grows (tenfold from 1/8 of the run to its end)
    assert d0[-1] > 1e-7 and d0[-1] > 10 * d0[n // 8]
    for ab in (2.0, 5.0):
        # stabilised: the violation stays bounded, ending two orders below the unstabilised one
        assert drift[ab][-1] < 0.02 * d0[-1] and drift[ab].max() < 0.2 * d0[-1], (ab, drift[ab][-1])
