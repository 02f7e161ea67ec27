"""Set-valued Coulomb friction in ideal revolute joints (the friction circle), event-driven
(workbench.nonsmooth.pins, workbench.nonsmooth.event_driven).

Closed forms:

* **Driven or loaded pin.**  A disc pinned at its centre under a load ``F`` through the centre
  (the pin force is ``F`` whatever the friction: the centre does not move) and a torque ``T``:
  below breakaway, ``T <= mu_s r F``, it sticks and the friction moment is ``-T``; above, it slips
  with ``J phi'' = T - mu r F`` (friction circle, Qi, Luo & Huang (2009) eq. 53).  Turned at a
  constant speed by a driver it needs ``mu r F``.
* **Pendulum coming to rest.**  A physical pendulum (rod angle ``phi``, centre of mass at ``l``
  from the pivot) released from rest swings with the friction moment ``mu r |lambda|`` against
  it, ``|lambda|`` the pin force from Newton-Euler; at each reversal (``phi' = 0``) it sticks for
  good when the moment that holds it, ``m g l |cos phi|`` (with ``phi'' = 0`` the pin force is the
  weight), is within the static friction circle ``mu_s r m g``: it comes to rest at the first
  reversal with ``|cos phi| <= mu_s r / l``.  The swings between are checked against an
  independent one-coordinate Newton-Euler solution (tests/reference/pendulum_pin_friction.py).
* **Regularised limit.**  The compiled fast path with ``tanh(v / v_eps)`` converges to the
  set-valued run as ``v_eps -> 0`` (rate measured below, about 1).
"""
from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from workbench.mbs.mechanism import (Body, ConstantForce, ConstantTorque, Driver, DriverFunction,
                                     Mechanism, RevoluteJoint)
from workbench.mbs.solution import SolverSettings
from workbench.nonsmooth.dataset import simulate
from workbench.nonsmooth.event_driven import EV_REVERSAL, EV_STICK, SLIP_POS, STICK, System
from workbench.plugins import build_registry

sys.path.insert(0, str(Path(__file__).parents[1] / "reference"))
from pendulum_pin_friction import Pendulum, solve  # noqa: E402

REG = build_registry()
ROOT = Path(__file__).resolve().parents[2]


def set_valued(mu, mu_s=None):
    return REG.create("friction", "coulomb_set_valued", {"mu": mu, "mu_static": mu_s})


def disc(law, r, F, omega=None, torque=0.0):
    """A disc (1 kg, 0.01 kg m^2) pinned at its centre under a downward load ``F`` [N] at the
    centre; driven at ``omega`` [rad/s] or free under ``torque`` [N m]; no gravity."""
    body = Body("disc", 1.0, 0.01, points={"C": (0.0, 0.0)})
    j = RevoluteJoint("pin", "ground", "O", "disc", "C", friction=law, pin_radius=r)
    drv = (Driver("motor", "disc", DriverFunction(polynomial=(0.0, omega))),) if omega is not None else ()
    forces = (ConstantForce("load", "disc", (0.0, -F)),) + ((ConstantTorque("push", "disc", torque),)
                                                           if torque else ())
    return Mechanism((body,), (j,), drv, forces, (), {"O": (0.0, 0.0)}, (0.0, 0.0))


