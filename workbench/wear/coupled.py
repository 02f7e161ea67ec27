"""One contact, one pressure field: the wear law integrates the pressure the dynamics computed.

With ``wear.pressure = { model = "dynamics" }`` and a distributed contact law on the worn joint
(:mod:`workbench.mbs.distributed`, e.g. ``distributed_winkler``), the pressure of every contact
sample of the averaging cycles is not recomputed by a second model from the resultant force: it is
the dynamics' own pressure field at that sample's state (eccentricity, relative rotation, their
rates and the impact speed in force), re-evaluated on the wear nodes with the same quadrature as
the integrator.  Each Gauss point's normal force is shared linearly between the two nearest wear
nodes, so the nodal pressure ``p_k = F_k / (R_b b dtheta)`` carries the sample's load: the sum of
the nodal forces is the dynamics' exactly, their resultant differs from it by O(dtheta^2).

The contact SWEEPS between samples.  The wear loop's rectangle rule gives sample ``s`` the interval
``[t_s, t_(s+1))`` (its force times its slip ``|v_t| dt``), but a patch a few degrees wide whose
direction turns by more than its width per sample leaves, at the instants alone, a comb of
painted and unpainted nodes; as the machine cycle repeats, every averaging cycle paints the same
teeth, so more cycles do not fill them (five-bar study: the contact turns by a median 2.2 deg and
up to 16 deg per sample, the unworn patch is 2 deg wide, and the first update left 7 um teeth on
a 10 um scar).  :func:`swept_pressures` therefore gives sample ``s`` the mean field over its
interval, the rectangle rule's own assumption applied to the direction too: the load keeps the
sample's magnitude and its eccentricity turns at a uniform rate from sample ``s``'s direction to
sample ``s+1``'s, evaluated every :data:`SWEEP_STEP` of arc (at most :data:`MAX_SUBSAMPLES` per
sample) on the worn surfaces themselves (the eccentricity rescaled until the field carries the
sample's force).  :func:`sample_pressures` is the field at the instants alone.

The sweep never crosses a JUMP.  Turning the field assumes one patch that slides round the bore; on
a deep pocket the field can change its shape between two samples instead -- a second patch
engages, the contact closes or opens, or a conformal patch shifts its pressure from one flank to
the other, so that the resultant swings by tens of degrees while the eccentricity turns by three
(deep-wear slider-crank at 105 000 cycles: the turned-and-reseated field pointed 13 deg from the
sample's load and the wear loop's load check stopped the run).  An interval whose ends differ in
their patch count or whose recorded forces differ by more than :data:`JUMP_FORCE_RATIO`, or whose
swept field does not carry the sample's own resultant within :data:`SWEEP_LOAD_SHARE` of the load
check's tolerances, keeps the sample's own field: the rectangle rule's state at ``t_s``, which
carries the load exactly (:func:`swept_fields` reports the verdict of every interval).

Any other pressure model with a distributed contact is the decoupled route (pressure from the
resultant, as with point contact), kept for comparison.
"""
from __future__ import annotations

import math

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from ..errors import WorkbenchError
from ..mbs import kernels
from ..mbs.distributed import (N_RES, P_LEN, R_FBX, R_FBY, distributed_contact, distributed_gap,
                               seen_profiles)
from ..mbs.distributed_joint import bushing_frame
from ..mbs.distributed_reference import profile_row
from ..models import ContactGeometry
from .increment import LOAD_ANGLE, LOAD_TOLERANCE

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


#: largest arc [rad] the contact turns between two sub-samples of :func:`swept_pressures`: one node
#: spacing of the 720-node studies, a quarter of the unworn patch width of the five-bar study
SWEEP_STEP = math.radians(0.5)
#: most sub-samples per sample interval (a 32 deg sweep at :data:`SWEEP_STEP`)
MAX_SUBSAMPLES = 64
#: a sample interval whose two ends' recorded normal forces differ by more than this factor is a
#: jump (a contact closing or opening, a patch engaging): it is not swept
JUMP_FORCE_RATIO = 2.0
#: a patch counts in the jump test when it carries at least this share of the sample's normal
#: force (nodal forces of :func:`distributed_contact`): a sliver at a scar's rim that comes and
#: goes between samples does not change the field, a land that takes a twentieth of the load does
PATCH_SHARE = 0.05
#: loaded runs closer than this arc [rad] are one patch (the unworn contact's Gauss points lie up to
#: a third of a piece apart: 1.7 deg on a 20-deg patch of 4 pieces); lands either side of a groove
#: are farther apart
PATCH_GAP = math.radians(3.0)
#: share of the wear loop's load tolerances (:data:`.increment.LOAD_TOLERANCE`, ``LOAD_ANGLE``) a
#: swept field must meet against its sample's own resultant, else the interval is a jump (the
#: margin keeps the loop's check, made against the recorded force, from failing on a swept field)
SWEEP_LOAD_SHARE = 0.9
#: what :func:`swept_fields` did with each sample interval (its ``flags``): no contact, the
#: sample's own field (the contact turned less than a sub-step), swept, or the sample's own field
#: because the interval is a jump: the patch count changed (between the ends or at a sub-sample),
#: the force jumped, or the swept field would not carry the sample's load
OPEN, INSTANT, SWEPT, JUMP_PATCHES, JUMP_FORCE, JUMP_LOAD = 0, 1, 2, 3, 4, 5
FLAG_NAMES = ("open", "instant", "swept", "jump: patches", "jump: force", "jump: load")


