"""Sizes bounded before work starts: counts and speeds a run cannot finish, refused by ``validate``.

Each bound names the key, the value, the limit and how to go beyond it:

* ``[wear] cycles`` above ``[checks] max_cycles`` (default 1e10): the loop makes at least one
  update per jump and a jump never passes the cycles left, so ``cycles = 1e300`` would never end;
* a driver speed whose conversion overflows (``speed_rpm = 1e308`` is ``inf`` rad/s) or whose
  period is below :data:`MIN_PERIOD` (no step of the integrator could resolve it): refused with the
  driver's key instead of a division by zero later;
* the memory of a wear update (:func:`workbench.study.checks.wear_bytes`, with the largest number of
  averaging cycles an update may grow to) stays with ``[checks] max_memory_gb``.

A sweep's grid is bounded in :mod:`workbench.sweeps.spec` (``[sweep] max_cases``); a run that makes
no progress is stopped by :mod:`workbench.runtime.watchdog`.
"""
from __future__ import annotations

import math

from . import schema as S

#: shortest driver period a study may give [s]: 1 ns, i.e. 6e10 rev/min
MIN_PERIOD = 1e-9


def driver_speed(speed: float, path: str, key: str, given, probs: S.Problems) -> bool:
    """Record a problem when a constant driver ``speed`` [rad/s or m/s] converted from the study's
    ``key`` (= ``given``) is not finite or turns in less than :data:`MIN_PERIOD`; True when usable."""
    if not math.isfinite(speed):
        probs.add(f"{path}.{key}", f"{key} = {given!r} gives a speed of {speed} (it overflows a "
                                   f"64-bit float): give a finite speed")
        return False
    w = abs(speed)
    if key == "speed_rpm" and w > 0.0 and 2.0 * math.pi / w < MIN_PERIOD:
        probs.add(f"{path}.{key}", f"{key} = {given!r} rev/min turns once in {2.0 * math.pi / w:.3g} "
                                   f"s, below the shortest period a study may give ({MIN_PERIOD:g} s, "
                                   f"i.e. {60.0 / MIN_PERIOD:.3g} rev/min): no integrator step could "
                                   f"resolve it")
        return False
    return True


def wear_cycles(wear, checks, probs: S.Problems) -> None:
    """``[wear] cycles`` against ``[checks] max_cycles``."""
    if not wear.cycles <= checks.max_cycles:
        probs.add("wear.cycles", f"cycles = {wear.cycles:g} is above the limit of "
                                 f"{checks.max_cycles:g} cycles ([checks] max_cycles): the loop needs "
                                 f"at least one update per cycle jump and would not end; give fewer "
                                 f"cycles, or raise [checks] max_cycles if the study means it")
