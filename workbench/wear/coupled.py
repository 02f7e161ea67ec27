"""One contact, one pressure field: the wear law integrates the pressure the dynamics computed.

With ``wear.pressure = { model = "dynamics" }`` and a distributed contact law on the worn joint
(:mod:`workbench.mbs.distributed`, e.g. ``distributed_winkler``), the pressure of every contact
sample of the averaging cycles is not recomputed by a second model from the resultant force: it is
the dynamics' own pressure field at that sample's state (eccentricity, relative rotation, their
rates and the impact speed in force), re-evaluated on the wear nodes with the same quadrature as
the integrator.  Each Gauss point's normal force is shared linearly between the two nearest wear
nodes, so the nodal pressure ``p_k = F_k / (R_b b dtheta)`` carries the sample's load: the sum of
the nodal forces is the dynamics' exactly, their resultant differs from it by O(dtheta^2).

Any other pressure model with a distributed contact is the decoupled route (pressure from the
resultant, as with point contact), kept for comparison.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..errors import WorkbenchError
from ..mbs import kernels
from ..mbs.distributed import N_RES, P_LEN, distributed_contact
from ..mbs.distributed_joint import bushing_frame
from ..mbs.distributed_reference import profile_row
from ..models import ContactGeometry

#: the pressure-model name that selects the coupled route
MODEL = "dynamics"


def is_coupled(cfg) -> bool:
    """True when the wear table asks for the dynamics' own pressure."""
    return getattr(cfg.pressure, "name", None) == MODEL


def check(study) -> None:
    """Refuse ``pressure = "dynamics"`` on a worn joint whose contact law is not distributed."""
    cfg = study.wear
    if not is_coupled(cfg):
        return
    for j in cfg.joints:
        joint = study.mechanism.clearance_joints[j]
        if not getattr(joint.contact, "distributed", False):
            raise WorkbenchError(
                f"{study.file or 'study'}: wear.pressure.model = '{MODEL}' takes the pressure from the "
                f"dynamics, but clearance joint '{joint.name}' has the point-contact law "
                f"'{joint.contact.name}'. Valid: a distributed contact law (distributed_winkler) on the "
                f"joint, or a pressure model that computes its own field (approximate_area, winkler, fem)")


@njit(cache=True)
def sample_pressures(pos, vel, bi, bj, row, cp, dms, nodes, fk, fp):
    """Pressure [Pa] on ``nodes`` bushing nodes at every sample: ``pos``/``vel`` (ns, 3 nb) body
    coordinates and rates, ``dms`` (ns,) the impact speed in force [m/s] (< 0: no contact)."""
    ns = pos.shape[0]
    out = np.zeros((ns, nodes))
    res = np.zeros(N_RES)
    tmp = np.zeros(2)
    bins = np.zeros(nodes)
    scale = row[4] * cp[P_LEN]
    cell = scale * 2.0 * math.pi / nodes
    for s in range(ns):
        if dms[s] < 0.0:
            continue
        q = pos[s]; qd = vel[s]
        ebx, eby, vrx, vry, phb, phj, wb, wj = bushing_frame(q, qd, bi, bj, row)
        bins[:] = 0.0
        distributed_contact(row, cp, ebx, eby, vrx + wb * eby, vry - wb * ebx, phj - phb, wj - wb,
                            vrx, vry, wj * row[5] - wb * row[4], dms[s], scale, fk, fp.ctypes, 0.0, tmp,
                            res, bins)
        for k in range(nodes):
            out[s, k] = bins[k] / cell
    return out


#: the integrator's floor of the impact speed it keeps at a contact start [m/s]
#: (:func:`workbench.mbs.integrator.integrate`: ``dm = max(gap rate, 1e-6)``)
DM_FLOOR = 1e-6


def impact_speeds(sim, joint: int, start: int) -> np.ndarray:
    """The impact speed in force at every sample from ``start`` [m/s], as the integrator keeps it:
    the approach speed of the joint's last contact start at or before the sample, floored at
    :data:`DM_FLOOR` (a grazing start on a worn profile can have a rate <= 0); the floor where no
    start is recorded (a contact closed since the first sample)."""
    t = sim.time[start:]
    mine = sim.impact_joint == joint
    ti, vi = sim.impact_time[mine], sim.impact_velocity[mine]
    k = np.searchsorted(ti, t, side="right") - 1
    v = np.where(k >= 0, vi[np.maximum(k, 0)] if len(vi) else DM_FLOOR, DM_FLOOR)
    return np.maximum(v, DM_FLOOR)


def dynamics_pressure(run, sim, joint: int, start: int) -> np.ndarray:
    """The dynamics' pressure (ns, M) [Pa] of worn joint ``joint`` at the samples ``start:``."""
    study, cfg = run.study, run.cfg
    mech = study.mechanism
    w = run.worn[joint]
    c = w.joint
    row = profile_row(c.bushing_radius, c.journal_radius, w.h_bushing, w.h_journal)
    row[0:2] = mech.point(c.bushing_body, c.bushing_point)
    row[2:4] = mech.point(c.journal_body, c.journal_point)
    geom = (w.contact_geometry() if cfg.stiffness == "worn" else
            ContactGeometry("cylindrical", c.journal_radius, c.bushing_radius, c.length,
                            c.journal_material, c.bushing_material))
    cp = np.asarray(c.contact.pack(geom), float)
    nb = sim.position.shape[1]
    pos = np.ascontiguousarray(sim.position[start:].reshape(-1, 3 * nb))
    vel = np.ascontiguousarray(sim.velocity[start:].reshape(-1, 3 * nb))
    dms = impact_speeds(sim, joint, start)
    dms = np.where(sim.contact_force[start:, joint] > 0.0, dms, -1.0)
    return sample_pressures(pos, vel, mech.body_index(c.bushing_body), mech.body_index(c.journal_body),
                            row, cp, np.ascontiguousarray(dms), w.nodes, kernels.no_friction(), np.zeros(1))


def bind(run, sim, joint: int, start: int, samples):
    """A copy of the ``dynamics`` pressure model holding the pressure of these samples, keyed by
    their load vectors (the loads :func:`workbench.wear.increment.pressure_field` asks for)."""
    p = dynamics_pressure(run, sim, joint, start)
    loads = samples.force[:, None] * np.column_stack([np.cos(samples.angle), np.sin(samples.angle)])
    table = {loads[i].tobytes(): p[i] for i in np.flatnonzero(samples.force > 0.0)}
    return run.cfg.pressure.bound(table)