@njit(cache=True)
def _rotated_field(row, cp, ebx, eby, edx, edy, phi, phd, vrx, vry, wrel, dm, scale, fk, fp, tmp,
                   res, bins, beta, target, delta0):
    """The contact field with the eccentricity, its rate and the relative velocity turned by
    ``beta`` [rad] (bushing frame) and the eccentricity's length set so that the largest overlap
    is ``delta0`` [m] and then the resultant is ``target`` [N] (two steps of the unworn power law
    F ~ u^1.5, the rest by scaling the field).  Fills ``bins``; returns False when no field."""
    cb = math.cos(beta); sb = math.sin(beta)
    ex = cb * ebx - sb * eby; ey = sb * ebx + cb * eby
    dx = cb * edx - sb * edy; dy = sb * edx + cb * edy
    ux = cb * vrx - sb * vry; uy = sb * vrx + cb * vry
    r = math.sqrt(ex * ex + ey * ey)
    if r <= 0.0:
        return False
    nx = ex / r; ny = ey / r
    for _ in range(3):   # the largest overlap grows with r at rate cos(psi* - alpha) ~ 1
        d, _psi, _c = distributed_gap(row, r * nx, r * ny, phi)
        r += delta0 - d
    u = delta0
    for it in range(3):
        bins[:] = 0.0
        distributed_contact(row, cp, r * nx, r * ny, dx, dy, phi, phd, ux, uy, wrel, dm, scale, fk, fp,
                            0.0, tmp, res, bins)
        f = math.sqrt(res[0] * res[0] + res[1] * res[1])
        if not f > 0.0:
            return False
        if it == 2 or abs(f - target) <= 1e-6 * target:
            break
        un = u * (target / f) ** (2.0 / 3.0)
        r += un - u; u = un
    bins *= target / f
    return True


@njit(cache=True)
def _carries(bins, ct, sn, fx, fy, tol, cos_max):
    """True when the nodal forces ``bins`` [N] (node directions ``ct``, ``sn``) carry the load
    ``(fx, fy)`` [N] in a sense of :func:`workbench.wear.increment.check_load` with the tolerances
    ``tol`` [1] and ``cos_max`` (cosine of the largest angle)."""
    f = math.sqrt(fx * fx + fy * fy)
    rx = 0.0; ry = 0.0; arc = 0.0
    for k in range(bins.shape[0]):
        rx += bins[k] * ct[k]; ry += bins[k] * sn[k]; arc += bins[k]
    if math.sqrt((rx - fx) ** 2 + (ry - fy) ** 2) <= tol * f:
        return True
    r = math.sqrt(rx * rx + ry * ry)
    return abs(arc - f) <= tol * f and r > 0.0 and (rx * fx + ry * fy) >= cos_max * r * f


@njit(cache=True)
def load_patches(bins, share, gap):
    """Patches [1] of the nodal normal forces ``bins`` [N]: runs of loaded nodes round the bore,
    runs apart by fewer than ``gap`` unloaded nodes joined (the unworn contact's quadrature points
    can lie more than a node apart on a wide patch), that carry at least ``share`` [1] of the sum."""
    n = bins.shape[0]
    total = 0.0
    for k in range(n):
        total += bins[k]
    if not total > 0.0:
        return 0
    # start after the widest-enough gap: the first unloaded stretch of >= gap nodes
    start = -1
    empty = 0
    for k in range(2 * n):
        if bins[k % n] > 0.0:
            empty = 0
        else:
            empty += 1
            if empty >= gap:
                start = k % n
                break
    if start < 0:
        return 1        # no gap of ``gap`` nodes anywhere: one patch all round
    count = 0
    run = 0.0
    empty = 0
    for i in range(1, n + 1):
        k = (start + i) % n
        if bins[k] > 0.0:
            run += bins[k]
            empty = 0
        else:
            empty += 1
            if empty >= gap and run > 0.0:
                if run >= share * total:
                    count += 1
                run = 0.0
    if run > 0.0 and run >= share * total:   # a run still open at the end ends in the starting gap
        count += 1
    return count


