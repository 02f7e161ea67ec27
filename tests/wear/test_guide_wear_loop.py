"""The wear loop with a translational clearance joint: the mixed-clearance slider-crank wearing its
revolute joint and its slider guide together (studies/mixed_clearance_slider_crank_wear.toml, run
slower and coarser so that a test can afford it)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.errors import WorkbenchError
from workbench.study.load import load_study_text
from workbench.wear.loop import run_wear_study

STUDY = Path(__file__).resolve().parents[2] / "studies" / "mixed_clearance_slider_crank_wear.toml"
COARSE = [("speed_rpm = 5000.0", "speed_rpm = 1000.0"), ("rtol = 1.0e-10", "rtol = 1.0e-7"),
          ("atol = 1.0e-13", "atol = 1.0e-10"), ("samples_per_cycle = 1440", "samples_per_cycle = 180"),
          ("average_cycles = 16", "average_cycles = 2"), ("max_average_cycles = 48", "max_average_cycles = 2"),
          ("wear_coefficient = 2.0e-17", "wear_coefficient = 2.0e-15"), ("nodes = 720", "nodes = 120"),
          ("bushing_share = 1.0 ", "bushing_share = 0.7 ")]


def coarse_text(extra=()):
    text = STUDY.read_text()
    for a, b in [*COARSE, *extra]:
        assert a in text, a
        text = text.replace(a, b)
    return text


def test_fem_pressure_with_a_translational_joint_is_rejected_by_validation(registry):
    text = coarse_text([('pressure = { model = "approximate_area", distribution = "uniform" }',
                         'pressure = { model = "fem" }')])
    with pytest.raises(WorkbenchError, match=r"wear\.pressure.*'fem'.*'approximate_area', 'winkler'"):
        load_study_text(text, registry=registry)


def test_unknown_wear_joint_lists_both_kinds(registry):
    text = coarse_text([('joints = ["B", "guide"]', 'joints = ["B", "guid"]')])
    with pytest.raises(WorkbenchError, match=r"'guid' is not a clearance joint.*guide"):
        load_study_text(text, registry=registry)


def test_one_update_stores_guide_and_slider_profiles(registry, tmp_path):
    study = load_study_text(coarse_text(), registry=registry)
    ds = run_wear_study(study, registry=registry, out=tmp_path / "w.zarr", max_updates=2)
    assert ds.sizes["cycle"] == 2 and list(ds.guide_joint.values) == ["guide"]
    for name, v in ds.data_vars.items():
        if name.startswith(("guide_", "slider_")):
            assert v.attrs.get("units") and v.attrs.get("long_name"), name
    assert ds.guide_wear_depth.dims == ("cycle", "guide_joint", "guide_surface", "s")
    assert ds.guide_s.attrs["units"] == "m"
    # the guide covers the slider's travel (crank 0.05 m, rod 0.12 m: x from 0.07 to 0.17 m) plus
    # half the 5 mm slider
    s = ds.guide_s.values[0]
    assert s[0] < 0.07 - 0.0025 and s[-1] > 0.17 + 0.0025
    g0, g1 = ds.isel(cycle=0), ds.isel(cycle=1)
    assert float(g0.guide_wear_depth.max()) == 0.0 and float(g1.guide_wear_depth.max()) > 0.0
    # the row after the jump holds the depth plus the increment; the volume grows by dN x rate
    dN = float(g0.cycle_jump)
    assert np.allclose(g1.guide_wear_depth, g0.guide_depth_increment, rtol=0, atol=1e-18)
    vol = g1.guide_wear_volume.sel(guide_part="guide").item()
    assert vol == pytest.approx(dN * g0.guide_volume_rate.sel(guide_part="guide").item(), rel=1e-3)
    # guide and slider share the depth 0.7 : 0.3 (bushing_share), and each carries its stderr
    assert g0.guide_volume_rate.sel(guide_part="slider").item() > 0.0
    assert float(g0.guide_volume_rate_stderr.min()) >= 0.0 and float(g0.guide_wear_rate_stderr.max()) > 0.0
    # the deepest guide increment obeys the depth step (5 % of the 0.05 mm clearance)
    assert float(g0.guide_depth_increment.max()) <= 0.05 * 5e-5 * (1 + 1e-9)
    # the revolute joint wore too, and the worn guide entered the next update's dynamics
    assert float(g1.wear_depth.max()) > 0.0
    assert float(g1.guide_peak_pressure.max()) > 0.0


@pytest.mark.slow
def test_resumed_run_equals_an_uninterrupted_one(registry, tmp_path):
    """Two updates in one go and one + one resumed give the same guide rows (the loop restarts each
    update from the stored surfaces)."""
    study = load_study_text(coarse_text(), registry=registry)
    a = run_wear_study(study, registry=registry, out=tmp_path / "a.zarr", max_updates=2)
    run_wear_study(study, registry=registry, out=tmp_path / "b.zarr", max_updates=1)
    b = run_wear_study(study, registry=registry, out=tmp_path / "b.zarr", resume=True, max_updates=1)
    for v in ("guide_wear_depth", "slider_wear_depth", "guide_wear_volume_stderr", "guide_sliding_distance",
              "slider_sliding_distance", "cycle_jump"):
        np.testing.assert_array_equal(a[v].values, b[v].values, err_msg=v)
