"""Newton's iteration of one generalised-alpha step, compiled (the fast path of
:meth:`workbench.flex.solver._Stepper.step_reference`).

:func:`newton_kernel` runs up to ``max_iter`` iterations of the step's Newton method entirely in
compiled code: the forces (beams' elasticity and damping with their exact tangent,
:func:`workbench.flex.beam_forces.beam_forces`; gravity and constant forces; the moments of
constant forces at rigid-body points), the constraints and their Jacobian and second derivative
(:mod:`workbench.flex.assembly`), the iteration matrix

    [[M + (C gamma' + K + d(Phi_q^T lambda)/dq) / beta',  Phi_q^T],
     [Phi_q,                                               0     ]]

(rows and multipliers scaled by ``beta'``, Bottasso, Bauchau & Cardona (2007); ``beta'`` and
``gamma'`` of Arnold & Brüls (2007) eq. 13), written into preallocated arrays, and the dense LAPACK
solve (``np.linalg.solve``).  Forces the kernel does not know (the clearance joints' contact and
friction, computed by the plugins' kernels through proxy bodies) enter as ``Gx``, ``Kx``, ``Cx``,
held fixed over the call: with clearance joints the solver calls it one iteration at a time.
"""
from __future__ import annotations

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .beam_forces import beam_forces
from ..mbs.kinematics import driver_value
from .assembly import constraint_kernel, hessian_kernel


@njit(cache=True)
def lu_factor(A, piv):
    """LU factorisation with partial pivoting of ``A`` in place (``L`` unit lower, ``U`` upper),
    the row exchanges in ``piv``; ``False`` for a zero pivot.  Hand-written because numba's
    nopython mode offers ``np.linalg.solve`` but not the factorisation alone, which a modified
    Newton iteration reuses (Golub & Van Loan (2013) Algorithm 3.4.1; tested against
    ``np.linalg.solve``)."""
    N = A.shape[0]
    for k in range(N):
        p = k
        amax = abs(A[k, k])
        for i in range(k + 1, N):
            if abs(A[i, k]) > amax:
                amax = abs(A[i, k])
                p = i
        piv[k] = p
        if amax == 0.0:
            return False
        if p != k:
            for j in range(N):
                x = A[k, j]
                A[k, j] = A[p, j]
                A[p, j] = x
        inv = 1.0 / A[k, k]
        for i in range(k + 1, N):
            f = A[i, k] * inv
            A[i, k] = f
            if f != 0.0:
                for j in range(k + 1, N):
                    A[i, j] -= f * A[k, j]
    return True


@njit(cache=True)
def lu_solve(LU, piv, b):
    """Solve ``A x = b`` from :func:`lu_factor`'s ``LU`` and ``piv``."""
    N = LU.shape[0]
    x = b.copy()
    for k in range(N):
        p = piv[k]
        if p != k:
            t = x[k]
            x[k] = x[p]
            x[p] = t
    for i in range(N):
        for j in range(i):
            x[i] -= LU[i, j] * x[j]
    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            x[i] -= LU[i, j] * x[j]
        x[i] /= LU[i, i]
    return x


#: returned by :func:`newton_kernel` for a singular iteration matrix
SINGULAR = -1000000


@njit(cache=True)
def saddle_blocks(A, B, n, m):
    """The constraint blocks of the saddle-point matrix ``[[., B^T], [B, 0]]``: ``B`` (``m x n``,
    the constraint Jacobian) below and its transpose beside the ``n x n`` block of ``A``, zeros in
    the ``m x m`` corner."""
    for i in range(m):
        for j in range(n):
            A[n + i, j] = B[i, j]
            A[j, n + i] = B[i, j]
        for j in range(m):
            A[n + i, n + j] = 0.0


