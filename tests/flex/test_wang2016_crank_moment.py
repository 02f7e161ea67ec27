"""Wang, Chen, Ma & Sun (2016), rigid slider-crank with mixed clearances, run from the study
files: the crank-moment peak of the ideal mechanism is about 140 N m (Wang, Chen, Ma & Sun (2016) Fig. 9) and the
clearances raise it — "in kind": Wang, Chen, Ma & Sun (2016) reports about 200 N m at C = 0.05 mm
and 400 N m at C = 0.2 mm; the exact peaks of impact-dominated runs depend on contact details the
paper does not give (restitution, friction, slider width), so only the ordering is asserted.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.mbs.solver import simulate
from workbench.study.load import load_study

STUDIES = Path(__file__).resolve().parents[2] / "studies"


def peak_moment(registry, name: str) -> float:
    study = load_study(STUDIES / name, registry)
    sim = simulate(study.mechanism, study.solver)
    # after the start-up transient: the second half of the run, i.e. the second of the ideal
    # study's two revolutions and the last five of the clearance studies' ten (they ran two when
    # this test was written).  Measured (2026-12-07): 138.6, 254.9 and 1086.3 N m.  Over the second
    # revolution alone the clearance studies give 408.8 and 488.0 N m: that cheaper run (1.4 s of
    # CPU against 7.2 s) would keep the ordering by a thin margin in a chaotic response, so the
    # test keeps the five revolutions.
    second = sim.time >= 0.5 * sim.time[-1]
    return float(np.max(np.abs(sim.driver_load[second, 0])))


@pytest.fixture(scope="module")
def ideal_peak():
    """The ideal mechanism's peak, simulated once for both tests (each ran it before)."""
    from workbench.plugins import build_registry
    return peak_moment(build_registry(), "ideal_slider_crank.toml")


def test_ideal_crank_moment_peak_matches_wang2016(ideal_peak):
    # 140 N m read off Wang, Chen, Ma & Sun (2016) Fig. 9 (figure-reading precision ~ 5 %)
    assert ideal_peak == pytest.approx(140.0, rel=0.05)


def test_clearance_raises_the_crank_moment_peaks(registry, ideal_peak):
    ideal = ideal_peak
    c005 = peak_moment(registry, "mixed_clearance_slider_crank_c005.toml")
    c020 = peak_moment(registry, "mixed_clearance_slider_crank_c020.toml")
    assert ideal < c005 < c020
    assert c005 > 1.3 * ideal  # Wang, Chen, Ma & Sun (2016): +43 % at C = 0.05 mm
