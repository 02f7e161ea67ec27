"""One declarative schema (workbench.schema): every input file -- a study of each kind, a sweep
file, a model's parameters -- is checked by the same sections and the same value check, reports
every problem at once with file, key path, value and valid choices, and the docs and JSON Schemas
are generated from it.  ``workbench validate`` refuses what ``run`` would refuse at its start, for
pressure studies and sweeps too."""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import tomli_w
from click.testing import CliRunner

from workbench.cli.main import main, schema_command
from workbench.errors import PluginError, StudyError
from workbench.models import ContactLaw, parameter, parameter_infos
from workbench.schema.docs import stale_blocks
from workbench.schema.jsonschema import KINDS, SCHEMA_FILES, build_schema, schema_text
from workbench.schema.paths import check_path, key_units, parse_path
from workbench.study.load import load_study, load_study_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
STUDIES = ROOT / "studies"
FLORES = STUDIES / "flores_slider_crank.toml"
PRESSURE = STUDIES / "winkler_vs_fem.toml"


def _problems(exc: StudyError) -> dict[str, str]:
    """``{key path: message}`` of every problem of a (multi-problem) StudyError."""
    return {e.key: str(e) for e in (getattr(exc, "problems", None) or [exc])}


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "400"})


# --------------------------------------------------------------------------------------------
# generated documentation and JSON Schemas
# --------------------------------------------------------------------------------------------
def test_generated_docs_and_json_schemas_are_up_to_date(registry):
    assert stale_blocks(ROOT) == [], "run: python -m workbench.schema.docs  (rewrites docs/ from the schema)"
    for rel, kind in SCHEMA_FILES.items():
        committed = (ROOT / rel).read_text(encoding="utf-8")
        assert committed == schema_text(kind, registry, own_models_only=True), \
            f"{rel} is stale: run python -m workbench.schema.docs"


def test_schema_command_offers_every_kind_and_prints_json():
    choices = next(p for p in schema_command.params if p.name == "kind").type.choices
    assert tuple(choices) == KINDS
    r = invoke("schema", "--kind", "pressure")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    fem = doc["properties"]["models"]["additionalProperties"]
    assert "fem" in fem["properties"]["plugin"]["enum"]


def test_json_schema_carries_units_bounds_and_model_parameters(registry):
    s = build_schema("dynamics", registry)
    spatial = s["properties"]["mechanism"]["then"]     # [mechanism] dimension = 3
    assert spatial["properties"]["bodies"]["items"]["properties"]["quaternion"]["default"] == [1.0, 0.0, 0.0, 0.0]
    s["properties"]["mechanism"] = s["properties"]["mechanism"]["else"]   # the planar tables
    body = s["properties"]["mechanism"]["properties"]["bodies"]["items"]
    assert body["properties"]["mass"]["exclusiveMinimum"] == 0.0
    assert "[kg]" in body["properties"]["mass"]["description"] and "mass" in body["required"]
    contact = s["properties"]["mechanism"]["properties"]["clearance_joints"]["items"]["allOf"][0]["then"][
        "properties"]["contact"]
    hertz = next(c["then"]["properties"] for c in contact["allOf"]
                 if c["if"]["properties"]["model"]["const"] == "hertz")
    assert (hertz["exponent"]["minimum"], hertz["exponent"]["maximum"]) == (1.0, 3.0)
    assert hertz["stiffness"]["exclusiveMinimum"] == 0.0   # a declared bound, not only pack()'s check
    solver = s["properties"]["solver"]["properties"]
    assert solver["path"]["enum"] == ["fast", "scipy"] and solver["rtol"]["exclusiveMaximum"] == 1.0


def test_shipped_files_match_the_json_schemas_and_mistakes_do_not():
    jsonschema = pytest.importorskip("jsonschema")
    study = json.loads((ROOT / "docs" / "study.schema.json").read_text())
    sweep = json.loads((ROOT / "docs" / "sweep.schema.json").read_text())
    for path in sorted(STUDIES.glob("*.toml")):
        doc = tomllib.loads(path.read_text())
        errors = list(jsonschema.Draft202012Validator(sweep if "sweep" in doc else study).iter_errors(doc))
        assert not errors, (path.name, [e.message for e in errors])
    doc = tomllib.loads(FLORES.read_text())
    doc["mechanism"]["bodies"][0]["mas"] = 1.0
    doc["mechanism"]["clearance_joints"][0]["contact"] = {"model": "hertz", "exponent": 4.0}
    paths = {tuple(e.absolute_path) for e in jsonschema.Draft202012Validator(study).iter_errors(doc)}
    assert ("mechanism", "bodies", 0) in paths
    assert ("mechanism", "clearance_joints", 0, "contact", "exponent") in paths