@njit(cache=True)
def point_force_moments(q, rpf_i, rpf_f, G, K, tangent):
    """Add the moments of the rigid bodies' point forces (body point ``rpf_f[k, 0:2]`` [m], force
    ``rpf_f[k, 2:4]`` [N] in the global frame) to ``G``, and with ``tangent`` their derivative with
    respect to the body angle to ``K``."""
    for k in range(rpf_i.shape[0]):
        b = rpf_i[k]
        c, s = np.cos(q[3 * b + 2]), np.sin(q[3 * b + 2])
        ax = c * rpf_f[k, 0] - s * rpf_f[k, 1]
        ay = s * rpf_f[k, 0] + c * rpf_f[k, 1]
        G[3 * b + 2] -= ax * rpf_f[k, 3] - ay * rpf_f[k, 2]
        if tangent:
            K[3 * b + 2, 3 * b + 2] += ax * rpf_f[k, 2] + ay * rpf_f[k, 3]


@njit(cache=True)
def newton_kernel(q1, v1, acc1, lam1, t1, bp, gp, M, g0, rpf_i, rpf_f, bm_i, bm_f,
                  pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Gx, Kx, Cx, sc, phi_tol, frac, max_iter,
                  G, K, C, Phi, B, Pt, A, rhs, reuse, bp_tol, rate_max, lu_info, piv):
    """Iterate on ``q1, v1, acc1, lam1`` in place (module docstring).  Returns the number of
    residual evaluations done when converged, ``0`` when ``max_iter`` ran out, minus the iterations
    done when the state became non-finite, :data:`SINGULAR` for a singular matrix.

    Convergence is tested on the residual, before a correction: the equations of motion's
    ``|M q'' + g + Phi_q^T lambda|_inf <= frac F`` with ``F`` the forces in play (the largest entry
    of ``|M q''|``, ``|g|`` and ``|Phi_q^T lambda|``) and ``|Phi|_inf <= phi_tol`` [m, rad]; the
    step's error tolerance does not enter (a test on the correction ``|dq| <= frac (atol + rtol
    |q|)`` leaves residual forces of the size the tolerance allows, which pump the mesh's
    undamped high-frequency modes).  ``sc`` scales the corrections for the modified Newton
    iteration's contraction test only.

    ``reuse`` 0: full Newton, the matrix assembled and solved by LAPACK every iteration (as the
    reference path).  ``reuse`` 1: modified Newton (Arnold & Brüls (2007)): ``A`` holds
    the LU factors (:func:`lu_factor`) of the last matrix assembled, valid while ``lu_info[0]`` is
    1, for ``beta' = lu_info[1]`` (``lu_info[2]`` counts the factorisations); they are kept across
    iterations and steps while ``beta'``
    differs by at most the fraction ``bp_tol`` and each correction is at most ``rate_max`` times
    the one before (else the next iteration reassembles and refactorises); the iterations between
    need the forces only, not their tangent.

    ``g0``: constant part of the internal minus external forces [N]; ``rpf_i`` (k,) rigid body of
    each constant point force, ``rpf_f`` (k, 4): body-frame point [m] and force [N]; ``bm_i``
    (nb, 2): beams' first coordinate and element count; ``bm_f`` (nb, 5): element length [m], EA
    [N], EI [N m^2], damping time [s], curvature exponent [1]."""
    n = q1.shape[0]
    m = Phi.shape[0]
    dprev = np.inf
    for it in range(max_iter):
        fresh = True
        if reuse != 0 and lu_info[0] == 1.0:
            if abs(bp - lu_info[1]) <= bp_tol * lu_info[1]:
                fresh = False
        for i in range(n):
            G[i] = g0[i] + Gx[i]
        if fresh:
            for i in range(n):
                for j in range(n):
                    K[i, j] = Kx[i, j]
                    C[i, j] = Cx[i, j]
        point_force_moments(q1, rpf_i, rpf_f, G, K, True)
        for k in range(bm_i.shape[0]):
            beam_forces(q1, v1, bm_i[k, 0], bm_i[k, 1], bm_f[k, 0], bm_f[k, 1], bm_f[k, 2], bm_f[k, 3],
                        G, K, C, fresh, bm_f[k, 4])
        Ma = M @ acc1
        r = Ma + G
        fmax = 0.0
        for i in range(n):
            fmax = max(fmax, abs(Ma[i]), abs(G[i]))
        phimax = 0.0
        if m:
            constraint_kernel(q1, t1, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Phi, B, Pt)
            Bl = B.T @ lam1
            r += Bl
            for i in range(n):
                fmax = max(fmax, abs(Bl[i]))
            for i in range(m):
                phimax = max(phimax, abs(Phi[i]))
        # converged: the residual within frac of the forces in play, the constraints within phi_tol
        rmax = 0.0
        for i in range(n):
            rmax = max(rmax, abs(r[i]))
        if rmax <= frac * fmax and phimax <= phi_tol:
            return it + 1
        if m:
            ib = 1.0 / bp
            for i in range(n):
                rhs[i] = r[i] * ib
            for i in range(m):
                rhs[n + i] = Phi[i]
        else:
            for i in range(n):
                rhs[i] = r[i]
        if fresh:
            if m:
                hessian_kernel(q1, lam1, pt_kind, pt_idx, pt_vec, jt, jt_f, K)
                for i in range(n):
                    for j in range(n):
                        A[i, j] = M[i, j] + (C[i, j] * gp + K[i, j]) * ib
                saddle_blocks(A, B, n, m)
            else:
                for i in range(n):
                    for j in range(n):
                        A[i, j] = M[i, j] * bp + C[i, j] * gp + K[i, j]
        if reuse == 0:
            d = np.linalg.solve(A, rhs)
        else:
            if fresh:
                lu_info[0] = 0.0
                if not lu_factor(A, piv):
                    return SINGULAR
                lu_info[0] = 1.0
                lu_info[1] = bp
                lu_info[2] += 1.0
            d = lu_solve(A, piv, rhs)
        worst = 0.0
        finite = True
        for i in range(n):
            q1[i] -= d[i]
            v1[i] -= gp * d[i]
            acc1[i] -= bp * d[i]
            if not np.isfinite(q1[i]):
                finite = False
            x = abs(d[i]) / sc[i]
            if x > worst:
                worst = x
        for i in range(m):
            lam1[i] -= bp * d[n + i]
        if not finite:
            lu_info[0] = 0.0
            return -(it + 1)
        if not fresh and worst > rate_max * dprev:
            lu_info[0] = 0.0          # slow contraction: a new matrix for the next iteration
        dprev = worst
    lu_info[0] = 0.0
    return 0


