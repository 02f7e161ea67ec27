"""Degenerate mechanisms are refused before a run, with the body, joint or driver angle named.

Oracle for lock-up: an in-line slider-crank with crank ``r`` and rod ``l < r`` can only turn while
the crank pin stays within ``l`` of the guide line, ``r |sin(phi)| <= l``: starting from
``phi = 0`` it locks at ``phi* = asin(l / r)`` (the rod stands perpendicular to the guide and the
constraint Jacobian loses rank there).  With ``l >= r`` it turns freely.
"""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from workbench.errors import StudyError
from workbench.mbs.degenerate import cycle_problems, driver_period
from workbench.mbs.mechanism import RevoluteJoint, TranslationalJoint
from workbench.study.load import load_study_text

ROOT = Path(__file__).resolve().parents[2]
FLORES = (ROOT / "studies" / "flores_slider_crank.toml").read_text()
IDEAL = (ROOT / "studies" / "ideal_slider_crank.toml").read_text()
ROD = "points = { A = [-0.06, 0.0], B = [0.06, 0.0] }"


def with_rod(length: float, text: str = FLORES) -> str:
    h = length / 2.0
    return text.replace(ROD, f"points = {{ A = [{-h!r}, 0.0], B = [{h!r}, 0.0] }}")


@pytest.mark.parametrize("rod", [0.02, 0.03, 0.045])
def test_a_rod_shorter_than_the_crank_locks_at_asin_l_over_r(rod):
    with pytest.raises(StudyError) as info:
        load_study_text(with_rod(rod), file="sc.toml")
    msg = str(info.value)
    assert "[mechanism]" in msg and "driver 'crank_speed' of body 'crank'" in msg
    got = float(msg.split("driver angle ")[1].split(" deg")[0])
    assert got == pytest.approx(math.degrees(math.asin(rod / 0.05)), abs=0.1)


@pytest.mark.parametrize("rod", [0.051, 0.12])
def test_a_rod_longer_than_the_crank_turns_freely(rod):
    load_study_text(with_rod(rod), file="sc.toml")
    load_study_text(with_rod(rod, IDEAL), file="sc.toml")


def test_the_lock_up_check_can_be_skipped():
    s = load_study_text(with_rod(0.03) + "\n[checks]\nassembly_cycle = false\n", file="sc.toml")
    assert s.mechanism is not None


def test_the_check_covers_only_the_run_when_it_is_shorter_than_a_period():
    """Locks at 36.9 deg; a run of a quarter of that angle's time never gets there."""
    text = with_rod(0.03).replace("revolutions = 2 ", "revolutions = 0.05 ").replace(
        "step = 1.0e-5 ", "step = 1.0e-6 ")
    load_study_text(text, file="sc.toml")


def test_zero_length_rod_names_the_body_and_its_joints():
    text = FLORES.replace(ROD, "points = { A = [0.0, 0.0], B = [0.0, 0.0] }")
    with pytest.raises(StudyError, match=r"body 'rod' is a zero-length link: its joints 'A' \(point "
                                         r"'A'\), 'B' \(point 'B'\)"):
        load_study_text(text, file="sc.toml")
    # the ideal twin (no clearance joint) is refused the same way
    with pytest.raises(StudyError, match="body 'rod' is a zero-length link"):
        load_study_text(IDEAL.replace(ROD, "points = { A = [0.0, 0.0], B = [0.0, 0.0] }"), file="i.toml")


def test_a_body_pinned_twice_at_one_point_but_driven_is_not_a_zero_length_link():
    """A compound hinge (the crank carries the rod's pin at its own pivot) with the crank's angle
    driven is a legitimate mechanism: its angle is determined."""
    from workbench.mbs.mechanism import Body, Driver, DriverFunction, Mechanism
    mech = Mechanism(
        bodies=(Body("a", 1.0, 1.0, points={"P": (0.0, 0.0), "Q": (0.0, 0.0)}),
                Body("b", 1.0, 1.0, position=(0.1, 0.0), points={"P": (-0.1, 0.0)})),
        joints=(RevoluteJoint("J1", "ground", "O", "a", "P"), RevoluteJoint("J2", "a", "Q", "b", "P")),
        drivers=(Driver("d", "a", DriverFunction((0.0, 1.0))),),
        ground_points={"O": (0.0, 0.0)})
    assert not any("zero-length" in p for p in mech.problems())
    undriven = replace(mech, drivers=())
    assert any("body 'a' is a zero-length link" in p for p in undriven.problems())


def test_repeated_ideal_joints_are_redundant_constraints():
    text = IDEAL + '''
[[mechanism.joints]]
name = "O2"
type = "revolute"
body_i = "ground"
point_i = "O"
body_j = "crank"
point_j = "O"
'''
    with pytest.raises(StudyError, match=r"only 9 independent ones: redundant constraints"):
        load_study_text(text, file="i.toml")


def test_a_clearance_joint_next_to_its_ideal_joint_is_not_redundant():
    """The clearance joint is made ideal for the assembly; repeating the ideal joint there is the
    twin's business, not a lock-up (the loader's own tests build such a mechanism)."""
    load_study_text(FLORES + '''
[[mechanism.joints]]
name = "B_ideal"
type = "revolute"
body_i = "slider"
point_i = "B"
body_j = "rod"
point_j = "B"
''', file="f.toml")


def test_flores_study_passes_and_its_period_is_one_revolution():
    s = load_study_text(FLORES, file="f.toml")
    assert driver_period(s.mechanism) == pytest.approx(60.0 / 5000.0, rel=1e-12)
    assert cycle_problems(s.mechanism, 0.0, 1.0) == []


def test_translational_axes_of_the_mechanism_api_are_checked():
    s = load_study_text(IDEAL, file="i.toml")
    m = s.mechanism
    bad = tuple(replace(j, axis=(0.0, 1e-300)) if isinstance(j, TranslationalJoint) else j
                for j in m.joints)
    probs = replace(m, joints=bad).problems()
    assert any("axis [0.0, 1e-300] is not a direction" in p for p in probs)
