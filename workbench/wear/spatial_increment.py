"""The jump increment of a worn map (step 5 of the spatial loop, :mod:`.spatial_loop`).

For a law without memory (Archard, Reye) the increment of a jump of ``dN`` cycles is ``dN``
times the mean per-cycle rate map and its standard error ``dN`` times the rate's, as on a planar
profile (:func:`.increment.jump_increment`).  A law whose coefficient evolves with the sliding
distance (``evolving``: running-in, Wang & Liu (2015) eqs. 15-20) is evaluated on the same
averaging cycles' samples once more with each node's sliding distance after the jump, and the two
rate maps are averaged (trapezoidal in the sliding distance, second order in the jump: the planar
loop's rule); its standard error is taken as the rate's relative one.  The sliding distance of a
node is the slip it has seen under load (:func:`.spatial_map.cycle_rates`), so a node that comes
into contact late runs in late.
"""
from __future__ import annotations

import numpy as np

from .spatial_map import cycle_rates


def map_increment(worn, rate, dN: float, law, share: float, pressure_model):
    """Increments of a jump of ``dN`` [cycles] on the map ``worn`` (:class:`.spatial_map.WornMap`
    or :class:`.spatial_cap.WornCap`) at the measured ``rate`` (:class:`.increment.WearRate` with
    its ``map_samples``): flattened ``(bushing depth [m], journal depth [m], bushing sliding [m],
    standard error of the bushing depth [m], of the journal depth [m])``."""
    db, dj = dN * rate.depth_bushing, dN * rate.depth_journal
    if getattr(law, "evolving", False) and dN > 0.0:
        before = worn.sliding_bushing
        worn.sliding_bushing = before + np.reshape(dN * rate.sliding, before.shape)
        try:
            after = cycle_rates(worn, rate.map_samples, rate.cycles.n, pressure_model, law, share)
        finally:
            worn.sliding_bushing = before
        db = 0.5 * (db + dN * after.bushing.mean(axis=0))
        dj = 0.5 * (dj + dN * after.journal.mean(axis=0))
    return db, dj, dN * rate.sliding, dN * rate.stderr_bushing, dN * rate.stderr_journal


__all__ = ["map_increment"]
