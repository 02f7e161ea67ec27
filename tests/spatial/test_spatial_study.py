"""The spatial study format (``[mechanism] dimension = 3``): the shipped pendulum validates and
runs into a dataset with units and long names; bad 3-D input gets a clear error naming the
file, the key, the value and what is valid, from ``workbench validate`` as from the loader."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.errors import StudyError
from workbench.study.load import load_study_text, run_study

STUDY = Path(__file__).resolve().parents[2] / "studies" / "qi_pendulum.toml"
TEXT = STUDY.read_text()


def _bad(old, new, text=TEXT):
    assert old in text
    return text.replace(old, new)


UNIVERSAL = """
[study]
kind = "dynamics"
[mechanism]
dimension = 3
gravity = [0.0, -9.81, 0.0]
ground_points = { O = [0.0, 0.0, 0.0] }
[[mechanism.bodies]]
name = "arm"
mass = 1.0
inertia = [0.001, 0.01, 0.01]
position = [0.2, 0.0, 0.0]
points = { O = [-0.2, 0.0, 0.0] }
[[mechanism.joints]]
name = "hooke"
type = "universal"
body_i = "ground"
point_i = "O"
body_j = "arm"
point_j = "O"
axis_i = [0.0, 0.0, 1.0]
axis_j = AXIS_J
[solver]
t_end = 0.1
[output]
step = 0.001
"""


@pytest.mark.parametrize("old, new, key, words", [
    ("quaternion = [1.0, 0.0, 0.0, 0.0]", "quaternion = [1.0, 0.2, 0.0, 0.0]",
     "mechanism.bodies[0].quaternion", ["norm 1.0198", "unit norm", "Valid: e.g."]),
    ("inertia = [0.13, 6.565, 6.565]", "inertia = [[0.13, 0.0, 0.0], [0.0, 6.565, 6.565], [0.0, 6.565, 6.565]]",
     "mechanism.bodies[0].inertia", ["singular or not positive definite", "principal moments"]),
    ("inertia = [0.13, 6.565, 6.565]", "inertia = [0.13, 6.565, -6.565]",
     "mechanism.bodies[0].inertia", ["not positive definite"]),
    ("axis_i = [0.0, 0.0, 1.0]", "axis_i = [0.0, 0.0, 0.0]",
     "mechanism.joints[0].axis_i", ["[0.0, 0.0, 0.0]", "length >= 1e-06"]),
    ("type = \"cylindrical\"", "type = \"cylindric\"",
     "mechanism.joints[0].type", ["did you mean", "'cylindrical'"]),
    ("velocity = [0.0, 0.0, 1.0]", "velocity = [0.0, 1.0]",
     "mechanism.bodies[0].velocity", ["expected 3 numbers"]),
])
def test_bad_spatial_input_is_a_clear_error(registry, old, new, key, words):
    with pytest.raises(StudyError) as e:
        load_study_text(_bad(old, new), file="pend.toml", registry=registry)
    msg = str(e.value)
    assert "pend.toml" in msg and f"[{key}]" in msg, msg
    for w in words:
        assert w.lower() in msg.lower(), (w, msg)


def test_a_universal_joint_with_parallel_axes_is_refused(registry):
    with pytest.raises(StudyError) as e:
        load_study_text(UNIVERSAL.replace("AXIS_J", "[0.0, 0.0, 2.0]"), file="u.toml", registry=registry)
    msg = str(e.value)
    assert "[mechanism.joints[0].axis_j]" in msg and "parallel" in msg and "perpendicular" in msg
    ok = load_study_text(UNIVERSAL.replace("AXIS_J", "[0.0, 1.0, 0.0]"), file="u.toml", registry=registry)
    assert ok.solver.engine == "spatial"


def test_every_problem_at_once_from_workbench_validate(tmp_path):
    text = _bad("quaternion = [1.0, 0.0, 0.0, 0.0]", "quaternion = [0.5, 0.5, 0.5, 0.0]")
    text = _bad("inertia = [0.13, 6.565, 6.565]", "inertia = [0.0, 6.565, 6.565]", text)
    text = _bad("axis_i = [0.0, 0.0, 1.0]", "axis_i = [0.0, 0.0, 0.0]", text)
    f = tmp_path / "bad.toml"
    f.write_text(text)
    r = CliRunner().invoke(main, ["validate", str(f)], env={"COLUMNS": "250"})
    assert r.exit_code != 0
    out = r.output
    assert "3 problems" in out and "bad.toml" in out
    for key in ("mechanism.bodies[0].quaternion", "mechanism.bodies[0].inertia", "mechanism.joints[0].axis_i"):
        assert f"[{key}]" in out, out


def test_a_planar_engine_asked_for_is_refused(registry):
    with pytest.raises(StudyError) as e:
        load_study_text(_bad("[solver]\n", "[solver]\nengine = \"compiled\"\n"), file="p.toml", registry=registry)
    assert "[solver.engine]" in str(e.value) and "'spatial'" in str(e.value)


def test_the_study_runs_into_a_dataset_with_units(registry, tmp_path):
    st = load_study_text(_bad("t_end = 3.0", "t_end = 0.05", _bad("step = 0.01", "step = 0.005")), file="pend.toml", registry=registry)
    ds = run_study(st, registry=registry, out=tmp_path / "pend.nc")
    assert (tmp_path / "pend.nc").exists()
    assert ds.attrs["engine"] == "spatial" and ds.attrs["dimension"] == 3
    for name in ("position", "quaternion", "angular_velocity", "angular_velocity_body", "joint_force",
                 "joint_moment", "joint_friction_force", "joint_friction_moment", "contact_load",
                 "kinetic_energy", "dissipated_energy"):
        assert ds[name].attrs["units"] and ds[name].attrs["long_name"], name
    assert float(ds["velocity"].sel(body="bar", xyz="z").isel(time=0)) == pytest.approx(1.0)
    assert float(ds["joint_friction_force"].isel(friction_joint=0, time=-1)) < 0   # opposes the slide


def test_vtu_export_of_the_bodies_motion(registry, tmp_path):
    meshio = pytest.importorskip("meshio")
    import numpy as np
    from workbench import engines
    from workbench.spatial.vtu import write_vtu
    st = load_study_text(_bad("t_end = 3.0", "t_end = 0.1", _bad("step = 0.01", "step = 0.01")),
                         file="pend.toml", registry=registry)
    sim = engines.simulate(st.mechanism, st.solver)
    pvd = write_vtu(sim, st.mechanism, tmp_path / "vtu", every=5)
    files = sorted((tmp_path / "vtu").glob("*.vtu"))
    assert pvd.exists() and len(files) == 3 and files[0].name in pvd.read_text()
    last = meshio.read(files[-1])
    corners = last.points
    # the box's centroid is the centre of mass; its long edges are 1 m
    assert np.allclose(corners.mean(axis=0), sim.position[10, 0, :3], atol=1e-12)
    assert np.linalg.norm(corners[1] - corners[0]) == pytest.approx(1.0)
