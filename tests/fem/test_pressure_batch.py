"""Batch pressure solves (PressureModel.solve_loads): the many contact samples of a wear update.

Each compiled batch must equal the reference path — a loop of ``solve_load`` over the samples — and
keep the physics of the single solve: the approximate-area load (Wang & Liu (2015) eq. 22), the
Winkler closed form (docs/validation.md "Rigid journal in a Winkler-lined bushing"), equilibrium.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.errors import WorkbenchError
from workbench.fem import closed_forms as cf
from workbench.fem.contact import half_angle
from workbench.models import BoreSection, Material, PressureModel

R, C, B = 0.01, 2e-5, 0.02
BRONZE, STEEL, RIGID = Material(110e9, 0.34), Material(207e9, 0.3), Material(rigid=True)


def theta(n):
    return 2 * np.pi * np.arange(n) / n


def crescent(th, depth, angle):
    """Radial wear pocket ``depth max(0, cos(theta - angle))^2`` [m]."""
    return depth * np.clip(np.cos(th - angle), 0.0, None) ** 2


def load_path(ns, F0=1e4, seed=0):
    """Loads turning and pulsing like a mechanism cycle, every 5th sample unloaded."""
    rng = np.random.default_rng(seed)
    k = np.arange(ns)
    ang = np.radians(7.0) * k + rng.uniform(-0.2, 0.2, ns)
    mag = F0 * (1 + 0.8 * np.sin(2 * np.pi * k / 23))
    mag[::5] = 0.0
    return np.column_stack([mag * np.cos(ang), mag * np.sin(ang)])


def worn_gaps(th, ns, bushing_wear, journal_depth=2e-6):
    """Gap of a worn bushing against a worn journal that turns by 11 deg per sample [m]."""
    return np.array([C + bushing_wear + crescent(th, journal_depth, np.radians(11.0) * s) for s in range(ns)])


def cross(a, b):
    """z-component of the cross product of 2-D vectors (rows)."""
    a, b = np.asarray(a), np.asarray(b)
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def reference(model, section, loads, gaps=None):
    """The reference path: the base class's loop over solve_load."""
    return PressureModel.solve_loads(model, section, loads, gaps)


def relative_rows(p, p_ref):
    """Largest per-sample pressure difference relative to that sample's peak (0 for unloaded)."""
    peak = p_ref.max(axis=1)
    diff = np.abs(p - p_ref).max(axis=1)
    return float(np.max(np.where(peak > 0, diff / np.where(peak > 0, peak, 1.0), diff)))


# ----------------------------------------------------------------------------- contract
def test_default_loop_and_input_checks(registry):
    """The base-class batch is a loop of solve_load; zero loads give zeros; bad shapes are
    WorkbenchErrors naming the expected shape."""
    model = registry.create("pressure", "winkler", {"layer_thickness": 5e-3})
    th = theta(180)
    sec = BoreSection(th, R, np.full(180, C), B, BRONZE, STEEL)
    loads = np.array([[3e3, 1e3], [0.0, 0.0], [-2e3, 4e3]])
    p, e = reference(model, sec, loads)
    assert p.shape == (3, 180) and e.shape == (3, 2)
    assert not p[1].any() and not e[1].any()
    one = model.solve_load(sec, loads[2])
    np.testing.assert_array_equal(p[2], one.pressure)
    np.testing.assert_array_equal(e[2], one.eccentricity)
    with pytest.raises(WorkbenchError, match=r"shape \(samples, 2\)"):
        model.solve_loads(sec, np.ones(3))
    with pytest.raises(WorkbenchError, match=r"\(3, 180\)"):
        model.solve_loads(sec, loads, np.full((3, 90), C))


