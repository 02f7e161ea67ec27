"""Friction in ideal joints, from their constraint reactions (Qi, Luo & Huang (2009)).

A joint whose clearance is very small keeps its kinematic constraint, and the contact inside it
carries the constraint reaction; the friction then follows from the reaction and from how the
joint touches, through equivalent point contacts (Qi, Luo & Huang (2009) eqs. 1-11).  For the
planar ideal joints of :mod:`.mechanism`:

* **Revolute joint, friction circle** (Qi, Luo & Huang (2009) eq. 53 with the axial contact
  forces ``g3 = g4 = 0``: a planar joint has no axial reaction, so the axial contacts of their
  eqs. 38-41 never carry load and add no friction).  The pin of radius ``r`` (``pin_radius``)
  touches its bore where the reaction ``lambda`` (the joint's 2-vector multiplier) passes; the
  normal load is ``|lambda|``, the slip velocity ``v = r (omega_j - omega_i)`` and the friction
  moment on ``body_j`` is ``r f(v, |lambda|)`` (``f`` the friction law, ``-mu(v) r |lambda|`` for a
  Coulomb-type law), the opposite moment on ``body_i``.
* **Translational joint, two-point contact** (Qi, Luo & Huang (2009) Fig. 1 and eqs. 12-19 for the
  cylindrical joint's two end contacts).  The slider's contact of length ``L`` (``slider_length``)
  is centred at the joint's ``point_j``; the normal reaction ``N`` on the slider (along the axis
  normal) and the reaction moment ``M`` about ``point_j`` (the angle-lock row) are carried by two
  point contacts at the slider's ends, ``s = -L/2`` and ``+L/2`` along the axis, by statics:
  ``N1 + N2 = N``, ``(N2 - N1) L/2 = M``, so ``N1 = N/2 - M/L``, ``N2 = N/2 + M/L``.  The sign of
  each ``N_k`` says which face of the guide that end touches (each end can touch either face:
  Qi, Luo & Huang (2009) Fig. 1, the four contact states), and the normal load of the friction is
  ``|N1| + |N2| = max(|N|, 2|M|/L)``.  ``L = 0`` is a particle slider: the load is ``|N|``.  The
  friction force ``f(v, |N1| + |N2|)`` acts along the axis through ``point_j`` (the slider's height
  is neglected, so the friction adds no moment about ``point_j``), on the slider and opposite on
  the guide; ``v`` is the relative sliding velocity along the axis.

**The algebraic loop.**  The reactions depend on the friction and the friction on the reactions.
With ``M qdd + Phi_q^T lambda = Q + sum_k f_k G_k`` (``G_k`` the generalised direction of joint
``k``'s friction, which depends on the positions only), the multipliers are
``lambda(f) = lambda_0 + sum_k f_k w_k`` with ``w_k = S^-1 Phi_q M^-1 G_k``: the Schur complement
``S = Phi_q M^-1 Phi_q^T`` does not depend on the friction, so it is factorised once and each
``w_k`` costs one re-solve (:func:`.ldl.ldl_solve`).  The loop is then a small system in the friction
values ``f`` (one per joint with friction): ``f = F(g(lambda(f)))``, ``g`` the normal loads above,
``F`` the friction laws at the (fixed) slip velocities of the state.  :func:`close_loop` solves it
from ``f = 0`` by Newton's method (Jacobian ``I - dF/dg dg/dlambda W``, ``dF/dg`` by a forward
difference of the law in its normal force) from iteration :data:`NEWTON_FROM` on, by fixed-point
iteration ``f <- F(g(lambda(f)))`` before it; the fixed point also hands over to Newton when it
does not contract (successive residuals shrinking by less than :data:`CONTRACTION`) or has not
converged after :data:`MAX_FIXED_POINT` iterations.  (Measured: Newton from the start is the
cheaper, see :data:`NEWTON_FROM`.)

**Convergence check.**  The residual of an iterate is ``r = f - F(g(lambda(f)))`` [N]; the loop
stops at the first iterate with ``max|r| <= RTOL max|F| + ATOL`` and returns that iterate (its
residual is the one reported); a singular Newton matrix makes that iteration a fixed-point step.
Not converged after ``MAX_FIXED_POINT + MAX_NEWTON`` iterations in all (a self-locking joint,
whose friction outgrows the load it comes from, has no solution) is a fault of the right-hand
side, code ``FAULT_BASE - (k N_FAULT + CAUSE_LOOP)`` for the joint ``k`` of the friction table
with the largest residual; a friction law whose output fails its check (non-finite, raised,
larger than its own coefficient times the load) is ``FAULT_BASE - (k N_FAULT + cause)`` with the
clearance joints' causes (:mod:`.clearance`).  The run then stops with the model-fault status and
:func:`fault_message` names the joint.  Never silent.

**Statistics.**  Each right-hand side with joint friction writes into the model's ``jinfo`` array
(:data:`INFO_FIELDS`): calls, iterations, Newton calls, largest and last residual [N].

**Laws with internal state (LuGre).**  A law with one internal state (``n_states = 1``, the
LuGre bristle deflection ``z`` [m], Canudas de Wit et al. (1995) eqs. 2-4) gets one slot of the
integrated state per joint, after the clearance joints' contact points (``jf_i`` column 2; the
integrator sizes and advances the slots like the clearance joints' bristle states and puts them
in its error norm).  One slot per joint, also for the finite-length slider's two end contacts:
both ends slide at the one velocity ``v`` of the rigid slider, so their bristle equations
``dz_k/dt = v - sigma0 |v| z_k / g(v)`` are the same equation from the same start ``z = 0`` and
``z_1 = z_2`` at all times; the normalised force ``-(sigma0 z + sigma1 dz/dt + sigma2 v) N_k``
then sums to the law at the load ``|N1| + |N2|``.  (An end whose load passes through zero
freezes its bristles only at that instant, since ``N_k`` changes sign there: no difference.)
The loop is unchanged: the LuGre force depends on the state ``z`` and on ``v``, both fixed within
a right-hand side, and is linear in the load, so ``F(g)`` is the same kind of function as a
memoryless law's; the rate ``dz/dt`` is taken from the law at the loads of the returned iterate
(frozen, ``dz/dt = 0``, at zero load, as in the clearance joints).  Laws with more than one state
are refused by :func:`check_law` (one slot per joint).  The set-valued Coulomb law
(a class with ``set_valued = True``) is not a regularised law either: a study using it goes to the
event-driven solver (:mod:`workbench.nonsmooth`).
"""
from __future__ import annotations

