"""Set-valued stick and slip of the spatial Qi joints (:mod:`workbench.spatial.stick`).

Default suite (a few seconds each): the revolute bar released at rest just inside and just
outside the static bound (the friction circle, Qi, Luo & Huang (2009) eq. 53 with ``N sqrt(1 +
mu^2) = |F|``); ``mu = 0`` against the ideal joint; the study-file choice and what ``validate``
refuses.  Slow: the revolute bar swinging to a stop against the independent event-driven
reference ``tests/reference/qi_revolute_stick.py``, and the cylindrical pendulum whose axial slide
stops against the reference ``tests/reference/qi_pendulum.py`` (the sign law, and the regularised
law converging as its regularisation velocity falls).
"""
from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE)); sys.path.insert(0, str(HERE.parent / "reference"))
from pendulum import mechanism  # noqa: E402

from workbench import engines  # noqa: E402
from workbench.engines.spatial import Settings  # noqa: E402
from workbench.spatial import stick  # noqa: E402

STUDY = HERE.parents[1] / "studies" / "qi_pendulum_stick.toml"
M, G, L = 78.0, 9.80665, 1.0


@pytest.fixture(scope="module")
def registry():
    from workbench.plugins import build_registry
    return build_registry()


def _law(registry, mu, **kw):
    return registry.create("friction", "coulomb_set_valued", dict(mu=mu, **kw))


def _at_angle(mech, phi):
    """The bar released at rest at angle ``phi`` [rad] from +x (about the joint axis z)."""
    bar = mech.bodies[0]
    bar = dataclasses.replace(bar, position=(0.5 * math.cos(phi), 0.5 * math.sin(phi), 0.0),
                              quaternion=(math.cos(phi / 2), 0.0, 0.0, math.sin(phi / 2)), velocity=(0.0, 0.0, 0.0))
    return dataclasses.replace(mech, bodies=(bar,))


def _phi(sim):
    return np.unwrap(2 * np.arctan2(sim.position[:, 0, 6], sim.position[:, 0, 3]))


def _books(sim):
    b = sim.kinetic_energy + sim.potential_energy + sim.dissipated_energy - sim.driver_work
    return np.abs(b - b[0]).max()


def _bound(R, mu):
    """Largest ``|cos(phi)|`` at which the bar can rest: ``m g l |cos phi| <= mu R N`` with ``N =
    sqrt((m g)^2 - (M / R)^2)`` (the friction circle of radius ``R mu / sqrt(1 + mu^2)``)."""
    return R / (L / 2) * mu / math.sqrt(1 + mu * mu)


@pytest.mark.parametrize("inside", [True, False])
def test_revolute_bar_at_rest_sticks_exactly_inside_the_static_bound(registry, inside):
    R, mu = 0.2, 0.5
    c = _bound(R, mu) * (0.98 if inside else 1.02)
    phi0 = -math.acos(c)          # below the horizontal, on the +x side: gravity turns it to -phi
    mech = _at_angle(mechanism(_law(registry, mu), joint="revolute", R=R), phi0)
    sim = stick.simulate(mech, Settings(t_end=0.2, output_step=0.05, rtol=1e-10, atol=1e-12))
    kinds = [e[2] for e in sim.extras["stick_events"]]
    phi = _phi(sim)
    if inside:
        assert kinds == ["stick_start"]
        assert np.abs(phi - phi0).max() < 1e-10 and np.abs(sim.velocity[:, 0, 3:]).max() < 1e-10
        # the needed moment is gravity's, and it lies within mu R N
        Mf = sim.extras["friction_moment"][:, 0, 0]
        assert np.allclose(Mf, M * G * 0.5 * c, rtol=1e-9)
        N = sim.extras["contact_load"][:, 0].sum(axis=1)
        assert np.allclose(N, np.sqrt((M * G) ** 2 - (Mf / R) ** 2), rtol=1e-9)
        assert np.all(np.abs(Mf) <= mu * R * N)
        assert np.abs(sim.dissipated_energy).max() == 0.0   # a stuck joint dissipates nothing
        # the dataset carries the one event table, and the dynamics summary reads it
        from workbench.kinds.dynamics import summary
        from workbench.spatial.dataset import to_dataset
        sim.engine, sim.engine_reason = "spatial", "test"
        ds = to_dataset(sim)
        assert ds["event_time"].attrs["units"] == "s" and list(ds["event_joint"].values) == ["shaft"]
        assert summary(ds)["friction_events"]["stick_start"] == 1
    else:
        assert kinds == ["rest_slip"] and 0.5 * M * G < sim.extras["stick_events"][0][3] < M * G   # its load N [N]
        assert phi[-1] < phi0 - 1e-3                          # it slips the way gravity turns it
        assert np.all(np.diff(sim.dissipated_energy) >= 0)    # friction only dissipates
        assert sim.dissipated_energy[-1] > 0 and _books(sim) < 1e-8