def test_pin_sticks_below_breakaway_and_slips_above_with_mu_r_F():
    mu, mu_s, r, F = 0.2, 0.25, 0.02, 500.0
    law = set_valued(mu, mu_s)
    # driven at a constant speed: the moment mu r F, either way
    for omega in (3.0, -3.0):
        sim, run, smp = simulate(disc(law, r, F, omega=omega), SolverSettings(t_end=0.05, output_step=0.01))
        np.testing.assert_allclose(sim.driver_load[:, 0], math.copysign(mu * r * F, omega), rtol=1e-12)
        np.testing.assert_allclose(smp["N"][:, 0], F, rtol=1e-12)
    # free under a torque: below breakaway it sticks, holding -T; above it slips
    T = 0.9 * mu_s * r * F
    sim, run, smp = simulate(disc(law, r, F, torque=T), SolverSettings(t_end=0.1, output_step=0.02))
    assert np.all(smp["mode"][:, 0] == STICK) and np.all(sim.position[:, 0, 2] == 0.0)
    np.testing.assert_allclose(r * smp["F"][:, 0], -T, rtol=1e-12)
    T = 1.1 * mu_s * r * F
    sim, run, smp = simulate(disc(law, r, F, torque=T), SolverSettings(t_end=0.1, output_step=0.02))
    assert np.all(smp["mode"][:, 0] == SLIP_POS)
    np.testing.assert_allclose(sim.position[:, 0, 2], 0.5 * (T - mu * r * F) / 0.01 * sim.time ** 2,
                               rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(r * smp["F"][:, 0], -mu * r * F, rtol=1e-12)


def pendulum(p: Pendulum, phi0: float, law) -> Mechanism:
    rod = Body("rod", p.m, p.Jc, position=(p.l * math.cos(phi0), p.l * math.sin(phi0)), angle=phi0,
               points={"O": (-p.l, 0.0)})
    j = RevoluteJoint("pivot", "ground", "O", "rod", "O", friction=law, pin_radius=p.r)
    return Mechanism((rod,), (j,), (), (), (), {"O": (0.0, 0.0)}, (0.0, -p.g))


P = Pendulum()
PHI0 = -math.pi / 2 + 0.6      # 0.6 rad from hanging straight down


@pytest.fixture(scope="module")
def pendulum_run():
    sim, run, smp = simulate(pendulum(P, PHI0, set_valued(P.mu, P.mu_s)),
                             SolverSettings(t_end=4.0, output_step=0.005, rtol=1e-11, atol=1e-12))
    return sim, run, smp


def test_pendulum_comes_to_rest_where_the_friction_circle_says(pendulum_run):
    sim, run, smp = pendulum_run
    ref, t_rest = solve(P, PHI0, 4.0)
    assert t_rest is not None and len(ref) >= 3        # it swings a few times, then sticks
    rev = [(t, k) for (t, j, k, _) in run.events]
    assert [k for _, k in rev] == [EV_REVERSAL] * (len(ref) - 1) + [EV_STICK]
    np.testing.assert_allclose([t for t, _ in rev], [t for t, _ in ref], rtol=0, atol=1e-8)
    # the angles at the reversals: the engine's dense output at the event times
    phi_ev = [run.phases[i + 1].sol(run.phases[i + 1].t0)[2] for i in range(len(ref))]
    np.testing.assert_allclose(phi_ev, [a for _, a in ref], rtol=0, atol=1e-9)
    # at rest inside the static friction circle; the one before it was outside
    phi_rest = ref[-1][1]
    assert abs(math.cos(phi_rest)) <= P.mu_s * P.r / P.l < abs(math.cos(ref[-2][1]))
    after = sim.time > t_rest + 1e-6
    np.testing.assert_allclose(sim.position[after, 0, 2], phi_rest, rtol=0, atol=1e-9)
    assert np.all(smp["mode"][after, 0] == STICK)
    # the books: what the pendulum lost, the pin's friction dissipated
    E = sim.kinetic_energy + sim.potential_energy
    np.testing.assert_allclose(E + sim.dissipated_energy, E[0], rtol=0, atol=1e-8 * abs(E[0] - E[-1]))


def test_regularised_fast_path_converges_to_the_set_valued_pendulum(pendulum_run):
    """The compiled fast path with ``coulomb`` (tanh) friction in the pin, ``v_eps`` 1e-3 ... 1e-5
    m/s, over the first swing (the regularised law cannot stick: it creeps after the last
    reversal, so the comparison stops before the first one).  The error is ``O(v_eps)``: below
    ``v_eps`` the regularised friction is short of ``mu r |lambda|``, which costs the swing an
    impulse proportional to the time spent there, ``~ v_eps / (r |phi''|)``."""
    from workbench.mbs.solver import simulate as fast
    sim, run, _ = pendulum_run
    t_rev = run.events[0][0]
    keep = sim.time < 0.9 * t_rev
    errs = []
    for v_eps in (1e-3, 1e-4, 1e-5):
        law = REG.create("friction", "coulomb", {"mu": P.mu, "v_eps": v_eps})
        reg = fast(pendulum(P, PHI0, law), SolverSettings(t_end=float(sim.time[keep][-1]), output_step=0.005,
                                                          rtol=1e-11, atol=1e-13))
        errs.append(np.abs(reg.position[:, 0, 2] - sim.position[keep][:len(reg.time), 0, 2]).max())
    rates = [math.log10(errs[i] / errs[i + 1]) for i in range(2)]
    print("pendulum, regularised -> set-valued: max |phi error| over the first swing "
          + ", ".join(f"{e:.2e}" for e in errs) + " rad at v_eps 1e-3, 1e-4, 1e-5 m/s; rates "
          + ", ".join(f"{r:.2f}" for r in rates))
    assert errs[0] > errs[1] > errs[2]
    assert all(0.8 < r < 1.3 for r in rates)


def test_mode_enumeration_keeps_the_one_consistent_mode():
    """At rest with a torque below breakaway only stick is consistent; above it, only the slip
    the torque drives (slip the other way would need friction driving the motion); the load of a
    slipping pin is the fixed point ``n = |lambda(n)|`` Newton closes."""
    mu, mu_s, r, F = 0.2, 0.25, 0.02, 500.0
    for T, want in ((0.99 * mu_s * r * F, [STICK]), (1.01 * mu_s * r * F, [SLIP_POS])):
        s = System(disc(set_valued(mu, mu_s), r, F, torque=T))
        modes, _ = s.choose(0.0, s.q0, s.qd0)
        assert modes == want
    # a pin whose load feeds back on its friction: the pendulum at its release, in slip
    # (swinging at w = 2 rad/s: the centripetal part of the load), against the one-coordinate
    # Newton-Euler reference
    s = System(pendulum(P, PHI0, set_valued(P.mu, P.mu_s)))
    w = 2.0
    qd = np.array([-w * P.l * math.sin(PHI0), w * P.l * math.cos(PHI0), w])
    e = s.evaluate(0.0, s.q0, qd, [SLIP_POS], np.ones(1))
    lam = e["lam"][:2]
    np.testing.assert_allclose(e["N"][0], np.hypot(*lam), rtol=1e-13)
    np.testing.assert_allclose(e["F"][0], -P.mu * np.hypot(*lam), rtol=1e-13)
    np.testing.assert_allclose(e["qdd"][2], P.accel(PHI0, w), rtol=1e-10)
    np.testing.assert_allclose(np.hypot(*lam), P.load(PHI0, w, P.accel(PHI0, w)), rtol=1e-10)


def test_pendulum_study_validates_and_runs_from_the_cli(tmp_path):
    """``workbench validate`` and ``workbench run`` of the shipped study, through the command line
    in this process (two child processes until the default suite had to get back under 8 minutes
    on 2 cores: their start-up is no part of the check)."""
    from click.testing import CliRunner
    from workbench.cli.main import main
    study = ROOT / "studies" / "pendulum_pin_friction.toml"
    v = CliRunner().invoke(main, ["validate", str(study)], env={"COLUMNS": "250"})
    assert v.exit_code == 0, v.output
    out = tmp_path / "pendulum.nc"
    r = CliRunner().invoke(main, ["run", str(study), "-o", str(out), "--no-plot"], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    import xarray as xr
    ds = xr.open_dataset(out, engine="h5netcdf").load()
    assert ds.attrs["solver"] == "event_driven"
    kinds = [int(k) for k in ds["event_kind"].values]
    assert kinds[-1] == EV_STICK and set(kinds[:-1]) == {EV_REVERSAL}
    assert set(ds["event_joint"].values) == {"pivot"}
    assert "joint_friction_moment" in ds and ds["joint_friction_moment"].attrs["units"] == "N m"


def test_enumeration_agrees_with_the_hlcp_on_translational_joints():
    """The enumeration of :func:`workbench.nonsmooth.pins.choose_enumerated` (modes and sides by
    brute force, used when pins carry set-valued friction) chooses what the HLCP path of Wang, Wang
    & Zhuang chooses on the free crank-rocker (one translational joint, stick and slip phases),
    at states along its run and at the states of its events."""
    from workbench.nonsmooth.phases import integrate, sample
    from workbench.nonsmooth.pins import choose_enumerated
    from workbench.study.load import load_study
    s = System(load_study(ROOT / "studies" / "crank_rocker_free.toml").mechanism)
    run = integrate(s, 3.5)
    n = s.n
    states = [(float(t), y) for t, y in zip(np.linspace(0.1, 3.4, 12),
                                             sample(run, np.linspace(0.1, 3.4, 12))["y"])]
    states += [(p.t0, p.sol(p.t0)) for p in run.phases[1:]]
    assert any(EV_STICK == e[2] for e in run.events)      # the run has stick phases
    checked = 0
    for t, y in states:
        q, qd = y[:n], y[n:2 * n]
        m1, s1 = s.choose(t, q, qd)
        scale = max(1.0, float(np.abs(qd).max()))
        m2, s2 = choose_enumerated(s, t, q, qd, (), 1e-9 * scale)
        assert m1 == m2, (t, m1, m2)
        e = s.evaluate(t, q, qd, m1, s1)
        # the side is decided where the normal force is not zero (at a side-switch event both
        # sides solve the degenerate problem and the solver flips it, workbench.nonsmooth.phases)
        if m1[0] != STICK and abs(e["N"][0]) > 1e-6 * np.abs(e["lam"]).max():
            assert s1[0] == s2[0], (t, s1, s2)
            checked += 1
    assert checked >= 8


def test_pendulum_on_an_accelerating_hub_breaks_away_where_the_friction_circle_says():
    """Stick -> slip of a pin: the pendulum hangs from a hub (pinned, frictionless, to the ground
    at the same point) through a pin with set-valued friction; the hub is driven from rest with a
    constant angular acceleration ``alpha``.  While the pin sticks the rod turns with the hub,
    ``phi = phi0 + alpha t^2 / 2``, and the pin must supply the moment ``J_O alpha + m g l cos phi``
    (moments about the pivot) with the load ``|lambda| = m |a_c - g|`` (``a_c`` the centre of mass's
    acceleration at ``phi' = alpha t``, ``phi'' = alpha``): it breaks away at the first ``t`` with
    ``|J_O alpha + m g l cos phi| = mu_s r |lambda|``, and then slips backwards (the rod lags)."""
    from scipy.optimize import brentq

    from workbench.nonsmooth.event_driven import EV_BREAKAWAY, SLIP_NEG
    alpha, phi0 = 1.0, -math.pi / 2
    hub = Body("hub", 1.0, 0.01, angle=phi0, points={"O": (0.0, 0.0)})
    rod = Body("rod", P.m, P.Jc, position=(0.0, -P.l), angle=phi0, points={"O": (-P.l, 0.0)})
    joints = (RevoluteJoint("bearing", "ground", "O", "hub", "O"),
              RevoluteJoint("pivot", "hub", "O", "rod", "O", friction=set_valued(P.mu, P.mu_s),
                            pin_radius=P.r))
    drv = (Driver("spin", "hub", DriverFunction(polynomial=(phi0, 0.0, 0.5 * alpha))),)
    mech = Mechanism((hub, rod), joints, drv, (), (), {"O": (0.0, 0.0)}, (0.0, -P.g))

    def margin(t):
        phi = phi0 + 0.5 * alpha * t * t
        need = P.JO * alpha + P.m * P.g * P.l * math.cos(phi)
        return P.mu_s * P.r * P.load(phi, alpha * t, alpha) - abs(need)
    assert margin(0.0) > 0.0
    t_b = brentq(margin, 0.0, 1.0, xtol=1e-14)
    sim, run, smp = simulate(mech, SolverSettings(t_end=t_b + 0.05, output_step=0.01, rtol=1e-11,
                                                  atol=1e-12))
    assert smp["mode"][0, 0] == STICK
    (t_ev, k, kind, N), *_ = run.events
    assert kind == EV_BREAKAWAY
    np.testing.assert_allclose(t_ev, t_b, rtol=0, atol=1e-8)
    assert run.phases[1].modes == [SLIP_NEG]
    before = sim.time < t_b
    np.testing.assert_allclose(sim.position[before, 1, 2], phi0 + 0.5 * alpha * sim.time[before] ** 2,
                               rtol=0, atol=1e-9)


def test_a_pin_and_a_translational_joint_together_each_follow_their_closed_form():
    """The stick-slip oscillator (a block dragged by a belt through a translational joint with
    set-valued friction) and, in the same mechanism, the pendulum with pin friction: the modes and
    sides are then chosen by the enumeration (frictional pins present), and each subsystem must
    still follow its own solution: the oscillator's closed form (tests/reference/
    stick_slip_oscillator.py) and the pendulum's reversals (tests/reference/pendulum_pin_friction.py)."""
    from stick_slip_oscillator import Oscillator, solve as osc_solve

    from workbench.study.load import load_study
    study = load_study(ROOT / "studies" / "stick_slip_oscillator.toml")
    g = -study.mechanism.gravity[1]
    p = replace(P, g=g)
    pend = pendulum(p, PHI0, set_valued(p.mu, p.mu_s))
    m = study.mechanism
    mech = replace(m, bodies=m.bodies + pend.bodies, joints=m.joints + pend.joints,
                   ground_points={**m.ground_points, "P": (0.0, 0.0)})
    mech = replace(mech, joints=tuple(replace(j, point_i="P") if j.name == "pivot" else j for j in mech.joints))
    s = replace(study.solver, t_end=2.0)
    sim, run, smp = simulate(mech, s)
    assert System(mech).nt == 1 and System(mech).nf == 2
    xr, vr, _ = osc_solve(Oscillator(), 0.0, 0.0, sim.time)
    assert np.abs(sim.position[:, 1, 0] - xr).max() < 1e-8
    assert np.abs(sim.velocity[:, 1, 0] - vr).max() < 1e-7
    ref, t_rest = solve(p, PHI0, 2.0)
    pin_events = [e for e in run.events if e[1] == 1]
    assert len(pin_events) == len(ref) >= 2
    np.testing.assert_allclose([e[0] for e in pin_events], [t for t, _ in ref], rtol=0, atol=1e-8)
