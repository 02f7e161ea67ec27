"""Peer-engine cross-check: Exudyn on the Flores slider-crank.

The Exudyn model (tests/reference/exudyn_slider_crank.py) shares no code with the workbench, only
the data of studies/flores_slider_crank.toml.  Two groups of tests:

1. The Exudyn model itself is what we claim it is (no workbench needed):
   - with an ideal joint it reproduces the closed-form slider kinematics
     (tests/reference/ideal_slider_crank_closed_form.py; docs/validation.md "Slider-crank mechanics")
     and the driver torque closes the power balance (sign convention of ``driver_torque``);
   - its sphere-in-hollow-sphere Hunt-Crossley force with ``e_res = 1 - (1 - e^2)/2`` *is* the
     Lankarani-Nikravesh force for restitution e (docs/validation.md's claim, checked sample by sample
     from Exudyn's own output);
   - frictionless with restitution 1 the energy books close (docs/validation.md);
   - its two formulations (redundant coordinates + generalized-alpha, kinematic tree + RK44)
     give the same contact force and driver torque.
2. The workbench's first impact agrees with Exudyn's within 0.5 %: time of
   contact start, approach speed delta_dot_minus and peak contact force, frictionless and with
   friction.  Friction: the study's Ambrosio law (c_f = 0.01, v0 = 1e-4, v1 = 1e-2 m/s) against
   Exudyn's regularized Coulomb law (mu = 0.01, linear below v1).  They differ only for slip
   speeds below v1, and the slip speed during the first impact is ~ R |omega_rod| ~ 2 m/s, so the
   two codes solve the same equations there.

Step size of Exudyn: 0.25 us.  Its convergence table (python tests/reference/exudyn_slider_crank.py)
gives, relative to a 0.03125 us run: impact time 2e-10, speed 7e-9, peak force 3e-6 - far inside
the 0.5 % asked for, so a failure means the two models differ, not that Exudyn is unconverged.
Measured agreement when this test was written (workbench at the study's rtol 1e-6): impact time
1e-8, approach speed 1e-8, peak force 5e-6 (8e-5 with Exudyn at 0.5 us).
"""
from __future__ import annotations

import dataclasses
import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("exudyn", reason="exudyn is a test dependency (pip install exudyn)")

HERE = Path(__file__).parents[1]
STUDY = HERE.parent / "studies" / "flores_slider_crank.toml"
T_FIRST = 0.4e-3        # s: the first contact starts at ~0.227 ms and ends at ~0.28 ms
EXUDYN_STEP = 0.25e-6   # s: peak force converged to ~3e-6 (see module docstring)
RESTITUTION = 0.9       # studies/flores_slider_crank.toml
TOL_ISSUE = 5e-3        # docs/validation.md: "agrees on the first impact within 0.5 %"
# Both codes are converged far below 0.5 % (Exudyn 3e-6 at 0.25 us, workbench rtol 1e-6), while a
# damping-law mismatch is not: Exudyn's Hunt-Crossley with e_res = e = 0.9 instead of the
# LN-equivalent 0.905 moves the peak force by 0.21 % and would pass 0.5 %.  The peak force is
# therefore also held to 0.05 % (the benchmark's convergence target, docs/validation.md).
TOL_PEAK = 5e-4