def test_frictionless_set_valued_joint_is_the_ideal_joint(registry):
    s = Settings(t_end=0.4, output_step=0.1, rtol=1e-11, atol=1e-12, path="scipy")
    sim = stick.simulate(mechanism(_law(registry, 0.0)), s)
    ideal = engines.get("spatial").simulate(mechanism(None), s)
    assert np.abs(sim.position - ideal.position).max() < 1e-10
    assert np.abs(sim.velocity - ideal.velocity).max() < 1e-9
    assert np.abs(sim.velocity[:, 0, 2] - 1.0).max() < 1e-12     # the axial speed stays 1 m/s
    assert np.abs(sim.dissipated_energy).max() == 0.0
    E = sim.kinetic_energy + sim.potential_energy
    assert np.abs(E - E[0]).max() < 1e-7


def test_a_study_chooses_it_and_validate_names_its_path(registry):
    from workbench.study.load import load_study_text
    text = STUDY.read_text()
    st = load_study_text(text, file=STUDY.name, registry=registry)
    assert engines.select(st.mechanism, st.solver).name == "spatial"
    assert stick.set_valued_joints(st.mechanism) == ["shaft"]
    # validate's engine line names the path the run takes (the event-driven one, whatever `path` says)
    from workbench.kinds.dynamics import describe
    line = describe(st)
    assert "event-driven set-valued stick and slip" in line and "compiled" not in line
    plain = load_study_text(text.replace('model = "coulomb_set_valued"', 'model = "coulomb"'), file="plain.toml",
                            registry=registry)
    assert "compiled right-hand side" in describe(plain) and "event-driven" not in describe(plain)
    # a universal joint: set-valued stick per journal (tests/spatial/test_stick_universal.py)
    uni = text.replace('type = "cylindrical"', 'type = "universal"\naxis_j = [1.0, 0.0, 0.0]\nradius_j = 0.05\n'
                                                'length_j = 1.0')
    st_u = load_study_text(uni, file="qi_universal.toml", registry=registry)
    assert stick.set_valued_joints(st_u.mechanism) == ["shaft"] and "event-driven" in describe(st_u)


