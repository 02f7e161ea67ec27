"""The five-bar linkage of Wang & Liu (2015) §4.1 (studies/five_bar_wear.toml and its dynamics twin
tests/data/five_bar_dynamics.toml).

Oracle: the closed-form position analysis of the ideal five-bar, tests/reference/
five_bar_closed_form.py (B = intersection of the circle of radius l2 about crank pin A with the
circle of radius l3 about crank pin C, both crank angles prescribed by the drivers).
"""
from __future__ import annotations

import importlib.util
import math
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from workbench.mbs.solver import simulate
from workbench.study.load import load_study

HERE = Path(__file__).parents[1]
TWIN = HERE / "data" / "five_bar_dynamics.toml"
WEAR = HERE.parent / "studies" / "five_bar_wear.toml"


def _load_oracle():
    path = HERE / "reference" / "five_bar_closed_form.py"
    spec = importlib.util.spec_from_file_location("five_bar_closed_form", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


cf = _load_oracle()


@pytest.fixture(scope="module")
def study():
    return load_study(TWIN)


def _geometry(mech):
    """Link lengths and ground pivots read from the study's own points (not retyped here)."""
    b = {x.name: x for x in mech.bodies}
    span = lambda body, p, q: float(np.hypot(*np.subtract(b[body].points[q], b[body].points[p])))
    return dict(l1=span("crank1", "O", "A"), l2=span("coupler1", "A", "B"),
                l3=span("coupler2", "C", "B"), l4=span("crank2", "D", "C"),
                O=tuple(mech.ground_points["O"]), D=tuple(mech.ground_points["D"]))


def _point(sim, body, local):
    """Global position [m] of a body-fixed point over time, shape (nt, 2)."""
    k = sim.body_names.index(body)
    x, y, phi = sim.position[:, k, 0], sim.position[:, k, 1], sim.position[:, k, 2]
    c, s = np.cos(phi), np.sin(phi)
    return np.stack([x + c * local[0] - s * local[1], y + s * local[0] + c * local[1]], axis=-1)


def _crank_angles(mech, t):
    drv = {d.body: d.function for d in mech.drivers}
    return (np.array([drv["crank1"](ti) for ti in t]), np.array([drv["crank2"](ti) for ti in t]))


def _period(mech):
    """Common period [s] of the two constant-speed crank drivers (their speeds are commensurate)."""
    w = [abs(d.function.polynomial[1]) for d in mech.drivers]
    return 2 * math.pi / min(w)


@pytest.fixture(scope="module")
def ideal(study):
    # Tight tolerances: the comparison below is at 1e-8 m, so the integration error and the
    # Baumgarte-stabilised constraint drift must be far smaller.
    settings = replace(study.solver, t_end=_period(study.mechanism), output_step=2.5e-3,
                       rtol=1e-10, atol=1e-13)
    return simulate(study.mechanism.ideal(), settings)


def test_ideal_loop_closure(study, ideal):
    """B reached through crank1 + coupler1 and through crank2 + coupler2 is the same point.
    Tolerance 1e-9 m: the solver assembles to 1e-13 and integrates at rtol 1e-10 with
    constraint stabilisation, so a drift of 1e-9 m (1e-8 of the link length) means the
    constraints are not being held."""
    b = {x.name: x for x in study.mechanism.bodies}
    via_1 = _point(ideal, "coupler1", b["coupler1"].points["B"])
    via_2 = _point(ideal, "coupler2", b["coupler2"].points["B"])
    assert np.max(np.hypot(*(via_1 - via_2).T)) < 1e-9
    # and the crank pins: crank1's A is coupler1's A, crank2's C is coupler2's C
    for crank, coupler, p in (("crank1", "coupler1", "A"), ("crank2", "coupler2", "C")):
        d = _point(ideal, crank, b[crank].points[p]) - _point(ideal, coupler, b[coupler].points[p])
        assert np.max(np.hypot(*d.T)) < 1e-9


def test_ideal_matches_closed_form_position_analysis(study, ideal):
    """Wang & Liu (2015) §4.1 five-bar, ideal joints: B and both coupler angles equal the two-circle
    intersection (tests/reference/five_bar_closed_form.py) at every output time of a full
    machine cycle.  Tolerance 1e-8 m on B (1e-7 of the link length: well above the integration
    error at rtol 1e-10, far below any geometric mistake such as the wrong assembly branch,
    which would be centimetres off); 1e-7 rad on the angles (1e-8 m over 0.12 m links)."""
    mech = study.mechanism
    g = _geometry(mech)
    t = ideal.time
    assert len(t) >= 12 and t[-1] == pytest.approx(_period(mech), rel=1e-9)
    th1, th4 = _crank_angles(mech, t)
    np.testing.assert_allclose(ideal.position[:, ideal.body_names.index("crank1"), 2], th1, atol=1e-9)
    b_ref = cf.point_b(th1, th4, g["l1"], g["l2"], g["l3"], g["l4"], g["O"], g["D"])
    b_sim = _point(ideal, "coupler1", mech.bodies[1].points["B"])
    assert np.max(np.hypot(*(b_sim - b_ref).T)) < 1e-8
    p2, p3 = cf.coupler_angles(th1, th4, g["l1"], g["l2"], g["l3"], g["l4"], g["O"], g["D"])
    for body, ref in (("coupler1", p2), ("coupler2", p3)):
        phi = ideal.position[:, ideal.body_names.index(body), 2]
        assert np.max(np.abs(np.angle(np.exp(1j * (phi - ref))))) < 1e-7
    # the other branch is far away: the test can tell them apart
    b_other = cf.point_b(th1, th4, g["l1"], g["l2"], g["l3"], g["l4"], g["O"], g["D"], branch=-1)
    assert np.min(np.hypot(*(b_sim - b_other).T)) > 1e-2


def test_closed_form_rejects_unassemblable_angles():
    with pytest.raises(ValueError, match="cannot be assembled"):
        cf.point_b(0.0, 0.0, 0.05, 0.05, 0.05, 0.05, (0.0, 0.0), (0.5, 0.0))


def test_dynamics_twin_runs_and_stays_within_the_clearance(study):
    """Half a machine cycle of the clearance model at loose tolerance.  The journal starts
    centred with the ideal velocities, so it must hit the bushing (at least one impact) within
    the first half cycle.  Geometric bound (two-circle intersection, linearised): the journal
    centre (on coupler1's circle about A) and the bushing centre (on coupler2's circle about C)
    are at most c + delta apart, so the journal centre is at most (c + delta)/sin(gamma) from
    the ideal B, gamma >= 41 deg being the angle between the couplers; checked with factor 2."""
    mech = study.mechanism
    T = _period(mech)
    settings = replace(study.solver, t_end=0.5 * T, output_step=1e-4, rtol=1e-5, atol=1e-8)
    sim = simulate(mech, settings)
    assert np.all(np.isfinite(sim.position)) and sim.time[-1] == pytest.approx(0.5 * T)
    assert len(sim.impact_time) >= 1 and sim.impact_time[0] < 0.5 * T
    f = sim.contact_force[:, 0]
    assert np.all(f >= 0.0) and f.max() > 0.0
    c = mech.clearance_joints[0].clearance
    pen = sim.penetration[:, 0]
    assert pen.max() < 0.1 * c          # steel on steel: micrometres, not a tenth of the clearance
    ecc = np.hypot(*sim.eccentricity[:, 0, :].T)
    np.testing.assert_allclose(ecc, c + pen, rtol=1e-9, atol=1e-12)
    g = _geometry(mech)
    th1, th4 = _crank_angles(mech, sim.time)
    b_ideal = cf.point_b(th1, th4, g["l1"], g["l2"], g["l3"], g["l4"], g["O"], g["D"])
    journal = _point(sim, "coupler1", mech.bodies[1].points["B"])
    assert np.max(np.hypot(*(journal - b_ideal).T)) < 2.0 * (c + max(pen.max(), 0.0)) / math.sin(math.radians(41))
    # What the wear loop reads (Wang & Liu (2015) eq. 21: sliding from the relative rotation; the contact
    # direction locates the wear on the bushing): for round, unworn surfaces the contact
    # direction is the eccentricity's direction in the bushing frame, and the relative rotation
    # is journal angle minus bushing angle.  Exact identities, so 1e-9 rad (a stale compiled
    # kernel once returned zeros here and put all the wear at theta = 0).
    if getattr(sim, "contact_angle", None) is not None:
        alpha = np.arctan2(sim.eccentricity[:, 0, 1], sim.eccentricity[:, 0, 0])
        loaded = f > 0.0
        assert loaded.sum() > 10
        diff = np.angle(np.exp(1j * (sim.contact_angle[loaded, 0] - alpha[loaded])))
        assert np.max(np.abs(diff)) < 1e-9
        k1, k2 = sim.body_names.index("coupler1"), sim.body_names.index("coupler2")
        rel = sim.position[loaded, k1, 2] - sim.position[loaded, k2, 2]
        diff = np.angle(np.exp(1j * (sim.relative_rotation[loaded, 0] - rel)))
        assert np.max(np.abs(diff)) < 1e-9


def test_wear_study_loads():
    """The wear study passes the loader: one wearing joint (B), output coupler1's angle, the
    cycle of the two commensurate drivers."""
    st = load_study(WEAR)
    assert st.kind == "wear"
    w = st.wear
    names = [b.name for b in st.mechanism.bodies]
    assert [st.mechanism.clearance_joints[j].name for j in w.joints] == ["B"]
    assert names[w.output_body] == "coupler1" and w.output_coordinate == 2      # x, y, phi
    assert w.cycle_period == pytest.approx(_period(st.mechanism), rel=1e-12)
    assert w.bushing_share == 0.5                # same material: half each (Wang & Liu (2015) §4.1.3 (1))


def test_wear_study_is_the_dynamics_twin_with_a_wear_table():
    """studies/five_bar_wear.toml (kind = "wear", not loadable until the wear loader lands) and
    the dynamics twin describe the same mechanism; its cycle_period is the common period of the
    two drivers, and the wear joint is the clearance joint B of Wang & Liu (2015) §4.1."""
    wear = tomllib.loads(WEAR.read_text(encoding="utf-8"))
    twin = tomllib.loads(TWIN.read_text(encoding="utf-8"))
    assert wear["study"]["kind"] == "wear" and twin["study"]["kind"] == "dynamics"
    assert wear["mechanism"] == twin["mechanism"]
    w = wear["wear"]
    assert w["joints"] == ["B"] == [c["name"] for c in wear["mechanism"]["clearance_joints"]]
    speeds = [abs(d["speed_rpm"]) * 2 * math.pi / 60 for d in wear["mechanism"]["drivers"]]
    for s in speeds:                      # the cycle is a whole number of revolutions of each crank
        revs = w["cycle_period"] * s / (2 * math.pi)
        assert revs == pytest.approx(round(revs), abs=1e-9) and round(revs) >= 1
    body_names = [b["name"] for b in wear["mechanism"]["bodies"]]
    assert w["output_body"] in body_names and w["output_coordinate"] in ("x", "y", "phi")
    assert w["law"]["model"] == "archard" and w["law"]["wear_coefficient"] > 0
    assert w["pressure"]["model"] == "approximate_area"


def test_distributed_variant_differs_only_in_the_contact_and_the_pressure():
    """studies/five_bar_wear_distributed.toml is studies/five_bar_wear.toml with the distributed
    Winkler contact at B (Persson-calibrated at the twin's mean contact force, 130 N) and the
    dynamics' own pressure for the wear law, and the integrator's tolerance; everything else
    (mechanism, loop settings, wear law) is the same, so the two runs compare the contact models,
    except the loop settings the distributed joint's regimes need to reach 10^6 cycles (jump
    control over the last updates, depth step, averaging cycles, a stated penetration limit, and two
    replicas per update)."""
    base = tomllib.loads(WEAR.read_text(encoding="utf-8"))
    dist = tomllib.loads((WEAR.parent / "five_bar_wear_distributed.toml").read_text(encoding="utf-8"))
    jb, jd = base["mechanism"]["clearance_joints"][0], dist["mechanism"]["clearance_joints"][0]
    assert jd["contact"] == {"model": "distributed_winkler", "calibrate": "persson", "calibration_load": 130.0,
                             "restitution": jb["contact"]["restitution"]}
    strip = lambda m: {**m, "clearance_joints": [{k: v for k, v in c.items() if k != "contact"}   # noqa: E731
                                                 for c in m["clearance_joints"]]}
    assert strip(dist["mechanism"]) == strip(base["mechanism"])
    wb, wd = dict(base["wear"]), dict(dist["wear"])
    assert wd.pop("pressure") == {"model": "dynamics"} and wd.pop("stiffness") == "nominal"
    wb.pop("pressure")
    # --- the loop settings this joint needs for 10^6 cycles (measured in the study's comments): begin
    assert (wd.pop("jump_control"), wd.pop("penetration_limit")) == ("history", 0.05)
    assert (wd.pop("depth_step"), wd.pop("max_average_cycles")) == (0.1, 8)
    wb.pop("depth_step"), wb.pop("max_average_cycles")
    # two replicas per update (workbench.wear.chains): the same estimate, sampled on 2 cores at once
    assert wd.pop("chains") == 2 and "chains" not in wb
    # --- end
    assert wd == wb
    # the one other difference: the tolerance, 1e-8 where the point contact keeps 1e-10 (the
    # distributed joint's wear rate is converged there; the measurements are in the study's comment)
    assert {**dist["solver"], "rtol": base["solver"]["rtol"], "atol": base["solver"]["atol"]} == base["solver"]
    assert (dist["solver"]["rtol"], dist["solver"]["atol"]) == (1e-8, 1e-10)