def _load(name):
    spec = importlib.util.spec_from_file_location(name, HERE / "reference" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


ex = _load("exudyn_slider_crank")
cf = _load("ideal_slider_crank_closed_form")
DATA = ex.FloresData()


def _exudyn(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return ex.simulate_exudyn(*args, **kwargs)


@pytest.fixture(scope="module")
def exudyn_frictionless():
    return _exudyn(EXUDYN_STEP, T_FIRST, restitution=RESTITUTION, friction=0.0)


# ------------------------------------------------------------------ the Exudyn model itself
def test_exudyn_ideal_model_matches_closed_form():
    """Ideal joint: slider x, velocity, acceleration vs the closed form at the simulated crank
    angle.  Generalized-alpha (rho_inf 0.9) at 1 us: measured 1e-16 m, 4e-8 and 1.3e-6 relative;
    tolerances 1e-9 m and 1e-5 leave room for other platforms and would catch any set-up error
    (a wrong COM, sign or inertia changes the acceleration at the percent level)."""
    r = _exudyn(1e-6, 3e-3, ideal=True)
    th = r["crank_angle"]
    np.testing.assert_allclose(th, DATA.crank_speed * r["time"], atol=1e-10)
    x = cf.slider_position(th, DATA.crank_length, DATA.rod_length)
    v = cf.slider_velocity(th, DATA.crank_speed, DATA.crank_length, DATA.rod_length)
    a = cf.slider_acceleration(th, DATA.crank_speed, DATA.crank_length, DATA.rod_length)
    np.testing.assert_allclose(r["slider_x"], x, atol=1e-9)
    np.testing.assert_allclose(r["slider_velocity"], v, atol=1e-5 * np.abs(v).max())
    np.testing.assert_allclose(r["slider_acceleration"], a, atol=1e-5 * np.abs(a).max())
    assert r["slider_acceleration"][0] == pytest.approx(
        cf.tdc_acceleration(DATA.crank_speed, DATA.crank_length, DATA.rod_length), rel=1e-5)


def test_exudyn_driver_torque_closes_power_balance():
    """Ideal mechanism: T omega = d(KE + PE)/dt.  np.gradient at 1 us leaves ~1e-3 of the peak
    power (measured 9.8e-4); a sign error would give ~2."""
    r = _exudyn(1e-6, 3e-3, ideal=True)
    e = r["kinetic_energy"] + r["potential_energy"]
    p_mech = np.gradient(e, r["time"])
    p_drv = r["driver_torque"] * DATA.crank_speed
    np.testing.assert_allclose(p_drv[2:-2], p_mech[2:-2], rtol=0, atol=3e-3 * np.abs(p_drv).max())


def test_exudyn_contact_is_lankarani_nikravesh(exudyn_frictionless):
    """docs/validation.md: Exudyn's Hunt-Crossley with e_res = 1 - (1 - e^2)/2 is Lankarani-Nikravesh
    with restitution e.  Every contact sample: F = K d^1.5 (1 + 3(1 - e^2)/4 d_dot / d_dot_minus),
    d and d_dot from our own geometry of the node states, d_dot_minus as stored by Exudyn.  Same
    state, same formula -> agreement to rounding (measured 2e-15 of the peak)."""
    r = exudyn_frictionless
    assert ex.hunt_crossley_restitution_for_ln(0.9) == pytest.approx(0.905, abs=1e-15)
    c = r["penetration"] > 0
    assert c.sum() > 50                       # the first contact (~52 us) is resolved
    d, dd, v = r["penetration"][c], r["penetration_rate"][c], r["exudyn_impact_velocity"][c]
    f_ln = r["stiffness"] * d ** 1.5 * (1 + 0.75 * (1 - RESTITUTION ** 2) * dd / v)
    np.testing.assert_allclose(r["contact_force_normal"][c], f_ln, rtol=0,
                               atol=1e-9 * r["contact_force_normal"].max())
    # Exudyn stores d_dot_minus at the end of the first contact step: O(step) above the true
    # approach speed (relative approach acceleration ~1.8e4 m/s^2 -> <= 1e-2 m/s per us)
    assert abs(v[0] - r["first_impact"]["velocity"]) < 1.8e4 * EXUDYN_STEP * 1.5


def test_exudyn_energy_books_close_without_dissipation():
    """docs/validation.md: frictionless, restitution 1: KE + PE + K d^(n+1)/(n+1) - driver work is
    constant.  Measured 4e-4 J against 1.56 J of peak contact energy over 3 ms with two impacts;
    tolerance 2e-3 J (driver work integrated by the trapezoidal rule from 0.5 us samples)."""
    r = _exudyn(0.5e-6, 3e-3, restitution=1.0)
    assert r["contact_energy"].max() > 1.0      # a real impact happened
    e = r["kinetic_energy"] + r["potential_energy"] + r["contact_energy"]
    tq = r["driver_torque"]
    work = np.concatenate([[0.0], np.cumsum(0.5 * (tq[1:] + tq[:-1]) * np.diff(r["crank_angle"]))])
    np.testing.assert_allclose(e - e[0], work, rtol=0, atol=2e-3)


def test_exudyn_formulations_agree(exudyn_frictionless):
    """Redundant coordinates with joints and an implicit solver vs minimal coordinates with a
    flywheel driver and an explicit solver: same contact force and driver torque sample by
    sample over the first 0.4 ms (first impact included).  Measured 5e-5 of the peak force and
    2e-4 of the peak torque at 0.25 us (the explicit run's one-step contact lag); tolerance 1e-3."""
    a = exudyn_frictionless
    b = _exudyn(EXUDYN_STEP, T_FIRST, restitution=RESTITUTION, formulation="kinematic_tree",
                solver="RK44")
    n = min(len(a["time"]), len(b["time"]))
    np.testing.assert_allclose(b["time"][:n], a["time"][:n], atol=1e-12)
    for key in ("contact_force_normal", "driver_torque", "slider_x"):
        scale = np.abs(a[key]).max()
        np.testing.assert_allclose(b[key][:n], a[key][:n], rtol=0, atol=1e-3 * scale, err_msg=key)
    np.testing.assert_allclose(b["crank_angle"], DATA.crank_speed * b["time"], atol=1e-9)


# ------------------------------------------------------------------ workbench vs Exudyn
def _workbench_first_impact(friction: bool) -> dict:
    """Run the study through the workbench to T_FIRST with output every 0.1 us; first impact from
    its impact table (time, delta_dot_minus located by root finding, and the peak of its contact
    force during that contact, located on the dense output)."""
    study_mod = pytest.importorskip("workbench.study.load", reason="workbench.study.load not available yet")
    solver_mod = pytest.importorskip("workbench.mbs.solver", reason="workbench.mbs.solver not available yet")
    study = study_mod.load_study(STUDY)
    mech = study.mechanism
    (cj,) = mech.clearance_joints
    if not friction:
        mech = dataclasses.replace(mech, clearance_joints=(dataclasses.replace(cj, friction=None),))
    settings = dataclasses.replace(study.solver, t_end=T_FIRST, output_step=1e-7)
    sim = solver_mod.simulate(mech, settings)
    assert len(sim.impact_time) >= 1, "the workbench found no impact"
    t0 = float(sim.impact_time[0])
    # the peak of that contact from the impact table (located on the dense output)
    peak = float(sim.impact_peak_force[0])
    return {"time": t0, "velocity": float(sim.impact_velocity[0]), "peak_force": peak,
            "wall_time": sim.stats.get("wall_time")}


def _compare(ours: dict, theirs: dict):
    for key in ("time", "velocity", "peak_force"):
        rel = abs(ours[key] - theirs[key]) / abs(theirs[key])
        tol = TOL_PEAK if key == "peak_force" else TOL_ISSUE
        assert rel < tol, (f"first impact {key}: workbench {ours[key]:.8g} vs Exudyn "
                           f"{theirs[key]:.8g} (relative difference {rel:.2e} > {tol})")


def test_first_impact_agrees_with_exudyn_frictionless(exudyn_frictionless):
    theirs = exudyn_frictionless["first_impact"]
    # sanity of the reference itself: first contact ~6.8 deg of crank angle after start,
    # approach speed of sqrt(2 a c) order (a ~ r w^2 (1 + r/l), c = 0.5 mm)
    assert 2.0e-4 < theirs["time"] < 2.5e-4 and 3.5 < theirs["velocity"] < 5.0
    _compare(_workbench_first_impact(friction=False), theirs)


def test_first_impact_agrees_with_exudyn_with_friction():
    theirs = _exudyn(EXUDYN_STEP, T_FIRST, restitution=RESTITUTION, friction=0.01,
                     friction_velocity=1e-2)["first_impact"]
    _compare(_workbench_first_impact(friction=True), theirs)