@njit(cache=True)
def index1_kernel(q, v, t, M, g0, rpf_i, rpf_f, bm_i, bm_f, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f,
                  Gx, eps, G, K, C, Phi, B, Pt, A, rhs):
    """Accelerations ``q''`` and multipliers ``lambda`` of the index-1 equations at ``(q, v, t)``:
    ``[[M, Phi_q^T], [Phi_q, 0]] [q''; lambda] = [-g; -(Phi_q v)_q v - Phi_tt]``, the convective
    term by a central difference of ``Phi_q`` along ``v`` with the step ``eps`` (the fast path of
    :func:`workbench.flex.solver._initial_acceleration`; arguments as :func:`newton_kernel`,
    ``Gx`` the forces it does not know).  Returns the solution ``(n + m,)``."""
    n = q.shape[0]
    m = Phi.shape[0]
    K[:, :] = 0.0
    C[:, :] = 0.0
    for i in range(n):
        G[i] = g0[i] + Gx[i]
    point_force_moments(q, rpf_i, rpf_f, G, K, False)
    for k in range(bm_i.shape[0]):
        beam_forces(q, v, bm_i[k, 0], bm_i[k, 1], bm_f[k, 0], bm_f[k, 1], bm_f[k, 2], bm_f[k, 3], G, K, C, False,
                    bm_f[k, 4])
    if m == 0:
        return np.linalg.solve(M, -G)
    constraint_kernel(q + eps * v, t, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Phi, B, Pt)
    conv = B @ v
    constraint_kernel(q - eps * v, t, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Phi, B, Pt)
    conv = (conv - B @ v) / (2.0 * eps)
    constraint_kernel(q, t, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Phi, B, Pt)
    for i in range(n):
        for j in range(n):
            A[i, j] = M[i, j]
        rhs[i] = -G[i]
    saddle_blocks(A, B, n, m)
    for i in range(m):
        rhs[n + i] = -conv[i]
    for k in range(dr.shape[0]):
        rhs[n + dr[k, 2]] += driver_value(dr_f[k], t)[2]
    return np.linalg.solve(A, rhs)
