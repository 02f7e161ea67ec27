"""Sweeps that hang or are interrupted, and sweeps written over earlier results.

* A case that never returns is stopped at the per-case timeout and recorded as ``timed_out``;
  the other cases run and the summary is written.
* Ctrl-C (SIGINT) during a sweep still writes the summary of the cases finished, the others
  ``interrupted``, and the command exits 130, serially or on forked workers.
* A case that ends its worker process is recorded as failed; the other cases finish.
* The results of an earlier sweep are replaced only with ``--overwrite``; files that are not
  workbench results are never replaced.

The hanging case is a contact law (installed like a third party's plugin) whose ``pack`` -- run
in Python when the mechanism is compiled -- sleeps ``delay`` seconds.
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
import tomli_w
import xarray as xr
from click.testing import CliRunner

from workbench.cli.main import EXIT_INTERRUPTED, main
from workbench.plugins import build_registry
from workbench.sweeps.run import STATUS_FAILED, STATUS_INTERRUPTED, STATUS_OK, STATUS_TIMED_OUT, run_sweep
from workbench.sweeps.local import available
from workbench.sweeps.spec import load_sweep
from study_helpers import sigint_as_in_a_terminal

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"
LN = {"model": "lankarani_nikravesh", "restitution": 0.9}
SLEEPY = '''
import os
import time
from dataclasses import dataclass
import numpy as np
from numba import njit
from workbench.hookspecs import hookimpl
from workbench.models import ContactLaw, parameter

@njit
def _force(delta, delta_dot, delta_dot_minus, p):
    return p[0] * delta if delta > 0.0 else 0.0

class Sleepy(ContactLaw):
    """Linear spring that first sleeps (test fixture: a case that never returns)."""
    name = "sleepy"
    reference = "test fixture (2026)"

    @dataclass(frozen=True)
    class Params:
        delay: float = parameter(0.0, unit="s", doc="time pack() sleeps", min=0.0)
        exit_status: float = parameter(0.0, unit="1", doc="if > 0, pack() ends its process so", min=0.0)

    kernel = _force

    def pack(self, geometry):
        if self.params.exit_status > 0:
            os._exit(int(self.params.exit_status))
        time.sleep(self.params.delay)
        return np.array([1e8])

@hookimpl
def register_contact_laws(register):
    register(Sleepy)
'''


@pytest.fixture
def sleepy(tmp_path, monkeypatch):
    """Install the sleepy contact law; return the site folder (for child processes' PYTHONPATH)."""
    root = tmp_path / "site-packages"
    root.mkdir()
    (root / "wb_test_sleepy.py").write_text(SLEEPY)
    info = root / "wb_test_sleepy-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: wb-test-sleepy\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[workbench]\nsleepy = wb_test_sleepy\n")
    monkeypatch.syspath_prepend(str(root))
    yield root
    sys.modules.pop("wb_test_sleepy", None)


def _sweep_file(tmp_path: Path, laws: list, **head) -> Path:
    entry = {"name": "law", "values": laws, "labels": [f"{k}_{law['model']}" for k, law in enumerate(laws)]}
    doc = {"sweep": {"title": "hang test", "base": str(FLORES), "summary": ["n_impacts"],
                     "unset": ["solver.revolutions"], **head},
           "set": {"solver.t_end": 1.0e-3, "output.compare_ideal": False},
           "grid": {"mechanism.clearance_joints[0].contact": entry}}
    path = tmp_path / "sweep.toml"
    path.write_text(tomli_w.dumps(doc), encoding="utf-8")
    return path


def test_a_case_that_never_returns_is_timed_out(tmp_path, sleepy):
    """A case that sleeps for an hour is stopped at its 2 s limit (4 s until the default suite had to
    get back under 8 minutes on 2 cores: the limit's length is no part of the check)."""
    path = _sweep_file(tmp_path, [{"model": "sleepy", "delay": 3600.0}])
    registry = build_registry()
    t0 = time.monotonic()
    ds = run_sweep(load_sweep(path, registry=registry), tmp_path / "h.nc", serial=True, registry=registry,
                   progress=False, case_timeout=2.0)
    assert time.monotonic() - t0 < 60
    assert list(ds["status"].values) == [STATUS_TIMED_OUT] and "timeout of 2 s" in str(ds["error"].values[0])
    assert (tmp_path / "h.nc").exists()


