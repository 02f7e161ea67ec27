"""Friction in ideal joints from their reactions (Qi, Luo & Huang (2009); workbench.mbs.joint_friction).

Closed forms: a pin under a constant load turning at a constant speed needs the moment
``mu r F``; a slider of finite length under an offset load carries it on two end contacts split by
statics, with friction ``mu (|N1| + |N2|)``, and when the drive acts above the contact line the
friction feeds back into the reaction moment (the algebraic loop) in closed form.  A reference
path (numpy + scipy's root finder on the full nonlinear system) checks the compiled right-hand
side of the slider-crank; energy books; the mechanism without friction is unchanged.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import fsolve

from mechanisms import slider_crank
from workbench.errors import MechanismError
from workbench.mbs import joint_friction as JF
from workbench.mbs.compiled import compile_mechanism
from workbench.mbs.equations import rhs, workspace
from workbench.mbs.mechanism import (Body, ConstantForce, Driver, DriverFunction, Mechanism,
                                     RevoluteJoint, TranslationalJoint)
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import _constraint_arrays, assemble, simulate
from workbench.plugins import build_registry

REG = build_registry()


def coulomb(mu, v_eps=1e-4):
    return REG.create("friction", "coulomb", {"mu": mu, "v_eps": v_eps})


def eval_rhs(mech, t=0.0, q=None, qd=None):
    """``(code, qdd, lam, compiled model)`` of the compiled right-hand side at the assembled state."""
    if q is None:
        q, qd = assemble(mech, t)
    cm = compile_mechanism(mech, angles=q[2::3])
    n = 3 * cm.nb
    y = np.concatenate([q, qd, np.zeros(cm.n_points), np.zeros(4)])
    ydot = np.zeros_like(y)
    lam = np.zeros(max(cm.n_rows, 1))
    rec = np.zeros((1, 9))
    ws = workspace(cm.mass, cm.n_rows, cm.n_points)
    code = rhs(t, y, np.full(1, 1e-3), ydot, lam, rec, ws, 0.0, 0.0, cm.model())
    return code, ydot[n:2 * n].copy(), lam.copy(), cm, ydot


# ------------------------------------------------------------------ the pin: moment mu r F
def pin(mu, r, F, omega):
    """A disc pinned at its centre to the ground, turned at ``omega`` [rad/s] by a driver, under a
    constant force ``F`` [N] (downwards) at its centre; no gravity."""
    disc = Body("disc", 1.0, 0.01, points={"C": (0.0, 0.0)})
    j = RevoluteJoint("pin", "ground", "O", "disc", "C", friction=coulomb(mu) if mu is not None else None,
                      pin_radius=r)
    d = Driver("motor", "disc", DriverFunction(polynomial=(0.0, omega)))
    f = ConstantForce("load", "disc", (0.0, -F))
    return Mechanism((disc,), (j,), (d,), (f,), (), {"O": (0.0, 0.0)}, (0.0, 0.0))


def test_pin_under_constant_load_needs_mu_r_F():
    mu, r, F, omega = 0.2, 0.02, 500.0, 10.0
    sim = simulate(pin(mu, r, F, omega), SolverSettings(t_end=0.05, output_step=0.01))
    # slip r omega = 0.2 m/s = 2000 v_eps: tanh(2000) = 1 in double precision
    np.testing.assert_allclose(sim.driver_load[:, 0], mu * r * F, rtol=1e-10)
    np.testing.assert_allclose(np.hypot(*sim.joint_reaction[:, 0].T), F, rtol=1e-10)
    # turning the other way, the moment turns too
    sim = simulate(pin(mu, r, F, -omega), SolverSettings(t_end=0.02, output_step=0.01))
    np.testing.assert_allclose(sim.driver_load[:, 0], -mu * r * F, rtol=1e-10)
    # the books: the motor's work is the friction dissipation mu r F omega t
    np.testing.assert_allclose(sim.dissipated_energy[-1], mu * r * F * omega * 0.02, rtol=1e-8)
    np.testing.assert_allclose(sim.driver_work, sim.dissipated_energy, rtol=1e-8, atol=1e-12)


# ------------------------------------------------------------------ the slider: two-point contact
def slider(mu, L, e, h, P=1000.0, speed=1.0):
    """A block on a ground guide along x, driven at ``speed`` [m/s] (x driver at its centre of
    mass), under a load ``P`` [N] (downwards) at ``e`` [m] ahead of its centre of mass; its
    contact (length ``L``) is centred ``h`` [m] below the centre of mass on the guide line."""
    block = Body("block", 2.0, 0.01, position=(0.0, h), points={"C": (0.0, -h), "E": (e, 0.0)})
    j = TranslationalJoint("guide", "ground", "O", "block", "C", axis=(1.0, 0.0),
                           friction=coulomb(mu) if mu is not None else None, slider_length=L)
    d = Driver("push", "block", DriverFunction(polynomial=(0.0, speed)), coordinate="x")
    f = ConstantForce("load", "block", (0.0, -P), point="E")
    return Mechanism((block,), (j,), (d,), (f,), (), {"O": (0.0, 0.0)}, (0.0, 0.0))


@pytest.mark.parametrize("L, e, h", [(0.1, 0.01, 0.02),    # both ends on the lower face
                                     (0.1, 0.08, 0.02),    # load beyond the end: the ends touch opposite faces
                                     (0.1, 0.08, 0.0),     # ... and no feedback of the friction
                                     (0.0, 0.08, 0.02)])   # a particle slider
def test_slider_two_point_contact_by_statics(L, e, h):
    mu, P = 0.3, 1000.0
    code, qdd, lam, cm, _ = eval_rhs(slider(mu, L, e, h, P))
    assert code == -1
    # closed form: D = mu g (drive), M = e P + h D (moment about the contact centre), N = P,
    # g = |N1| + |N2| = max(N, 2 M / L), so with 2 M / L > N: g = 2 e P / (L - 2 h mu)
    g = P if L == 0.0 or 2 * (e * P + h * mu * P) / L <= P else 2 * e * P / (L - 2 * h * mu)
    M = e * P + h * mu * g
    N1, N2 = (P / 2 - M / L, P / 2 + M / L) if L > 0 else (P / 2, P / 2)
    out = np.zeros((1, 6))
    JF.joint_friction_values(*_state(cm), lam, cm.cons_i, cm.cons_f, *cm.joint_friction[:2],
                             cm.joint_friction[2], cm.joint_friction[3], out)
    if L > 0:
        np.testing.assert_allclose(out[0, 4:6], (N1, N2), rtol=1e-9)
        np.testing.assert_allclose(abs(N1) + abs(N2), g, rtol=1e-12)
        assert (N1 < 0) == (e > L / 2 and L > 0)        # the rear end lifts to the upper face
        np.testing.assert_allclose(-lam[1], M, rtol=1e-9)  # the reaction moment (angle-lock row)
    np.testing.assert_allclose(out[0, 0], g, rtol=1e-9)
    np.testing.assert_allclose(out[0, 2], -mu * g, rtol=1e-9)
    np.testing.assert_allclose(-lam[0], P, rtol=1e-12)     # N, normal reaction on the slider
    np.testing.assert_allclose(abs(lam[2]), mu * g, rtol=1e-9)   # the drive's force
    np.testing.assert_allclose(qdd, 0.0, atol=1e-9)
    info = dict(zip(JF.INFO_FIELDS, cm.joint_friction_info))
    assert info["calls"] == 1 and info["failures"] == 0
    assert info["last_residual"] <= JF.RTOL * mu * g + JF.ATOL      # the reported residual


def _state(cm):
    q, qd = assemble(cm.mechanism, 0.0)
    return q, qd


def test_self_locking_slider_is_a_fault_not_silent():
    # 2 h mu > L: the friction moment outgrows the load it comes from (the drawer that wedges)
    code, _, _, cm, _ = eval_rhs(slider(0.3, 0.1, 0.08, 0.2))
    assert JF.decode_fault(code) == (0, JF.CAUSE_LOOP)
    assert cm.joint_friction_info[7] == 1
    msg = JF.fault_message(cm.mechanism, code, 0.0)
    assert "guide" in msg and "did not converge" in msg and "self-locking" in msg
    with pytest.raises(Exception, match="joint 'guide': the friction loop"):
        simulate(slider(0.3, 0.1, 0.08, 0.2), SolverSettings(t_end=0.01, output_step=0.005))


def test_newton_closes_a_loop_the_fixed_point_would_close_slowly():
    # 2 h mu / L = 0.9: the fixed point would contract by only 0.9 per iteration
    mu, L, e, h, P = 0.3, 0.1, 0.08, 0.15, 1000.0
    code, _, lam, cm, _ = eval_rhs(slider(mu, L, e, h, P))
    assert code == -1
    g = 2 * e * P / (L - 2 * h * mu)
    np.testing.assert_allclose(abs(lam[2]), mu * g, rtol=1e-9)
    assert cm.joint_friction_info[3] == 1       # Newton used
    assert cm.joint_friction_info[6] <= 3       # and it took at most 3 iterations


# ------------------------------------------------------------------ reference path
def _friction_slider_crank(mu=0.1, r=0.01, L=0.05, law=coulomb):
    m = slider_crank(ideal=True)
    js = [replace(j, friction=law(mu), pin_radius=r) if isinstance(j, RevoluteJoint)
          else replace(j, friction=law(mu), slider_length=L) for j in m.joints]
    return replace(m, joints=tuple(js))


def _reference(mech, t, q, qd):
    """qdd and lambda of ``M qdd + J^T lam = Q + Q_f(lam)``, ``J qdd = gamma`` (no Baumgarte), with
    the friction written here in numpy from the joint definitions and solved by scipy's fsolve."""
    cm = compile_mechanism(mech, angles=q[2::3])
    n = 3 * cm.nb
    Phi, J, gam, Phit = _constraint_arrays(cm, t, q, qd)
    Mv = cm.mass
    Q = np.zeros(n)
    for b in range(cm.nb):
        Q[3 * b:3 * b + 2] += Mv[3 * b] * np.asarray(mech.gravity)

    def rot(phi):
        return np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])

    def body(name):
        return mech.body_index(name)

    def Qf(lam):
        out = np.zeros(n)
        for k, j in enumerate(mech.joints):
            l0, l1 = lam[2 * k], lam[2 * k + 1]
            bi, bj = body(j.body_i), body(j.body_j)
            if isinstance(j, RevoluteJoint):
                g = math.hypot(l0, l1)
                w = (qd[3 * bj + 2] if bj >= 0 else 0) - (qd[3 * bi + 2] if bi >= 0 else 0)
                f = float(j.friction.force(j.pin_radius * w, g)[0])
                if bj >= 0:
                    out[3 * bj + 2] += j.pin_radius * f
                if bi >= 0:
                    out[3 * bi + 2] -= j.pin_radius * f
            else:
                N, M, L = -l0, -l1, j.slider_length
                g = abs(N / 2 - M / L) + abs(N / 2 + M / L)
                a = (rot(q[3 * bi + 2]) if bi >= 0 else np.eye(2)) @ np.asarray(j.axis, float)
                s = mech.point(j.body_j, j.point_j)
                P = q[3 * bj:3 * bj + 2] + rot(q[3 * bj + 2]) @ s
                vj = qd[3 * bj:3 * bj + 2] + qd[3 * bj + 2] * np.array([-(P - q[3 * bj:3 * bj + 2])[1],
                                                                        (P - q[3 * bj:3 * bj + 2])[0]])
                assert bi < 0            # the guide is the ground here
                f = float(j.friction.force(vj @ a, g)[0])
                d = P - q[3 * bj:3 * bj + 2]
                out[3 * bj:3 * bj + 2] += f * a
                out[3 * bj + 2] += d[0] * f * a[1] - d[1] * f * a[0]
        return out

    m = J.shape[0]

    def residual(z):
        qdd, lam = z[:n], z[n:]
        return np.concatenate([Mv * qdd + J.T @ lam - Q - Qf(lam), J @ qdd - gam])

    # start from the frictionless solution
    A = np.block([[np.diag(Mv), J.T], [J, np.zeros((m, m))]])
    z0 = np.linalg.solve(A, np.concatenate([Q, gam]))
    z = fsolve(residual, z0, xtol=1e-13)
    assert np.abs(residual(z)).max() <= 1e-10 * np.abs(z0[n:]).max()   # the reference is solved
    return z[:n], z[n:], z0[n:]