# --------------------------------------------------------------------------------------------
# model parameters: declared bounds, every problem at once
# --------------------------------------------------------------------------------------------
def test_declared_exclusive_bound_names_file_key_value_and_range(registry):
    text = FLORES.read_text().replace('contact = { model = "lankarani_nikravesh", restitution = 0.9 }',
                                      'contact = { model = "hertz", stiffness = 0.0 }')
    with pytest.raises(StudyError) as info:
        load_study_text(text, file="f.toml", registry=registry)
    e = info.value
    assert e.file == "f.toml" and e.key == "mechanism.clearance_joints[0].contact.stiffness"
    assert "must be a finite number > 0 N/m^n, got 0.0" in str(e)


def test_a_bound_message_shows_the_value_as_typed(registry):
    # an integer stays an integer ("value 0", not "value 0.0"); a float keeps its form
    text = (STUDIES / "five_bar_wear_distributed.toml").read_text().replace("chains = 2", "chains = 0")
    with pytest.raises(StudyError) as info:
        load_study_text(text, file=STUDIES / "w.toml", registry=registry)
    msg = _problems(info.value)["wear.chains"]
    assert "value 0 is below the minimum 1" in msg and "0.0" not in msg


@pytest.mark.parametrize("value", ["1", '"yes"', "0.0"])
def test_a_boolean_choice_takes_toml_booleans_only(registry, value):
    """``[solver] specialise`` takes ``false``, ``true`` or ``"auto"``: ``1`` equals ``True`` in
    Python but is not a TOML boolean, and the error lists the choices as a study file writes them."""
    text = FLORES.read_text().replace("[solver]", f"[solver]\nspecialise = {value}", 1)
    with pytest.raises(StudyError) as info:
        load_study_text(text, file="f.toml", registry=registry)
    msg = _problems(info.value)["solver.specialise"]
    assert "Valid choices: 'auto', 'false', 'true'" in msg
    ok = load_study_text(FLORES.read_text().replace("[solver]", "[solver]\nspecialise = true", 1),
                         file="f.toml", registry=registry)
    assert ok.solver.specialise is True


def test_every_bad_parameter_of_a_model_is_reported(registry):
    with pytest.raises(StudyError) as info:
        registry.create("contact", "hertz", {"exponent": 4.0, "stiffness": -1.0, "stifness": 1.0},
                        file="s.toml", key="c")
    probs = _problems(info.value)
    assert set(probs) == {"c.exponent", "c.stiffness", "c.stifness"}
    assert "between 1 and 3" in probs["c.exponent"] and "Did you mean 'stiffness'" in probs["c.stifness"]


def test_a_default_outside_its_own_bounds_is_a_plugin_error():
    @dataclass(frozen=True)
    class Params:
        k: float = parameter(0.0, unit="N/m", doc="stiffness", gt=0.0)

    with pytest.raises(PluginError, match="default 0.0 is outside its bounds"):
        parameter_infos(Params)

    class Law(ContactLaw):
        name = "bounded_law"
        Params = dataclass(frozen=True)(type("P", (), {"__annotations__": {"k": float},
                                                       "k": parameter(1.0, unit="N/m", doc="k", gt=0.0,
                                                                      lt=2.0)}))

    assert Law.from_mapping({"k": 1.5}).params.k == 1.5
    with pytest.raises(StudyError, match=r"\[x.k\].*must be < 2 N/m, got 2.0"):
        Law.from_mapping({"k": 2.0}, key="x")


