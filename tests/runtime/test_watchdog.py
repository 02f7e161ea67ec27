"""Nothing waits forever, in this process's own machinery (fast, no compiled run):

* a watched model call that sleeps is stopped at the progress budget (``Stalled``) or at the
  command's deadline (``DeadlineReached``), raised in its own frame; numba compiling counts as
  progress;
* Ctrl-C during a results write is held until the write is complete (xarray's netCDF lock is
  never left held), then raised;
* a case process ends with its parent, ``kill -9`` of the parent included;
* temporaries of a killed write (``.OUT.PID.tmp``, plot staging folders) are removed by the next
  write -- only ours, only of dead processes.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from workbench.runtime import watchdog
from workbench.runtime.abandoned import (STAGING, pid_alive, remove_abandoned_staging,
                                         remove_abandoned_tmp_files)
from workbench.runtime.deferred import deferred_interrupts
from workbench.runtime.watchdog import DeadlineReached, Stalled, progress_budget, watch

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl and /proc are Linux's")


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    assert not pid_alive(p.pid)
    return p.pid


# ------------------------------------------------------------------------------ watch()
def test_a_sleeping_model_call_is_stopped_at_the_budget_in_its_own_frame():
    def model():
        time.sleep(3600)

    before = signal.getsignal(signal.SIGALRM)
    t0 = time.monotonic()
    with progress_budget(0.5), pytest.raises(Stalled) as info:
        with watch("wear update 3, joint 'B'"):
            model()
    assert 0.4 < time.monotonic() - t0 < 5.0
    assert "wear update 3, joint 'B'" in str(info.value) and "progress_timeout" in str(info.value)
    frames = []
    tb = info.value.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    assert "model" in frames        # raised where the model was: the culprit can be named
    assert signal.getsignal(signal.SIGALRM) == before    # the handler is put back
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)   # the timer is off again


def test_the_deadline_comes_first_when_it_is_earlier():
    with progress_budget(60.0), pytest.raises(DeadlineReached, match="--max-time"):
        with watch("wear update 0", deadline=time.monotonic() + 0.3):
            time.sleep(3600)


def test_a_call_that_returns_in_time_is_left_alone():
    with progress_budget(5.0):
        with watch("quick"):
            time.sleep(0.05)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_beat_is_progress():
    # an update's pressure evaluation beats once per averaging cycle: minutes in all, not a hang
    with progress_budget(0.6):
        with watch("evaluating cycles"):
            for _ in range(5):          # 1.5 s in all, never 0.6 s without a beat
                time.sleep(0.3)
                watchdog.beat()
        with pytest.raises(Stalled):
            with watch("then hanging"):
                time.sleep(3600)


def test_numba_compiling_counts_as_a_beat():
    # a first run compiles kernels inside a model call (minutes on a busy machine)
    import numba
    watchdog._listen_to_numba()
    before = watchdog._progress["count"]

    @numba.njit(cache=False)
    def fresh(x):
        return x + 1.0

    assert fresh(1.0) == 2.0
    assert watchdog._progress["count"] > before and not watchdog.compiling_now()


def test_a_compile_held_by_another_thread_is_progress_and_an_interrupted_wait_leaves_no_trace():
    # the main thread waits for numba's compiler lock while another thread compiles: progress.
    # An interrupt during that wait (Ctrl-C, --max-time) skips the lock's end event; the watchdog
    # must not take that for a compilation that never ends (it made every later watched call
    # wait forever: the sleeping-model test hung a suite run)
    from numba.core import event
    from numba.core.compiler_lock import global_compiler_lock
    held, release = threading.Event(), threading.Event()

    def compiler():
        with global_compiler_lock:
            held.set()
            release.wait(10)

    t = threading.Thread(target=compiler)
    t.start()
    held.wait(5)
    try:
        assert watchdog.compiling_now()
        with progress_budget(0.3):
            with watch("waiting for the compiler"):
                time.sleep(0.8)              # the alarm came at least twice, saw the lock held
    finally:
        release.set()
        t.join(5)
    event.start_event("numba:compiler_lock")   # a start whose end never comes (interrupted wait)
    assert not watchdog.compiling_now()
    with progress_budget(0.3), pytest.raises(Stalled):
        with watch("then hanging"):
            time.sleep(3600)


def test_listening_from_inside_a_numba_event_leaves_the_count_balanced():
    """The listener is registered by the first numba_activity() of a process, which can come while
    numba is inside an event (the integrator's worker thread loading its code under the compiler
    lock): that event's end, with no start seen, left the count of running compilations at -1 for
    good -- "numba is busy" forever, so the max_run_hours pace guard and the stall clock never ran
    (found by tests/runtime/test_hangs.py's pace test, which missed in 3 of 17 runs).  A fresh
    process, since the listener is registered once per process."""
    code = textwrap.dedent("""
        import numba
        from numba.core import event
        from numba.core.compiler_lock import global_compiler_lock
        from workbench.runtime import watchdog
        with event.trigger_event("numba:compiler_lock"):
            watchdog.numba_activity()              # registers the listener mid-event
        with global_compiler_lock:
            assert watchdog.numba_activity()[1] == 1, watchdog._progress   # a real one still counts
        print(watchdog.numba_activity()[1])
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0"], r.stdout


def test_outside_the_main_thread_watch_does_nothing():
    out = {}

    def work():
        with progress_budget(0.1), watch("helper"):
            time.sleep(0.3)
        out["ok"] = True

    t = threading.Thread(target=work)
    t.start()
    t.join(5)
    assert out == {"ok": True}


# ------------------------------------------------------------------------------ Ctrl-C and writes
def test_ctrl_c_during_a_results_write_waits_for_the_write(tmp_path, monkeypatch, ctrl_c_raises):
    from xarray.backends.locks import HDF5_LOCK, NETCDFC_LOCK
    from workbench.results.dataset import write_dataset
    ds = xr.Dataset({"x": ("time", np.arange(5.0), {"units": "m", "long_name": "x"})},
                    attrs={"workbench_version": "test", "study_kind": "dynamics"})
    real = xr.Dataset.to_netcdf

    def interrupted_write(self, *args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)   # Ctrl-C arrives while the write runs
        time.sleep(0.05)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(xr.Dataset, "to_netcdf", interrupted_write)
    out = tmp_path / "r.nc"
    with pytest.raises(KeyboardInterrupt, match="SIGINT"):
        write_dataset(ds, out)
    monkeypatch.setattr(xr.Dataset, "to_netcdf", real)
    with xr.open_dataset(out) as back:        # the write was completed, not abandoned
        assert back["x"].values.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert not list(tmp_path.glob(".r.nc.*.tmp"))
    for lock in (HDF5_LOCK, NETCDFC_LOCK):    # never left held: the next write does not wait
        assert lock.acquire(blocking=False)
        lock.release()
    write_dataset(ds, tmp_path / "again.nc")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_deferred_interrupts_raise_nothing_without_a_signal(ctrl_c_raises):
    # ctrl_c_raises: Ctrl-C raises in this process whatever the suite was started with (a pytest-xdist
    # worker ignores SIGINT); the block must hand back the handler it found
    with deferred_interrupts():
        x = 1
    assert x == 1 and signal.getsignal(signal.SIGINT) is signal.default_int_handler


# ------------------------------------------------------------------------------ orphans
@linux
def test_a_case_process_ends_when_its_parent_is_killed(tmp_path):
    # the parent starts a spinning child that calls die_with_parent, then waits; kill -9 the parent
    pidfile = tmp_path / "child.pid"
    spin = tmp_path / "spin.py"
    spin.write_text(textwrap.dedent("""
        import os, sys
        from workbench.runtime.child import die_with_parent
        assert die_with_parent(int(sys.argv[1]))
        open(sys.argv[2], "w").write(str(os.getpid()))
        x = 1.0
        while x > 0.0:
            x = x * 1.0000001 + 1.0
        """))
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import os, subprocess, sys, time
        subprocess.Popen([sys.executable, {str(spin)!r}, str(os.getpid()), {str(pidfile)!r}],
                         start_new_session=True)
        time.sleep(3600)
        """)])
    try:
        deadline = time.monotonic() + 60
        while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pidfile.read_text())
        assert pid_alive(child)
        parent.kill()
        parent.wait()
        for _ in range(100):
            if not _running(child):
                break
            time.sleep(0.05)
        else:
            os.kill(child, signal.SIGKILL)
            pytest.fail("the spinning child outlived its killed parent")
    finally:
        parent.kill()


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie is reaped by init)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


# ------------------------------------------------------------------------------ abandoned temporaries
def test_only_our_dead_writers_temporaries_are_removed(tmp_path):
    out = tmp_path / "run.nc"
    dead, alive = _dead_pid(), os.getpid()
    ours_dead = tmp_path / f".run.nc.{dead}.tmp"
    ours_alive = tmp_path / f".run.nc.{alive}.tmp"
    users = [tmp_path / ".run.nc.backup.tmp", tmp_path / f"run.nc.{dead}.tmp",
             tmp_path / f".other.nc.{dead}.tmp"]
    for p in (ours_dead, ours_alive, *users):
        p.write_bytes(b"x")
    other = _dead_pid()            # a second dead writer, whose "temporary" is a symlink to a user's file
    while other == dead:
        other = _dead_pid()
    link = tmp_path / f".run.nc.{other}.tmp"
    link.symlink_to(users[0])
    folder = tmp_path / f".run.nc.{dead}0.tmp"   # a folder with our name: not a file of ours
    folder.mkdir()
    assert remove_abandoned_tmp_files(out) == [ours_dead]
    assert not ours_dead.exists()
    assert ours_alive.exists() and all(p.exists() for p in users) and folder.is_dir()
    assert link.is_symlink()


def test_a_killed_writes_temporary_is_removed_by_the_next_write(tmp_path):
    from workbench.results.dataset import write_dataset
    left = tmp_path / f".r.nc.{_dead_pid()}.tmp"
    left.write_bytes(b"half a netCDF file")
    ds = xr.Dataset({"x": ("time", np.arange(3.0), {"units": "m", "long_name": "x"})})
    write_dataset(ds, tmp_path / "r.nc")
    assert not left.exists() and (tmp_path / "r.nc").exists()


def test_a_killed_plots_staging_folder_is_removed_by_the_next_plot(tmp_path):
    from workbench.results.plot_files import publish
    folder = tmp_path / "plots"
    folder.mkdir()
    dead = _dead_pid()
    left = folder / f".workbench-plots-{dead}-abc123xy"
    left.mkdir()
    (left / "contact_force.png").write_bytes(b"half a figure")
    keep = [folder / f".workbench-plots-{os.getpid()}-abc123xy", folder / ".workbench-plots-mine",
            folder / "workbench-plots-1-abcdefgh"]
    for k in keep:
        k.mkdir()
    user_file = folder / f".workbench-plots-{dead}-abcdefgh"   # a file, not a folder of ours
    user_file.write_bytes(b"mine")
    assert STAGING.fullmatch(left.name)

    def draw(staging: Path):
        assert staging.name.startswith(f".workbench-plots-{os.getpid()}-")
        p = staging / "summary.png"
        p.write_bytes(b"png")
        return [p]

    assert publish(draw, folder) == [folder / "summary.png"]
    assert not left.exists()
    assert all(k.is_dir() for k in keep) and user_file.read_bytes() == b"mine"
    assert not [p for p in folder.iterdir() if p.name.startswith(f".workbench-plots-{os.getpid()}")
                and p not in keep]
    # a second publisher's staging folder of a live process is not touched
    assert remove_abandoned_staging(folder) == []
