"""Ctrl-C and wall-time limits stop a run promptly and keep its samples.

The compiled integrator runs in a worker thread (it releases the GIL); the calling thread waits
in short slices, and on Ctrl-C or at the deadline sets an abort flag the integrator reads every
step.  The run stops with the samples integrated so far: ``RunInterrupted`` (a
``KeyboardInterrupt``) or ``SolverTimeLimit`` (a ``SolverError``) carrying a partial Simulation,
and ``run_study`` / ``workbench run`` write it as ``<out>.partial.nc``.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import xarray as xr

from mechanisms import slider_crank
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import SolverTimeLimit, simulate, wall_time_limit
from study_helpers import sigint_as_in_a_terminal

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"
LONG = 30.0  # s of simulated time: minutes of wall time at the converged default tolerance


def _flores(registry):
    c = registry.create("contact", "lankarani_nikravesh", {"restitution": 0.9})
    f = registry.create("friction", "ambrosio", {"c_f": 0.01, "v0": 1e-4, "v1": 1e-2})
    return slider_crank(c, f)


def _long_study(tmp_path: Path) -> Path:
    text = FLORES.read_text().replace("revolutions = 2 ", f"t_end = {LONG} ")
    text = text.replace("step = 1.0e-5 ", "step = 1.0e-4 ")  # 3e5 samples, not 3e6
    assert f"t_end = {LONG}" in text and "step = 1.0e-4" in text
    path = tmp_path / "long.toml"
    path.write_text(text)
    return path


def test_max_wall_time_stops_a_long_run_with_its_samples(registry):
    mech = _flores(registry)
    simulate(mech, SolverSettings(t_end=1e-4))  # compiled code loaded: time the run only
    t0 = time.monotonic()
    with pytest.raises(SolverTimeLimit, match=r"wall-time limit after 1 s \(solver.max_wall_time\) "
                                              r"at t = .* s of 30 s") as info:
        simulate(mech, SolverSettings(t_end=LONG, output_step=1e-4, max_wall_time=1.0))
    elapsed = time.monotonic() - t0
    assert elapsed < 1.0 + 1.5  # the poll slice, one step, and the samples' post-processing
    sim = info.value.partial
    assert sim is not None and sim.status == "time_limit"
    assert 0.0 < sim.time[-1] < LONG and len(sim.time) > 10
    assert len(sim.impact_time) > 0 and len(sim.impact_peak_force) == len(sim.impact_time)


def test_wall_time_limit_context_applies_to_every_run(registry):
    mech = _flores(registry)
    simulate(mech, SolverSettings(t_end=1e-4))
    with wall_time_limit(0.5):
        with pytest.raises(SolverTimeLimit, match="--max-time"):
            simulate(mech, SolverSettings(t_end=LONG, output_step=1e-4))
    # outside the block no limit remains
    sim = simulate(mech, SolverSettings(t_end=2e-4))
    assert sim.status == "complete"


def test_reference_path_honours_the_limit(registry):
    mech = _flores(registry)
    with pytest.raises(SolverTimeLimit) as info:
        simulate(mech, SolverSettings(t_end=LONG, output_step=1e-4, path="scipy", max_wall_time=1.0))
    sim = info.value.partial
    assert sim is None or sim.status == "time_limit"


def test_ctrl_c_stops_the_compiled_integrator_within_a_poll_slice(registry, ctrl_c_raises):
    """Ctrl-C (KeyboardInterrupt in the main thread) during the compiled integration: RunInterrupted,
    a KeyboardInterrupt carrying the partial Simulation, well within a second."""
    import _thread
    import threading

    from workbench.mbs.solver import RunInterrupted

    mech = _flores(registry)
    simulate(mech, SolverSettings(t_end=1e-4))
    timer = threading.Timer(1.0, _thread.interrupt_main)
    t0 = time.monotonic()
    timer.start()
    try:
        try:
            sim = simulate(mech, SolverSettings(t_end=LONG, output_step=1e-4))
        except KeyboardInterrupt as exc:
            caught = exc
        else:  # say what happened instead (seen once in a full suite on a machine at load 8)
            import signal
            pytest.fail(f"simulate returned status {sim.status!r} at t = {sim.time[-1]:g} s after "
                        f"{time.monotonic() - t0:.2f} s; SIGINT handler {signal.getsignal(signal.SIGINT)}")
        stopped = time.monotonic() - t0
    finally:
        timer.cancel()
    assert isinstance(caught, RunInterrupted)
    assert stopped < 1.0 + 0.8
    sim = caught.partial
    assert sim is not None and sim.status == "interrupted"
    assert 0.0 < sim.time[-1] < LONG
    assert "interrupted (Ctrl-C) at t = " in str(caught)


DRIVER = textwrap.dedent("""
    import sys
    from workbench.mbs.solution import SolverSettings
    from workbench.mbs.solver import simulate
    from workbench.plugins import build_registry
    from workbench.study.load import load_study, run_study
    registry = build_registry()
    study = load_study(sys.argv[1], registry=registry)
    simulate(study.mechanism, SolverSettings(t_end=1e-4))  # load the compiled code first
    import workbench.results.dataset  # and the writer (xarray, pandas: seconds under load), imported lazily
    print("running", flush=True)
    run_study(study, registry=registry, out=sys.argv[2])
