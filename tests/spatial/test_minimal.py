"""The minimal-coordinate path (``[solver] formulation = "minimal"``, :mod:`workbench.spatial.minimal`)
against the absolute-coordinate path on the same mechanisms: the frictionless Qi, Luo & Huang
pendulum (a cylindrical joint: angle and slide), a double pendulum whose knee is a universal joint
(3 coordinates, motion out of the plane), and (slow) the joint-type cases of
``test_joint_types.py`` it takes (revolute + fixed, prismatic with a spring-damper, universal with
applied loads); and the refusals, in the run and in ``workbench validate``.

Both paths integrate to rtol 1e-12, atol 1e-13 (1e-12 on the slow cases); the paths' own errors
are then about 1e-11 m, so 1e-9 m on positions is the brief's bound with a margin that still fails
on any wrong term (a wrong inertia or a lever arm moves the bars by millimetres within 0.1 s).
"""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.engines.spatial import Settings
from workbench.errors import MechanismError
from workbench.spatial import Body, Joint, SpatialMechanism
from workbench.spatial.minimal import problems
from workbench.spatial.minimal.run import simulate as simulate_minimal
from workbench.spatial.solver import simulate as simulate_absolute

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import double_bar  # noqa: E402
import pendulum  # noqa: E402

pytest.importorskip("sympy")


def _compare(mech, t_end, rtol=1e-12, atol=1e-13):
    s = Settings(t_end=t_end, output_step=t_end / 50, rtol=rtol, atol=atol)
    a = simulate_minimal(mech, s)
    b = simulate_absolute(mech, s)
    assert a.stats["path"] == "minimal" and b.stats["path"] == "fast"
    return a, b


def _books(sim):
    return sim.kinetic_energy + sim.potential_energy + sim.dissipated_energy - sim.driver_work


def _check(a, b, *, pos=1e-9, vel=1e-8):
    dpos = np.abs(a.position[:, :, :3] - b.position[:, :, :3]).max()
    dquat = np.abs(a.position[:, :, 3:] - b.position[:, :, 3:]).max()
    dvel = np.abs(a.velocity - b.velocity).max()
    dom = np.abs(a.extras["angular_velocity_body"] - b.extras["angular_velocity_body"]).max()
    print(f"\n  |dr| {dpos:.2g} m, |dp| {dquat:.2g}, |dv, domega| {dvel:.2g}, body omega {dom:.2g}; "
          f"books {np.ptp(_books(a)):.2g} J (minimal), {np.ptp(_books(b)):.2g} J (absolute); "
          f"drift {a.drift_position.max():.2g} m")
    assert dpos < pos and dquat < pos and dvel < vel and dom < vel
    # the samples are states of the tree exactly: the constraints hold to round-off
    assert a.drift_position.max() < 1e-12 and a.drift_velocity.max() < 1e-11
    assert a.stats["quaternion_drift"] < 1e-14


def test_frictionless_qi_pendulum_agrees_with_the_absolute_path():
    a, b = _compare(pendulum.mechanism(None), 1.0)
    _check(a, b)
    assert a.stats["minimal_coordinates"] == 2   # the angle and the slide of the cylindrical joint
    e = a.kinetic_energy + a.potential_energy
    assert np.ptp(e) < 1e-7   # of m g l = 382 J: conserved
    assert np.ptp(a.position[:, 0, 2] - a.time) < 1e-12   # the slide: 1 m/s along the axis, no force
    # the records (accelerations, reactions) come from the same equations on the same states
    assert np.abs(a.joint_reaction - b.joint_reaction).max() < 1e-6 * np.abs(b.joint_reaction).max()
    assert a.stats["loop"] == "compiled"
    # another method runs solve_ivp on the generated right-hand side: the same motion
    c = simulate_minimal(pendulum.mechanism(None), Settings(t_end=1.0, output_step=0.02, rtol=1e-12, atol=1e-13,
                                                            method="RK45"))
    assert c.stats["loop"] == "scipy"
    assert np.abs(c.position[:, :, :3] - b.position[:, :, :3]).max() < 1e-9


def _double_universal():
    """``double_bar`` without friction, its knee a universal joint (bar 1's z, bar 2's y), bar 2
    started turning about its y axis: it swings out of the plane."""
    m = double_bar.mechanism(None, None, R_hip=0.05, R_knee=0.05)
    b2 = dataclasses.replace(m.bodies[1], angular_velocity=(0.0, 2.0, 0.0), velocity=(0.0, 0.0, -1.0))
    knee = dataclasses.replace(m.joints[1], type="universal", axis_j=(0.0, 1.0, 0.0))
    return dataclasses.replace(m, bodies=(m.bodies[0], b2), joints=(m.joints[0], knee))


def test_double_pendulum_with_a_universal_knee_agrees_with_the_absolute_path():
    mech = _double_universal()
    a, b = _compare(mech, 1.0)
    assert a.stats["minimal_coordinates"] == 3
    assert np.ptp(a.position[:, 1, 2]) > 0.1   # out of the plane: the universal joint works
    _check(a, b, pos=1e-9, vel=1e-8)
    assert np.ptp(_books(a)) < 1e-7 * max(1.0, np.abs(a.kinetic_energy).max())


