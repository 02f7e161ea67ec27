"""Study files: the loader builds the right mechanism/settings, and every mistake is a StudyError
naming the file, the key path, the bad value and the valid choices (all problems at once)."""
from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import numpy as np
import pytest

from study_helpers import STUDY_TEXT, toy_registry
from workbench.errors import StudyError
from workbench.mbs.mechanism import (ConstantForce, ConstantTorque, RevoluteClearanceJoint,
                                     SpringDamper, TranslationalClearanceJoint, TranslationalJoint)
from workbench.mbs.solution import SolverSettings
from workbench.study.load import load_study, load_study_text
from workbench.study.schema import SECTIONS, SOLVER, format_reference

ROOT = Path(__file__).resolve().parents[2]
# study files; the sweep files next to them (a top-level [sweep] table) are checked below
_ALL = sorted((ROOT / "studies").glob("*.toml"))
SWEEPS = [p for p in _ALL if p.read_text().lstrip().startswith("[sweep]") or "\n[sweep]" in p.read_text()]
STUDIES = [p for p in _ALL if p not in SWEEPS]
RPM = 2.0 * math.pi / 60.0
# --- nonsmooth: dynamics studies that are not the 5000 rpm slider-crank
_NOT_SLIDER_CRANKS = {"crank_rocker_friction.toml", "crank_rocker_friction_damped.toml",
                      "crank_rocker_free.toml", "stick_slip_oscillator.toml",
                      "pendulum_pin_friction.toml"}
# --- nonsmooth: end
_NOT_SLIDER_CRANKS |= {"qi_pendulum.toml"}   # spatial: checked in tests/spatial/test_qi_pendulum.py
_NOT_SLIDER_CRANKS |= {"qi_pendulum_stick.toml"}   # spatial, set-valued: tests/spatial/test_stick.py
_NOT_SLIDER_CRANKS |= {"qi_pendulum_universal.toml"}   # spatial: tests/spatial/test_qi_pendulum_universal.py
_NOT_SLIDER_CRANKS |= {"qi_pendulum_lugre.toml"}   # spatial, LuGre: tests/spatial/test_qi_pendulum_lugre.py
# spatial clearance joints: their datasets have no crank_angle; checked in tests/spatial/test_clearance_*.py
_NOT_SLIDER_CRANKS |= {"spatial_pendulum_ball_clearance.toml", "spatial_slider_crank_clearance.toml",
                       "spatial_slider_crank_clearance_tilt.toml"}


@pytest.fixture(scope="module")
def reg():
    return toy_registry()


def load(text, reg, file="toy.toml"):
    return load_study_text(text, file=file, registry=reg)


def error_of(text, reg, file="toy.toml") -> StudyError:
    with pytest.raises(StudyError) as info:
        load(text, reg, file)
    return info.value


# ------------------------------------------------------------------------------- round trips
def test_loader_builds_the_mechanism_and_settings(reg):
    s = load(STUDY_TEXT, reg)
    m = s.mechanism
    assert s.kind == "dynamics" and s.title == "toy slider-crank"
    assert [b.name for b in m.bodies] == ["crank", "rod", "slider"]
    assert m.bodies[1].mass == 0.21 and m.bodies[1].inertia == 2.5e-4
    assert m.bodies[1].points == {"A": (-0.06, 0.0), "B": (0.06, 0.0)}
    assert m.ground_points == {"O": (0.0, 0.0)} and m.gravity == (0.0, -9.81)
    assert isinstance(m.joints[2], TranslationalJoint) and m.joints[2].axis == (1.0, 0.0)
    # speed_rpm is the one unit converted at the boundary
    assert m.drivers[0].function.polynomial == pytest.approx((0.0, 5000.0 * RPM), rel=1e-15)
    c = m.clearance_joints[0]
    assert isinstance(c, RevoluteClearanceJoint)
    assert (c.bushing_radius, c.journal_radius) == (0.0105, 0.0100)
    assert c.contact.name == "toy_contact" and c.contact.params.restitution == 0.9
    assert c.friction.name == "toy_friction" and c.friction.params.c_f == 0.01
    # revolutions = 2 of the 5000 rpm crank
    assert s.solver.t_end == pytest.approx(2 * 60.0 / 5000.0, rel=1e-14)
    assert s.solver.output_step == 1e-4
    assert s.solver.rtol == SolverSettings(t_end=1.0).rtol  # defaults come from SolverSettings
    assert s.text == STUDY_TEXT and s.file == Path("toy.toml")