""")


def _env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


def test_sigint_stops_the_run_within_seconds_and_writes_the_partial_result(tmp_path):
    study = _long_study(tmp_path)
    out = tmp_path / "long.nc"
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(study), str(out)], stdout=subprocess.PIPE,
                            preexec_fn=sigint_as_in_a_terminal,
                            stderr=subprocess.PIPE, text=True, env=_env())
    try:
        assert proc.stdout.readline().strip() == "running"
        time.sleep(1.0)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read()
    assert proc.returncode != 0
    assert "KeyboardInterrupt" in err or "RunInterrupted" in err
    # stopping the integrator takes one poll slice (0.1 s, see the in-process test); the rest is
    # post-processing the partial samples, writing the netCDF file and the interpreter's exit,
    # measured at about 1 s on an idle 2-core machine and 3 s at a load average of 6; a run of the
    # suite beside another full suite on the same 2 cores took over 5 s, so the bound is 10 s: the
    # "within a second" of the integrator itself is the in-process test's, this one checks that the
    # process stops and keeps the partial file at all
    assert took < 10.0, f"took {took:.2f} s to stop after SIGINT"
    assert not out.exists()
    with xr.open_dataset(tmp_path / "long.partial.nc") as ds:
        assert ds.attrs["run_status"].startswith("interrupted")
        # how far it got in 1 s depends on the machine's load (at a load average of 6 on 2 cores
        # it may not have passed the first output sample); the partial file exists either way
        assert ds.sizes["time"] >= 1 and float(ds["time"].max()) < LONG


def test_cli_max_time_writes_the_partial_result_and_says_so(tmp_path, registry):
    study = _long_study(tmp_path)
    out = tmp_path / "long.nc"
    # the compiled code on disk first, as the SIGINT test's driver does: with a cold cache (a first
    # run, or the suite's other process compiling the same kernels) the 5 s limit can pass in the
    # compile, before the first step, and there would be no samples to check (5 s: the command's
    # start-up, about 1-2 s, and a few seconds of steps to keep)
    simulate(_flores(registry), SolverSettings(t_end=1e-4))
    t0 = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "workbench.cli.main", "run", str(study), "-o", str(out),
                          "--no-plot", "--max-time", "5"], capture_output=True, text=True, env=_env(),
                         timeout=300)
    elapsed = time.monotonic() - t0
    assert res.returncode == 2, res.stderr
    assert "wall-time limit" in res.stderr and "long.partial.nc" in res.stderr
    assert "Traceback" not in res.stderr
    assert elapsed < 5.0 + 30.0  # the limit counts from the start of the command (imports included)
    assert not out.exists()
    with xr.open_dataset(tmp_path / "long.partial.nc") as ds:
        assert "wall-time limit" in ds.attrs["run_status"]
        assert 0.0 < float(ds["time"].max()) < LONG
