"""Clear errors instead of tracebacks: output paths, foreign results, a results file that cannot be
written.

Each case a hostile or unlucky user found is a test with its expected outcome: exit status 2 and a
message naming the path (no traceback), and every file that was there before unchanged, bytes and
modification time (:func:`test_data_safety.snapshot`).

* ``--overwrite`` of a result reached through a symbolic link: refused naming the link and its
  target (replacing through a link would move or delete the link, not the result); a dangling
  link is never written over;
* a file name longer than the file system allows (with the room the temporary names beside it
  need): refused before the run;
* ``workbench plot`` of a netCDF file or zarr store another tool wrote: "not a workbench result";
* a ``.nc`` that cannot be written (a file-size limit, a full disk: the netCDF library says only
  "NetCDF: HDF error"): the cause in words, our partial file removed, an earlier result kept.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from workbench.results.dataset import write_dataset
from workbench.results.outputs import NAME_MARGIN, is_our_dataset, write_marker
from test_data_safety import RIG_SHORT, SHORT, _refused, invoke, snapshot

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def short_study(tmp_path):
    study = tmp_path / "short.toml"
    study.write_text(SHORT)
    return study


def _our_dataset(path: Path) -> Path:
    ds = xr.Dataset({"x": ("time", np.arange(4.0), {"units": "m", "long_name": "x"})},
                    attrs={"workbench_version": "0", "study_kind": "dynamics"})
    return write_dataset(ds, path)


# ------------------------------------------------------------------------------ symbolic links
def test_overwrite_through_a_symlink_is_refused_naming_the_link_and_target(tmp_path, short_study):
    """Was: "Cannot call rmtree on a symbolic link" (exit 1) for a store; a dataset's link was
    replaced by a file.  Now refused before the run, naming the target to give instead."""
    real_nc = _our_dataset(tmp_path / "real.nc")
    (tmp_path / "link.nc").symlink_to(real_nc)
    real_store = tmp_path / "real.zarr"
    real_store.mkdir()
    write_marker(real_store)
    (tmp_path / "link.zarr").symlink_to(real_store)
    rig = tmp_path / "rig.toml"
    rig.write_text(RIG_SHORT)
    before = snapshot(tmp_path)
    _refused(invoke("run", short_study, "-o", tmp_path / "link.nc", "--overwrite", "--no-plot"),
             "is a symbolic link", str(real_nc), "give the target itself")
    _refused(invoke("run", rig, "-o", tmp_path / "link.zarr", "--overwrite", "--no-plot"),
             "is a symbolic link", str(real_store))
    assert snapshot(tmp_path) == before
    assert (tmp_path / "link.nc").is_symlink() and (tmp_path / "link.zarr").is_symlink()


def test_a_dangling_symlink_is_never_written_over(tmp_path, short_study):
    (tmp_path / "gone.nc").symlink_to(tmp_path / "elsewhere" / "missing.nc")
    _refused(invoke("run", short_study, "-o", tmp_path / "gone.nc", "--no-plot"),
             "symbolic link", "does not exist")
    assert (tmp_path / "gone.nc").is_symlink() and not (tmp_path / "elsewhere").exists()


def test_the_store_session_refuses_to_replace_through_a_link(tmp_path):
    """The same rule from Python (``run_wear_study(..., overwrite=True)`` opens a StoreSession)."""
    from workbench.results.outputs import OutputError
    from workbench.wear.session import StoreSession
    real = tmp_path / "real.zarr"
    real.mkdir()
    write_marker(real)
    (tmp_path / "l.zarr").symlink_to(real)
    before = snapshot(tmp_path)
    with pytest.raises(OutputError, match="symbolic link"):
        StoreSession(tmp_path / "l.zarr", overwrite=True).open()
    assert snapshot(tmp_path) == before and (tmp_path / "l.zarr").is_symlink()


# ------------------------------------------------------------------------------ long names
@pytest.mark.parametrize("length", [300, 255 - NAME_MARGIN + 1])
def test_a_file_name_too_long_is_refused_before_the_run(tmp_path, short_study, length):
    """300 characters: ENAMETOOLONG (was a traceback).  Just under 255: the name fits, but the
    temporary file written beside it (``.NAME.PID.tmp``) would not -- refused too."""
    before = snapshot(tmp_path)
    name = "r" * (length - 3) + ".nc"
    _refused(invoke("run", short_study, "-o", tmp_path / name, "--no-plot"),
             f"the file name is {length} bytes long", f"at most {255 - NAME_MARGIN} bytes")
    rig = tmp_path / "rig.toml"
    rig.write_text(RIG_SHORT)
    _refused(invoke("run", rig, "-o", tmp_path / ("w" * 295 + ".zarr"), "--no-plot"), "file name is 300 bytes")
    rig.unlink()
    assert snapshot(tmp_path) == before


def test_a_name_that_fits_is_accepted_by_the_check(tmp_path):
    from workbench.results.outputs import check_name_length
    check_name_length(tmp_path / ("r" * (255 - NAME_MARGIN - 3) + ".nc"))


# ------------------------------------------------------------------------------ plot of a foreign file
def test_plot_of_a_foreign_netcdf_or_zarr_says_not_a_workbench_result(tmp_path):
    """Was: exit 0 and no figure.  Now exit 2 naming the path; no plot folder is made."""
    nc, store = tmp_path / "theirs.nc", tmp_path / "theirs.zarr"
    other = xr.Dataset({"a": ("x", np.arange(3.0))}, attrs={"title": "another tool's data"})
    other.to_netcdf(nc, engine="h5netcdf")
    other.to_zarr(store, consolidated=False)
    (tmp_path / "plain.nc").write_text("not even netCDF")
    before = snapshot(tmp_path)
    for path in (nc, store, tmp_path / "plain.nc"):
        _refused(invoke("plot", path), str(path), "is not a workbench result")
    assert snapshot(tmp_path) == before
    assert not any(p.name.endswith("_plots") for p in tmp_path.iterdir())


# ------------------------------------------------------------------------------ a .nc that cannot be written
def test_a_failing_netcdf_write_names_the_cause_and_removes_its_partial_file(tmp_path, monkeypatch):
    """The netCDF library reports a full disk as RuntimeError("NetCDF: HDF error"): a
    WorkbenchError naming the file and, found on the machine, the likely cause; the temporary file
    is removed and an earlier result at the path is untouched."""
    from workbench.errors import WorkbenchError
    out = _our_dataset(tmp_path / "r.nc")
    before = snapshot(tmp_path)

    def full(self, path, *a, **k):
        Path(path).write_bytes(b"\x89HDF partial")
        raise RuntimeError("NetCDF: HDF error")
    monkeypatch.setattr(xr.Dataset, "to_netcdf", full)
    import resource
    monkeypatch.setattr(resource, "getrlimit", lambda which: (65536, 65536))
    with pytest.raises(WorkbenchError) as err:
        write_dataset(xr.Dataset({"y": ("t", np.zeros(3))}), out)
    msg = str(err.value)
    assert str(out) in msg and "NetCDF: HDF error" in msg and "file-size limit" in msg and "65,536 bytes" in msg
    assert "partial file was removed" in msg and "is unchanged" in msg
    assert snapshot(tmp_path) == before


_LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)    # write() then fails with EFBIG instead of a kill
resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))
sys.argv = ["workbench", *sys.argv[1:]]
from workbench.cli.main import entry
entry()
"""


@pytest.mark.slow   # a dynamics run in a process of its own (about 15 s on a busy machine); the
# message, the removed partial file and the kept result are checked in the default suite by
# test_a_failing_netcdf_write_names_the_cause_and_removes_its_partial_file
def test_a_file_size_limit_while_writing_the_nc_is_a_clear_error(tmp_path, short_study):
    """``RLIMIT_FSIZE`` (``ulimit -f``) of 20 kB in the process: the 2 ms Flores run's dataset
    (about 100 kB) cannot be written.  Was: a traceback ("NetCDF: HDF error").  Now exit 2 naming
    the file and the limit; no temporary file is left; the earlier result is kept."""
    out = _our_dataset(tmp_path / "r.nc")
    before = snapshot(tmp_path)
    r = subprocess.run([sys.executable, "-c", _LIMITED, "run", str(short_study), "-o", str(out), "--overwrite",
                        "--no-plot"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and f"cannot write the results file {out}" in r.stderr, r.stderr
    assert "file-size limit" in r.stderr and "20,000 bytes" in r.stderr, r.stderr
    assert not list(tmp_path.glob(".r.nc.*.tmp"))
    assert snapshot(tmp_path) == before and is_our_dataset(out)
