"""Clear errors on a wear store instead of tracebacks or silent damage.

Each case is a ``workbench run`` of the short journal rig with its expected outcome: the exit
status (2 bad input or a damaged/unwritable store, 3 a model's fault), a message naming the
store, the file or the model, and -- where the store is refused -- every file of it unchanged,
bytes and modification time (:func:`test_data_safety.snapshot`).

* ``--resume`` of a finished store: "already complete", nothing rewritten (its attributes were);
* a chunk file deleted from a finished store: the store and the chunk named (zarr would read it as
  NaN, and the run blamed the contact law);
* the lock file replaced by a folder: refused naming it (was: IsADirectoryError);
* the store made unwritable mid-run (EACCES from every write after the first update): exit 2 with
  the cause, the completed update kept and ``--resume`` finishing the run;
* an installed plugin's pressure model raising in the second update: exit 3 naming the model, the
  update and the joint; the first update kept.
"""
from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.wear.store import WearStore, completed_updates, open_store

ROOT = Path(__file__).resolve().parents[2]
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"
#: the journal rig, short: 2 updates
RIG_TEXT = RIG.read_text().replace("cycles = 2000.0", "cycles = 600.0")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "250"})


def snapshot(folder: Path) -> dict:
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()}


def _refused(r, code, *words):
    text = " ".join(r.output.split())
    assert r.exit_code == code, r.output
    assert isinstance(r.exception, SystemExit) and "Traceback" not in r.output
    for w in words:
        assert w in text, (w, r.output)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished run of the short rig (study file, store)."""
    folder = tmp_path_factory.mktemp("finished")
    study = folder / "rig.toml"
    study.write_text(RIG_TEXT)
    r = invoke("run", study, "-o", folder / "done.zarr", "--no-plot")
    assert r.exit_code == 0, r.output
    assert open_store(folder / "done.zarr").attrs["run_status"] == "complete"
    return study, folder / "done.zarr"


@pytest.fixture
def copy(finished, tmp_path):
    study, store = finished
    shutil.copy(study, tmp_path / "rig.toml")
    shutil.copytree(store, tmp_path / "c.zarr")
    return tmp_path / "rig.toml", tmp_path / "c.zarr"


def test_resume_of_a_finished_store_changes_nothing(copy):
    study, store = copy
    n = completed_updates(store)
    before = snapshot(store.parent)
    r = invoke("run", study, "-o", store, "--resume", "--no-plot")
    assert r.exit_code == 0, r.output
    assert "already complete" in r.output and f"({n} updates)" in r.output and "nothing was run or written" in r.output
    assert snapshot(store.parent) == before
    # the same from Python: a note, the dataset, no byte changed
    from workbench.plugins import build_registry
    from workbench.study.load import load_study_text
    from workbench.wear.loop import run_wear_study
    reg = build_registry()
    notes = []
    ds = run_wear_study(load_study_text(study.read_text(), file=study, registry=reg), registry=reg, out=store,
                        resume=True, note=notes.append)
    assert ds.sizes["cycle"] == n and any("already complete" in m for m in notes)
    assert snapshot(store.parent) == before


def test_resume_after_a_kill_between_the_last_update_and_its_status_completes_it(copy):
    """The last update is committed but the run died before writing ``run_status = complete``:
    ``--resume`` has no update left to run and records the status (no row added)."""
    from workbench.results.store_commit import committed
    study, store = copy
    c = committed(store)
    ws = WearStore(store)
    ws.rows, ws.records, ws.attrs = c.updates, c.records, dict(c.attrs)
    ws.set_attrs(run_status="running")
    r = invoke("run", study, "-o", store, "--resume", "--no-plot")
    assert r.exit_code == 0 and "already complete" not in r.output, r.output
    ds = open_store(store)
    assert ds.attrs["run_status"] == "complete" and completed_updates(store) == c.updates


def test_resume_of_a_finished_store_of_another_study_is_still_refused(copy):
    study, store = copy
    study.write_text(study.read_text().replace("cycles = 600.0", "cycles = 900.0"))
    r = invoke("run", study, "-o", store, "--resume", "--no-plot")
    assert r.exit_code == 2 and "different study text" in r.output and "already complete" not in r.output, r.output


@pytest.mark.parametrize("chunk", ["wear_depth/0.0.0.0", "theta/0"])
def test_a_deleted_chunk_names_the_store_and_the_chunk(copy, chunk):
    """An appended variable's first row (``wear_depth``) or a fixed one (``theta``): zarr reads a
    missing chunk as fill values; the run blamed the contact law.  Now ``plot`` and ``--resume``
    name the store and the chunk and change nothing."""
    study, store = copy
    (store / chunk).unlink()
    before = snapshot(store.parent)
    _refused(invoke("plot", store, "-o", store.parent / "figs"), 2, str(store), f"chunk file {chunk}", "is missing")
    _refused(invoke("run", study, "-o", store, "--resume", "--no-plot"), 2, str(store), f"chunk file {chunk}")
    assert "contact" not in invoke("run", study, "-o", store, "--resume", "--no-plot").output
    assert snapshot(store.parent) == before and not (store.parent / "figs").exists()


def test_the_lock_file_replaced_by_a_folder_is_refused_naming_it(copy):
    study, store = copy
    lock = store / ".workbench" / ".workbench.lock"
    lock.unlink(missing_ok=True)
    lock.mkdir()
    (lock / "x").write_text("someone's")
    before = snapshot(store.parent)
    for flags in (("--overwrite",), ()):
        _refused(invoke("run", study, "-o", store, "--no-plot", *flags), 2, str(lock), "is a folder")
    assert snapshot(store.parent) == before and lock.is_dir()


def test_a_store_made_unwritable_mid_run_keeps_the_completed_update(tmp_path, monkeypatch):
    """Every write after the first update fails with EACCES (``chmod -R a-w`` of the store while it
    runs; root ignores permissions, so the error is injected where zarr and the commit record
    write).  Exit 2 naming the cause; the first update kept; ``--resume`` finishes once writable."""
    import zarr.storage._local as local
    study = tmp_path / "rig.toml"
    study.write_text(RIG_TEXT)
    out = tmp_path / "ro.zarr"
    state = {"armed": False}
    real_put, real_replace, real_append = local._put, os.replace, WearStore.append

    def deny(path):
        if state["armed"] and str(out) in str(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))

    def put(path, value, exclusive=False):
        deny(path)
        return real_put(path, value, exclusive=exclusive)

    def replace(src, dst, *a, **k):
        deny(dst)
        return real_replace(src, dst, *a, **k)

    def append(self, *a, **k):
        state["armed"] = True            # the first update (create) is committed; this one fails
        return real_append(self, *a, **k)
    monkeypatch.setattr(local, "_put", put)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(WearStore, "append", append)
    r = invoke("run", study, "-o", out, "--no-plot")
    _refused(r, 2, "Permission denied (EACCES)", str(out), "keeps its 1 completed updates", "--resume")
    assert completed_updates(out) == 1
    monkeypatch.undo()
    r = invoke("run", study, "-o", out, "--no-plot", "--resume")
    assert r.exit_code == 0, r.output
    assert open_store(out).attrs["run_status"] == "complete" and completed_updates(out) >= 2


RAISING_PRESSURE = """
import numpy as np
from workbench.hookspecs import hookimpl
from workbench_plugins.pressure.winkler import Winkler

