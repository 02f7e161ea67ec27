"""The two journals of a universal joint as separate stick units (set-valued stick, :mod:`.stick`).

Qi, Luo & Huang (2009) eqs. 54-58 take a universal joint as two revolute joints through a massless
cross: journal 1 turns about the cross axis ``a`` fixed in body i, journal 2 about the cross axis
``b`` fixed in body j (``n = a x b``).  Their relative rotation rates are

    omega_1 = (omega_j - omega_i) . a,        omega_2 = (omega_j - omega_i) . b

(``a`` is perpendicular to ``b``, so the rate of the angle of ``b`` about ``a`` seen from body i is
``omega_1``, and the rate of the angle of ``a`` about ``b`` seen from body j is ``-omega_2``).  Each
journal sticks and slips on its own: its set-valued law is ``|m_k| <= mu_static R_k N_k`` with
``N_k`` its own contact load (its eq. 55 or 58), which depends on the other journal's moment
carried across its axis.

**Lock rows.**  A stuck journal adds one constraint row to the phase model: the journal angle held
at its value at the stick,

    journal 1:  Phi = atan2(y_i . b, x_i . b) - theta_0,     Phi_dot = omega_1
    journal 2:  Phi = -atan2(y_j . a, x_j . a) - theta_0,    Phi_dot = omega_2

with ``gamma = -(omega_i x a) . (omega_j - omega_i)`` and ``-(omega_j x b) . (omega_j - omega_i)``
(the velocity terms of ``Phi_ddot``).  A row's multiplier ``lambda`` is a moment ``-lambda a``
(``-lambda b``) on body j: the journal's needed friction moment.

**Phase friction** (:func:`phase_friction`): a slipping journal carries the law's slip branch with
its load from the joint reaction and the other journal's moment (the friction moment if that one
slips, the lock's multiplier if it sticks); a stuck journal carries no friction of its own (its
lock row does).  Each journal carries its axial load as a revolute joint, at the tilt point of their
eq. 36 or on the flush face, as in the regularised joint
(:func:`~workbench.spatial.joint_friction.universal`).
"""
from __future__ import annotations

import math

import numpy as np

from .rotation import cross

#: the driver-row coordinates of the two journals' lock rows (internal to the stick phases)
JOURNAL_COORDS = {1: "journal_i", 2: "journal_j"}


def axes(cj, A):
    """World ``(a, b, n)`` of universal joint ``cj`` at rotation matrices ``A``."""
    a = A[cj.i] @ cj.frame_i[2]
    b = A[cj.j] @ cj.frame_j[2]
    n = cross(a, b)
    return a, b, n / np.linalg.norm(n)


def angle(cj, A, k: int) -> float:
    """The angle [rad] of journal ``k`` (1: about ``a``, 2: about ``b``), its rate ``omega_k``."""
    a, b, _ = axes(cj, A)
    if k == 1:
        xi, yi = A[cj.i] @ cj.frame_i[0], A[cj.i] @ cj.frame_i[1]
        return math.atan2(yi @ b, xi @ b)
    xj, yj = A[cj.j] @ cj.frame_j[0], A[cj.j] @ cj.frame_j[1]
    return -math.atan2(yj @ a, xj @ a)


def rates(cj, A, W) -> tuple[float, float]:
    """``(omega_1, omega_2)`` [rad/s] of universal joint ``cj``."""
    a, b, _ = axes(cj, A)
    wr = W[cj.j] - W[cj.i]
    return float(wr @ a), float(wr @ b)


