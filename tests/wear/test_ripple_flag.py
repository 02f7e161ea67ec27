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


def pocket(depth=100e-6):
    """A smooth worn pocket: the Dufrane-type cosine cap over 120 deg, zero elsewhere."""
    c = np.cos(THETA - np.pi) - math.cos(np.radians(60))
    return depth * np.clip(c, 0.0, None) / (1 - math.cos(np.radians(60)))


def test_a_smooth_pocket_is_well_below_the_threshold_and_a_contact_width_ripple_is_measured():
    """The cap alone (120 deg wide) scores 0.79 % (its curvature against the 15-deg average), below
    the 2 % threshold; a 7-deg ripple
    of amplitude a on the loaded arc adds close to its RMS over the arc, a sqrt(f/2) with f the
    arc's share of the circle (1/3), as a share of the deepest wear: a 6 % amplitude gives ~2.4 %
    (the average removes most, not all, of a 7-deg wave: within 20 %)."""
    h = pocket()
    assert ripple.profile_ripple(h) < ripple.THRESHOLD / 2
    wave = 0.06 * 100e-6 * np.sin(2 * np.pi * THETA / np.radians(7)) * (h > 0)
    got = ripple.profile_ripple(h + wave)
    want = math.hypot(0.06 * math.sqrt(1 / 3 / 2), ripple.profile_ripple(h))
    assert abs(got / want - 1) < 0.2, (got, want)
    assert math.isnan(ripple.profile_ripple(np.zeros(720)))
    assert ripple.ripples(np.stack([h, np.zeros(720)])).shape == (2,)


def test_the_flag_warns_once_from_the_second_update_on():
    log = ValidityLog()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ripple.flag(log, "B", "bushing", 0.05, 1, 1e4)     # one update's profile: not flagged
        ripple.flag(log, "B", "bushing", 0.015, 3, 3e4)    # below the threshold
    assert log.warnings == []
    with pytest.warns(WearValidityWarning, match="profile ripple of joint 'B', bushing: 2.9 %"):
        ripple.flag(log, "B", "bushing", 0.029, 2, 2e4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ripple.flag(log, "B", "bushing", 0.04, 3, 3e4)     # already flagged for this joint and surface
    assert len(log.warnings) == 1 and "wear update 2" in log.warnings[0] and "2 %" in log.warnings[0]