@njit(cache=True)
def swept_fields(pos, vel, bi, bj, row, cp, dms, force, nodes, fk, fp, step, max_sub, guard, tol, cos_max, flags):
    """Pressure [Pa] on ``nodes`` bushing nodes, each sample's mean over its interval (module
    docstring), and in ``flags`` (ns,) what was done with each interval (:data:`OPEN` ...
    :data:`JUMP_LOAD`).  An interval is never swept across a jump: when the two ends' patch counts
    (:func:`load_patches`: patches with :data:`PATCH_SHARE` of the load, :data:`PATCH_GAP` apart) differ, a sub-sample's patch count differs from the sample's, the recorded forces differ by
    more than :data:`JUMP_FORCE_RATIO`, or the swept field would not carry the sample's own
    resultant to ``tol`` [1] / ``cos_max`` [1], the sample keeps its own field (the rectangle
    rule's state at ``t_s``), which carries its load exactly.  ``guard`` False sweeps every
    interval regardless (the unguarded sweep, for comparison)."""
    ns = pos.shape[0]
    out = np.zeros((ns, nodes))
    res = np.zeros(N_RES)
    tmp = np.zeros(2)
    bins = np.zeros(nodes)
    acc = np.zeros(nodes)
    inst = np.zeros(nodes)
    ct = np.cos(np.arange(nodes) * (2.0 * math.pi / nodes))
    sn = np.sin(np.arange(nodes) * (2.0 * math.pi / nodes))
    scale = row[4] * cp[P_LEN]
    cell = scale * 2.0 * math.pi / nodes
    gap = max(1, int(math.ceil(PATCH_GAP / (2.0 * math.pi / nodes))))
    for s in range(ns):
        flags[s] = OPEN
        if dms[s] < 0.0 or not force[s] > 0.0:
            continue
        ebx, eby, vrx, vry, phb, phj, wb, wj = bushing_frame(pos[s], vel[s], bi, bj, row)
        edx = vrx + wb * eby; edy = vry - wb * ebx
        wrel = wj * row[5] - wb * row[4]
        inst[:] = 0.0
        distributed_contact(row, cp, ebx, eby, edx, edy, phj - phb, wj - wb, vrx, vry, wrel, dms[s],
                            scale, fk, fp.ctypes, 0.0, tmp, res, inst)
        patches = load_patches(inst, PATCH_SHARE, gap)
        fx = res[R_FBX]; fy = res[R_FBY]
        acc[:] = inst
        n_ok = 1
        flags[s] = INSTANT
        if s + 1 < ns:
            nbx, nby, nvx, nvy, nphb, nphj, nwb, nwj = bushing_frame(pos[s + 1], vel[s + 1], bi, bj, row)
            turn = math.atan2(ebx * nby - eby * nbx, ebx * nbx + eby * nby)
            n_sub = int(math.ceil(abs(turn) / step))
            if n_sub > max_sub:
                n_sub = max_sub
            if n_sub > 1:
                verdict = SWEPT
                f0 = force[s]; f1 = force[s + 1]
                if guard and f1 > 0.0 and dms[s + 1] >= 0.0:
                    if f1 > JUMP_FORCE_RATIO * f0 or f0 > JUMP_FORCE_RATIO * f1:
                        verdict = JUMP_FORCE
                    else:
                        bins[:] = 0.0
                        distributed_contact(row, cp, nbx, nby, nvx + nwb * nby, nvy - nwb * nbx, nphj - nphb,
                                            nwj - nwb, nvx, nvy, nwj * row[5] - nwb * row[4], dms[s + 1], scale,
                                            fk, fp.ctypes, 0.0, tmp, res, bins)
                        if load_patches(bins, PATCH_SHARE, gap) != patches:
                            verdict = JUMP_PATCHES
                if verdict == SWEPT:
                    delta0, _p, _q = distributed_gap(row, ebx, eby, phj - phb)
                    dphi = (nphj - nphb) - (phj - phb)
                    for j in range(1, n_sub):
                        tau = j / n_sub
                        if _rotated_field(row, cp, ebx, eby, edx, edy, phj - phb + tau * dphi, wj - wb, vrx,
                                          vry, wrel, dms[s], scale, fk, fp.ctypes, tmp, res, bins,
                                          tau * turn, force[s], delta0):
                            if guard and load_patches(bins, PATCH_SHARE, gap) != patches:
                                verdict = JUMP_PATCHES
                                break
                            acc += bins
                            n_ok += 1
                if guard and verdict == SWEPT and not _carries(acc / n_ok, ct, sn, fx, fy, tol, cos_max):
                    verdict = JUMP_LOAD
                if verdict != SWEPT:
                    acc[:] = inst
                    n_ok = 1
                flags[s] = verdict
        for k in range(nodes):
            out[s, k] = acc[k] / (n_ok * cell)
    return out


