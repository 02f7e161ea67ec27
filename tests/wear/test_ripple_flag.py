"""The ripple flag of a wear run (workbench.wear.ripple): the measure on known profiles, and the
warning once per joint and surface from the second update on."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from workbench.wear import ripple
from workbench.wear.validity import ValidityLog, WearValidityWarning

THETA = 2 * np.pi * np.arange(720) / 720


def pocket(depth=100e-6, half_width_deg=60.0, centre=np.pi):
    """A smooth worn pocket: the Dufrane-type cosine cap of the given half-width, zero elsewhere."""
    a = math.radians(half_width_deg)
    c = np.cos(THETA - centre) - math.cos(a)
    return depth * np.clip(c, 0.0, None) / (1 - math.cos(a))


def wave_response(period_deg: float) -> float:
    """|1 - H| of the cubic Savitzky-Golay window at a wave of the given period: the share of a
    sine that the residual keeps (H from the filter's own coefficients, independent of the
    measure's code path)."""
    from scipy.signal import savgol_coeffs
    w = int(round(ripple.WINDOW_DEG / 360 * THETA.size)) | 1
    c = savgol_coeffs(w, ripple.ORDER)
    k = np.arange(w) - w // 2
    return abs(1.0 - float(np.sum(c * np.cos(2 * np.pi * k * (360 / THETA.size) / period_deg))))


@pytest.mark.parametrize("half_width", [10, 15, 20, 30, 43, 60, 90, 180])
def test_a_smooth_pocket_of_any_width_scores_about_zero(half_width):
    """The cosine cap (the worn shape of Dufrane, Kannel & McCloskey (1983)) of half-width 10-180 deg, alone or on
    a bore worn all round: the local cubic follows its curvature, the kink at its edge is left out,
    so it scores below 1/20 of the threshold (the earlier 15-deg moving average gave 0.79 % at
    60 deg and 1.67 % at 30 deg)."""
    h = pocket(half_width_deg=half_width)
    assert ripple.profile_ripple(h) < ripple.THRESHOLD / 20
    assert ripple.profile_ripple(h + 30e-6) < ripple.THRESHOLD / 20
    assert ripple.profile_ripple(np.roll(h, 137)) < ripple.THRESHOLD / 20


@pytest.mark.parametrize("half_width", [20, 43, 90, 180])
def test_a_ripple_with_the_contact_width_is_measured_at_its_size(half_width):
    """A 7-deg wave of amplitude a (a share of the pocket's depth) on the pocket's floor scores its
    RMS a / sqrt(2) times the window's response at 7 deg, over the deepest wear (the pocket's plus
    a crest), within 5 %; 2 % amplitude is flagged, 1 % is not."""
    h = pocket(half_width_deg=half_width)
    for amp, flagged in ((0.06, True), (0.02, True), (0.01, False)):
        wave = amp * 100e-6 * np.sin(2 * np.pi * THETA / math.radians(7)) * (h > 0)
        got = ripple.profile_ripple(h + wave)
        want = amp * 100e-6 / math.sqrt(2) * wave_response(7.0) / (h + wave).max()   # over the deepest wear
        assert abs(got / want - 1) < 0.05, (half_width, amp, got, want)
        assert (got > ripple.THRESHOLD) == flagged, (amp, got)


def test_edge_cases():
    assert math.isnan(ripple.profile_ripple(np.zeros(720)))
    assert ripple.profile_ripple(np.full(720, 5e-6)) == 0.0             # uniform wear: no pocket
    assert ripple.profile_ripple(pocket(half_width_deg=4)) == 0.0      # narrower than the window
    assert ripple.ripples(np.stack([pocket(), np.zeros(720)])).shape == (2,)


def test_the_flag_warns_once_from_the_second_update_on():
    log = ValidityLog()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ripple.flag(log, "B", "bushing", 0.05, 1, 1e4)     # one update's profile: not flagged
        ripple.flag(log, "B", "bushing", 0.009, 3, 3e4)    # below the threshold
    assert log.warnings == []
    with pytest.warns(WearValidityWarning, match="profile ripple of joint 'B', bushing: 2.9 %"):
        ripple.flag(log, "B", "bushing", 0.029, 2, 2e4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ripple.flag(log, "B", "bushing", 0.04, 3, 3e4)     # already flagged for this joint and surface
    assert len(log.warnings) == 1 and "wear update 2" in log.warnings[0] and "above 1 %" in log.warnings[0]
