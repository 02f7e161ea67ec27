"""Tests of the built-in friction laws (plugins/friction/*.py).

Sources: Wang & Liu (2015) §1.2 (friction ∝ normal force, Coulomb regularized, Ambrósio, Bai & Zhao, LuGre);
Wang, Chen, Ma & Sun (2016) eqs. 13-14 (Ambrósio's dynamic correction); Canudas de Wit, Olsson, Åström & Lischinsky,
IEEE TAC 40 (1995) eqs. 2-4 (LuGre steady state, pre-sliding stiffness, hysteresis).
"""
from __future__ import annotations

import ctypes
import math
import warnings

import numpy as np
import pytest
from numba import cfunc, njit, types
from scipy.integrate import solve_ivp, trapezoid

from workbench_plugins.friction.ambrosio import Ambrosio
from workbench_plugins.friction.bai_zhao import BaiZhao
from workbench_plugins.friction.coulomb import Coulomb
from workbench_plugins.friction.lugre import LuGre
from workbench.errors import StudyError
from workbench.plugins import build_registry

FRICTION_CLASSES = {"coulomb": Coulomb, "ambrosio": Ambrosio, "bai_zhao": BaiZhao, "lugre": LuGre}

#: memoryless laws in every variant, with the coefficient they tend to at high slip speed and the
#: slip speed above which they must have reached it (exactly, or for tanh to within 1e-8)
MEMORYLESS = {
    "coulomb-tanh": (Coulomb(mu=0.2, v_eps=1e-4, regularization="tanh"), 0.2, 1e-3),
    "coulomb-linear": (Coulomb(mu=0.2, v_eps=1e-4, regularization="linear"), 0.2, 1e-4),
    "ambrosio-linear": (Ambrosio(c_f=0.01, v0=1e-4, v1=1e-2, ramp="linear"), 0.01, 1e-2),
    "ambrosio-cubic": (Ambrosio(c_f=0.01, v0=1e-4, v1=1e-2, ramp="cubic"), 0.01, 1e-2),
    "bai_zhao": (BaiZhao(mu_s=0.15, mu_d=0.1, v_s=1e-4, v_d=1e-3), 0.1, 1e-3),
}

#: slip velocities from 1e-8 to 10 m/s, both signs, and zero
SPEEDS = np.logspace(-8, 1, 181)
VELOCITIES = np.concatenate([-SPEEDS[::-1], [0.0], SPEEDS])


def _ft(model, v, f_n, z=0.0):
    return model.force(v, f_n, z)[0]


