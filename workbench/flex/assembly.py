"""The constraints of a mechanism with beams, compiled: the fast path of
:meth:`workbench.flex.mechanism.FlexModel.constraints` and ``constraint_hessian``.

The joints and drivers of a :class:`~workbench.flex.mechanism.FlexModel` are packed into flat
arrays (:class:`ConstraintArrays`) once; :func:`constraint_kernel` then fills ``Phi``, ``Phi_q``
and ``Phi_t`` and :func:`hessian_kernel` adds ``d(Phi_q^T lambda)/dq`` without a Python loop.
The equations are those of the reference methods (``FlexModel.constraints_reference`` and
``constraint_hessian_reference``; tested to agree to rounding):

* revolute joint: ``P_j - P_i`` (two rows);
* translational joint between rigid bodies (or ground): ``n_i . (P_j - R_i) - n'_i . s_i`` and the
  relative angle ``phi_j - phi_i - phi_0``;
* driver: ``q_c - q_rel - f(t)``.

A point is ground (``vec[:2]`` its position [m]), rigid (body ``idx``, ``vec[:2]`` its body-frame
vector [m]) or a beam point (first coordinate ``idx`` of its element, ``vec`` the four Hermite
shape functions there [1, m]).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from ..mbs.kinematics import driver_value

GROUND_PT, RIGID_PT, BEAM_PT = 0, 1, 2
REV, TRANS = 0, 1


@dataclass
class ConstraintArrays:
    """Flat arrays of a model's points, joints and drivers (module docstring)."""
    pt_kind: np.ndarray      # (np,) int
    pt_idx: np.ndarray       # (np,) int
    pt_vec: np.ndarray       # (np, 4) float [m | 1, m]
    jt: np.ndarray           # (nj, 6) int: kind, point i, point j, row, body i, body j
    jt_f: np.ndarray         # (nj, 3) float: n'_x, n'_y [1], phi_0 [rad]
    dr: np.ndarray           # (nd, 3) int: column, relative column (-1: ground), row
    dr_f: np.ndarray         # (nd, k) float: driver rows (workbench.mbs.kinematics.driver_value)

    def args(self):
        return (self.pt_kind, self.pt_idx, self.pt_vec, self.jt, self.jt_f, self.dr, self.dr_f)


def pack(joint_list, driver_list) -> ConstraintArrays:
    """Pack ``FlexModel.joint_list`` and ``driver_list`` (their Python descriptors) into arrays."""
    kinds, idx, vecs, jt, jt_f = [], [], [], [], []

    def add(p):
        kind, i, a, _ = p
        v = np.zeros(4)
        a = np.asarray(a, float)
        v[:a.size] = a
        kinds.append(kind); idx.append(i); vecs.append(v)
        return len(kinds) - 1

    for kind, pi, pj, extra, r in joint_list:
        ii, jj = add(pi), add(pj)
        if kind == "rev":
            jt.append((REV, ii, jj, r, -1, -1)); jt_f.append((0.0, 0.0, 0.0))
        else:
            nprime, bi, bj, phi0 = extra
            jt.append((TRANS, ii, jj, r, bi, bj)); jt_f.append((nprime[0], nprime[1], phi0))
    dr = [(col, rel, r) for col, rel, _, r in driver_list]
    rows = [np.asarray(drow, float) for _, _, drow, _ in driver_list]
    width = max([x.size for x in rows], default=1)
    dr_f = np.zeros((len(rows), width))
    for k, x in enumerate(rows):
        dr_f[k, :x.size] = x
    return ConstraintArrays(np.array(kinds, np.int64).reshape(-1), np.array(idx, np.int64).reshape(-1),
                            np.array(vecs, float).reshape(-1, 4), np.array(jt, np.int64).reshape(-1, 6),
                            np.array(jt_f, float).reshape(-1, 3), np.array(dr, np.int64).reshape(-1, 3), dr_f)


