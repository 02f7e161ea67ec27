"""The ripple flag of a wear run: how rough the worn profile is on the scale of the contact.

``profile_ripple`` = RMS, over the bottom half of the pocket, of the profile's residual about a
cubic Savitzky-Golay smoothing (Savitzky & Golay (1964): at each node the least-squares cubic
through the :data:`WINDOW_DEG` window about it), over the deepest wear.  The pocket is what stands
below the profile's shallowest wear ``h_min`` (0 on a bore not worn all round): only nodes deeper
than ``h_min + (h_max - h_min) / 2`` whose whole window lies in the pocket (every node of it
deeper than ``h_min`` by :data:`FLOOR` of the pocket's depth) count; a profile with no such node
scores 0.

Why this measure (docs/validation.md, "Wear: the ripple of the deep study"):

* **A smooth pocket scores ~0 at any width.**  The local cubic follows the pocket's own
  curvature up to its third derivative; what is left is of order ``h'''' w^4``: 1e-6 to 1e-4 of
  the deepest wear for cosine caps of half-width 10-180 deg.  The earlier measure (RMS about a
  15-deg moving average over the whole circle) saw the curvature itself (about ``h'' w^2 / 24``):
  0.8-1.7 % on smooth caps of half-width 60-30 deg.
* **The pocket's edge is left out.**  Where a worn arc meets the unworn bore the profile has a
  kink (the Dufrane, Kannel & McCloskey (1983) shape ``d_max - c (1 + cos(theta - theta_w))`` ends with a
  slope) that no polynomial follows; a kink is not a ripple.  Hence the window condition and the
  bottom half, where the issue saw the ripple (peaks of +-60 um on a 336 um pocket).
* **A ripple with the contact width's period is measured at its size.**  The window is about two
  contact widths of the slider-crank's joints (about 7 deg): the smoothing passes the pocket and
  stops the 7-deg wave, so a wave of amplitude ``a`` scores ``a / sqrt(2)`` times 1.15-1.2 (the
  window's response at 7 deg is slightly negative) on pockets 20-180 deg wide.  A joint whose
  contact is much wider or narrower needs its own ``window_deg``.

Per update the store records ``profile_ripple(cycle, joint, surface)`` [1] (NaN for a surface not
worn yet).  From the second update on (the profile is then made of at least two updates' rates,
not one update's statistical estimate), a ripple above :data:`THRESHOLD` (1 %, the deep-wear
target of the issue) is flagged once per joint and surface: a
:class:`~workbench.wear.validity.WearValidityWarning` and a line in the dataset attribute
``validity_warnings``.  The flag reports, it does not stop the run.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

#: width of the Savitzky-Golay window [deg]: about two contact widths of the slider-crank's joints
WINDOW_DEG = 15.0
#: degree of the local polynomial [1]
ORDER = 3
#: a node counts only when its whole window is deeper than this share of the pocket's depth [1]
FLOOR = 0.02
#: a ripple above this fraction of the deepest wear is flagged [1]
THRESHOLD = 0.01
#: the first update index whose profile is checked (the profile of update 1 is one estimate)
FIRST_UPDATE = 2
#: the measure in words (the flag's message and the stored variable's long_name)
MEASURE = (f"RMS of the wear profile about its cubic {WINDOW_DEG:g}-deg Savitzky-Golay smoothing over the "
           f"pocket's bottom half, over the deepest wear")


def profile_ripple(h: np.ndarray, window_deg: float = WINDOW_DEG) -> float:
    """RMS of the periodic profile ``h`` [m] (evenly spaced nodes over 360 deg) about its cubic
    Savitzky-Golay smoothing over ``window_deg`` [deg], on the pocket's bottom half away from its
    edge (module docstring), over ``max(h)`` [1]; NaN when nothing is worn, 0 when no node
    qualifies (a pocket narrower than the window, a uniform wear)."""
    from scipy.ndimage import minimum_filter1d
    from scipy.signal import savgol_filter
    h = np.asarray(h, float)
    top = float(h.max()) if h.size else 0.0
    if not top > 0.0:
        return math.nan
    w = max(int(round(window_deg / 360.0 * h.size)) | 1, ORDER + 2)
    if w >= h.size:
        return 0.0
    low = float(h.min())                 # a bore worn all round: the pocket stands on its shallowest wear
    residual = h - savgol_filter(h, w, ORDER, mode="wrap")
    counted = (h >= low + 0.5 * (top - low)) & (minimum_filter1d(h, w, mode="wrap") > low + FLOOR * (top - low))
    if not counted.any():
        return 0.0
    return float(np.sqrt(np.mean(residual[counted] ** 2)) / top)


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
    msg = (f"{head} {100 * value:.2g} % of the deepest wear ({MEASURE[0].lower() + MEASURE[1:]}; flagged above "
           f"{100 * THRESHOLD:g} %) at wear update {update} (after {cycles_done:.6g} cycles): the "
           f"worn profile is rough on the contact's scale. With a pressure that sees the worn geometry this "
           f"is the cycle jump stepping over the contact's healing of the ridges (a sign that flips from "
           f"update to update): a smaller depth_step removes it; see profile_ripple per update and "
           f"docs/validation.md (the ripple of the deep study)")
    validity.warnings.append(msg)
    warnings.warn(msg, WearValidityWarning, stacklevel=3)
