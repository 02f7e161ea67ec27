"""One wear update: contact samples -> pressure on the nodes -> wear increment per cycle.

Seed 000 §4 steps 5-6: from the averaging cycles of a simulation with the current surfaces, each
contact sample (normal force ``F_n`` along the contact direction ``psi``, relative rotation
``phi_rel``, slip speed ``v_t``) gets a pressure field from the pressure model on the bushing
nodes, and the wear law turns ``p`` and the slip distance ``ds = |v_t| dt`` (equivalent to seed 000
eq. 21, ``ds = (R + delta) d(phi_i - phi_j)``) into a depth.  The depth is shared between the
bushing (fraction ``bushing_share``, on the bushing nodes) and the journal (the rest, carried to
the journal nodes through ``theta_journal = theta_bushing - phi_rel``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import WorkbenchError
from .surfaces import WornJoint, periodic_scatter


class ModelOutputError(WorkbenchError):
    """A pressure model or wear law returned values of the wrong shape or non-finite values;
    the wear loop adds the update, the joint and the cycles to the message."""


def _checked(values, shape, what: str, model) -> np.ndarray:
    a = np.asarray(values, float)
    if a.shape != shape:
        raise ModelOutputError(f"the {what} '{model.name}' returned shape {a.shape}, expected {shape}")
    if not np.all(np.isfinite(a)):
        raise ModelOutputError(f"the {what} '{model.name}' returned non-finite values")
    return a


@dataclass
class ContactSamples:
    """The averaging-window contact history of one joint (arrays of shape ``(ns,)``).

    force [N], angle [rad] (bushing frame), phi_rel [rad], slip [m] (= |v_t| dt, trapezoid
    weights), time [s].
    """
    force: np.ndarray
    angle: np.ndarray
    phi_rel: np.ndarray
    slip: np.ndarray
    time: np.ndarray

    @classmethod
    def from_simulation(cls, sim, joint: int, start: int) -> "ContactSamples":
        """Samples ``start:`` of clearance joint ``joint`` of a :class:`Simulation`."""
        t = sim.time[start:]
        w = np.zeros_like(t)
        if len(t) > 1:
            dt = np.diff(t)
            w[:-1] += 0.5 * dt; w[1:] += 0.5 * dt
        return cls(force=np.maximum(sim.contact_force[start:, joint], 0.0),
                   angle=sim.contact_angle[start:, joint], phi_rel=sim.relative_rotation[start:, joint],
                   slip=np.abs(sim.slip_velocity[start:, joint]) * w, time=t)


@dataclass
class WearRate:
    """Per-cycle results of one update for one joint.

    depth_bushing, depth_journal : wear depth per cycle on each part's nodes [m/cycle].
    sliding : sliding distance under load per bushing node and cycle [m/cycle].
    peak_pressure [Pa], max_force [N], mean_force [N] over the averaging window.
    pressure : (ns, M) pressure of every sample [Pa] (kept for the final increment).
    """
    depth_bushing: np.ndarray
    depth_journal: np.ndarray
    sliding: np.ndarray
    peak_pressure: float
    max_force: float
    mean_force: float
    pressure: np.ndarray
    samples: ContactSamples

    @property
    def deepest(self) -> float:
        """Largest depth increment per cycle on either part [m/cycle]."""
        return float(max(self.depth_bushing.max(initial=0.0), self.depth_journal.max(initial=0.0)))


def pressure_field(worn: WornJoint, samples: ContactSamples, model) -> np.ndarray:
    """Pressure on the bushing nodes for every sample, shape ``(ns, M)`` [Pa]."""
    ns, M = len(samples.force), worn.nodes
    p = np.zeros((ns, M))
    loaded = np.flatnonzero(samples.force > 0.0)
    if len(loaded):
        loads = samples.force[loaded, None] * np.column_stack(
            [np.cos(samples.angle[loaded]), np.sin(samples.angle[loaded])])
        out = model.solve_loads(worn.section(), loads, worn.gaps(samples.phi_rel[loaded]))
        if not isinstance(out, tuple) or len(out) != 2:
            raise ModelOutputError(f"the pressure model '{model.name}' must return (pressure, "
                                   f"eccentricity) from solve_loads, got {type(out).__name__}")
        p[loaded] = _checked(out[0], (len(loaded), M), "pressure model", model)
    return p


def wear_split(worn: WornJoint, samples: ContactSamples, dh: np.ndarray, share: float):
    """Bushing and journal nodal depths [m] from per-sample depths ``dh`` (ns, M) on the bushing nodes."""
    bushing = share * dh.sum(axis=0)
    journal = np.zeros(worn.nodes)
    if share < 1.0:
        ang = worn.theta[None, :] - samples.phi_rel[:, None]
        journal = (1.0 - share) * periodic_scatter(dh, ang, worn.nodes)
    return bushing, journal


def wear_rate(worn: WornJoint, samples: ContactSamples, n_cycles: int, pressure_model, law,
              share: float) -> WearRate:
    """Per-cycle wear of ``worn`` from ``samples`` spanning ``n_cycles`` cycles."""
    p = pressure_field(worn, samples, pressure_model)
    ds = samples.slip[:, None]
    dh = _checked(law.depth(p, ds, worn.sliding_bushing[None, :]), p.shape, "wear law", law)
    b, j = wear_split(worn, samples, dh, share)
    sliding = np.sum(np.where(p > 0.0, ds, 0.0), axis=0)
    f = samples.force
    return WearRate(depth_bushing=b / n_cycles, depth_journal=j / n_cycles, sliding=sliding / n_cycles,
                    peak_pressure=float(p.max(initial=0.0)), max_force=float(f.max(initial=0.0)),
                    mean_force=float(f.mean()) if len(f) else 0.0, pressure=p, samples=samples)


def jump_increment(worn: WornJoint, rate: WearRate, dN: float, n_cycles: int, law, share: float):
    """Depth increments (bushing, journal) [m] and sliding increment [m] of a jump of ``dN`` cycles.

    A law whose coefficient evolves with sliding (``evolving``: running-in, seed 000 eq. 15-20)
    is evaluated at the sliding distance before and after the jump and averaged (trapezoidal in
    the sliding distance, second order); for the others (Archard, Reye) this is exactly ``dN``
    times the per-cycle increment.
    """
    ds = rate.samples.slip[:, None]
    s0 = worn.sliding_bushing[None, :]
    s1 = s0 + dN * rate.sliding[None, :]
    dh = _checked(law.depth(rate.pressure, ds, s0), rate.pressure.shape, "wear law", law)
    if getattr(law, "evolving", False):
        dh1 = _checked(law.depth(rate.pressure, ds, s1), rate.pressure.shape, "wear law", law)
        dh = 0.5 * (dh + dh1)
    b, j = wear_split(worn, rate.samples, dh, share)
    return dN * b / n_cycles, dN * j / n_cycles, dN * rate.sliding
