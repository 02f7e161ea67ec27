"""The wear loop's stop on a persistent outlier: a physics fault of the worn joint (exit status 3).

An update whose averaging cycles hold an outlier (penetration beyond ``penetration_limit`` of the
clearance, or a peak force or wear volume far above the update's other cycles,
:func:`.statistics.find_outliers`) is re-sampled at rtol/100; when the outlier persists, the
dynamics itself does it, not the integration error, and the run stops with :class:`OutlierStop`.
The message names the update, the joint, the averaging cycle, the simulated time [s] of the
deepest penetration in that cycle, the measured quantity and its limit, so that a reader can find
the event in the update's dynamics.  The completed updates stay in the store.
"""
from __future__ import annotations

import numpy as np

from ..errors import SolverError


class OutlierStop(SolverError):
    """A wear update's outlier persisted at rtol/100: the computation cannot go on (exit 3)."""


def deepest_time(rate, cycle: int, n_cycles: int) -> float:
    """Simulated time [s] of the deepest penetration of averaging cycle ``cycle`` (of ``n_cycles``)
    in the contact samples of ``rate`` (revolute: ``penetration`` (ns,); guide: ``delta`` (ns, 4)),
    or NaN when the rate carries no samples."""
    s = getattr(rate, "samples", None)
    if s is None:
        return float("nan")
    pen = getattr(s, "penetration", None)
    if pen is None:
        pen = np.max(s.delta, axis=1)
    per = len(s.time) // max(n_cycles, 1)
    lo, hi = cycle * per, (cycle + 1) * per
    if per <= 0 or hi > len(s.time):
        return float("nan")
    return float(s.time[lo + int(np.argmax(pen[lo:hi]))])


def whirl(rate, cycle: int, n_cycles: int) -> bool:
    """Whether the contact point of a revolute joint covered every direction of the bore in
    averaging cycle ``cycle`` without the contact opening (no gap above 90 deg between the sampled
    contact angles; ``False`` for a guide's samples).  The samples cannot tell the orbits' number
    or sense: a whirl of 278 orbits per cycle aliases on 360 or 720 samples per cycle.

    A journal whose contact point goes round the bore in continuous contact is whirling: the
    friction at the contact drives its centre round the bore, the centripetal force adding to the
    load (dry-friction backward whirl, Black (1968); docs/guide/wear_loop.md "Whirl of a journal
    in a worn bore").
    """
    s = getattr(rate, "samples", None)
    if s is None or getattr(s, "angle", None) is None:
        return False
    per = len(s.time) // max(n_cycles, 1)
    lo, hi = cycle * per, (cycle + 1) * per
    if per < 2 or hi > len(s.time) or not np.all(s.force[lo:hi] > 0.0):
        return False
    a = np.sort(np.mod(s.angle[lo:hi], 2.0 * np.pi))
    gap = float(max(np.max(np.diff(a), initial=0.0), a[0] + 2.0 * np.pi - a[-1]))
    return gap <= 0.5 * np.pi


def outlier_stop(run, j: int, outlier, rate, n_cycles: int, joint_name: str) -> OutlierStop:
    """The error that stops the run at a persistent ``outlier`` of joint ``j`` (module docstring)."""
    cfg = run.cfg
    machine = run.cycles_done + cfg.settle_cycles + outlier.cycle
    t = deepest_time(rate, outlier.cycle, n_cycles)
    when = f" at t = {t:.6g} s of the update's simulation" if np.isfinite(t) else ""
    cause = ""
    if whirl(rate, outlier.cycle, n_cycles):
        cause = ("  Cause: the journal whirls round the bore: its contact point covered every direction of the "
                 "bore in this cycle without the contact opening (friction rolls the journal round the bore, "
                 "the centripetal force adding to the load; see 'Whirl of a journal in a worn bore' in "
                 "docs/guide/wear_loop.md).")
    return OutlierStop(
        f"wear update {run.update} (after {run.cycles_done:.6g} cycles), joint '{joint_name}': averaging "
        f"cycle {outlier.cycle} (machine cycle {machine:.6g} of the update's simulation{when}) is an "
        f"outlier: {outlier.reason}; it persists at rtol/100, so it is not extrapolated over the cycle "
        f"jump.{cause}  Check the contact parameters and the speed, or raise wear.penetration_limit / "
        f"wear.outlier_k if this contact is physical")
