"""The wear store's writer: one writer at a time, stale locks, kills during creation, --overwrite.

* A second writer, or ``--resume`` while a run writes, is refused with a message naming the
  running writer (pid, host, start); the first run ends intact (readable by ``xr.open_zarr``,
  its completed-update counter equal to its rows).
* A lock left by a writer that died (``kill -9``) is taken over with a note.
* A store killed while being created (before its first update was counted) is restarted by a
  plain re-run, without the user deleting anything.
* ``--overwrite`` replaces only a store of ours: the new store is written next to the old one,
  which is deleted once the new run completed an update, and put back if the new run fails first.
"""
from __future__ import annotations

import json
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

from workbench.cli.main import main
from workbench.errors import WorkbenchError
from workbench.runtime.locks import LOCK_NAME, FolderLock, LockHeldError
from workbench.results.outputs import STORE_META, OutputError
from workbench.study.load import load_study_text
from workbench.wear.loop import run_wear_study
from workbench.results.store_commit import write_state
from workbench.wear.store import COMPLETED, open_store

ROOT = Path(__file__).resolve().parents[2]
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"
RIG_SHORT = RIG.read_text().replace("cycles = 2000.0", "cycles = 600.0")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "250"})


def rig(registry, text=RIG_SHORT):
    return load_study_text(text, file=RIG, registry=registry)


def lock_record(store: Path) -> dict:
    raw = (store / STORE_META / LOCK_NAME).read_bytes() if (store / STORE_META / LOCK_NAME).exists() else b""
    return json.loads(raw) if raw.strip() else {}


def dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


# ------------------------------------------------------------------------------------------------
# the lock itself
# ------------------------------------------------------------------------------------------------
def test_a_held_lock_refuses_a_second_holder_and_names_the_first(tmp_path):
    with FolderLock(tmp_path, what="the folder") as first:
        rec = json.loads((tmp_path / ".workbench.lock").read_text())
        assert rec["pid"] == os.getpid() and rec["host"] and rec["started"]
        with pytest.raises(LockHeldError, match=rf"the folder is being written by another run \(pid {os.getpid()} on host"):
            FolderLock(tmp_path, what="the folder").acquire()
        assert first.held
    assert (tmp_path / ".workbench.lock").read_text() == ""      # emptied on release
    again = FolderLock(tmp_path).acquire()
    assert again.recovered is None                                # a clean release is not stale
    again.release()


def test_a_dead_writers_lock_is_taken_over_with_a_note(tmp_path, registry):
    out = tmp_path / "s.zarr"
    run_wear_study(rig(registry), registry=registry, out=out, max_updates=1)
    pid = dead_pid()
    (out / STORE_META / LOCK_NAME).write_text(json.dumps({"pid": pid, "host": "h", "started": "then"}))
    notes = []
    ds = run_wear_study(rig(registry), registry=registry, out=out, resume=True, note=notes.append)
    assert ds.attrs["run_status"] == "complete"
    assert any(f"pid {pid} on host 'h'" in n and "no longer running" in n for n in notes), notes
    assert lock_record(out) == {}                                 # released at the end


# ------------------------------------------------------------------------------------------------
# concurrent writers (real processes)
# ------------------------------------------------------------------------------------------------
def _start(study: Path, out: Path, *extra) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "workbench.cli.main", "run", str(study), "-o", str(out), "--no-plot",
                             *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _wait_for(cond, proc, timeout=240):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if cond():
            return True
        time.sleep(0.02)
    return False


def _completed(out: Path) -> int:
    try:
        return int(zarr.open_group(str(out), mode="r").attrs.get(COMPLETED, 0))
    except Exception:  # noqa: BLE001 - not created yet
        return 0


@pytest.mark.slow
def test_a_second_writer_and_resume_are_refused_while_a_run_writes(tmp_path):
    text = RIG.read_text().replace("depth_step = 0.05            # <= 1 um per update", "depth_step = 0.01") \
                          .replace("cycles = 2000.0", "cycles = 6000.0")
    study = tmp_path / "rig.toml"
    study.write_text(text)
    out = tmp_path / "w.zarr"
    first = _start(study, out)
    try:
        assert _wait_for(lambda: _completed(out) >= 1, first), "the first run made no update"
        for extra in ((), ("--resume",), ("--overwrite",)):
            r = subprocess.run([sys.executable, "-m", "workbench.cli.main", "run", str(study), "-o", str(out),
                                "--no-plot", *extra], capture_output=True, text=True, timeout=120)
            assert r.returncode == 2, r.stderr
            assert "is being written by another run" in r.stderr and f"pid {first.pid}" in r.stderr, r.stderr
            assert "Traceback" not in r.stderr
        _, err = first.communicate(timeout=600)
        assert first.returncode == 0, err
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    with xr.open_zarr(out, consolidated=False) as ds:
        assert ds.attrs["run_status"] == "complete"
        assert ds.sizes["cycle"] == ds.attrs[COMPLETED]
        assert float(ds.cycle[-1]) + float(ds.cycle_jump[-1]) == 6000.0