@pytest.mark.parametrize("name, params, n", [
    ("approximate_area", {"distribution": "uniform"}, 720),
    ("approximate_area", {"distribution": "elliptical"}, 720),
    ("winkler", {"layer_thickness": 5e-3}, 720),
    ("fem", {}, 120),
])
def test_zero_load_samples_give_zeros(registry, name, params, n):
    """A sample with |load| = 0 carries no pressure and has no approach, whatever its neighbours."""
    model = registry.create("pressure", name, params)
    th = theta(n)
    sec = BoreSection(th, R, np.full(n, C), B, BRONZE, STEEL)
    loads = np.array([[0.0, 0.0], [5e3, 0.0], [0.0, 0.0], [0.0, -6e3], [0.0, 0.0]])
    p, e = model.solve_loads(sec, loads)
    assert not p[0::2].any() and not e[0::2].any()
    assert p[1].max() > 0 and p[3].max() > 0
    p, e = model.solve_loads(sec, np.zeros((4, 2)), np.full((4, n), C))
    assert not p.any() and not e.any()


# ----------------------------------------------------------------------------- approximate area
@pytest.mark.parametrize("distribution", ["uniform", "elliptical"])
def test_approximate_area_batch_equals_loop(registry, distribution):
    """Compiled batch (10-point Gauss-Legendre in t = asin(x/a) for the ellipse, closed form for the
    block) == loop of solve_load (adaptive scipy quad to 1e-13 per interval) to 1e-12 of each
    sample's peak, on worn gaps turning per sample and on the shared gap."""
    model = registry.create("pressure", "approximate_area", {"distribution": distribution})
    n, ns = 720, 300
    th = theta(n)
    sec = BoreSection(th, R, C + crescent(th, 3e-6, 0.5), B, BRONZE, STEEL)
    loads = load_path(ns)
    gaps = worn_gaps(th, ns, crescent(th, 3e-6, 0.5))
    for g in (gaps, None):
        p, e = model.solve_loads(sec, loads, g)
        p_ref, e_ref = reference(model, sec, loads, g)
        assert relative_rows(p, p_ref) <= 1e-12
        assert np.max(np.abs(e - e_ref)) <= 1e-12 * np.max(np.abs(e_ref))


@pytest.mark.parametrize("distribution", ["uniform", "elliptical"])
def test_approximate_area_carries_the_load(registry, distribution):
    """Wang & Liu (2015) eq. 22 over the Hertz arc, batch on worn gaps turning per sample: the
    nodal pressures carry every load as a vector, R b dtheta sum(p n) = F to 1e-10 (direction and
    magnitude), with the pressure within one node of the Hertz half-angle of the load direction."""
    model = registry.create("pressure", "approximate_area", {"distribution": distribution})
    n, ns = 720, 200
    th = theta(n)
    sec = BoreSection(th, R, np.full(n, C), B, BRONZE, STEEL)
    loads = load_path(ns, F0=2e4, seed=1)
    p, _ = model.solve_loads(sec, loads, worn_gaps(th, ns, 0.0))
    mags = np.hypot(loads[:, 0], loads[:, 1])
    on = mags > 0
    dth = 2 * np.pi / n
    force = R * B * dth * p @ sec.normals
    assert np.max(np.linalg.norm(force - loads, axis=1)[on] / mags[on]) <= 1e-10
    assert not p[~on].any() and p.min() >= 0.0
    ang = np.arctan2(loads[:, 1], loads[:, 0])
    alpha = np.array([model.half_angle(sec, m, a) for m, a in zip(mags[on], ang[on])])
    dist = np.abs(np.angle(np.exp(1j * (th[None, :] - ang[on][:, None]))))
    assert np.all(np.where(p[on] > 0, dist, 0.0).max(axis=1) < alpha + dth)


# ----------------------------------------------------------------------------- Winkler
@pytest.mark.parametrize("params", [
    {"layer_thickness": 5e-3},
    {"layer_thickness": 2e-3, "modulus_rule": "bonded"},
    {"calibrate": "persson", "calibration_load": 8e3},
])
def test_winkler_batch_equals_loop(registry, params):
    """Compiled, warm-started batch == loop of solve_load on worn gaps turning per sample: the
    equilibrium is the unique minimiser of a convex potential, so both end on the same contact set
    and the same 2x2 equilibrium: equal to rounding (1e-9 allowed: rounding of u = N e - gap is
    amplified by the conditioning of narrow contacts), and the batch's resultant equals the load
    to 1e-9."""
    model = registry.create("pressure", "winkler", params)
    n, ns = 720, 300
    th = theta(n)
    wear = crescent(th, 4e-6, 0.5)
    sec = BoreSection(th, R, C + wear, B, BRONZE, STEEL)
    loads = load_path(ns)
    gaps = worn_gaps(th, ns, wear)
    p, e = model.solve_loads(sec, loads, gaps)
    p_ref, e_ref = reference(model, sec, loads, gaps)
    assert relative_rows(p, p_ref) <= 1e-9
    assert np.max(np.abs(e - e_ref)) <= 1e-9 * np.max(np.abs(e_ref))
    force = R * B * (2 * np.pi / n) * p @ sec.normals
    mags = np.hypot(loads[:, 0], loads[:, 1])
    on = mags > 0
    assert np.max(np.linalg.norm(force - loads, axis=1)[on] / mags[on]) <= 1e-9


