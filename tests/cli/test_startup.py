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

from workbench.results.outputs import dataset_attrs, is_our_dataset
from workbench.results.dataset import ENGINE, open_results, write_dataset

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"


def test_validate_imports_neither_the_results_libraries_nor_rich():
    """``validate`` compiles the mechanism (numba) but writes nothing: xarray, pandas, the netCDF
    engines, dask and matplotlib stay unimported, and its lines are printed without rich."""
    code = textwrap.dedent(f"""
        import sys
        from workbench.cli.main import main
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
    from workbench.results.cf import cf_clean
    xr.testing.assert_identical(back, cf_clean(ds))   # the CF attributes the writer adds
    with xr.open_dataset(path, engine="h5netcdf") as other:   # the other engine reads it too
        xr.testing.assert_identical(other.load(), cf_clean(ds))
    attrs = dataset_attrs(path)
    assert attrs["study_text"] == ds.attrs["study_text"] and isinstance(attrs["study_text"], str)
    assert is_our_dataset(path)
    ds2 = _dataset("plain ascii")
    write_dataset(ds2, path)     # replacing a result of ours
    xr.testing.assert_identical(open_results(path), cf_clean(ds2))
    assert ENGINE == "netcdf4"


def test_results_written_by_h5netcdf_still_open(tmp_path):
    """A result written before the engine changed (h5netcdf) opens as before."""
    ds = _dataset("old result")
    path = tmp_path / "old.nc"
    ds.to_netcdf(path, engine="h5netcdf")
    xr.testing.assert_identical(open_results(path), ds)
    assert is_our_dataset(path)


# --- startup: plots through a min/max envelope, dask hidden from the command's process (begin)
def test_the_envelope_keeps_every_extreme_of_every_pixel_column():
    """A noisy series with one-sample spikes (up and down, in 40 different pixel columns), reduced
    to 300 pixel columns: the global extremes, every spike, and the smallest and largest sample of
    every run of samples survive; at
    most two samples per column (plus both ends) are kept, in order; a short or non-finite series
    is returned as is."""
    from workbench.results.plot import envelope
    rng = np.random.default_rng(7)
    n, columns = 100_003, 300
    x = np.linspace(0.0, 720.0, n)
    y = rng.normal(size=n)
    k = -(-n // columns)                                     # samples per run of the envelope
    spikes = rng.choice(columns - 1, 40, replace=False) * k + rng.integers(0, k, 40)  # one per run
    y[spikes[:20]] += 1e3
    y[spikes[20:]] -= 1e3
    xe, ye = envelope(x, y, columns)
    assert len(xe) <= 2 * columns + 2 and len(xe) < n
    assert ye.max() == y.max() and ye.min() == y.min()
    assert set(y[spikes]) <= set(ye)                        # every spike, not only the largest
    assert np.all(np.diff(xe) > 0) and xe[0] == x[0] and xe[-1] == x[-1] and ye[-1] == y[-1]
    for start in range(0, n, k):                             # every run's own extremes
        run = y[start:start + k]
        assert run.max() in ye and run.min() in ye
    kept = np.searchsorted(x, xe)
    np.testing.assert_array_equal(y[kept], ye)              # samples of the series, not new values
    short = np.arange(600.0)
    assert envelope(short, short, columns)[1] is short
    holes = y.copy()
    holes[5] = np.nan
    assert len(envelope(x, holes, columns)[1]) == n


def test_the_command_hides_dask_and_writes_the_same_file(tmp_path):
    """In a process of its own, every command but ``sweep`` makes dask unimportable; xarray then
    builds and writes a dataset without importing dask, and the file holds the same data as one
    written with dask importable (this process)."""
    from workbench.cli.startup import hide_dask
    ds = _dataset("same data")
    ref = write_dataset(ds, tmp_path / "with_dask.nc")
    out = tmp_path / "hidden.nc"
    code = textwrap.dedent(f"""
        import sys
        from workbench.cli.startup import hide_dask
        print(hide_dask("sweep"), "dask" in sys.modules)
        print(hide_dask("run"), hide_dask("run"))
        sys.path.insert(0, {str(ROOT / "tests" / "cli")!r})
        from test_startup import _dataset, write_dataset
        ds = _dataset("same data")
        write_dataset(ds, {str(out)!r})
        print(",".join(m for m in sys.modules if m.split(".")[0] in ("dask", "distributed")
                       and sys.modules[m] is not None) or "-")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["False False", "True True", "-"]
    xr.testing.assert_identical(open_results(out), open_results(ref))
    assert hide_dask("sweep") is False


def test_a_run_from_the_command_imports_no_dask(tmp_path):
    """``python -m workbench.cli.main run`` (the console script's path, :func:`workbench.cli.main.entry`) of
    a short Flores run leaves dask and distributed unimported, and its file holds the data of the
    same study run from Python, where dask stays importable."""
    import workbench
    study = tmp_path / "flores.toml"
    study.write_text(FLORES.read_text().replace("revolutions = 2 ", "t_end = 0.001 "))
    out, loaded = tmp_path / "flores.nc", tmp_path / "loaded.txt"
    code = textwrap.dedent(f"""
        import atexit, runpy, sys
        def report():
            with open({str(loaded)!r}, "w") as f:
                f.write(" ".join(m for m, mod in sys.modules.items() if mod is not None))
        atexit.register(report)
        sys.argv = ["workbench", "run", {str(study)!r}, "-o", {str(out)!r}, "--no-plot"]
        runpy.run_module("workbench.cli.main", run_name="__main__", alter_sys=True)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    imported = loaded.read_text().split()
    assert "xarray" in imported and "netCDF4" in imported
    assert not [m for m in imported if m.split(".")[0] in ("dask", "distributed")]
    xr.testing.assert_equal(open_results(out), workbench.run(study))
# --- startup (end)


# --- startup: the end of a command's process (begin)
def test_a_command_ends_its_process_with_its_status_and_atexit_functions_run(tmp_path):
    """``exit_now``: the exit status of the command (0, or 2 for a bad study), its output flushed,
    and the ``atexit`` functions run (a coverage tool's, a user's) before the process ends."""
    marker = tmp_path / "atexit.txt"
    code = textwrap.dedent(f"""
        import atexit, runpy, sys
        atexit.register(lambda: open({str(marker)!r}, "a").write(sys.argv[2] + "\\n"))
        runpy.run_module("workbench.cli.main", run_name="__main__", alter_sys=True)
    """)
    ok = subprocess.run([sys.executable, "-c", code, "validate", str(FLORES)], capture_output=True,
                        text=True, cwd=ROOT, timeout=600)
    bad = subprocess.run([sys.executable, "-c", code, "validate", str(tmp_path / "missing.toml")],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert ok.returncode == 0 and ok.stdout.startswith(f"ok {FLORES}: dynamics study"), ok.stderr
    assert bad.returncode == 2 and "missing.toml" in bad.stderr and "cannot read" in bad.stderr
    assert marker.read_text().split() == [str(FLORES), str(tmp_path / "missing.toml")]


def test_exit_now_leaves_a_sweep_a_living_thread_or_the_opt_out_to_python(monkeypatch):
    """The cases where the process must end the normal way: ``exit_now`` returns (the caller
    then raises its ``SystemExit``)."""
    import threading

    from workbench.cli.startup import FAST_EXIT_ENV, exit_now
    dask_entry = sys.modules.get("dask", "absent")
    try:
        if dask_entry is None:
            del sys.modules["dask"]
        assert exit_now(0, "sweep") is None                # a sweep's dask cluster
    finally:
        if dask_entry is None:
            sys.modules["dask"] = None
    monkeypatch.setenv(FAST_EXIT_ENV, "0")
    assert exit_now(0, "run") is None                      # the opt-out
    monkeypatch.delenv(FAST_EXIT_ENV)
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, daemon=False)
    worker.start()
    try:
        assert exit_now(0, "run") is None                  # a non-daemon thread still working
    finally:
        stop.set()
        worker.join()
# --- startup (end)
