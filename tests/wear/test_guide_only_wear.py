"""Guide-only wear studies: a wear study whose only worn joint is a translational (slider-guide)
clearance joint, end to end through the command line (validate, run, store, plots, summary).

Rig: ``studies/guide_wear_constant_load.toml`` -- a slider pressed by F = 200 N onto the lower face
of a ground guide, driven x = A sin(w t) (A = 15 mm), frictionless.  Oracle (Archard (1953);
Wang & Liu (2015) eq. 13-14, docs/validation.md "Wear bookkeeping"): Archard's local form
summed over the contact removes ``k_d F s`` per cycle with s = 4 A, split ``bushing_share`` :
``1 - bushing_share`` between guide and slider.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.errors import WorkbenchError
from workbench.study.load import load_study_text
from workbench.wear.store import open_store

ROOT = Path(__file__).resolve().parents[2]
RIG = ROOT / "studies" / "guide_wear_constant_load.toml"
F, A, KD, SHARE = 200.0, 0.015, 1.0e-15, 0.6      # N, m, 1/Pa, 1 (the rig's data)
L, B = 0.008, 0.01                                  # slider length and width [m]


def rig_text(**swap) -> str:
    text = RIG.read_text()
    for a, b in swap.items():
        assert a in text, a
        text = text.replace(a, b)
    return text


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "250"})


def test_guide_only_study_validates_and_a_wear_study_without_clearance_joints_does_not(registry, tmp_path):
    study = load_study_text(rig_text(), registry=registry)
    assert study.wear.joints == () and study.wear.guides == (0,)
    # the default (no `joints`) wears the translational joint when there is no revolute one
    default = load_study_text(rig_text(**{'joints = ["guide"]\n': ""}), registry=registry)
    assert default.wear.guides == (0,)
    # an empty list names nothing to wear
    with pytest.raises(WorkbenchError, match=r"wear\.joints.*no clearance joint to wear.*'guide'"):
        load_study_text(rig_text(**{'joints = ["guide"]': "joints = []"}), registry=registry)
    # `validate` accepts the rig (what run accepts)
    r = invoke("validate", RIG)
    assert r.exit_code == 0, r.output
    assert "1 wearing" in r.output


def test_guide_only_wear_runs_through_the_cli_and_wears_as_archard(tmp_path):
    """Two updates (40,000 cycles: one jump, then the final row): the store holds the guide's and
    the slider's worn profiles along their own coordinates with units and standard errors, no
    revolute-joint variables; the plots are drawn; the measured volume rates are Archard's
    k_d F 4A (x share) and the stored volume grows by cycle_jump x rate."""
    study = tmp_path / "guide.toml"
    study.write_text(rig_text(**{"cycles = 2.0e5": "cycles = 4.0e4"}))
    out, plots = tmp_path / "guide.zarr", tmp_path / "plots"
    r = invoke("run", study, "-o", out, "--plot-dir", plots)
    assert r.exit_code == 0, r.output
    assert "joint guide: wear volume guide" in r.output
    ds = open_store(out)
    assert ds.sizes["cycle"] == 2 and float(ds.cycle_jump.values[0]) == 4.0e4
    assert float(ds.cycle_jump.values[-1]) == 0.0
    assert "joint" not in ds.dims and "wear_depth" not in ds         # no revolute joint was worn
    assert ds.guide_wear_depth.dims == ("cycle", "guide_joint", "guide_surface", "s")
    assert ds.slider_wear_depth.dims == ("cycle", "guide_joint", "slider_face", "u")
    assert ds.guide_s.attrs["units"] == "m" and ds.slider_u.attrs["units"] == "m"
    for name, v in ds.data_vars.items():
        assert v.attrs.get("units") and v.attrs.get("long_name"), name
    for name in ("guide_wear_depth", "slider_wear_depth", "guide_wear_volume", "guide_volume_rate",
                 "guide_wear_rate", "guide_depth_increment"):
        assert name + "_stderr" in ds, name
    # the guide spans the stroke plus half the slider on each side
    s = ds.guide_s.values[0]
    assert s[0] <= -A - L / 2 + 1e-12 and s[-1] >= A + L / 2 - 1e-12
    # the dynamics record of a guide-only run is on the guide joint
    assert ds.dyn_contact_force.dims == ("record", "phase", "guide_joint")

    # Archard: the guide part removes SHARE k_d F 4A per cycle, the slider the rest.  The rig is
    # periodic, so the standard error is at rounding level; the tolerance adds 1e-4 for the output
    # sampling of the slip (tests/wear/test_guide_wear.py::test_reciprocating_slider_wears_the_guide_as_archard
    # measured 7e-5 on the same slider)
    v = KD * F * 4 * A
    for k in range(ds.sizes["cycle"]):
        row = ds.isel(cycle=k)
        for part, share in (("guide", SHARE), ("slider", 1 - SHARE)):
            got = float(row.guide_volume_rate.sel(guide_part=part).squeeze())
            se = float(row.guide_volume_rate_stderr.sel(guide_part=part).squeeze())
            assert abs(got - share * v) <= 2 * se + 1e-4 * share * v, (k, part, got, share * v, se)
    # the cumulative volume is the sum of cycle_jump x rate (the trapezoid of the nodes: 1e-9)
    dN = ds.cycle_jump.values[:-1]
    rate = ds.guide_volume_rate.sel(guide_part="guide").values[:-1, 0]
    vol = float(ds.guide_wear_volume.sel(guide_part="guide").values[-1, 0])
    assert vol == pytest.approx(float(np.sum(dN * rate)), rel=1e-6)
    assert vol == pytest.approx(SHARE * v * float(ds.cycle.values[-1]), rel=1e-4)
    # ... and on the unworn guide (the first update) the rate profile is the trapezoid of the
    # footprint: 2 L of sliding under p = F / (L b) per cycle on the plateau, the slider face 4 A.
    # (Later updates measure on worn faces, where the contact length of the approximate-area model
    # and so the profile change; their volumes are checked above.)
    rate0 = ds.guide_wear_rate.isel(cycle=0).sel(guide_surface="lower").values[0]
    p = F / (L * B)
    plateau = np.abs(s) < A - L / 2 - (s[1] - s[0])
    assert rate0[plateau] == pytest.approx(SHARE * KD * p * 2 * L, rel=1e-3)
    slider0 = ds.slider_wear_rate.isel(cycle=0).sel(slider_face="bottom").values[0]
    assert slider0 == pytest.approx((1 - SHARE) * KD * p * 4 * A, rel=1e-3)
    assert float(np.abs(ds.guide_wear_depth.sel(guide_surface="upper").values).max()) == 0.0
    # the standard error of the worn volume is the updates' errors added
    assert float(ds.guide_wear_volume_stderr.values[-1].max()) >= 0.0
    names = sorted(p.name for p in plots.glob("*.png"))
    assert names == ["degradation.png", "guide_guide.png", "guide_volume.png"], names
    r = invoke("plot", out, "-o", tmp_path / "again")
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (tmp_path / "again").glob("*.png")) == names
    # compare overlays guide-only results too (the worn volume of every part)
    r = invoke("compare", out, out, "-o", tmp_path / "cmp")
    assert r.exit_code == 0, r.output
    assert [p.stem for p in (tmp_path / "cmp").iterdir()] == ["compare_wear_volume"]