def test_winkler_batch_calibrates_once_at_the_mean_load(registry):
    """calibrate='persson' without calibration_load: one k for the batch, at the mean magnitude of
    the loaded samples (documented choice), so the batch equals the loop calibrated at that load."""
    n, ns = 360, 60
    th = theta(n)
    sec = BoreSection(th, R, np.full(n, C), B, BRONZE, STEEL)
    loads = load_path(ns)
    mags = np.hypot(loads[:, 0], loads[:, 1])
    mean = float(np.mean(mags[mags > 0]))
    batch = registry.create("pressure", "winkler", {"calibrate": "persson"})
    fixed = registry.create("pressure", "winkler", {"calibrate": "persson", "calibration_load": mean})
    assert batch.batch_stiffness(sec, loads) == pytest.approx(fixed.stiffness(sec, mean), rel=1e-14)
    p, _ = batch.solve_loads(sec, loads)
    p_ref, _ = reference(fixed, sec, loads)
    assert relative_rows(p, p_ref) <= 1e-9


def test_winkler_batch_matches_rigid_journal_closed_form(registry):
    """docs/validation.md, rigid journal in a Winkler-lined bushing: p = k (delta cos theta - dR),
    P = R k dR (eps - sin eps cos eps)/cos eps, p_max = k dR (1/cos eps - 1).  Loads for
    eps = 15..70 deg in several directions in one batch; 0.5 %: the nodal sums on 720 nodes
    approximate the integrals to O(dtheta^2) inside and O(dtheta) at the linear edge."""
    L = 2e-3
    model = registry.create("pressure", "winkler", {"layer_thickness": L})
    n = 720
    th = theta(n)
    sec = BoreSection(th, R, np.full(n, C), B, STEEL, RIGID)
    k = STEEL.E / L
    eps = np.radians([15.0, 30.0, 45.0, 60.0, 70.0])
    directions = np.radians([0.0, 100.3, -33.0, 200.0, 271.1])
    P = np.array([cf.winkler_load(x, k, R, C) for x in eps])
    loads = (P * B)[:, None] * np.column_stack([np.cos(directions), np.sin(directions)])
    p, e = model.solve_loads(sec, loads)
    assert model.batch_stiffness(sec, loads) == pytest.approx(k, rel=1e-14)
    for i, x in enumerate(eps):
        assert p[i].max() == pytest.approx(k * C * (1 / math.cos(x) - 1), rel=5e-3)
        assert half_angle(th, p[i], edge_exponent=1.0) == pytest.approx(x, rel=5e-3)
        assert np.linalg.norm(e[i]) == pytest.approx(C / math.cos(x), rel=5e-3)
        # approach along the load up to the nodes' asymmetry about an arbitrary direction
        assert abs(cross(e[i], loads[i])) <= 1e-6 * np.linalg.norm(e[i]) * P[i] * B


