"""The ripple flag of a wear run: how rough the worn profile is on the scale of the contact.

``profile_ripple`` = RMS of a surface's wear-depth profile about its periodic 15-degree moving
average, over the profile's deepest wear (the measure of docs/validation.md, "Wear: the ripple of
the deep study").  A smooth worn pocket (a cosine-like profile over tens of degrees) scores a few
tenths of a percent; the deep-wear ripple with the period of the contact width (about 7 degrees on
the slider-crank) scored 2.9-5.7 % at 10x the wear coefficient.

Per update the store records ``profile_ripple(cycle, joint, surface)`` [1] (NaN for a surface not
worn yet).  From the second update on (the profile is then made of at least two updates' rates,
not one update's statistical estimate: 1.2 % after one update of the shipped study), a ripple
above :data:`THRESHOLD` is flagged once per joint and surface: a
:class:`~workbench.wear.validity.WearValidityWarning` and a line in the dataset attribute
``validity_warnings``.  The flag reports, it does not stop the run.

Why 2 %, not the 1 % the deep-wear target asks of the profile: the measure also sees a smooth
pocket's own curvature against the box average (about ``h'' w^2 / 24``), and a narrow pocket is
curved.  The smooth cosine cap ``max(cos(theta) - cos(a), 0)`` scores 1.67 % at a half-width a of
30 deg, 1.15 % at 43 deg (the constant-load journal rig), 0.79 % at 60 deg, 0.47 % at 90 deg;
2 % clears every smooth pocket from about 25 deg on and stays below the ripple seen at 10x k (2.9 %
to 5.7 % from the second update on).
"""
from __future__ import annotations

import math
import warnings

import numpy as np

#: width of the moving average [deg]
WINDOW_DEG = 15.0
#: a ripple above this fraction of the deepest wear is flagged [1]
THRESHOLD = 0.02
#: the first update index whose profile is checked (the profile of update 1 is one estimate)
FIRST_UPDATE = 2


def profile_ripple(h: np.ndarray, window_deg: float = WINDOW_DEG) -> float:
    """RMS of the periodic profile ``h`` [m] (evenly spaced nodes over 360 deg) about its
    ``window_deg`` moving average, over ``max(h)`` [1]; NaN when nothing is worn."""
    from scipy.ndimage import uniform_filter1d
    h = np.asarray(h, float)
    top = float(h.max()) if h.size else 0.0
    if not top > 0.0:
        return math.nan
    w = int(round(window_deg / 360.0 * h.size)) | 1
    return float(np.sqrt(np.mean((h - uniform_filter1d(h, w, mode="wrap")) ** 2)) / top)


def ripples(depth: np.ndarray) -> np.ndarray:
    """``profile_ripple`` of every profile of ``depth`` (..., theta)."""
    flat = np.asarray(depth, float).reshape(-1, np.shape(depth)[-1])
    return np.array([profile_ripple(h) for h in flat]).reshape(np.shape(depth)[:-1])


def flag(validity, joint: str, surface: str, value: float, update: int, cycles_done: float) -> None:
    """Warn (once per joint and surface, kept in ``validity.warnings``) when ``value`` exceeds
    :data:`THRESHOLD` from update :data:`FIRST_UPDATE` on."""
    if update < FIRST_UPDATE or not value > THRESHOLD:
        return
    head = f"profile ripple of joint '{joint}', {surface}:"
    if any(w.startswith(head) for w in validity.warnings):
        return
    from .validity import WearValidityWarning
    msg = (f"{head} {100 * value:.2g} % of the deepest wear (RMS about a {WINDOW_DEG:g}-deg moving average; "
           f"flagged above {100 * THRESHOLD:g} %) at wear update {update} (after {cycles_done:.6g} cycles): the "
           f"worn profile is rough on the contact's scale; see profile_ripple per update and "
           f"docs/validation.md (the ripple of the deep study)")
    validity.warnings.append(msg)
    warnings.warn(msg, WearValidityWarning, stacklevel=3)
