"""Fault injection on the wear store: every write step of an update, a full disk, a read-only
folder, damaged attribute and commit files -- each followed by a re-run or ``--resume``.

The promise under test (docs/data_safety.md): a failure anywhere loses at most the update in
progress; the store then either ends identical to an uninterrupted run's, or the workbench
refuses clearly and changes nothing.  Never a completed update deleted.

How the faults are made:

* The write steps of one update are the file-system operations the store makes: every key zarr
  writes (``zarr.storage._local._put``), every ``os.replace`` / ``os.rename`` / ``os.link`` /
  ``os.unlink`` / ``os.write`` (zarr's atomic writes, our commit record, the session's lock).  :class:`Faults`
  counts them; a run of one update is first counted, then repeated once per step ``i``, in a
  forked child that ``kill -9``s itself at step ``i`` (a real SIGKILL, mid-write, threads and
  all), or in-process raising ``ENOSPC`` / ``EROFS`` at step ``i`` and at every write after it
  (a disk that stays full, a folder that stays read-only).
* The updates replayed are the exact ``create``/``append``/``set_attrs`` calls of an
  uninterrupted run of the journal rig (recorded once), driven through the same
  :class:`StoreSession` a run uses: a plain re-run restarts a provably empty store, ``--resume``
  continues one with completed updates.
* A real full disk (a 2 MB tmpfs, root only) and the command line close the loop end to end.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import zarr
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.results.outputs import STORE_META
from workbench.study.load import load_study_text
from workbench.wear import store as store_mod
from workbench.results.store_commit import STATE_NAME, committed
from workbench.wear.loop import run_wear_study
from workbench.wear.session import StoreSession
from workbench.wear.store import COMPLETED, WearStore, completed_updates, open_store

ROOT = Path(__file__).resolve().parents[2]
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"
#: the journal rig, short: 4 updates (a record each), 1 s
RIG_TEXT = RIG.read_text().replace("cycles = 2000.0", "cycles = 1500.0") \
                          .replace("depth_step = 0.05            # <= 1 um per update", "depth_step = 0.02")


# ------------------------------------------------------------------------------------------------
# the reference run and its replay
# ------------------------------------------------------------------------------------------------
class _Recorder:
    def __init__(self):
        self.calls = []


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run of the rig: its store, and the store calls it made (in order)."""
    from workbench.plugins import build_registry
    registry = build_registry()
    rec = _Recorder()
    mp = pytest.MonkeyPatch()
    for name in ("create", "append", "set_attrs"):
        real = getattr(WearStore, name)

        def spy(self, *a, _real=real, _name=name, **k):
            rec.calls.append((_name, a, k))
            return _real(self, *a, **k)
        mp.setattr(WearStore, name, spy)
    out = tmp_path_factory.mktemp("ref") / "full.zarr"
    try:
        run_wear_study(load_study_text(RIG_TEXT, file=RIG, registry=registry), registry=registry, out=out)
    finally:
        mp.undo()
    updates = [k for k, c in enumerate(rec.calls) if c[0] in ("create", "append")]
    assert len(updates) >= 3, "the rig should make several updates"
    return out, rec.calls


def _synthetic_calls(n: int = 4) -> list:
    """The store calls of a small made-up run of ``n`` updates (a few variables of each kind the
    rig stores: float profiles, integers, text, a record with its ``record_cycle``; records on
    every other update; validity notes committed with update 2): fast enough to kill at every
    write step of every update."""
    theta = np.linspace(0.0, 2 * np.pi, 8, endpoint=False)
    phase = np.linspace(0.0, 1.0, 5)

    def row(k):
        c = 1000.0 * (k + 1)
        return xr.Dataset(
            {"wear_depth": (("cycle", "theta"), np.full((1, 8), 1e-6 * (k + 1)), {"units": "m", "long_name": "depth"}),
             "wear_volume": (("cycle",), [1e-12 * (k + 1)], {"units": "m^3", "long_name": "volume"}),
             "update": (("cycle",), np.array([k], dtype=np.int64), {"units": "1", "long_name": "update"}),
             "cycle_jump": (("cycle",), [np.nan if k == 1 else 500.0], {"units": "1", "long_name": "jump"}),
             "status": (("cycle",), np.array([f"update {k}"]), {"units": "1", "long_name": "note"})},
            coords={"cycle": ("cycle", [c], {"units": "1", "long_name": "cycles"})})

    def record(k):
        return xr.Dataset(
            {"dyn_force": (("record", "phase"), np.full((1, 5), float(k)), {"units": "N", "long_name": "force"})},
            coords={"record_cycle": ("record", [1000.0 * (k + 1)], {"units": "1", "long_name": "record cycle"}),
                    "phase": ("phase", phase, {"units": "1", "long_name": "phase"})})
    static = xr.Dataset({"ideal": (("phase",), np.sin(phase), {"units": "m", "long_name": "ideal"})},
                        coords={"theta": ("theta", theta, {"units": "rad", "long_name": "angle"})})
    first = xr.merge([static, row(0), record(0)]).assign_attrs(
        study_kind="wear", workbench_version="test", title="made up", study_text="[study]\n", run_status="running")
    calls = [("create", (first,), {"attrs": None})]
    for k in range(1, n):
        calls.append(("append", (row(k), record(k) if k % 2 == 0 else None),
                      {"attrs": {"validity_notes": [f"note {k}"]} if k == 2 else None}))
    calls.append(("set_attrs", (), {"run_status": "complete", "wall_time": 1.5}))
    return calls


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """The made-up run (:func:`_synthetic_calls`) played uninterrupted: its store and its calls."""
    calls = _synthetic_calls()
    out = tmp_path_factory.mktemp("syn") / "full.zarr"
    drive(out, calls)
    return out, calls


