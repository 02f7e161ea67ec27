"""CF-clean result files: no _FillValue on coordinates, history, standard_name of time, string
coordinates without units, units that pint reads to what they mean, and IOOS compliance-checker
cf:1.10 on a result of each study kind (when the checker is installed)."""
import json
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from workbench.results.cf import cf_clean, cf_encoding, per_cycle
from workbench.results.dataset import ENGINE, write_dataset

ROOT = Path(__file__).resolve().parents[2]

#: the one finding of cf:1.10 we keep, on purpose: ``time`` is simulated time in s from the start
#: of the run, not a calendar time with a reference epoch ("s since ..."), which xarray would
#: decode to dates; CF has no standard name for elapsed time
ACCEPTED = ("time must be in a valid units format", "time does not have correct time units")


def _toy():
    t = xr.Variable(("time",), np.linspace(0, 1, 5), {"units": "s", "long_name": "time"})
    j = xr.Variable(("joint",), np.array(["A", "B"]), {"units": "1", "long_name": "joint"})
    rate = xr.Variable(("joint", "time"), np.ones((2, 5)), {"units": "m/cycle", "long_name": "wear per cycle"})
    return xr.Dataset({"rate": rate}, coords={"time": t, "joint": j}, attrs={"history": "x"})


def test_cf_clean_attributes_and_no_fill_value_on_coordinates(tmp_path):
    path = write_dataset(_toy(), tmp_path / "t.nc")
    import netCDF4
    with netCDF4.Dataset(path) as nc:
        for name in ("time", "joint"):
            assert "_FillValue" not in nc.variables[name].ncattrs(), name
        assert nc.variables["time"].standard_name == "time" and nc.variables["time"].axis == "T"
        assert "units" not in nc.variables["joint"].ncattrs()
        assert nc.variables["rate"].units == "m" and nc.variables["rate"].units_per == "cycle"


def test_per_cycle_units_parse_to_what_they_mean():
    pint = pytest.importorskip("pint")
    ureg = pint.UnitRegistry()
    assert ureg.parse_units("m/cycle") != ureg.parse_units("m")     # the trap: pint's cycle is 2 pi rad
    unit, extra = per_cycle("m^3/cycle")
    assert ureg.parse_units(unit) == ureg.parse_units("m^3") and extra["units_per"] == "cycle"
    try:
        import cf_units
    except ImportError:
        return
    assert cf_units.Unit(unit).is_convertible(cf_units.Unit("mm3"))


def test_encoding_keeps_other_settings():
    enc = cf_encoding(_toy(), {"rate": {"zlib": True}})
    assert enc["rate"] == {"zlib": True} and enc["time"] == {"_FillValue": None}


def _errors(path: Path) -> list[str]:
    cc = pytest.importorskip("compliance_checker.runner", reason="compliance-checker is not installed "
                             "(pip install compliance-checker)")
    from compliance_checker.suite import CheckSuite
    CheckSuite.load_all_available_checkers()
    suite = CheckSuite()
    ds = suite.load_dataset(str(path))
    groups = suite.run_all(ds, ["cf:1.10"], skip_checks=[])
    errors = []
    for result in groups["cf:1.10"][0]:
        if result.weight == 3 and result.value and isinstance(result.value, tuple) \
                and result.value[0] < result.value[1]:
            errors += [m for m in result.msgs if not any(a in m for a in ACCEPTED)]
    return errors


def test_the_checker_test_finds_errors(tmp_path):
    pytest.importorskip("compliance_checker")
    _toy().to_netcdf(tmp_path / "raw.nc", engine=ENGINE)     # time with _FillValue, no standard_name
    assert any("_FillValue" in e for e in _errors(tmp_path / "raw.nc"))


def test_compliance_checker_dynamics_result(tmp_path):
    pytest.importorskip("compliance_checker")
    import workbench
    study = workbench.load_study((ROOT / "studies" / "flores_slider_crank.toml").read_text()
                                 .replace("revolutions = 2 ", "t_end = 0.002 #"))
    ds = workbench.run(study, out=tmp_path / "d.nc")
    assert "history" in ds.attrs
    assert _errors(tmp_path / "d.nc") == []


def test_compliance_checker_wear_result(tmp_path):
    pytest.importorskip("compliance_checker")
    import workbench
    rig = ROOT / "studies" / "journal_wear_constant_load.toml"
    study = workbench.load_study(str(rig))
    ds = workbench.run(study, out=tmp_path / "w.zarr", max_updates=1)
    write_dataset(workbench.open_results(tmp_path / "w.zarr"), tmp_path / "w.nc")
    assert _errors(tmp_path / "w.nc") == []
    assert json.loads(ds.attrs["input_files"])


def test_compliance_checker_pressure_result(tmp_path):
    pytest.importorskip("compliance_checker")
    import sys
    sys.path.insert(0, str(ROOT / "tests" / "kinds"))
    from test_kinds import PRESSURE_TEXT
    import workbench
    study = workbench.load_study(PRESSURE_TEXT)
    workbench.run(study, out=tmp_path / "p.nc")
    assert _errors(tmp_path / "p.nc") == []
