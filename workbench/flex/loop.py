"""The step loop of the flexible solver, compiled: generalised-alpha steps with step-size control
and the output samples without a Python round-trip per step or per sample (the fast path of the
Python loop in :func:`workbench.flex.solver.simulate`, for mechanisms without clearance
joints; the same arithmetic, tested to agree).  :func:`run_kernel` strings :func:`segment_kernel`
(one output interval) and :func:`sample_kernel` (one output sample) together.

:func:`segment_kernel` repeats, until the step lands on ``t_next``:

* the predictor of Arnold & Brüls (2007) Algorithm 1 (``q''_{n+1} = q''_n``; eqs 9-11), as
  :meth:`workbench.flex.solver._Stepper.predict`;
* the Newton iteration (:func:`workbench.flex.newton.newton_kernel`, modified Newton with the
  factors kept across steps);
* the local error estimate ``h^2 |beta - 1/6| |q''_{n+1} - q''_n|`` scaled by ``atol_i + rtol |q_i|``
  (Zienkiewicz & Xie (1991)) and the step-size control (:func:`step_length`, :func:`next_step`);
  a step whose Newton iteration fails is halved.

The loop runs the modified Newton iteration only (its LU factorisation flags a singular matrix;
the full Newton iteration's LAPACK solve raises instead, which the Python loop catches).

A *dead band* on the step size (Hairer & Wanner (1996) Section IV.8, the step-size strategy of
RADAU5): a proposed growth by a factor in ``[1, par[13]]`` keeps the step (and with it ``beta'``
and the modified Newton iteration's factors); ``par[13] = 1`` switches it off (the Python loop's
behaviour).
"""
from __future__ import annotations

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .beam_forces import beam_energy
from ..mbs.kinematics import driver_value
from .beam_forces import beam_forces
from .assembly import constraint_kernel
from .newton import SINGULAR, newton_kernel, point_force_moments

#: layout of the ``par`` array of :func:`segment_kernel`
PAR_NAMES = ("am", "af", "gamma", "beta", "rtol", "atol", "safety", "phi_tol", "newton_fraction",
             "reuse_bp", "reuse_rate", "max_newton", "reuse", "dead_band")

#: :func:`segment_kernel`'s return values besides 1 (landed on ``t_next``) and 0 (attempt budget spent)
FAILED_NEWTON, TOO_MANY_STEPS = -1, -2


@njit(cache=True)
def step_length(h, left):
    """``(step, lands)``: the step [s] to take with the proposal ``h`` [s] when ``left`` [s] remain to
    the next output time: the remainder when ``h`` reaches it; half the remainder when it lies
    between ``h`` and ``2 h`` (two equal steps instead of one and a sliver, whose tiny error would
    say nothing about the proposal); else ``h``."""
    if h >= left * (1.0 - 1e-9):
        return left, True
    if h > 0.5 * left:
        return 0.5 * left, False
    return h, False


@njit(cache=True)
def next_step(h, hs, cut, err, safety, band, after_reject, hmax):
    """The next proposal [s] after an accepted step ``hs`` [s] with the scaled error ``err`` [1]:
    ``hs safety err^(-1/3)`` within ``[0.2 hs, 2 hs]``, no growth right after a rejected step
    (Hairer, Nørsett & Wanner (1993) Section II.4), a growth by a factor within the dead band
    ``[1, band]`` dropped; after a step ``cut`` short of the proposal ``h`` [s] by :func:`step_length`
    the proposal stands unless the step's own error asks for less (a sliver's tiny error says
    nothing about a full step) or allows more."""
    fac = min(1.0 if after_reject else 2.0, max(0.2, safety * max(err, 1e-12) ** (-1.0 / 3.0)))
    if 1.0 <= fac <= band:
        fac = 1.0
    if cut:
        return min(hmax, max(h, hs * fac) if fac >= 1.0 else hs * fac)
    return min(hmax, hs * fac)