@njit(cache=True)
def _point(q, kind, i, a):
    """Position [m] of a point (module docstring) and, for a rigid point, ``A s`` [m]."""
    if kind == GROUND_PT:
        return a[0], a[1], 0.0, 0.0
    if kind == RIGID_PT:
        c, s = math.cos(q[3 * i + 2]), math.sin(q[3 * i + 2])
        ax = c * a[0] - s * a[1]
        ay = s * a[0] + c * a[1]
        return q[3 * i] + ax, q[3 * i + 1] + ay, ax, ay
    x = 0.0
    y = 0.0
    for k in range(4):
        x += a[k] * q[i + 2 * k]
        y += a[k] * q[i + 2 * k + 1]
    return x, y, 0.0, 0.0


@njit(cache=True)
def _jac_rows(B, r, kind, i, a, ax, ay, sign):
    """Add ``sign * dP/dq`` into rows ``r, r + 1`` of ``B``."""
    if kind == RIGID_PT:
        B[r, 3 * i] += sign
        B[r + 1, 3 * i + 1] += sign
        B[r, 3 * i + 2] -= sign * ay
        B[r + 1, 3 * i + 2] += sign * ax
    elif kind == BEAM_PT:
        for k in range(4):
            B[r, i + 2 * k] += sign * a[k]
            B[r + 1, i + 2 * k + 1] += sign * a[k]


@njit(cache=True)
def _jac_dot(B, r, kind, i, a, ax, ay, sign, vx, vy):
    """Add ``sign * v . dP/dq`` into row ``r`` of ``B``."""
    if kind == RIGID_PT:
        B[r, 3 * i] += sign * vx
        B[r, 3 * i + 1] += sign * vy
        B[r, 3 * i + 2] += sign * (-vx * ay + vy * ax)
    elif kind == BEAM_PT:
        for k in range(4):
            B[r, i + 2 * k] += sign * vx * a[k]
            B[r, i + 2 * k + 1] += sign * vy * a[k]


@njit(cache=True)
def _body_frame(q, b):
    """``cos, sin`` of rigid body ``b``'s angle and its position [m]; the ground's frame for ``b < 0``."""
    if b < 0:
        return 1.0, 0.0, 0.0, 0.0
    return math.cos(q[3 * b + 2]), math.sin(q[3 * b + 2]), q[3 * b], q[3 * b + 1]


@njit(cache=True)
def constraint_kernel(q, t, pt_kind, pt_idx, pt_vec, jt, jt_f, dr, dr_f, Phi, B, Pt):
    """Fill ``Phi`` [m, rad], ``B = Phi_q`` and ``Pt = Phi_t`` at ``(q, t)`` (zeroed here)."""
    Phi[:] = 0.0
    B[:, :] = 0.0
    Pt[:] = 0.0
    for k in range(jt.shape[0]):
        ii = jt[k, 1]
        jj = jt[k, 2]
        r = jt[k, 3]
        ki, ib, ai = pt_kind[ii], pt_idx[ii], pt_vec[ii]
        kj, jb, aj = pt_kind[jj], pt_idx[jj], pt_vec[jj]
        xi, yi, axi, ayi = _point(q, ki, ib, ai)
        xj, yj, axj, ayj = _point(q, kj, jb, aj)
        if jt[k, 0] == REV:
            Phi[r] = xj - xi
            Phi[r + 1] = yj - yi
            _jac_rows(B, r, kj, jb, aj, axj, ayj, 1.0)
            _jac_rows(B, r, ki, ib, ai, axi, ayi, -1.0)
        else:
            bi = jt[k, 4]
            bj = jt[k, 5]
            npx, npy, phi0 = jt_f[k, 0], jt_f[k, 1], jt_f[k, 2]
            c, s, rx, ry = _body_frame(q, bi)
            nx = c * npx - s * npy
            ny = s * npx + c * npy
            Phi[r] = nx * (xj - rx) + ny * (yj - ry) - (npx * ai[0] + npy * ai[1])
            _jac_dot(B, r, kj, jb, aj, axj, ayj, 1.0, nx, ny)
            if bi >= 0:
                B[r, 3 * bi] -= nx
                B[r, 3 * bi + 1] -= ny
                B[r, 3 * bi + 2] += -ny * (xj - rx) + nx * (yj - ry)
            pj = q[3 * bj + 2] if bj >= 0 else 0.0
            pi = q[3 * bi + 2] if bi >= 0 else 0.0
            Phi[r + 1] = pj - pi - phi0
            if bj >= 0:
                B[r + 1, 3 * bj + 2] += 1.0
            if bi >= 0:
                B[r + 1, 3 * bi + 2] -= 1.0
    for k in range(dr.shape[0]):
        col, rel, r = dr[k, 0], dr[k, 1], dr[k, 2]
        f, f1, _ = driver_value(dr_f[k], t)
        Phi[r] = q[col] - (q[rel] if rel >= 0 else 0.0) - f
        B[r, col] += 1.0
        if rel >= 0:
            B[r, rel] -= 1.0
        Pt[r] = -f1


