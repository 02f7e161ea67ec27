"""Wear of translational clearance joints: worn-guide geometry in the four-corner contact
(Wang, Chen, Ma & Sun (2016) eqs. 18-24) and Archard wear of the guide (Archard (1953);
Wang & Liu (2015) eq. 14) against closed forms."""
from __future__ import annotations

import numpy as np
import pytest

from workbench.mbs.slider_guide import corner, guide_depth
from workbench.mbs.compiled import compile_mechanism
from workbench.mbs.guide_profile import pack_guide, spline_reference
from workbench.mbs.mechanism import (Body, ConstantForce, Driver, DriverFunction, Mechanism,
                                     TranslationalClearanceJoint)
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import simulate
from workbench.wear import translational as tr
from workbench.wear.guide import WornGuide, guide_nodes

L, W, H, B = 8e-3, 5e-3, 5.1e-3, 10e-3   # slider length, height, guide height, width [m]
C = (H - W) / 2
MASS = 0.2


def block(registry, *, load=0.0, stroke=None, gravity=(0.0, -9.81)):
    """The slider alone in a ground-fixed guide, optionally pressed down by ``load`` [N] and driven
    along x as ``stroke = (A [m], w [rad/s])``: ``x = A sin(w t)``."""
    contact = registry.create("contact", "kelvin_voigt", {"damping": 2e4})
    joint = TranslationalClearanceJoint("guide", "ground", "O", "slider", "C", slider_length=L,
                                        slider_height=W, guide_height=H, contact=contact, width=B)
    forces = (ConstantForce("press", "slider", (0.0, -load)),) if load else ()
    drivers = ()
    if stroke is not None:
        drivers = (Driver("stroke", "slider", DriverFunction((0.0,), ((stroke[0], stroke[1], 0.0),)), "x"),)
    inertia = MASS * (L ** 2 + W ** 2) / 12
    return Mechanism((Body("slider", MASS, inertia, points={"C": (0.0, 0.0)}),), (), drivers, forces,
                     (joint,), {"O": (0.0, 0.0)}, gravity)


def _row(mech, surfaces):
    cm = compile_mechanism(mech, angles=np.zeros(1), surfaces=surfaces)
    return cm.clr_f[0]


# ------------------------------------------------------------------ geometry of the worn guide
def test_profile_interpolates_is_c1_never_dips_and_matches_the_scipy_reference():
    """The guide depth between nodes: the monotone cubic Hermite interpolant (Fritsch & Carlson
    (1980)), compiled, against scipy's PchipInterpolator; C1 across the nodes; a one-node impact
    scar interpolates without negative lobes (no wear makes the guide tighter)."""
    s = np.linspace(-0.02, 0.03, 51)
    h = 1e-5 * np.exp(-((s - 0.004) / 0.006) ** 2) * (np.abs(s - 0.004) < 0.018)
    spike = np.zeros_like(s)
    spike[20] = 2.5e-6
    spike[23] = 1e-6
    row = np.concatenate([np.zeros(12), pack_guide(s, np.vstack([h, spike]), np.zeros(4))])
    x = np.linspace(-0.025, 0.035, 997)
    for surf, prof in ((0, h), (1, spike)):
        got = np.array([guide_depth(row, surf, xi) for xi in x])
        ref, dref = spline_reference(s, prof, x)
        assert np.allclose(got[:, 0], ref, rtol=0, atol=1e-12 * prof.max())
        assert np.allclose(got[:, 1], dref, rtol=0, atol=1e-10 * prof.max() / (s[1] - s[0]))
        assert np.allclose([guide_depth(row, surf, si)[0] for si in s], prof, atol=1e-20)
        assert got[:, 0].min() >= 0.0 and got[:, 0].max() <= prof.max() * (1 + 1e-12)
        e = 1e-10
        for si in s[3:-3]:
            (_, da), (_, db) = guide_depth(row, surf, si - e), guide_depth(row, surf, si + e)
            # a kink would jump by ~ the secant slope; the curvature over 2e-10 m moves it by < 1e-5 of it
            assert abs(db - da) < 1e-4 * np.abs(np.diff(prof)).max() / (s[1] - s[0])