@njit(cache=True)
def segment_kernel(q, v, acc, a, lam, tt, t_next, hmax, hmin, par, atol_v, M, g0, rpf_i, rpf_f, bm_i, bm_f, pt_kind,
                   pt_idx, pt_vec, jt, jt_f, dr, dr_f, Gx, Kx, Cx, G, K, C, Phi, B, Pt, A, rhs, lu_info, piv, cnt,
                   max_steps, max_attempts):
    """Step ``(q, v, q'', a, lambda)`` in place from ``tt[0]`` [s] with the proposed step ``tt[1]``
    [s] (``tt[2]`` 1 when the last attempt was rejected) until a step lands on ``t_next`` [s] (returns 1), at most ``max_attempts`` attempts
    (returns 0: call again).  ``hmax`` / ``hmin`` [s]: largest step and the step below which a
    failed Newton iteration ends the run (returns :data:`FAILED_NEWTON`); ``cnt``: accepted steps,
    rejected steps, Newton iterations (updated), the run ending with :data:`TOO_MANY_STEPS` when
    accepted + rejected reach ``max_steps``.  ``par``: :data:`PAR_NAMES`; ``atol_v`` (n,): the
    absolute tolerance of each coordinate [m, rad, 1]; the other arguments as
    :func:`workbench.flex.newton.newton_kernel` (``Gx``, ``Kx``, ``Cx`` zero)."""
    am, af, gamma, beta = par[0], par[1], par[2], par[3]
    rtol, atol, safety = par[4], par[5], par[6]
    phi_tol, frac, bp_tol, rate_max = par[7], par[8], par[9], par[10]
    max_iter, reuse, band = int(par[11]), int(par[12]), par[13]
    n = q.shape[0]
    m = lam.shape[0]
    q1 = np.empty(n)
    v1 = np.empty(n)
    acc1 = np.empty(n)
    sc = np.empty(n)
    lam1 = np.empty(m)
    cerr = abs(beta - 1.0 / 6.0)
    for _ in range(max_attempts):
        if cnt[0] + cnt[1] >= max_steps:
            return TOO_MANY_STEPS
        t = tt[0]
        h = tt[1]
        hs, land = step_length(h, t_next - t)
        if land:
            hs = t_next - t
        # predictor (Arnold & Brüls (2007) eqs 9-11 with q''_{n+1} = q''_n)
        bp = (1.0 - am) / (hs * hs * beta * (1.0 - af))
        gp = gamma / (hs * beta)
        for i in range(n):
            a_new = (acc[i] - am * a[i]) / (1.0 - am)
            q1[i] = q[i] + hs * v[i] + hs * hs * (0.5 - beta) * a[i] + hs * hs * beta * a_new
            v1[i] = v[i] + hs * (1.0 - gamma) * a[i] + hs * gamma * a_new
            acc1[i] = acc[i]
            sc[i] = atol_v[i] + rtol * abs(q[i])
        for i in range(m):
            lam1[i] = lam[i]
        status = newton_kernel(q1, v1, acc1, lam1, t + hs, bp, gp, M, g0, rpf_i, rpf_f, bm_i, bm_f, pt_kind, pt_idx,
                         pt_vec, jt, jt_f, dr, dr_f, Gx, Kx, Cx, sc, phi_tol, frac, max_iter, G, K, C, Phi, B, Pt,
                         A, rhs, reuse, bp_tol, rate_max, lu_info, piv)
        cnt[2] += max_iter if (status == 0 or status == SINGULAR) else abs(status)
        if status <= 0:
            cnt[1] += 1
            tt[2] = 1.0
            tt[1] = 0.5 * hs
            if tt[1] < hmin:
                return FAILED_NEWTON
            continue
        err = 0.0
        for i in range(n):
            e = hs * hs * cerr * abs(acc1[i] - acc[i]) / max(sc[i], atol_v[i] + rtol * abs(q1[i]))
            if e > err:
                err = e
        if err > 1.0 and hs > 16.0 * hmin:
            cnt[1] += 1
            tt[2] = 1.0
            tt[1] = hs * max(0.2, safety * err ** (-1.0 / 3.0))
            continue
        for i in range(n):
            a[i] = ((1.0 - af) * acc1[i] + af * acc[i] - am * a[i]) / (1.0 - am)
            q[i] = q1[i]
            v[i] = v1[i]
            acc[i] = acc1[i]
        for i in range(m):
            lam[i] = lam1[i]
        tt[0] = t_next if land else t + hs
        cnt[0] += 1
        tt[1] = next_step(h, hs, hs < h, err, safety, band, tt[2] != 0.0, hmax)
        tt[2] = 0.0
        if land:
            return 1
    return 0


@njit(cache=True)
def index1_schur(q, v, t, M, Minv, g0, rpf_i, rpf_f, bm_i, bm_f, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Gx,
                 eps, G, K, C, Phi, B, Pt, sol):
    """The index-1 accelerations and multipliers of :func:`workbench.flex.newton.index1_kernel`
    (same arguments, the solution into ``sol``) by the Schur complement of the constant mass
    matrix, whose inverse ``Minv`` is computed once: ``(B M^-1 B^T) lambda = B a_0 - c``,
    ``q'' = a_0 - M^-1 B^T lambda`` with ``a_0 = -M^-1 g`` -- an m x m solve per sample instead of
    an (n + m) x (n + m) one."""
    n = q.shape[0]
    m = Phi.shape[0]
    for i in range(n):
        G[i] = g0[i] + Gx[i]
    point_force_moments(q, rpf_i, rpf_f, G, K, False)
    for k in range(bm_i.shape[0]):
        beam_forces(q, v, bm_i[k, 0], bm_i[k, 1], bm_f[k, 0], bm_f[k, 1], bm_f[k, 2], bm_f[k, 3], G, K, C, False,
                    bm_f[k, 4])
    a0 = -(Minv @ G)
    if m == 0:
        sol[:n] = a0
        return
    constraint_kernel(q + eps * v, t, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Phi, B, Pt)
    conv = B @ v
    constraint_kernel(q - eps * v, t, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Phi, B, Pt)
    conv = (conv - B @ v) / (2.0 * eps)
    constraint_kernel(q, t, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Phi, B, Pt)
    # B q'' = -conv + Phi_tt terms of the drivers (index1_kernel's right-hand side)
    bl = B @ a0 + conv
    for k in range(dr.shape[0]):
        bl[dr[k, 2]] -= driver_value(dr_f[k], t)[2]
    W = B @ Minv
    S = W @ B.T
    lam = np.linalg.solve(S, bl)
    acc = a0 - W.T @ lam
    sol[:n] = acc
    sol[n:] = lam


