"""Mechanisms built in Python (:mod:`workbench.build`) serialise to the study file.

The Flores slider-crank built with the builder loads to the same study state as
``studies/flores_slider_crank.toml`` (every field that runs: :func:`workbench.study.sync.state`),
so its run gives the shipped study's numbers bit for bit; ``tests/kinds/test_dynamics_progress.py``
runs both (short) and compares the arrays.
"""
from pathlib import Path

import pytest

import workbench
from workbench.errors import StudyError
from workbench.study.sync import state

ROOT = Path(__file__).resolve().parents[1]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"
DESCRIPTION = workbench.load_study(FLORES).description


def flores_in_python():
    """The Flores slider-crank, table by table (the numbers of the shipped study file)."""
    m = workbench.Mechanism(gravity=(0.0, -9.81), ground_points={"O": (0.0, 0.0)})
    m.add_body("crank", mass=0.30, inertia=1.0e-4, position=(0.025, 0.0), angle=0.0,
               points={"O": (-0.025, 0.0), "A": (0.025, 0.0)})
    m.add_body("rod", mass=0.21, inertia=2.5e-4, position=(0.11, 0.0),
               points={"A": (-0.06, 0.0), "B": (0.06, 0.0)})
    m.add_body("slider", mass=0.14, inertia=1.0e-4, position=(0.17, 0.0), points={"B": (0.0, 0.0)})
    m.add_joint("O", "revolute", ("ground", "O"), ("crank", "O"))
    m.add_joint("A", "revolute", ("crank", "A"), ("rod", "A"))
    m.add_joint("guide", "translational", ("ground", "O"), ("slider", "B"), axis=(1.0, 0.0))
    m.add_driver("crank_speed", body="crank", coordinate="phi", initial=0.0, speed_rpm=5000.0)
    steel = {"E": 207.0e9, "nu": 0.3}
    m.add_clearance_joint("B", "revolute", bushing=("slider", "B"), journal=("rod", "B"),
                          bushing_radius=0.0105, journal_radius=0.0100, length=0.01,
                          bushing_material=steel, journal_material=steel,
                          contact=workbench.model("lankarani_nikravesh", restitution=0.9),
                          friction=workbench.model("ambrosio", c_f=0.01, v0=1.0e-4, v1=1.0e-2))
    return m


STUDY = dict(title="Flores slider-crank, revolute clearance joint rod-slider", description=DESCRIPTION,
             solver={"revolutions": 2, "rtol": 1.0e-11, "atol": 1.0e-14},
             output={"step": 1.0e-5, "compare_ideal": True})


def test_the_flores_slider_crank_built_in_python_is_the_shipped_study():
    m = flores_in_python()
    built = m.study(**STUDY)
    shipped = workbench.load_study(FLORES)
    assert state(built) == state(shipped)
    # and its text is a study file: loaded again it is the same study
    assert state(workbench.load_study(m.to_toml(**STUDY))) == state(shipped)
    assert repr(m) == "Mechanism(3 bodies, 3 joints, 1 drivers, 1 clearance_joints)"


def test_a_mistake_is_refused_with_the_key_path_as_in_a_file():
    m = flores_in_python()
    m.add_body("extra", mass=-1.0, inertia=1e-4, position=(0.0, 0.0))
    with pytest.raises(StudyError, match=r"mechanism\.bodies\[3\]\.mass"):
        m.study(**STUDY)
    with pytest.raises(StudyError, match="not a \\(body, point\\) pair"):
        m.add_joint("X", "revolute", "ground", ("crank", "O"))
