"""Plots follow the output rules of results (docs/data_safety.md, :mod:`workbench.results.plot_files`).

A file in a plot folder that the workbench did not write is never replaced, with or without
``--overwrite``: the command exits 2 with a message naming the file, before the run when the
study's kind tells the names (``run``, ``sweep``), and the user's file keeps its bytes and its
modification time.  A figure of ours (listed in the folder's manifest with its SHA-256) is
replaced only with ``--overwrite`` (or by ``--resume`` of the wear run that drew it).  Covered:
``run --plot-dir``, the default ``OUT_plots/`` folder, ``workbench plot -o`` and its default.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.results.outputs import OutputError
from workbench.results.plot_files import MANIFEST, is_our_figure, publish

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"
SHORT = FLORES.read_text().replace("revolutions = 2            # t_end = 2 * 60/5000 s = 0.024 s",
                                   "t_end = 0.002")
PNG_BYTES = b"\x89PNG\r\n\x1a\n my own figure, drawn by hand"
OLD = 1_500_000_000_000_000_000   # a modification time in 2017 [ns]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "250"})


def users_file(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(PNG_BYTES)
    os.utime(path, ns=(OLD, OLD))
    return path


def unchanged(path: Path) -> bool:
    return path.read_bytes() == PNG_BYTES and path.stat().st_mtime_ns == OLD


def refused(r, *words):
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    text = " ".join(r.output.split())
    for w in words:
        assert w in text, (w, r.output)


@pytest.fixture
def study(tmp_path):
    p = tmp_path / "short.toml"
    p.write_text(SHORT)
    return p


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """A short dynamics result (no plots) shared by the `workbench plot` tests."""
    d = tmp_path_factory.mktemp("res")
    (d / "short.toml").write_text(SHORT)
    r = invoke("run", d / "short.toml", "-o", d / "r.nc", "--no-plot")
    assert r.exit_code == 0, r.output
    return d / "r.nc"


# ------------------------------------------------------------------------------ workbench run
def test_run_plot_dir_with_a_users_file_is_refused_before_the_run(tmp_path, study):
    mine = users_file(tmp_path / "figs" / "contact_force.png")
    for extra in ((), ("--overwrite",)):
        r = invoke("run", study, "-o", tmp_path / "a.nc", "--plot-dir", tmp_path / "figs", *extra)
        refused(r, f"{mine} exists and was not written by the workbench", "not even with --overwrite")
        assert unchanged(mine)
        assert not (tmp_path / "a.nc").exists()            # refused before any work
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == ["contact_force.png"]


def test_run_default_plot_folder_with_a_users_file_is_refused(tmp_path, study):
    mine = users_file(tmp_path / "a_plots" / "journal_orbit.png")
    other = users_file(tmp_path / "a_plots" / "holiday.png")      # a name we never draw: no matter
    r = invoke("run", study, "-o", tmp_path / "a.nc")
    refused(r, f"{mine} exists and was not written by the workbench", "the default plot folder")
    assert unchanged(mine) and unchanged(other) and not (tmp_path / "a.nc").exists()
    r = invoke("run", study, "-o", tmp_path / "a.nc", "--no-plot")   # no plots: no objection
    assert r.exit_code == 0, r.output
    assert unchanged(mine)


def test_our_figures_are_replaced_only_with_overwrite(tmp_path, study):
    out = tmp_path / "a.nc"
    r = invoke("run", study, "-o", out, "--plot-dir", tmp_path / "figs")
    assert r.exit_code == 0, r.output
    fig = tmp_path / "figs" / "contact_force.png"
    assert is_our_figure(fig)
    users_file(tmp_path / "figs" / "notes.png")
    before = fig.stat().st_mtime_ns
    r = invoke("run", study, "-o", tmp_path / "b.nc", "--plot-dir", tmp_path / "figs")
    refused(r, f"{fig} is a figure of an earlier workbench run; pass --overwrite")
    assert fig.stat().st_mtime_ns == before and not (tmp_path / "b.nc").exists()
    r = invoke("run", study, "-o", out, "--plot-dir", tmp_path / "figs", "--overwrite")
    assert r.exit_code == 0, r.output
    assert is_our_figure(fig) and unchanged(tmp_path / "figs" / "notes.png")


def test_a_figure_of_ours_edited_by_the_user_is_no_longer_ours(tmp_path, study):
    out = tmp_path / "a.nc"
    assert invoke("run", study, "-o", out).exit_code == 0
    fig = tmp_path / "a_plots" / "driver_moment.png"
    with open(fig, "ab") as f:
        f.write(b"annotated by the user")
    edited = fig.read_bytes()
    r = invoke("run", study, "-o", out, "--overwrite")
    refused(r, f"{fig} exists and was not written by the workbench")
    assert fig.read_bytes() == edited


def test_a_plot_folder_that_is_a_file_is_refused(tmp_path, study):
    users_file(tmp_path / "figs")
    r = invoke("run", study, "-o", tmp_path / "a.nc", "--plot-dir", tmp_path / "figs")
    refused(r, "is a file")                                   # click's own check of --plot-dir
    users_file(tmp_path / "a_plots")                          # the default folder's name
    r = invoke("run", study, "-o", tmp_path / "a.nc")
    refused(r, f"the plot folder {tmp_path / 'a_plots'} is an existing file, not a folder")
    assert unchanged(tmp_path / "figs") and unchanged(tmp_path / "a_plots")
    assert not (tmp_path / "a.nc").exists()


# ------------------------------------------------------------------------------ workbench plot
def test_plot_o_with_a_users_file_is_refused(tmp_path, result):
    mine = users_file(tmp_path / "pngs" / "slider_acceleration.png")
    for extra in ((), ("--overwrite",)):
        r = invoke("plot", result, "-o", tmp_path / "pngs", *extra)
        refused(r, f"{mine} exists and was not written by the workbench")
        assert unchanged(mine)
    assert sorted(p.name for p in (tmp_path / "pngs").iterdir()) == ["slider_acceleration.png"]


def test_plot_default_folder_and_overwrite_of_our_figures(tmp_path, result):
    folder = result.with_name(result.stem + "_plots")
    r = invoke("plot", result)
    assert r.exit_code == 0, r.output
    figs = sorted(p for p in folder.glob("*.png"))
    assert figs and all(is_our_figure(p) for p in figs)
    stamps = {p: p.stat().st_mtime_ns for p in figs}
    r = invoke("plot", result)
    refused(r, "is a figure of an earlier workbench run; pass --overwrite")
    assert {p: p.stat().st_mtime_ns for p in figs} == stamps
    r = invoke("plot", result, "--overwrite")
    assert r.exit_code == 0, r.output
    mine = users_file(folder / "contact_force.png")    # the user puts their own file in our place
    r = invoke("plot", result, "--overwrite")
    refused(r, f"{mine} exists and was not written by the workbench")
    assert unchanged(mine)


# ------------------------------------------------------------------------------ the rules themselves
def test_publish_changes_nothing_when_one_name_is_refused(tmp_path):
    folder = tmp_path / "f"
    mine = users_file(folder / "b.png")

    def draw(staging):
        for name in ("a.png", "b.png"):
            (staging / name).write_bytes(b"ours " + name.encode())
        return [staging / "a.png", staging / "b.png"]
    with pytest.raises(OutputError, match="b.png exists and was not written by the workbench"):
        publish(draw, folder)
    assert sorted(p.name for p in folder.iterdir()) == ["b.png"] and unchanged(mine)


def _draw_a(staging: Path) -> list[Path]:
    (staging / "a.png").write_bytes(b"x")
    return [staging / "a.png"]


def test_publish_never_follows_a_symlink_in_our_place(tmp_path):
    folder = tmp_path / "f"
    target = users_file(tmp_path / "elsewhere.png")
    publish(_draw_a, folder)
    manifest = json.loads((folder / MANIFEST).read_text())["files"]
    assert "a.png" in manifest
    (folder / "a.png").unlink()
    (folder / "a.png").symlink_to(target)
    with pytest.raises(OutputError, match="not written by the workbench"):
        publish(_draw_a, folder, overwrite=True)
    assert unchanged(target)


def test_sweep_plot_dir_with_a_users_file_is_refused_before_the_cases_run(tmp_path):
    mine = users_file(tmp_path / "s_plots" / "summary.png")
    sweep = ROOT / "studies" / "contact_law_comparison.toml"
    for extra in ((), ("--overwrite",)):
        r = invoke("sweep", sweep, "-o", tmp_path / "s.nc", "--serial", *extra)
        refused(r, f"{mine} exists and was not written by the workbench")
        assert unchanged(mine)
        assert not (tmp_path / "s.nc").exists() and not (tmp_path / "s.cases").exists()