# ------------------------------------------------------------------------------------- slow
@pytest.mark.slow   # ~1 min on a busy machine; the default suite keeps the static bound (the test above)
def test_revolute_bar_swings_to_a_stop_as_the_independent_reference(registry):
    from qi_revolute_stick import Bar, solve
    T = 3.0
    sim = stick.simulate(mechanism(_law(registry, 0.5), joint="revolute", R=0.2),
                         Settings(t_end=T, output_step=0.1, rtol=1e-11, atol=1e-12))
    ref = solve(Bar(R=0.2, mu=0.5), T, sim.time)
    ev = [(t, k) for t, n, k, N in sim.extras["stick_events"]]
    assert [k for t, k in ev] == [k for t, k in ref["events"]] == ["rest_slip"] * 3 + ["stick_start"]
    dt = max(abs(a[0] - b[0]) for a, b in zip(ev, ref["events"]))
    e_phi = np.abs(_phi(sim) - ref["phi"]).max()
    e_E = np.abs(sim.dissipated_energy - ref["dissipated"]).max()
    print(f"\nrevolute stick: event times |dt| {dt:.2g} s, |d phi| {e_phi:.2g} rad, |d E_diss| {e_E:.2g} J; "
          f"stuck at phi = {_phi(sim)[-1]:.9f} rad, |cos| {abs(math.cos(_phi(sim)[-1])):.6f} <= bound "
          f"{_bound(0.2, 0.5):.6f}; books {_books(sim):.2g} J")
    assert dt < 1e-9 and e_phi < 1e-8 and e_E < 1e-6
    assert abs(math.cos(_phi(sim)[-1])) <= _bound(0.2, 0.5)
    stuck = sim.time >= ev[-1][0]
    assert np.ptp(sim.dissipated_energy[stuck]) == 0.0 and np.ptp(_phi(sim)[stuck]) < 1e-12
    assert np.all(np.diff(sim.dissipated_energy) >= 0) and _books(sim) < 1e-7


@pytest.mark.slow   # ~6 min (the reference is slow); the default suite keeps mu = 0 and the static bound
def test_axial_slide_stops_and_the_regularised_law_converges_to_it(registry):
    from qi_pendulum import QiPendulum, solve
    from workbench.study.load import load_study
    T = 1.3
    st = load_study(STUDY, registry=registry)     # the shipped study: mu = 0.5, set-valued
    assert st.mechanism.joints[0].friction.params.mu == 0.5
    sim = stick.simulate(st.mechanism, Settings(t_end=T, output_step=0.01, rtol=1e-11, atol=1e-12))
    ev = sim.extras["stick_events"]
    t_stop = ev[0][0]
    s, ds = sim.position[:, 0, 2], sim.velocity[:, 0, 2]
    after = sim.time > t_stop
    # the stop: the axial speed reaches 0 at the swing's first turning point (both components of
    # the slip vector vanish, the rotation does not stick) and stays 0
    assert [e[2] for e in ev] == ["rest_slip"] and 0.9 < t_stop < 1.0
    assert np.abs(ds[after]).max() < 1e-15 and np.ptp(s[after]) < 1e-15
    assert np.all(np.diff(sim.dissipated_energy) >= 0) and _books(sim) < 1e-7
    errs = []
    phi = _phi(sim)
    for ve in (1e-2, 1e-3, 1e-4, 0.0):
        ref = solve(QiPendulum(mu=0.5, v_eps=ve or 1e-300), T, sim.time, rtol=1e-11, atol=1e-12)
        errs.append((np.abs(ref["s"] - s).max(), np.abs(ref["phi"] - phi).max(),
                     np.abs(ref["dissipated"] - sim.dissipated_energy).max()))
        print(f"\nv_eps {ve:g} m/s: |d s| {errs[-1][0]:.3g} m, |d phi| {errs[-1][1]:.3g} rad, "
              f"|d E_diss| {errs[-1][2]:.3g} J")
    # the slide is over long before the slip speed comes near any of these regularisation
    # velocities (omega R dominates it): every law gives the same slide distance
    assert max(e[0] for e in errs) < 1e-9
    # the regularisation acts at the turning point, where v passes through 0: the swing and the
    # dissipated energy converge to the set-valued run as v_eps falls, and the sign law agrees
    assert errs[0][1] > errs[1][1] > errs[2][1] and errs[0][2] > errs[1][2] > errs[2][2]
    assert errs[3][1] < 1e-8 and errs[3][2] < 1e-6


