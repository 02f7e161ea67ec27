"""Set-valued Coulomb friction in ideal revolute joints: the friction circle of the event-driven solver.

The pin of radius ``r`` touches its bore where the reaction ``lambda = (lambda_x, lambda_y)``
passes (Qi, Luo & Huang (2009) eq. 53, the planar case without axial contacts; the same
equivalent contact as the regularised path, :mod:`workbench.mbs.joint_friction`).  The friction
force ``F`` at the pin's surface gives the moment ``r F`` on ``body_j`` (opposite on ``body_i``):

* slip: ``F = -mu |lambda| s`` with ``s = sgn(v)``, ``v = r (omega_j - omega_i)``;
* stick: ``v' = 0`` with ``F`` a multiplier, ``|F| <= mu_static |lambda|``.

The load ``|lambda|`` is the norm of two multipliers, not linear in them, so no side flag makes a
slip mode linear (the translational joint's ``|lambda_N| = sigma lambda_N`` of Wang, Wang &
Zhuang does not carry over) and the mode decision is not a plain LCP: :func:`pin_newton` solves a
slip mode's equations by Newton's method on the loads, :func:`choose_enumerated` enumerates the
modes (Pfeiffer & Glocker (1996) §4.3 for the consistency conditions).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product

import numpy as np

from ..errors import SolverError

STICK, SLIP_POS, SLIP_NEG = 0, 1, 2   # as workbench.nonsmooth.event_driven


@dataclass(frozen=True)
class PinFrictionJoint:
    """A revolute joint with set-valued friction (friction circle of radius ``radius``)."""
    name: str
    row: int            # its first constraint row (x; y is row + 1)
    bi: int             # body i (-1 ground)
    bj: int             # body j
    radius: float       # pin radius r [m]
    mu: float           # kinetic coefficient [1]
    mu_static: float    # static coefficient [1]


#: Newton's method on the pins' loads |lambda|: relative tolerance and iteration cap
PIN_RTOL, PIN_MAX_ITER = 1e-13, 50


def pin_row(n, f):
    """``W`` (n,) of pin ``f``: ``v = W.q'`` is its slip speed ``r (omega_j - omega_i)`` [m/s]
    (constant in q: no convective term)."""
    W = np.zeros(n)
    W[3 * f.bj + 2] = f.radius
    if f.bi >= 0:
        W[3 * f.bi + 2] = -f.radius
    return W


def pin_newton(system, A, b, kin, svec, slip_pins):
    """Solve ``A x = b + sum_k g_k n_k`` with ``n_k = |lambda_k|`` for the slipping pins ``k``
    (``g_k`` the friction ``-mu s_k W_k`` per unit load in the force rows) by Newton's method on
    ``R(n) = n - |lambda(x(n))| = 0``: ``x(n) = x_0 + sum_k u_k n_k`` with ``A u_k = g_k`` (one
    factorisation), Jacobian ``I - (lambda_k / |lambda_k|) . u_l[rows of k]``.  Returns
    ``(x, {k: n_k})``; ``(None, None)`` when Newton does not converge (no consistent load: a
    self-locking pin)."""
    n = system.n
    G = np.zeros((A.shape[0], len(slip_pins)))
    for c, k in enumerate(slip_pins):
        G[:n, c] = -system.fj[k].mu * svec[k] * kin[k][0]
    sol = np.linalg.solve(A, np.column_stack([b, G]))
    x0, U = sol[:, 0], sol[:, 1:]
    rows = [(n + system.fj[k].row, n + system.fj[k].row + 1) for k in slip_pins]
    load = np.array([math.hypot(x0[r0], x0[r1]) for r0, r1 in rows])
    for _ in range(PIN_MAX_ITER):
        x = x0 + U @ load
        lam = np.array([[x[r0], x[r1]] for r0, r1 in rows])
        norm = np.hypot(lam[:, 0], lam[:, 1])
        R = load - norm
        if np.all(np.abs(R) <= PIN_RTOL * max(1.0, float(np.abs(norm).max()))):
            x = x0 + U @ norm   # the multipliers of the returned loads
            return x, dict(zip(slip_pins, norm))
        Jn = np.eye(len(slip_pins))
        for a, (r0, r1) in enumerate(rows):
            e = lam[a] / norm[a] if norm[a] > 0.0 else np.zeros(2)
            Jn[a] -= e[0] * U[r0] + e[1] * U[r1]
        try:
            load = load - np.linalg.solve(Jn, R)
        except np.linalg.LinAlgError:
            load = norm          # singular Newton matrix: a fixed-point step
    return None, None


def choose_enumerated(system, t, q, qd, no_stick, vtol):
    """:meth:`.event_driven.System.choose` with frictional pins: every combination of the modes of the joints at rest
    (stick first, then slip+, slip-) and of the sides of the translational joints (their load
    is linear in the multiplier only with its side fixed), solved by :meth:`.event_driven.System.evaluate` (Newton
    on the pins' loads) and kept when consistent with the set-valued law (Pfeiffer & Glocker
    (1996) §4.3): stick ``|F| <= mu_static |N|``, slip from rest with the slip acceleration
    along the slip, each translational side the sign of its multiplier.  A sliding joint keeps
    its direction; the regularised law (``v_eps > 0``) has one slip mode."""
    cands = []
    for k in range(system.nf):
        v = system.slip_speed(q, qd, k)
        if system.v_eps > 0.0:
            cands.append([SLIP_POS])
        elif abs(v) > vtol:
            cands.append([SLIP_POS if v > 0 else SLIP_NEG])
        else:
            cands.append(([] if k in no_stick else [STICK]) + [SLIP_POS, SLIP_NEG])
    side_sets = list(product((1.0, -1.0), repeat=system.nt))
    for combo in product(*cands):
        modes = list(combo)
        for side_t in side_sets:
            sides = np.concatenate([np.array(side_t, float), np.ones(system.nf - system.nt)])
            e = system.evaluate(t, q, qd, modes, sides)
            if e is None:
                continue
            ok = True
            for k, f in enumerate(system.fj):
                if k < system.nt and modes[k] != STICK:
                    ok &= sides[k] * e["N"][k] >= -1e-12 * max(1.0, abs(e["N"][k]))
                if modes[k] == STICK:
                    ok &= abs(e["F"][k]) <= f.mu_static * abs(e["N"][k]) * (1 + 1e-9) + 1e-12
                elif system.v_eps == 0.0 and abs(e["v"][k]) <= vtol:
                    s = 1.0 if modes[k] == SLIP_POS else -1.0
                    ok &= s * e["at"][k] > 0.0
            if ok:
                for k in range(system.nt):   # a stick joint's side: the sign of its multiplier
                    if modes[k] == STICK:
                        sides[k] = 1.0 if e["N"][k] >= 0.0 else -1.0
                return modes, sides
    raise SolverError(f"t = {t:.9g} s: no stick/slip combination of the joints "
                      f"{[f.name for f in system.fj]} is consistent with Coulomb's law "
                      f"(Painleve's paradox, a self-locking pin or a jammed mechanism)")
