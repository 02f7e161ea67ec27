"""Start-up: what ``workbench validate`` imports, and the netCDF engine's files (no timing here:
``tests/benchmarks/bench_startup.py`` measures the times)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import xarray as xr

from workbench.outputs import dataset_attrs, is_our_dataset
from workbench.results import ENGINE, open_results, write_dataset

ROOT = Path(__file__).resolve().parents[1]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"


def test_validate_imports_neither_the_results_libraries_nor_rich():
    """``validate`` compiles the mechanism (numba) but writes nothing: xarray, pandas, the netCDF
    engines, dask and matplotlib stay unimported, and its lines are printed without rich."""
    code = textwrap.dedent(f"""
        import sys
        from workbench.cli import main
        try:
            main(["validate", {str(FLORES)!r}])
        except SystemExit as exc:
            code = exc.code
        heavy = ("xarray", "pandas", "netCDF4", "h5netcdf", "dask", "distributed", "matplotlib", "rich")
        print("loaded:", ",".join(m for m in heavy if m in sys.modules) or "-", "exit:", code)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith(f"ok {FLORES}: dynamics study")
    assert r.stdout.splitlines()[-1] == "loaded: - exit: 0"


def _dataset(text: str) -> xr.Dataset:
    return xr.Dataset(
        {"contact_force": (("time",), np.linspace(0.0, 1.0, 2000), {"units": "N", "long_name": "force"}),
         "label": (("body",), np.array(["Kurbel µ", ""]), {"units": "1", "long_name": "label"})},
        coords={"time": ("time", np.arange(2000) * 1e-5, {"units": "s", "long_name": "time"}),
                "body": ("body", np.array(["crank", "Pleuel ×"]), {"units": "1", "long_name": "body"})},
        attrs={"study_kind": "dynamics", "workbench_version": "0+test", "study_text": text,
               "slider_axis": [1.0, 0.0], "solver_steps": 7})


def test_the_engine_round_trips_non_ascii_text_and_our_files_stay_recognised(tmp_path):
    """The netCDF-C library stores a non-ASCII string attribute as a one-element NC_STRING array;
    the result still reads back identical through xarray, and the check that a file is ours (read
    with h5py) still sees the attribute's text, so ``--overwrite`` may replace it."""
    ds = _dataset('title = "Lagerspiel µm × 2"\n' * 50)
    path = write_dataset(ds, tmp_path / "run.nc")
    back = open_results(path)
    xr.testing.assert_identical(back, ds)
    with xr.open_dataset(path, engine="h5netcdf") as other:   # the other engine reads it too
        xr.testing.assert_identical(other.load(), ds)
    attrs = dataset_attrs(path)
    assert attrs["study_text"] == ds.attrs["study_text"] and isinstance(attrs["study_text"], str)
    assert is_our_dataset(path)
    ds2 = _dataset("plain ascii")
    write_dataset(ds2, path)     # replacing a result of ours
    xr.testing.assert_identical(open_results(path), ds2)
    assert ENGINE == "netcdf4"


def test_results_written_by_h5netcdf_still_open(tmp_path):
    """A result written before the engine changed (h5netcdf) opens as before."""
    ds = _dataset("old result")
    path = tmp_path / "old.nc"
    ds.to_netcdf(path, engine="h5netcdf")
    xr.testing.assert_identical(open_results(path), ds)
    assert is_our_dataset(path)