def test_a_store_killed_while_being_created_is_restarted_by_a_plain_run(tmp_path, registry):
    """``kill -9`` after the store folder exists but before its first update is counted."""
    study = tmp_path / "rig.toml"
    study.write_text(RIG_SHORT)
    out = tmp_path / "k.zarr"
    proc = _start(study, out)
    try:
        assert _wait_for(lambda: lock_record(out).get("pid") == proc.pid, proc, timeout=120)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert out.is_dir() and _completed(out) == 0
    for extra in ((), ("--resume",)):   # both a plain re-run and --resume start it again
        r = invoke("run", study, "-o", out, "--no-plot", *extra)
        assert r.exit_code == 0, r.output
        assert open_store(out).attrs["run_status"] == "complete"
        if not extra:
            # the next case starts from a store killed half-way through its first to_zarr
            _uncommitted(out)
    full = run_wear_study(rig(registry), registry=registry, out=tmp_path / "full.zarr")
    np.testing.assert_array_equal(open_store(out).wear_depth.values, full.wear_depth.values)


def _uncommitted(out: Path) -> None:
    """The store as a run killed after writing its first row, before committing it, leaves it:
    the commit record says 0 completed updates (the rows stay in the arrays)."""
    attrs = json.loads((out / STORE_META / "state.json").read_text())["attrs"]
    write_state(out, updates=0, records=0, attrs={**attrs, "run_status": "running"})


def test_a_half_written_first_row_is_restarted_with_a_note(tmp_path, registry):
    out = tmp_path / "h.zarr"
    run_wear_study(rig(registry), registry=registry, out=out, max_updates=1)
    _uncommitted(out)                                              # killed before the first commit
    notes = []
    ds = run_wear_study(rig(registry), registry=registry, out=out, note=notes.append)
    assert ds.attrs["run_status"] == "complete"
    assert any("stopped before its first update was completed" in n for n in notes), notes


# ------------------------------------------------------------------------------------------------
# replacing a store
# ------------------------------------------------------------------------------------------------
def test_a_finished_store_is_replaced_only_with_overwrite(tmp_path, registry):
    out = tmp_path / "f.zarr"
    first = run_wear_study(rig(registry), registry=registry, out=out)
    with pytest.raises(OutputError, match="already holds a finished wear run.*--overwrite"):
        run_wear_study(rig(registry), registry=registry, out=out)
    xr.testing.assert_identical(open_store(out), first)
    other = rig(registry, RIG_SHORT.replace("cycles = 600.0", "cycles = 300.0"))
    notes = []
    new = run_wear_study(other, registry=registry, out=out, overwrite=True, note=notes.append)
    assert float(new.cycle[-1]) + float(new.cycle_jump[-1]) == 300.0
    assert any("replacing the wear store" in n for n in notes)
    assert not list(tmp_path.glob(".f.zarr.replaced-*"))            # the old one is gone


def test_overwrite_puts_the_old_store_back_when_the_new_run_fails_first(tmp_path, registry, monkeypatch):
    out = tmp_path / "f.zarr"
    first = run_wear_study(rig(registry), registry=registry, out=out)
    import workbench.wear.loop as loop

    def broken(run, ideal):
        raise WorkbenchError("pressure model exploded (test)")

    monkeypatch.setattr(loop, "measure", broken)
    with pytest.raises(WorkbenchError, match="exploded"):
        run_wear_study(rig(registry), registry=registry, out=out, overwrite=True, note=lambda m: None)
    xr.testing.assert_identical(open_store(out), first)
    assert open_store(out).attrs["run_status"] == "complete"
    assert not list(tmp_path.glob(".f.zarr.replaced-*"))