def test_corner_gap_of_a_worn_guide_by_hand(registry):
    """Uniformly worn faces (upper g_u, lower g_l) and worn slider corners r_k: the corner
    penetrations are delta = y + W/2 - H/2 - g_u - r_k (top) and -H/2 - (y - W/2) - g_l - r_k
    (bottom), for the slider at height y, angle 0 (Wang, Chen, Ma & Sun (2016) eq. 19-21 with the gaps grown)."""
    mech = block(registry)
    s = np.linspace(-0.05, 0.05, 41)
    g_u, g_l, r = 3e-6, 7e-6, np.array([1e-6, 2e-6, 4e-6, 8e-6])
    row = _row(mech, {0: pack_guide(s, np.vstack([np.full(41, g_u), np.full(41, g_l)]), r)})
    y = 1.3e-5
    q = np.array([0.004, y, 0.0]); qd = np.zeros(3)
    hand = [y + W / 2 - H / 2 - g_u - r[0], y + W / 2 - H / 2 - g_u - r[1],
            -H / 2 - (y - W / 2) - g_l - r[2], -H / 2 - (y - W / 2) - g_l - r[3]]
    for k in range(4):
        X, Y, delta, Nx, Ny, tx, ty, vn, vt, sk = corner(q, qd, -1, 0, row, k)
        assert delta == pytest.approx(hand[k], abs=1e-18)
        assert sk == pytest.approx(0.004 + (L / 2 if k in (0, 3) else -L / 2), abs=1e-15)
        assert (Nx, Ny) == pytest.approx((0.0, 1.0 if k < 2 else -1.0), abs=1e-15)
    # the unworn row gives the unworn gap
    row0 = _row(mech, {})
    assert corner(q, qd, -1, 0, row0, 0)[2] == pytest.approx(y + W / 2 - H / 2, abs=1e-18)


def test_corner_normal_is_the_gradient_of_the_penetration(registry):
    """On a sloped worn face the normal N and vn = N . v are d delta/dX and d delta/dt: checked by
    central differences along a motion that slides, lifts and tilts the slider."""
    mech = block(registry)
    s = np.linspace(-0.03, 0.03, 61)
    h = 2e-5 * np.sin(np.pi * (s + 0.03) / 0.06) ** 2
    row = _row(mech, {0: pack_guide(s, np.vstack([h, 0.5 * h]), np.full(4, 1e-6))})
    q = np.array([0.0031, 2e-5, 1e-3]); qd = np.array([0.7, -0.05, 0.3])
    eps = 1e-7
    for k in range(4):
        vn = corner(q, qd, -1, 0, row, k)[7]
        dp = corner(q + eps * qd, qd, -1, 0, row, k)[2]
        dm = corner(q - eps * qd, qd, -1, 0, row, k)[2]
        assert vn == pytest.approx((dp - dm) / (2 * eps), rel=1e-6)


def test_worn_guide_and_slider_lower_the_resting_slider(registry):
    """A slider resting under gravity on a lower guide face worn by g_l, with bottom corners worn by
    r, sits lower by g_l + r than on unworn parts: y = -(C + m g / (2 K) + g_l + r)."""
    mech = block(registry)
    s = np.linspace(-0.02, 0.02, 81)
    g_l, r = 4e-6, 1.5e-6
    packed = pack_guide(s, np.vstack([np.zeros(81), np.full(81, g_l)]), np.array([0.0, 0.0, r, r]))
    settings = SolverSettings(t_end=0.05, output_step=1e-4, rtol=1e-8, atol=1e-12)
    new = simulate(mech, settings, surfaces={0: packed})
    old = simulate(mech, settings)
    assert new.contact_force[-1, 0] == pytest.approx(MASS * 9.81, rel=1e-4)
    assert new.eccentricity[-1, 0, 1] - old.eccentricity[-1, 0, 1] == pytest.approx(-(g_l + r), rel=1e-4)


def test_energy_books_close_on_a_wavy_worn_guide(registry):
    """An elastic (Hooke) contact without friction on a wavy worn lower face: the slider, driven
    along x under gravity, rides the waves; kinetic + potential + contact energy - driver work
    stays constant (the force acts along the gradient of the penetration)."""
    contact = registry.create("contact", "hooke", {})
    joint = TranslationalClearanceJoint("guide", "ground", "O", "slider", "C", slider_length=L,
                                        slider_height=W, guide_height=H, contact=contact, width=B)
    drv = Driver("stroke", "slider", DriverFunction((0.0,), ((0.01, 2 * np.pi * 5.0, 0.0),)), "x")
    mech = Mechanism((Body("slider", MASS, MASS * (L ** 2 + W ** 2) / 12, points={"C": (0.0, 0.0)}),),
                     (), (drv,), (), (joint,), {"O": (0.0, 0.0)}, (0.0, -9.81))
    s = np.linspace(-0.03, 0.03, 121)
    wave = 1e-5 * (1 + np.cos(2 * np.pi * s / 0.012)) * (np.abs(s) < 0.024)
    packed = pack_guide(s, np.vstack([np.zeros_like(s), wave]), np.zeros(4))
    sim = simulate(mech, SolverSettings(t_end=0.1, output_step=1e-4, rtol=1e-10, atol=1e-14),
                   surfaces={0: packed})
    books = sim.kinetic_energy + sim.potential_energy + sim.contact_energy + sim.dissipated_energy - sim.driver_work
    assert np.max(np.abs(sim.contact_force[:, 0])) > MASS * 9.81      # it rides the waves
    assert np.ptp(books) < 1e-6 * np.max(np.abs(sim.driver_work) + sim.kinetic_energy), np.ptp(books)


