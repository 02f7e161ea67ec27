"""Robust figures of a clearance-joint run, for validation and comparisons.

Clearance dynamics is sensitive to tolerance after a few hundred degrees of crank angle
(docs/validation.md), so codes are compared on the first impact: when it starts, how fast the
journal approaches the wall (``delta_dot_minus``) and the peak force of that contact.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .solution import Simulation


@dataclass(frozen=True)
class Impact:
    """One contact event of a clearance joint.

    time [s], velocity (approach speed at contact start) [m/s], peak_force [N], peak_time [s],
    duration [s] (NaN when the contact has not ended within the run), max_penetration [m].
    """
    time: float
    velocity: float
    peak_force: float
    peak_time: float
    duration: float
    max_penetration: float = float("nan")


def impact(sim: Simulation, joint: int = 0, number: int = 0) -> Impact:
    """The ``number``-th impact (0 = first) of clearance joint ``joint``.

    The peak force, its time and the largest penetration come from the solver's impact table
    (located on the integrator's dense output, whatever the output step).  Where the table has
    none (reference path: NaN) they fall back to the largest sample between the contact start
    and its end (first sample with zero force afterwards), which needs an output step much
    smaller than the contact duration.  The duration is measured on the samples.
    """
    sel = np.flatnonzero(sim.impact_joint == joint)
    if len(sel) <= number:
        raise ValueError(f"joint {joint} has only {len(sel)} impacts in this run")
    k = sel[number]
    t0, v0 = float(sim.impact_time[k]), float(sim.impact_velocity[k])
    f = sim.contact_force[:, joint]
    i0 = int(np.searchsorted(sim.time, t0))
    after = np.flatnonzero(f[i0:] <= 0.0)
    i1 = i0 + int(after[0]) if len(after) else len(f)
    duration = float(sim.time[i1] - t0) if len(after) and i1 < len(sim.time) else float("nan")
    peak, t_peak = float(sim.impact_peak_force[k]), float(sim.impact_peak_time[k])
    pen = float(sim.impact_max_penetration[k])
    if np.isfinite(peak):
        return Impact(t0, v0, peak, t_peak, duration, pen)
    if i1 <= i0:
        return Impact(t0, v0, 0.0, t0, 0.0)
    ip = i0 + int(np.argmax(f[i0:i1]))
    pen = float(np.max(sim.penetration[i0:i1, joint]))
    return Impact(t0, v0, float(f[ip]), float(sim.time[ip]), duration, pen)