def swept_pressures(pos, vel, bi, bj, row, cp, dms, force, nodes, fk, fp, step, max_sub, flags=None):
    """Pressure [Pa] on ``nodes`` bushing nodes, each sample's mean over its interval, never swept
    across a jump (:func:`swept_fields`): ``force`` (ns,) the recorded normal force [N], ``step``
    [rad] the largest turn between sub-samples, ``max_sub`` the most sub-samples, ``flags`` an
    optional (ns,) int array that receives each interval's verdict; the other arguments as
    :func:`sample_pressures`.  A swept field meets :data:`SWEEP_LOAD_SHARE` of the wear loop's
    load tolerances against its sample's resultant."""
    flags = np.zeros(pos.shape[0], np.int64) if flags is None else flags
    return swept_fields(pos, vel, bi, bj, row, cp, dms, force, nodes, fk, fp, step, max_sub, True,
                        SWEEP_LOAD_SHARE * LOAD_TOLERANCE, math.cos(SWEEP_LOAD_SHARE * LOAD_ANGLE), flags)


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


def dynamics_pressure(run, sim, joint: int, start: int, sweep: bool = False, flags=None) -> np.ndarray:
    """The dynamics' pressure (ns, M) [Pa] of worn joint ``joint`` at the samples ``start:``: at
    the instants (``sweep`` False), or each sample's mean over its interval as the contact turns
    (``sweep`` True, :func:`swept_pressures`: what the wear loop integrates; ``flags``, an optional
    int array of the samples' length, receives each interval's verdict)."""
    study, cfg = run.study, run.cfg
    mech = study.mechanism
    w = run.worn[joint]
    c = w.joint
    row = profile_row(c.bushing_radius, c.journal_radius, *seen_profiles(c.contact, w.h_bushing, w.h_journal))
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
    bi, bj = mech.body_index(c.bushing_body), mech.body_index(c.journal_body)
    if sweep:
        force = np.ascontiguousarray(np.maximum(sim.contact_force[start:, joint], 0.0))
        return swept_pressures(pos, vel, bi, bj, row, cp, np.ascontiguousarray(dms), force, w.nodes,
                               kernels.no_friction(), np.zeros(1), SWEEP_STEP, MAX_SUBSAMPLES, flags)
    return sample_pressures(pos, vel, bi, bj, row, cp, np.ascontiguousarray(dms), w.nodes,
                            kernels.no_friction(), np.zeros(1))


def bind(run, sim, joint: int, start: int, samples):
    """A copy of the ``dynamics`` pressure model holding the pressure of these samples, keyed by
    their load vectors (the loads :func:`workbench.wear.increment.pressure_field` asks for)."""
    chains = getattr(sim, "chains", None)
    if chains is None or len(chains) == 1:
        p = dynamics_pressure(run, sim, joint, start, sweep=True)
    else:   # replicas (workbench.wear.chains): each sample swept on its own chain, with its impact speeds
        parts = []
        for s, a, at, n in chains:          # part of ``n`` samples: ``a:`` of ``s``, ``at:`` of ``sim``
            skip = max(start - at, 0)       # its samples before ``start``
            if skip < n:
                parts.append(dynamics_pressure(run, s, joint, a + skip, sweep=True)[:n - skip])
        p = np.concatenate(parts)
    loads = samples.force[:, None] * np.column_stack([np.cos(samples.angle), np.sin(samples.angle)])
    table = {loads[i].tobytes(): p[i] for i in np.flatnonzero(samples.force > 0.0)}
    return run.cfg.pressure.bound(table)