@njit(cache=True)
def sample_kernel(k, t, q, v, M, g0, rpf_i, rpf_f, bm_i, bm_f, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Gx,
                  G, K, C, Phi, B, Pt, Minv, rhs1, SQ, SV, SA, SL, KE, PE, DP, DV):
    """Store sample ``k`` at ``(q, v, t)`` as :meth:`workbench.flex.record._Recorder.sample`
    does: the state, the index-1 accelerations and multipliers (:func:`index1_schur`, ``Minv`` the
    inverse mass matrix, ``rhs1`` (n + m) work), the kinetic and potential energy [J]
    (gravity, constant forces and strain, :func:`workbench.flex.beam_forces.beam_energy`) and the
    constraint drift on positions [m] and velocities [m/s]."""
    n = q.shape[0]
    m = Phi.shape[0]
    qmax = 0.0
    for i in range(n):
        qmax = max(qmax, abs(q[i]))
    sol = rhs1
    index1_schur(q, v, t, M, Minv, g0, rpf_i, rpf_f, bm_i, bm_f, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Gx,
                 1e-7 * max(1.0, qmax), G, K, C, Phi, B, Pt, sol)
    ke = 0.0
    pe = 0.0
    for i in range(n):
        SQ[k, i] = q[i]
        SV[k, i] = v[i]
        SA[k, i] = sol[i]
        mv = 0.0
        for j in range(n):
            mv += M[i, j] * v[j]
        ke += 0.5 * v[i] * mv
        pe += g0[i] * q[i]
    for b in range(bm_i.shape[0]):
        pe += beam_energy(q, bm_i[b, 0], bm_i[b, 1], bm_f[b, 0], bm_f[b, 1], bm_f[b, 2], bm_f[b, 4])
    KE[k] = ke
    PE[k] = pe
    if m:
        dp = 0.0
        dv = 0.0
        for i in range(m):
            SL[k, i] = sol[n + i]
            dp += Phi[i] * Phi[i]
            x = Pt[i]
            for j in range(n):
                x += B[i, j] * v[j]
            dv += x * x
        DP[k] = np.sqrt(dp)
        DV[k] = np.sqrt(dv)


@njit(cache=True)
def run_kernel(q, v, acc, a, lam, tt, out_times, kk, hmax, hmin, par, atol_v, M, g0, rpf_i, rpf_f, bm_i, bm_f, pt_kind,
               pt_idx, pt_vec, jt, jt_f, dr, dr_f, Gx, Kx, Cx, G, K, C, Phi, B, Pt, A, rhs, lu_info, piv, cnt,
               max_steps, max_attempts, Minv, rhs1, SQ, SV, SA, SL, KE, PE, DP, DV):
    """:func:`segment_kernel` from one output time to the next, storing each sample
    (:func:`sample_kernel`) into ``SQ`` ... ``DV`` (the recorder's arrays, sample ``kk[0]`` next),
    until the last output time (returns 1), an error (the :func:`segment_kernel` codes) or
    ``max_attempts`` attempted steps (returns 0: call again)."""
    start = cnt[0] + cnt[1]
    while kk[0] < out_times.shape[0]:
        left = max_attempts - (cnt[0] + cnt[1] - start)
        if left <= 0:
            return 0
        status = segment_kernel(q, v, acc, a, lam, tt, out_times[kk[0]], hmax, hmin, par, atol_v, M, g0, rpf_i, rpf_f,
                                bm_i, bm_f, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Gx, Kx, Cx, G, K, C, Phi,
                                B, Pt, A, rhs, lu_info, piv, cnt, max_steps, left)
        if status != 1:
            return status
        sample_kernel(kk[0], tt[0], q, v, M, g0, rpf_i, rpf_f, bm_i, bm_f, pt_kind, pt_idx, pt_vec, jt, jt_f, dr,
                      dr_f, Gx, G, K, C, Phi, B, Pt, Minv, rhs1, SQ, SV, SA, SL, KE, PE, DP, DV)
        kk[0] += 1
    return 1
