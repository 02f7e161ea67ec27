"""The Python API (workbench.load_study / run / sweep / registry): a dynamics and a wear run from
Python, nothing written unless asked, the same numbers as the written result."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import workbench
from workbench import api
from workbench.errors import WorkbenchError

ROOT = Path(__file__).resolve().parents[1]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_the_api_is_reachable_from_the_package_top_lazily():
    """``import workbench`` does not import the API, the kinds or xarray; the names resolve on use."""
    code = ("import sys, workbench; assert 'workbench.api' not in sys.modules; "
            "assert 'workbench.kinds' not in sys.modules; "
            "assert callable(workbench.run) and callable(workbench.load_study); "
            "assert callable(workbench.sweep) and callable(workbench.registry); "
            "import workbench.sweeps.run; assert callable(workbench.sweep)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)
    assert set(api.__all__) <= set(workbench.__all__)


def test_a_dynamics_run_from_python_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = FLORES.read_text().replace("revolutions = 2 ", "t_end = 0.001 ")   # its first 60 deg
    assert "t_end = 0.001" in text
    study = workbench.load_study(text)                              # TOML text
    ds = workbench.run(study)
    assert _tree(tmp_path) == []
    assert ds.attrs["study_kind"] == "dynamics" and ds.sizes["time"] > 10
    assert "ideal_contact_force" in ds and ds.attrs["ideal_twin_status"] == "ok"
    # written when asked: the same numbers in the file
    out = workbench.run(study, tmp_path / "flores.nc")
    back = workbench.open_results(tmp_path / "flores.nc")
    np.testing.assert_array_equal(back["contact_force"].values, ds["contact_force"].values)
    np.testing.assert_array_equal(out["position"].values, ds["position"].values)
    with pytest.raises(WorkbenchError, match="--overwrite|overwrite"):
        workbench.run(study, tmp_path / "flores.nc")     # never replaced unless asked


def test_a_wear_run_from_python_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = set(Path(os.environ.get("TMPDIR", "/tmp")).glob("workbench-wear-*"))
    study = workbench.load_study(RIG)                               # a path
    ds = workbench.run(study, max_updates=2)
    assert _tree(tmp_path) == []
    assert set(Path(os.environ.get("TMPDIR", "/tmp")).glob("workbench-wear-*")) == before  # removed
    assert ds.attrs["study_kind"] == "wear" and ds.sizes["cycle"] == 2
    assert float(ds["wear_volume"].isel(cycle=-1).sel(surface="bushing").max()) > 0.0
    # the same run written to a store gives the same numbers
    stored = workbench.run(study, tmp_path / "rig.zarr", max_updates=2)
    np.testing.assert_array_equal(stored["wear_depth"].values, ds["wear_depth"].values)


def test_load_study_errors_name_the_problem():
    with pytest.raises(WorkbenchError, match="nope.toml"):
        workbench.load_study("nope.toml")
    with pytest.raises(WorkbenchError, match="expected a path or TOML text"):
        workbench.load_study(42)


def test_registry_lists_the_installed_models():
    reg = workbench.registry()
    assert reg is workbench.get_registry()                    # built once per process
    assert "hertz" in reg.names("contact") and "winkler" in reg.names("pressure")


def test_a_sweep_from_python_leaves_no_file_unless_asked(tmp_path, monkeypatch):
    """Two 1 ms cases of the Flores study, run in this process; without ``out`` the case results
    go to a temporary folder that is removed (``case_file`` blank), the summaries come back; the
    summary dataset carries the one provenance (``Conventions``, ``plugins``, ``created``)."""
    import tomli_w
    sweep_file = tmp_path / "in" / "sweep.toml"
    sweep_file.parent.mkdir()
    sweep_file.write_text(tomli_w.dumps({
        "sweep": {"title": "api sweep", "base": str(FLORES), "summary": ["n_impacts"],
                  "unset": ["solver.revolutions"]},
        "set": {"solver.t_end": 1.0e-3, "output.compare_ideal": False},
        "grid": {"mechanism.clearance_joints[0].contact.restitution": [0.9, 0.95]}}))
    monkeypatch.chdir(tmp_path)
    ds = workbench.sweep(sweep_file)
    assert _tree(tmp_path) == ["in", "in/sweep.toml"]
    assert list(ds["status"].values) == ["ok", "ok"], ds["error"].values
    assert list(ds["case_file"].values) == ["", ""]
    assert (ds["n_impacts"].values >= 1).all()
    assert ds.attrs["study_kind"] == "sweep" and ds.attrs["Conventions"] == "CF-1.10"
    assert "contact:lankarani_nikravesh" in ds.attrs["plugins"] and "T" in ds.attrs["created"]
    pint = pytest.importorskip("pint", reason="pint is in the test extra: pip install -e '.[test]'")
    ureg = pint.UnitRegistry()
    for name in ds.variables:                     # the sweep dataset's units parse too
        if name in ds.coords and ds[name].dtype.kind in "USO":
            assert "units" not in ds[name].attrs, name      # names are not quantities (CF)
            continue
        ureg.parse_units(ds[name].attrs["units"])


# ------------------------------------------------------------------ a Python API that feels like Python
def test_dir_lists_the_api():
    import workbench
    names = dir(workbench)
    for name in ("load_study", "run", "sweep", "change", "to_toml", "open_results", "plots", "compare",
                 "Progress", "registry", "__version__"):
        assert name in names, name


def test_sweep_takes_a_study_object_and_a_grid(tmp_path, monkeypatch):
    import workbench
    monkeypatch.chdir(tmp_path)
    study = workbench.load_study(str(Path(__file__).resolve().parents[1] / "studies" / "flores_slider_crank.toml"))
    short = workbench.change(study, {"solver.revolutions": None, "solver.t_end": 0.002, "output.compare_ideal": False})
    ds = workbench.sweep(short, {"mechanism.clearance_joints[0].contact.restitution": [0.85, 0.95]},
                         summary=["n_impacts"])
    assert list(ds["status"].values) == ["ok", "ok"]
    assert ds.sizes[next(iter(ds["n_impacts"].dims))] == 2
    assert list(tmp_path.iterdir()) == []          # nothing left behind


def test_progress_callback_gets_a_record_or_the_three_values():
    from workbench.runtime.progress import Progress, caller
    got = []
    caller(lambda p: got.append(p))(Progress(done=5, total=10, update=2, info="x"))
    caller(lambda done, total, info: got.append((done, total, info)))(Progress(done=5, total=10, info="x"))
    assert got[0].fraction == 0.5 and got[0].update == 2 and got[1] == (5, 10, "x")