def _update_calls(calls):
    """Index in ``calls`` of each update's call (create or append)."""
    return [k for k, c in enumerate(calls) if c[0] in ("create", "append")]


def drive(out: Path, calls, *, stop_after: int | None = None, notes=None) -> str:
    """Play ``calls`` into ``out`` as ``run_wear_study`` does: a plain run of a new or provably
    empty store, ``--resume`` of one with completed updates (from its first missing update).
    ``stop_after``: stop after that many calls in total (counted from the start of ``calls``).
    Returns ``"run"`` or ``"resume"``."""
    resume = out.is_dir() and completed_updates(out) > 0
    session = StoreSession(out, resume=resume, note=(notes.append if notes is not None else lambda m: None)).open()
    try:
        store = WearStore(out)
        start = 0
        if session.resume:
            n = store.resume().sizes["cycle"]
            start = _update_calls(calls)[n] if n < len(_update_calls(calls)) else _update_calls(calls)[-1] + 1
        end = len(calls) if stop_after is None else stop_after
        for name, a, k in calls[start:end]:
            getattr(store, name)(*a, **k)
    except BaseException as exc:
        session.close(exc)
        raise
    session.close(None)
    return "resume" if session.resume else "run"


_REF: dict = {}


def _reference_view(ref: Path):
    key = (str(ref), ref.stat().st_mtime_ns)
    if key not in _REF:
        g = zarr.open_group(str(ref), mode="r")
        _REF.clear()
        _REF[key] = (open_store(ref), {n: x.shape for n, x in g.arrays()}, dict(g.attrs))
    return _REF[key]


def assert_identical(out: Path, ref: Path) -> None:
    """The store at ``out`` holds exactly what the uninterrupted run's holds: the same dataset
    (values, attributes), the same array shapes, its commit record agreeing, no stray files."""
    b, shapes, attrs = _reference_view(ref)
    a = open_store(out)
    xr.testing.assert_identical(a, b)
    ga = zarr.open_group(str(out), mode="r")
    assert {n: x.shape for n, x in ga.arrays()} == shapes
    assert dict(ga.attrs) == attrs
    with xr.open_zarr(out, consolidated=False) as plain:    # xarray alone reads it too
        assert plain.sizes["cycle"] == a.attrs[COMPLETED]
    stray = [p for p in out.rglob("*") if p.name.endswith((".partial", ".tmp")) or "-probe-" in p.name]
    assert not stray, stray


# ------------------------------------------------------------------------------------------------
# counting and failing the write steps
# ------------------------------------------------------------------------------------------------
class Crash(BaseException):
    """Raised in place of a write of a "dead" process (in-process faults)."""


class Faults:
    """Count the file-system write steps; act at step ``at`` (``kill`` -9, or raise ``error``
    there and at every later step)."""

    def __init__(self, at: int | None = None, *, kill: bool = False, error: int | None = None):
        self.at, self.kill, self.error = at, kill, error
        self.steps = 0
        self.fired = False
        self.lock = threading.Lock()
        self.mp = pytest.MonkeyPatch()

    def _step(self, what: str, path=None) -> None:
        with self.lock:
            i = self.steps
            self.steps += 1
            fire = self.at is not None and (i >= self.at if self.error is not None else i == self.at)
        if not fire:
            return
        self.fired = True
        if self.kill:
            os.kill(os.getpid(), signal.SIGKILL)
        raise OSError(self.error, os.strerror(self.error), str(path) if path is not None else None)

    def __enter__(self) -> "Faults":
        import zarr.storage._local as local
        real_put = local._put

        def put(path, value, exclusive=False):
            self._step("put", path)
            return real_put(path, value, exclusive=exclusive)
        self.mp.setattr(local, "_put", put)
        for name in ("replace", "rename", "link", "unlink", "write"):
            real = getattr(os, name)

            def wrapped(*a, _real=real, _name=name, **k):
                self._step(_name, a[0] if a and not isinstance(a[0], int) else None)
                return _real(*a, **k)
            self.mp.setattr(os, name, wrapped)
        return self

    def __exit__(self, *exc) -> None:
        self.mp.undo()