def test_winkler_worn_crescent_lobes(registry):
    """Journal pressed into a worn pocket gap = c + h0 max(0, cos(theta - theta_w))^2.

    Load on the pocket axis: by symmetry the approach is along the load, and the penetration
    e cos(phi) - c - h0 cos^2(phi) peaks where cos(phi) = e/(2 h0) (phi = theta - theta_w, while
    e < 2 h0): two lobes either side of the pocket, the pocket floor less loaded (p = k u exactly,
    so the peak node is within one node of the closed-form angle).
    Load off the axis by beta: the pressure peak lies beyond the load direction, on the shallow
    side away from the pocket, while the journal centre settles towards the pocket axis (the
    approach turns from the load towards theta_w, by less than beta); equilibrium exact, 1e-9."""
    model = registry.create("pressure", "winkler", {"layer_thickness": 5e-3})
    n = 720
    th = theta(n)
    dth = 2 * np.pi / n
    tw, h0 = np.radians(250.0), 3 * C
    gap = C + crescent(th, h0, tw)
    sec = BoreSection(th, R, gap, B, BRONZE, STEEL)
    beta = np.radians(15.0)
    loads = 2e4 * np.array([[math.cos(tw), math.sin(tw)], [math.cos(tw + beta), math.sin(tw + beta)]])
    p, e = model.solve_loads(sec, loads)
    force = R * B * dth * p @ sec.normals
    np.testing.assert_allclose(force, loads, rtol=1e-9, atol=1e-9 * 2e4)
    # on the axis: symmetric lobes at cos(phi*) = |e|/(2 h0)
    em = np.linalg.norm(e[0])
    assert abs(cross(e[0], loads[0])) <= 1e-9 * em * 2e4
    assert em < 2 * h0
    phi_star = math.acos(em / (2 * h0))
    phi = np.angle(np.exp(1j * (th - tw)))
    for side in (+1, -1):
        half = p[0] * (side * phi > 0)
        assert abs(phi[np.argmax(half)] - side * phi_star) <= dth
    assert p[0][np.argmin(np.abs(phi))] < 0.8 * p[0].max()
    # off the axis: peak beyond the load direction, away from the pocket; approach turned too
    peak = th[np.argmax(p[1])]
    assert np.angle(np.exp(1j * (peak - (tw + beta)))) > 0
    turn = np.angle(np.exp(1j * (math.atan2(e[1, 1], e[1, 0]) - (tw + beta))))
    assert -beta < turn < -np.radians(1.0)


def test_winkler_small_loads_are_solved(registry):
    """Contact onsets carry loads down to 1e-30 N, where the penetrations N e - gap of a direct
    solve would be rounding noise (the loop used to return no pressure at all, or fail); below the
    floor both paths solve at the floor and scale (exact while two nodes carry the load, as they
    do there): pressure >= 0, equilibrium to 1e-8 (rounding at the floor, 1e-16/1e-6 amplified by
    the conditioning of a two-node contact) and batch == loop to 1e-8."""
    sec, loads, gaps = small_load_case(n=720, ns=40)
    model = registry.create("pressure", "winkler", {"layer_thickness": 5e-3})
    p, e = model.solve_loads(sec, loads, gaps)
    p_ref, e_ref = reference(model, sec, loads, gaps)
    mags = np.hypot(loads[:, 0], loads[:, 1])
    assert p.min() >= 0.0
    force = R * B * (2 * np.pi / len(sec.theta)) * p @ sec.normals
    assert np.max(np.linalg.norm(force - loads, axis=1) / mags) <= 1e-8
    assert relative_rows(p, p_ref) <= 1e-8
    assert np.max(np.abs(e - e_ref)) <= 1e-8 * C


# ----------------------------------------------------------------------------- FE
def test_fem_batch_equals_loop_without_rebuild(registry):
    """FE batch == loop of solve_load (same compliance, same warm-started active-set sweep, same
    tolerances: equal to rounding, 1e-9 allowed); one FE model serves the whole batch while each
    sample's gap (worn bushing + turned worn journal) enters as the initial gap; equilibrium 1e-9."""
    n, ns = 120, 60
    th = theta(n)
    wear = crescent(th, 1e-6, 0.5)
    sec = BoreSection(th, R, C + wear, B, BRONZE, STEEL)
    loads = load_path(ns)
    gaps = worn_gaps(th, ns, wear, journal_depth=5e-7)
    model = registry.create("pressure", "fem", {})
    p, e = model.solve_loads(sec, loads, gaps)
    assert len(model._solvers) == 1
    loop = registry.create("pressure", "fem", {})
    p_ref, e_ref = reference(loop, sec, loads, gaps)
    assert relative_rows(p, p_ref) <= 1e-9
    assert np.max(np.abs(e - e_ref)) <= 1e-9 * np.max(np.abs(e_ref))
    force = R * B * (2 * np.pi / n) * p @ sec.normals
    mags = np.hypot(loads[:, 0], loads[:, 1])
    on = mags > 0
    assert np.max(np.linalg.norm(force - loads, axis=1)[on] / mags[on]) <= 1e-9
    p1, _ = model.solve_loads(sec, loads)          # gaps=None: section.gap for all samples
    p1_ref, _ = reference(loop, sec, loads)
    assert relative_rows(p1, p1_ref) <= 1e-9


