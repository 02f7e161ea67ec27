"""LuGre friction in the journals of a universal joint (Qi, Luo & Huang (2009) eqs. 54-58), one
bristle state per journal (:mod:`workbench.spatial.bristles`).

Default suite: the bar of ``universal_bar.py`` at rest, turned and tilted so that both journals
carry a steady moment below breakaway: each journal deflects by ``sigma0 z_k N_k R_k = m_k``, its
moment ``m_k`` from the statics and its load ``N_k`` from the independent reference's contact
system (``tests/reference/qi_universal_stick.py``); ``validate`` takes the law on a universal
joint.  Slow: the bar swinging down and out, both journals slipping, against the set-valued run as
the bristles stiffen (``sigma0`` 1e4 -> 1e5 1/m): the differences fall as ``1 / sigma0``.
"""
from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE)); sys.path.insert(0, str(HERE.parent / "reference"))
from universal_bar import G, L, M, mechanism  # noqa: E402

from workbench import engines  # noqa: E402
from workbench.engines.spatial import Settings  # noqa: E402
from workbench.spatial.rotation import rotation_matrix  # noqa: E402

MU, R1, R2, C = 0.5, 0.2, 0.1, 0.05       # the helper's journals: radii [m], half end-face distance [m]


@pytest.fixture(scope="module")
def registry():
    from workbench.plugins import build_registry
    return build_registry()


def _lugre(registry, sigma0, sigma1):
    return registry.create("friction", "lugre", dict(sigma0=sigma0, sigma1=sigma1, sigma2=0.0, mu_c=MU, mu_s=MU,
                                                     v_s=1e-3))


def _bound(R):
    """A journal's breakaway lever alone (test_stick_universal.py): ``|cos phi|`` or ``|sin psi|``."""
    return R / (L / 2) * MU / math.sqrt(1 + MU * MU)


def test_each_journal_deflects_as_its_steady_moment_asks(registry):
    from qi_universal_stick import stuck_load
    # 0.3 of each journal's own bound: both journals carry a moment, each inside its friction
    # circle; sigma1 near critical damping of the bar on the bristles (rotational stiffness
    # sigma0 N R^2, inertia about the end 26 kg m^2), so the transient dies within 10 ms
    sigma0, sigma1 = 1e7, 8000.0
    mech = mechanism(_lugre(registry, sigma0, sigma1), phi=-math.acos(0.3 * _bound(R1)),
                     psi=math.asin(0.3 * _bound(R2)), R1=R1, R2=R2)
    sim = engines.get("spatial").simulate(mech, Settings(t_end=0.01, output_step=0.005, rtol=1e-4, atol=1e-13,
                                                         method="Radau"))
    q = sim.position[-1, 0]
    # the statics at the final pose: the joint's moment on the bar about O balances gravity's;
    # journal 1 carries its component along a, journal 2 along b (Qi, Luo & Huang eqs. 55, 58)
    a, b = np.array([0.0, 0.0, 1.0]), rotation_matrix(q[3:]) @ np.array([0.0, 1.0, 0.0])
    n = np.cross(a, b) / np.linalg.norm(np.cross(a, b))
    weight = M * np.array([0.0, -G, 0.0])
    F, Mo = -weight, -np.cross(q[:3], weight)
    m1, m2 = Mo @ a, Mo @ b
    N1 = stuck_load(F, m2 * b + (Mo @ n) * n, a, b, n, m1, R1, C)      # the reference's contact systems
    N2 = stuck_load(F, (Mo @ n) * n + m1 * a, b, n, a, m2, R2, C)
    z = sim.extras["bristle_deflection"][-1, :, 1]
    fm, cl = sim.extras["friction_moment"][-1, 0], sim.extras["contact_load"][-1, 0]
    print(f"\nuniversal pre-sliding: z {z} m, closed form {-m1 / (sigma0 * N1 * R1):.9g}, "
          f"{-m2 / (sigma0 * N2 * R2):.9g} m; m {fm} N m ({m1:.9g}, {m2:.9g}); N {cl[:2]} N ({N1:.9g}, {N2:.9g})")
    assert abs(m1) > 10.0 and abs(m2) > 5.0                   # both journals loaded
    assert np.abs(sim.velocity[-1, 0]).max() < 1e-8            # at rest
    # the friction moments are the statics', the loads the reference's, and sigma0 z_k N_k R_k = m_k
    # with the bristles opposing the moment (the statics at the final pose: the journals turned by
    # z_k / R_k ~ 1e-7 rad); to 2e-5: the transient's tail after 10 ms at rtol 1e-4 (measured 8e-6;
    # 2e-11 at rtol 1e-6 over 20 ms, which takes 5 times as long)
    np.testing.assert_allclose(fm, (m1, m2), rtol=2e-5)
    np.testing.assert_allclose(cl[:2], (N1, N2), rtol=2e-5)
    np.testing.assert_allclose(z, (-m1 / (sigma0 * N1 * R1), -m2 / (sigma0 * N2 * R2)), rtol=2e-5)
    # the dataset: one entry per journal, the rotation component only, in metres
    from workbench.spatial.dataset import to_dataset
    zd = to_dataset(sim)["bristle_deflection"]
    assert list(zd["bristle_joint"].values) == ["cross/journal_i", "cross/journal_j"]
    assert zd.attrs["units"] == "m" and "journal" in zd["bristle_joint"].attrs["long_name"]
    assert np.all(zd.sel(slip_component="axial").values == 0.0)
    np.testing.assert_array_equal(zd.sel(slip_component="rotation").values[:, -1], z)


