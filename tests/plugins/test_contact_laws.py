"""Contact force laws: registry conformance, closed forms, implicit-law residuals, defaults.

The conformance part loops over *every* registered contact model (built-in or third-party):
zero force without penetration, no tension, finite output, compiled kernel == plain-Python
reference, kernel usable through the engine's C-pointer signature.
"""
from __future__ import annotations

import ctypes
import math
import warnings

import numpy as np
import pytest
from numba import cfunc, types

from workbench.errors import StudyError
from workbench.models import ContactGeometry, Material
from workbench.plugins import build_registry

ELASTIC = ("hooke", "hertz", "johnson", "radzimovsky", "esdu_78035")
HYSTERESIS = ("hunt_crossley", "herbert_mcwhannell", "lee_wang", "lankarani_nikravesh",
              "zhiying_qishao", "gonthier", "flores")
BUILTIN = ELASTIC + ("kelvin_voigt",) + HYSTERESIS
IMPLICIT = ("johnson", "radzimovsky", "esdu_78035")

#: parameters a conformance run needs beyond the defaults (a law may require one, with a clear
#: error when it is missing — tested below)
NEEDS = {"kelvin_voigt": {"effective_mass": 1.0}}

STEEL = Material(E=207e9, nu=0.3)
#: Wang, Chen, Ma & Sun (2016) Table 1 joint: journal radius 10 mm, clearance 0.5 mm, length 10 mm, steel
PIN = ContactGeometry(kind="cylindrical", radius_journal=0.010, radius_bushing=0.0105, length=0.010,
                      journal=STEEL, bushing=STEEL)
SPHERES = ContactGeometry(kind="sphere", radius_journal=0.01, radius_bushing=0.01)
PLANAR = ContactGeometry(kind="planar", length=0.005, half_perimeter=0.013)
GEOMETRIES = {"cylindrical": PIN, "sphere": SPHERES, "planar": PLANAR}


def _build_registry():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # other families' plugins may be missing
        return build_registry()


@pytest.fixture(scope="module")
def registry():
    return _build_registry()


def _model(registry, name, **values):
    cls = registry.get("contact", name)
    return cls(**{**NEEDS.get(name, {}), **values})


def _all_names():
    return _build_registry().names("contact")


# ------------------------------------------------------------------------------------------
# registry
# ------------------------------------------------------------------------------------------
def test_all_thirteen_laws_registered_with_references_and_units(registry):
    names = registry.names("contact")
    missing = sorted(set(BUILTIN) - set(names))
    assert not missing, f"contact laws not registered: {missing}"
    for name in BUILTIN:
        cls = registry.get("contact", name)
        assert cls.reference.strip(), name
        assert cls.__doc__ and cls.__doc__.strip(), name
        for info in cls.parameters():
            assert info.unit.strip(), (name, info.name)
            assert info.doc.strip(), (name, info.name)
        assert cls.dissipative == (name not in ELASTIC), name


# ------------------------------------------------------------------------------------------
# conformance over every registered contact law
# ------------------------------------------------------------------------------------------
_SIG = types.float64(types.float64, types.float64, types.float64, types.CPointer(types.float64))