def test_fem_batch_resumes_after_a_fallback(registry, monkeypatch):
    """Samples whose compiled sweep does not settle (forced here by a one-sweep limit) go through
    ContactSolver.solve's one-node-at-a-time fallback and the compiled loop resumes after them:
    the batch still equals the loop of an unrestricted solver (unique LCP solution, 1e-9)."""
    n, ns = 120, 30
    th = theta(n)
    sec = BoreSection(th, R, np.full(n, C), B, BRONZE, STEEL)
    loads = load_path(ns, seed=3)
    gaps = worn_gaps(th, ns, 0.0, journal_depth=5e-7)
    model = registry.create("pressure", "fem", {})
    solver = model.solver(sec)
    solver.max_iter = 1
    calls = []
    solve = solver.solve
    monkeypatch.setattr(solver, "solve", lambda *a, **k: calls.append(1) or solve(*a, **k))
    p, e = model.solve_loads(sec, loads, gaps)
    loaded = int(np.count_nonzero(np.any(loads, axis=1)))
    assert 0 < len(calls) < loaded      # both paths taken
    p_ref, e_ref = reference(registry.create("pressure", "fem", {}), sec, loads, gaps)
    assert relative_rows(p, p_ref) <= 1e-9
    assert np.max(np.abs(e - e_ref)) <= 1e-9 * np.max(np.abs(e_ref))


def test_updated_factor_equals_a_fresh_one():
    """The batch's Cholesky factor, updated over many node deletions (rank-one update of the
    trailing block) and appends, still factors C[A, A] of the current set: ||L L^T - C_AA|| is
    rounding-level (1e-12 of ||C||) after 200 random changes."""
    from workbench.fem.updating import append, delete, factor
    rng = np.random.default_rng(5)
    n = 60
    X = rng.standard_normal((n, n))
    Cp = X @ X.T / n + np.eye(n)
    order = np.zeros(n, dtype=np.int64)
    L = np.zeros((n, n))
    order[:20] = rng.choice(n, 20, replace=False)
    m = 20
    assert factor(Cp, order, m, L)
    for _ in range(200):
        if m > 5 and (m == n or rng.random() < 0.5):
            m = delete(order, m, L, int(rng.integers(m)))
        else:
            j = int(rng.choice(np.setdiff1d(np.arange(n), order[:m])))
            m, ok = append(Cp, order, m, L, j)
            assert ok
    A = order[:m]
    assert len(set(A.tolist())) == m
    Lm = np.tril(L[:m, :m])
    assert np.abs(Lm @ Lm.T - Cp[np.ix_(A, A)]).max() <= 1e-12 * np.abs(Cp).max()


def test_fem_needs_the_mesh_nodes(registry):
    """The FE bore nodes are theta_k = 2 pi k / n: a section on other angles (here shifted by half
    a node) would put each gap on the wrong node, so it is refused with the rule in the message."""
    n = 120
    th = theta(n) + np.pi / n
    sec = BoreSection(th, R, np.full(n, C), B, BRONZE, STEEL)
    model = registry.create("pressure", "fem", {})
    with pytest.raises(WorkbenchError, match=r"theta_k = 2 pi k / n.*theta\[0\]"):
        model.solve_loads(sec, [[1e3, 0.0]])