import math

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .clearance import FAULT_FRICTION_BOUND, FAULT_FRICTION_NONFINITE, FAULT_FRICTION_RAISED, N_FAULT
from .kernels import RAISED
from .kinematics import apply_force, material_velocity, point_position, rotate
from .ldl import ldl_solve

#: joint-friction table types (``jf_i`` column 0)
JF_REV, JF_TRANS = 0, 1
#: ``jf_i`` columns: ``[type, constraint index (row of cons_i), friction-state slot (index into
#: the state's friction states ``z``; -1: a memoryless law), 0]``;
#: ``jf_f`` columns: ``[pin radius r [m] (revolute) or slider length L [m] (translational),
#: largest friction coefficient of the law [1] (inf: unbounded)]``
JF_I_WIDTH, JF_F_WIDTH = 4, 2
#: relative and absolute [N] tolerance of the loop's residual (module docstring)
RTOL, ATOL = 1e-10, 1e-12
#: iteration caps of the fixed point and of Newton's method
MAX_FIXED_POINT, MAX_NEWTON = 12, 25
#: a fixed point whose residual shrinks by less than this factor per iteration goes to Newton
CONTRACTION = 0.5
#: the iteration from which Newton's method runs whatever the fixed point does (1: from the
#: start).  Measured on the slider-crank with friction in all four joints
#: (tests/benchmarks/bench_joint_friction.py): the fixed point, though contracting (about 0.07 per
#: iteration there), took 8.5 iterations per call on average to reach RTOL, Newton 3.1 (the loads
#: |lambda| are smooth away from 0: quadratic convergence); the right-hand side cost the same
#: within the measurement (4.7 us), so Newton, which does not depend on the contraction, runs
#: from the start and the fixed point is its fallback at a singular Newton matrix
NEWTON_FROM = 1
#: statistics slots at the start of ``jinfo``; the rest is the loop's scratch (:func:`scratch_size`)
N_INFO = 8
#: joint-friction faults are ``FAULT_BASE - (k * N_FAULT + cause)`` (<= FAULT_BASE)
FAULT_BASE = -10
#: cause of a loop that did not converge (the law-output causes are those of :mod:`.clearance`)
CAUSE_LOOP = 6
#: names of the ``jinfo`` slots
INFO_FIELDS = ("calls", "iterations", "max_iterations", "newton_calls", "max_residual",
               "last_residual", "last_iterations", "failures")


