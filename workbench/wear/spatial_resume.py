"""Continuing a spatial wear run from its store (``workbench run --resume``).

A row of the spatial store (:func:`.spatial_loop.row`) holds each worn map before its update's
jump (``wear_depth``), the jump's increment (``depth_increment``), the rate map and their standard
errors, the jump (``cycle_jump``) and the averaging cycles: everything the loop carries from one
update to the next, with the sliding distance of each bushing node (``sliding_distance``,
``sliding_increment``), which a running-in law reads.  :func:`restore_history` replays the last rows through the same code as the
planar loop's resume (:func:`.loop._restore_history`): the maps and the jump control's history
come back exactly, the cumulative variances to round-off (they are stored as standard errors).
"""
from __future__ import annotations

import json

import numpy as np
import xarray as xr

from . import statistics as st
from .history import remember


def restore(run, ds: xr.Dataset) -> None:
    """Set ``run`` to the state after the last complete row of ``ds`` (after its jump)."""
    last = ds.isel(cycle=-1)
    val = lambda name, *k: np.asarray(last[name].values[k], float)  # noqa: E731
    dN = float(last.cycle_jump.values)
    for k, j in enumerate(sorted(run.worn)):
        w = run.worn[j]
        w.h_bushing = val("wear_depth", k, 0) + val("depth_increment", k, 0)
        w.h_journal = val("wear_depth", k, 1) + val("depth_increment", k, 1)
        # stores written before the sliding map was stored held laws without memory only
        w.sliding_bushing = (val("sliding_distance", k) + val("sliding_increment", k) if "sliding_distance" in ds
                             else np.zeros_like(w.h_bushing))
        vol_var = val("wear_volume_stderr", k) ** 2 + (dN * val("volume_rate_stderr", k)) ** 2
        depth_var = np.array([(val("wear_depth_stderr", k, s) ** 2 + val("depth_increment_stderr", k, s) ** 2).ravel()
                              for s in (0, 1)])
        run.variance[j] = (vol_var, depth_var)
        run.previous[j] = (np.concatenate([val("wear_rate", k, 0).ravel(), val("wear_rate", k, 1).ravel()]),
                           np.concatenate([val("wear_rate_stderr", k, 0).ravel(),
                                           val("wear_rate_stderr", k, 1).ravel()]))
    run.previous_jump = dN
    run.previous_cycles = int(last["average_cycles"].values)
    run.cycles_done = float(ds.cycle.values[-1]) + dN
    run.update = int(last["update"].values) + 1
    run.validity.warnings = list(json.loads(ds.attrs.get("validity_warnings", "[]")))
    run.validity.notes = list(json.loads(ds.attrs.get("validity_notes", "[]")))


def restore_history(run, ds: xr.Dataset) -> None:
    """:func:`restore` with the jump control's history of the rows before the last (the rows
    replayed in order, as :func:`.loop.advance` booked them)."""
    n = ds.sizes["cycle"]
    for k in range(max(0, n - (st.HISTORY_UPDATES - 1)), n):
        part = ds.isel(cycle=slice(0, k + 1))
        restore(run, part)
        vol = part["volume_rate"].values[-1]
        remember(run, float(part.cycle.values[-1]), {j: np.asarray(vol[i], float) for i, j in enumerate(sorted(run.worn))})
