"""Spatial wear studies: the slider-crank files load, bad ``[wear]`` input is refused by
``validate`` with the file, the key, the value and the valid choices, and the worn maps plot
(issue 29).  The end-to-end run of the slider-crank is ``test_spatial_slider_crank_wear_update``
(slow); the loop's physics is checked on the rigs in ``test_spatial_wear_map.py``."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from spatial_wear_rig import RPM, ball_joint, study
from workbench.cli.main import main
from workbench.errors import StudyError
from workbench.study.load import load_study_text
from workbench.wear.spatial_loop import run_spatial_wear
from workbench.wear.spatial_samples import ball_rig, constant_load_rig

ROOT = Path(__file__).resolve().parents[2]
TILT = ROOT / "studies" / "spatial_slider_crank_clearance_wear.toml"
ALIGNED = ROOT / "studies" / "spatial_slider_crank_clearance_wear_aligned.toml"


def test_the_two_slider_crank_wear_studies_load(registry):
    for path, tilt in ((TILT, math.radians(0.05)), (ALIGNED, 0.0)):
        st = load_study_text(path.read_text(), file=path, registry=registry)
        j = st.mechanism.spatial_clearance_joints[st.wear.joints[0]]
        assert (j.name, j.type, j.tilt) == ("B", "revolute", pytest.approx(tilt, rel=1e-12))
        assert (st.wear.nodes, st.wear.z_nodes, st.wear.pressure.name) == (180, 11, "winkler")
        assert st.wear.cycle_period == pytest.approx(0.012, rel=1e-12)      # 5000 rpm
    # the twins differ in the tilt alone (and the words that say so)
    a = [x for x in TILT.read_text().splitlines() if not x.startswith("#") and "title" not in x]
    b = [x for x in ALIGNED.read_text().splitlines() if not x.startswith("#") and "title" not in x]
    assert [x for x, y in zip(a, b) if x != y] == [x for x in a if x.startswith("tilt")]


@pytest.mark.parametrize("old, new, key, words", [
    ('pressure = { model = "winkler", layer_thickness = 1.0e-3 }', 'pressure = { model = "approximate_area" }',
     "wear.pressure.model", ["'approximate_area'", "valid: 'winkler'"]),
    ('joints = ["B"]', 'joints = ["Bx"]', "wear.joints[0]", ["'Bx'", "Did you mean 'B'", "Valid: 'B'"]),
    ("z_nodes = 11 ", "z_nodes = 1 ", "wear.z_nodes", ["value 1 is below the minimum 2", "between 2 and 1001"]),
    ("bushing_share = 1.0", "bushing_share = 1.0\nchains = 2", "wear.chains", ["2:", "remove the key"]),
])
def test_validate_refuses_bad_spatial_wear_input(registry, old, new, key, words):
    text = TILT.read_text()
    assert old in text, old
    with pytest.raises(StudyError) as exc:
        load_study_text(text.replace(old, new), file=TILT, registry=registry)
    msg = str(exc.value)
    assert TILT.name in msg and f"[{key}]" in msg, msg
    for w in words:
        assert w in msg, msg


def test_validate_exits_2_on_bad_spatial_wear_input(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(TILT.read_text().replace('joints = ["B"]', 'joints = ["Bx"]'))
    r = CliRunner().invoke(main, ["validate", str(bad)], env={"COLUMNS": "250"})
    assert r.exit_code == 2 and "wear.joints[0]" in r.output, r.output
    ok = CliRunner().invoke(main, ["validate", str(TILT)], env={"COLUMNS": "250"})
    assert ok.exit_code == 0 and "1 clearance joints (1 wearing)" in ok.output, ok.output


def test_worn_maps_and_caps_plot(registry, tmp_path):
    from workbench.kinds import wear as kind
    ds = run_spatial_wear(study(registry, nodes=72, z_nodes=6, cycles=4000.0), out=tmp_path / "m.zarr",
                          source=constant_load_rig(2000.0, math.radians(0.05), RPM, 2), max_updates=1)
    paths = kind.plots(ds, tmp_path / "maps")
    assert sorted(p.name for p in paths) == ["cuts_J.png", "map_J_bushing.png", "wear_volume.png"]
    assert all(p.stat().st_size > 10_000 for p in paths)
    assert "joint J: wear volume bushing" in "\n".join(kind.summary_lines(ds))
    cap = run_spatial_wear(study(registry, nodes=36, z_nodes=18, cycles=1000.0, joint=ball_joint(registry)),
                           out=tmp_path / "c.zarr", source=ball_rig([2000.0, 0.0, 0.0], [0.0, 0.0, 62.8], 2, 0.1),
                           max_updates=1)
    paths = kind.plots(cap, tmp_path / "cap")
    assert sorted(p.name for p in paths) == ["cuts_S.png", "map_S_bushing.png", "wear_volume.png"]
    # the plot folder's check before a run knows these names, so a user's file of one is seen then
    import fnmatch

    from workbench.results.plot_files import PLOT_NAMES
    for name in ("cuts_J.png", "map_J_bushing.png", "cuts_S.png", "map_S_bushing.png"):
        assert any(fnmatch.fnmatchcase(name, p) for p in PLOT_NAMES["wear"]), name


def test_a_planar_wear_study_refuses_z_nodes(registry):
    path = ROOT / "studies" / "journal_wear_constant_load.toml"
    text = path.read_text().replace("nodes = 720\n", "nodes = 720\nz_nodes = 5\n")
    with pytest.raises(StudyError) as exc:
        load_study_text(text, file=path, registry=registry)
    assert "[wear.z_nodes]" in str(exc.value) and "dimension = 3" in str(exc.value)


@pytest.mark.slow
def test_spatial_slider_crank_wear_update(registry, tmp_path):
    """One update of each slider-crank study at reduced statistics (2 averaging cycles of 360
    samples, 90 x 6 nodes): the worn map is made from the clearance dynamics, carries standard
    errors, and the tilted bore wears its two rims unequally while the aligned one wears a
    z-uniform groove.  Slow (the compiled clearance kernels and ~3 crank revolutions per study,
    some minutes of CPU); the default suite keeps the checks on the rigs
    (``test_spatial_wear_map.py``: closed forms, the zero-tilt planar profile, the rims and the
    compiled contact points opened by the map) and the study files' loading above."""
    from workbench.kinds import wear as kind
    cheap = {"average_cycles = 4": "average_cycles = 2", "max_average_cycles = 16": "max_average_cycles = 2",
             "samples_per_cycle = 720": "samples_per_cycle = 360", "nodes = 180": "nodes = 90",
             "z_nodes = 11 ": "z_nodes = 6 "}
    ends = {}
    for path in (TILT, ALIGNED):
        text = path.read_text()
        for old, new in cheap.items():
            assert old in text, old
            text = text.replace(old, new)
        st = load_study_text(text, file=path, registry=registry)
        ds = kind.run(st, registry=registry, out=tmp_path / f"{path.stem}.zarr", max_updates=1)
        assert ds.sizes["cycle"] == 1 and float(ds.cycle_jump.values[0]) > 0.0
        rate = ds.wear_rate.isel(cycle=0, joint=0).sel(surface="bushing").values       # (theta, z)
        se = ds.wear_rate_stderr.isel(cycle=0, joint=0).sel(surface="bushing").values
        assert rate.max() > 0.0 and np.all(np.isfinite(se))
        assert float(ds.volume_rate.isel(cycle=0, joint=0).sel(surface="bushing")) > 0.0
        k = int(np.argmax(rate.max(axis=1)))                     # the deepest groove's angle
        ends[path] = (rate[k, 0], rate[k, -1], np.max(np.abs(rate - rate[:, :1])) / rate.max())
        assert float(ds.depth_increment.isel(cycle=0).max()) > 0.0                        # the jump wears it
    lo, hi, _ = ends[TILT]
    # edge loading: the deepest groove of the tilted bore tapers (measured: 2.4 times deeper at
    # one rim than at the other); the aligned bore's groove is the same at every z (measured: 0)
    assert max(lo, hi) > 1.5 * min(lo, hi)
    assert ends[ALIGNED][2] < 1e-9