def scratch_size(nf: int, n: int, m: int) -> int:
    """Length of the ``jinfo`` array [floats] for ``nf`` friction joints, ``n`` coordinates and
    ``m`` constraint rows: :data:`N_INFO` statistics and the scratch of :func:`close_loop`."""
    return N_INFO + nf * (n + m + nf) + 2 * m + 7 * nf + 2


# ------------------------------------------------------------------------------ compiled
@njit(cache=True)
def _solve_small(A, b, nf):
    """Solve ``A x = b`` in place (``b`` becomes ``x``) by Gaussian elimination with partial
    pivoting; False when ``A`` is singular."""
    for c in range(nf):
        p = c
        for r in range(c + 1, nf):
            if abs(A[r, c]) > abs(A[p, c]):
                p = r
        if not abs(A[p, c]) > 1e-14:
            return False
        if p != c:
            for k in range(nf):
                A[c, k], A[p, k] = A[p, k], A[c, k]
            b[c], b[p] = b[p], b[c]
        for r in range(c + 1, nf):
            f = A[r, c] / A[c, c]
            for k in range(c, nf):
                A[r, k] -= f * A[c, k]
            b[r] -= f * b[c]
    for c in range(nf - 1, -1, -1):
        v = b[c]
        for k in range(c + 1, nf):
            v -= A[c, k] * b[k]
        b[c] = v / A[c, c]
    return True


@njit(cache=True)
def normal_load(typ, size, l0, l1):
    """Normal load [N] of a joint's friction from its two multipliers ``l0, l1`` and its
    gradient ``(dg/dl0, dg/dl1)``: revolute ``|lambda|``; translational ``|N1| + |N2| =
    max(|N|, 2|M|/L)`` with ``N = -l0``, ``M = -l1`` (module docstring)."""
    if typ == JF_REV:
        g = math.sqrt(l0 * l0 + l1 * l1)
        if g > 0.0:
            return g, l0 / g, l1 / g
        return 0.0, 0.0, 0.0
    an = abs(l0)
    if size > 0.0:
        am = 2.0 * abs(l1) / size
        if am > an:
            return am, 0.0, (2.0 / size if l1 > 0.0 else -2.0 / size)
    return an, (1.0 if l0 > 0.0 else -1.0) if an > 0.0 else 0.0, 0.0


@njit(cache=True)
def end_loads(size, l0, l1):
    """``(N1, N2)`` [N]: the normal forces on the slider at its ends ``-L/2`` and ``+L/2`` from the
    multipliers of a translational joint (``N = -l0``, ``M = -l1``; ``L = 0``: ``(N/2, N/2)``)."""
    N = -l0
    if size > 0.0:
        return 0.5 * N + l1 / size, 0.5 * N - l1 / size
    return 0.5 * N, 0.5 * N