def test_load_study_from_a_file_keeps_text_and_path(tmp_path, reg):
    f = tmp_path / "my_study.toml"
    f.write_text(STUDY_TEXT.replace('title = "toy slider-crank"\n', ""))
    s = load_study(f, registry=reg)
    assert s.text == f.read_text() and s.file == f
    assert s.title == "my_study"  # the default title is the file name


def test_optional_forms(reg):
    text = STUDY_TEXT.replace("bushing_radius = 0.0105", "clearance = 2.0e-4").replace(
        'speed_rpm = 5000.0', 'function = { polynomial = [0.1, 100.0], harmonics = [[0.5, 50.0, 0.25]] }'
    ).replace("revolutions = 2", "t_end = 0.01") + '''
[[mechanism.forces]]
name = "spring"
type = "spring_damper"
body_i = "ground"
point_i = "O"
body_j = "slider"
point_j = "B"
stiffness = 1.0e3
damping = 2.0

[[mechanism.forces]]
name = "push"
type = "force"
body = "slider"
force = [-10.0, 0.0]

[[mechanism.forces]]
name = "brake"
type = "torque"
body = "crank"
torque = -0.5

[[mechanism.clearance_joints]]
name = "G"
type = "translational"
guide_body = "ground"
guide_point = "O"
slider_body = "slider"
slider_point = "B"
slider_length = 0.005
slider_height = 0.008
clearance = 5.0e-5
guide_material = { E = 70e9, nu = 0.33, rigid = true }
contact = { model = "toy_contact" }
'''
    s = load(text, reg)
    m = s.mechanism
    assert m.clearance_joints[0].bushing_radius == pytest.approx(0.0102, rel=1e-14)
    f = m.drivers[0].function
    assert f.polynomial == (0.1, 100.0) and f.harmonics == ((0.5, 50.0, 0.25),)
    assert f(0.0) == pytest.approx(0.1 + 0.5 * math.sin(0.25))
    assert s.solver.t_end == 0.01
    assert [type(x) for x in m.forces] == [SpringDamper, ConstantForce, ConstantTorque]
    assert m.forces[0].stiffness == 1e3 and m.forces[1].force == (-10.0, 0.0) and m.forces[1].point is None
    g = m.clearance_joints[1]
    assert isinstance(g, TranslationalClearanceJoint) and g.friction is None
    assert g.guide_height == pytest.approx(0.008 + 2 * 5e-5, rel=1e-14)
    assert g.clearance == pytest.approx(5e-5, rel=1e-9)
    assert g.guide_material.E == 70e9 and g.guide_material.rigid and g.slider_material.E == 207e9


def test_pressure_kind_is_checked_by_the_pressure_schema_and_kept_as_config():
    from workbench.plugins import build_registry
    pytest.importorskip("workbench.kinds.pressure_config", reason="the pressure study schema is not there yet")
    reg = build_registry()
    pressure = [p for p in STUDIES if 'kind = "pressure"' in p.read_text()]
    if not pressure:
        pytest.skip("no pressure study in studies/")
    s = load_study(pressure[0], registry=reg)
    assert s.kind == "pressure" and s.mechanism is None and s.pressure is s.spec is not None  # kinds: typed spec
    with pytest.raises(StudyError) as info:
        load('[study]\nkind = "pressure"\n[anything]\nx = 1\n', reg)
    assert "toy.toml" in str(info.value) and "anything" in str(info.value)


# ------------------------------------------------------------------------------- error paths
def test_misspelled_key_gets_did_you_mean(reg):
    e = error_of(STUDY_TEXT.replace("mass = 0.21", "mas = 0.21"), reg)
    text = str(e)
    assert "toy.toml" in text and "[mechanism.bodies[1].mas]" in text
    assert "Did you mean 'mass'?" in text
    assert "missing required key 'mass'" in text  # and the missing key is reported too


def test_misspelled_model_name_lists_valid_choices(reg):
    e = error_of(STUDY_TEXT.replace('model = "toy_contact"', 'model = "toy_contac"'), reg)
    assert e.key == "mechanism.clearance_joints[0].contact.model" and e.file == "toy.toml"
    assert "'toy_contac'" in str(e) and "Did you mean 'toy_contact'?" in str(e)
    assert "Valid choices: 'toy_contact'" in str(e)


