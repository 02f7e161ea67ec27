"""Lubricated joints (workbench/lubrication, plugins/lubrication): each test names its oracle and
its tolerance.  Measured errors are collected in docs/lubrication.md.

Conventions: ``theta`` from the largest film, forces along the eccentricity (``F_e``) and along it
turned +90 deg (``F_t``), ``w = omega - 2 gamma_dot``; dimensionless finite-bearing forces ``f``
with ``F = 6 mu R^4 V / c^2 f`` (workbench/lubrication/reynolds.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from workbench import conformance as C
from workbench.lubrication import finite_bearing as fb
from workbench.lubrication import greenwood_tripp as gt
from workbench.lubrication import long_bearing as lb
from workbench.lubrication import mixed as mx
from workbench.lubrication import reynolds as rey
from workbench.lubrication import short_bearing as sb
from workbench.models import ContactGeometry, LubricationModel, Material, parameter

MU, R, L, CL = 0.04, 0.01, 0.004, 2.0e-5      # Pa s, m, m, m
EPS = (0.1, 0.3, 0.5, 0.7, 0.9)
SQUEEZE = (-50.0, 0.0, 50.0)                    # eps_dot [1/s]
WEDGE = (0.0, 300.0, -300.0)                    # w [rad/s]


def _quad_forces(pbar, theta):
    """R int pbar (cos, sin) dtheta over the pi film (pbar: pressure integrated over z) [N]."""
    return R * np.trapezoid(pbar * np.cos(theta), theta), R * np.trapezoid(pbar * np.sin(theta), theta)


def _kernel_parts(kernel, p, eps, eps_dot, w, angle=0.4):
    """(F_e, F_t) of a kernel for a journal at ``eps`` along ``angle`` with rates eps_dot and w
    (no whirl: omega = w)."""
    u = np.array([math.cos(angle), math.sin(angle)]); t = np.array([-u[1], u[0]])
    e = eps * CL * u; v = eps_dot * CL * u
    fx, fy, tj = kernel(e[0], e[1], v[0], v[1], w, p)
    F = np.array([fx, fy])
    return F @ u, F @ t, tj


# ------------------------------------------------------------------------------------------------
# short bearing (Ocvirk): oracle = quadrature of Ocvirk's pressure, Pinkus & Sternlicht (1961) ch. 3
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("eps", EPS)
def test_short_bearing_forces_equal_the_integral_of_ocvirks_pressure(eps):
    """Kernel vs 200001-point trapezoidal quadrature of p(theta) = mu L^3 / (2 c^2) (eps w sin -
    2 eps_dot cos) / (1 + eps cos)^3 over the pi film 0..pi (the form of Flores et al. (2006),
    cavitation = "pi_film"); tolerance 1e-8 relative."""
    p = np.array([MU, R, L, CL, 0.999, 0.0])
    th = np.linspace(0.0, math.pi, 200001)
    for ed in SQUEEZE:
        for w in WEDGE:
            if ed == 0.0 and w == 0.0:
                continue
            pbar = MU * L ** 3 / (2 * CL ** 2) * (eps * w * np.sin(th) - 2 * ed * np.cos(th)) / (1 + eps * np.cos(th)) ** 3
            qe, qt = _quad_forces(pbar, th)
            fe, ft, _ = _kernel_parts(sb.short_bearing_kernel, p, eps, ed, w)
            scale = math.hypot(qe, qt)
            assert abs(fe - qe) < 1e-8 * scale and abs(ft - qt) < 1e-8 * scale, (eps, ed, w)


@pytest.mark.parametrize("eps", EPS)
def test_short_bearing_gumbel_forces_equal_the_integral_of_the_clipped_pressure(eps):
    """cavitation = "gumbel": the Sommerfeld-substitution closed form vs 400001-point trapezoidal
    quadrature of max(0, Ocvirk's pressure) over the whole bore; tolerance 1e-7 relative (the
    quadrature's error at the kink where the pressure reaches zero)."""
    p = np.array([MU, R, L, CL, 0.999, 1.0])
    th = np.linspace(0.0, 2 * math.pi, 400001)
    for ed in SQUEEZE:
        for w in WEDGE:
            if ed == 0.0 and w == 0.0:
                continue
            pbar = MU * L ** 3 / (2 * CL ** 2) * (eps * w * np.sin(th) - 2 * ed * np.cos(th)) / (1 + eps * np.cos(th)) ** 3
            qe, qt = _quad_forces(np.maximum(pbar, 0.0), th)
            fe, ft, _ = _kernel_parts(sb.short_bearing_kernel, p, eps, ed, w)
            scale = math.hypot(qe, qt)
            assert abs(fe - qe) < 1e-7 * scale and abs(ft - qt) < 1e-7 * scale, (eps, ed, w)


def test_short_bearing_pi_film_pulls_when_the_whirl_outruns_the_rotation():
    """The pi film of Flores et al. (2006) taken literally: with w = omega - 2 gamma_dot < 0 its
    radial force points outwards (it integrates the sub-ambient half); the Gümbel form pushes
    back (why it is the default)."""
    for flag, sign in ((0.0, 1.0), (1.0, -1.0)):
        p = np.array([MU, R, L, CL, 0.999, flag])
        fe, _, _ = _kernel_parts(sb.short_bearing_kernel, p, 0.5, 0.0, -300.0)
        assert sign * fe > 0.0


def test_short_bearing_steady_load_and_attitude_angle():
    """Steady state (eps_dot = 0, no whirl): |F| = mu w R L^3 eps sqrt(16 eps^2 + pi^2 (1 - eps^2))
    / (4 c^2 (1 - eps^2)^2) and attitude arctan(pi sqrt(1 - eps^2) / (4 eps)) (Ocvirk closed
    forms), both cavitation conditions; tolerance 1e-12 relative.  The operator-precedence slip
    pi*sqrt(1-e^2)/4*e differs."""
    for eps, flag in ((e, f) for e in EPS for f in (0.0, 1.0)):
        p = np.array([MU, R, L, CL, 0.999, flag])
        fe, ft, _ = _kernel_parts(sb.short_bearing_kernel, p, eps, 0.0, 300.0)
        W = sb.steady_load(eps, MU, 300.0, R, L, CL)
        assert math.isclose(math.hypot(fe, ft), W, rel_tol=1e-12)
        phi = math.atan2(ft, -fe)
        assert math.isclose(phi, math.atan(math.pi * math.sqrt(1 - eps ** 2) / (4 * eps)), rel_tol=1e-12)
        assert math.isclose(phi, float(sb.attitude_angle(eps)), rel_tol=1e-12)
    wrong = math.atan(math.pi * math.sqrt(1 - 0.5 ** 2) / 4 * 0.5)
    assert math.degrees(float(sb.attitude_angle(0.5)) - wrong) > 19.0


# ------------------------------------------------------------------------------------------------
# long bearing: oracle = finite differences of the 1-D Reynolds equation with p(0) = p(pi) = 0
# ------------------------------------------------------------------------------------------------
def _long_fd(eps, ed, w, n=4001):
    """Solve d/dth (h^3 dp/dth) = 6 mu R^2 (w dh/dth + 2 dh/dt) on the pi film, p = 0 at both ends
    (second-order finite differences), and integrate the forces (R L int p (cos, sin))."""
    from scipy.linalg import solve_banded
    th = np.linspace(0.0, math.pi, n)
    d = th[1] - th[0]
    h = lambda x: CL * (1 + eps * np.cos(x))  # noqa: E731
    hf3 = h(th[:-1] + 0.5 * d) ** 3
    rhs = 6 * MU * R ** 2 * (-w * CL * eps * np.sin(th) + 2 * CL * ed * np.cos(th))
    ab = np.zeros((3, n - 2))
    ab[1] = -(hf3[:-1] + hf3[1:]) / d ** 2
    ab[0, 1:] = hf3[1:-1] / d ** 2
    ab[2, :-1] = hf3[1:-1] / d ** 2
    pin = solve_banded((1, 1), ab, rhs[1:-1])
    pr = np.concatenate([[0.0], pin, [0.0]])
    return R * L * np.trapezoid(pr * np.cos(th), th), R * L * np.trapezoid(pr * np.sin(th), th)


@pytest.mark.parametrize("eps", EPS)
def test_long_bearing_forces_equal_the_1d_reynolds_solution(eps):
    """Kernel (closed form) vs a 4001-node finite-difference solution on the pi film 0..pi;
    tolerance 2e-5 relative (the O(h^2) error of the difference scheme, measured 2e-6)."""
    p = np.array([MU, R, L, CL, 0.999, 0.0])     # 0: the pi film
    for ed in SQUEEZE:
        for w in WEDGE:
            if ed == 0.0 and w == 0.0:
                continue
            qe, qt = _long_fd(eps, ed, w)
            fe, ft, _ = _kernel_parts(lb.long_bearing_kernel, p, eps, ed, w)
            scale = math.hypot(qe, qt)
            assert abs(fe - qe) < 2e-5 * scale and abs(ft - qt) < 2e-5 * scale, (eps, ed, w)


def test_long_bearing_steady_half_sommerfeld_closed_forms():
    """F_e = -12 mu w R^3 L eps^2 / (c^2 (2 + eps^2)(1 - eps^2)), F_t = 6 pi mu w R^3 L eps / (c^2
    (2 + eps^2) sqrt(1 - eps^2)), attitude arctan(pi sqrt(1 - eps^2) / (2 eps)) (half-Sommerfeld,
    e.g. Hamrock, Schmid & Jacobson (2004) ch. 10); tolerance 1e-12."""
    p = np.array([MU, R, L, CL, 0.999, 0.0])     # 0: the pi film
    w = 300.0
    for eps in EPS:
        fe, ft, _ = _kernel_parts(lb.long_bearing_kernel, p, eps, 0.0, w)
        assert math.isclose(fe, -12 * MU * w * R ** 3 * L * eps ** 2 / (CL ** 2 * (2 + eps ** 2) * (1 - eps ** 2)),
                            rel_tol=1e-12)
        assert math.isclose(ft, 6 * math.pi * MU * w * R ** 3 * L * eps / (CL ** 2 * (2 + eps ** 2) * math.sqrt(1 - eps ** 2)),
                            rel_tol=1e-12)
        assert math.isclose(math.atan2(ft, -fe), float(lb.attitude_angle(eps)), rel_tol=1e-12)


@pytest.mark.parametrize("name", ["short_bearing", "mixed_lubrication", "finite_bearing"])
def test_a_bearing_turning_the_other_way_is_the_mirror_image(name):
    """Reflect the journal state in the x axis and reverse the rotation: the force reflects and the
    moment reverses (symmetry of the Reynolds equation).  Exact for the closed forms (1e-12); the
    finite bearing within 1 % of the force scale (its P1 mesh has all diagonals one way, which is
    not mirror-symmetric; measured below 0.3 %).  States with whirl faster than the rotation
    (w < 0) included.  Not the pi-film forms (short "pi_film", long_bearing): their film is the
    fixed half 0..pi."""
    from workbench.conformance import standard_geometry
    from workbench.plugins import build_registry
    m = build_registry().create("lubrication", name)
    p = m.pack(standard_geometry("cylindrical"))
    k = type(m).kernel
    c = 1e-4
    rng = np.random.default_rng(3)
    tol = 1e-12 if name != "finite_bearing" else 1e-2
    for _ in range(50):
        eps = rng.uniform(0.05, 0.95); a = rng.uniform(-math.pi, math.pi)
        ex, ey = eps * c * math.cos(a), eps * c * math.sin(a)
        vx, vy = rng.normal(0, 30 * c, 2)
        w = rng.uniform(-400, 400)
        fx, fy, t = k(ex, ey, vx, vy, w, p)
        gx, gy, u = k(ex, -ey, vx, -vy, -w, p)
        scale = max(math.hypot(fx, fy), 1e-30)
        assert abs(gx - fx) < tol * scale and abs(gy + fy) < tol * scale, (eps, w)
        assert math.isclose(u, -t, rel_tol=1e-12, abs_tol=1e-30)


# ------------------------------------------------------------------------------------------------
# finite-length Reynolds (scikit-fem): limits, Raimondi & Boyd, mesh convergence, JFO
# ------------------------------------------------------------------------------------------------
def _rel(f, g):
    return math.hypot(f[0] - g[0], f[1] - g[1]) / math.hypot(*g)


def _short_dimless(eps, ld):
    fe, ft = sb.ocvirk_forces(eps, 0.0, 1.0, 1.0, 1.0, 2 * ld, 1.0)   # R = 1, L = 2 ld, c = 1
    return fe / 6.0, ft / 6.0


def _long_dimless(eps, ld):
    fe, ft = lb.sommerfeld_forces(eps, 0.0, 1.0, 1.0, 1.0, 2 * ld, 1.0)
    return fe / 6.0, ft / 6.0


@pytest.mark.parametrize("eps", (0.3, 0.5, 0.7))
def test_finite_bearing_tends_to_the_short_bearing(eps):
    """Gümbel film at L/D = 0.2, 0.1, 0.05 vs Ocvirk: the error falls with L/D (about as (L/D)^2,
    measured ratio 2.7-3.2 per halving at this mesh) and is below 4.5 % at L/D = 0.1 (measured 1.1 %,
    1.8 %, 3.3 % at eps = 0.3, 0.5, 0.7)."""
    err = []
    for ld in (0.2, 0.1, 0.05):
        s = rey.solve_film(eps, ld, 0.0, cavitation="gumbel", n_theta=192, n_y=17)
        err.append(_rel((s.f_e, s.f_t), _short_dimless(eps, ld)))
    assert err[0] > err[1] > err[2]
    assert err[1] < 0.045


@pytest.mark.parametrize("eps", (0.3, 0.7))
def test_finite_bearing_tends_to_the_long_bearing(eps):
    """Gümbel film at L/D = 10 and 20 vs half-Sommerfeld: the end leakage error falls as D/L (error
    at 20 about half that at 10), is below 10 % at L/D = 10 (measured 9 %, 7 %), and the linear
    extrapolation 2 f(20) - f(10) to L/D = inf agrees with Sommerfeld within 1.5 %."""
    s10 = rey.solve_film(eps, 10.0, 0.0, cavitation="gumbel", n_theta=192, n_y=61)
    s20 = rey.solve_film(eps, 20.0, 0.0, cavitation="gumbel", n_theta=192, n_y=61)
    e10 = _rel((s10.f_e, s10.f_t), _long_dimless(eps, 10.0))
    e20 = _rel((s20.f_e, s20.f_t), _long_dimless(eps, 20.0))
    assert e10 < 0.10 and 0.4 < e20 / e10 < 0.65
    # f / (L/D) is the force per unit length: extrapolate it linearly in D/L
    a10 = np.array([s10.f_e, s10.f_t]) / 10.0; a20 = np.array([s20.f_e, s20.f_t]) / 20.0
    ext = 2 * a20 - a10
    ref = np.array(_long_dimless(eps, 1.0))
    assert _rel(ext, ref) < 0.015


def _S_phi(eps, ld, **kw):
    s = rey.solve_film(eps, ld, 0.0, cavitation="reynolds", groove=True, **kw)
    W = math.hypot(s.f_e, s.f_t)
    # S = (R/c)^2 mu N / P, N = w / 2 pi, P = F / (L D): S = 2 (L/D) (2 R^2) / (12 pi R^2 f) per unit R
    return 4.0 * ld / (12.0 * math.pi * W), math.degrees(math.atan2(s.f_t, -s.f_e))


#: Raimondi & Boyd (1958), full (360 deg) bearing, Reynolds condition: (L/D, eps) -> (S, phi deg).
#: NOT CONFIRMED against the paper here: recalled from the reproduction of their table in
#: Shigley's Mechanical Engineering Design (Budynas & Nisbett (2011) table 12-? / figs 12-16..12-22).
#: L/D = 0.5 angles at eps >= 0.8 are left out (not recalled with confidence).  The assertion that
#: carries the test is the mesh-converged self-check below; these rows must agree within 2 % in
#: S and 1 deg in phi (measured: <= 1.3 % and 0.5 deg).
RAIMONDI_BOYD = {
    (1.0, 0.1): (1.33, 79.5), (1.0, 0.2): (0.631, 74.02), (1.0, 0.4): (0.264, 63.10),
    (1.0, 0.6): (0.121, 50.58), (1.0, 0.8): (0.0446, 36.24), (1.0, 0.9): (0.0188, 26.45),
    (0.5, 0.1): (4.31, 81.62), (0.5, 0.2): (2.03, 74.94), (0.5, 0.4): (0.779, 61.45),
    (0.5, 0.6): (0.319, 48.14), (0.5, 0.8): (0.0923, None),
}


def test_finite_bearing_sommerfeld_number_and_attitude_mesh_converged():
    """Reynolds condition (LCP), feed line at the largest film (Raimondi & Boyd's full bearing),
    L/D = 1, eps = 0.6: meshes 48x13, 96x25, 192x49 converge at second order (ratio of
    successive changes 3-5) and the shipped mesh 96x25 is within 0.5 % in S and 0.05 deg in phi
    of the Richardson extrapolation."""
    vals = [_S_phi(0.6, 1.0, n_theta=nt, n_y=ny) for nt, ny in ((48, 13), (96, 25), (192, 49))]
    S = np.array([v[0] for v in vals]); ph = np.array([v[1] for v in vals])
    ratio = (S[1] - S[0]) / (S[2] - S[1])
    assert 3.0 < ratio < 5.0
    S_inf = S[2] + (S[2] - S[1]) / 3.0
    ph_inf = ph[2] + (ph[2] - ph[1]) / 3.0
    assert abs(S[1] / S_inf - 1) < 0.005 and abs(ph[1] - ph_inf) < 0.05


@pytest.mark.parametrize("key", sorted(RAIMONDI_BOYD))
def test_finite_bearing_against_raimondi_boyd(key):
    """See :data:`RAIMONDI_BOYD` (values unconfirmed here): 2 % in S, 1 deg in phi."""
    ld, eps = key
    S_ref, phi_ref = RAIMONDI_BOYD[key]
    S, phi = _S_phi(eps, ld, n_theta=96, n_y=25)
    assert abs(S / S_ref - 1) < 0.02
    if phi_ref is not None:
        assert abs(phi - phi_ref) < 1.0


def test_worn_profile_enters_the_film_thickness():
    """A uniform wear depth d is a larger clearance c + d: under pure wedge action f(eps; H +
    delta) = f(eps / (1 + delta)) / (1 + delta)^2 exactly (delta = d / c; H^3 scales by (1 +
    delta)^3, dH/dtheta by 1 + delta); tolerance 1e-9.  A non-uniform profile changes the load
    capacity (checked to move it by > 1 %)."""
    delta = 0.25
    a = rey.solve_film(0.6, 0.5, 0.0, cavitation="gumbel", n_theta=64, n_y=13, wear=lambda th: delta + 0 * th)
    b = rey.solve_film(0.6 / (1 + delta), 0.5, 0.0, cavitation="gumbel", n_theta=64, n_y=13)
    assert _rel((a.f_e, a.f_t), (b.f_e / (1 + delta) ** 2, b.f_t / (1 + delta) ** 2)) < 1e-9
    # a scar 0.2 c deep around the thinnest film (theta = pi)
    scar = rey.solve_film(0.6, 0.5, 0.0, cavitation="gumbel", n_theta=64, n_y=13,
                          wear=lambda th: 0.2 * np.exp(-((th - math.pi) / 0.4) ** 2))
    plain = rey.solve_film(0.6, 0.5, 0.0, cavitation="gumbel", n_theta=64, n_y=13)
    assert math.hypot(scar.f_e, scar.f_t) < 0.99 * math.hypot(plain.f_e, plain.f_t)


def test_jfo_reduces_to_the_reynolds_condition_without_reformation():
    """Feed line at the largest film: the cavitated zone ends at the feed, no reformation inside
    the film, and JFO gives the p >= 0 complementarity (Swift-Stieber) solution: within 1 % in
    the load and 0.5 deg in the attitude at L/D = 1 (measured 0.05 %, 0.1 %, 0.66 % and 0.1-0.3 deg
    at eps = 0.3, 0.6, 0.8: the upwinded Couette flux next to the rupture, first order in the mesh)."""
    for eps in (0.3, 0.6, 0.8):
        r = rey.solve_film(eps, 1.0, 0.0, cavitation="reynolds", groove=True, n_theta=96, n_y=25)
        j = rey.solve_film(eps, 1.0, 0.0, cavitation="jfo", groove=True, n_theta=96, n_y=25)
        assert abs(math.hypot(j.f_e, j.f_t) / math.hypot(r.f_e, r.f_t) - 1) < 0.01
        assert abs(math.degrees(math.atan2(j.f_t, -j.f_e) - math.atan2(r.f_t, -r.f_e))) < 0.5
        assert j.info["jfo_residual"] < 1e-10


def test_jfo_conserves_mass_where_the_film_reforms():
    """Feed line a quarter turn before the thinnest film (eps = 0.6, L/D = 1): the film ruptures,
    runs striated and reforms before the feed.  (1) every cell balances pressure and Couette flow
    (residual < 1e-10 of the Couette flux); (2) inside the cavitated zone the Couette flow theta_f H
    is constant along theta (striated flow: no pressure gradient), spread < 1e-9; (3) the
    Swift-Stieber solution of the same bearing does not balance there (its cells lose a flow of
    the order of the Couette flux), and JFO's load differs from it by > 1 %."""
    j = rey.solve_film(0.6, 1.0, 0.0, cavitation="jfo", groove=True, groove_angle=math.pi / 2,
                       n_theta=96, n_y=25)
    r = rey.solve_film(0.6, 1.0, 0.0, cavitation="reynolds", groove=True, groove_angle=math.pi / 2,
                       n_theta=96, n_y=25)
    assert j.info["jfo_residual"] < 1e-10
    cav = j.fill < 1.0 - 1e-12
    assert cav.sum() > 100
    P = j.P
    quiet = cav & (np.roll(P, 1, 0) == 0) & (np.roll(P, -1, 0) == 0) & (np.roll(P, 1, 1) == 0) & (np.roll(P, -1, 1) == 0)
    q = j.H[:, None] * j.fill
    n_rows = 0
    for col in range(1, P.shape[1] - 1):
        k = np.flatnonzero(quiet[:, col])
        if len(k) > 3:
            n_rows += 1
            # the upstream neighbour of a quiet cavitated cell carries the same flow
            assert np.abs(q[k, col] - q[(k - 1) % P.shape[0], col]).max() < 1e-9 * q[:, col].max()
    assert n_rows > 5
    assert r.info["mass_defect"] > 0.1
    assert abs(math.hypot(j.f_e, j.f_t) / math.hypot(r.f_e, r.f_t) - 1) > 0.01


def test_finite_bearing_table_interpolation_error():
    """Tabulated Gümbel forces (65 x 72 nodes, L/D = 0.5) vs direct solves at 40 random
    (eps, psi), eps in [0.02, 0.95]: error below 1 % of the largest force at that eps (over psi)
    and median below 0.05 % (measured over 200 points: max 0.21 %, 95th percentile 0.015 %, median
    0.003 %); the error the table adds to the dynamics."""
    tab = fb.build_table(0.5, "gumbel", 65, 72, n_theta=96, n_y=17)
    p = fb.pack(1.0, 1.0, 1.0, 1.0, 0.99, tab)
    rng = np.random.default_rng(1)
    errs = []
    for _ in range(40):
        e = rng.uniform(0.02, 0.95); ps = rng.uniform(-math.pi, math.pi)
        s = rey.solve_film(e, 0.5, ps, cavitation="gumbel", n_theta=96, n_y=17)
        sw = rey.gumbel_sweep(e, 0.5, np.linspace(-math.pi, math.pi, 73), n_theta=96, n_y=17)
        fe, ft = fb.interpolate(e, ps, p)
        errs.append(math.hypot(fe - s.f_e, ft - s.f_t) / np.hypot(sw[:, 0], sw[:, 1]).max())
    assert max(errs) < 0.01 and np.median(errs) < 5e-4


def test_finite_bearing_kernel_scales_the_table():
    """The kernel's dimensional force is 6 mu R^4 V / c^2 times the table's at the squeeze angle
    atan2(2 eps_dot, w) (module docstring); tolerance 1e-12."""
    tab = fb.build_table(0.5, "gumbel", 17, 24, n_theta=48, n_y=9)
    L5 = 0.5 * 2 * R
    p = fb.pack(MU, R, L5, CL, 0.99, tab)
    fe, ft, _ = _kernel_parts(fb.finite_kernel, p, 0.5, 20.0, 300.0)
    ge, gt_ = fb.interpolate(0.5, math.atan2(40.0, 300.0), p)
    k = 6 * MU * R ** 4 * math.hypot(300.0, 40.0) / CL ** 2
    assert math.isclose(fe, k * ge, rel_tol=1e-12) and math.isclose(ft, k * gt_, rel_tol=1e-12)


# ------------------------------------------------------------------------------------------------
# Greenwood-Tripp
# ------------------------------------------------------------------------------------------------
def test_greenwood_tripp_F52():
    """F_5/2: closed form (parabolic cylinder function) vs adaptive quadrature of the definition,
    1e-10 relative on t in [-3, 4], 2e-9 up to t = 6 (F ~ 3e-11 there, the quadrature's limit); F_5/2(0) = 2^(3/4) Gamma(7/4) / sqrt(2 pi) = 0.616634 (the
    value tabulated in the literature as 0.6167); the compiled table within 2e-5 relative on
    [-3, 6]; the curve fit 4.4086e-5 (4 - t)^6.804 within 12 % on [0, 2] and 74 % low at t = 3
    (measured -10.7 %, -3.5 %, -9.2 % at t = 0, 1, 2)."""
    ts = np.linspace(-3.0, 6.0, 37)
    exact = gt.F(2.5, ts)
    quad = np.array([gt.F_quad(2.5, t) for t in ts])
    assert np.abs(exact / quad - 1)[ts <= 4.0].max() < 1e-10
    assert np.abs(exact / quad - 1).max() < 2e-9
    assert math.isclose(float(gt.F(2.5, 0.0)), gt.F52_AT_ZERO, rel_tol=1e-13)
    assert abs(gt.F52_AT_ZERO - 0.6167) < 1e-4
    tab = gt.f52_table()
    fine = np.linspace(-3.0, 6.0, 1801) + 0.0013
    assert max(abs(gt.f52(t, tab, 0) / float(gt.F(2.5, t)) - 1) for t in fine) < 2e-5
    t02 = np.linspace(0.0, 2.0, 21)
    assert np.abs(gt.F52_fit(t02) / gt.F(2.5, t02) - 1).max() < 0.12
    assert 0.70 < 1 - float(gt.F52_fit(3.0) / gt.F(2.5, 3.0)) < 0.78


# ------------------------------------------------------------------------------------------------
# mixed lubrication: the Stribeck curve
# ------------------------------------------------------------------------------------------------
STEEL = Material(E=207e9, nu=0.3)


def _mixed_p(**kw):
    E = ContactGeometry(journal=STEEL, bushing=STEEL).E_star
    args = dict(mu=0.04, R=0.01, L=0.01, c=10e-6, eps_film_max=0.999, film="short_bearing", sigma=0.5e-6,
                eta=4e9, beta=2e-5, E_star=E, mu_b=0.12, v_reg=1e-6)
    args.update(kw)
    return mx.pack(**args)


def test_stribeck_curve_emerges():
    """Steady journal, 1 kN, speed from 0.01 to 1e4 rad/s (Hersey number over six decades): the
    three regimes come out of the load sharing, none is prescribed.  Boundary: at the lowest
    speed the asperities carry > 90 % and f is within 15 % of mu_b; mixed: f falls as the film
    builds, to a minimum where the film parameter lambda = h_min / sigma is 2-4; hydrodynamic:
    the asperities carry < 1e-6 and f rises as the Hersey number (log-log slope 0.9-1.1 at the
    top, Petrov)."""
    p = _mixed_p()
    om = np.logspace(-2, 4, 37)
    r = mx.stribeck(p, 1000.0, om)
    f, share = r["friction"], r["asperity_share"]
    assert share[0] > 0.9 and abs(f[0] / 0.12 - 1) < 0.15
    assert np.all(np.diff(share) <= 1e-12)
    k = int(np.argmin(f))
    assert 0 < k < len(om) - 1 and f[k] < 0.2 * f[0]
    assert 2.0 < r["lambda"][k] < 4.0
    assert share[-1] < 1e-6
    slope = np.diff(np.log(f[-3:])) / np.diff(np.log(r["hersey"][-3:]))
    assert np.all((0.9 < slope) & (slope < 1.1))


def test_stribeck_curve_from_viscosity_matches_speed():
    """Raising the viscosity instead of the speed moves along the same curve: the film force and
    Petrov's moment scale with mu omega, the asperity part does not depend on either, so at equal
    Hersey number the friction coefficient is the same (1e-9; the boundary friction is
    regularised at 1e-6 m/s, far below the slip speeds here)."""
    base = mx.steady_state(_mixed_p(mu=0.04), 1000.0, 30.0)
    other = mx.steady_state(_mixed_p(mu=0.12), 1000.0, 10.0)
    assert math.isclose(base["friction"], other["friction"], rel_tol=1e-6)
    assert math.isclose(base["eps"], other["eps"], rel_tol=1e-9)


# ------------------------------------------------------------------------------------------------
# dynamics: a journal under constant load settles at the closed form
# ------------------------------------------------------------------------------------------------
def test_journal_under_constant_load_settles_at_the_closed_form():
    """A free journal (10 kg) in a fixed bushing (R 10 mm, L 10 mm, c 20 um, 0.04 Pa s) turning at
    3000 rad/s under the constant load W(eps = 0.8) of the Ocvirk closed form, started centred at
    rest: the squeeze film damps it onto the steady state, eps = 0.8 and the attitude angle
    arctan(pi sqrt(1 - eps^2) / (4 eps)) = 30.50 deg between the load line and the line of centres
    (Ocvirk closed forms); tolerance 1e-9 in eps and 1e-9 rad (measured 1e-14).  0.1 s with
    classical Runge-Kutta at 2 us (compiled; halving the step changes nothing at 1e-12).  Stable:
    eps = 0.8 is above the short bearing's whirl threshold."""
    from workbench.jit import njit
    mu_, R_, L_, c_, w = 0.04, 0.01, 0.01, 2e-5, 3000.0
    Wl = float(sb.steady_load(0.8, mu_, w, R_, L_, c_))
    p = np.array([mu_, R_, L_, c_, 0.999, 1.0])
    k = sb.short_bearing_kernel

    @njit
    def run(m, Wl, w, p, dt, n):
        y = np.zeros(4)

        def f(y):
            fx, fy, _ = k(y[0], y[1], y[2], y[3], w, p)
            return np.array([y[2], y[3], fx / m, (fy - Wl) / m])
        for _ in range(n):
            k1 = f(y); k2 = f(y + 0.5 * dt * k1); k3 = f(y + 0.5 * dt * k2); k4 = f(y + dt * k3)
            y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        return y
    y = run(10.0, Wl, w, p, 2e-6, 50000)
    e = y[:2]
    assert abs(math.hypot(*e) / c_ - 0.8) < 1e-9
    angle = math.acos(np.dot(e / np.linalg.norm(e), [0.0, -1.0]))   # line of centres vs load line
    assert abs(angle - float(sb.attitude_angle(0.8))) < 1e-9
    assert np.hypot(*y[2:]) < 1e-9


# ------------------------------------------------------------------------------------------------
# the conformance checks reject broken lubrication models
# ------------------------------------------------------------------------------------------------
def _make(kernel_fn, name="broken_film"):
    from workbench.jit import njit

    class Broken(LubricationModel):
        """A broken film model (test fixture, eq. 0)."""
        reference = "test fixture, eq. (0)"

        @dataclass(frozen=True)
        class Params:
            k: float = parameter(1.0, unit="N s/m", doc="coefficient")

        kernel = njit(kernel_fn)

        def pack(self, geometry):
            return np.array([1.0e3])
    Broken.name = name
    return Broken


def _gives_energy(ex, ey, vx, vy, omega, p):
    return p[0] * vx, p[0] * vy, 0.0


def _not_invariant(ex, ey, vx, vy, omega, p):
    return -p[0] * vx, -2.0 * p[0] * vy, 0.0


def _loaded_when_centred(ex, ey, vx, vy, omega, p):
    return -p[0] * vx + 1.0, -p[0] * vy, 0.0


@pytest.mark.parametrize("fn, message", [(_gives_energy, "energy|approach"), (_not_invariant, "frame-invariant"),
                                         (_loaded_when_centred, "centred journal")])
def test_lubrication_check_rejects(fn, message):
    with pytest.raises(C.ConformanceError, match=message):
        C.check_lubrication_model(_make(fn))


# ------------------------------------------------------------------------------------------------
# the dynamics seam: the Flores slider-crank with a lubricated clearance joint
# ------------------------------------------------------------------------------------------------
def test_lubricated_slider_crank_smooths_the_impacts_and_closes_the_energy_books():
    """Flores slider-crank (tests/mechanisms.py; clearance 0.5 mm, Lankarani-Nikravesh e = 0.9 as
    the backstop beyond the clearance), one crank revolution at 5000 rpm, the rod-slider joint
    dry and with a short-bearing film (0.4 Pa s, L = 40 mm, the oil of Flores et al. (2006)).
    Flores et al. (2006) report that lubrication removes the impacts: here no contact at all
    (largest eps 0.81), the largest crank moment within 2 % of the ideal mechanism's (measured
    0.24 %) and below a fifth of the dry joint's; the film only dissipates (its cumulated work
    never decreases) and the energy books close: driver work = change of kinetic + potential
    energy + dissipation, to 1e-9 of the driver work (measured 2.7e-11 J of 111 J)."""
    import dataclasses
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from mechanisms import slider_crank
    from workbench.mbs.solution import SolverSettings
    from workbench.mbs.solver import simulate
    from workbench.plugins import build_registry
    reg = build_registry()
    ln = reg.create("contact", "lankarani_nikravesh", {"restitution": 0.9})
    dry = slider_crank(ln, None, clearance=0.5e-3)
    c = dry.clearance_joints[0]
    film = reg.create("lubrication", "short_bearing", {"viscosity": 0.4})
    wet = dataclasses.replace(dry, clearance_joints=(dataclasses.replace(c, lubrication=film, length=0.04),))
    st = SolverSettings(t_end=0.012, output_step=1e-5)
    s_dry, s_wet, s_ideal = simulate(dry, st), simulate(wet, st), simulate(slider_crank(None), st)
    assert s_wet.stats["events"] == 0 and np.abs(s_wet.contact_force).max() == 0.0
    m_wet, m_ideal = np.abs(s_wet.driver_load).max(), np.abs(s_ideal.driver_load).max()
    assert abs(m_wet / m_ideal - 1) < 0.02
    assert m_wet < 0.2 * np.abs(s_dry.driver_load).max()
    D = np.asarray(s_wet.dissipated_energy)
    assert D[-1] > 0 and np.diff(D).min() >= 0.0
    KE, PE, W = (np.asarray(x) for x in (s_wet.kinetic_energy, s_wet.potential_energy, s_wet.driver_work))
    res = W - (KE + PE - KE[0] - PE[0]) - D - np.asarray(s_wet.contact_energy)
    assert np.abs(res).max() < 1e-9 * np.abs(W).max()


def test_a_study_file_selects_a_lubrication_model_and_a_bad_one_is_refused(tmp_path):
    """`mechanism.clearance_joints[].lubrication = {model = ...}` in a study file: the Flores study
    with a short-bearing film runs one revolution without an impact, the dataset names the model
    and its parameters in `joint_models`; an unknown model or parameter is a study error naming
    the key path and the choices."""
    import json
    import re
    from pathlib import Path
    import workbench
    from workbench.errors import StudyError
    src = (Path(__file__).resolve().parents[2] / "studies" / "flores_slider_crank.toml").read_text()
    text = re.sub(r'(?m)^friction = \{ model = "ambrosio".*$', 'lubrication = { model = "short_bearing", viscosity = 0.4 }', src)
    text = re.sub(r"(?m)^length = 0\.01 .*$", "length = 0.04", text)
    text = re.sub(r"(?m)^revolutions = 2 .*$", "revolutions = 1", text)
    assert "lubrication = " in text and "revolutions = 1" in text
    ds = workbench.run(workbench.load_study(text))
    models = json.loads(ds.attrs["joint_models"])["B"]
    assert models["lubrication"]["model"] == "short_bearing"
    assert models["lubrication"]["parameters"]["viscosity"] == 0.4
    assert float(abs(ds["contact_force"]).max()) == 0.0
    with pytest.raises(StudyError, match=r"lubrication\.model.*short_bearing"):
        workbench.load_study(text.replace('model = "short_bearing"', 'model = "short_bearng"'))
    with pytest.raises(StudyError, match=r"lubrication.*viscosity"):
        workbench.load_study(text.replace("viscosity = 0.4", "viscosity = -1.0"))


@pytest.mark.parametrize("spin", [1.0, -1.0])
def test_the_solver_seam_settles_a_loaded_journal_at_the_closed_form(spin):
    """The compiled seam end to end (workbench.mbs.clearance.film_forces): a 10 kg journal body in
    a ground bushing (R 10 mm, c 20 um, L 10 mm, short_bearing 0.04 Pa s) spun by a driver at
    +-3000 rad/s under the constant load W(eps = 0.8) of the Ocvirk closed form, 0.1 s from the
    centred position: it settles at eps = 0.8 and the attitude angle arctan(pi sqrt(1 - eps^2) /
    (4 eps)) = 30.50 deg on the side the rotation says (mirrored for the reverse spin); tolerance
    1e-9 (measured 4e-14 in eps, 1e-12 deg).  Checks the frames: the eccentricity rate seen from
    the bushing, omega_journal - omega_bushing, the force at the journal centre."""
    from workbench.mbs.mechanism import (Body, ConstantForce, Driver, DriverFunction, Mechanism,
                                         RevoluteClearanceJoint)
    from workbench.mbs.solution import SolverSettings
    from workbench.mbs.solver import simulate
    from workbench.plugins import build_registry
    reg = build_registry()
    mu_, R_, L_, c_, w = 0.04, 0.01, 0.01, 2e-5, 3000.0
    W = float(sb.steady_load(0.8, mu_, w, R_, L_, c_))
    mech = Mechanism(
        bodies=(Body("journal", 10.0, 0.01, position=(0.0, 0.0), points={"C": (0.0, 0.0)}),), joints=(),
        drivers=(Driver("spin", "journal", DriverFunction(polynomial=(0.0, spin * w))),),
        forces=(ConstantForce("load", "journal", (0.0, -W)),),
        clearance_joints=(RevoluteClearanceJoint(
            "J", "ground", "O", "journal", "C", bushing_radius=R_ + c_, journal_radius=R_,
            contact=reg.create("contact", "hertz"), length=L_,
            lubrication=reg.create("lubrication", "short_bearing", {"viscosity": mu_})),),
        ground_points={"O": (0.0, 0.0)}, gravity=(0.0, 0.0))
    sim = simulate(mech, SolverSettings(t_end=0.1, output_step=1e-3))
    e = np.asarray(sim.eccentricity)[-1, 0]
    assert abs(math.hypot(*e) / c_ - 0.8) < 1e-9
    assert abs(math.atan2(e[0], -e[1]) - spin * float(sb.attitude_angle(0.8))) < 1e-9


def test_mixed_wear_rate_falls_as_the_film_builds():
    """The wear law fed with the asperity pressure only (workbench.lubrication.mixed.
    asperity_pressure_profile, the built-in Archard law): a steady journal under 1 kN, speed from
    0.01 to 1e3 rad/s.  Against the same joint dry (the whole load on the contact, Archard's
    global form k_d W s), the wear volume per sliding distance is the asperities' share: within 5 %
    of the dry rate in the boundary regime, falling monotonically as the film builds, below 1e-3
    of it once lambda = h_min / sigma > 3 (measured: 1.00 at 0.01 rad/s, 5e-6 at lambda 4.1,
    2e-18 and below in full film; the volume follows the asperity share of the load to 1 %)."""
    from workbench.plugins import build_registry
    archard = build_registry().create("wear", "archard")
    p = _mixed_p()
    Wl, R_, L_ = 1000.0, 0.01, 0.01
    theta = np.linspace(0.0, 2 * math.pi, 2880, endpoint=False)
    ratios, lams = [], []
    for om in np.logspace(-2, 3, 16):
        st = mx.steady_state(p, Wl, om)
        e = np.array([st["eps"] * 10e-6, 0.0])
        pa = mx.asperity_pressure_profile(theta, e, p)
        slip = R_ * om * 1.0                       # sliding distance in 1 s [m]
        dh = archard.depth(pa, np.full_like(pa, slip))
        volume = dh.sum() * R_ * L_ * (2 * math.pi / len(theta))
        dry = archard.params.wear_coefficient * Wl * slip
        ratios.append(volume / dry); lams.append(st["lambda"])
    ratios, lams = np.array(ratios), np.array(lams)
    assert abs(ratios[0] - 1) < 0.05
    assert np.all(np.diff(ratios) <= 1e-12)
    assert np.all(ratios[lams > 3.0] < 1e-3) and (lams > 3.0).sum() >= 3
