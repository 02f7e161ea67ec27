"""Provenance a colleague can reproduce from: code version and commit, the numerical stack, input
file hashes, derived parameters as numbers, strict JSON attributes."""
import json
import math
import subprocess
from pathlib import Path

import pytest

from workbench.results import provenance as P
from workbench.results.dataset import model_info, provenance
from workbench.results.variables import json_attr

ROOT = Path(__file__).resolve().parents[2]


def test_json_attr_is_strict_json_with_nonfinite_floats_as_strings():
    text = json_attr({"a": math.inf, "b": [-math.inf, math.nan, 1.5], "c": None})
    assert "Infinity" not in text and "NaN" not in text
    back = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    assert back == {"a": "inf", "b": ["-inf", "nan", 1.5], "c": None}
    assert P.unstrict(back)["a"] == math.inf and math.isnan(P.unstrict(back)["b"][1])


def test_environment_names_the_numerical_stack_and_platform():
    env = P.environment()
    for name in ("numpy", "scipy", "numba", "xarray", "zarr", "scikit-fem", "netCDF4"):
        assert env["packages"][name] != "not installed", name
    assert env["platform"] and env["python"]


def test_code_version_has_the_commit_of_a_checkout():
    P.code_version.cache_clear()
    info = P.code_version()
    assert info["workbench_version"]
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    assert info["git_commit"] == head.stdout.strip()
    assert info["git_dirty"] in (0, 1)


def test_code_version_is_silent_outside_a_checkout(monkeypatch, capfd):
    monkeypatch.setattr(P.subprocess, "run", lambda *a, **k: (_ for _ in ()).throw(FileNotFoundError("git")))
    P.code_version.cache_clear()
    try:
        info = P.code_version()
    finally:
        P.code_version.cache_clear()
    assert set(info) == {"workbench_version"}
    assert capfd.readouterr() == ("", "")


def test_provenance_hashes_every_file_the_study_names(tmp_path):
    mesh = tmp_path / "m.vtu"
    mesh.write_bytes(b"mesh data")
    study = tmp_path / "s.toml"
    text = '[study]\nkind = "pressure"\n[x]\nmesh = "m.vtu"\n'
    study.write_text(text)
    attrs = provenance(kind="pressure", text=text, file=study)
    files = json.loads(attrs["input_files"])
    import hashlib
    assert files["m.vtu"] == "sha256:" + hashlib.sha256(b"mesh data").hexdigest()
    assert files["s.toml"] == "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    assert attrs["history"] and "environment" in attrs


def test_a_derived_contact_stiffness_is_stored_as_the_number_used(registry):
    from workbench.models import ContactGeometry
    law = registry.create("contact", "lankarani_nikravesh", {"restitution": 0.9})
    geo = ContactGeometry("cylindrical", 0.0100, 0.0105, 0.01)
    info = model_info(law, registry, geo)
    assert info["parameters"]["stiffness"] == pytest.approx(geo.default_stiffness(), rel=1e-12)
    assert info["derived"] == ["stiffness"]
    assert info["packed"]["stiffness"] == info["parameters"]["stiffness"]