def test_out_of_range_model_parameter_names_key_and_value(reg):
    e = error_of(STUDY_TEXT.replace("restitution = 0.9", "restitution = 1.5"), reg)
    assert e.key == "mechanism.clearance_joints[0].contact.restitution"
    assert "1.5" in str(e) and "maximum 1.0" in str(e)


def test_unknown_model_parameter_gets_did_you_mean(reg):
    e = error_of(STUDY_TEXT.replace("c_f = 0.01", "cf = 0.01"), reg)
    assert e.key == "mechanism.clearance_joints[0].friction.cf" and "Did you mean 'c_f'?" in str(e)


@pytest.mark.parametrize("old, new, key, words", [
    ("mass = 0.21", "mass = -0.21", "mechanism.bodies[1].mass", ["-0.21", "> 0", "kg"]),
    ("inertia = 2.5e-4", 'inertia = "big"', "mechanism.bodies[1].inertia", ["'big'", "kg m^2"]),
    ("journal_radius = 0.0100", "journal_radius = 0.0", "mechanism.clearance_joints[0].journal_radius",
     ["0", "> 0"]),
    ("step = 1.0e-4", "step = 0", "output.step", ["> 0"]),
    ("revolutions = 2", 'revolutions = 2\npath = "quick"', "solver.path", ["'quick'", "'fast'", "'scipy'"]),
    ('type = "translational"', 'type = "translationl"', "mechanism.joints[2].type",
     ["Did you mean 'translational'?"]),
    ('name = "motor"', 'name = "motor"\ncoordinate = "theta"', "mechanism.drivers[0].coordinate",
     ["'theta'", "'phi'"]),
    ("position = [0.11, 0.0]", "position = [0.11]", "mechanism.bodies[1].position", ["[0.11]"]),
])
def test_bad_values(reg, old, new, key, words):
    assert old in STUDY_TEXT
    e = error_of(STUDY_TEXT.replace(old, new, 1), reg)
    assert e.key == key, str(e)
    for w in words:
        assert w in str(e)


def test_missing_required_key(reg):
    e = error_of(STUDY_TEXT.replace("inertia = 2.5e-4\n", ""), reg)
    assert e.key == "mechanism.bodies[1].inertia" and "missing required key 'inertia'" in str(e)
    e = error_of(STUDY_TEXT.replace('contact = { model = "toy_contact", restitution = 0.9 }\n', ""), reg)
    assert e.key == "mechanism.clearance_joints[0].contact"
    e = error_of(STUDY_TEXT.replace('contact = { model = "toy_contact", restitution = 0.9 }',
                                    'contact = { restitution = 0.9 }'), reg)
    assert e.key == "mechanism.clearance_joints[0].contact.model" and "'toy_contact'" in str(e)


def test_unknown_top_level_table(reg):
    e = error_of(STUDY_TEXT.replace("[solver]", "[solvr]"), reg)
    assert "Did you mean 'solver'?" in str(e)


def test_every_schema_problem_is_reported_at_once(reg):
    text = (STUDY_TEXT.replace("mass = 0.21", "mas = 0.21").replace("restitution = 0.9", "restitution = 2.0")
            .replace("step = 1.0e-4", "step = -1.0"))
    e = error_of(text, reg)
    keys = {p.key for p in e.problems}
    assert {"mechanism.bodies[1].mas", "mechanism.bodies[1].mass",
            "mechanism.clearance_joints[0].contact.restitution", "output.step"} <= keys
    assert str(e).startswith("toy.toml: 4 problems")


def test_bad_references_are_reported_all_at_once_with_the_file(reg):
    text = STUDY_TEXT.replace('body_j = "rod"', 'body_j = "rood"').replace('point_j = "B"', 'point_j = "Z"')
    e = error_of(text, reg)
    msg = str(e)
    assert msg.startswith("toy.toml:")
    assert "unknown body 'rood'" in msg and "has no point 'Z'" in msg


@pytest.mark.parametrize("old, new, words", [
    ("speed_rpm = 5000.0", "speed_rpm = 5000.0\nspeed = 10.0", ["exactly one of 'speed'"]),
    ("speed_rpm = 5000.0", "", ["exactly one of 'speed'", "none"]),
    ("revolutions = 2", "revolutions = 2\nt_end = 0.1", ["exactly one of 't_end'"]),
    ("revolutions = 2", "", ["exactly one of 't_end'"]),
    ("bushing_radius = 0.0105", "bushing_radius = 0.0105\nclearance = 1e-4", ["exactly one of 'bushing_radius'"]),
    ("speed_rpm = 5000.0", 'function = { polynomial = [0.0, 1.0, 2.0] }', ["'revolutions' needs"]),
])
def test_alternative_keys(reg, old, new, words):
    e = error_of(STUDY_TEXT.replace(old, new), reg)
    for w in words:
        assert w in str(e)