def test_a_closed_loop_is_refused_with_the_joint_named():
    m = double_bar.mechanism(None, None, R_hip=0.05, R_knee=0.05)
    bar2 = dataclasses.replace(m.bodies[1], points={"P": (-0.5, 0.0, 0.0), "E": (0.5, 0.0, 0.0)})
    closing = Joint("rest", "revolute", "bar2", "E", "ground", "O", axis_i=(0.0, 0.0, 1.0))
    loop = dataclasses.replace(m, bodies=(m.bodies[0], bar2), joints=m.joints + (closing,))
    probs = dict(problems(loop))
    assert "joint 'rest' closes a loop" in probs["mechanism.joints[2]"]
    with pytest.raises(MechanismError, match=r"(?s)formulation = \"minimal\" cannot run.*'rest' closes a loop"):
        simulate_minimal(loop, Settings(t_end=0.1))


def test_friction_clearance_drivers_and_spherical_joints_are_named():
    from workbench.plugins import build_registry
    law = build_registry().create("friction", "coulomb", dict(mu=0.1))
    probs = dict(problems(pendulum.mechanism(law)))
    assert "friction from the joint reactions" in probs["mechanism.joints[0].friction"]
    ball = SpatialMechanism((Body("a", 1.0, (1.0, 1.0, 1.0), position=(0.3, 0, 0), points={"O": (-0.3, 0, 0)}),),
                            (Joint("s", "spherical", "ground", "O", "a", "O"),), ground_points={"O": (0, 0, 0)})
    assert "not 'spherical'" in dict(problems(ball))["mechanism.joints[0].type"]
    free = SpatialMechanism((Body("a", 1.0, (1.0, 1.0, 1.0)),))
    assert "not connected to the ground" in dict(problems(free))["mechanism.bodies[0]"]


def test_validate_refuses_what_the_minimal_path_does_not_take(tmp_path):
    """``workbench validate`` on the shipped Qi pendulum (friction mu = 0.1) with the minimal
    formulation: the friction is named, with file, key and the valid choice."""
    from click.testing import CliRunner

    from workbench.cli.main import main as cli
    root = HERE.parent.parent
    text = (root / "studies" / "qi_pendulum.toml").read_text()
    text = text.replace("[solver]\n", "[solver]\nformulation = \"minimal\"\n")
    bad = tmp_path / "qi_minimal.toml"
    bad.write_text(text)
    res = CliRunner().invoke(cli, ["validate", str(bad)], env={"COLUMNS": "250"})
    out = res.output + str(res.exception or "")
    assert res.exit_code != 0
    assert "qi_minimal.toml" in out and "[mechanism.joints[0].friction]" in out
    assert 'formulation = "absolute"' in out
    ok = tmp_path / "qi_minimal_frictionless.toml"
    ok.write_text("\n".join(l for l in text.splitlines() if not l.startswith("friction = ")))
    res = CliRunner().invoke(cli, ["validate", str(ok)], env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    assert "minimal (joint) coordinates" in res.output
    # a planar study: the key belongs to the spatial engine only
    planar = tmp_path / "planar_minimal.toml"
    planar.write_text((root / "studies" / "flores_slider_crank.toml").read_text().replace(
        "[solver]\n", "[solver]\nformulation = \"minimal\"\n"))
    res = CliRunner().invoke(cli, ["validate", str(planar)], env={"COLUMNS": "250"})
    assert res.exit_code != 0 and "[solver.formulation]" in res.output and "spatial" in res.output, res.output


@pytest.mark.slow
@pytest.mark.parametrize("name", ["revolute+fixed", "prismatic+spring", "universal+loads"])
def test_joint_type_cases_agree_with_the_absolute_path(name):
    """The cases of ``test_joint_types.py`` the minimal path takes (slow on a first run: each
    derives and compiles its own module, 1-5 s measured, after the absolute path's compile)."""
    from test_joint_types import cases
    mech = dict(cases())[name]
    assert problems(mech) == []
    a, b = _compare(mech, 0.5, rtol=1e-12, atol=1e-12)
    _check(a, b, pos=1e-9, vel=1e-8)
    assert np.ptp(_books(a)) < 1e-8 * max(1.0, np.abs(a.kinetic_energy).max(), np.abs(a.driver_work).max())
    assert np.abs(a.driver_work - b.driver_work).max() < 1e-8 and np.abs(
        a.dissipated_energy - b.dissipated_energy).max() < 1e-8


def test_a_joint_written_child_first_is_the_same_tree():
    """The pendulum's joint with ``body_i`` the bar and ``body_j`` the ground: the tree is built
    from the ground whichever side a joint names first."""
    m = pendulum.mechanism(None)
    j = dataclasses.replace(m.joints[0], body_i="bar", point_i="P", body_j="ground", point_j="O")
    a, b = _compare(dataclasses.replace(m, joints=(j,)), 0.5)
    assert a.stats["minimal_coordinates"] == 2
    _check(a, b)