def small_load_case(n=120, ns=24, seed=11):
    """Loads from 1e-30 N to 1 kN in random directions on a worn gap (contact onsets)."""
    rng = np.random.default_rng(seed)
    th = theta(n)
    wear = crescent(th, 1e-5, 1.0)
    sec = BoreSection(th, R, C + wear, B, BRONZE, STEEL)
    mag = 10 ** rng.uniform(-30, 3, ns)
    ang = rng.uniform(-np.pi, np.pi, ns)
    loads = np.column_stack([mag * np.cos(ang), mag * np.sin(ang)])
    gaps = np.array([C + wear + crescent(th, 2e-6, a) for a in rng.uniform(0, 2 * np.pi, ns)])
    return sec, loads, gaps


def test_fem_small_loads_are_solved(registry):
    """Contact onsets carry loads down to 1e-30 N (and up to 1 kN here); the primal-dual sweep alone can fall to a
    single node there (singular).  Batch and loop must both solve every sample: pressure >= 0,
    equilibrium (1e-8: at the load floor the elastic displacement is 1e-6 of the gap, so rounding
    of gap - N e leaves ~1e-10 relative, amplified by the conditioning of the set), and agree with
    each other to 1e-6 (the loop works on the unshifted gap: its own rounding at small loads)."""
    sec, loads, gaps = small_load_case()
    model = registry.create("pressure", "fem", {})
    p, e = model.solve_loads(sec, loads, gaps)
    loop = registry.create("pressure", "fem", {})
    p_ref, e_ref = reference(loop, sec, loads, gaps)
    mags = np.hypot(loads[:, 0], loads[:, 1])
    n = len(sec.theta)
    assert p.min() >= 0.0
    force = R * B * (2 * np.pi / n) * p @ sec.normals
    assert np.max(np.linalg.norm(force - loads, axis=1) / mags) <= 1e-8
    assert relative_rows(p, p_ref) <= 1e-6
    assert np.max(np.abs(e - e_ref)) <= 1e-6 * C


def test_fem_load_floor_is_continuous(registry):
    """Below the load floor (elastic displacement FLOOR x gap scale) the pressure is solved at the
    floor and scaled: the rigid limit, where the contact stays on the nodes of the rigid touch.
    Check that p/F just below and just above the floor agree (1e-4: the elastic change of p/F
    across a factor 1.02 of load at 1e-6 of the gap), on a worn gap and an off-node direction."""
    from workbench.fem.primal import FLOOR
    sec, _, gaps = small_load_case()
    model = registry.create("pressure", "fem", {})
    solver = model.solver(sec)
    scale = B * R * 2 * np.pi / len(sec.theta)
    gscale = max(np.max(np.abs(gaps[0])), 1e-6 * R)
    F_floor = FLOOR * gscale / np.max(np.diag(solver.Cp)) * scale
    d = np.array([math.cos(0.77), math.sin(0.77)])
    loads = np.array([0.99 * F_floor * d, 1.01 * F_floor * d])
    p, _ = model.solve_loads(sec, loads, np.array([gaps[0], gaps[0]]))
    q = p / np.array([0.99, 1.01])[:, None]
    assert np.count_nonzero(q[0]) >= 2
    assert np.abs(q[0] - q[1]).max() <= 1e-4 * q[1].max()


def test_primal_active_set_matches_the_sweep(registry):
    """The primal active-set method (Nocedal & Wright Alg. 16.3) solves the same strictly convex
    QP as the primal-dual sweep: the same pressure and approach on ordinary loads (unique
    solution; 1e-9 relative, both to rounding)."""
    from workbench.fem.primal import solve_primal
    n = 120
    th = theta(n)
    sec = BoreSection(th, R, C + crescent(th, 1e-6, 0.5), B, BRONZE, STEEL)
    solver = registry.create("pressure", "fem", {}).solver(sec)
    scale = B * R * 2 * np.pi / n
    for F in ([2e4, 5e3], [-3e3, 1e2], [10.0, -40.0]):
        F = np.asarray(F)
        ref = solver.solve(sec.gap, load=F, warm=False)
        p, e = solve_primal(solver.Cp, solver.N, sec.gap, F / scale, solver.tol * np.max(sec.gap))
        assert np.abs(p - ref.pressure).max() <= 1e-9 * ref.pressure.max()
        assert np.abs(e - ref.eccentricity).max() <= 1e-9 * np.abs(ref.eccentricity).max()
