"""The flexible results: ParaView export of the deformed beam (VTU time series + .pvd through
meshio) and the slider-acceleration spectrum plot of a flexible dynamics study."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import meshio
import numpy as np
import pytest
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.errors import WorkbenchError
from workbench.flex.export import export_vtu
from workbench.flex.plot import SPECTRUM_FILE, flex_plots
from workbench.kinds.dynamics_run import run_dynamics
from workbench.study.load import load_study_text

ROOT = Path(__file__).resolve().parents[2]
IDEAL = ROOT / "studies" / "flexible_slider_crank_ideal.toml"


@pytest.fixture(scope="module")
def flexible_result(tmp_path_factory):
    """A quarter revolution of the shipped ideal-joint flexible slider-crank (2 GPa rod), written to netCDF."""
    from workbench.plugins import build_registry
    registry = build_registry()
    text = IDEAL.read_text()
    assert "revolutions = 2" in text
    study = load_study_text(text.replace("revolutions = 2", "revolutions = 0.25"), file=IDEAL, registry=registry)
    out = tmp_path_factory.mktemp("flex") / "flex.nc"
    return run_dynamics(study, registry=registry, out=out), out


def test_vtu_series_reads_back_with_the_dataset_nodes(flexible_result, tmp_path):
    ds, _ = flexible_result
    pvd = export_vtu(ds, tmp_path / "vtu", points_per_element=4)
    frames = ET.parse(pvd).getroot().find("Collection").findall("DataSet")
    assert len(frames) == ds.sizes["time"]
    np.testing.assert_allclose([float(f.get("timestep")) for f in frames], ds["time"].values, rtol=0, atol=0)
    pos = ds["beam_node_position"].isel(beam=0).transpose("beam_node", "axis", "time").values
    slope = ds["beam_node_slope"].isel(beam=0).transpose("beam_node", "axis", "time").values
    nodes = pos.shape[0]
    for k in (0, len(frames) // 2, len(frames) - 1):
        m = meshio.read(pvd.parent / frames[k].get("file"))
        # nodes + 3 interpolated points per element: the nodes are every 4th point
        assert m.points.shape == (4 * (nodes - 1) + 1, 3)
        np.testing.assert_allclose(m.points[::4, :2], pos[:, :, k], rtol=0, atol=1e-15)
        np.testing.assert_allclose(m.point_data["slope [1]"][::4, :2], slope[:, :, k], rtol=0, atol=1e-15)
        np.testing.assert_array_equal(m.points[:, 2], 0.0)
        np.testing.assert_allclose(m.point_data["displacement [m]"][::4, :2], pos[:, :, k] - pos[:, :, 0],
                                   rtol=0, atol=1e-15)
        # an interpolated point lies on the rod between its nodes, and the polyline is connected
        seg = m.cells_dict["line"]
        assert len(seg) == m.points.shape[0] - 1 and np.all(seg[:, 1] == seg[:, 0] + 1)
        # the element's mid-point is its cubic Hermite interpolation there:
        # (r_a + r_b) / 2 + le (r'_a - r'_b) / 8
        le = float(ds["beam_node_s"].isel(beam=0, beam_node=1))
        mid = 0.5 * (pos[0, :, k] + pos[1, :, k]) + le * (slope[0, :, k] - slope[1, :, k]) / 8.0
        np.testing.assert_allclose(m.points[2, :2], mid, rtol=0, atol=1e-15)
        np.testing.assert_allclose(m.point_data["arc_length [m]"][::4], ds["beam_node_s"].isel(beam=0).values)
        # the strain at the nodes is |r'| - 1 of the dataset's slopes; the 6 GPa rod carries the slider's
        # inertia (kilonewtons: strains of about 1e-3), far below 1 %
        np.testing.assert_allclose(m.point_data["axial_strain [1]"][::4],
                                   np.linalg.norm(slope[:, :, k], axis=1) - 1.0, rtol=0, atol=1e-15)
        assert np.abs(m.point_data["axial_strain [1]"]).max() < 1e-2


def test_export_never_replaces_a_file_and_names_it(flexible_result, tmp_path):
    ds, _ = flexible_result
    out = tmp_path / "vtu"
    out.mkdir()
    victim = out / "beams_00003.vtu"
    victim.write_text("user data")
    with pytest.raises(WorkbenchError, match="beams_00003.vtu exists"):
        export_vtu(ds, out)
    assert victim.read_text() == "user data"
    assert sorted(p.name for p in out.iterdir()) == ["beams_00003.vtu"]     # nothing else was written


def test_export_refuses_a_result_without_beams(tmp_path, registry):
    import xarray as xr
    with pytest.raises(WorkbenchError, match="no flexible beams"):
        export_vtu(xr.Dataset(attrs={"study_file": "rigid.toml"}), tmp_path / "vtu")


def test_cli_export_writes_the_series(flexible_result, tmp_path):
    _, nc = flexible_result
    res = CliRunner().invoke(main, ["export", str(nc), "--vtu", str(tmp_path / "pv")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "pv" / "beams.pvd").is_file()
    again = CliRunner().invoke(main, ["export", str(nc), "--vtu", str(tmp_path / "pv")])
    assert again.exit_code != 0 and "beams.pvd exists" in again.output


def test_spectrum_plot_marks_the_dominant_frequency(flexible_result, tmp_path):
    ds, _ = flexible_result
    paths = flex_plots(ds, tmp_path)
    assert [p.name for p in paths] == [SPECTRUM_FILE] and paths[0].stat().st_size > 10_000
    f_dom = float(ds["slider_acceleration_dominant_frequency"].values)
    assert f_dom >= ds.attrs["spectrum_cutoff_frequency"]
    # the dynamics kind's plots include it
    from workbench import kinds
    names = [p.name for p in kinds.plots(ds, tmp_path / "all")]
    assert SPECTRUM_FILE in names and "driver_moment.png" in names
    # a rigid result has no spectrum and gets no plot
    assert flex_plots(ds.drop_vars(["slider_acceleration_spectrum"]), tmp_path / "none") == []
