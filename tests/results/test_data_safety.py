"""A user's files are sacred: where results may be written, and what a failing run keeps.

Each case observed by a hostile user (see the module docstring of :mod:`workbench.results.outputs`) is
a test here: the command refuses with a clear message (exit status 2, no traceback) or does the
safe thing, and every input and every file that was there before is unchanged, byte for byte and
modification time (:func:`snapshot`).  Locks, kills and ``--overwrite`` of wear stores are in
tests/wear/test_store_lock.py, sweeps in tests/sweeps/test_sweep_safety.py.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import zarr
from click.testing import CliRunner

from workbench.cli.main import EXIT_INTERRUPTED, main
from workbench.errors import SolverError
from workbench.results.outputs import input_paths, is_our_dataset, is_our_store
from workbench.study.load import load_study_text
from workbench.wear.store import COMPLETED, open_store
from study_helpers import sigint_as_in_a_terminal

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"
#: a 2 ms run of the Flores slider-crank (a few seconds once compiled)
SHORT = FLORES.read_text().replace("revolutions = 2            # t_end = 2 * 60/5000 s = 0.024 s",
                                   "t_end = 0.002")
RIG_SHORT = RIG.read_text().replace("cycles = 2000.0", "cycles = 600.0")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "250"})


def snapshot(folder: Path) -> dict:
    """Every file under ``folder``: (bytes, mtime_ns)."""
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def short_study(tmp_path):
    study = tmp_path / "short.toml"
    study.write_text(SHORT)
    return study


def _refused(r, *words):
    assert r.exit_code == 2, r.output
    assert isinstance(r.exception, SystemExit) and "Traceback" not in r.output
    for w in words:
        assert w in r.output, (w, r.output)


# ------------------------------------------------------------------------------------------------
# output paths
# ------------------------------------------------------------------------------------------------
def test_output_onto_the_study_file_is_refused(tmp_path, short_study):
    before = snapshot(tmp_path)
    _refused(invoke("run", short_study, "-o", short_study), "is an input of the run")
    assert snapshot(tmp_path) == before


def test_output_onto_a_file_the_study_reads_is_refused(tmp_path):
    """The FE pressure study reads meshes and a worn profile from an earlier wear result (a .nc
    of ours): a run must not write over it, even with --overwrite."""
    import shutil
    shutil.copytree(ROOT / "meshes", tmp_path / "meshes", ignore=shutil.ignore_patterns("*.py"))
    shutil.copytree(ROOT / "studies" / "data", tmp_path / "studies" / "data")
    study = tmp_path / "studies" / "winkler_vs_fem.toml"
    shutil.copy(ROOT / "studies" / "winkler_vs_fem.toml", study)
    profile = tmp_path / "studies" / "data" / "slider_crank_wear_final.nc"
    mesh = tmp_path / "meshes" / "bronze_bushing_n720.vtu"
    assert {profile.resolve(), mesh.resolve(), study.resolve()} <= set(input_paths(study))
    before = snapshot(tmp_path)
    _refused(invoke("run", study, "-o", profile, "--overwrite"), "is an input of the run")
    _refused(invoke("run", study, "-o", mesh), "is an input of the run")
    _refused(invoke("run", study, "-o", tmp_path / "studies"), "holds an input of the run")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("target", [".", "..", "data", "data.nc"])
def test_output_onto_a_folder_is_refused(tmp_path, short_study, monkeypatch, target):
    for name in ("data", "data.nc"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "keep.txt").write_text("user data")
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    r = invoke("run", short_study, "-o", target)
    _refused(r, f"-o {target}")
    assert any(m in r.output for m in ("holds an input of the run", "must end in '.nc'", "is an existing folder"))
    assert snapshot(tmp_path) == before


def test_wear_output_onto_a_foreign_folder_or_file_is_refused(tmp_path):
    study = tmp_path / "rig.toml"
    study.write_text(RIG_SHORT)
    folder = tmp_path / "mine.zarr"         # a user's folder that happens to end in .zarr
    folder.mkdir()
    (folder / "notes.txt").write_text("precious")
    plain = tmp_path / "file.zarr"
    plain.write_text("a file")
    before = snapshot(tmp_path)
    _refused(invoke("run", study, "-o", folder, "--no-plot"), "not a workbench wear store")
    _refused(invoke("run", study, "-o", folder, "--no-plot", "--overwrite"), "not a workbench wear store")
    _refused(invoke("run", study, "-o", plain, "--no-plot"), "is an existing file")
    _refused(invoke("run", study, "-o", tmp_path, "--no-plot"), "holds an input of the run")
    _refused(invoke("run", study, "-o", tmp_path / "w.nc", "--no-plot"), "must end in '.zarr'")
    assert snapshot(tmp_path) == before


def test_suffix_must_match_the_kind(tmp_path, short_study):
    _refused(invoke("run", short_study, "-o", tmp_path / "x.zarr"), "must end in '.nc'", "x.nc")
    _refused(invoke("run", short_study, "-o", tmp_path / "x"), "must end in '.nc'")
    assert not (tmp_path / "x.zarr").exists() and not (tmp_path / "x").exists()


def test_a_file_not_written_by_the_workbench_is_never_replaced(tmp_path, short_study):
    import h5py
    other = tmp_path / "theirs.nc"           # a netCDF/HDF5 file from another tool
    with h5py.File(other, "w") as f:
        f.attrs["title"] = "someone else's data"
        f["x"] = np.arange(3.0)
    junk = tmp_path / "junk.nc"
    junk.write_bytes(b"\x00\x01 not hdf5")
    before = snapshot(tmp_path)
    for target in (other, junk):
        assert not is_our_dataset(target)
        _refused(invoke("run", short_study, "-o", target, "--overwrite"), "not a workbench result")
    assert snapshot(tmp_path) == before


def test_replacing_a_finished_dataset_needs_overwrite(tmp_path, short_study):
    out = tmp_path / "r.nc"
    r = invoke("run", short_study, "-o", out, "--no-plot")
    assert r.exit_code == 0, r.output
    assert is_our_dataset(out)
    before = snapshot(tmp_path)
    _refused(invoke("run", short_study, "-o", out, "--no-plot"), "already holds a workbench result",
             "--overwrite")
    assert snapshot(tmp_path) == before
    r = invoke("run", short_study, "-o", out, "--no-plot", "--overwrite")
    assert r.exit_code == 0, r.output
    assert out.stat().st_mtime_ns != before[out][1]
    with xr.open_dataset(out) as ds:
        assert ds.sizes["time"] == 201
    assert short_study.read_bytes() == before[short_study][0]


def test_read_only_output_folder_is_reported_before_the_work(tmp_path, short_study, monkeypatch):
    """``/sys`` is a read-only file system in a container (root cannot write it either); the
    solver must not even start."""
    if os.access("/sys", os.W_OK) and not os.path.ismount("/sys"):
        pytest.skip("no read-only folder on this machine")
    import workbench.mbs.solver as solver

    def never(*a, **k):
        raise AssertionError("the run started although its output cannot be written")

    monkeypatch.setattr(solver, "simulate", never)
    _refused(invoke("run", short_study, "-o", "/sys/workbench-test/r.nc"), "not writable")
    study = tmp_path / "rig.toml"
    study.write_text(RIG_SHORT)
    _refused(invoke("run", study, "-o", "/sys/workbench-test/w.zarr"), "not writable")


# ------------------------------------------------------------------------------------------------
# later stages never cost what a run finished
# ------------------------------------------------------------------------------------------------
def test_a_failing_ideal_twin_keeps_the_clearance_run(tmp_path, short_study, monkeypatch):
    import workbench.mbs.solver as solver
    real = solver.simulate

    def twin_fails(mechanism, settings, **kw):
        if not mechanism.clearance_joints:      # the ideal-joint twin
            raise SolverError("step size underflow at t = 1e-3 s (test: the twin fails)")
        return real(mechanism, settings, **kw)

    monkeypatch.setattr(solver, "simulate", twin_fails)
    out = tmp_path / "c.nc"
    r = invoke("run", short_study, "-o", out, "--no-plot")
    assert r.exit_code == 0, r.output
    assert "ideal-joint twin failed" in r.output and "without the ideal_* variables" in r.output
    with xr.open_dataset(out) as ds:
        assert ds.attrs["ideal_twin_status"].startswith("failed: step size underflow")
        assert "ideal_driver_load" not in ds and float(ds.contact_force.max()) > 1e3
    # the ideal twin that works is stored and says so
    monkeypatch.setattr(solver, "simulate", real)
    r = invoke("run", short_study, "-o", out, "--no-plot", "--overwrite")
    with xr.open_dataset(out) as ds:
        assert ds.attrs["ideal_twin_status"] == "ok" and "ideal_driver_load" in ds


def test_failing_plots_keep_the_dataset(tmp_path, short_study, monkeypatch):
    import workbench.results.plot as plot

    def broken(ds, outdir):
        raise ValueError("matplotlib could not draw (test)")

    monkeypatch.setattr(plot, "plot_results", broken)
    out = tmp_path / "p.nc"
    r = invoke("run", short_study, "-o", out)
    _refused(r, f"the results are in {out}", "the plots failed", "ValueError")
    with xr.open_dataset(out) as ds:
        assert ds.sizes["time"] == 201


def test_ctrl_c_during_a_dynamics_run_exits_130_with_a_message(tmp_path, short_study, monkeypatch):
    import workbench.mbs.solver as solver

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(solver, "simulate", interrupted)
    r = invoke("run", short_study, "-o", tmp_path / "i.nc")
    assert r.exit_code == EXIT_INTERRUPTED and "interrupted" in r.output
    assert not (tmp_path / "i.nc").exists()


def _wear_run_until(tmp_path, updates: int, **popen):
    """``workbench run`` of a 1500-cycle rig (six updates: room for the signal after the first or
    second, and a short ``--resume``; eleven, at depth_step 0.01, until the default suite had to
    get back under 8 minutes on 2 cores) in a process of its own, returned once its store holds
    ``updates`` completed updates: ``(process, command, store)``."""
    text = RIG.read_text().replace("depth_step = 0.05            # <= 1 um per update", "depth_step = 0.02") \
                          .replace("cycles = 2000.0", "cycles = 1500.0")
    study = tmp_path / "rig.toml"
    study.write_text(text)
    out = tmp_path / "w.zarr"
    exe = [sys.executable, "-m", "workbench.cli.main", "run", str(study), "-o", str(out), "--no-plot"]
    proc = subprocess.Popen(exe, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if int(zarr.open_group(str(out), mode="r").attrs.get(COMPLETED, 0)) >= updates:
                break
        except Exception:  # noqa: BLE001 - not created yet
            pass
        time.sleep(0.05)
    return proc, exe, out


def test_ctrl_c_keeps_a_wear_run_resumable(tmp_path):
    """SIGINT to ``workbench run`` of a wear study: exit 130, the completed updates are kept, the
    store says ``interrupted``, and ``--resume`` finishes it with the rows of an uninterrupted run.

    The signalled run is a process of its own (the signal and the exit status are the point); the
    ``--resume`` that finishes the store runs in this process (the same command line through
    ``main``; it was a second child process until the default suite had to get back under 8 minutes
    on 2 cores: the child's start-up and load of the compiled wear loop cost more than its four
    updates)."""
    proc, exe, out = _wear_run_until(tmp_path, 2, preexec_fn=sigint_as_in_a_terminal)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "interrupted" in err and "--resume" in err
    kept = open_store(out)
    assert kept.attrs["run_status"].startswith("interrupted") and kept.sizes["cycle"] >= 2
    assert exe[:4] == [sys.executable, "-m", "workbench.cli.main", "run"]
    r = invoke(*exe[3:], "--resume")
    assert r.exit_code == 0, r.output
    res = open_store(out)
    assert res.attrs["run_status"] == "complete" and float(res.cycle[-1]) + float(res.cycle_jump[-1]) == 1500.0
    np.testing.assert_array_equal(res.wear_depth.values[:kept.sizes["cycle"]], kept.wear_depth.values)


# ------------------------------------------------------------------------------------------------
# resource limits
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("old, new, words", [
    ("samples_per_cycle = 360", "samples_per_cycle = 100000000", "GB"),
    ("nodes = 720", "nodes = 10000000", "GB"),
])
def test_huge_wear_studies_are_refused_up_front(tmp_path, old, new, words):
    study = tmp_path / "big.toml"
    study.write_text(RIG.read_text().replace(old, new))
    for cmd in ("validate", "run"):
        args = (cmd, study) if cmd == "validate" else (cmd, study, "-o", tmp_path / "big.zarr")
        r = invoke(*args)
        _refused(r, str(study), words, "max_memory_gb", "[wear]")
    assert not (tmp_path / "big.zarr").exists()


def test_a_long_run_with_a_tiny_step_is_refused_up_front(tmp_path):
    study = tmp_path / "long.toml"
    study.write_text(SHORT.replace("t_end = 0.002", "t_end = 1.0e4").replace("step = 1.0e-5", "step = 1.0e-6"))
    _refused(invoke("run", study, "-o", tmp_path / "l.nc"), "GB", "max_memory_gb", "[output.step]")
    assert not (tmp_path / "l.nc").exists()


def test_our_store_is_recognised(tmp_path, registry):
    from workbench.wear.loop import run_wear_study
    st = load_study_text(RIG_SHORT, file=RIG, registry=registry)
    out = tmp_path / "s.zarr"
    run_wear_study(st, registry=registry, out=out, max_updates=1)
    assert is_our_store(out)
    with xr.open_zarr(out, consolidated=False) as ds:     # the marker sub-group is invisible
        assert "wear_depth" in ds and ".workbench" not in ds


def test_an_interrupt_surfacing_as_a_systemerror_is_recognised():
    from workbench.runtime.interrupts import as_interrupt, is_interrupt
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise SystemError("returned a result with an exception set")
    except SystemError as exc:
        wrapped = exc
    assert is_interrupt(wrapped) and isinstance(as_interrupt(wrapped), KeyboardInterrupt)
    plain = ValueError("no")
    assert not is_interrupt(plain) and as_interrupt(plain) is plain


# ------------------------------------------------------------------------------------------------
# nothing waits forever; termination signals stop a run as Ctrl-C does
# ------------------------------------------------------------------------------------------------
def _cli(*args, timeout=120):
    """``workbench ARGS`` in a process of its own (a FIFO would block an in-process run forever)."""
    return subprocess.run([sys.executable, "-m", "workbench.cli.main", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def test_a_fifo_as_study_file_or_output_is_refused_without_waiting(tmp_path, short_study):
    """A FIFO (named pipe) as the study file of ``validate`` and ``run``, as ``-o`` and as the result
    of ``plot``: exit 2 at once naming it (reading or writing it would wait for a peer forever)."""
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    for args in (("validate", fifo), ("run", fifo, "-o", tmp_path / "r.nc")):
        r = _cli(*args, timeout=60)
        assert r.returncode == 2, r.stderr
        assert str(fifo) in r.stderr and "FIFO" in r.stderr
    out = tmp_path / "out.nc"
    os.mkfifo(out)
    r = _cli("run", short_study, "-o", out, "--no-plot", timeout=60)
    assert r.returncode == 2 and "FIFO" in r.stderr and str(out) in r.stderr, r.stderr
    r = _cli("run", short_study, "-o", out, "--no-plot", "--overwrite", timeout=60)
    assert r.returncode == 2 and "FIFO" in r.stderr and str(out) in r.stderr, r.stderr
    r = _cli("plot", out, "-o", tmp_path / "figs", timeout=60)
    assert r.returncode == 2 and "FIFO" in r.stderr, r.stderr
    assert not (tmp_path / "r.nc").exists() and not (tmp_path / "figs").exists()
    assert out.is_fifo()                                   # the FIFO itself is left as it was


def test_a_fifo_as_the_plot_folder_is_refused_without_waiting(tmp_path):
    """``workbench plot RESULT -o FIFO``: exit 2 at once naming it; nothing drawn, the FIFO and the
    result unchanged (the issue's third FIFO case beside ``run -o`` and ``run --overwrite -o``)."""
    from study_helpers import STUDY_TEXT, fake_simulation, toy_registry
    from workbench.kinds.dynamics_dataset import simulation_to_dataset
    from workbench.results.dataset import write_dataset
    reg = toy_registry()
    study = load_study_text(STUDY_TEXT, file="toy.toml", registry=reg)
    result = write_dataset(simulation_to_dataset(fake_simulation(study.mechanism), study=study, registry=reg),
                           tmp_path / "toy.nc")
    figs = tmp_path / "figs"
    os.mkfifo(figs)
    before = snapshot(tmp_path)
    r = _cli("plot", result, "-o", figs, timeout=60)
    assert r.returncode == 2 and str(figs) in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert figs.is_fifo() and snapshot(tmp_path) == before and not list(tmp_path.glob("*.png"))


@pytest.mark.parametrize("args", [("validate", os.devnull), ("run", "STUDY", "-o", os.devnull, "--no-plot")])
def test_a_device_as_study_file_or_output_is_refused(short_study, args):
    """A character device (``/dev/null``) as the study file or as ``-o``: exit 2 naming it, before
    any work (``workbench.runtime.files.special_kind``: FIFOs, devices and sockets alike)."""
    r = invoke(*[short_study if a == "STUDY" else a for a in args])
    _refused(r, os.devnull, "character device")


# SIGHUP takes the same handler as SIGTERM (workbench.cli.main._stop_on_termination_signals); its
# whole run is slow, and tests/cli/test_cli.py::test_sighup_and_sigterm_stop_a_command_as_ctrl_c_does
# keeps SIGHUP's handler in the default suite
@pytest.mark.parametrize("signum", [signal.SIGTERM, pytest.param(signal.SIGHUP, marks=pytest.mark.slow)],
                         ids=["SIGTERM", "SIGHUP"])
def test_sigterm_stops_a_wear_run_as_ctrl_c_does(tmp_path, signum):
    """SIGTERM (a batch system's kill) or SIGHUP (a closed terminal) to ``workbench run`` of a wear
    study: exit 130 within seconds, the completed updates kept with the status ``interrupted``.
    That ``--resume`` then finishes the store is the same path for every signal, kept in the
    default suite by :func:`test_ctrl_c_keeps_a_wear_run_resumable` (it cost this test 5-8 s)."""
    proc, exe, out = _wear_run_until(tmp_path, 1)
    sent = time.monotonic()
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert time.monotonic() - sent < 30
    kept = open_store(out)
    assert kept.attrs["run_status"].startswith("interrupted") and kept.sizes["cycle"] >= 1
    assert "--resume" in err