# ------------------------------------------------------------------------------------------------
# registry
# ------------------------------------------------------------------------------------------------
def test_all_four_laws_are_registered_through_their_entry_points():
    """The built-ins go through [project.entry-points.workbench] like a third party's would."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # other families' modules may not exist yet
        reg = build_registry()
    for name, cls in FRICTION_CLASSES.items():
        entry = reg.entry("friction", name)
        assert entry.cls is cls
        assert entry.plugin == f"friction_{name}"
        model = reg.create("friction", name)
        p = model.pack()
        assert p.dtype == np.float64 and p.ndim == 1
        assert cls.n_states == (1 if name == "lugre" else 0)
        for info in cls.parameters():
            assert info.unit and info.doc


# ------------------------------------------------------------------------------------------------
# memoryless laws: sign, passivity, proportionality, limits
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", MEMORYLESS)
def test_memoryless_law_is_passive_odd_and_proportional_to_normal_force(key):
    """Friction opposes slip (f_t v_t <= 0), is odd in v_t and ∝ f_n (Wang & Liu (2015) §1.2: 'friction ∝
    normal force in all of them').  Exact identities of the formulas: tolerance is rounding only."""
    model = MEMORYLESS[key][0]
    for f_n in (0.0, 1.0, 250.0, 3e4):
        f = _ft(model, VELOCITIES, f_n)
        assert np.all(np.isfinite(f))
        assert np.all(f * VELOCITIES <= 0.0)
        np.testing.assert_allclose(f, -f[::-1], rtol=1e-14, atol=0.0)
        if f_n > 0:
            np.testing.assert_allclose(f, f_n * _ft(model, VELOCITIES, 1.0), rtol=1e-13, atol=0.0)
    # at rest there is no force, and out of contact there is none either
    assert _ft(model, 0.0, 100.0) == 0.0
    assert np.all(_ft(model, VELOCITIES, 0.0) == 0.0)
    assert np.all(_ft(model, VELOCITIES, -5.0) == 0.0)  # clamped: a negative f_n is no contact
    assert model.n_states == 0 and np.all(model.force(VELOCITIES, 10.0)[1] == 0.0)


@pytest.mark.parametrize("key", MEMORYLESS)
def test_memoryless_law_tends_to_its_kinetic_coefficient_at_high_speed(key):
    """|f_t| -> mu f_n above the regularization range.  Coulomb-tanh reaches it to tanh(10) = 1 - 4e-9
    at 10 v_eps (tolerance 1e-8); the piecewise laws reach it exactly (tolerance: rounding)."""
    model, mu, v_full = MEMORYLESS[key]
    v = np.geomspace(v_full, 100.0, 30)
    f_n = 400.0
    np.testing.assert_allclose(np.abs(_ft(model, v, f_n)), mu * f_n, rtol=1e-8)
    np.testing.assert_allclose(_ft(model, -v, f_n), mu * f_n, rtol=1e-8)
    # and it is strictly below the limit inside the regularization range (so the test could fail)
    assert abs(_ft(model, 0.5 * v_full, f_n)) != pytest.approx(mu * f_n, rel=1e-8)


def test_coulomb_regularizations_match_their_formulas():
    """tanh(v/v_eps) and clip(v/v_eps, -1, 1) (module docstring); exact up to rounding."""
    v = VELOCITIES
    t = _ft(Coulomb(mu=0.3, v_eps=2e-4, regularization="tanh"), v, 10.0)
    np.testing.assert_allclose(t, -3.0 * np.tanh(v / 2e-4), rtol=1e-13, atol=1e-300)
    lin = _ft(Coulomb(mu=0.3, v_eps=2e-4, regularization="linear"), v, 10.0)
    np.testing.assert_allclose(lin, -3.0 * np.clip(v / 2e-4, -1, 1), rtol=1e-13, atol=1e-300)


# ------------------------------------------------------------------------------------------------
# Ambrósio's dynamic correction coefficient (Wang, Chen, Ma & Sun (2016) eqs. 13-14)
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ramp", ["linear", "cubic"])
def test_ambrosio_correction_is_zero_below_v0_one_above_v1_and_continuous(ramp):
    """Wang, Chen, Ma & Sun (2016) eq. 14: c_d = 0 for |v| <= v0, 1 for |v| >= v1; continuous at both ends.  The ramp is
    Lipschitz with constant 1/(v1-v0) (linear) or 1.5/(v1-v0) (cubic), which bounds the jump over
    a step h: the test allows that bound plus rounding."""
    v0, v1 = 1e-4, 1e-2
    law = Ambrosio(c_f=0.01, v0=v0, v1=v1, ramp=ramp)
    below = np.array([0.0, 1e-9, 0.5 * v0, v0])
    above = np.array([v1, 1.0001 * v1, 2 * v1, 10.0])
    assert np.all(law.correction(below) == 0.0)
    assert np.all(law.correction(-below) == 0.0)
    np.testing.assert_allclose(law.correction(above), 1.0, rtol=1e-15)
    lip = (1.0 if ramp == "linear" else 1.5) / (v1 - v0)
    for edge in (v0, v1):
        for h in (1e-9, 1e-12):
            jump = abs(law.correction(edge + h) - law.correction(edge - h))
            assert jump <= lip * 2 * h * (1 + 1e-6) + 1e-15
    # in between: strictly inside (0, 1) and increasing
    mid = np.linspace(v0, v1, 101)[1:-1]
    cd = law.correction(mid)
    assert np.all((cd > 0) & (cd < 1)) and np.all(np.diff(cd) > 0)


def test_ambrosio_ramp_shapes():
    """Linear: Wang, Chen, Ma & Sun (2016) eq. 14, c_d = s; cubic: smoothstep s^2 (3 - 2 s), s = (|v| - v0)/(v1 - v0).
    Both give 1/2 at mid-ramp; at s = 1/4 they give 0.25 and 0.15625.  The cubic one has zero
    slope at v0 and v1 (one-sided difference over 1e-4 (v1 - v0): slope ~ 6e-4 of the linear one)."""
    v0, v1 = 1e-4, 1e-2
    lin = Ambrosio(v0=v0, v1=v1, ramp="linear")
    cub = Ambrosio(v0=v0, v1=v1, ramp="cubic")
    s = np.array([0.25, 0.5, 0.75])
    v = v0 + s * (v1 - v0)
    np.testing.assert_allclose(lin.correction(v), s, rtol=1e-12)
    np.testing.assert_allclose(cub.correction(v), s * s * (3 - 2 * s), rtol=1e-12)
    h = 1e-4 * (v1 - v0)
    lin_slope = 1.0 / (v1 - v0)
    assert (cub.correction(v0 + h) - cub.correction(v0)) / h < 1e-3 * lin_slope
    assert (cub.correction(v1) - cub.correction(v1 - h)) / h < 1e-3 * lin_slope
    assert (lin.correction(v0 + h) - lin.correction(v0)) / h == pytest.approx(lin_slope, rel=1e-6)


# ------------------------------------------------------------------------------------------------
# Bai & Zhao: Stribeck curve
# ------------------------------------------------------------------------------------------------
def test_bai_zhao_stribeck_curve_peaks_at_v_s():
    """Bai & Zhao (2012) mu(v): |mu| rises from 0 at rest to mu_s at v_s, falls to mu_d at v_d,
    constant above.  The peak is found on a grid of spacing v_s/1000, so its location is checked
    to that spacing; the values at 0, v_s, v_d are exact (rounding)."""
    mu_s, mu_d, v_s, v_d, f_n = 0.15, 0.1, 1e-4, 1e-3, 50.0
    law = BaiZhao(mu_s=mu_s, mu_d=mu_d, v_s=v_s, v_d=v_d)
    v = np.arange(0, 3 * v_d, v_s / 1000)
    mu = -_ft(law, v, f_n) / f_n
    assert abs(v[np.argmax(mu)] - v_s) <= v_s / 1000
    assert mu.max() == pytest.approx(mu_s, rel=1e-12)
    assert mu[0] == 0.0
    assert -_ft(law, v_d, f_n) / f_n == pytest.approx(mu_d, rel=1e-12)
    rising = mu[v <= v_s]
    falling = mu[(v >= v_s) & (v <= v_d)]
    assert np.all(np.diff(rising) > 0) and np.all(np.diff(falling) < 0)
    np.testing.assert_allclose(mu[v > v_d], mu_d, rtol=1e-12)


def test_bai_zhao_coefficient_is_continuously_differentiable():
    """The cubic pieces meet with zero slope at v_s and v_d (C1): one-sided slopes over h = 1e-6 v_s
    are ~1e-6 of the mean slope mu_s/v_s, and the jump over 2h is of order h (rounding aside)."""
    mu_s, mu_d, v_s, v_d = 0.15, 0.1, 1e-4, 1e-3
    law = BaiZhao(mu_s=mu_s, mu_d=mu_d, v_s=v_s, v_d=v_d)
    h = 1e-6 * v_s
    scale = mu_s / v_s
    for edge in (v_s, v_d):
        left = (_ft(law, edge, 1.0) - _ft(law, edge - h, 1.0)) / h
        right = (_ft(law, edge + h, 1.0) - _ft(law, edge, 1.0)) / h
        assert abs(left) < 1e-4 * scale and abs(right) < 1e-4 * scale
    # slope at rest: d mu/dv = 1.5 mu_s / v_s (smoothstep derivative 6 y (1-y) at y = 1/2)
    slope0 = -(_ft(law, h, 1.0) - _ft(law, -h, 1.0)) / (2 * h)
    assert slope0 == pytest.approx(1.5 * mu_s / v_s, rel=1e-6)


# ------------------------------------------------------------------------------------------------
# LuGre
# ------------------------------------------------------------------------------------------------
def _integrate_lugre(law, velocity, t_end, *, z0=0.0, f_n=1.0, n_out=4001, max_step=np.inf):
    """Integrate dz/dt from the compiled kernel under a prescribed slip velocity v(t)."""
    p = law.pack()
    kern = type(law).kernel  # the class attribute: the compiled dispatcher itself

    def rhs(t, y):
        return [kern(velocity(t), f_n, y[0], p)[1]]

    t_eval = np.linspace(0.0, t_end, n_out)
    sol = solve_ivp(rhs, (0.0, t_end), [z0], method="Radau", rtol=1e-10, atol=1e-16,
                    t_eval=t_eval, max_step=max_step)
    assert sol.success, sol.message
    z = sol.y[0]
    v = np.array([velocity(t) for t in sol.t])
    f = np.array([kern(vi, f_n, zi, p)[0] for vi, zi in zip(v, z)])
    return sol.t, z, v, f


@pytest.mark.parametrize("v", [-0.1, -2e-3, -5e-4, 1e-4, 1e-3, 3e-3, 0.1, 1.0])
def test_lugre_steady_state_is_the_stribeck_curve(v):
    """Canudas de Wit et al. (1995) eq. 5: at constant slip z -> g(v) sgn(v)/sigma0 and
    f_ss = -(g(v) sgn v + sigma2 v) f_n.  z relaxes as exp(-t/tau), tau = g/(sigma0 |v|); after 40 tau
    the residual is e^-40 ~ 4e-18, so the error is the integrator's (rtol 1e-10): tolerance 1e-7."""
    law = LuGre(sigma0=1e5, sigma1=10.0, sigma2=0.5, mu_c=0.1, mu_s=0.15, v_s=1e-3)
    f_n = 300.0
    g = float(law.stribeck(v))
    tau = g / (law.params.sigma0 * abs(v))
    t, z, _, f = _integrate_lugre(law, lambda t: v, 40 * tau, f_n=f_n, n_out=3)
    assert z[-1] == pytest.approx(math.copysign(g, v) / law.params.sigma0, rel=1e-7)
    expected = -(g * math.copysign(1.0, v) + law.params.sigma2 * v) * f_n
    assert f[-1] == pytest.approx(expected, rel=1e-7)
    assert float(law.steady_force(v, f_n)) == pytest.approx(expected, rel=1e-14)


def test_lugre_steady_curve_has_static_peak_and_kinetic_limit():
    """g(0) = mu_s, g(v >> v_s) -> mu_c (eq. 4); with sigma2 = 0 the steady force is -g(v) f_n sgn v."""
    law = LuGre(mu_c=0.1, mu_s=0.15, v_s=1e-3, sigma2=0.0)
    assert float(law.stribeck(0.0)) == 0.15
    assert float(law.stribeck(1e-2)) == pytest.approx(0.1, rel=1e-12)  # exp(-100)
    g = law.stribeck(np.linspace(0, 5e-3, 100))
    assert np.all(np.diff(g) < 0)


def test_lugre_presliding_is_elastic_with_stiffness_sigma0_fn():
    """Pre-sliding (Canudas de Wit et al. 1995, §2 'spring-like behaviour for small displacements'):
    for |x| << g/sigma0 the force is -sigma0 f_n x.  Amplitude A = 1e-9 m vs g/sigma0 = 1.5e-6 m:
    the nonlinear term sigma0 |z|/g ~ 7e-4 and the damping term sigma1 w/sigma0 ~ 6e-4 are both
    below 1e-3, so the fitted stiffness must agree to 0.5 % and the loop must be nearly closed."""
    law = LuGre(sigma0=1e5, sigma1=10.0, sigma2=0.0, mu_c=0.1, mu_s=0.15, v_s=1e-3)
    f_n, A, w = 200.0, 1e-9, 2 * math.pi
    t, z, v, f = _integrate_lugre(law, lambda t: A * w * math.cos(w * t), 1.0, f_n=f_n)
    x = A * np.sin(w * t)
    slope = np.polyfit(x, f, 1)[0]
    assert slope == pytest.approx(-law.params.sigma0 * f_n, rel=5e-3)
    # almost no dissipation: the loop area is < 1 % of the peak elastic energy 1/2 k A^2
    dissipated = -trapezoid(f * v, t)
    assert 0.0 < dissipated < 1e-2 * 0.5 * law.params.sigma0 * f_n * A ** 2


def test_lugre_hysteresis_loop_dissipates_about_coulomb_work():
    """Sinusoidal slip x = A sin(w t) with A = 1e-5 m >> pre-sliding 1.5e-6 m: the force-displacement
    loop encloses positive area (Canudas de Wit et al. 1995, hysteresis).  Sliding covers all but
    ~2 mu_s/sigma0 of each stroke at a coefficient between mu_c and mu_s + (sigma1+sigma2) v_max,
    which brackets the work per cycle: 4 mu_c f_n (A - 2 mu_s/sigma0) < W < 4 f_n A (mu_s + ...)."""
    law = LuGre(sigma0=1e5, sigma1=10.0, sigma2=0.2, mu_c=0.1, mu_s=0.15, v_s=1e-3)
    f_n, A = 100.0, 1e-5
    w = 2 * math.pi * 10.0
    period = 2 * math.pi / w
    t, z, v, f = _integrate_lugre(law, lambda t: A * w * math.cos(w * t), 2 * period, f_n=f_n,
                                  n_out=8001)
    last = t >= period
    W = -trapezoid(f[last] * v[last], t[last])
    P = law.params
    lower = 4 * P.mu_c * f_n * (A - 2 * P.mu_s / P.sigma0)
    upper = 4 * f_n * A * (P.mu_s + (P.sigma1 + P.sigma2) * A * w)
    assert lower < W < upper
    # and the bristle deflection never leaves its invariant set |z| <= mu_s / sigma0
    assert np.max(np.abs(z)) <= P.mu_s / P.sigma0 * (1 + 1e-9)


def test_lugre_out_of_contact_gives_no_force_and_freezes_the_state():
    """Documented choice (plugins/friction/lugre.py): f_n <= 0 -> no force, dz/dt = 0."""
    law = LuGre()
    for f_n in (0.0, -3.0):
        f, dz = law.force(VELOCITIES, f_n, 1e-6)
        assert np.all(f == 0.0) and np.all(dz == 0.0)
    # in contact the same state does change
    assert np.any(law.force(VELOCITIES, 1.0, 1e-6)[1] != 0.0)


def test_lugre_state_rate_matches_the_bristle_equation():
    """dz/dt = v - sigma0 |v| z / g(v) and f_t = -(sigma0 z + sigma1 dz/dt + sigma2 v) f_n (eqs. 2-3),
    evaluated independently with numpy; agreement to rounding."""
    law = LuGre(sigma0=2e5, sigma1=3.0, sigma2=0.7, mu_c=0.08, mu_s=0.12, v_s=5e-4)
    P = law.params
    rng = np.random.default_rng(1)
    v = rng.normal(0, 2e-3, 200)
    z = rng.uniform(-1, 1, 200) * P.mu_s / P.sigma0
    f_n = rng.uniform(0.1, 1e3, 200)
    f, dz = law.force(v, f_n, z)
    g = P.mu_c + (P.mu_s - P.mu_c) * np.exp(-(v / P.v_s) ** 2)
    dz_ref = v - P.sigma0 * np.abs(v) * z / g
    np.testing.assert_allclose(dz, dz_ref, rtol=1e-12, atol=1e-18)
    np.testing.assert_allclose(f, -(P.sigma0 * z + P.sigma1 * dz_ref + P.sigma2 * v) * f_n,
                               rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------------------------------------
# fast path vs reference path, and parameter checks
# ------------------------------------------------------------------------------------------------
ALL_MODELS = {**{k: m for k, (m, _, _) in MEMORYLESS.items()},
              "lugre": LuGre(sigma2=0.3)}


@njit(cache=True)
def _loop_kernel(kernel, v, f_n, z, p):  # how the engine calls it: compiled, p a raw array
    out = np.empty((v.size, 2))
    for i in range(v.size):
        out[i, 0], out[i, 1] = kernel(v[i], f_n[i], z[i], p)
    return out


@pytest.mark.parametrize("key", ALL_MODELS)
def test_compiled_kernel_agrees_with_reference_path(key):
    """Fast path (njit kernel, called from compiled code) vs reference path (kernel.py_func through
    FrictionLaw.force): same formulas, so they agree to a few ulp (rtol 1e-12)."""
    model = ALL_MODELS[key]
    rng = np.random.default_rng(7)
    n = 500
    v = np.concatenate([VELOCITIES, rng.normal(0, 1e-2, n)])
    f_n = np.abs(rng.normal(100.0, 80.0, v.size))
    f_n[::17] = 0.0
    z = rng.uniform(-1.5e-6, 1.5e-6, v.size)
    fast = _loop_kernel(type(model).kernel, v, f_n, z, model.pack())
    ref_f, ref_dz = model.force(v, f_n, z)
    np.testing.assert_allclose(fast[:, 0], ref_f, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(fast[:, 1], ref_dz, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name, values, key", [
    ("ambrosio", {"v0": 1e-2, "v1": 1e-3}, "v1"),
    ("bai_zhao", {"v_s": 1e-3, "v_d": 1e-4}, "v_d"),
    ("coulomb", {"regularization": "tahn"}, "regularization"),
    ("ambrosio", {"ramp": "quadratic"}, "ramp"),
    ("lugre", {"sigma0": -1.0}, "sigma0"),
    ("coulomb", {"v_eps": 0.0}, "v_eps"),
])
def test_bad_parameters_are_study_errors_naming_the_key(name, values, key):
    with pytest.raises(StudyError) as err:
        FRICTION_CLASSES[name].from_mapping(values, file="study.toml", key="models.friction")
    assert key in str(err.value)


_POINTER_SIG = types.float64(types.float64, types.float64, types.float64,
                             types.CPointer(types.float64), types.CPointer(types.float64))


@pytest.mark.parametrize("name", FRICTION_CLASSES)
def test_kernel_compiles_with_a_raw_parameter_pointer(name):
    """Kernel contract (workbench.models.FrictionLaw): the engine may pass ``p`` as a raw pointer,
    so the kernel may only index it.  Wrap it in a C callback taking ``double*`` and call it."""
    cls = FRICTION_CLASSES[name]
    model = cls()
    kern = cls.kernel

    def wrapper(v_t, f_n, z, p, out):
        f_t, z_dot = kern(v_t, f_n, z, p)
        out[0] = z_dot
        return f_t

    c = cfunc(_POINTER_SIG)(wrapper)
    p = model.pack()
    out = np.zeros(1)
    dbl = ctypes.POINTER(ctypes.c_double)
    for v_t, f_n, z in [(3e-4, 120.0, 1e-7), (-2e-2, 50.0, -4e-7), (0.0, 10.0, 0.0), (1.0, 0.0, 1e-7)]:
        f_t = c.ctypes(v_t, f_n, z, p.ctypes.data_as(dbl), out.ctypes.data_as(dbl))
        ref = kern.py_func(v_t, f_n, z, p)
        assert f_t == pytest.approx(ref[0], rel=1e-12, abs=1e-300)
        assert out[0] == pytest.approx(ref[1], rel=1e-12, abs=1e-300)
