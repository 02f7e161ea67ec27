"""The wear loop's memory of its last updates, for ``jump_control = "history"``.

The loop (:mod:`.loop`) keeps, per joint, the cycle count, rate profile, its standard error and
the volume rate of the last :data:`.statistics.HISTORY_UPDATES` - 1 updates; the jump control
(:func:`control_limit`) fits the trend over them and this update
(:func:`.statistics.trend_jump_limit`), and :func:`with_scatter` widens this update's errors to the
scatter about that trend.  With ``jump_control = "last_update"`` only the last update is read
(:func:`.statistics.jump_limit`), as before.
"""
from __future__ import annotations

import math

import numpy as np

from . import statistics as st


def control_limit(run, j: int, r) -> float:
    """The jump error control's limit [cycles] for joint ``j`` with this update's rate ``r``."""
    cfg = run.cfg
    if j not in run.previous:
        return math.inf
    if cfg.jump_control == "history":
        hist = run.history.get(j, [])
        return st.trend_jump_limit([h[0] for h in hist] + [run.cycles_done], [h[1] for h in hist] + [r.profile],
                                   [h[2] for h in hist] + [r.profile_stderr], run.previous_jump, cfg.jump_tolerance)
    return st.jump_limit(r.profile, r.profile_stderr, *run.previous[j], run.previous_jump, cfg.jump_tolerance)


def remember(run, cycles_done: float, volumes: dict) -> None:
    """Append every joint's last rate profile (``run.previous``) and volume rate (``volumes``,
    revolute joints [m^3/cycle]), measured after ``cycles_done`` cycles, to the history the trend
    jump control reads (the last updates before the current)."""
    keep = st.HISTORY_UPDATES - 1
    for j, (profile, se) in run.previous.items():
        h = run.history.setdefault(j, [])
        h.append((cycles_done, profile, se, volumes.get(j)))
        del h[:-keep]


def with_scatter(run, meas) -> None:
    """``jump_control = "history"``: widen each revolute joint's rate standard errors to the
    scatter of the rates between updates (:func:`.statistics.scatter_factor`), in place.

    The standard error of an update is that of its averaging cycles' mean.  When updates land in
    different dynamic regimes (one per update), the rate at a wear state scatters between updates
    by more than that (the worn five-bar: volume rates with a 14 % standard deviation between
    updates against 4 % within), and summing the updates' within-update variances
    understates the error of the worn volume and depth.  The residual mean square of the last
    updates' rates about their straight line in the cycle count (:func:`.statistics.rate_trend`)
    estimates the whole scatter of one update's rate (within and between); the update's errors are
    scaled up to it (never down), the profile's by one factor (pooled over the nodes) and the
    volume rate's by its own.  The residuals also hold the curvature of the trend over the window
    (second order in the change per jump, which the control keeps below ``jump_tolerance``): a
    smoothly drifting rate gets errors of that size, on the safe side.  Everything downstream
    (stored rate errors, the increments' errors, the cumulative errors) carries the widened
    errors.  Needs 3 updates (2 before this one).
    """
    if run.cfg.jump_control != "history":
        return
    for j, r in meas.rates.items():
        hist = run.history.get(j, [])
        if j not in run.worn or len(hist) < 2:
            continue
        N = [h[0] for h in hist] + [run.cycles_done]
        prof = st.rate_trend(N, [h[1] for h in hist] + [r.profile], np.zeros((len(N), r.profile.size)))
        vol = st.rate_trend(N, [h[3] for h in hist] + [r.volume], np.zeros((len(N), r.volume.size)))
        if prof is None or vol is None:
            continue
        fp = st.scatter_factor(prof.scatter2, r.profile_stderr)
        r.stderr_bushing = r.stderr_bushing * fp
        r.stderr_journal = r.stderr_journal * fp
        r.volume_stderr = r.volume_stderr * st.scatter_factor(vol.scatter2, r.volume_stderr)