UNIVERSAL_LUGRE = """
[study]
kind = "dynamics"
[mechanism]
dimension = 3
gravity = [0.0, -9.80665, 0.0]
ground_points = { O = [0.0, 0.0, 0.0] }
[[mechanism.bodies]]
name = "bar"
mass = 78.0
inertia = [0.13, 6.565, 6.565]
position = [0.0, -0.5, 0.0]
quaternion = [0.7071067811865476, 0.0, 0.0, -0.7071067811865476]
points = { P = [-0.5, 0.0, 0.0] }
[[mechanism.joints]]
name = "cross"
type = "TYPE"
body_i = "ground"
point_i = "O"
body_j = "bar"
point_j = "P"
axis_i = [0.0, 0.0, 1.0]
axis_j = [0.0, 1.0, 0.0]
friction = { model = "lugre", sigma0 = 1.0e5, sigma1 = 100.0, mu_c = 0.5, mu_s = 0.5 }
radius = 0.2
length = 0.1
radius_j = 0.1
length_j = 0.1
[solver]
t_end = 0.1
method = "Radau"
[output]
step = 0.01
"""


def test_validate_takes_lugre_on_a_universal_joint_and_refuses_it_where_no_friction_is_modelled(tmp_path):
    from workbench.cli.main import main
    ok = tmp_path / "u.toml"
    ok.write_text(UNIVERSAL_LUGRE.replace("TYPE", "universal"))
    r = CliRunner().invoke(main, ["validate", str(ok)], env={"COLUMNS": "250"})
    assert r.exit_code == 0 and "LuGre bristle states" in r.output, r.output
    bad = tmp_path / "s.toml"     # a spherical joint has no journal: no friction from its reactions
    bad.write_text(UNIVERSAL_LUGRE.replace("TYPE", "spherical").replace("axis_j = [0.0, 1.0, 0.0]\n", ""))
    r = CliRunner().invoke(main, ["validate", str(bad)], env={"COLUMNS": "250"})
    assert r.exit_code == 2, r.output
    for words in ("s.toml", "[mechanism.joints[0].friction]", "'spherical'", "'universal'", "'revolute'"):
        assert words in r.output, (words, r.output)


def _swinging(law, omega=(0.0, 1.0, -1.0)):
    """The bar released horizontal already turning, ``omega`` [rad/s] (world): -1 rad/s about ``a``
    (swinging down), 1 rad/s about ``b`` (swinging out), so that both journals slip from the start."""
    m = mechanism(law, phi=0.0, psi=0.0, R1=R1, R2=R2)
    b = m.bodies[0]
    w = np.asarray(omega, float)
    b = dataclasses.replace(b, angular_velocity=tuple(w), velocity=tuple(np.cross(w, np.asarray(b.position))))
    return dataclasses.replace(m, bodies=(b,))


@pytest.mark.slow   # ~1 min (implicit integration on the reference right-hand side); the default suite keeps
#                     test_each_journal_deflects_as_its_steady_moment_asks
def test_stiff_journal_bristles_approach_the_set_valued_run(registry):
    from workbench.spatial import stick
    # both journals slipping all along (the set-valued run has no event): the bristles lag the slip
    # by about mu / sigma0, so the differences fall as 1 / sigma0.  (Released from rest a journal's
    # bristles load over a time of order 1 / sqrt(sigma0) and the differences fall as
    # 1 / sqrt(sigma0): ratio 3.1 per decade measured on the bar of test_stick_universal.py.)
    # mu = 0.2: with both journals slipping this joint self-locks above mu* = 0.3455
    # (test_self_locking.py): at 0.5 no consistent friction exists at t = 0.
    mu, T = 0.2, 0.1
    sv = stick.simulate(_swinging(registry.create("friction", "coulomb_set_valued", dict(mu=mu))),
                        Settings(t_end=T, output_step=T / 4, rtol=1e-10, atol=1e-12))
    assert sv.extras["stick_events"] == []

    def phi(sim):
        return np.unwrap(np.arctan2(sim.position[:, 0, 1], sim.position[:, 0, 0]))

    errs = []
    for sigma0 in (1e4, 1e5):
        law = registry.create("friction", "lugre", dict(sigma0=sigma0, sigma1=0.0, sigma2=0.0, mu_c=mu, mu_s=mu,
                                                        v_s=1e-3))
        sim = engines.get("spatial").simulate(_swinging(law), Settings(t_end=T, output_step=T / 4, rtol=1e-9,
                                                                       atol=1e-12, method="Radau"))
        late = sim.time > 0        # at t = 0 the bristles are relaxed: LuGre starts without moment
        fm, sfm = sim.extras["friction_moment"][late, 0], sv.extras["friction_moment"][late, 0]
        errs.append((np.abs(phi(sim) - phi(sv)).max(), np.abs(sim.position[:, 0, 2] - sv.position[:, 0, 2]).max(),
                     np.abs(sim.dissipated_energy - sv.dissipated_energy).max(),
                     np.abs(fm[:, 0] - sfm[:, 0]).max(), np.abs(fm[:, 1] - sfm[:, 1]).max()))
        print(f"\nsigma0 {sigma0:g} 1/m: |d phi| {errs[-1][0]:.3g} rad, |d z_c| {errs[-1][1]:.3g} m, "
              f"|d E_diss| {errs[-1][2]:.3g} J, |d m1| {errs[-1][3]:.3g} N m, |d m2| {errs[-1][4]:.3g} N m")
    # the angle, the out-of-plane position, the energy and both journals' moments fall tenfold with
    # sigma0 (ratio 8-12: the limit is approached as 1 / sigma0)
    for k in range(5):
        assert 8 < errs[0][k] / errs[1][k] < 12, (k, errs)
    # the lag itself: journal 1's angle within a few mu / (sigma0 R1), the moments within 1e-5 of mu R N
    assert errs[1][0] < 2 * mu / 1e5 / R1 and max(errs[1][3:]) < 1e-5 * mu * R1 * M * G