@njit(cache=True)
def _law(jkern, jpar, k, v, g, zk, bound, tmp):
    """Friction law ``k`` at slip velocity ``v`` [m/s], load ``g`` [N] and internal state ``zk``
    (0 for a memoryless law): ``(f, cause)``, cause -1 when the output passes the check of
    :func:`.clearance._friction_fault`; the state rate is left in ``tmp[0]``."""
    tmp[0] = 0.0; tmp[RAISED] = 0.0
    f = jkern[k](v, g, zk, jpar[k].ctypes, tmp.ctypes)
    if tmp[RAISED] != 0.0:
        return f, FAULT_FRICTION_RAISED
    if not (math.isfinite(f) and math.isfinite(tmp[0])):
        return f, FAULT_FRICTION_NONFINITE
    if abs(f) > bound * g * (1.0 + 1e-9) + 1e-300:
        return f, FAULT_FRICTION_BOUND
    return f, -1


@njit(cache=True)
def _geometry(q, qd, cons_i, cons_f, jf_i, jf_f, G, v):
    """Generalised direction ``G[k]`` and slip velocity ``v[k]`` [m/s] of each joint's friction."""
    G[:, :] = 0.0
    for k in range(jf_i.shape[0]):
        c = jf_i[k, 1]
        bi = cons_i[c, 1]; bj = cons_i[c, 2]
        if jf_i[k, 0] == JF_REV:
            r = jf_f[k, 0]
            wi = qd[3 * bi + 2] if bi >= 0 else 0.0
            wj = qd[3 * bj + 2] if bj >= 0 else 0.0
            v[k] = r * (wj - wi)
            if bj >= 0:
                G[k, 3 * bj + 2] += r
            if bi >= 0:
                G[k, 3 * bi + 2] -= r
        else:
            px, py = point_position(q, bj, cons_f[c, 2], cons_f[c, 3])
            ax, ay = rotate(q, bi, cons_f[c, 5], -cons_f[c, 4])   # axis = normal turned by -90 deg
            vjx, vjy = material_velocity(q, qd, bj, px, py)
            vix, viy = material_velocity(q, qd, bi, px, py)
            v[k] = (vjx - vix) * ax + (vjy - viy) * ay
            apply_force(G[k], q, bj, px, py, ax, ay)
            apply_force(G[k], q, bi, px, py, -ax, -ay)