# --------------------------------------------------------------------------------------------
# the pressure kind
# --------------------------------------------------------------------------------------------
def _pressure_doc() -> dict:
    """The shipped pressure study with its mesh and wear-result paths made absolute."""
    doc = tomllib.loads(PRESSURE.read_text())
    for case in doc["cases"]:
        for k in ("bushing_mesh", "pin_mesh"):
            if k in case:
                case[k] = str((STUDIES / case[k]).resolve())
        if "worn_profile" in case:
            case["worn_profile"]["file"] = str((STUDIES / case["worn_profile"]["file"]).resolve())
    return doc


def _load_pressure(doc: dict, registry):
    return load_study_text(tomli_w.dumps(doc), file=PRESSURE, registry=registry)


def test_pressure_study_reports_every_problem_at_once(registry):
    doc = _pressure_doc()
    doc["grid"]["theta_nodes"] = 30                     # not a multiple of 4
    doc["cases"][1]["clearances"][1] = -1e-5            # below 0
    doc["cases"][2]["bushing"]["nu"] = 0.7              # the study's own material section
    doc["models"]["fem"]["mesh_growth"] = 3.0           # a model parameter out of its range
    doc["compare"]["baseline"] = "femm"
    doc["compare"]["reference"] = ["persson", "hertzz"]
    doc["plots"] = {}
    with pytest.raises(StudyError) as info:
        _load_pressure(doc, registry)
    probs = _problems(info.value)
    assert {"grid.theta_nodes", "cases[1].clearances[1]", "cases[2].bushing.nu",
            "models.fem.mesh_growth", "compare.baseline", "compare.reference[1]", "plots"} <= set(probs)
    assert all(str(PRESSURE) in m for m in probs.values())
    assert "Did you mean 'fem'?" in probs["compare.baseline"]
    assert "between 1 and 1.5" in probs["models.fem.mesh_growth"]
    assert "Did you mean 'hertz'?" in probs["compare.reference[1]"]
    assert str(info.value).startswith(f"{PRESSURE}: {len(probs)} problems")


def test_pressure_parser_api_for_the_study_kinds(registry):
    """``parse_pressure(doc, file=, registry=, problems=)`` fills a problem list and returns the
    config object the pressure runner consumes (``None`` when it found a problem)."""
    from workbench.kinds.pressure_config import PressureStudy, parse_pressure, parse_pressure_study
    from workbench.schema.core import Problems
    probs = Problems(str(PRESSURE))
    study = parse_pressure(_pressure_doc(), file=str(PRESSURE), registry=registry, problems=probs)
    assert not probs.items and isinstance(study, PressureStudy)
    assert study == parse_pressure_study(tomllib.loads(PRESSURE.read_text()), registry, str(PRESSURE))
    assert [c.name for c in study.cases][:4] == ["persson_plate", "bronze_bushing_c1e-05",
                                                 "bronze_bushing_c5e-05", "bronze_bushing_c0.0002"]
    assert study.theta_nodes == 720 and study.baseline == "fem" and study.reference == ("persson", "hertz")
    bad = _pressure_doc()
    bad["cases"][0]["length"] = 0.0
    assert parse_pressure(bad, file=str(PRESSURE), registry=registry, problems=probs) is None
    assert [e.key for e in probs.items] == ["cases[0].length"]


def test_validate_refuses_a_pressure_model_that_would_fail_at_run(registry, tmp_path):
    """A Winkler layer of zero thickness was accepted by validate (min = 0) and failed in the
    model's solve ("layer_thickness must be positive"); the declared bound refuses it with the key."""
    doc = _pressure_doc()
    doc["models"]["winkler_textbook"]["layer_thickness"] = 0.0
    path = tmp_path / "bad_pressure.toml"
    path.write_text(tomli_w.dumps(doc), encoding="utf-8")
    r = invoke("validate", path)
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    assert "[models.winkler_textbook.layer_thickness]" in text and "> 0 m" in text


# --------------------------------------------------------------------------------------------
# sweeps
# --------------------------------------------------------------------------------------------
def _sweep(tmp_path: Path, grid: dict, name="s.toml", **head) -> Path:
    doc = {"sweep": {"base": str(FLORES), "summary": ["n_impacts"], "unset": ["solver.revolutions"], **head},
           "set": {"solver.t_end": 1.0e-3, "output.compare_ideal": False}, "grid": grid}
    path = tmp_path / name
    path.write_text(tomli_w.dumps(doc), encoding="utf-8")
    return path