def count_steps(out: Path, calls, upto: int, through: int) -> int:
    """Write steps of playing calls ``upto .. through-1`` onto a copy of the store at ``out``."""
    with Faults() as f:
        drive(out, calls, stop_after=through) if upto == 0 else _play(out, calls, upto, through)
    return f.steps


def _play(out: Path, calls, start: int, end: int) -> None:
    """Calls ``start .. end-1`` on the store at ``out`` (an open run: through a session, no resume)."""
    session = StoreSession(out, resume=True).open()
    try:
        store = WearStore(out)
        c = committed(out)
        store.rows, store.records, store.attrs = c.updates, c.records, dict(c.attrs)
        for name, a, k in calls[start:end]:
            getattr(store, name)(*a, **k)
    finally:
        session.close(None)


def killed_at(step: int, out: Path, calls, start: int, end: int) -> int:
    """Fork; the child plays calls ``start .. end-1`` and is killed -9 at write step ``step``.
    Returns the child's wait status."""
    pid = os.fork()
    if pid == 0:   # the child: never returns into pytest
        try:
            with Faults(step, kill=True):
                if start == 0:
                    drive(out, calls, stop_after=end)
                else:
                    _play(out, calls, start, end)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return status


def _prefix(tmp_path: Path, calls, n_calls: int, name: str) -> Path:
    """A store holding the first ``n_calls`` calls, written without faults."""
    out = tmp_path / name
    if n_calls:
        drive(out, calls, stop_after=n_calls)
    return out


# ------------------------------------------------------------------------------------------------
# kill -9 at every write step
# ------------------------------------------------------------------------------------------------
@pytest.fixture
def scratch(tmp_path):
    """A folder for the many stores of a fault test: a tmpfs when this runs as root on Linux
    (the stores' ``fsync`` calls then cost nothing; the faults are the same), else ``tmp_path``."""
    mnt = tmp_path / "tmpfs"
    mnt.mkdir()
    mounted = (os.geteuid() == 0 and sys.platform.startswith("linux") and
               subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", str(mnt)],
                              capture_output=True).returncode == 0)
    yield mnt
    if mounted:
        subprocess.run(["umount", "-l", str(mnt)])


def _kill_every_step(tmp_path, calls, which: int, stride: int = 1):
    """Kill -9 the play of update ``which`` (or, past the last update, the final calls) at every
    ``stride``-th write step; after each, re-run / resume to the end of that update and compare
    with an uninterrupted play of the same calls.  Returns ``{step: (completed after the kill,
    "run" | "resume")}``."""
    ups = _update_calls(calls)
    start = ups[which] if which < len(ups) else ups[-1] + 1
    end = ups[which + 1] if which + 1 < len(ups) else len(calls)
    ref = _prefix(tmp_path, calls, end, "ref.zarr")
    base = _prefix(tmp_path, calls, start, "base.zarr")
    probe = tmp_path / "probe.zarr"
    if base.exists():
        shutil.copytree(base, probe)
    n = count_steps(probe, calls, start, end)
    assert n > (3 if start > ups[-1] else 10), f"only {n} write steps counted"
    outcomes = {}
    for step in [*range(0, n, stride), *([n - 1] if (n - 1) % stride else [])]:
        out = tmp_path / f"k{step}.zarr"
        if base.exists():
            shutil.copytree(base, out)
        status = killed_at(step, out, calls, start, end)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (step, status)
        before = completed_updates(out) if out.exists() else 0
        assert before in (min(which, len(ups)), min(which + 1, len(ups))), (step, before)  # never fewer
        how = drive(out, calls, stop_after=end)
        assert_identical(out, ref)
        outcomes[step] = (before, how)
        shutil.rmtree(out)
    return outcomes


@pytest.mark.parametrize("which, stride", [(0, 31), (1, 7), (2, 17), (4, 1)],
                         ids=["create", "append", "append+record+notes", "final-status"])
