"""Uncertainty propagation (workbench.uq): Sobol' indices against their closed form, and a wear
study with a lognormal wear coefficient and a normal clearance, checked against held-back runs."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("SALib")

from workbench.calibration import Prior
from workbench.study.load import load_study_text
from workbench.uq import propagate, sobol_indices

ROOT = Path(__file__).resolve().parents[2]
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"


def test_sobol_indices_of_an_additive_model():
    """y = 3 x1 + x2 + 0 x3 with x1 ~ N(0, 1), x2 ~ U(0, 2) (variance 1/3), x3 lognormal: the indices
    are the shares of the variance, S1 = ST = 9/(9 + 1/3), (1/3)/(9 + 1/3), 0 (within the bootstrap
    half-widths + 0.02)."""
    d = {"x1": Prior("normal", 0.0, 1.0), "x2": Prior("uniform", 0.0, 2.0), "x3": Prior("lognormal", 1.0, 0.5)}
    r = sobol_indices(lambda x: 3 * x[:, 0] + x[:, 1] + 0 * x[:, 2], d, 4096)
    exact = np.array([9.0, 1.0 / 3.0, 0.0]) / (9.0 + 1.0 / 3.0)
    assert np.all(np.abs(r["S1"] - exact) < r["S1_conf"] + 0.02)
    assert np.all(np.abs(r["ST"] - exact) < r["ST_conf"] + 0.02)


@pytest.mark.slow
def test_rig_with_lognormal_k_and_normal_clearance(registry, tmp_path):
    """The constant-load rig to 2000 cycles, k lognormal (median 1e-15, sigma of ln k 0.25: ~25 %)
    and the bushing radius normal (10.02 mm +- 1 um, the clearance 20 +- 1 um): 5 design runs over
    the radius (k through the k N scaling), 2 held-back direct runs (~60 s).  The surrogate meets the
    held-back runs within 1 % (deepest wear and volume), the held-back values lie inside the 95 %
    bands, and k drives both outputs (total Sobol' index > 0.8)."""
    st = load_study_text(RIG.read_text(), file=RIG, registry=registry)
    ds = propagate(st, {"wear.law.wear_coefficient": "lognormal:1e-15:0.25",
                        "mechanism.clearance_joints[0].bushing_radius": "normal:0.01002:1e-6"},
                   cycles=2000.0, samples=4000, design=5, held_back=2, registry=registry)
    d, v = ds.held_back_deepest.values, ds.held_back_volume.values
    assert np.all(np.abs(d[:, 1] / d[:, 0] - 1) < 0.01) and np.all(np.abs(v[:, 1] / v[:, 0] - 1) < 0.01)
    band_d, band_v = ds.deepest_wear_band.values, ds.wear_volume_band.values
    assert np.all((band_d[0] < d[:, 0]) & (d[:, 0] < band_d[2]))
    assert np.all((band_v[0] < v[:, 0]) & (v[:, 0] < band_v[2]))
    i = list(ds.input.values).index("wear.law.wear_coefficient")
    assert ds.sobol_total_deepest.values[i] > 0.8 and ds.sobol_total_volume.values[i] > 0.8
    from workbench.uq.plot import plots
    files = plots(ds, tmp_path / "plots")
    assert sorted(f.name for f in files) == ["uq_bands.pdf", "uq_bands.png", "uq_sobol.pdf", "uq_sobol.png"]
    print({n: (float(a), float(b)) for n, a, b in zip(ds.input.values, ds.sobol_total_deepest.values,
                                                      ds.sobol_total_volume.values)},
          d, v, band_d, band_v, float(ds.chaotic_share_deepest))
