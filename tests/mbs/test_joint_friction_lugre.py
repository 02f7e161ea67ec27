"""LuGre friction in ideal joints, from their reactions (workbench.mbs.joint_friction).

The law (plugins/friction/lugre.py, normalised by the normal load ``g``): ``dz/dt = v - sigma0 |v| z /
s(v)``, ``s(v) = mu_c + (mu_s - mu_c) exp(-(v/v_s)^2)``, ``f = -(sigma0 z + sigma1 dz/dt + sigma2 v) g``
(Canudas de Wit, Olsson, Åström & Lischinsky (1995)).  Each ideal joint with it owns one bristle
state in the integrated state, after the clearance joints' contact points.

Closed forms:

* **Steady sliding.**  At a constant slip ``v`` the bristle state settles where ``dz/dt = 0``,
  ``z = sgn(v) s(v) / sigma0``, so the force is the Stribeck curve ``-(s(v) sgn v + sigma2 v) g``
  (Canudas de Wit et al. (1995), the steady-state characteristic of the model).  A pin of radius
  ``r`` under a load ``F`` through its centre turning at ``omega`` then needs the moment
  ``r F (s(r omega) sgn omega + sigma2 r omega)``.
* **Pre-sliding.**  A pin under a torque ``T`` below breakaway (``T < mu_s r F``) creeps by the
  bristle deflection only and stops where ``r sigma0 z F = T``.  For a monotonic creep slow against
  ``v_s`` (``s = mu_s``) the state follows the rotation as ``dz/dtheta = r (1 - sigma0 z / mu_s)``, so
  ``z = (mu_s / sigma0) (1 - exp(-sigma0 r theta / mu_s))`` and the pin stops at
  ``theta = -(mu_s / (sigma0 r)) ln(1 - T / (mu_s r F))`` (integrating the law's state equation with
  ``v = r dtheta/dt > 0``).  Above breakaway the pin slides.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from mechanisms import slider_crank
from workbench.errors import MechanismError
from workbench.mbs import joint_friction as JF
from workbench.mbs.compiled import compile_mechanism
from workbench.mbs.mechanism import (Body, ConstantForce, ConstantTorque, Driver, DriverFunction,
                                     Mechanism, RevoluteJoint)
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import simulate
from workbench.plugins import build_registry

REG = build_registry()


def lugre(**kw):
    return REG.create("friction", "lugre", kw)


def pin(law, r, F, omega=None, torque=0.0):
    """A disc (1 kg, 0.01 kg m^2) pinned at its centre to the ground, under a constant force ``F``
    [N] (downwards) at its centre; turned at ``omega`` [rad/s] by a driver, or free under a constant
    ``torque`` [N m]; no gravity."""
    disc = Body("disc", 1.0, 0.01, points={"C": (0.0, 0.0)})
    j = RevoluteJoint("pin", "ground", "O", "disc", "C", friction=law, pin_radius=r)
    drv = (Driver("motor", "disc", DriverFunction(polynomial=(0.0, omega))),) if omega is not None else ()
    forces = (ConstantForce("load", "disc", (0.0, -F)),)
    if torque:
        forces += (ConstantTorque("push", "disc", torque),)
    return Mechanism((disc,), (j,), drv, forces, (), {"O": (0.0, 0.0)}, (0.0, 0.0))


@pytest.mark.parametrize("omega", [0.05, -0.2])   # slip r omega = v_s (on the Stribeck slope), -4 v_s
def test_pin_at_constant_speed_reaches_the_lugre_steady_state_moment(omega):
    law = lugre(sigma0=1e5, sigma1=10.0, sigma2=0.5, mu_c=0.1, mu_s=0.15, v_s=1e-3)
    r, F = 0.02, 500.0
    v = r * omega
    M_ss = r * F * (float(law.stribeck(v)) * math.copysign(1.0, v) + 0.5 * v)
    # the bristle time constant s(v) / (sigma0 |v|) is 1.2 ms (omega = 0.05) or 0.25 ms: 0.04 s
    # is more than 30 of them, the transient (exp(-30)) is gone
    sim = simulate(pin(law, r, F, omega), SolverSettings(t_end=0.04, output_step=0.004))
    np.testing.assert_allclose(sim.driver_load[-1, 0], M_ss, rtol=1e-8)
    # at the start the bristles are relaxed (z = 0): only the damping and viscous terms act
    np.testing.assert_allclose(sim.driver_load[0, 0], r * F * (10.0 + 0.5) * v, rtol=1e-10)
    # the load is the reaction: the friction moment does not feed back into it here
    np.testing.assert_allclose(np.hypot(*sim.joint_reaction[-1, 0]), F, rtol=1e-10)
    assert sim.stats["joint_friction_max_residual_N"] <= JF.RTOL * F + JF.ATOL
    # the reference path (scipy's DOP853 on the same right-hand side) agrees with the fast path
    ref = simulate(pin(law, r, F, omega), SolverSettings(t_end=0.04, output_step=0.004, path="scipy"))
    np.testing.assert_allclose(ref.driver_load[:, 0], sim.driver_load[:, 0], rtol=1e-6)


def test_pin_below_breakaway_creeps_by_the_bristle_deflection_only():
    # v_s = 1 m/s: the creep (~1e-4 m/s) sees s(v) = mu_s to 1e-8; sigma1 large: the creep is
    # overdamped (damping ratio ~7 with the disc's inertia), so monotonic as the closed form assumes
    mu_s, sigma0, r, F = 0.15, 1e5, 0.02, 500.0
    law = lugre(sigma0=sigma0, sigma1=1e3, sigma2=0.0, mu_c=0.1, mu_s=mu_s, v_s=1.0)
    T = 0.5 * mu_s * r * F
    sim = simulate(pin(law, r, F, torque=T), SolverSettings(t_end=0.4, output_step=0.002))
    theta = sim.position[:, 0, 2]
    theta_rest = -(mu_s / (sigma0 * r)) * math.log(1.0 - T / (mu_s * r * F))
    np.testing.assert_allclose(theta[-1], theta_rest, rtol=1e-5)
    assert r * theta[-1] < mu_s / sigma0            # within the largest bristle deflection
    assert np.all(np.diff(theta) >= -1e-9 * theta_rest)   # monotonic creep, no slip back
    assert abs(sim.velocity[-1, 0, 2]) < 1e-6 * theta_rest / 0.01
    # above breakaway the pin slides: far beyond any bristle deflection
    sim = simulate(pin(law, r, F, torque=1.3 * mu_s * r * F), SolverSettings(t_end=0.05, output_step=0.01))
    assert r * sim.position[-1, 0, 2] > 100.0 * mu_s / sigma0


def test_state_slots_follow_the_contact_points_and_laws_with_more_states_are_refused():
    law = lugre()
    # an ideal LuGre pin next to a clearance joint: its slot is after the clearance contact point
    mech = slider_crank(REG.create("contact", "lankarani_nikravesh", {}), lugre())
    mech = replace(mech, joints=tuple(replace(j, friction=law, pin_radius=0.01) if j.name == "crank_rod"
                                      else j for j in mech.joints))
    cm = compile_mechanism(mech)
    n_clr = int(cm.clr_i[:, 4].sum())
    assert n_clr == 1 and cm.n_points == n_clr + 1
    assert cm.joint_friction[0][:, 2].tolist() == [n_clr]
    assert len(cm.model().pt_joint) == cm.n_points
    # memoryless laws take no slot; no joint friction: nothing changes
    coul = REG.create("friction", "coulomb", {"mu": 0.1})
    cm2 = compile_mechanism(replace(mech, joints=tuple(replace(j, friction=coul) if j.friction else j
                                                       for j in mech.joints)))
    assert cm2.n_points == n_clr and cm2.joint_friction[0][:, 2].tolist() == [-1]
    assert compile_mechanism(slider_crank(mech.clearance_joints[0].contact)).n_points == n_clr

    class TwoStates(type(law)):
        n_states = 2
    why = JF.check_law(TwoStates(law.params), "pin")
    assert "2 internal states" in why and "lugre" in why and "coulomb" in why
    with pytest.raises(MechanismError, match="internal states"):
        compile_mechanism(pin(TwoStates(law.params), 0.01, 1.0, 1.0))


@pytest.mark.slow   # four LuGre joints: their integrator compiles (a minute cold) and the bristle
# time constant (microseconds at 5000 rpm) makes ~1e5 steps
def test_slider_crank_crank_moment_lugre_and_coulomb_agree_in_gross_sliding():
    """``studies/slider_crank_joint_friction_lugre.toml`` (LuGre with ``mu_s = mu_c = mu``, no
    viscous term: its steady state is Coulomb's ``mu g sgn v``, in every joint) against
    ``studies/slider_crank_joint_friction.toml`` (the regularised Coulomb law).  Where every joint slides grossly (slip speed above 0.05 m/s, some
    50 bristle time constants' worth of travel per millisecond) the crank moments agree to 0.1 % of
    the moment's range; they differ near the slider's reversals, where LuGre's bristles unload
    and reload (pre-sliding) and the regularised law creeps."""
    from pathlib import Path

    from workbench.study.load import load_study
    root = Path(__file__).resolve().parents[2] / "studies"
    mech = load_study(root / "slider_crank_joint_friction.toml", registry=REG).mechanism
    mech_l = load_study(root / "slider_crank_joint_friction_lugre.toml", registry=REG).mechanism
    assert [j.friction.name for j in mech_l.joints] == ["lugre"] * 4
    assert [j.friction.params.mu_s for j in mech_l.joints] == [0.1] * 4
    t_end = 60.0 / 5000.0
    s = SolverSettings(t_end=t_end, output_step=1e-5, rtol=1e-9, atol=1e-12)
    c = simulate(mech, s)
    lg = simulate(mech_l, s)
    Mc, Ml = c.driver_load[:, 0], lg.driver_load[:, 0]
    # slip speeds of the four joints (pins: r * relative rate; slider: its x velocity)
    w = c.velocity[:, :, 2]
    slip = np.column_stack([0.01 * w[:, 0], 0.01 * (w[:, 1] - w[:, 0]), c.velocity[:, 2, 0],
                            0.01 * (w[:, 1] - w[:, 2])])
    gross = np.all(np.abs(slip) > 0.05, axis=1)
    assert gross.mean() > 0.8
    span = np.ptp(Mc)
    err = np.abs(Ml - Mc)[gross].max()
    print(f"crank moment LuGre vs Coulomb in gross sliding: max diff {err:.4f} N m "
          f"({err / span:.2%} of the range {span:.2f} N m); everywhere {np.abs(Ml - Mc).max():.4f} N m")
    assert err < 1e-3 * span      # measured 0.02 % (rtol 1e-9)
    # the books close for LuGre too: the crank's work is the friction's work over the revolution
    E = lg.kinetic_energy + lg.potential_energy
    np.testing.assert_allclose(lg.driver_work[-1] - (E[-1] - E[0]), lg.dissipated_energy[-1],
                               rtol=1e-5)
