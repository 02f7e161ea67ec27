"""Wear-family plugins: archard, reye, nonlinear_archard (through the registry, like a study).

Oracles: Wang & Liu (2015) eq. (10)/(14) (Archard, linear in p and ds), eq. (12) (Reye; docs/validation.md: with
``mu/tau = k_d`` it must give identical profiles), eq. (15)-(20) with our running-in
parametrisation ``k(s) = k_ss + (k_0 - k_ss) exp(-s/s_0)`` (closed-form integral of the depth).
The conformance part loops over *every* registered wear law.
"""
from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

from workbench.errors import StudyError, WorkbenchError
from workbench.models import WearLaw
from workbench.plugins import build_registry

BUILTIN = ("archard", "nonlinear_archard", "reye")


def _all_names():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return build_registry().names("wear")


def _inputs(shape=(40, 72), seed=0):
    """Random pressures (some negative: apart) and slips (both signs) of a wear-loop shape."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(-2e7, 3e8, shape)
    ds = rng.uniform(-2e-5, 2e-5, shape)
    return p, ds


class _with_shear:
    """Calls a law as the wear loop does: a law with ``uses_shear`` gets ``shear = 0.1 p`` [Pa]
    (Coulomb friction with mu = 0.1 spread in proportion to the pressure)."""
    def __init__(self, law):
        self.law = law

    def depth(self, p, ds, s=0.0):
        if getattr(self.law, "uses_shear", False):
            return self.law.depth(p, ds, s, shear=0.1 * np.asarray(p, float))
        return self.law.depth(p, ds, s)


# ------------------------------------------------------------------------------------------
# registry and conformance
# ------------------------------------------------------------------------------------------
def test_wear_laws_registered_with_references_and_units(registry):
    assert set(BUILTIN) <= set(registry.names("wear"))
    for name in BUILTIN:
        entry = registry.entry("wear", name)
        assert entry.plugin == f"wear_{name}"  # through the entry point, like a third party
        cls = entry.cls
        assert issubclass(cls, WearLaw) and cls.reference.strip() and cls.__doc__.strip()
        assert re.search(r"(18|19|20)\d\d", cls.reference)   # names its source with a year
        for info in cls.parameters():
            assert info.unit.strip() and info.doc.strip(), (name, info.name)


@pytest.mark.parametrize("name", _all_names())
def test_conformance(registry, name):
    """Every wear law: dh >= 0, finite, shape of the (broadcast) inputs, zero without pressure or
    without slip, negative pressure acts as zero, slip direction does not matter."""
    raw = registry.create("wear", name)
    law = _with_shear(raw)
    p, ds = _inputs()
    s = np.linspace(0.0, 5e3, p.shape[1])  # per-node sliding distance, broadcast over samples
    dh = law.depth(p, ds, s)
    assert isinstance(dh, np.ndarray) and dh.shape == p.shape and dh.dtype == np.float64
    assert np.all(np.isfinite(dh)) and np.all(dh >= 0.0)
    assert np.any(dh > 0.0)
    np.testing.assert_array_equal(law.depth(p, -ds, s), dh)
    np.testing.assert_array_equal(dh[p <= 0.0], 0.0)
    np.testing.assert_array_equal(law.depth(np.clip(p, 0.0, None), ds, s), dh)
    np.testing.assert_array_equal(law.depth(p, np.zeros_like(ds), s), 0.0)
    np.testing.assert_array_equal(law.depth(np.zeros_like(p), ds, s), 0.0)
    # shapes: scalars give a 0-d array, scalar slip broadcasts, default sliding distance
    assert law.depth(1e8, 1e-6).shape == ()
    assert law.depth(p, 1e-6).shape == p.shape
    assert law.depth(1e8, ds[0]).shape == ds[0].shape
    assert law.depth(p[None], ds).shape == (1,) + p.shape


# ------------------------------------------------------------------------------------------
# Archard and Reye
# ------------------------------------------------------------------------------------------
def test_archard_is_kd_p_ds(registry):
    """Wang & Liu (2015) eq. (14): dh = k_d p ds; linear in p and in ds, blind to the total distance.
    Exact up to rounding (one or two multiplications: rel 1e-15)."""
    kd = 3.7e-15
    law = registry.create("wear", "archard", {"wear_coefficient": kd})
    p, ds = _inputs()
    pos = np.clip(p, 0.0, None)
    dh = law.depth(p, ds)
    np.testing.assert_allclose(dh, kd * pos * np.abs(ds), rtol=1e-15, atol=0.0)
    np.testing.assert_allclose(law.depth(2.5 * p, ds), 2.5 * dh, rtol=1e-15, atol=0.0)
    np.testing.assert_allclose(law.depth(p, 0.3 * ds), 0.3 * dh, rtol=1e-15, atol=0.0)
    np.testing.assert_array_equal(law.depth(p, ds, 1e4), dh)
    # hand number: 100 MPa over 1 mm with k_d = 3.7e-15 1/Pa is 0.37 nm
    assert float(law.depth(1e8, 1e-3)) == pytest.approx(3.7e-10, rel=1e-15)


def test_reye_is_kR_times_the_friction_work(registry):
    """Reye (Wang & Liu (2015) eq. 11-12): dh = k_R tau ds with the local friction shear tau; with
    tau = mu p (Coulomb, constant mu) it is Archard with k_d = mu k_R -- to rounding (rel 1e-15:
    the two evaluate the same two products in another order)."""
    mu, kR = 0.17, 4.3e-14
    reye = registry.create("wear", "reye", {"wear_coefficient": kR})
    archard = registry.create("wear", "archard", {"wear_coefficient": mu * kR})
    p, ds = _inputs((200, 72), seed=3)
    tau = mu * np.clip(p, 0.0, None)
    np.testing.assert_allclose(reye.depth(p, ds, 10.0, shear=tau), archard.depth(p, ds, 10.0),
                               rtol=1e-15, atol=0.0)
    # the shear, not the pressure, sets the depth (where the surfaces press)
    np.testing.assert_allclose(reye.depth(p, ds, shear=2 * tau), 2 * reye.depth(p, ds, shear=tau),
                               rtol=1e-15, atol=0.0)
    np.testing.assert_array_equal(reye.depth(p, ds, shear=np.zeros_like(p)), 0.0)
    # hand number: 1 MPa of shear over 1 mm with k_R = 4.3e-14 m^3/J is 43 pm
    assert float(reye.depth(1e8, 1e-3, shear=1e6)) == pytest.approx(4.3e-11, rel=1e-15)
    with pytest.raises(WorkbenchError, match="needs the local friction shear"):
        reye.depth(p, ds)


# ------------------------------------------------------------------------------------------
# nonlinear Archard
# ------------------------------------------------------------------------------------------
def _nonlinear(registry, **values):
    base = {"wear_coefficient": 2e-15, "initial_wear_coefficient": 3e-14, "running_in_distance": 50.0}
    return registry.create("wear", "nonlinear_archard", {**base, **values})


def test_nonlinear_reduces_to_archard(registry):
    """m = 1 and k_0 = k_ss: the running-in term vanishes and eq. (20) is eq. (14) — identical
    arrays at any total sliding distance (the steady part is evaluated exactly as Archard's)."""
    kd = 4.1e-15
    nl = _nonlinear(registry, wear_coefficient=kd, initial_wear_coefficient=kd, pressure_exponent=1.0,
                    reference_pressure=3e7)
    archard = registry.create("wear", "archard", {"wear_coefficient": kd})
    p, ds = _inputs()
    for s in (0.0, 17.0, np.linspace(0.0, 1e3, p.shape[1])):
        np.testing.assert_array_equal(nl.depth(p, ds, s), archard.depth(p, ds))


def test_nonlinear_is_split_invariant(registry):
    """k(s) is integrated exactly over each increment, so one increment of 2 ds equals two of ds,
    and 1000 increments equal one (relative 1e-12: sums of 1000 rounded terms)."""
    for m in (1.0, 1.7):
        law = _nonlinear(registry, pressure_exponent=m)
        p, ds = _inputs(seed=5)
        s = np.linspace(0.0, 300.0, p.shape[1])
        one = law.depth(p, 2 * ds, s)
        two = law.depth(p, ds, s) + law.depth(p, ds, s + np.abs(ds))
        np.testing.assert_allclose(two, one, rtol=1e-13, atol=0.0)
        pp, S = 2e8, 400.0  # a long slide across the whole running-in, in 1000 pieces
        pieces = sum(float(law.depth(pp, S / 1000, i * S / 1000)) for i in range(1000))
        assert pieces == pytest.approx(float(law.depth(pp, S, 0.0)), rel=1e-12)


def test_nonlinear_running_in_closed_form(registry):
    """Running-in: the coefficient starts at k_0 and ends at k_ss; the depth over a long slide at
    constant pressure equals the closed-form integral p [k_ss S + (k_0 - k_ss) s_0 (1 - e^(-S/s_0))]
    (our parametrisation of Wang & Liu (2015) eq. 20's beta~(s)), summed over uneven increments (rel 1e-12)."""
    k_ss, k_0, s_0, p = 2e-15, 3e-14, 50.0, 1.2e8
    law = _nonlinear(registry)
    assert float(law.coefficient(0.0)) == pytest.approx(k_0, rel=1e-15)
    assert float(law.coefficient(50 * s_0)) == pytest.approx(k_ss, rel=1e-15)
    assert float(law.coefficient(s_0)) == pytest.approx(k_ss + (k_0 - k_ss) / math.e, rel=1e-15)
    edges = np.cumsum(np.random.default_rng(1).uniform(0.1, 3.0, 400))
    edges = np.concatenate([[0.0], edges])
    S = edges[-1]
    total = np.sum(law.depth(p, np.diff(edges), edges[:-1]))
    exact = p * (k_ss * S + (k_0 - k_ss) * s_0 * (1.0 - math.exp(-S / s_0)))
    assert total == pytest.approx(exact, rel=1e-12)
    # the wear rate per metre falls from k_0 p to k_ss p (a tiny first and last increment)
    assert float(law.depth(p, 1e-6, 0.0)) / 1e-6 == pytest.approx(k_0 * p, rel=1e-6)
    assert float(law.depth(p, 1e-6, S)) / 1e-6 == pytest.approx(
        p * (k_ss + (k_0 - k_ss) * math.exp(-S / s_0)), rel=1e-6)
    # a rising coefficient (k_0 < k_ss) is allowed and stays >= 0
    rising = _nonlinear(registry, wear_coefficient=3e-14, initial_wear_coefficient=0.0)
    assert float(rising.depth(p, 1e-6, 0.0)) == pytest.approx(0.5 * 1e-6 ** 2 / s_0 * 3e-14 * p, rel=1e-5)


def test_nonlinear_pressure_exponent(registry):
    """dh ∝ p^m about p_ref: doubling p multiplies dh by 2^m; at p = p_ref the depth is the
    coefficient times p_ref ds (rel 1e-14: a power and a few products)."""
    m, p_ref = 1.6, 8e7
    law = _nonlinear(registry, pressure_exponent=m, reference_pressure=p_ref,
                     initial_wear_coefficient=2e-15)  # no running-in: k = k_ss
    assert float(law.depth(2.4e8, 1e-4) / law.depth(1.2e8, 1e-4)) == pytest.approx(2 ** m, rel=1e-14)
    assert float(law.depth(p_ref, 1e-4)) == pytest.approx(2e-15 * p_ref * 1e-4, rel=1e-14)


# ------------------------------------------------------------------------------------------
# bad parameters
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, values, match", [
    ("archard", {"wear_coefficient": -1e-15}, "below the minimum 0.0 1/Pa"),
    ("archard", {"wear_coeficient": 1e-15}, "Did you mean 'wear_coefficient'"),
    ("archard", {"wear_coefficient": "big"}, "expected a number in 1/Pa"),
    ("archard", {"wear_coefficient": math.inf}, "finite"),
    ("reye", {"wear_coefficient": -1e-13}, "below the minimum"),
    ("nonlinear_archard", {"running_in_distance": 0.0}, "running_in_distance must be a finite number > 0"),
    ("nonlinear_archard", {"pressure_exponent": 0.0}, "pressure_exponent must be"),
    ("nonlinear_archard", {"pressure_exponent": 11.0}, "above the maximum"),
    ("nonlinear_archard", {"reference_pressure": 0.0}, "reference_pressure must be"),
    ("nonlinear_archard", {"initial_wear_coefficient": -1.0}, "below the minimum"),
])
def test_bad_parameters_are_study_errors(registry, name, values, match):
    with pytest.raises(StudyError, match=match) as err:
        registry.create("wear", name, values, file="wear.toml", key="wear.law")
    key = next(iter(values))
    assert key in str(err.value)
