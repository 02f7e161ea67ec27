"""``workbench rerun``: a result reproduced from the file alone, and what stands in the way named."""
import json
from pathlib import Path

import xarray as xr
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.results.dataset import ENGINE

ROOT = Path(__file__).resolve().parents[2]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "250"})


def _short_flores(tmp_path) -> Path:
    text = (ROOT / "studies" / "flores_slider_crank.toml").read_text()
    study = tmp_path / "flores_short.toml"
    study.write_text(text.replace("revolutions = 2 ", "t_end = 0.003 #"))
    return study


def test_rerun_of_a_dynamics_result_is_bit_identical(tmp_path):
    study = _short_flores(tmp_path)
    r = invoke("run", study, "-o", tmp_path / "a.nc", "--no-plot")
    assert r.exit_code == 0, r.output
    r = invoke("rerun", tmp_path / "a.nc", "-o", tmp_path / "b.nc")
    assert r.exit_code == 0, r.output
    assert "bit-identical" in r.output and "reproduced" in r.output
    with xr.open_dataset(tmp_path / "a.nc", engine=ENGINE) as a, xr.open_dataset(tmp_path / "b.nc", engine=ENGINE) as b:
        for name in a.data_vars:
            xr.testing.assert_identical(a[name], b[name])
        assert a.attrs["study_text"] == b.attrs["study_text"]


def test_rerun_names_a_missing_plugin_and_a_changed_input(tmp_path):
    study = _short_flores(tmp_path)
    assert invoke("run", study, "-o", tmp_path / "a.nc", "--no-plot").exit_code == 0
    with xr.open_dataset(tmp_path / "a.nc", engine=ENGINE) as ds:
        ds = ds.load()
    ds.attrs["study_text"] = ds.attrs["study_text"].replace('"lankarani_nikravesh"', '"my_law"')
    plugins = json.loads(ds.attrs["plugins"])
    plugins["contact:my_law"] = "my-laws 1.2 (plugin my_law)"
    ds.attrs["plugins"] = json.dumps(plugins)
    files = json.loads(ds.attrs["input_files"])
    (tmp_path / "mesh.vtu").write_text("now")
    files["mesh.vtu"] = "sha256:" + "0" * 64
    ds.attrs["input_files"] = json.dumps(files)
    ds.to_netcdf(tmp_path / "edited.nc", engine=ENGINE)
    r = invoke("rerun", tmp_path / "edited.nc", "-o", tmp_path / "b.nc")
    assert r.exit_code == 2, r.output
    assert "contact model 'my_law' is not installed" in r.output and "my-laws" in r.output
    assert "mesh.vtu has changed" in r.output
    assert not (tmp_path / "b.nc").exists()


def test_rerun_of_a_wear_result_agrees_within_its_standard_errors(tmp_path):
    """The journal-wear rig over 600 cycles (its 2000 until the default suite had to get back under
    8 minutes on 2 cores): a wear result with a jump and its standard errors all the same, which is
    what ``rerun`` compares."""
    rig = tmp_path / "rig.toml"
    text = (ROOT / "studies" / "journal_wear_constant_load.toml").read_text()
    assert "cycles = 2000.0" in text
    rig.write_text(text.replace("cycles = 2000.0", "cycles = 600.0"))
    assert invoke("run", rig, "-o", tmp_path / "w.zarr", "--no-plot").exit_code == 0
    r = invoke("rerun", tmp_path / "w.zarr", "-o", tmp_path / "again.zarr")
    assert r.exit_code == 0, r.output
    assert "reproduced" in r.output and "not reproduced" not in r.output


def test_rerun_of_a_study_changed_in_python(tmp_path):
    import dataclasses
    import workbench
    study = workbench.load_study(str(ROOT / "studies" / "flores_slider_crank.toml"))
    short = dataclasses.replace(study, solver=dataclasses.replace(study.solver, t_end=0.002))
    workbench.run(short, out=tmp_path / "a.nc")
    r = invoke("rerun", tmp_path / "a.nc", "-o", tmp_path / "b.nc")
    assert r.exit_code == 0, r.output
    assert "bit-identical" in r.output
    with xr.open_dataset(tmp_path / "b.nc", engine=ENGINE) as b:
        assert json.loads(b.attrs["study_changes"]) == ["solver.t_end: 0.024 -> 0.002"]
