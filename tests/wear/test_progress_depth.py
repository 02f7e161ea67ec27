"""The progress line after a wear update reports the state after that update: the cycles done
and the deepest wear after its jump (the store's next row), not the depth the update started
from (a label that lagged one update: "update 0: dN 774, max depth 0 µm")."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.kinds import wear as wear_kind
from workbench.runtime.progress import Progress
from workbench.study.load import load_study_text
from workbench.wear.store import open_store

ROOT = Path(__file__).resolve().parents[2]
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"


def test_each_update_line_reports_the_depth_after_its_jump(registry, tmp_path):
    study = load_study_text(RIG.read_text(), file=RIG, registry=registry)
    seen: list[Progress] = []

    def record(p: Progress):
        seen.append(p)

    wear_kind.run(study, registry=registry, out=tmp_path / "r.zarr", progress=record, max_updates=2)
    ds = open_store(tmp_path / "r.zarr")
    updates = [p for p in seen if p.phase == "update"]
    assert [p.update for p in updates] == [0, 1]
    depth = ds.wear_depth + ds.depth_increment          # the surfaces after each row's jump [m]
    for k, p in enumerate(updates):
        after = float(depth.isel(cycle=k).max())
        assert after > float(ds.wear_depth.isel(cycle=k).max())       # the jump wore something
        assert p.max_depth == pytest.approx(after, rel=1e-12)
        assert p.done == pytest.approx(float(ds.cycle.values[k] + ds.cycle_jump.values[k]), rel=1e-12)
        assert f"max depth {after * 1e6:.3g} µm" in p.info
    # the next row starts from that depth: the line and the store agree
    assert updates[0].max_depth == pytest.approx(float(ds.wear_depth.isel(cycle=1).max()), rel=1e-12)
    assert np.isfinite(updates[1].max_depth) and updates[1].max_depth > updates[0].max_depth
