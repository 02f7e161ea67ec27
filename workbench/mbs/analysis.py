"""Robust figures of a clearance-joint run, for validation and comparisons.

Clearance dynamics is sensitive to tolerance after a few hundred degrees of crank angle
(VALIDATION.md), so codes are compared on the first impact: when it starts, how fast the
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
    duration [s] (NaN when the contact has not ended within the run).
    """
    time: float
    velocity: float
    peak_force: float
    peak_time: float
    duration: float


def impact(sim: Simulation, joint: int = 0, number: int = 0) -> Impact:
    """The ``number``-th impact (0 = first) of clearance joint ``joint``.

    The peak force is the largest sampled force between the contact start and its end (first
    sample with zero force afterwards): choose an output step much smaller than the contact
    duration.
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
    if i1 <= i0:
        return Impact(t0, v0, 0.0, t0, 0.0)
    ip = i0 + int(np.argmax(f[i0:i1]))
    duration = float(sim.time[i1] - t0) if len(after) else float("nan")
    return Impact(t0, v0, float(f[ip]), float(sim.time[ip]), duration)