@pytest.mark.slow
def test_a_case_that_never_returns_is_timed_out_and_the_others_finish(tmp_path, sleepy):
    path = _sweep_file(tmp_path, [LN, {"model": "sleepy", "delay": 3600.0}], case_timeout=60.0)
    registry = build_registry()
    sw = load_sweep(path, registry=registry)
    assert sw.case_timeout == 60.0
    # fill the on-disk compile cache first (the child processes load it): after an edit of the
    # sources, compiling takes longer than the case timeout used here
    from workbench.sweeps.run import _warm_args, warm_worker
    assert warm_worker(*_warm_args(sw)) == "ok"
    t0 = time.monotonic()
    ds = run_sweep(sw, tmp_path / "s.nc", serial=True, registry=registry, progress=False, case_timeout=25.0)
    assert time.monotonic() - t0 < 120            # 25 s for the hanging case, not an hour
    assert list(ds["status"].values) == [STATUS_OK, STATUS_TIMED_OUT]
    assert "timeout of 25 s" in str(ds["error"].values[1])
    assert ds["n_impacts"].values[0] >= 1 and np.isnan(ds["n_impacts"].values[1])
    assert ds.attrs["run_case_timeout"] == 25.0 and ds.attrs["run_status"] == "complete"
    with xr.open_dataset(tmp_path / "s.nc") as back:
        assert list(back["status"].values) == [STATUS_OK, STATUS_TIMED_OUT]