class RaisingPressure(Winkler):
    \"\"\"Winkler in the first update, then raises (test fixture: a plugin's bug).\"\"\"
    name = "raising_pressure"
    reference = "test fixture after Wang & Liu (2015) eq. (23)-(24) (2026)"

    def solve_loads(self, section, loads, gaps=None):
        if float(np.ptp(np.asarray(section.gap if gaps is None else gaps))) > 1e-15:   # worn
            raise ZeroDivisionError("the plugin's own bug")
        return super().solve_loads(section, loads, gaps)

@hookimpl
def register_pressure_models(register):
    register(RaisingPressure)
"""


def test_an_installed_pressure_model_raising_exits_3_naming_model_update_and_joint(tmp_path, site):
    site("wb-raising", "0.1", "raising_pressure", "wb_test_raising_pressure", RAISING_PRESSURE)
    study = tmp_path / "rig.toml"
    study.write_text(RIG_TEXT.replace('pressure = { model = "winkler", stiffness = 3.0e12 }',
                                      'pressure = { model = "raising_pressure", stiffness = 3.0e12 }'))
    assert 'model = "raising_pressure"' in study.read_text()
    out = tmp_path / "p.zarr"
    r = invoke("run", study, "-o", out, "--no-plot")
    _refused(r, 3, "wear update 1", "the pressure model 'raising_pressure' raised ZeroDivisionError",
             "the plugin's own bug", "joint 'J'")
    ds = open_store(out)
    assert completed_updates(out) == 1 and "failed" in ds.attrs["run_status"]
    assert np.all(np.isfinite(ds["wear_depth"].values))