def test_kill_9_at_every_write_step_then_resume_is_identical(scratch, which, stride):
    """Every write step of the final status (6), every 17th step of the richest update (an append
    with a dynamics record and validity notes: 62 steps), every 7th of an append without a record
    (46), every 31st of the store's creation (191), and the last step of each (every step of each:
    the slow variant test_kill_9_at_every_write_step_of_the_made_up_run, which keeps the default
    suite under 8 minutes on 2 cores; the strides were 8, 4 and 16 until the suite had to get back
    under 8 minutes again -- odd now, so that the steps sampled do not fall on one kind of write
    of a repeating pattern): killed there with SIGKILL, a
    re-run (provably empty store) or ``--resume`` ends identical to the uninterrupted play, and
    the completed-update count read after the kill is never below the updates completed."""
    outcomes = _kill_every_step(scratch, _synthetic_calls(), which, stride)
    if which < 4:   # killed before and after the commit of the update
        assert {before for before, _ in outcomes.values()} == {which, which + 1}
    if which == 0:
        assert {how for _, how in outcomes.values()} == {"run", "resume"}
    else:
        assert all(how == "resume" for _, how in outcomes.values())


def test_kill_9_during_an_update_of_the_rig_then_resume_is_identical(scratch, reference):
    """The real rig's second update (about 50 variables, a record, validity notes: 260 write
    steps) killed at every 149th write step and at the last one, before and after its commit
    (every step: the slow variant below; every 37th, then every 73rd, until the default suite had
    to get back under 8 minutes on 2 cores)."""
    outcomes = _kill_every_step(scratch, reference[1], 1, stride=149)
    assert {before for before, _ in outcomes.values()} == {1, 2}


@pytest.mark.slow
@pytest.mark.parametrize("which", [0, 1, 2])
def test_kill_9_at_every_write_step_of_the_rig(scratch, reference, which):
    _kill_every_step(scratch, reference[1], which)


@pytest.mark.slow
@pytest.mark.parametrize("which", [0, 1, 2, 4])
def test_kill_9_at_every_write_step_of_the_made_up_run(scratch, which):
    _kill_every_step(scratch, _synthetic_calls(), which)


@pytest.mark.slow
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EIO])
def test_a_write_failure_at_every_step_of_the_rig(scratch, reference, code):
    _fail_every_step(scratch, reference[1], 2, code)


@pytest.mark.slow
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EIO])
@pytest.mark.parametrize("which", [1, 2])
def test_a_write_failure_at_every_step_of_the_made_up_run(scratch, code, which):
    _fail_every_step(scratch, _synthetic_calls(), which, code)


# ------------------------------------------------------------------------------------------------
# a full disk, a read-only folder: at every write step of an update
# ------------------------------------------------------------------------------------------------
def _fail_every_step(tmp_path, calls, which: int, code: int, stride: int = 1) -> int:
    ups = _update_calls(calls)
    start, end = ups[which], ups[which + 1]
    ref = _prefix(tmp_path, calls, end, "ref.zarr")
    base = _prefix(tmp_path, calls, start, "base.zarr")
    probe = tmp_path / "probe.zarr"
    shutil.copytree(base, probe)
    session = StoreSession(probe, resume=True).open()
    store = WearStore(probe)
    store.resume()
    with Faults() as counter:             # the write steps of the update's own calls
        for name, a, k in calls[start:end]:
            getattr(store, name)(*a, **k)
    session.close(None)
    n = counter.steps
    for step in range(0, n, stride):
        out = tmp_path / f"f{step}.zarr"
        shutil.copytree(base, out)
        session = StoreSession(out, resume=True).open()
        store = WearStore(out)
        store.resume()
        with Faults(step, error=code) as f:
            with pytest.raises(OSError) as info:
                for name, a, k in calls[start:end]:
                    getattr(store, name)(*a, **k)
            session.close(info.value)      # as guarded() does: record the failure, release the lock
        assert f.fired and info.value.errno == code
        assert completed_updates(out) >= which, step                 # nothing completed is lost
        assert open_store(out).sizes["cycle"] == completed_updates(out)
        assert drive(out, calls, stop_after=end) == "resume"
        assert_identical(out, ref)
        shutil.rmtree(out)
    return n


@pytest.mark.parametrize("code, stride", [(errno.ENOSPC, 17), (errno.EROFS, 23), (errno.EIO, 23)],
                         ids=["disk-full", "read-only", "io-error"])
def test_a_write_failure_at_every_step_keeps_the_completed_updates(scratch, code, stride):
    """ENOSPC (the disk stays full) from the i-th write of an update on (62 writes), for every
    17th i; EROFS (the folder stays read-only) and EIO for every 23rd (every i: the slow variant
    test_a_write_failure_at_every_step_of_the_made_up_run; every 8th and 12th until the default
    suite had to get back under 8 minutes on 2 cores): the completed updates are all there, and
    once the cause is gone ``--resume`` ends identical to the uninterrupted play."""
    _fail_every_step(scratch, _synthetic_calls(), 2, code, stride)