def lock_row(cj, coord, f, k, R, A, V, W, Phi, Phit, Jw, gam, t):
    """Fill constraint row ``k`` of a journal lock (``coord`` in :data:`JOURNAL_COORDS`), angle held
    at ``f(t)``."""
    a, b, _ = axes(cj, A)
    wi, wj = W[cj.i], W[cj.j]
    if coord == "journal_i":
        th, e, w_ref = angle(cj, A, 1), a, wi
    else:
        th, e, w_ref = angle(cj, A, 2), b, wj
    Phi[k] = (th - f(t) + math.pi) % (2 * math.pi) - math.pi
    Jw[k, cj.j, 3:] += e
    Jw[k, cj.i, 3:] -= e
    gam[k] = -(cross(w_ref, e) @ (wj - wi))
    Phit[k] = 0.0


def frames(F, Nm, a, b, n, m1, m2):
    """The journals' reactions in their own frames (Qi, Luo & Huang (2009) eq. 56, the cyclic
    substitution): journal 1 ``(F_a, F_b, F_n)``, moment ``(0, m2, M_n)``; journal 2 ``(F_b, F_n,
    F_a)``, moment ``(0, M_n, m1)``.  ``F``, ``Nm``: the joint's force [N] and moment [N m] on body j
    (world, about the joint point)."""
    Fa, Fb, Fn, Mn = F @ a, F @ b, F @ n, Nm @ n
    return ((Fa, Fb, Fn), (0.0, m2, Mn)), ((Fb, Fn, Fa), (0.0, Mn, m1))


def phase_friction(model, cj, D, lam, state, locks: dict, seeds: dict, v_floor: float):
    """Friction values ``(0, m1, m2)`` [N m] and record ``(L1, L2, 0, 0, 0, 0, 0, omega_1)`` of
    universal joint ``cj`` in a stick phase: ``locks`` journal -> lock row of the stuck journals,
    ``seeds`` journal -> sign of the slip from rest (used while ``|omega_k| R_k < v_floor``)."""
    from .joint_friction import cylinder
    P, E, _, _ = model._friction_frame(cj)
    F, Nm = model.reaction(cj, D, lam, P)
    a, b, n = axes(cj, model.A)
    w1, w2 = rates(cj, model.A, model.W)
    k = cj.friction_index
    m = {1: -lam[locks[1]] if 1 in locks else state[k, 1], 2: -lam[locks[2]] if 2 in locks else state[k, 2]}
    (F1, M1), (F2, M2) = frames(F, Nm, a, b, n, m[1], m[2])
    out, loads = [0.0, 0.0], [0.0, 0.0]
    for q, (Fq, Mq, om, R, c) in enumerate(((F1, M1, w1, cj.R, cj.c), (F2, M2, w2, cj.R2, cj.c2)), start=1):
        if q in locks:
            continue
        if abs(om) * R < v_floor and q in seeds:
            om = v_floor * seeds[q] / R
        r = cylinder(Fq, Mq, cj.law, 0.0, om, R, c, axial=True)
        out[q - 1], loads[q - 1] = r[1], sum(r[2:6])
    return (0.0, out[0], out[1]), (loads[0], loads[1], 0, 0, 0, 0, 0, w1)


def needed(model, cj, D, lam, fr, locks: dict):
    """Per stuck journal ``q`` of universal joint ``cj`` (``locks``: journal -> lock row):
    ``(m_n [N m], N [N], loads)``: the needed friction moment on body j about the journal's axis
    and the journal's contact load with it (the other journal's moment: its lock's multiplier or its
    slip friction ``fr``)."""
    from .stick import contact_load
    P, E, _, _ = model._friction_frame(cj)
    F, Nm = model.reaction(cj, D, lam, P)
    a, b, n = axes(cj, model.A)
    k = cj.friction_index
    m = {q: (-lam[locks[q]] if q in locks else fr[k, q]) for q in (1, 2)}
    frs = frames(F, Nm, a, b, n, m[1], m[2])
    out = {}
    for q in locks:
        Fq, Mq = frs[q - 1]
        R, c = (cj.R, cj.c) if q == 1 else (cj.R2, cj.c2)
        N, loads = contact_load(Fq, Mq, 0.0, m[q], R, c, True)
        out[q] = (m[q], N, loads)
    return out