@njit(cache=True)
def close_loop(q, qd, x, S, J, minv, Q, cons_i, cons_f, jf_i, jf_f, jkern, jpar, jinfo, m, z, zdot):
    """Close the reaction-friction loop (module docstring) after :func:`.ldl.ldl_factor` and :func:`.ldl.ldl_solve`
    left the factorised Schur complement in ``S`` and the frictionless multipliers in ``x``.
    ``z`` are the state's friction states [m] and ``zdot`` their rates [m/s]: a joint whose law has
    a state reads its slot (``jf_i`` column 2) and writes its rate.

    On success ``x`` holds the multipliers with friction, the friction forces are added to ``Q``
    and the return is ``(-1, dissipation rate [W])``; else ``(fault code, 0.0)``."""
    nf = jf_i.shape[0]
    n = q.shape[0]
    # scratch after the statistics in jinfo (no allocation per call; see scratch_size)
    o = N_INFO
    G = jinfo[o:o + nf * n].reshape((nf, n)); o += nf * n
    W = jinfo[o:o + nf * m].reshape((nf, m)); o += nf * m
    A = jinfo[o:o + nf * nf].reshape((nf, nf)); o += nf * nf
    rhs_ = jinfo[o:o + m]; o += m
    col = jinfo[o:o + m]; o += m
    v = jinfo[o:o + nf]; o += nf
    f = jinfo[o:o + nf]; o += nf
    F = jinfo[o:o + nf]; o += nf
    g = jinfo[o:o + nf]; o += nf
    d0 = jinfo[o:o + nf]; o += nf
    d1 = jinfo[o:o + nf]; o += nf
    dx = jinfo[o:o + nf]; o += nf
    tmp = jinfo[o:o + 2]
    f[:] = 0.0
    _geometry(q, qd, cons_i, cons_f, jf_i, jf_f, G, v)
    for k in range(nf):
        for i in range(m):
            acc = 0.0
            for kk in range(n):
                acc += J[i, kk] * G[k, kk] * minv[kk]
            rhs_[i] = acc
        ldl_solve(S, rhs_, col, m)
        for i in range(m):
            W[k, i] = col[i]
    newton = False
    res_prev = math.inf
    res = math.inf
    it = 0
    kbad = 0
    converged = False
    for it in range(1, MAX_FIXED_POINT + MAX_NEWTON + 1):
        # loads and friction at the current iterate
        res = 0.0; fmax = 0.0; kbad = 0
        for k in range(nf):
            r = cons_i[jf_i[k, 1], 3]
            l0 = x[r]; l1 = x[r + 1]
            for j in range(nf):
                l0 += f[j] * W[j, r]; l1 += f[j] * W[j, r + 1]
            g[k], d0[k], d1[k] = normal_load(jf_i[k, 0], jf_f[k, 0], l0, l1)
            slot = jf_i[k, 2]
            F[k], cause = _law(jkern, jpar, k, v[k], g[k], z[slot] if slot >= 0 else 0.0,
                               jf_f[k, 1], tmp)
            if cause >= 0:
                jinfo[7] += 1.0
                return FAULT_BASE - (k * N_FAULT + cause), 0.0
            if slot >= 0:
                zdot[slot] = tmp[0]   # at the loads of this iterate (kept when it converges)
            if abs(f[k] - F[k]) > res:
                res = abs(f[k] - F[k]); kbad = k
            fmax = max(fmax, abs(F[k]))
        if res <= RTOL * fmax + ATOL:
            converged = True
            break
        if not newton and (it >= NEWTON_FROM or it >= MAX_FIXED_POINT
                           or (it >= 2 and res > CONTRACTION * res_prev)):
            newton = True
        res_prev = res
        if not newton:
            for k in range(nf):
                f[k] = F[k]
            continue
        # Newton step on r(f) = f - F(g(lambda(f)))
        for k in range(nf):
            h = 1e-4 * max(g[k], 1.0)   # the laws are linear in the load: no truncation error
            slot = jf_i[k, 2]
            Fh, cause = _law(jkern, jpar, k, v[k], g[k] + h, z[slot] if slot >= 0 else 0.0,
                             jf_f[k, 1], tmp)
            if cause >= 0:
                jinfo[7] += 1.0
                return FAULT_BASE - (k * N_FAULT + cause), 0.0
            dFdg = (Fh - F[k]) / h
            r = cons_i[jf_i[k, 1], 3]
            for j in range(nf):
                A[k, j] = (1.0 if j == k else 0.0) - dFdg * (d0[k] * W[j, r] + d1[k] * W[j, r + 1])
            dx[k] = F[k] - f[k]
        if not _solve_small(A, dx, nf):
            for k in range(nf):  # singular Newton matrix: a fixed-point step instead
                f[k] = F[k]
            continue
        for k in range(nf):
            f[k] += dx[k]
    jinfo[0] += 1.0; jinfo[1] += it; jinfo[2] = max(jinfo[2], it); jinfo[6] = it
    jinfo[5] = res
    if newton:
        jinfo[3] += 1.0
    if not converged:
        jinfo[7] += 1.0
        return FAULT_BASE - (kbad * N_FAULT + CAUSE_LOOP), 0.0
    jinfo[4] = max(jinfo[4], res)
    # the multipliers and forces of the returned iterate f (residual res)
    for j in range(nf):
        for i in range(m):
            x[i] += f[j] * W[j, i]
        for kk in range(n):
            Q[kk] += f[j] * G[j, kk]
    p = 0.0
    for k in range(nf):
        p -= f[k] * v[k]
    return -1, p


