"""Where a wear update is: which settling or averaging cycle its dynamics integrates, per chain.

The dynamics of an update integrates ``settle_cycles`` settling cycles and then ``n`` averaging
cycles (on ``chains`` replicas side by side, each with its share of the ``n``).  The compiled
integrator's simulated time, read between its steps by the thread that waits for it
(:func:`workbench.mbs.run_control.watch_time`), says which cycle it is in: ``(t - t_start) / T``
with ``T`` the machine-cycle period.  :func:`cycle_watch` turns that time into a
:class:`CyclePosition` per chain and hands the whole picture to the loop's ``stage`` callback.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class CyclePosition:
    """The cycle one chain integrates now.

    phase : ``"settling"`` or ``"averaging"``.
    cycle : the cycle of that phase being integrated, from 1 [1].
    of : the cycles of that phase in this chain's simulation [1].
    """
    phase: str
    cycle: int
    of: int

    @property
    def text(self) -> str:
        return f"{self.phase} cycle {self.cycle} of {self.of}"


def position(t: float, t_start: float, t_end: float, period: float, settle: int) -> CyclePosition:
    """The cycle a simulation from ``t_start`` to ``t_end`` [s] with ``settle`` settling cycles of
    ``period`` [s] integrates at simulated time ``t`` [s]."""
    total = max(int(round((t_end - t_start) / period)), 1)
    k = min(int(math.floor((t - t_start) / period)) + 1, total)   # 1-based machine cycle of the run
    k = max(k, 1)
    if k <= settle:
        return CyclePosition("settling", k, settle)
    return CyclePosition("averaging", k - settle, total - settle)


def cycle_watch(period: float, settle: int, report):
    """A :func:`~workbench.mbs.run_control.watch_time` callback: ``report(positions)`` with the
    :class:`CyclePosition` of every chain seen so far (``{chain: position}``), called from the
    thread of chain 0 only (the caller's thread; the other chains' positions are only recorded),
    so that a user's callback never runs in two threads at once; only when a chain has moved to
    another cycle since the last report."""
    seen: dict[int, CyclePosition] = {}
    last: list = [None]
    lock = threading.Lock()

    def watch(t, t_start, t_end, chain=0):
        pos = position(t, t_start, t_end, period, settle)
        with lock:
            seen[chain] = pos
            snapshot = dict(sorted(seen.items()))
        if chain == 0 and snapshot != last[0]:
            last[0] = snapshot
            report(snapshot)
    return watch


def describe(positions: dict) -> str:
    """One line: chain 0's cycle, and every chain's when there are several."""
    first = positions[min(positions)]
    if len(positions) == 1:
        return first.text
    each = ", ".join(f"{p.cycle}/{p.of}" if p.phase == "averaging" else f"settling {p.cycle}/{p.of}"
                     for p in positions.values())
    return f"{first.text} (chains: {each})"
