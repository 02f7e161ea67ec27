"""The distributed contact (:mod:`.distributed`) as one joint of the compiled mechanism.

:func:`joint_forces` turns the body coordinates of a revolute clearance joint into the inputs of
:func:`.distributed.distributed_contact` and applies its resultants to the generalised forces (the
normal resultant at the journal centre on both bodies, the ``phi_rel`` torque, friction at each
body's own centre); :func:`joint_gap` is its largest overlap and rate for the event detection
(both called from :mod:`.clearance`).  :func:`check_joint` refuses the joints it is not defined for.
"""
from __future__ import annotations

import math

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .distributed import (N_RES, P_LEN, R_DELTA, R_FBX, R_FBY, R_FNSUM, R_FT, R_FTX, R_FTY, R_PC, R_PF,
                          R_PSI, R_TORQUE, distributed_contact, distributed_gap)


def check_joint(joint) -> None:
    """Refuse a distributed contact law where it is not defined: translational clearance joints,
    and friction laws with internal state (one state per joint cannot describe a patch)."""
    from ..errors import MechanismError
    from .mechanism import RevoluteClearanceJoint
    if not isinstance(joint, RevoluteClearanceJoint):
        raise MechanismError(f"clearance joint '{joint.name}': the contact model '{joint.contact.name}' is "
                             f"distributed over a bore and is for revolute clearance joints only; valid "
                             f"for a translational joint: a point-contact law")
    fr = joint.friction
    if fr is not None and getattr(type(fr), "n_states", 0) > 0:
        raise MechanismError(f"clearance joint '{joint.name}': the distributed contact '{joint.contact.name}' "
                             f"integrates the friction law over the contact patches and needs a memoryless "
                             f"law; '{fr.name}' has internal state. Valid: a law with n_states = 0 "
                             f"(coulomb, ambrosio, bai_zhao)")


@njit(cache=True)
def joint_forces(q, qd, bi, bj, row, cp, phb, phj, Pbx, Pby, Pjx, Pjy, dm, fk, fp, z, Q, tmp, rec):
    """The distributed contact of one revolute clearance joint: add its forces to ``Q`` and fill
    the joint's ``rec`` row (:mod:`.clearance` columns 0-8).  Returns ``(contact power [W],
    friction power [W], sum of the point normal forces [N], ok)``."""
    cb = math.cos(phb); sb = math.sin(phb)
    ex = Pjx - Pbx; ey = Pjy - Pby
    ebx = cb * ex + sb * ey; eby = -sb * ex + cb * ey
    wb = qd[3 * bi + 2] if bi >= 0 else 0.0
    wj = qd[3 * bj + 2] if bj >= 0 else 0.0
    vbx = qd[3 * bi] - wb * (Pby - q[3 * bi + 1]) if bi >= 0 else 0.0
    vby = qd[3 * bi + 1] + wb * (Pbx - q[3 * bi]) if bi >= 0 else 0.0
    vjx = qd[3 * bj] - wj * (Pjy - q[3 * bj + 1]) if bj >= 0 else 0.0
    vjy = qd[3 * bj + 1] + wj * (Pjx - q[3 * bj]) if bj >= 0 else 0.0
    rx = vjx - vbx; ry = vjy - vby
    vrx = cb * rx + sb * ry; vry = -sb * rx + cb * ry
    edx = vrx + wb * eby; edy = vry - wb * ebx
    Rb = row[4]; Rj = row[5]
    res = np.zeros(N_RES)
    ok = True
    if dm >= 0.0:   # dm < 0: open mode frozen over the step (integrator)
        ok = distributed_contact(row, cp, ebx, eby, edx, edy, phj - phb, wj - wb, vrx, vry,
                                 wj * Rj - wb * Rb, dm, Rb * cp[P_LEN], fk, fp, z, tmp, res, np.zeros(0))
    else:
        res[R_DELTA], res[R_PSI], _ = distributed_gap(row, ebx, eby, phj - phb)
    fbx = res[R_FBX]; fby = res[R_FBY]
    fn = math.sqrt(fbx * fbx + fby * fby)
    psi = math.atan2(fby, fbx) if fn > 0.0 else res[R_PSI]
    if ok and fn > 0.0:
        Fx = cb * fbx - sb * fby; Fy = sb * fbx + cb * fby
        Tx = cb * res[R_FTX] - sb * res[R_FTY]; Ty = sb * res[R_FTX] + cb * res[R_FTY]
        tau = res[R_TORQUE]
        if bj >= 0:   # journal: -F (normal) + friction at its centre, torques about it
            Q[3 * bj] += Tx - Fx
            Q[3 * bj + 1] += Ty - Fy
            Q[3 * bj + 2] += (Pjx - q[3 * bj]) * (Ty - Fy) - (Pjy - q[3 * bj + 1]) * (Tx - Fx) \
                + tau + Rj * res[R_FT]
        if bi >= 0:   # bushing: +F at the journal centre, -friction at its own centre
            Q[3 * bi] += Fx - Tx
            Q[3 * bi + 1] += Fy - Ty
            Q[3 * bi + 2] += (Pjx - q[3 * bi]) * Fy - (Pjy - q[3 * bi + 1]) * Fx \
                - ((Pbx - q[3 * bi]) * Ty - (Pby - q[3 * bi + 1]) * Tx) - tau - Rb * res[R_FT]
    cps = math.cos(psi); sps = math.sin(psi)
    rec[0] = fn; rec[1] = res[R_FT]; rec[2] = res[R_DELTA]
    rec[3] = ebx; rec[4] = eby
    rec[5] = -vrx * sps + vry * cps + wj * Rj - wb * Rb
    rec[6] = edx * cps + edy * sps
    rec[7] = psi; rec[8] = phj - phb
    return res[R_PC], res[R_PF], res[R_FNSUM], ok