def test_ctrl_c_during_a_sweep_writes_the_summary_of_the_cases_finished(tmp_path, sleepy):
    path = _sweep_file(tmp_path, [LN, {"model": "sleepy", "delay": 3600.0}, LN])
    out = tmp_path / "i.nc"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(sleepy), str(ROOT)])}
    proc = subprocess.Popen([sys.executable, "-m", "workbench.cli.main", "sweep", str(path), "-o", str(out),
                             "--serial", "--no-plot"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, preexec_fn=sigint_as_in_a_terminal)
    first = tmp_path / "i.cases" / "case_0000.nc"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None and not first.exists():
        time.sleep(0.1)
    time.sleep(1.0)                               # the second case is asleep now
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "interrupted" in err and str(out) in err and "1 finished of 3" in err
    with xr.open_dataset(out) as ds:
        assert list(ds["status"].values) == [STATUS_OK, STATUS_INTERRUPTED, STATUS_INTERRUPTED]
        assert ds.attrs["run_status"] == "interrupted" and ds["n_impacts"].values[0] >= 1


needs_fork = pytest.mark.skipif(not available(), reason="no fork here: local workers are a dask cluster")


@needs_fork
def test_ctrl_c_stops_the_forked_workers_and_writes_the_summary(tmp_path, sleepy):
    # as from a terminal: SIGINT to every process of the command (its process group); the
    # sleeping case's worker stops its case, the sweep writes the two finished ones and exits 130
    path = _sweep_file(tmp_path, [LN, {"model": "sleepy", "delay": 3600.0}, LN])
    out = tmp_path / "f.nc"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(sleepy), str(ROOT)])}
    proc = subprocess.Popen([sys.executable, "-m", "workbench.cli.main", "sweep", str(path), "-o", str(out),
                             "--workers", "2", "--no-plot"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, preexec_fn=sigint_as_in_a_terminal, start_new_session=True)
    cases = [tmp_path / "f.cases" / f"case_000{k}.nc" for k in (0, 2)]
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None and not all(c.exists() for c in cases):
        time.sleep(0.1)
    time.sleep(1.0)                               # both written and reported; case 1 asleep
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert time.monotonic() - t0 < 8.0, "the asleep worker should stop at once, not at the grace period"
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "interrupted" in err and "2 finished of 3" in err
    with xr.open_dataset(out) as ds:
        assert list(ds["status"].values) == [STATUS_OK, STATUS_INTERRUPTED, STATUS_OK]
        assert ds.attrs["run_executor"] == "forked processes"
    for _ in range(50):                           # no worker left behind
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("a worker process of the sweep is still alive")


@needs_fork
def test_a_case_that_ends_its_worker_process_fails_alone_and_the_others_finish(tmp_path, sleepy):
    # the pool breaks twice with the case running; it then runs alone in a fresh interpreter
    # (workbench.sweeps.local.run_isolated), and only it is recorded as failed
    path = _sweep_file(tmp_path, [LN, {"model": "sleepy", "exit_status": 3.0}, LN, LN])
    registry = build_registry()
    ds = run_sweep(load_sweep(path, registry=registry), tmp_path / "k.nc", workers=2, registry=registry,
                   progress=False)
    assert list(ds["status"].values) == [STATUS_OK, STATUS_FAILED, STATUS_OK, STATUS_OK]
    assert "ended without a result" in str(ds["error"].values[1]), ds["error"].values
    assert (ds["n_impacts"].values[[0, 2, 3]] >= 1).all() and np.isnan(ds["n_impacts"].values[1])
    assert ds.attrs["run_executor"] == "forked processes"


def test_an_earlier_sweep_is_replaced_only_with_overwrite(tmp_path):
    path = _sweep_file(tmp_path, [LN])
    cli = lambda *a: CliRunner().invoke(main, [str(x) for x in a], env={"COLUMNS": "250"})  # noqa: E731
    out = tmp_path / "o.nc"
    r = cli("sweep", path, "-o", out, "--serial", "--no-plot")
    assert r.exit_code == 0, r.output
    case = tmp_path / "o.cases" / "case_0000.nc"
    before = {p: p.stat().st_mtime_ns for p in (out, case)}
    r = cli("sweep", path, "-o", out, "--serial", "--no-plot")
    assert r.exit_code == 2 and "--overwrite" in r.output
    out.unlink()                                   # the summary gone, the case results still there
    r = cli("sweep", path, "-o", out, "--serial", "--no-plot")
    assert r.exit_code == 2 and "case results of an earlier sweep" in r.output and "--overwrite" in r.output
    assert case.stat().st_mtime_ns == before[case]
    r = cli("sweep", path, "-o", out, "--serial", "--no-plot", "--overwrite")
    assert r.exit_code == 0, r.output
    assert case.stat().st_mtime_ns != before[case]
    # a case file that is not ours is never replaced, --overwrite or not
    case.write_bytes(b"someone's file")
    r = cli("sweep", path, "-o", out, "--serial", "--no-plot", "--overwrite")
    assert r.exit_code == 2 and "not a workbench result" in r.output
    assert case.read_bytes() == b"someone's file"


def test_case_timeout_in_the_sweep_file_is_checked(tmp_path):
    from workbench.errors import StudyError
    path = _sweep_file(tmp_path, [LN], case_timeout=-1.0)
    with pytest.raises(StudyError, match=r"\[sweep.case_timeout\].*positive number of seconds"):
        load_sweep(path)


def test_a_sweep_whose_every_case_timed_out_exits_2_with_a_summary(tmp_path, sleepy):
    """Was: exit 0 with every case ``timed_out``.  A sweep in which no case finished is no result:
    exit 2 (the limit the user set, as --max-time), the count by status and the limit to raise on
    stderr; the summary file with each case's status is still written.  Each case's limit is 1 s
    (2 s until the default suite had to get back under 8 minutes on 2 cores)."""
    path = _sweep_file(tmp_path, [{"model": "sleepy", "delay": 3600.0}] * 2)
    out = tmp_path / "t.nc"
    r = CliRunner().invoke(main, ["sweep", str(path), "-o", str(out), "--serial", "--case-timeout", "1",
                                  "--no-plot"], env={"COLUMNS": "250"})
    text = " ".join(r.output.split())
    assert r.exit_code == 2, r.output
    assert "no case of the sweep finished (2 timed_out)" in text and "case time limit of 1" in text, r.output
    assert "--case-timeout" in text and str(out) in text and "Traceback" not in r.output
    with xr.open_dataset(out) as ds:
        assert list(ds["status"].values) == [STATUS_TIMED_OUT] * 2
