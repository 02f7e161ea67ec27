"""The distributed (Winkler) contact over worn bores, :mod:`workbench.mbs.distributed`.

Oracles:
* unworn: the closed form of a rigid journal in a Winkler-lined bore (Wang & Liu (2015) eq. 23
  integrated over the arc, ``F = b R k d (eps - sin eps cos eps)``, ``cos eps = c/d``), and the
  Persson (1964) half-angle of a pin in a hole (Ciavarella & Decuzzi (2001)) the
  calibrated foundation must reproduce, which tends to Hertz's line contact (Johnson (1985)
  §4.3, ``a^2 = 4 P R* / (pi E*)``) at small loads;
* a journal seated in a matching worn pocket: the conformal closed form
  ``F = b R k [delta (beta + sin beta cos beta) + 2 int_beta^beta' (d cos - c) cos]``;
* two grooves: two patches, and the resultant carries the applied load (force balance);
* energy: kinetic + potential + contact work + dissipation - driver work constant with e = 1 and
  no friction (the contact force is the gradient of ``V = (k/2) R b int u+^2``);
* rotation invariance: the same profiles turned give the same force turned;
* the compiled fast path against the numpy reference path.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from mechanisms import OMEGA, slider_crank
from workbench.errors import MechanismError
from workbench.fem import closed_forms as cf
from workbench.mbs import distributed as D
from workbench.mbs import kernels
from workbench.mbs.distributed_joint import resultants
from workbench.mbs.distributed_reference import profile_row, reference_contact
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import simulate
from workbench.models import ContactGeometry, Material
from workbench.plugins import build_registry, get_plugin_manager

STEEL = Material(E=207e9, nu=0.3)
RB, RJ, B = 0.0105, 0.0100, 0.010
C0 = RB - RJ
PIN = ContactGeometry(kind="cylindrical", radius_journal=RJ, radius_bushing=RB, length=B,
                      journal=STEEL, bushing=STEEL)
K = 3.0e13   # an explicit foundation modulus [Pa/m]
M = 720
NO_FRICTION = kernels.no_friction()


@pytest.fixture
def reg():
    """The registry with the distributed law (registered in-process until the package is
    reinstalled with its entry point)."""
    r = build_registry()
    if "distributed_winkler" not in r.names("contact"):
        import workbench_plugins.contact.distributed_winkler as dw
        r = build_registry(get_plugin_manager(extra_plugins=(dw,)))
    return r


def _cp(k=K, e=1.0, ng=4, pieces=4):
    return np.array([k, B, 0.75 * (1 - e * e), 1e-4, ng, pieces], float)


def _fast(row, cp, e, edot=(0.0, 0.0), phi=0.0, phd=0.0, vrel=(0.0, 0.0), wrel=0.0, dm=1.0,
          fk=NO_FRICTION, fpar=np.zeros(1)):
    res, ok = resultants(row, cp, e[0], e[1], edot[0], edot[1], phi, phd, vrel[0], vrel[1], wrel,
                           dm, fk, np.asarray(fpar, float), 0.0)
    assert ok
    return res


def _closed_form(delta, k=K):
    d = C0 + delta
    eps = math.acos(C0 / d)
    return B * RB * k * d * (eps - math.sin(eps) * math.cos(eps))


def _polar(r, a):
    return np.array([r * math.cos(a), r * math.sin(a)])


def pocket(e0, direction=0.0, nodes=M):
    """Bushing depths of the pocket a journal at eccentricity ``e0`` along ``direction`` wears:
    ``h_b = max(e0 cos(psi - direction) - c0, 0)`` (small-displacement overlap)."""
    psi = np.arange(nodes) * 2 * math.pi / nodes
    return np.clip(e0 * np.cos(psi - direction) - C0, 0.0, None)


# ------------------------------------------------------------------------------------------
# unworn: the Winkler closed form, Persson / Hertz through the calibration
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("delta", [1e-8, 1e-7, 1e-6, 1e-5, 1e-4])
def test_unworn_force_matches_the_winkler_closed_form(delta):
    """Gauss quadrature over the one arc reproduces F = b R k d (eps - sin eps cos eps) and
    points along the eccentricity, to 1e-10 (4 pieces x 4 points of a smooth integrand)."""
    row = profile_row(RB, RJ)
    for a in (0.0, 0.7, -2.9):
        res = _fast(row, _cp(), _polar(C0 + delta, a))
        F = math.hypot(res[D.R_FBX], res[D.R_FBY])
        assert F == pytest.approx(_closed_form(delta), rel=1e-10)
        assert math.atan2(res[D.R_FBY], res[D.R_FBX]) == pytest.approx(a, abs=1e-12)
        assert res[D.R_PATCHES] == 1 and res[D.R_DELTA] == pytest.approx(delta, rel=1e-9)
        assert res[D.R_TORQUE] == 0.0    # a round journal has no torque about its centre


def test_zero_profiles_take_the_same_values_as_the_circular_joint():
    """Nodal profiles all zero (a wear study's first update) are the circular joint exactly."""
    z = np.zeros(M)
    e = _polar(C0 + 3e-6, 1.1)
    a = _fast(profile_row(RB, RJ), _cp(), e)
    b = _fast(profile_row(RB, RJ, z, z), _cp(), e)
    assert np.array_equal(a, b)


def test_uniform_wear_is_a_larger_circle():
    """Uniform depths h_b + h_j = w: the closed form with clearance c0 + w (the quasi-interpolant
    reproduces constants exactly; the Hermite segments then equal the circle)."""
    w = 40e-6
    row = profile_row(RB, RJ, np.full(M, 0.75 * w), np.full(M, 0.25 * w))
    delta = 2e-6
    res = _fast(row, _cp(), _polar(C0 + w + delta, 0.4), phi=0.3)
    d = C0 + w + delta
    eps = math.acos((C0 + w) / d)
    F = B * RB * K * d * (eps - math.sin(eps) * math.cos(eps))
    assert math.hypot(res[D.R_FBX], res[D.R_FBY]) == pytest.approx(F, rel=1e-8)
    assert abs(res[D.R_TORQUE]) < 1e-12 * F * C0


def _approach_for(load, cp):
    row = profile_row(RB, RJ)
    return brentq(lambda d: math.hypot(*_fast(row, cp, (C0 + d, 0.0))[:2]) - load, 1e-12, 1e-3,
                  xtol=1e-18, rtol=1e-14)


@pytest.mark.parametrize("load", [50.0, 500.0, 5000.0])
def test_persson_calibration_gives_persson_half_angle(reg, load):
    """calibrate = 'persson' at the load: the contact arc of the unworn joint under that load has
    Persson's half-angle (Ciavarella & Decuzzi (2001)) to 1e-6.  The one-parameter
    foundation cannot also match Persson's peak pressure: over a small arc Winkler's pressure is a
    parabola (peak 3/2 of the mean) and the elastic one an ellipse (peak 4/pi of the mean, Johnson
    (1985) §4.3), so with equal load and width the Winkler peak is 3 pi / 8 = 1.178 of the
    elastic one (measured: 1.1781 at 50 N, 1.1780 at 5 kN, 1.1768 at 50 kN where the arc is 19 deg)."""
    law = reg.create("contact", "distributed_winkler", {"calibrate": "persson", "calibration_load": load})
    cp = law.pack(PIN)
    delta = _approach_for(load, cp)
    eps = math.acos(C0 / (C0 + delta))
    target = cf.persson_half_angle(load / B, PIN.E_star, C0)
    assert eps == pytest.approx(target, rel=1e-6)
    ratio = cp[D.P_K] * delta / cf.persson_peak(target, load / B, RB)
    assert ratio == pytest.approx(3 * math.pi / 8, rel=2e-4)


def test_calibrated_half_angle_tends_to_hertz_at_small_loads(reg):
    """At 5 N on this steel joint Persson's arc is Hertz's line contact (Johnson (1985) §4.3,
    half-width a = sqrt(4 P R*/(pi E*)), R* = R_j R_b/(R_b - R_j)): the calibrated foundation's arc
    measured at the mean radius (Persson's theory is first order in c/R, which leaves the radius the
    angle refers to open by c/R = 5 %: at R_b the arc is 2.5 % longer, at R_j 2.4 % shorter) equals
    Hertz's half-width to 1e-3 (measured 3e-4)."""
    load = 5.0
    law = reg.create("contact", "distributed_winkler", {"calibrate": "persson", "calibration_load": load})
    delta = _approach_for(load, law.pack(PIN))
    eps = math.acos(C0 / (C0 + delta))
    a, _ = cf.hertz_internal(load / B, RJ, RB, PIN.E_star)
    assert eps * 0.5 * (RB + RJ) == pytest.approx(a, rel=1e-3)


def test_force_matches_the_closed_form_law_kernel(reg):
    """The plugin's force() (the closed form) and the integrated bore agree, damping included
    (the local rate of a pure radial approach is d_dot cos(psi): the damping factor differs from the
    global one; here e = 1)."""
    law = reg.create("contact", "distributed_winkler", {"restitution": 1.0, "stiffness": K})
    for delta in (1e-7, 5e-6):
        res = _fast(profile_row(RB, RJ), law.pack(PIN), (C0 + delta, 0.0))
        assert res[D.R_FBX] == pytest.approx(float(law.force(delta, 0.1, 1.0, PIN)), rel=1e-10)


# ------------------------------------------------------------------------------------------
# worn: conformal pocket, two grooves, rotation, fast vs reference
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("nodes, tol", [(720, 3e-3), (5760, 1e-4)])
def test_journal_seated_in_its_worn_pocket_matches_the_conformal_closed_form(nodes, tol):
    """Pocket worn at eccentricity e0 (h_b = max(e0 cos psi - c0, 0)), journal at e0 + delta:
    u = min(delta cos psi, d cos psi - c0), so F = b R k [delta (beta + sin beta cos beta) + 2 int_beta^beta'
    (d cos psi - c0) cos psi dpsi], cos beta = c0/e0, cos beta' = c0/d.  Linear in delta (conformal),
    unlike the 3/2 power of the fresh joint.  The interpolated pocket rounds its edge kink over about
    one node; measured relative errors (delta = 0.5 um, 2 um): 360 nodes -3.5e-3, -4.5e-3; 720: 1.7e-3,
    3.2e-4; 1440: -2.2e-4, -7e-5; 5760: 5e-5, 1.4e-5."""
    e0 = C0 + 100e-6
    row = profile_row(RB, RJ, pocket(e0, nodes=nodes), np.zeros(nodes))
    beta = math.acos(C0 / e0)
    for delta in (0.5e-6, 2e-6):
        d = e0 + delta
        bp = math.acos(C0 / d)
        g = lambda x: d * (x + math.sin(x) * math.cos(x)) / 2 - C0 * math.sin(x)   # noqa: E731
        F = B * RB * K * (delta * (beta + math.sin(beta) * math.cos(beta)) + 2 * (g(bp) - g(beta)))
        res = _fast(row, _cp(), (d, 0.0))
        assert res[D.R_FBX] == pytest.approx(F, rel=tol)
        assert abs(res[D.R_FBY]) < 1e-9 * F
        assert res[D.R_PATCHES] == 1
    # the conformal contact is much stiffer than the fresh joint at the same approach (12.5x at 1 um)
    assert _fast(row, _cp(), (e0 + 1e-6, 0.0))[D.R_FBX] > 10 * _closed_form(1e-6)


def grooves(depth=30e-6, width=0.06, at=(-0.2, 0.2)):
    psi = np.arange(M) * 2 * math.pi / M
    h = np.zeros(M)
    for a in at:
        dpsi = (psi - a + math.pi) % (2 * math.pi) - math.pi
        h += depth * np.exp(-(dpsi / width) ** 2)
    return h


def test_a_groove_splits_the_contact_into_two_patches_that_carry_the_load():
    """A groove narrower than the contact: the journal pressed into it along its axis touches on the
    two lands beside it (two patches, symmetric); solving for the approach that carries a load
    P, the resultant equals P (force balance) and the patches share it equally."""
    h = grooves(depth=30e-6, width=0.05, at=(0.0,))
    row = profile_row(RB, RJ, h, np.zeros(M))
    P = 2000.0
    d = brentq(lambda x: _fast(row, _cp(), (x, 0.0))[D.R_FBX] - P, C0, C0 + 20e-6, xtol=1e-18, rtol=1e-14)
    res = _fast(row, _cp(), (d, 0.0))
    assert res[D.R_PATCHES] == 2
    assert res[D.R_FBX] == pytest.approx(P, rel=1e-10)
    assert abs(res[D.R_FBY]) < 1e-9 * P
    ref = reference_contact(h, np.zeros(M), RB, RJ, _cp(), (d, 0.0), (0.0, 0.0), 0.0)
    assert ref["patches"] == 2
    up = ref["grid"] < math.pi
    s = RB * B * 2 * math.pi / len(ref["grid"])
    upper = s * float(ref["p"][up] @ np.cos(ref["grid"][up]))
    lower = s * float(ref["p"][~up] @ np.cos(ref["grid"][~up]))
    assert upper == pytest.approx(lower, rel=1e-6) and upper + lower == pytest.approx(P, rel=1e-4)
    # the point-contact route sees only one of the two maxima: here the whole load on one land


@pytest.mark.parametrize("overlap, angle, patches", [(20e-6, 0.1, 2), (40e-6, 0.0, 3)])
def test_two_grooves_give_several_patches(overlap, angle, patches):
    """Two grooves (30 um deep, at -0.2 and +0.2 rad): the journal pressed 20 um at 0.1 rad touches
    on two lands, 40 um along 0 on three; patch count and resultant as the reference grid."""
    h = grooves()
    row = profile_row(RB, RJ, h, np.zeros(M))
    e = _polar(C0 + overlap, angle)
    res = _fast(row, _cp(), e)
    ref = reference_contact(h, np.zeros(M), RB, RJ, _cp(), e, (0.0, 0.0), 0.0)
    assert res[D.R_PATCHES] == ref["patches"] == patches
    assert res[D.R_FBX] == pytest.approx(ref["fbx"], rel=1e-6)
    assert res[D.R_FBY] == pytest.approx(ref["fby"], abs=1e-6 * ref["fbx"])


def _worn_pair(rng):
    psi = np.arange(M) * 2 * math.pi / M
    hb = 20e-6 * (1 + np.cos(psi - 0.5)) ** 2 / 4 + 3e-6 * np.sin(5 * psi) ** 2
    hj = 10e-6 * (1 + np.cos(psi + 1.2)) ** 3 / 8 + 1e-6 * rng.random(M)
    return hb, hj


def test_fast_path_agrees_with_the_numpy_reference():
    """Both worn, journal turned, approaching and sliding, with damping and Coulomb friction: the
    compiled patch quadrature and the numpy trapezoid grid (40 000 directions) agree to 1e-5."""
    rng = np.random.default_rng(7)
    hb, hj = _worn_pair(rng)
    row = profile_row(RB, RJ, hb, hj)
    from workbench_plugins.friction.coulomb import Coulomb   # noqa: F401  (the registry's law)
    reg = build_registry()
    law = reg.create("friction", "coulomb", {"mu": 0.1})
    fk = kernels.friction_cfunc(type(law).kernel)
    fpar = law.pack()
    kern = type(law).kernel.py_func

    def friction(vt, fn):
        return np.array([kern(v, f, 0.0, fpar)[0] for v, f in zip(vt, fn)])

    cp = _cp(e=0.8)
    for a, phi in ((0.45, 0.3), (2.0, -1.0), (-2.5, 4.0)):
        e = _polar(C0 + 25e-6, a)
        args = dict(edot=(0.03, -0.02), phi=phi, phd=40.0, vrel=(0.1, 0.2), wrel=0.3, dm=0.5)
        res = _fast(row, cp, e, fk=fk, fpar=fpar, **args)
        ref = reference_contact(hb, hj, RB, RJ, cp, e, args["edot"], phi, args["phd"], args["vrel"],
                                args["wrel"], args["dm"], friction=friction)
        F = math.hypot(ref["fbx"], ref["fby"])
        assert F > 100.0
        for key, col in (("fbx", D.R_FBX), ("fby", D.R_FBY), ("ftx", D.R_FTX), ("fty", D.R_FTY),
                         ("ft", D.R_FT), ("fnsum", D.R_FNSUM)):
            assert res[col] == pytest.approx(ref[key], abs=1e-5 * F), key
        assert res[D.R_TORQUE] == pytest.approx(ref["torque"], abs=1e-5 * F * 1e-4)
        assert res[D.R_PC] == pytest.approx(ref["pc"], abs=1e-5 * F * 0.1)
        assert res[D.R_DELTA] == pytest.approx(ref["delta"], abs=1e-10)
        assert res[D.R_PATCHES] == ref["patches"]
        gap, psi, _ = D.distributed_gap(row, e[0], e[1], phi)
        assert gap == pytest.approx(res[D.R_DELTA], abs=1e-15)


def test_node_pass_equals_the_per_node_spline_data_and_the_bound_holds():
    """The fast node pass (one control point per node, one set of journal basis weights for the
    whole window) gives the per-node spline data of ``_node`` to rounding, over a window that wraps
    past node 0; and the segment bound (largest e.n minus the Hermite cubic's lowest reach,
    de Boor (2001) ch. XII for the splines) is >= the overlap sampled at 50 points of every segment,
    so the screen that skips segments with a bound <= 0 skips no contact."""
    from workbench.mbs.distributed_nodes import bound, nodes
    rng = np.random.default_rng(3)
    hb, hj = _worn_pair(rng)
    row = profile_row(RB, RJ, hb, hj)
    dth = 2 * math.pi / M
    for phi, (k_lo, k_hi) in ((0.3, (-40, 35)), (-7.1, (M - 20, M + 30)), (2.0, (100, 180))):
        e = _polar(C0 + 20e-6, (k_lo + k_hi) / 2 * dth)
        nd, umax = nodes(row, M, k_lo, k_hi, phi, C0, True, e[0], e[1])
        for i, k in enumerate(range(k_lo, k_hi + 1)):
            np.testing.assert_allclose(nd[i, :4], D._node(row, M, k, phi, C0, True), rtol=1e-11, atol=1e-15)
        t = np.linspace(0.0, 1.0, 50)
        em = math.hypot(*e)
        for i in range(k_hi - k_lo):
            a1, s1, _, _ = nd[i, :4]; a2, s2, _, _ = nd[i + 1, :4]
            u = np.array([D._u(x, dth, nd[i, 4], nd[i, 5], a1, s1 * dth, a2, s2 * dth)[0] for x in t])
            assert bound(nd, i, dth, math.cos(dth), math.sin(dth), em) >= u.max() - 1e-18
        assert umax == pytest.approx(max(nd[i, 4] - nd[i, 0] for i in range(k_hi - k_lo)), abs=0)


def test_the_nodal_cubic_of_the_overlap_stays_within_its_hermite_error_bound():
    """The patch search runs on ``p``, the cubic Hermite of the overlap through its nodal values
    and slopes (workbench.mbs.distributed_segment): on every segment of a window of a rough worn
    pair (node-scale roughness), sampled at 200 points, ``|u - p| <= |e| dth^4 / 384`` (the error
    term of cubic Hermite interpolation, Burden & Faires (2011) §3.4, with ``|d^4 (e.n)/dt^4| <=
    |e| dth^4``) and the bound is not slack by more than a factor 100 (it is the trigonometric
    part alone); the closed-form critical points of ``p`` are stationary points of ``p``, and the
    cubic's largest value plus the bound is >= the sampled overlap (the screen skips no contact)."""
    from workbench.mbs import distributed_segment as S
    from workbench.mbs.distributed_nodes import nodes
    rng = np.random.default_rng(11)
    hb, hj = _worn_pair(rng)
    hb = hb + 2e-6 * rng.random(M)
    row = profile_row(RB, RJ, hb, hj)
    dth = 2 * math.pi / M
    t = np.linspace(0.0, 1.0, 200)
    worst = 0.0
    for phi, (k_lo, k_hi) in ((0.3, (-40, 35)), (2.0, (100, 180))):
        e = _polar(C0 + 20e-6, (k_lo + k_hi) / 2 * dth)
        em = math.hypot(*e)
        err = em * dth ** 4 / 384.0
        nd, _ = nodes(row, M, k_lo, k_hi, phi, C0, True, e[0], e[1])
        for i in range(k_hi - k_lo):
            a1, s1, a2, s2 = nd[i, 0], nd[i, 1], nd[i + 1, 0], nd[i + 1, 1]
            A1, B1, A2, B2 = nd[i, 4], nd[i, 5], nd[i + 1, 4], nd[i + 1, 5]
            u1, u2 = A1 - a1, A2 - a2
            d0, d1 = dth * (B1 - s1), dth * (B2 - s2)
            c2, c3 = S.cubic(u1, d0, u2, d1)
            p = u1 + t * (d0 + t * (c2 + t * c3))
            u = np.array([S._u(x, dth, A1, B1, a1, s1 * dth, a2, s2 * dth)[0] for x in t])
            gap = np.max(np.abs(u - p))
            assert gap <= err * (1 + 1e-6) + 1e-19
            worst = max(worst, gap)
            nc, t1, t2 = S.cubic_critical(d0, c2, c3)
            for tc in (t1, t2)[:nc]:
                assert 0.0 < tc < 1.0
                assert abs(d0 + tc * (2 * c2 + 3 * tc * c3)) <= 1e-9 * (abs(d0) + abs(c2) + abs(c3))
            assert S.cubic_max(u1, d0, c2, c3, u2, nc, t1, t2) + err >= u.max()
    assert worst > err / 100.0


def test_out_of_contact_the_largest_overlap_is_the_gap_searchs():
    """A worn journal near, but clear of, its bushing (inside the search window): no force, no
    patch, and the largest overlap the contact call records (negative) is the event detection's
    (distributed_gap), which the numpy reference's grid maximum approaches from below."""
    rng = np.random.default_rng(5)
    hb, hj = _worn_pair(rng)
    row = profile_row(RB, RJ, hb, hj)
    for a, phi in ((0.45, 0.3), (2.0, -1.0)):
        e0 = _polar(1.0, a)
        ref0 = reference_contact(hb, hj, RB, RJ, _cp(), C0 * e0, (0.0, 0.0), phi)
        r = C0 - ref0["delta"] - 3e-6   # the largest overlap about -3 um (it grows with |e| at ~1 m/m)
        res = _fast(row, _cp(), r * e0, phi=phi)
        gap, psi, _ = D.distributed_gap(row, *(r * e0), phi)
        ref = reference_contact(hb, hj, RB, RJ, _cp(), r * e0, (0.0, 0.0), phi)
        assert res[D.R_FBX] == res[D.R_FBY] == res[D.R_PATCHES] == 0.0
        assert -5e-6 < gap < -1e-6
        assert res[D.R_DELTA] == gap and res[D.R_PSI] == psi
        assert ref["delta"] <= gap + 1e-15 and ref["delta"] == pytest.approx(gap, abs=1e-10)


def test_turned_profiles_give_the_turned_force():
    """Rotation invariance: bushing and journal profiles turned by m nodes, the eccentricity turned
    by the same angle and phi_rel kept: the resultant turns by that angle, its magnitude, the torque
    and the patch count are unchanged (to rounding)."""
    rng = np.random.default_rng(3)
    hb, hj = _worn_pair(rng)
    e = _polar(C0 + 20e-6, 0.45)
    base = _fast(profile_row(RB, RJ, hb, hj), _cp(), e, phi=0.3)
    for m in (1, 37, 500):
        ang = 2 * math.pi * m / M
        row = profile_row(RB, RJ, np.roll(hb, m), np.roll(hj, m))
        res = _fast(row, _cp(), _polar(C0 + 20e-6, 0.45 + ang), phi=0.3)
        c, s = math.cos(ang), math.sin(ang)
        assert res[D.R_FBX] == pytest.approx(c * base[D.R_FBX] - s * base[D.R_FBY], rel=1e-9, abs=1e-9 * abs(base[0]))
        assert res[D.R_FBY] == pytest.approx(s * base[D.R_FBX] + c * base[D.R_FBY], rel=1e-9, abs=1e-9 * abs(base[0]))
        assert res[D.R_TORQUE] == pytest.approx(base[D.R_TORQUE], rel=1e-8)
        assert res[D.R_PATCHES] == base[D.R_PATCHES]
    # turning only the journal profile by a (non-grid) angle is the same as turning phi_rel
    x = 0.123
    psi = np.arange(M) * 2 * math.pi / M
    from workbench.mbs.distributed_reference import spline_values
    hj_turned = spline_values(hj, psi - x)[0]   # not exact nodal data: compare with the reference
    ref = reference_contact(hb, hj_turned, RB, RJ, _cp(), e, (0.0, 0.0), 0.3)
    res = _fast(profile_row(RB, RJ, hb, hj), _cp(), e, phi=0.3 + x)
    assert res[D.R_FBX] == pytest.approx(ref["fbx"], rel=2e-3)


def test_the_resultant_is_smooth_at_the_contact_start():
    """Contact start is max u = 0; the resultant grows as delta^1.5 there (C1, no jump), on a worn
    profile too: F(2 delta)/F(delta) -> 2^1.5."""
    rng = np.random.default_rng(5)
    hb, hj = _worn_pair(rng)
    row = profile_row(RB, RJ, hb, hj)
    a = 0.5
    # find the eccentricity magnitude where the gap closes along direction a
    r0 = brentq(lambda r: D.distributed_gap(row, r * math.cos(a), r * math.sin(a), 0.2)[0], C0, C0 + 1e-4,
                xtol=1e-20, rtol=1e-15)
    f = [math.hypot(*_fast(row, _cp(), _polar(r0 + d, a), phi=0.2)[:2]) for d in (1e-10, 2e-10)]
    assert f[1] / f[0] == pytest.approx(2 ** 1.5, rel=0.02)
    assert math.hypot(*_fast(row, _cp(), _polar(r0 - 1e-12, a), phi=0.2)[:2]) == 0.0


# ------------------------------------------------------------------------------------------
# in the dynamics
# ------------------------------------------------------------------------------------------
def _books(sim):
    return (sim.kinetic_energy + sim.potential_energy + sim.contact_energy + sim.dissipated_energy
            - sim.driver_work)


@pytest.mark.parametrize("worn", [False, True])
def test_energy_books_close_with_e_1_and_no_friction(reg, worn):
    """One crank revolution of the Flores slider-crank (5000 rpm, c = 0.5 mm) with e = 1 and no
    friction, fresh and with both parts worn (the worn journal adds the phi_rel torque): the books
    stay within 1e-6 of the peak kinetic energy (the bound of the point-contact laws' runs)."""
    contact = reg.create("contact", "distributed_winkler", {"restitution": 1.0})
    rev = 2 * math.pi / OMEGA
    surfaces = None
    if worn:
        hb, hj = _worn_pair(np.random.default_rng(1))
        surfaces = {0: (hb, hj)}
    sim = simulate(slider_crank(contact, None), SolverSettings(t_end=rev, output_step=rev / 720, rtol=1e-9,
                                                               atol=1e-11), surfaces=surfaces)
    assert len(sim.impact_time) >= 3 and sim.contact_force.max() > 100.0
    assert np.all(sim.contact_force[sim.penetration[:, 0] <= 0.0, 0] == 0.0)
    assert np.ptp(_books(sim)) < 1e-6 * sim.kinetic_energy.max()
    assert sim.dissipated_energy[-1] == pytest.approx(0.0, abs=1e-9 * sim.kinetic_energy.max())


def test_damping_and_friction_dissipate(reg):
    """e = 0.9 and Ambrosio friction: the books still close and the dissipated energy grows."""
    contact = reg.create("contact", "distributed_winkler", {"restitution": 0.9})
    friction = reg.create("friction", "ambrosio", {"c_f": 0.01, "v0": 1e-4, "v1": 1e-2})
    rev = 2 * math.pi / OMEGA
    sim = simulate(slider_crank(contact, friction), SolverSettings(t_end=rev, output_step=rev / 720, rtol=1e-9,
                                                                   atol=1e-11))
    assert np.ptp(_books(sim)) < 1e-6 * sim.kinetic_energy.max()
    assert np.all(np.diff(sim.dissipated_energy) >= -1e-12 * sim.kinetic_energy.max())
    assert sim.dissipated_energy[-1] > 0.0


def test_friction_with_state_and_translational_joints_are_refused(reg):
    from workbench.mbs.compiled import compile_mechanism
    contact = reg.create("contact", "distributed_winkler", {})
    lugre = reg.create("friction", "lugre", {})
    with pytest.raises(MechanismError, match="memoryless"):
        compile_mechanism(slider_crank(contact, lugre))


def test_smooth_profile_shows_the_contact_the_point_contacts_window_average(reg):
    """``smooth_profile = true``: the compiled row and the wear coupling hold each profile averaged
    over the point contact's window (workbench.mbs.clearance: 8 deg, 2 m + 1 = 17 nodes at 720),
    the same rule as the point contact, so a ripple of two-node period (the shortest) is cut to
    1/17 of its amplitude and a constant wear is kept; without the key the nodal depths are kept."""
    from workbench.mbs.clearance import _smoothing_half_width
    from workbench.mbs.compiled import REV_HB_MAX, REV_PROFILE, compile_mechanism
    friction = reg.create("friction", "ambrosio", {"c_f": 0.01, "v0": 1e-4, "v1": 1e-2})
    psi = np.arange(M) * 2 * math.pi / M
    hb = 5e-6 + 1e-6 * np.cos(M / 2 * psi)            # (-1)^k ripple on a uniform wear
    hj = 2e-6 * np.exp(-(psi / 0.5) ** 2)
    m = _smoothing_half_width(M)
    assert m == 8
    want_b = np.mean([np.roll(hb, s) for s in range(-m, m + 1)], axis=0)
    want_j = np.mean([np.roll(hj, s) for s in range(-m, m + 1)], axis=0)
    for smooth in (False, True):
        contact = reg.create("contact", "distributed_winkler", {"stiffness": K, "smooth_profile": smooth})
        sb, sj = D.seen_profiles(contact, hb, hj)
        row = compile_mechanism(slider_crank(contact, friction), surfaces={0: (hb, hj)}).clr_f[0]
        if smooth:
            assert np.allclose(sb, want_b, rtol=0, atol=1e-18) and np.allclose(sj, want_j, rtol=0, atol=1e-18)
            assert np.ptp(sb) == pytest.approx(2e-6 / (2 * m + 1), rel=1e-9)
        else:
            assert np.array_equal(sb, hb) and np.array_equal(sj, hj)
        assert np.array_equal(row[REV_PROFILE:REV_PROFILE + M], sb)
        assert np.array_equal(row[REV_PROFILE + M:REV_PROFILE + 2 * M], sj)
        assert row[REV_HB_MAX] == sb.max()
    with pytest.raises(Exception, match="smooth_profile"):
        reg.create("contact", "distributed_winkler", {"smooth_profile": "yes"})


def test_event_detection_uses_the_distributed_overlap(reg):
    """The integrator's contact mode follows the overlap the distributed force uses: on a worn bore
    with node-scale roughness, ``contact_gaps`` (event detection) equals the recorded largest
    overlap at every sample of a crank revolution, while the point contact's 8-deg-averaged gap
    differs from it by more than the contact's approach (0.56 um at 1 kN): with that gap the mode
    said 'open' at +40-110 nm of overlap and a worn five-bar made ~15 us micro-impacts."""
    from workbench.mbs.clearance import contact_gaps, worn_penetration
    from workbench.mbs.compiled import compile_mechanism
    contact = reg.create("contact", "distributed_winkler", {"calibrate": "persson", "calibration_load": 1000.0})
    friction = reg.create("friction", "ambrosio", {"c_f": 0.01, "v0": 1e-4, "v1": 1e-2})
    mech = slider_crank(contact, friction)
    psi = np.arange(M) * 2 * math.pi / M
    rng = np.random.default_rng(3)
    hb = 10e-6 * np.exp(-((psi - math.pi) / 0.4) ** 2) * (1.0 + 0.3 * rng.random(M))
    hj = np.zeros(M)
    rev = 2 * math.pi / OMEGA
    sim = simulate(mech, SolverSettings(t_end=rev, output_step=rev / 360, rtol=1e-9, atol=1e-11),
                   surfaces={0: (hb, hj)})
    cm = compile_mechanism(mech, surfaces={0: (hb, hj)})
    n = sim.position.shape[1] * 3
    g = np.zeros(1); gd = np.zeros(1)
    worst = 0.0; apart = 0.0
    for i in range(len(sim.time)):
        q = sim.position[i].reshape(-1); qd = sim.velocity[i].reshape(-1)
        contact_gaps(np.concatenate([q, qd]), n, cm.clr_i, cm.clr_f, g, gd)
        worst = max(worst, abs(g[0] - sim.penetration[i, 0]))
        e = sim.eccentricity[i, 0]   # bushing frame; the rod (body 1) carries the journal, the slider (2) the bushing
        d_point = worn_penetration(cm.clr_f[0], e[0], e[1], q[3 * 1 + 2] - q[3 * 2 + 2])[0]
        apart = max(apart, abs(d_point - g[0]))
    assert worst < 1e-12
    assert apart > 0.56e-6