def _pointer_call(kernel):
    """Wrap the kernel exactly as the engine does: a numba cfunc taking a raw double pointer."""
    k = kernel

    def wrapper(d, dd, dm, p):
        return k(d, dd, dm, p)
    cf = cfunc(_SIG)(wrapper)

    def call(d, dd, dm, p):
        return cf.ctypes(d, dd, dm, p.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
    return call


def _geometry_for(cls):
    for kind in cls.geometries:
        if kind in GEOMETRIES:
            return GEOMETRIES[kind]
    pytest.skip(f"no test geometry for kinds {cls.geometries}")


@pytest.mark.parametrize("name", _all_names())
def test_conformance(registry, name):
    cls = registry.get("contact", name)
    model = _model(registry, name)
    geom = _geometry_for(cls)
    p = model.pack(geom)
    assert p.dtype == np.float64 and p.ndim == 1 and np.all(np.isfinite(p))
    py = cls.kernel.py_func
    ptr = _pointer_call(cls.kernel)
    scale = geom.clearance if geom.kind == "cylindrical" else 1e-3
    deltas = np.concatenate([[-1e-3, -1e-9, 0.0], scale * np.logspace(-8, 0.5, 40)])
    rates = (-5.0, -1.0, -0.1, 0.0, 0.1, 1.0, 5.0)  # strong rebound included: tension must clamp
    for v_minus in (1e-9, 0.01, 1.0):
        for dd in rates:
            for d in deltas:
                f = cls.kernel(d, dd, v_minus, p)
                assert math.isfinite(f), (d, dd, v_minus)
                assert f >= 0.0, f"tension {f} N at delta={d}, rate={dd}, v-={v_minus}"
                if d <= 0.0:
                    assert f == 0.0, (d, dd, f)
                ref = py(d, dd, v_minus, p)
                assert f == pytest.approx(ref, rel=1e-12, abs=0.0), (d, dd, v_minus)
    # the engine's call path (raw pointer) gives the same numbers
    for d, dd in ((scale * 1e-3, 0.3), (scale * 1e-2, -0.2), (0.0, 1.0)):
        assert ptr(d, dd, 1.0, p) == pytest.approx(cls.kernel(d, dd, 1.0, p), rel=1e-14, abs=0.0)
    # vectorised reference path
    f = model.force(deltas[:5], 0.1, 1.0, geom)
    assert f.shape == (5,) and np.all(f >= 0.0)


@pytest.mark.parametrize("name", ELASTIC)
def test_elastic_laws_increase_with_penetration_and_ignore_rates(registry, name):
    cls = registry.get("contact", name)
    p = _model(registry, name).pack(PIN)
    d = PIN.clearance * np.logspace(-8, 1, 400)  # beyond the implicit laws' validity too
    f = np.array([cls.kernel(x, 0.0, 1.0, p) for x in d])
    assert np.all(np.diff(f) > 0.0)
    g = np.array([cls.kernel(x, -3.0, 0.01, p) for x in d])
    np.testing.assert_array_equal(f, g)


# ------------------------------------------------------------------------------------------
# closed forms
# ------------------------------------------------------------------------------------------
def _eq11_by_hand(Ri, Rj, E, nu):
    """Wang, Chen, Ma & Sun (2016) eqs. 11-12 for two parts of one material."""
    h = (1.0 - nu ** 2) / E
    return 4.0 / (3.0 * (h + h)) * math.sqrt(Ri * Rj / (Ri - Rj))


@pytest.mark.parametrize("name", ("hertz",) + HYSTERESIS)
def test_default_stiffness_is_wang2016_eq11(registry, name):
    # R_i = 10.5 mm, R_j = 10 mm, E = 207 GPa, nu = 0.3: K = 4/(3*2*(1-0.09)/207e9) sqrt(0.21)
    K_hand = _eq11_by_hand(0.0105, 0.010, 207e9, 0.3)
    assert K_hand == pytest.approx(6.9494e10, rel=1e-4)  # the hand arithmetic itself
    p = _model(registry, name).pack(PIN)
    assert p[0] == pytest.approx(K_hand, rel=1e-12)


def test_hertz_and_hooke_closed_forms(registry):
    hertz = _model(registry, "hertz", stiffness=2.5e9, exponent=1.3)
    hooke = _model(registry, "hooke", stiffness=3.0e8)
    for d in (1e-7, 3e-6, 2e-5):
        assert type(hertz).kernel(d, 0.5, 1.0, hertz.pack(PIN)) == pytest.approx(2.5e9 * d ** 1.3, rel=1e-14)
        assert type(hooke).kernel(d, 0.5, 1.0, hooke.pack(PIN)) == pytest.approx(3.0e8 * d, rel=1e-14)


def test_hooke_default_stiffness_per_geometry(registry):
    # planar: Wang, Chen, Ma & Sun (2016) eq. 26, K_s = a / (0.475 (h_i + h_j))
    h = (1.0 - 0.3 ** 2) / 207e9
    assert _model(registry, "hooke").pack(PLANAR)[0] == pytest.approx(0.013 / (0.475 * 2 * h), rel=1e-12)
    # cylindrical: secant of Johnson's law at the reference load, K * delta_J(F) = F
    for F in (100.0, 1000.0, 1e4):
        K = _model(registry, "hooke", reference_load=F).pack(PIN)[0]
        Es = 1.0 / (2 * h)
        L, dR = PIN.length, PIN.clearance
        delta_J = F / (math.pi * L * Es) * (math.log(4 * math.pi * L * dR * Es / F) - 1.0)
        assert K * delta_J == pytest.approx(F, rel=1e-12)
    # sphere: secant of Hertz at the reference load
    Kh = SPHERES.default_stiffness()
    K = _model(registry, "hooke", reference_load=50.0).pack(SPHERES)[0]
    assert K * (50.0 / Kh) ** (2.0 / 3.0) == pytest.approx(50.0, rel=1e-12)


#: hysteresis factors chi(e) as printed in Machado et al. 2012 §4 / Wang & Liu (2015) Table 2
CHI = {
    "hunt_crossley": lambda e: 3 * (1 - e) / 2,
    "herbert_mcwhannell": lambda e: 6 * (1 - e) / ((2 * e - 1) ** 2 + 3),
    "lee_wang": lambda e: 3 * (1 - e) / 4,
    "lankarani_nikravesh": lambda e: 3 * (1 - e ** 2) / 4,
    "zhiying_qishao": lambda e: 3 * (1 - e ** 2) * math.exp(2 * (1 - e)) / 4,
    "gonthier": lambda e: (1 - e ** 2) / e,
    "flores": lambda e: 8 * (1 - e) / (5 * e),
}


@pytest.mark.parametrize("name", HYSTERESIS)
def test_hysteresis_closed_form(registry, name):
    K, n = 1.0e10, 1.5
    for e in (0.3, 0.7, 0.95):
        m = _model(registry, name, stiffness=K, exponent=n, restitution=e)
        p = m.pack(PIN)
        for d, dd, dm in ((1e-6, 0.4, 1.2), (5e-6, -0.2, 0.8), (2e-5, 0.0, 2.0)):
            expect = max(0.0, K * d ** n * (1 + CHI[name](e) * dd / dm))
            assert type(m).kernel(d, dd, dm, p) == pytest.approx(expect, rel=1e-13)
    # e = 1 removes the damping: the law is Hertz's
    p = _model(registry, name, stiffness=K, restitution=1.0).pack(PIN)
    assert p[2] == 0.0
    assert registry.get("contact", name).kernel(1e-5, -0.7, 1.0, p) == pytest.approx(K * 1e-5 ** 1.5, rel=1e-14)


@pytest.mark.parametrize("name", HYSTERESIS)
def test_grazing_contact_guard(registry, name):
    m = _model(registry, name, restitution=0.5)
    p = m.pack(PIN)
    floor = m.params.min_impact_speed
    for v_minus in (0.0, 1e-12, float("nan")):
        f = type(m).kernel(1e-6, 1e-3, v_minus, p)
        assert math.isfinite(f)
        assert f == type(m).kernel(1e-6, 1e-3, floor, p)


def test_kelvin_voigt_closed_form_and_damping_from_restitution(registry):
    m = _model(registry, "kelvin_voigt", stiffness=1e8, damping=2e3)
    p = m.pack(PIN)
    assert type(m).kernel(1e-5, 0.3, 1.0, p) == pytest.approx(1e8 * 1e-5 + 2e3 * 0.3, rel=1e-14)
    assert type(m).kernel(1e-5, -0.6, 1.0, p) == 0.0  # 1000 - 1200 < 0: clamped, no tension
    # D = 2 zeta sqrt(K m), e = exp(-zeta pi / sqrt(1 - zeta^2))  (damped linear oscillator)
    D = _model(registry, "kelvin_voigt", stiffness=1e8, restitution=0.6, effective_mass=0.5).pack(PIN)[1]
    zeta = D / (2 * math.sqrt(1e8 * 0.5))
    assert math.exp(-zeta * math.pi / math.sqrt(1 - zeta ** 2)) == pytest.approx(0.6, rel=1e-12)


# ------------------------------------------------------------------------------------------
# implicit internal-cylinder laws: residual of the published delta(F) at the solved F
# ------------------------------------------------------------------------------------------
def _published_delta(name, F, g):
    """delta(F) in the form Pereira, Ramalho & Ambrosio (2011) tabulate, written independently."""
    L, Ri, Rj = g.length, g.radius_bushing, g.radius_journal
    dR = Ri - Rj
    hi, hj = g.bushing.h, g.journal.h
    Es = 1.0 / (hi + hj)
    if name == "johnson":
        return F / (math.pi * L * Es) * (math.log(4 * math.pi * L * dR * Es / F) - 1)
    if name == "esdu_78035":
        s = hi / math.pi + hj / math.pi  # sigma_k = (1 - nu_k^2)/(pi E_k)
        return F * s / L * (math.log(4 * L * dR / (F * s)) + 1)
    if name == "radzimovsky":
        R = Ri * Rj / dR
        b = 1.6 * math.sqrt(F * R / (L * Es))
        return F / (math.pi * L * Es) * (2 / 3 + math.log(4 * Ri / b) + math.log(4 * Rj / b))
    raise KeyError(name)


#: validity limit delta_max / dR = (A/(pi L dR E*)) e^(B-1) of each law (maximum of delta(F))
DELTA_MAX_OVER_DR = {"johnson": 4 * math.exp(-2), "esdu_78035": 4.0,
                     "radzimovsky": 6.25 / math.pi * math.exp(-1 / 3)}

#: a soft bushing on a steel journal, to exercise unequal materials
MIXED = ContactGeometry(kind="cylindrical", radius_journal=0.020, radius_bushing=0.0202, length=0.03,
                        journal=STEEL, bushing=Material(E=110e9, nu=0.34))


@pytest.mark.parametrize("geom", [PIN, MIXED], ids=["steel", "steel-bronze"])
@pytest.mark.parametrize("name", IMPLICIT)
def test_implicit_law_residual(registry, name, geom):
    cls = registry.get("contact", name)
    p = _model(registry, name).pack(geom)
    d_max = DELTA_MAX_OVER_DR[name] * geom.clearance
    assert p[3] == pytest.approx(d_max, rel=1e-12)
    worst = 0.0
    for d in d_max * np.concatenate([np.logspace(-9, -0.05, 60), [0.99, 0.999]]):
        F = cls.kernel(d, 0.0, 1.0, p)
        assert F > 0.0
        worst = max(worst, abs(_published_delta(name, F, geom) - d) / d)
    assert worst < 1e-10, worst


@pytest.mark.parametrize("name", IMPLICIT)
def test_implicit_law_against_lambert_w(registry, name):
    """F = A exp(B - w), -w = W_{-1}(-t e^-B), t = delta/(c A): an independent closed form."""
    from scipy.special import lambertw
    cls = registry.get("contact", name)
    p = _model(registry, name).pack(PIN)
    c, A, B = p[0], p[1], p[2]
    for d in (1e-8, 1e-6, 1e-5, 1e-4):
        w = -lambertw(-d / (c * A) * math.exp(-B), k=-1).real
        assert cls.kernel(d, 0.0, 1.0, p) == pytest.approx(A * math.exp(B - w), rel=1e-11)


@pytest.mark.parametrize("name", IMPLICIT)
def test_implicit_law_continues_beyond_validity(registry, name):
    cls = registry.get("contact", name)
    p = _model(registry, name).pack(PIN)
    d_max, f_max = p[3], p[4]
    below = cls.kernel(d_max * (1 - 1e-9), 0.0, 1.0, p)
    assert below == pytest.approx(f_max, rel=1e-3)  # continuous at the limit (sqrt-type cusp)
    assert cls.kernel(2 * d_max, 0.0, 1.0, p) == pytest.approx(2 * f_max, rel=1e-14)  # secant line


# ------------------------------------------------------------------------------------------
# errors name the problem and the way out
# ------------------------------------------------------------------------------------------
def test_errors(registry):
    with pytest.raises(StudyError, match="exponent"):
        _model(registry, "hertz", exponent=1.2).pack(PIN)  # eq. 11 is an n = 1.5 stiffness
    with pytest.raises(StudyError, match="exponent = 1"):
        _model(registry, "lankarani_nikravesh").pack(PLANAR)  # eq. 26 is linear
    assert _model(registry, "lankarani_nikravesh", exponent=1.0).pack(PLANAR)[0] > 0.0
    with pytest.raises(StudyError, match="cylindrical"):
        _model(registry, "johnson").pack(SPHERES)
    with pytest.raises(StudyError, match="effective_mass"):
        registry.get("contact", "kelvin_voigt")().pack(PIN)
    with pytest.raises(StudyError, match="restitution"):
        _model(registry, "flores", restitution=0.0).pack(PIN)  # chi = 8(1-e)/(5e) diverges
    with pytest.raises(StudyError, match="restitution"):
        registry.create("contact", "gonthier", {"restitution": 1.5})
    with pytest.raises(StudyError, match="stiffness"):
        _model(registry, "hooke", stiffness=-1.0).pack(PIN)
