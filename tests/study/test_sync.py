"""A study's stored text says what ran: round trips, changes made in Python, refusals."""
import dataclasses
import tomllib
from pathlib import Path

import pytest
import tomli_w

from workbench.errors import StudyError
from workbench.study.load import load_study, load_study_text
from workbench.study.sync import change, diff, state, synced, to_toml

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"


@pytest.mark.parametrize("name", ["flores_slider_crank", "slider_crank_wear", "mixed_clearance_slider_crank_c005",
                                  "flexible_slider_crank_c005", "winkler_vs_fem"])
def test_toml_study_toml_study_round_trip_gives_an_equal_study(name, registry):
    path = ROOT / "studies" / f"{name}.toml"
    s1 = load_study(path, registry=registry)
    regenerated = tomli_w.dumps(tomllib.loads(to_toml(s1, registry=registry)))
    s2 = load_study_text(regenerated, file=path, registry=registry)
    assert diff(state(s1), state(s2)) == []
    assert load_study_text(to_toml(s2, registry=registry), file=path, registry=registry) is not None


def _changed(study):
    cj = study.mechanism.clearance_joints[0]
    mech = dataclasses.replace(study.mechanism, clearance_joints=(dataclasses.replace(cj, bushing_radius=0.0102),))
    return dataclasses.replace(study, mechanism=mech, solver=dataclasses.replace(study.solver, t_end=0.002))


def test_a_study_changed_with_dataclasses_replace_gets_its_text_regenerated(registry):
    s = load_study(FLORES, registry=registry)
    ran = synced(_changed(s), registry=registry)
    doc = tomllib.loads(ran.text)
    assert doc["mechanism"]["clearance_joints"][0]["bushing_radius"] == 0.0102
    assert doc["solver"]["t_end"] == 0.002 and "revolutions" not in doc["solver"]
    assert ran.changes == ("mechanism.clearance_joints[0].bushing_radius: 0.0105 -> 0.0102",
                           "solver.t_end: 0.024 -> 0.002")
    assert diff(state(ran), state(_changed(s))) == []
    again = load_study_text(to_toml(ran, registry=registry), file=FLORES, registry=registry)
    assert diff(state(again), state(ran)) == []          # TOML -> Study -> TOML -> Study


def test_an_unchanged_study_keeps_its_text_and_file(registry):
    s = load_study(FLORES, registry=registry)
    assert synced(s, registry=registry) is s
    same = dataclasses.replace(s, warnings=("a note",))   # not part of what runs
    assert synced(same, registry=registry) is same


def test_change_edits_toml_keys_and_records_them(registry):
    s = change(load_study(FLORES, registry=registry),
               {"mechanism.clearance_joints[0].contact.restitution": 0.8}, registry=registry)
    assert s.mechanism.clearance_joints[0].contact.params.restitution == 0.8
    assert s.changes == ("mechanism.clearance_joints[0].contact.restitution: 0.9 -> 0.8",)
    with pytest.raises(StudyError, match="no such table"):
        change(s, {"mechanism.clearance_joints[5].length": 0.1}, registry=registry)


def test_a_change_with_no_place_in_a_study_file_is_refused(registry):
    s = load_study(FLORES, registry=registry)
    odd = dataclasses.replace(s, solver=dataclasses.replace(s.solver, max_steps="many"))
    with pytest.raises(StudyError, match="workbench.change"):
        synced(odd, registry=registry)


def test_a_run_stores_the_regenerated_text_and_the_changes(registry):
    import json
    import workbench
    ds = workbench.run(_changed(load_study(FLORES, registry=registry)), registry=registry)
    assert tomllib.loads(ds.attrs["study_text"])["mechanism"]["clearance_joints"][0]["bushing_radius"] == 0.0102
    assert len(json.loads(ds.attrs["study_changes"])) == 2
    assert float(ds["time"][-1]) == pytest.approx(0.002)
    assert "Infinity" not in ds.attrs["solver_settings"]
    models = json.loads(ds.attrs["joint_models"])
    assert isinstance(models["B"]["contact"]["parameters"]["stiffness"], float)