def test_a_full_disk_during_an_update_of_the_rig_keeps_the_completed_updates(scratch, reference):
    """The disk full from every 89th write step of the rig's second update on (every step: the
    slow variant test_a_write_failure_at_every_step_of_the_rig; every 47th until the default suite
    had to get back under 8 minutes on 2 cores)."""
    _fail_every_step(scratch, reference[1], 2, errno.ENOSPC, stride=89)


def test_a_write_failure_in_a_run_is_a_clear_error_not_a_traceback(tmp_path, monkeypatch):
    """Through ``workbench run``: disk full at the third update -> exit 2, a message naming the
    cause and the updates kept, the store kept with them; ``--resume`` then finishes it."""
    study = tmp_path / "rig.toml"
    study.write_text(RIG_TEXT)
    out = tmp_path / "d.zarr"
    real = WearStore.append
    calls = {"n": 0}

    def full_disk(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path / "wear_depth" / "2.0.0.0"))
        return real(self, *a, **k)
    monkeypatch.setattr(WearStore, "append", full_disk)
    r = CliRunner().invoke(main, ["run", str(study), "-o", str(out), "--no-plot"], env={"COLUMNS": "250"})
    assert r.exit_code == 2, r.output
    assert "No space left on device (ENOSPC)" in r.output and "keeps its 2 completed updates" in r.output
    assert "Traceback" not in r.output and r.exception is None or isinstance(r.exception, SystemExit)
    assert completed_updates(out) == 2 and "failed" in open_store(out).attrs["run_status"]
    monkeypatch.setattr(WearStore, "append", real)
    r = CliRunner().invoke(main, ["run", str(study), "-o", str(out), "--no-plot", "--resume"])
    assert r.exit_code == 0, r.output
    assert open_store(out).attrs["run_status"] == "complete"