@pytest.mark.filterwarnings("ignore:The iteration is not making good progress")
@pytest.mark.parametrize("angle", [0.3, 1.9, 4.0])
def test_compiled_loop_agrees_with_reference_path(angle):
    mech = _friction_slider_crank(mu=0.3)
    t = angle / 523.5987755982989
    q, qd = assemble(mech, t)
    code, qdd, lam, cm, _ = eval_rhs(mech, t, q, qd)
    assert code == -1
    qdd_ref, lam_ref, lam0 = _reference(mech, t, q, qd)
    m = len(lam_ref)
    scale = np.abs(lam_ref).max()
    np.testing.assert_allclose(lam[:m], lam_ref, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(qdd, qdd_ref, rtol=0, atol=1e-9 * np.abs(qdd_ref).max())
    assert np.abs(lam_ref - lam0).max() > 1e-3 * scale     # the friction does move the reactions


def test_zero_friction_takes_the_loop_and_changes_nothing():
    plain = slider_crank(ideal=True)
    zero = _friction_slider_crank(mu=0.0)
    for angle in (0.7, 2.5):
        t = angle / 523.5987755982989
        q, qd = assemble(plain, t)
        c0, _, lam0, cm0, yd0 = eval_rhs(plain, t, q, qd)
        c1, _, lam1, cm1, yd1 = eval_rhs(zero, t, q, qd)
        assert cm0.joint_friction is None and cm1.joint_friction is not None
        assert c0 == c1 == -1
        assert np.array_equal(yd0, yd1) and np.array_equal(lam0, lam1)   # bit for bit
        assert cm1.joint_friction_info[0] == 1


# ------------------------------------------------------------------ energy books
@pytest.mark.slow   # 40 s when its integrator is compiled; the study test below runs the same mechanism
def test_slider_crank_books_and_loop_statistics():
    mech = _friction_slider_crank(mu=0.1)
    sim = simulate(mech, SolverSettings(t_end=0.012, output_step=1e-4))
    W = sim.driver_work - sim.driver_work[0]
    E = (sim.kinetic_energy + sim.potential_energy + sim.dissipated_energy
         - sim.kinetic_energy[0] - sim.potential_energy[0] - sim.dissipated_energy[0])
    assert W[-1] > 10.0                                      # the friction costs work
    np.testing.assert_allclose(E, W, rtol=0, atol=1e-7 * W[-1])
    # over one revolution the kinetic and potential energy return: the drive's work is dissipated
    np.testing.assert_allclose(sim.dissipated_energy[-1], W[-1], rtol=1e-6)
    # the loop converged in every right-hand side, to its tolerance, and says so
    st = sim.stats
    assert st["joint_friction_rhs_calls"] >= st["rhs_calls"]
    assert st["joint_friction_max_residual_N"] <= JF.RTOL * 2e3 + JF.ATOL   # loads < 2e4 N here
    assert 1 < st["joint_friction_mean_iterations"] <= st["joint_friction_max_iterations"] <= JF.MAX_FIXED_POINT
    print("joint-friction loop:", {k: v for k, v in st.items() if k.startswith("joint_friction")})


def test_pendulum_with_pin_friction_loses_what_friction_dissipates():
    rod = Body("rod", 2.0, 2.0 * 0.5 ** 2 / 12, position=(0.25, 0.0), points={"O": (-0.25, 0.0)})
    j = RevoluteJoint("pivot", "ground", "O", "rod", "O", friction=coulomb(0.3, 1e-3), pin_radius=0.02)
    mech = Mechanism((rod,), (j,), (), (), (), {"O": (0.0, 0.0)}, (0.0, -9.81))
    sim = simulate(mech, SolverSettings(t_end=1.0, output_step=0.01))
    E = sim.kinetic_energy + sim.potential_energy
    assert sim.dissipated_energy[-1] > 0.01 * abs(E[0] - E.min())
    np.testing.assert_allclose(E + sim.dissipated_energy, E[0], rtol=0, atol=1e-8 * 2.0 * 9.81 * 0.25)
    # the reference path (scipy's DOP853 on the same right-hand side) agrees with the fast path
    ref = simulate(mech, SolverSettings(t_end=1.0, output_step=0.01, path="scipy"))
    np.testing.assert_allclose(ref.position[:, 0, 2], sim.position[:, 0, 2], rtol=0, atol=1e-6)


# ------------------------------------------------------------------ laws that cannot apply
def test_laws_that_cannot_apply_are_refused_with_the_joint_and_the_choices():
    # LuGre (one internal state) now applies: its bristle state gets a slot of the integrated state
    # (tests/mbs/test_joint_friction_lugre.py, which also checks the refusal of laws with more states)
    lugre = REG.create("friction", "lugre", {})
    cm = compile_mechanism(replace(pin(0.1, 0.01, 1.0, 1.0),
                                   joints=(RevoluteJoint("pin", "ground", "O", "disc", "C", friction=lugre,
                                                         pin_radius=0.01),)))
    assert cm.n_points == 1 and cm.joint_friction[0][0, 2] == 0

    class SetValued:   # the marker of a set-valued law (plugins/friction/coulomb_set_valued.py)
        name = "coulomb_set_valued"
        set_valued = True
    why = JF.check_law(SetValued(), "guide")
    assert "event-driven" in why and "coulomb" in why
    assert JF.check_law(SetValued(), "guide", set_valued_ok=True) is None
    probs = Mechanism((Body("disc", 1.0, 0.01, points={"C": (0, 0)}),),
                      (RevoluteJoint("pin", "ground", "O", "disc", "C", friction=coulomb(0.1)),),
                      ground_points={"O": (0, 0)}).problems()
    assert any("pin_radius > 0" in p for p in probs)


def test_regularised_joint_friction_stays_on_the_compiled_path():
    """The solver choice (:func:`workbench.engines.select`): regularised laws
    on every joint keep the compiled fast path; a set-valued law on one joint routes to the
    event-driven solver."""
    from workbench.engines import select

    def uses_event_driven(m):
        return select(m, SolverSettings(t_end=1.0)).engine.name == "event_driven"
    mech = _friction_slider_crank()
    assert [j.friction.name for j in mech.joints if j.friction is not None] == ["coulomb"] * 4
    assert not uses_event_driven(mech)
    assert not uses_event_driven(slider_crank(ideal=True))
    sv = REG.create("friction", "coulomb_set_valued", {"mu": 0.2})
    guide = next(j for j in mech.joints if j.name == "guide")
    assert uses_event_driven(replace(mech, joints=tuple(replace(j, friction=sv) if j is guide else j
                                                         for j in mech.joints)))


# ------------------------------------------------------------------ the study and its twin
@pytest.mark.slow   # 65 s on a cold cache (its four-joint integrator compiles); the default suite
# runs the friction loop inside the integrator on one joint (the pin closed forms and the
# crank-rocker's regularised limit, tests/nonsmooth/test_regularised_limit.py)
def test_slider_crank_study_crank_moment_with_and_without_joint_friction(tmp_path):
    """``studies/slider_crank_joint_friction.toml`` against its frictionless twin, one crank
    revolution at 5000 rpm: the mean crank moment is the friction dissipation per radian (the
    kinetic and potential energy return after a revolution), the twin's mean is zero."""
    from pathlib import Path

    import xarray as xr

    from workbench.study.load import load_study, run_study
    root = Path(__file__).resolve().parents[2] / "studies"
    out = {}
    for name in ("slider_crank_joint_friction", "slider_crank_joint_friction_off"):
        study = load_study(root / f"{name}.toml", registry=REG)
        ds = run_study(study, registry=REG, out=tmp_path / f"{name}.nc")
        out[name] = ds if isinstance(ds, xr.Dataset) else xr.open_dataset(ds, engine="h5netcdf").load()
    fr, off = out["slider_crank_joint_friction"], out["slider_crank_joint_friction_off"]
    t = fr["time"].values
    M1 = fr["driver_load"].sel(driver="crank_speed").values
    M0 = off["driver_load"].sel(driver="crank_speed").values
    omega = 5000 * 2 * math.pi / 60

    def mean(x):   # over the revolution (trapezoid rule on the output grid)
        return float(np.sum(0.5 * (x[1:] + x[:-1]) * np.diff(t)) / (t[-1] - t[0]))
    dissipated = float(fr["dissipated_energy"].values[-1] - fr["dissipated_energy"].values[0])
    assert abs(mean(M0)) < 1e-4 * np.abs(M0).max()
    np.testing.assert_allclose(mean(M1) * omega * (t[-1] - t[0]), dissipated, rtol=1e-3)
    rms1, rms0 = (float(np.sqrt(np.mean(x ** 2))) for x in (M1, M0))
    assert rms1 > rms0 and mean(M1) > 0.05 * np.abs(M0).max()
    assert fr.attrs["solver_joint_friction_max_residual_N"] < 1e-6
    print(f"crank moment: mean {mean(M1):.3f} N m (twin {mean(M0):.2e}), rms {rms1:.2f} vs {rms0:.2f} N m, "
          f"peak {np.abs(M1).max():.2f} vs {np.abs(M0).max():.2f} N m; dissipated {dissipated:.3f} J")


def test_validate_names_the_key_of_a_joint_friction_that_cannot_apply():
    from pathlib import Path

    from workbench.errors import StudyError
    from workbench.study.load import load_study_text
    text = (Path(__file__).resolve().parents[2] / "studies" / "slider_crank_joint_friction.toml").read_text()
    bad = text.replace('friction = { model = "coulomb", mu = 0.1, v_eps = 1.0e-4 }\npin_radius = 0.010      # m\n'
                       'body_i = "ground"', 'friction = { model = "lugre" }\nbody_i = "ground"', 1)
    assert bad != text
    with pytest.raises(StudyError) as exc:
        load_study_text(bad, file="bad.toml", registry=REG)
    msg = str(exc.value)
    assert "bad.toml" in msg and "[mechanism.joints[0].pin_radius]" in msg
    # LuGre applies to ideal joints (its bristle state is integrated): no error on the model itself
    assert "[mechanism.joints[0].friction.model]" not in msg
    # a law that cannot apply to the joint as given: the set-valued law takes the particle slider
    # only (the event-driven solver has no two-point contact); the key, the value and the choice
    sv = text.replace('slider_length = 0.050   # m, contact centred on point B\n'
                      'friction = { model = "coulomb", mu = 0.1, v_eps = 1.0e-4 }',
                      'slider_length = 0.050\nfriction = { model = "coulomb_set_valued", mu = 0.1 }')
    assert sv != text
    with pytest.raises(StudyError) as exc:
        load_study_text(sv, file="sv.toml", registry=REG)
    msg = str(exc.value)
    assert "sv.toml" in msg and "[mechanism.joints[2].slider_length]" in msg
    assert "0.05" in msg and "valid: 0.0" in msg
    neg = text.replace("slider_length = 0.050", "slider_length = -0.01")
    with pytest.raises(StudyError, match=r"mechanism.joints\[2\].slider_length"):
        load_study_text(neg, file="neg.toml", registry=REG)