@njit(cache=True)
def joint_friction_values(q, qd, lam, cons_i, cons_f, jf_i, jf_f, jkern, jpar, out, z=None):
    """Per friction joint at a state whose multipliers ``lam`` include the friction: ``out[k] =
    (normal load g [N], slip velocity v [m/s], friction f [N], friction moment (revolute, r f
    [N m]) or force (translational, f [N]), N1 [N], N2 [N])`` (``N1, N2``: translational only).
    ``z``: the state's friction states [m] (needed by laws with a state; ``None``: zero)."""
    nf = jf_i.shape[0]
    G = np.empty((nf, q.shape[0])); v = np.empty(nf); tmp = np.zeros(2)
    _geometry(q, qd, cons_i, cons_f, jf_i, jf_f, G, v)
    for k in range(nf):
        r = cons_i[jf_i[k, 1], 3]
        g, _, _ = normal_load(jf_i[k, 0], jf_f[k, 0], lam[r], lam[r + 1])
        zk = 0.0
        if z is not None:
            if jf_i[k, 2] >= 0:
                zk = z[jf_i[k, 2]]
        f, _ = _law(jkern, jpar, k, v[k], g, zk, math.inf, tmp)
        out[k, 0] = g; out[k, 1] = v[k]; out[k, 2] = f
        out[k, 3] = f * jf_f[k, 0] if jf_i[k, 0] == JF_REV else f
        out[k, 4] = 0.0; out[k, 5] = 0.0
        if jf_i[k, 0] == JF_TRANS:
            out[k, 4], out[k, 5] = end_loads(jf_f[k, 0], lam[r], lam[r + 1])


# ------------------------------------------------------------------------------ Python side
def check_law(model, joint: str, set_valued_ok: bool = False) -> str | None:
    """Why friction law ``model`` cannot act on ideal joint ``joint`` on the regularised path
    (``None``: it can).  ``set_valued_ok``: accept a set-valued law (checking a mechanism that
    another solver may run)."""
    if model is None:
        return None
    from ..nonsmooth.support import is_set_valued
    if is_set_valued(model):
        if set_valued_ok:
            return None
        return (f"joint '{joint}': the friction model '{model.name}' is set-valued (stick and slip "
                f"with events): it runs on the event-driven non-smooth solver, not on the "
                f"regularised path of this study; valid regularised models: coulomb, ambrosio, "
                f"bai_zhao, lugre")
    if getattr(type(model), "n_states", 0) > 1:
        return (f"joint '{joint}': the friction model '{model.name}' has "
                f"{type(model).n_states} internal states; an ideal joint integrates one (its slot "
                f"of the state); valid: memoryless laws (coulomb, ambrosio, bai_zhao) or one-state "
                f"laws (lugre)")
    return None


def n_friction_states(mech) -> int:
    """How many friction-state slots the ideal joints of ``mech`` add to the integrated state
    (one per joint whose law has an internal state)."""
    return sum(1 for j in friction_joints(mech) if getattr(type(j.friction), "n_states", 0) > 0)