def _spun_bar(law, alpha, R=0.2):
    """The bar hanging on a shaft (a driven body, angle ``alpha t^2 / 2`` about z) by a coaxial
    revolute joint with friction ``law``: it turns with the shaft until the friction it needs
    leaves the bound."""
    from workbench.spatial import Body, Joint, SpatialMechanism
    from workbench.spatial.mechanism import Driver, DriverFunction
    m = 78.0
    J = (m * 0.02 / 12, m * 1.01 / 12, m * 1.01 / 12)
    q = (math.cos(-math.pi / 4), 0.0, 0.0, math.sin(-math.pi / 4))
    shaft = Body("shaft", 10.0, (0.1, 0.1, 0.1), points={"O": (0.0, 0.0, 0.0)})
    bar = Body("bar", m, J, position=(0.0, -0.5, 0.0), quaternion=q, points={"P": (-0.5, 0.0, 0.0)})
    joints = (Joint("drive", "revolute", "ground", "O", "shaft", "O", axis_i=(0.0, 0.0, 1.0)),
              Joint("hang", "revolute", "shaft", "O", "bar", "P", axis_i=(0.0, 0.0, 1.0), friction=law,
                    radius=R, length=1.0, sleeve="j"))
    return SpatialMechanism((shaft, bar), joints, drivers=(Driver("spin", "drive", DriverFunction((0.0, 0.0, alpha / 2)),
                                                                  "angle"),),
                            gravity=(0.0, -G, 0.0), ground_points={"O": (0.0, 0.0, 0.0)})


def test_stuck_bar_breaks_away_where_the_needed_moment_leaves_the_friction_circle(registry):
    from scipy.optimize import brentq
    alpha, R, mu = 2.0, 0.2, 0.5
    sim = stick.simulate(_spun_bar(_law(registry, mu), alpha, R), Settings(t_end=0.3, output_step=0.03, rtol=1e-10,
                                                                           atol=1e-12))
    ev = sim.extras["stick_events"]
    assert [e[2] for e in ev] == ["stick_start", "stick_to_slip"]
    # independent: the stuck bar turns with the shaft, phi = -pi/2 + alpha t^2/2; the moment it
    # needs M = J_P phi'' + m g l cos(phi) and the reaction F = m a_c + m g e_y; it breaks away when
    # |M| / R = mu |F| / sqrt(1 + mu^2) (the friction circle)
    l, JP = 0.5, M * 1.01 / 12 + M * 0.25

    def h(t):
        phi, dphi = -math.pi / 2 + alpha * t * t / 2, alpha * t
        Mn = JP * alpha + M * G * l * math.cos(phi)
        ac = l * np.array([-math.sin(phi) * alpha - math.cos(phi) * dphi ** 2,
                           math.cos(phi) * alpha - math.sin(phi) * dphi ** 2])
        F = np.hypot(*(M * ac + np.array([0.0, M * G])))
        return mu * F / math.sqrt(1 + mu * mu) - abs(Mn) / R

    t_b = brentq(h, 0.0, 0.3, xtol=1e-15)
    print(f"\nbreakaway: engine {ev[1][0]:.12f} s, closed form {t_b:.12f} s")
    assert abs(ev[1][0] - t_b) < 1e-9
    # after it the bar lags the shaft: the friction drives it forward; the books close with the
    # driver's work, and the stuck phase dissipated nothing
    w_rel = sim.extras["rotation_rate"][:, 0]
    assert np.all(w_rel[sim.time > t_b] < 0) and np.all(sim.extras["friction_moment"][sim.time > t_b, 0, 0] > 0)
    assert np.ptp(sim.dissipated_energy[sim.time <= t_b]) == 0.0 and sim.dissipated_energy[-1] > 0
    assert np.all(np.diff(sim.dissipated_energy) >= 0) and _books(sim) < 1e-8


def test_validate_refuses_set_valued_friction_beside_clearance_joints(registry):
    from test_clearance_revolute import _journal
    from workbench.spatial import Joint
    mech = _journal(registry)
    j = Joint("pin", "revolute", "ground", "O", "journal", "C", axis_i=(0.0, 0.0, 1.0),
              friction=_law(registry, 0.3), radius=0.01, length=0.02)
    probs = dict(dataclasses.replace(mech, joints=(j,)).problems())
    assert "set-valued" in probs["mechanism.clearance_joints"] and "coulomb" in probs["mechanism.clearance_joints"]
    assert "mechanism.clearance_joints" not in dict(mech.problems())