def test_a_failure_after_an_update_keeps_it_and_says_so(tmp_path, registry, monkeypatch):
    out = tmp_path / "p.zarr"
    import workbench.wear.loop as loop
    real, calls = loop.measure, []

    def fails_second(run, ideal):
        calls.append(1)
        if len(calls) == 2:
            raise WorkbenchError("solver gave up (test)")
        return real(run, ideal)

    monkeypatch.setattr(loop, "measure", fails_second)
    with pytest.raises(WorkbenchError, match="gave up"):
        run_wear_study(rig(registry), registry=registry, out=out)
    kept = open_store(out)
    assert kept.sizes["cycle"] == 1 and kept.attrs["run_status"].startswith("failed: solver gave up")
    assert "--resume" in kept.attrs["run_status"]
    monkeypatch.setattr(loop, "measure", real)
    with pytest.raises(OutputError, match="unfinished wear run.*--resume"):
        run_wear_study(rig(registry), registry=registry, out=out)
    assert run_wear_study(rig(registry), registry=registry, out=out, resume=True).attrs["run_status"] == "complete"


def test_a_failure_before_the_first_update_leaves_no_folder(tmp_path, registry, monkeypatch):
    import workbench.wear.loop as loop

    def broken(run, ideal):
        raise WorkbenchError("broken (test)")

    monkeypatch.setattr(loop, "measure", broken)
    with pytest.raises(WorkbenchError):
        run_wear_study(rig(registry), registry=registry, out=tmp_path / "n.zarr")
    assert not (tmp_path / "n.zarr").exists()


def test_ctrl_c_marks_the_store_interrupted_and_releases_the_lock(tmp_path, registry, monkeypatch):
    """In-process (the command-line case, a real SIGINT, is in tests/results/test_data_safety.py)."""
    out = tmp_path / "c.zarr"
    import workbench.wear.loop as loop
    real, calls = loop.measure, []

    def interrupted_second(run, ideal):
        calls.append(1)
        if len(calls) == 2:
            # what numba makes of a Ctrl-C inside compiled code: a SystemError with the
            # KeyboardInterrupt as its context
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt:
                raise SystemError("CPUDispatcher(<function integrate>) returned a result with an exception set")
        return real(run, ideal)

    monkeypatch.setattr(loop, "measure", interrupted_second)
    with pytest.raises(KeyboardInterrupt):
        run_wear_study(rig(registry), registry=registry, out=out)
    kept = open_store(out)
    assert kept.sizes["cycle"] == 1 and kept.attrs["run_status"] == "interrupted (resume with --resume)"
    assert lock_record(out) == {}
    monkeypatch.setattr(loop, "measure", real)
    assert run_wear_study(rig(registry), registry=registry, out=out, resume=True).attrs["run_status"] == "complete"


@pytest.mark.slow
def test_kill_9_at_random_points_then_rerun_ends_identical_to_an_uninterrupted_run(tmp_path, registry):
    """``kill -9`` of ``workbench run`` at random points -- during the store's creation and after
    random numbers of updates -- then a plain re-run (nothing completed) or ``--resume``: the
    store ends identical to an uninterrupted run's."""
    import random
    text = RIG.read_text().replace("depth_step = 0.05            # <= 1 um per update", "depth_step = 0.01") \
                          .replace("cycles = 2000.0", "cycles = 6000.0")
    study = tmp_path / "rig.toml"
    study.write_text(text)
    full = run_wear_study(rig(registry, text), registry=registry, out=tmp_path / "full.zarr")
    n = full.sizes["cycle"]
    rng = random.Random(20261123)
    out = tmp_path / "k.zarr"
    kills = [0] + sorted(rng.sample(range(1, n - 1), 2))   # 0: while the store is being created
    for target in kills:
        proc = _start(study, out, *(("--resume",) if _completed(out) else ()))
        try:
            if target == 0:
                assert _wait_for(lambda: lock_record(out).get("pid") == proc.pid, proc, timeout=120)
            else:
                assert _wait_for(lambda: _completed(out) >= target, proc), f"no update {target}"
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    r = subprocess.run([sys.executable, "-m", "workbench.cli.main", "run", str(study), "-o", str(out), "--no-plot",
                        *(("--resume",) if _completed(out) else ())], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    res = open_store(out)
    assert res.attrs["run_status"] == "complete" and res.sizes["cycle"] == n
    for name in ("wear_depth", "wear_volume", "peak_pressure", "cycle_jump", "sliding_distance"):
        np.testing.assert_array_equal(res[name].values, full[name].values, err_msg=name)
    np.testing.assert_array_equal(res.cycle.values, full.cycle.values)