def test_sweep_file_reports_every_problem_at_once(tmp_path, registry):
    from workbench.sweeps.spec import load_sweep
    path = _sweep(tmp_path, {"mechanism.clearance_joints[0].clearence": [1e-4, 2e-4],
                             "mechanism.drivers[0].speed_rpm": {"values": [1.0, 2.0], "nme": "speed"},
                             "solver.rtol": [1e-6, 1e-7]},
                  summary=["n_impact"], zip=[["rtol", "nope"]], case_timeout=-1.0)
    with pytest.raises(StudyError) as info:
        load_sweep(path, registry=registry)
    probs = info.value.problems
    keys = [p.key for p in probs]
    assert {"grid.mechanism.clearance_joints[0].clearence", "grid.mechanism.drivers[0].speed_rpm.nme",
            "sweep.summary", "sweep.case_timeout"} <= set(keys), keys
    text = str(info.value)
    assert text.startswith(f"{path}: ") and "Did you mean 'clearance'?" in text
    assert "Did you mean 'n_impacts'?" in text and "Did you mean 'name'?" in text


def test_sweep_keys_follow_the_schema_tree_of_a_pressure_study(registry):
    doc = _pressure_doc()
    assert check_path(doc, parse_path("models.fem.mesh_growth"), registry=registry) is None
    assert check_path(doc, parse_path("cases[0].worn_depth"), registry=registry) is None
    why = check_path(doc, parse_path("models.fem.mesh_grwth"), registry=registry)
    assert "Did you mean 'mesh_growth'?" in why
    assert key_units(doc, parse_path("cases[0].bore_radius"), registry) == "m"
    assert key_units(doc, parse_path("models.winkler_textbook.layer_thickness"), registry) == "m"


def test_validate_loads_every_case_of_a_sweep(tmp_path, registry):
    """A case that the schema accepts but the model refuses for its joint (hertz with exponent 2
    has no default stiffness) is found by validate, named with its case and key, not at run time."""
    from workbench.sweeps.spec import check_cases, load_sweep
    path = _sweep(tmp_path, {"mechanism.clearance_joints[0].contact": {
        "values": [{"model": "hertz"}, {"model": "hertz", "exponent": 2.0}], "labels": ["n15", "n2"]}})
    sw = load_sweep(path, registry=registry)          # the file itself is fine
    with pytest.raises(StudyError) as info:
        check_cases(sw, registry=registry)
    msg = str(info.value)
    assert msg.startswith(f"{path}: [grid]: case 1 (contact = 'n2')")
    assert "[mechanism.clearance_joints[0].contact.exponent]" in msg and "n15" not in msg
    r = invoke("validate", path)
    assert r.exit_code == 2 and "case 1 (contact = 'n2')" in " ".join(r.output.split()), r.output
    good = _sweep(tmp_path, {"mechanism.clearance_joints[0].contact.restitution": [0.9, 0.95]}, name="g.toml")
    r = invoke("validate", good)
    assert r.exit_code == 0 and "2 dynamics cases over restitution (2)" in r.output, r.output


def test_a_study_is_still_validated_as_a_study(registry):
    assert load_study(FLORES, registry=registry).kind == "dynamics"
    r = invoke("validate", FLORES)
    assert r.exit_code == 0 and "dynamics study" in r.output


def test_the_schema_tree_reaches_every_section():
    """The tree the JSON Schema and the sweep key paths follow holds every documented section."""
    from workbench.study import schema as S
    from workbench.schema import pressure as P
    reached = set()
    for node in list(S.TREE.values()) + list(P.TREE.values()):
        if isinstance(node, dict):
            reached.update(id(s) for s in node.values())
        elif not isinstance(node, tuple):
            reached.add(id(node))
    missing = [s.path for s in S.SECTIONS + P.SECTIONS if id(s) not in reached]
    assert not missing, missing


@pytest.mark.slow   # loads every case of the shipped sweeps (13 + 9 cases, ~30 s)
@pytest.mark.parametrize("name", ["contact_law_comparison.toml", "wear_model_comparison.toml"])
def test_every_case_of_the_shipped_sweeps_validates(name, registry):
    from workbench.sweeps.spec import check_cases, load_sweep
    sw = load_sweep(STUDIES / name, registry=registry)
    check_cases(sw, registry=registry)