# ------------------------------------------------------------------ Archard wear of the guide
def _stroke_run(registry, F=200.0, A=0.015, f=10.0, cycles=2, per_cycle=1000):
    mech = block(registry, load=F, stroke=(A, 2 * np.pi * f), gravity=(0.0, 0.0))
    T = 1.0 / f
    sim = simulate(mech, SolverSettings(t_end=(1 + cycles) * T, output_step=T / per_cycle,
                                        rtol=1e-9, atol=1e-13))
    return mech, sim, per_cycle


@pytest.fixture(scope="module")
def stroke_run():
    from workbench.plugins import build_registry
    return _stroke_run(build_registry())


def _projected(s, fun, ds):
    """Hat-function projection (1/ds) int fun(x) N_i(x) dx of a function on the nodes ``s``."""
    t = np.linspace(-1, 1, 2001)
    w = 1.0 - np.abs(t)
    return np.array([np.trapezoid(fun(si + t * ds) * w, t) for si in s])


@pytest.mark.parametrize("model, params", [("approximate_area", {"distribution": "uniform"}),
                                           ("winkler", {})])
def test_reciprocating_slider_wears_the_guide_as_archard(registry, stroke_run, model, params):
    """A flat slider pressed by F on the lower face, driven x = A sin(w t): the guide point s sees
    the sliding distance 2 |[s - L/2, s + L/2] ∩ [-A, A]| per cycle under p = F / (L b), so
    h(s) = share k p 2 |...| (Archard (1953); Wang & Liu (2015) eq. 14) -- a trapezoid shaped by the
    stroke -- and every slider node sees 4 A: h_slider = (1 - share) k p 4 A per cycle."""
    mech, sim, S = stroke_run
    F, A, k, share = 200.0, 0.015, 1e-15, 0.6
    joint = mech.clearance_joints[0]
    worn = WornGuide.fresh(joint, guide_nodes(-A, A, L, 301))
    samples = tr.GuideSamples.from_simulation(sim, mech, {}, 0, S)
    assert np.allclose(samples.force.sum(axis=1), sim.contact_force[S:, 0])
    law = registry.create("wear", "archard", {"wear_coefficient": k})
    pressure = registry.create("pressure", model, params)
    rate = tr.wear_rate(worn, samples, 2, pressure, law, share)
    p = F / (L * B)
    overlap = lambda x: np.clip(np.minimum(x + L / 2, A) - np.maximum(x - L / 2, -A), 0.0, None)  # noqa: E731
    expect = _projected(worn.s, lambda x: share * k * p * 2 * overlap(x), worn.ds)
    guide = rate.depth_bushing.reshape(2, -1)
    assert np.abs(guide[0]).max() == 0.0                     # the upper face is never touched
    err = np.linalg.norm(guide[1] - expect) / np.linalg.norm(expect)
    assert err < 1e-3, err          # measured 7e-5 (the output sampling of the slip)
    plateau = np.abs(worn.s) < A - L / 2 - worn.ds
    assert guide[1][plateau] == pytest.approx(share * k * p * 2 * L, rel=1e-4)
    slider = rate.depth_journal.reshape(2, -1)
    assert slider[1] == pytest.approx(np.full(len(worn.u), (1 - share) * k * p * 4 * A), rel=1e-4)
    assert np.abs(slider[0]).max() == 0.0
    # volume: share k F x 4A per cycle (Sum p ds b = F on every sample)
    assert rate.volume[0] == pytest.approx(share * k * F * 4 * A, rel=1e-4)
    assert rate.volume[1] == pytest.approx((1 - share) * k * F * 4 * A, rel=1e-4)


def test_fem_pressure_is_refused_for_a_translational_joint(registry):
    fem = registry.create("pressure", "fem", {})
    why = tr.pressure_problem(fem)
    assert "'fem'" in why and "'approximate_area'" in why and "'winkler'" in why
    cal = registry.create("pressure", "winkler", {"calibrate": "persson"})
    assert "calibrate" in tr.pressure_problem(cal)
    assert tr.pressure_problem(registry.create("pressure", "approximate_area", {})) is None
