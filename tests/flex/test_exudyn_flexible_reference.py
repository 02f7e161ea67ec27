"""The Exudyn flexible slider-crank (tests/reference/exudyn_flexible_slider_crank.py) recovers the
rigid mechanism as E grows, its deviation from it scaling as 1/E (the oracle itself is checked
before the workbench's ANCF links are compared with it)."""
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("exudyn")
sys.path.insert(0, str(Path(__file__).parents[1] / "reference"))
import ideal_slider_crank_closed_form as cf  # noqa: E402
from exudyn_flexible_slider_crank import FlexibleSliderCrank, simulate  # noqa: E402


def test_rigid_limit_and_compliance_scaling():
    dev, defl = [], []
    for E in (207e9, 20.7e9):
        d = FlexibleSliderCrank(rod_young=E)
        out = simulate(d, step_size=2e-6, t_end=0.006)
        x_rigid = cf.slider_position(out["crank_angle"], d.crank_length, d.rod_length)
        dev.append(np.abs(out["slider_x"] - x_rigid).max())
        defl.append(np.abs(out["midspan_deflection"]).max())
        # the driven crank turns at 5000 rpm exactly (velocity-level driver)
        assert out["crank_angle"][-1] == pytest.approx(d.crank_speed * 0.006, rel=1e-9)
    # Stiff rod: within 5e-5 m (0.05 % of the 0.1 m stroke) of the rigid slider-crank.
    assert dev[0] < 5e-5
    # Linear elasticity: ten times softer, ten times the deflection (measured 10.3 and 10.2).
    assert 8.0 < dev[1] / dev[0] < 12.0
    assert 8.0 < defl[1] / defl[0] < 12.0