def test_toml_syntax_error_names_the_file(reg):
    e = error_of(STUDY_TEXT.replace("mass = 0.21", "mass = = 0.21"), reg)
    assert str(e).startswith("toy.toml:") and "not valid TOML" in str(e)


def test_missing_file():
    with pytest.raises(StudyError, match="cannot read"):
        load_study("/nonexistent/study.toml")


def test_model_check_inside_params_gets_file_and_path():
    """The built-in Ambrosio law raises its own StudyError (v1 <= v0) without a file; the loader
    adds the file and the key path."""
    from workbench.plugins import build_registry
    real = build_registry()
    if "ambrosio" not in real.names("friction"):
        pytest.skip("friction model 'ambrosio' is not registered yet")
    text = (STUDY_TEXT.replace('model = "toy_friction", c_f = 0.01', 'model = "ambrosio", v0 = 0.1, v1 = 0.01')
            .replace('model = "toy_contact", restitution = 0.9', 'model = "hertz"'))
    e = error_of(text, real)
    assert e.file == "toy.toml" and e.key.startswith("mechanism.clearance_joints[0].friction")


# ------------------------------------------------------------------------------- the studies
@pytest.mark.parametrize("path", STUDIES, ids=[p.name for p in STUDIES])
def test_every_study_file_validates(path):
    from workbench.plugins import build_registry
    s = load_study(path, registry=build_registry())
    if s.kind == "dynamics":
        assert s.mechanism.validate() is s.mechanism


@pytest.mark.parametrize("path", SWEEPS, ids=[p.name for p in SWEEPS])
def test_every_sweep_file_validates(path):
    from workbench.plugins import build_registry
    from workbench.sweeps.spec import load_sweep
    sweep = load_sweep(path, registry=build_registry())
    assert len(sweep.cases) >= 2


def _engine_missing() -> str | None:
    try:
        import workbench.mbs.solver  # noqa: F401
    except Exception as exc:  # noqa: BLE001
        return f"workbench.mbs.solver is not importable yet ({type(exc).__name__}: {exc})"
    return None


# Studies whose first run compiles an integrator of their own: the slider-crank with friction in its
# four ideal joints (about 55-65 s on a cold cache; a tuple of four friction kernels is a type of its
# own) runs with the slow suite; the friction loop inside the integrator stays covered on one joint
# by tests/mbs/test_joint_friction.py and tests/mbs/test_joint_friction_lugre.py.
_COMPILES_ITS_OWN = {"slider_crank_joint_friction.toml", "slider_crank_joint_friction_lugre.toml"}
_STUDY_PARAMS = [pytest.param(p, marks=pytest.mark.slow) if p.name in _COMPILES_ITS_OWN else p
                 for p in STUDIES]


@pytest.mark.skipif(_engine_missing() is not None, reason=str(_engine_missing()))
@pytest.mark.parametrize("path", _STUDY_PARAMS, ids=[p.name for p in STUDIES])
def test_every_dynamics_study_runs_briefly(path, tmp_path):
    """Each dynamics study runs 0.3 ms (about 9 deg of crank) through run_study.  Physical check:
    the slider-crank studies start at top dead centre, crank and rod along +x, so the assembled
    slider centre is at x = r + l = 0.05 + 0.12 m to assembly accuracy (1e-9 m);
    the crank angle follows its 5000 rpm driver exactly (1e-12 relative)."""
    from workbench.plugins import build_registry
    from workbench.study.load import run_study
    reg = build_registry()
    study = load_study(path, registry=reg)
    if study.kind != "dynamics":
        pytest.skip(f"{path.name} is a {study.kind} study")
    study = dataclasses.replace(study, solver=dataclasses.replace(study.solver, t_end=3e-4))
    ds = run_study(study, registry=reg, out=tmp_path / "out.nc")
    assert (tmp_path / "out.nc").exists()
    # --- nonsmooth: the physical check below is the slider-crank's; the crank-rocker and
    # stick-slip studies are checked against their own solutions in test_crank_rocker_friction.py
    # and test_set_valued_friction.py
    if path.name in _NOT_SLIDER_CRANKS:
        assert np.isfinite(ds["driver_load"].values).all() and ds.sizes["time"] >= 1
        return
    # --- nonsmooth: end
    assert float(ds["position"].sel(body="slider", component="x").isel(time=0)) == pytest.approx(0.17, abs=1e-9)
    t = ds["time"].values
    np.testing.assert_allclose(ds["crank_angle"].values[1:], 5000 * RPM * t[1:], rtol=1e-12)
    assert np.isfinite(ds["driver_load"].values).all()