@njit(cache=True)
def driver_acceleration_kernel(t, dr, dr_f, out):
    """``Phi_tt`` [rad/s^2 or m/s^2] of the driver rows into ``out`` (other rows zeroed)."""
    out[:] = 0.0
    for k in range(dr.shape[0]):
        out[dr[k, 2]] = -driver_value(dr_f[k], t)[2]


@njit(cache=True)
def hessian_kernel(q, lam, pt_kind, pt_idx, pt_vec, jt, jt_f, H):
    """Add ``d(Phi_q^T lambda)/dq`` to ``H`` (nonzero only where rigid bodies' angles enter)."""
    for k in range(jt.shape[0]):
        ii = jt[k, 1]
        jj = jt[k, 2]
        r = jt[k, 3]
        ki, ib, ai = pt_kind[ii], pt_idx[ii], pt_vec[ii]
        kj, jb, aj = pt_kind[jj], pt_idx[jj], pt_vec[jj]
        if jt[k, 0] == REV:
            l0, l1 = lam[r], lam[r + 1]
            if kj == RIGID_PT:
                _, _, ax, ay = _point(q, kj, jb, aj)
                H[3 * jb + 2, 3 * jb + 2] -= l0 * ax + l1 * ay
            if ki == RIGID_PT:
                _, _, ax, ay = _point(q, ki, ib, ai)
                H[3 * ib + 2, 3 * ib + 2] += l0 * ax + l1 * ay
        else:
            bi = jt[k, 4]
            bj = jt[k, 5]
            l1 = lam[r]
            npx, npy = jt_f[k, 0], jt_f[k, 1]
            c, s, rx, ry = _body_frame(q, bi)
            nx = c * npx - s * npy
            ny = s * npx + c * npy
            dnx, dny = -ny, nx
            xj, yj, _, _ = _point(q, kj, jb, aj)
            ajx = ajy = 0.0
            if bj >= 0:
                cj, sj = math.cos(q[3 * bj + 2]), math.sin(q[3 * bj + 2])
                ajx = cj * aj[0] - sj * aj[1]
                ajy = sj * aj[0] + cj * aj[1]
                H[3 * bj + 2, 3 * bj + 2] -= l1 * (nx * ajx + ny * ajy)
            if bi >= 0:
                fi = 3 * bi + 2
                H[fi, fi] -= l1 * (nx * (xj - rx) + ny * (yj - ry))
                H[fi, 3 * bi] -= l1 * dnx
                H[fi, 3 * bi + 1] -= l1 * dny
                H[3 * bi, fi] -= l1 * dnx
                H[3 * bi + 1, fi] -= l1 * dny
                if bj >= 0:
                    H[fi, 3 * bj] += l1 * dnx
                    H[fi, 3 * bj + 1] += l1 * dny
                    H[3 * bj, fi] += l1 * dnx
                    H[3 * bj + 1, fi] += l1 * dny
                    x = l1 * (dnx * -ajy + dny * ajx)
                    H[fi, 3 * bj + 2] += x
                    H[3 * bj + 2, fi] += x
