"""Plots of spatial dynamics results (:mod:`workbench.spatial.plot`), dispatched by the dynamics kind:
the Qi, Luo & Huang pendulum and the tilted spatial clearance slider-crank (short runs) draw their
figures, every axis labelled with its unit, through the publishing path that never writes over a
user's file."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from workbench import kinds
from workbench.results.outputs import OutputError
from workbench.results.plot_files import PLOT_NAMES, check_plot_dir
from workbench.spatial import plot as splot
from workbench.study.load import load_study_text, run_study

ROOT = Path(__file__).resolve().parents[2] / "studies"
UNIT = re.compile(r"\[(m|m/s|rad/s|N|N m|J|nJ|µJ|mJ|pJ|fJ|µm|°|1|s|ms)\]$")


def _short(text, old, new):
    assert old in text
    return text.replace(old, new)


@pytest.fixture(scope="module")
def pendulum():
    from workbench.plugins import build_registry
    reg = build_registry()
    text = _short(_short((ROOT / "qi_pendulum.toml").read_text(), "t_end = 3.0", "t_end = 0.05"),
                  "step = 0.01", "step = 0.005")
    return run_study(load_study_text(text, file="pend.toml", registry=reg), registry=reg)


@pytest.fixture(scope="module")
def clearance():
    from workbench.plugins import build_registry
    reg = build_registry()
    text = _short(_short((ROOT / "spatial_slider_crank_clearance_tilt.toml").read_text(), "revolutions = 2 ",
                         "t_end = 0.0008 "), "step = 1.0e-5 ", "step = 5.0e-5 ")
    return run_study(load_study_text(text, file="sc.toml", registry=reg), registry=reg)


def _labels(fig):
    """Every y label of the figure's axes (twins included) and the x label of the last."""
    ys = [ax.get_ylabel() for ax in fig.axes if ax.get_ylabel()]
    xs = [ax.get_xlabel() for ax in fig.axes if ax.get_xlabel()]
    return ys, xs


def _known(names):
    """Every name matches the plot-folder check's patterns, so a user's file of that name is seen
    before a run starts."""
    import fnmatch
    for name in names:
        assert any(fnmatch.fnmatchcase(name, p) for p in PLOT_NAMES["dynamics"]), name


def _check_units(figs):
    for name, fig in figs:
        ys, xs = _labels(fig)
        assert ys and xs == ["time [ms]"], name
        for label in ys:
            assert UNIT.search(label), f"{name}: '{label}' has no unit"


def test_the_pendulum_draws_its_spatial_figures(pendulum, tmp_path):
    figs = splot.figures(pendulum)
    assert [n for n, _ in figs] == ["spatial_position.png", "spatial_orientation.png", "spatial_angular_velocity.png",
                                    "spatial_joint_reaction.png", "spatial_joint_friction.png", "spatial_energy.png"]
    _check_units(figs)
    _known([n for n, _ in figs])
    fr = dict(figs)["spatial_joint_friction.png"]
    assert [ax.get_ylabel() for ax in fr.axes] == ["friction force [N]", "friction moment [N m]", "contact load [N]"]
    # the friction force drawn is the dataset's (opposing the 1 m/s slide)
    y = fr.axes[0].lines[0].get_ydata()
    assert np.allclose(y, pendulum["joint_friction_force"].isel(friction_joint=0).values) and y[-1] < 0
    # through the dynamics kind and the publishing path (manifest), as `workbench run/plot` draw them
    paths = kinds.plots(pendulum, tmp_path / "figs")
    assert [p.name for p in paths] == [n for n, _ in figs]
    assert all(p.stat().st_size > 5000 for p in paths)
    assert (tmp_path / "figs" / ".workbench-plots.json").exists()


def test_the_clearance_slider_crank_draws_its_contacts(clearance):
    figs = splot.figures(clearance)
    names = [n for n, _ in figs]
    assert "spatial_clearance.png" in names and "spatial_joint_friction.png" not in names
    _check_units(figs)
    _known(names)
    fig = dict(figs)["spatial_clearance.png"]
    assert [ax.get_ylabel() for ax in fig.axes] == ["normal force [N]", "penetration [µm]"]
    # the four contact points, the penetration in µm
    pen = fig.axes[1]
    assert [ln.get_label() for ln in pen.lines[:4]] == ["rim_1", "rim_2", "shoulder_1", "shoulder_2"]
    top = pen.lines[0].get_ydata().max()
    assert top == pytest.approx(float(clearance["point_penetration"].isel(clearance_point=0).max()) * 1e6)


def test_a_users_file_is_never_written_over(pendulum, tmp_path):
    user = tmp_path / "spatial_energy.png"
    user.write_bytes(b"my own figure")
    for overwrite in (False, True):
        with pytest.raises(OutputError, match="spatial_energy.png"):
            check_plot_dir(tmp_path, kind="dynamics", overwrite=overwrite)
    with pytest.raises(OutputError, match="spatial_energy.png"):   # not even when asked to overwrite
        kinds.plots(pendulum.isel(time=slice(0, 3)), tmp_path, overwrite=True)
    assert user.read_bytes() == b"my own figure"
    assert not (tmp_path / "spatial_position.png").exists()      # nothing of the set moved in


def test_a_stored_standard_error_is_drawn_as_a_band(pendulum):
    ds = pendulum.copy()
    ds["kinetic_energy_stderr"] = ds["kinetic_energy"] * 0 + 0.5
    ds["kinetic_energy_stderr"].attrs.update(units="J", long_name="standard error of the kinetic energy")
    with_band = splot.energy(ds).axes[0]
    without = splot.energy(pendulum).axes[0]
    assert len(with_band.collections) == len(without.collections) + 1
    band = with_band.collections[-1].get_paths()[0].vertices[:, 1]
    ke = ds["kinetic_energy"].values
    assert band.max() == pytest.approx(ke.max() + 1.0) and band.min() == pytest.approx(ke.min() - 1.0)