@pytest.mark.skipif(os.geteuid() != 0 or not sys.platform.startswith("linux"), reason="mounts a tmpfs (root)")
def test_a_real_full_disk_keeps_the_store_and_resume_finishes_it_identically(tmp_path, reference):
    """A 1 MB tmpfs fills up during the run (``workbench run`` in a subprocess): exit 2 with a
    message, no traceback, every completed update kept; the tmpfs grown, ``--resume`` ends
    identical to the uninterrupted run.  The resume runs in this process (``workbench run
    --resume`` through click; a second subprocess until the default suite had to get back under
    8 minutes on 2 cores): what a resume does after a failed run does not depend on the process
    it runs in, and the subprocess still makes the real ENOSPC, its exit status and stderr."""
    ref, _calls = reference
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        study = tmp_path / "rig.toml"
        study.write_text(RIG_TEXT)
        out = mnt / "w.zarr"
        env = {**os.environ, "COLUMNS": "250"}
        cmd = [sys.executable, "-m", "workbench.cli.main", "run", str(study), "-o", str(out), "--no-plot"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
        assert r.returncode == 2, r.stderr
        assert "No space left on device" in r.stderr and "Traceback" not in r.stderr
        n = completed_updates(out)
        assert n >= 1 and f"keeps its {n} completed updates" in " ".join(r.stderr.split())
        kept = open_store(out)
        full = open_store(ref)
        np.testing.assert_array_equal(kept.wear_depth.values, full.wear_depth.values[:n])
        subprocess.run(["mount", "-o", "remount,size=64m", str(mnt)], check=True)
        r = CliRunner().invoke(main, cmd[3:] + ["--resume"], env={"COLUMNS": "250"})
        assert r.exit_code == 0, r.output
        res = open_store(out)
        assert res.attrs["run_status"] == "complete"
        for name in ("wear_depth", "wear_volume", "peak_pressure", "cycle_jump", "cycle", "dyn_contact_force"):
            np.testing.assert_array_equal(res[name].values, full[name].values, err_msg=name)
    finally:
        subprocess.run(["umount", str(mnt)])


# ------------------------------------------------------------------------------------------------
# damaged attribute and commit files
# ------------------------------------------------------------------------------------------------
def _interrupted(tmp_path, run, name="i.zarr", updates=2) -> Path:
    ref, calls = run
    return _prefix(tmp_path, calls, _update_calls(calls)[updates], name)


def _unlocked(snap: dict) -> dict:
    """A snapshot without the lock file (a session refused after taking the lock rewrites it)."""
    assert any("workbench.lock" in k for k in snap)
    return {k: v for k, v in snap.items() if "workbench.lock" not in k}


def _snapshot(p: Path) -> dict:
    return {str(f.relative_to(p)): (f.read_bytes(), f.stat().st_mtime_ns) for f in sorted(p.rglob("*")) if f.is_file()}


@pytest.mark.parametrize("damage", ["empty", "zero-bytes", "garbage", "deleted", "no-counter"])
def test_damaged_root_attributes_are_repaired_from_the_commit_record(tmp_path, synthetic, damage):
    """The root ``.zattrs`` of an interrupted store emptied, truncated, overwritten, deleted or
    stripped of its counter (the issue's window): the store is not restarted; ``--resume``
    repairs it and ends identical."""
    ref, calls = synthetic
    out = _interrupted(tmp_path, synthetic)
    za = out / ".zattrs"
    if damage == "empty":
        za.write_text("{}")
    elif damage == "zero-bytes":
        za.write_bytes(b"")
    elif damage == "garbage":
        za.write_bytes(b"\x00\xff not json")
    elif damage == "deleted":
        za.unlink()
    else:
        attrs = json.loads(za.read_text())
        del attrs[COMPLETED]
        za.write_text(json.dumps(attrs))
    assert completed_updates(out) == 2
    with pytest.raises(Exception, match="unfinished wear run"):   # a plain run refuses, deletes nothing
        StoreSession(out).open()
    notes = []
    assert drive(out, calls, notes=notes) == "resume"
    assert not any("starting it again" in n for n in notes)
    assert_identical(out, ref)


@pytest.mark.parametrize("damage", ["empty", "garbage", "deleted", "wrong-type"])
def test_a_damaged_commit_record_is_recovered_from_the_arrays(tmp_path, synthetic, damage):
    """The commit record emptied, overwritten or deleted (a store of an earlier version has
    none): the count is recovered from the rows every variable holds, the attributes from the
    root ``.zattrs``; ``--resume`` ends identical."""
    ref, calls = synthetic
    out = _interrupted(tmp_path, synthetic)
    st = out / STORE_META / STATE_NAME
    if damage == "empty":
        st.write_bytes(b"")
    elif damage == "garbage":
        st.write_text("{\"updates_completed\": ")
    elif damage == "deleted":
        st.unlink()
    else:
        st.write_text(json.dumps({"format": 1, COMPLETED: "2", "records_completed": 2, "attrs": {}}))
    c = committed(out)
    assert (c.updates, c.records, c.source) == (2, 1, "arrays")     # a record with updates 0 and 2
    assert drive(out, calls) == "resume"
    assert_identical(out, ref)


@pytest.mark.parametrize("damaged", [".zattrs", STATE_NAME])
def test_the_rig_with_an_emptied_attributes_or_commit_file_resumes_identically(tmp_path, reference, damaged):
    """Issue 3 on the real rig: the root ``.zattrs`` (or the commit record) of an interrupted
    store emptied; ``--resume`` keeps every update and ends identical."""
    ref, calls = reference
    out = _interrupted(tmp_path, reference)
    (out / damaged if damaged == ".zattrs" else out / STORE_META / damaged).write_text("{}")
    assert completed_updates(out) == 2
    assert drive(out, calls) == "resume"
    assert_identical(out, ref)


def test_a_partial_row_without_a_commit_record_is_not_counted(tmp_path, synthetic):
    """No commit record, and a kill left the third row in only some variables: the consistent
    count (2) is recovered, never more than any variable has; the partial row is cut on resume."""
    ref, calls = synthetic
    out = _interrupted(tmp_path, synthetic)
    (out / STORE_META / STATE_NAME).unlink()
    g = zarr.open_group(str(out), mode="r+")
    g["wear_depth"].append(np.full((1,) + g["wear_depth"].shape[1:], 7.0), axis=0)
    g["cycle"].append(np.array([1e9]), axis=0)
    assert committed(out).updates == 2
    assert drive(out, calls) == "resume"
    assert_identical(out, ref)


def test_a_resized_row_without_its_chunks_is_not_counted(tmp_path, synthetic):
    """Killed after the last variable's shape grew but before its chunk was written, with the
    commit record lost: that row is not whole, so it is not counted."""
    ref, calls = synthetic
    out = _interrupted(tmp_path, synthetic)
    (out / STORE_META / STATE_NAME).unlink()
    g = zarr.open_group(str(out), mode="r+")
    for name, arr in g.arrays():
        if (arr.attrs.get("_ARRAY_DIMENSIONS") or [None])[0] == "cycle":
            arr.resize((arr.shape[0] + 1,) + arr.shape[1:])     # shape only: no chunk file
    assert committed(out).updates == 2
    assert drive(out, calls) == "resume"
    assert_identical(out, ref)


def test_both_attribute_files_lost_is_a_clear_refusal_that_changes_nothing(tmp_path, synthetic):
    """Root ``.zattrs`` and commit record both emptied: the study that made the store is
    unknown, so ``--resume`` refuses (naming the files and the updates kept), a plain run refuses,
    and not one byte or mtime of the store changes."""
    out = _interrupted(tmp_path, synthetic)
    (out / ".zattrs").write_text("{}")
    (out / STORE_META / STATE_NAME).write_bytes(b"")
    before = _snapshot(out)
    with pytest.raises(Exception, match="unfinished wear run"):
        StoreSession(out).open()
    session = StoreSession(out, resume=True).open()
    with pytest.raises(Exception, match=r"attributes that say which study made it are lost.*2 completed updates "
                                        r"are kept") as info:
        WearStore(out).resume()
    session.close(info.value)
    assert str(out / STORE_META / STATE_NAME) in str(info.value)
    assert _unlocked(_snapshot(out)) == _unlocked(before)


def test_a_commit_record_counting_more_than_the_arrays_hold_is_refused(tmp_path, reference):
    """A deleted chunk of a completed row: the store is damaged; resume and a plain run refuse
    (naming the variable), nothing is cut."""
    out = _interrupted(tmp_path, reference)
    (out / "wear_volume" / "1.0.0").unlink()
    before = _snapshot(out)
    for resume in (False, True):
        with pytest.raises(Exception, match="'wear_volume' holds fewer whole rows: the store is damaged"):
            StoreSession(out, resume=resume).open()
    assert _unlocked(_snapshot(out)) == _unlocked(before)


def test_an_old_store_without_its_counter_is_resumed_not_restarted(tmp_path, synthetic):
    """A store of the earlier version (no commit record) killed in the window where xarray had
    rewritten the root attributes without the counter: before, a re-run deleted its updates
    ("stopped before its first update was completed"); now it is not provably empty, a plain
    run refuses and ``--resume`` recovers every update from the arrays."""
    ref, calls = synthetic
    out = _interrupted(tmp_path, synthetic, updates=3)
    (out / STORE_META / STATE_NAME).unlink()
    g = zarr.open_group(str(out), mode="r+")
    del g.attrs[COMPLETED]
    notes = []
    with pytest.raises(Exception, match="3 completed updates"):
        StoreSession(out, note=notes.append).open()
    assert not notes and completed_updates(out) == 3
    assert drive(out, calls) == "resume"
    assert_identical(out, ref)


def test_the_counter_is_present_at_every_write_step_of_an_append(tmp_path, reference):
    """Issue 1 directly: during an append, after every single write step, the root attributes
    still carry a counter and the commit record a count no smaller than before."""
    ref, calls = reference
    ups = _update_calls(calls)
    out = _prefix(tmp_path, calls, ups[2], "w.zarr")
    seen = []

    class Watch(Faults):
        def _step(self, what, path=None):
            super()._step(what, path)
            za, st = out / ".zattrs", out / STORE_META / STATE_NAME
            if za.exists():   # zarr's rename is atomic: the file is always the old or the new one
                seen.append((json.loads(za.read_text()).get(COMPLETED), json.loads(st.read_text())[COMPLETED]))

    with Watch():
        _play(out, calls, ups[2], ups[3])
    assert len(seen) > 10
    assert all(a is not None and a >= 2 and b >= 2 for a, b in seen), seen


def test_issue_3_through_the_command_line(tmp_path, reference):
    """The reported case: an interrupted store's root ``.zattrs`` emptied, then ``workbench run
    --resume`` (the real wear loop, restoring its state from the store): exit 0, every update
    kept, the result identical to the uninterrupted run's; a plain run before it refuses."""
    from workbench.plugins import build_registry
    ref, _calls = reference
    study = tmp_path / "rig.toml"
    study.write_text(RIG_TEXT)
    out = tmp_path / "e.zarr"
    registry = build_registry()
    run_wear_study(load_study_text(RIG_TEXT, file=study, registry=registry), registry=registry, out=out,
                   max_updates=2)
    (out / ".zattrs").write_text("{}")
    r = CliRunner().invoke(main, ["run", str(study), "-o", str(out), "--no-plot"], env={"COLUMNS": "250"})
    assert r.exit_code == 2 and "unfinished wear run (2 completed updates" in r.output, r.output
    r = CliRunner().invoke(main, ["run", str(study), "-o", str(out), "--no-plot", "--resume"])
    assert r.exit_code == 0, r.output
    res, full = open_store(out), open_store(ref)
    assert res.attrs["run_status"] == "complete" and res.sizes == full.sizes
    for name in res.data_vars:
        np.testing.assert_array_equal(res[name].values, full[name].values, err_msg=name)


def test_a_plugin_raising_keeps_the_completed_updates_and_exits_3(tmp_path, monkeypatch):
    """A wear law that raises in the third update (a plugin's bug): exit status 3, a message
    naming the law, the update and the joint, no traceback; the two completed updates are kept
    and ``--resume`` finishes the run once the law works."""
    study = tmp_path / "rig.toml"
    study.write_text(RIG_TEXT)
    out = tmp_path / "p.zarr"
    from workbench.plugins import build_registry
    Archard = build_registry().get("wear", "archard")
    real_depth = Archard.depth
    state = {"armed": False, "off": False}
    real_append = WearStore.append

    def counting_append(self, *a, **k):
        real_append(self, *a, **k)
        state["armed"] = not state["off"]            # two updates completed: the law fails next

    def flaky(self, pressure, *a, **k):
        if state["armed"]:
            pressure = {"not": "an array"}          # the law's own code fails on it
        return real_depth(self, pressure, *a, **k)
    monkeypatch.setattr(Archard, "depth", flaky)
    monkeypatch.setattr(WearStore, "append", counting_append)
    r = CliRunner().invoke(main, ["run", str(study), "-o", str(out), "--no-plot"], env={"COLUMNS": "250"})
    text = " ".join(r.output.split())
    assert r.exit_code == 3, r.output
    assert "wear update 2: the wear law 'archard' raised" in text and "for joint 'J'" in text
    assert "Traceback" not in r.output and completed_updates(out) == 2
    assert "failed" in open_store(out).attrs["run_status"]
    state.update(armed=False, off=True)
    r = CliRunner().invoke(main, ["run", str(study), "-o", str(out), "--no-plot", "--resume"])
    assert r.exit_code == 0, r.output
    assert open_store(out).attrs["run_status"] == "complete"


@pytest.mark.slow
def test_issue_1_reproduction_the_counter_is_never_missing_while_a_run_writes(tmp_path):
    """The reported reproduction: ``workbench run`` of the rig with many updates, ``.zattrs``
    polled; the counter is present in every read of it (and the commit record readable); kill -9
    after 3 or more updates; a plain re-run refuses (it never restarts and deletes), ``--resume``
    finishes with every update kept."""
    import time
    text = RIG.read_text().replace("cycles = 2000.0", "cycles = 20000.0") \
                          .replace("depth_step = 0.05            # <= 1 um per update", "depth_step = 0.01")
    study = tmp_path / "rig.toml"
    study.write_text(text)
    out = tmp_path / "r.zarr"
    cmd = [sys.executable, "-m", "workbench.cli.main", "run", str(study), "-o", str(out), "--no-plot"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    reads, missing, done = 0, 0, 0
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None and done < 3:
            try:
                raw = (out / ".zattrs").read_bytes()
            except FileNotFoundError:
                continue
            attrs = json.loads(raw) if raw.strip() else {}
            if "study_kind" in attrs:   # the group exists
                reads += 1
                missing += COMPLETED not in attrs
                done = json.loads((out / STORE_META / STATE_NAME).read_text())[COMPLETED]
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert done >= 3 and reads > 10 and missing == 0, (done, reads, missing)
    n = completed_updates(out)
    assert n >= 3
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "continue it with --resume" in r.stderr and completed_updates(out) == n
    r = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    assert open_store(out).attrs["run_status"] == "complete"


@pytest.mark.skipif(os.geteuid() != 0 or not sys.platform.startswith("linux"), reason="mounts a tmpfs (root)")
def test_a_real_read_only_folder_is_refused_before_the_work_and_resume_finishes_later(tmp_path, synthetic):
    """An interrupted store on a file system remounted read-only: ``--resume`` (and a plain run)
    refuse before any work with exit-2 messages, the store unchanged; remounted writable,
    ``--resume`` ends identical."""
    ref, calls = synthetic
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mnt)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        out = _interrupted(mnt, synthetic)
        before = _snapshot(out)
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        for resume in (True, False):
            with pytest.raises(Exception, match="not writable.*Read-only file system"):
                StoreSession(out, resume=resume).open()
        assert _snapshot(out) == before
        subprocess.run(["mount", "-o", "remount,rw", str(mnt)], check=True)
        assert drive(out, calls) == "resume"
        assert_identical(out, ref)
    finally:
        subprocess.run(["umount", "-l", str(mnt)])