def compile_tables(mech, joint_cons: list[int], compiled_kernel, packed, bound, first_state: int = 0):
    """``(jf_i, jf_f, kernels, params)`` of the ideal joints with friction of ``mech``;
    ``joint_cons[j]`` is the ``cons_i`` index of joint ``j``; ``compiled_kernel``, ``packed`` and
    ``bound`` are :mod:`.compiled`'s wrappers (kernel C function, checked parameters, largest
    coefficient); ``first_state`` the index, among the state's friction states, of the first slot
    of the joints' laws with a state (after the clearance joints' contact points).  Raises
    :class:`MechanismError` for a law that cannot apply (:func:`check_law`)."""
    from ..errors import MechanismError
    from . import kernels
    from .mechanism import RevoluteJoint
    jf_i, jf_f, ks, ps = [], [], [], []
    for j, c in zip(mech.joints, joint_cons):
        fr = getattr(j, "friction", None)
        if fr is None:
            continue
        why = check_law(fr, j.name)
        if why:
            raise MechanismError(why)
        rev = isinstance(j, RevoluteJoint)
        slot = -1
        if getattr(type(fr), "n_states", 0) > 0:
            slot = first_state; first_state += 1
        jf_i.append([JF_REV if rev else JF_TRANS, c, slot, 0])
        jf_f.append([j.pin_radius if rev else j.slider_length, bound(fr)])
        ks.append(compiled_kernel(kernels.friction_cfunc, fr, "friction", j.name))
        ps.append(packed(fr.pack(), fr, "friction", j.name))
    i = np.array(jf_i, np.int64).reshape(-1, JF_I_WIDTH)
    f = np.array(jf_f, float).reshape(-1, JF_F_WIDTH)
    if not ks:
        ks.append(kernels.no_friction())
    return np.ascontiguousarray(i), np.ascontiguousarray(f), tuple(ks), kernels.pack_rows(ps)


def friction_joints(mech) -> list:
    """The ideal joints of ``mech`` with friction, in the order of the friction tables."""
    return [j for j in mech.joints if getattr(j, "friction", None) is not None]


def loop_stats(info) -> dict:
    """The loop statistics of a run for ``Simulation.stats`` (numbers; the dataset stores them as
    ``solver_<key>`` attributes): right-hand sides with joint friction, their mean and largest
    iteration count, how many needed Newton's method, and the largest residual [N] of a returned
    iterate (module docstring: ``max|f - F(g(lambda(f)))|``)."""
    d = dict(zip(INFO_FIELDS, (float(x) for x in info[:N_INFO])))
    calls = max(d["calls"], 1.0)
    return {"joint_friction_rhs_calls": int(d["calls"]),
            "joint_friction_mean_iterations": d["iterations"] / calls,
            "joint_friction_max_iterations": int(d["max_iterations"]),
            "joint_friction_newton_calls": int(d["newton_calls"]),
            "joint_friction_max_residual_N": d["max_residual"]}


def decode_fault(code: int) -> tuple[int, int] | None:
    """``(friction-table index, cause)`` of a joint-friction fault code, ``None`` for other codes."""
    if code > FAULT_BASE:
        return None
    return divmod(FAULT_BASE - code, N_FAULT)


def fault_message(mech, code: int, t_fail: float) -> str:
    """The message of a joint-friction fault ``code`` at time ``t_fail`` [s]."""
    k, cause = decode_fault(code)
    joints = friction_joints(mech)
    j = joints[k] if k < len(joints) else None
    name = j.name if j is not None else f"#{k}"
    law = j.friction.name if j is not None else "?"
    if cause == CAUSE_LOOP:
        return (f"joint '{name}': the friction loop between its reaction and its friction "
                f"(friction model '{law}') did not converge at t = {t_fail:.9g} s within "
                f"{MAX_FIXED_POINT + MAX_NEWTON} iterations (tolerance "
                f"{RTOL:g} of the friction force): the joint is self-locking or jams there (a "
                f"friction coefficient too large for its pin radius or slider length)")
    what = {FAULT_FRICTION_RAISED: "raised an exception inside its compiled kernel",
            FAULT_FRICTION_NONFINITE: "returned a non-finite friction force",
            FAULT_FRICTION_BOUND: "returned a friction force larger than its own largest "
                                  "coefficient times the normal load"}.get(cause, "failed")
    return (f"joint '{name}': the friction model '{law}', at t = {t_fail:.9g} s, {what}. This is a "
            f"fault of the model, not of the solver tolerances")
