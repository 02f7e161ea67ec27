"""The shipped spatial clearance studies validate and run (short) into a dataset with units and
long names; bad clearance-joint input (negative clearance, tilt out of range or too large for the
clearance, an unknown contact law, a line-contact law on a ball, a friction law with states) gets
an error naming the file, the key, the value and what is valid, from ``workbench validate``
(exit 2) as from the loader."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.errors import StudyError
from workbench.study.load import load_study_text, run_study

ROOT = Path(__file__).resolve().parents[2] / "studies"
CRANK = (ROOT / "spatial_slider_crank_clearance_tilt.toml").read_text()
BALL = (ROOT / "spatial_pendulum_ball_clearance.toml").read_text()


def _bad(old, new, text):
    assert old in text
    return text.replace(old, new)


@pytest.mark.parametrize("old, new, key, words", [
    ("radius_i = 0.0105 ", "radius_i = 0.0095 ", "mechanism.clearance_joints[0].radius_i", ("0.0095", "must exceed")),
    ("tilt = 8.726646259971648e-4", "tilt = 0.2", "mechanism.clearance_joints[0].tilt", ("0.2", "valid", "0.0872665")),
    ("length = 0.01 ", "length = 1.2 ", "mechanism.clearance_joints[0].tilt", ("does not fit", "valid: |tilt| <")),
    ('model = "lankarani_nikravesh"', 'model = "lankarani"', "mechanism.clearance_joints[0].contact.model",
     ("lankarani", "lankarani_nikravesh")),
    ('model = "ambrosio", c_f = 0.01, v0 = 1.0e-4, v1 = 1.0e-2', 'model = "lugre"',
     "mechanism.clearance_joints[0].friction.model", ("lugre", "coulomb", "ambrosio")),
    ("axial_clearance = 1.0e-4 ", "axial_clearance = 0.0 ", "mechanism.clearance_joints[0].axial_clearance",
     ("must be > 0", "cylindrical")),
])
def test_bad_slider_crank_input(registry, old, new, key, words):
    with pytest.raises(StudyError) as e:
        load_study_text(_bad(old, new, CRANK), file="sc.toml", registry=registry)
    msg = str(e.value)
    assert f"[{key}]" in msg and "sc.toml" in msg, msg
    for w in words:
        assert w in msg, msg


def test_a_line_contact_law_on_a_ball_is_refused(registry):
    with pytest.raises(StudyError) as e:
        load_study_text(_bad('model = "hunt_crossley", restitution = 0.8', 'model = "johnson"', BALL),
                        file="ball.toml", registry=registry)
    assert "[mechanism.clearance_joints[0].contact.model]" in str(e.value) and "johnson" in str(e.value)


def test_workbench_validate_exits_2_naming_every_problem(tmp_path):
    text = _bad("radius_i = 0.0105 ", "radius_i = 0.0095 ", CRANK)
    text = _bad("tilt = 8.726646259971648e-4", "tilt = -0.1", text)
    f = tmp_path / "bad.toml"
    f.write_text(text)
    r = CliRunner().invoke(main, ["validate", str(f)], env={"COLUMNS": "250"})
    assert r.exit_code == 2, r.output
    assert "bad.toml" in r.output
    for key in ("mechanism.clearance_joints[0].radius_i", "mechanism.clearance_joints[0].tilt"):
        assert f"[{key}]" in r.output, r.output


def test_the_shipped_studies_validate(registry):
    for f in ("spatial_slider_crank_clearance.toml", "spatial_slider_crank_clearance_tilt.toml",
              "spatial_pendulum_ball_clearance.toml"):
        r = CliRunner().invoke(main, ["validate", str(ROOT / f)])
        assert r.exit_code == 0, r.output


def test_the_tilted_slider_crank_runs_into_a_dataset(registry, tmp_path):
    st = load_study_text(_bad("revolutions = 2 ", "t_end = 0.0008 ", _bad("step = 1.0e-5 ", "step = 5.0e-5 ", CRANK)),
                         file="sc.toml", registry=registry)
    ds = run_study(st, registry=registry, out=tmp_path / "sc.nc")
    for name in ("contact_force", "point_normal_force", "point_penetration", "point_slip_speed", "clearance_offset",
                 "impact_time", "impact_peak_force", "contact_energy", "clearance_friction_energy"):
        assert ds[name].attrs["units"] and ds[name].attrs["long_name"], name
    pts = list(ds["clearance_point"].values)
    assert pts == ["B.rim_1", "B.rim_2", "B.shoulder_1", "B.shoulder_2"]
    # the misaligned bore: the first contact is one rim alone, before the other
    first = ds["impact_time"].values[:2]
    assert first[1] > first[0]
    # and the two rims share the load unequally (edge loading; aligned, they carry it equally)
    f = ds["point_normal_force"].sel(clearance_point=["B.rim_1", "B.rim_2"]).values
    assert np.abs(f[0] - f[1]).max() > 0.02 * f.max()