def test_flores_study_is_the_issue_data():
    """The Flores & Ambrosio (2004) slider-crank, Wang, Chen, Ma & Sun (2016) Table 1-2."""
    from workbench.plugins import build_registry
    s = load_study(ROOT / "studies" / "flores_slider_crank.toml", registry=build_registry())
    m = s.mechanism
    crank, rod, slider = m.bodies
    assert [(b.mass, b.inertia) for b in m.bodies] == [(0.30, 1e-4), (0.21, 2.5e-4), (0.14, 1e-4)]
    # link lengths from the points, CoMs at the link midpoints, slider CoM at the bushing centre
    assert crank.points["A"][0] - crank.points["O"][0] == pytest.approx(0.05)
    assert rod.points["B"][0] - rod.points["A"][0] == pytest.approx(0.12)
    assert crank.points["A"][0] == -crank.points["O"][0] and rod.points["B"][0] == -rod.points["A"][0]
    c = m.clearance_joints[0]
    assert slider.points[c.bushing_point] == (0.0, 0.0)
    assert (c.bushing_body, c.journal_body, c.bushing_radius, c.journal_radius) == ("slider", "rod", 0.0105, 0.0100)
    assert c.bushing_material.E == c.journal_material.E == 207e9 and c.journal_material.nu == 0.3
    assert c.contact.name == "lankarani_nikravesh" and c.contact.params.restitution == 0.9
    fp = c.friction.params
    assert c.friction.name == "ambrosio" and (fp.c_f, fp.v0, fp.v1) == (0.01, 1e-4, 1e-2)
    assert m.drivers[0].function.polynomial == pytest.approx((0.0, 5000 * RPM), rel=1e-15)
    assert m.gravity == (0.0, -9.81)
    assert s.solver.t_end == pytest.approx(2 * 60 / 5000, rel=1e-14)


def test_mixed_clearance_studies_are_seed_004():
    from workbench.plugins import build_registry
    reg = build_registry()
    for tag, C in (("c005", 0.05e-3), ("c020", 0.2e-3)):
        m = load_study(ROOT / "studies" / f"mixed_clearance_slider_crank_{tag}.toml", registry=reg).mechanism
        rev, tr = m.clearance_joints
        assert rev.clearance == pytest.approx(C, rel=1e-9) and tr.clearance == pytest.approx(C, rel=1e-9)
        assert (tr.slider_length, tr.slider_height) == (0.005, 0.008)  # Wang, Chen, Ma & Sun (2016) Table 2: L, W
        assert [(b.mass, b.inertia) for b in m.bodies] == [(0.30, 1e-4), (0.21, 2.5e-4), (0.14, 2.5e-4)]
        assert not any(isinstance(j, TranslationalJoint) for j in m.joints)


# ------------------------------------------------------------------------------- the schema itself
def test_docs_reference_is_generated_from_the_schema():
    doc = (ROOT / "docs" / "study_format.md").read_text()
    block = re.search(r"<!-- BEGIN GENERATED: workbench.study.schema.format_reference\(\) -->\n(.*?)<!-- END GENERATED",
                      doc, re.S).group(1)
    assert block.strip() == format_reference().strip(), \
        "docs/study_format.md is stale: run workbench.study.schema.update_reference('docs/study_format.md')"


def test_schema_covers_every_solver_setting():
    names = set(SOLVER.names())
    for f in dataclasses.fields(SolverSettings):
        assert f.name in names or f.name == "output_step", f"[solver] has no key for SolverSettings.{f.name}"


def test_every_key_is_documented_with_a_unit():
    for s in SECTIONS:
        for k in s.keys:
            assert k.doc.strip(), f"{s.path}.{k.name} has no doc"
            if k.kind in ("number", "vec2", "points"):
                assert k.unit, f"{s.path}.{k.name} has no unit"


def test_a_mechanism_needs_a_body(reg):
    e = error_of("[mechanism]\nbodies = []\n[solver]\nt_end = 1.0\n", reg)
    assert e.key == "mechanism.bodies" and "at least one moving body" in str(e)
