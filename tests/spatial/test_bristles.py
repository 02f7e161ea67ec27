"""LuGre friction in the spatial Qi joints, the bristle deflections as extra states
(:mod:`workbench.spatial.bristles`).

Default suite: pre-sliding of a cylindrical joint under a small axial force against the closed form
``sigma0 z N = F``.  Slow: the Qi pendulum on a cylindrical joint with LuGre against the set-valued
run as the bristles stiffen (``sigma0`` 1e4 -> 1e5 1/m): the differences fall as ``1 / sigma0``.
"""
from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from pendulum import mechanism  # noqa: E402

from workbench import engines  # noqa: E402
from workbench.engines.spatial import Settings  # noqa: E402

M, G = 78.0, 9.80665


@pytest.fixture(scope="module")
def registry():
    from workbench.plugins import build_registry
    return build_registry()


def _lugre(registry, sigma0, sigma1):
    return registry.create("friction", "lugre", dict(sigma0=sigma0, sigma1=sigma1, sigma2=0.0, mu_c=0.5, mu_s=0.5,
                                                     v_s=1e-3))


def test_presliding_displacement_under_a_small_axial_force(registry):
    F, sigma0 = 1.0, 1e5          # 1 N against mu N = 382 N: pre-sliding
    mech = mechanism(_lugre(registry, sigma0, 50.0), v0=0.0, axial_force=F, axial_arm=0.0)
    phi = -math.pi / 2            # hanging: no moment about the joint axis, the force on the axis
    bar = dataclasses.replace(mech.bodies[0], position=(0.0, -0.5, 0.0),
                              quaternion=(math.cos(phi / 2), 0.0, 0.0, math.sin(phi / 2)))
    mech = dataclasses.replace(mech, bodies=(bar,))
    line = engines.get("spatial").describe(Settings(t_end=0.1), mechanism=mech)
    assert "LuGre bristle states" in line and 'method = "Radau"' in line     # DOP853: the hint
    assert "implicit method" not in engines.get("spatial").describe(Settings(t_end=0.1, method="Radau"), mechanism=mech)
    sim = engines.get("spatial").simulate(mech, Settings(t_end=0.06, output_step=0.03, rtol=1e-8, atol=1e-13,
                                                         method="Radau"))
    N = sim.extras["contact_load"][-1, 0].sum()
    z = sim.extras["bristle_deflection"][-1, 0]
    s = sim.position[-1, 0, 2]
    print(f"\npre-sliding: z_s {abs(z[0]):.9g} m, closed form F / (sigma0 N) {F / (sigma0 * N):.9g} m, slide {s:.9g} m")
    # settled (sigma1 near critical damping): the bristles carry the force, sigma0 z N = F, the
    # friction force balances it, nothing turns
    assert math.isclose(abs(z[0]), F / (sigma0 * N), rel_tol=1e-6) and abs(z[1]) < 1e-15
    assert math.isclose(N, M * G, rel_tol=1e-9)
    assert math.isclose(sim.extras["friction_force"][-1, 0], -F, rel_tol=1e-6)
    # the slide is the deflection plus the bristles' slip during the transient, of relative order
    # F / (mu N) = 0.26 % (the term sigma0 |v| z / g of the bristle equation)
    assert 0 < s / (F / (sigma0 * N)) - 1 < 4 * F / (0.5 * N)
    # the deflection is a dataset variable with its unit, per joint and slip component
    from workbench.spatial.dataset import to_dataset
    zd = to_dataset(sim)["bristle_deflection"]
    assert zd.dims == ("bristle_joint", "slip_component", "time") and zd.attrs["units"] == "m"
    assert list(zd["slip_component"].values) == ["axial", "rotation"]
    np.testing.assert_array_equal(zd.values[0, :, -1], z)


def test_validate_refuses_lugre_where_it_is_not_modelled(registry):
    # a prismatic joint has no journal: no friction from its reactions (the universal joint takes
    # LuGre per journal: tests/spatial/test_bristles_universal.py)
    mech = mechanism(_lugre(registry, 1e5, 10.0))
    j = mech.joints[0]
    pri = dataclasses.replace(j, type="prismatic")
    probs = dict(dataclasses.replace(mech, joints=(pri,)).problems())
    msg = probs["mechanism.joints[0].friction"]
    assert "'prismatic'" in msg and "'cylindrical'" in msg and "'universal'" in msg
    uni = dataclasses.replace(j, type="universal", axis_j=(1.0, 0.0, 0.0), radius_j=0.05, length_j=1.0)
    assert dataclasses.replace(mech, joints=(uni,)).problems() == []
    assert mech.problems() == []


@pytest.mark.slow   # ~2 min (implicit integration on the reference right-hand side); the default suite keeps pre-sliding
def test_stiff_bristles_approach_the_set_valued_run(registry):
    from workbench.spatial import stick
    T = 0.1
    sv = stick.simulate(mechanism(registry.create("friction", "coulomb_set_valued", dict(mu=0.5))),
                        Settings(t_end=T, output_step=T / 4, rtol=1e-10, atol=1e-12))
    errs = []
    for sigma0 in (1e4, 1e5):
        sim = engines.get("spatial").simulate(mechanism(_lugre(registry, sigma0, 0.0)),
                                              Settings(t_end=T, output_step=T / 4, rtol=1e-9, atol=1e-12,
                                                       method="Radau"))
        late = sim.time > 0        # at t = 0 the bristles are relaxed: LuGre starts without force
        errs.append((np.abs(sim.position[:, 0, 2] - sv.position[:, 0, 2]).max(),
                     np.abs(sim.dissipated_energy - sv.dissipated_energy).max(),
                     np.abs(sim.extras["friction_force"][late, 0] - sv.extras["friction_force"][late, 0]).max()))
        print(f"\nsigma0 {sigma0:g} 1/m: |d s| {errs[-1][0]:.3g} m, |d E_diss| {errs[-1][1]:.3g} J, "
              f"|d f| {errs[-1][2]:.3g} N")
    # the bristles lag the slip by about g / sigma0 (5e-5 and 5e-6 m): the slide, the energy and the
    # friction force differ by that order, and fall tenfold with sigma0 (ratio 8-12 allowed: the
    # limit is approached as 1 / sigma0)
    for k in range(3):
        assert 8 < errs[0][k] / errs[1][k] < 12
    assert errs[1][0] < 0.5 / 1e5 and errs[1][2] < 1e-2 * 0.5 * M * G