@njit(cache=True, inline="always")
def bushing_frame(q, qd, bi, bj, row):
    """Eccentricity ``(ebx, eby)`` [m] of the journal centre and relative velocity ``(vrx, vry)``
    [m/s] of the journal point, both in the bushing frame, the two body angles [rad] and their
    rates [rad/s] of one revolute clearance joint (``row``: its packed clearance row); a body
    index < 0 is the ground.  Shared by the dynamics and the wear coupling."""
    phb = q[3 * bi + 2] if bi >= 0 else 0.0
    phj = q[3 * bj + 2] if bj >= 0 else 0.0
    cb = math.cos(phb); sb = math.sin(phb)
    Pbx = row[0]; Pby = row[1]; Pjx = row[2]; Pjy = row[3]
    if bi >= 0:
        Pbx = q[3 * bi] + cb * row[0] - sb * row[1]; Pby = q[3 * bi + 1] + sb * row[0] + cb * row[1]
    if bj >= 0:
        cj = math.cos(phj); sj = math.sin(phj)
        Pjx = q[3 * bj] + cj * row[2] - sj * row[3]; Pjy = q[3 * bj + 1] + sj * row[2] + cj * row[3]
    ex = Pjx - Pbx; ey = Pjy - Pby
    ebx = cb * ex + sb * ey; eby = -sb * ex + cb * ey
    wb = qd[3 * bi + 2] if bi >= 0 else 0.0
    wj = qd[3 * bj + 2] if bj >= 0 else 0.0
    vbx = qd[3 * bi] - wb * (Pby - q[3 * bi + 1]) if bi >= 0 else 0.0
    vby = qd[3 * bi + 1] + wb * (Pbx - q[3 * bi]) if bi >= 0 else 0.0
    vjx = qd[3 * bj] - wj * (Pjy - q[3 * bj + 1]) if bj >= 0 else 0.0
    vjy = qd[3 * bj + 1] + wj * (Pjx - q[3 * bj]) if bj >= 0 else 0.0
    rx = vjx - vbx; ry = vjy - vby
    vrx = cb * rx + sb * ry; vry = -sb * rx + cb * ry
    return ebx, eby, vrx, vry, phb, phj, wb, wj


@njit(cache=True)
def joint_gap(q, qd, bi, bj, row):
    """Largest overlap [m] of one distributed joint and its rate [m/s] (envelope theorem: the rate
    of the overlap at the maximiser)."""
    ebx, eby, vrx, vry, phb, phj, wb, wj = bushing_frame(q, qd, bi, bj, row)
    delta, psi, cph = distributed_gap(row, ebx, eby, phj - phb)
    edx = vrx + wb * eby; edy = vry - wb * ebx
    return delta, edx * math.cos(psi) + edy * math.sin(psi) - cph * (wj - wb)


@njit(cache=True)
def resultants(row, cp, ebx, eby, edx, edy, phi_rel, phd, vrx, vry, wrel, dm, fk, fpar_row, z):
    """:func:`distributed_contact` for a caller holding the friction parameters as an array
    (tests); returns ``(res, ok)``."""
    res = np.zeros(N_RES)
    tmp = np.zeros(2)
    ok = distributed_contact(row, cp, ebx, eby, edx, edy, phi_rel, phd, vrx, vry, wrel, dm,
                             row[4] * cp[P_LEN], fk, fpar_row.ctypes, z, tmp, res, np.zeros(0))
    return res, ok
