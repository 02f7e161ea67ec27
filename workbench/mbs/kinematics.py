"""Planar kinematics and the constraint equations, compiled.

Body coordinates ``q = (x, y, phi)`` per moving body (index -1 = ground).  Constraints
(Wang & Liu (2015) eq. 38, Wang, Chen, Ma & Sun (2016) eq. 41): ideal revolute and translational joints and drivers, with their
Jacobian ``Phi_q``, ``Phi_t`` and the acceleration right-hand side ``gamma``.
"""
from __future__ import annotations

import math

from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .compiled import DRV_PHI, DRV_X, MAX_POLY, REV, TRANS


@njit(cache=True)
def driver_value(drv, t):
    """``(f, f', f'')`` of a driver row at time ``t``."""
    npoly = int(drv[0])
    f = 0.0; f1 = 0.0; f2 = 0.0
    # Horner's scheme for the polynomial and its two derivatives (no pow() calls: the driver is
    # evaluated in every right-hand side)
    for k in range(npoly - 1, -1, -1):
        f2 = f2 * t + 2.0 * f1
        f1 = f1 * t + f
        f = f * t + drv[1 + k]
    nh = int(drv[1 + MAX_POLY])
    for m in range(nh):
        A = drv[2 + MAX_POLY + 3 * m]; w = drv[3 + MAX_POLY + 3 * m]; ph = drv[4 + MAX_POLY + 3 * m]
        f += A * math.sin(w * t + ph)
        f1 += A * w * math.cos(w * t + ph)
        f2 -= A * w * w * math.sin(w * t + ph)
    return f, f1, f2


@njit(cache=True)
def driver_series(drv, t, derivative, out):
    """Driver row ``drv`` at times ``t`` into ``out``: value (``derivative`` 0), rate (1) or
    second rate (2) (:func:`driver_value`)."""
    for k in range(t.shape[0]):
        f, f1, f2 = driver_value(drv, t[k])
        out[k] = f if derivative == 0 else (f1 if derivative == 1 else f2)


@njit(cache=True)
def point_position(q, b, sx, sy):
    """Global position of body-fixed point ``(sx, sy)`` of body ``b`` (-1 = ground)."""
    if b < 0:
        return sx, sy
    c = math.cos(q[3 * b + 2]); s = math.sin(q[3 * b + 2])
    return q[3 * b] + c * sx - s * sy, q[3 * b + 1] + s * sx + c * sy


@njit(cache=True)
def material_velocity(q, qd, b, px, py):
    """Velocity of the material point of body ``b`` at global position ``(px, py)``."""
    if b < 0:
        return 0.0, 0.0
    w = qd[3 * b + 2]
    return qd[3 * b] - w * (py - q[3 * b + 1]), qd[3 * b + 1] + w * (px - q[3 * b])


@njit(cache=True)
def rotate(q, b, vx, vy):
    """Rotate a body-frame vector into the global frame."""
    if b < 0:
        return vx, vy
    c = math.cos(q[3 * b + 2]); s = math.sin(q[3 * b + 2])
    return c * vx - s * vy, s * vx + c * vy


@njit(cache=True)
def apply_force(Q, q, b, px, py, fx, fy):
    """Add force ``(fx, fy)`` acting at global point ``(px, py)`` to body ``b``'s generalised force."""
    if b < 0:
        return
    Q[3 * b] += fx
    Q[3 * b + 1] += fy
    Q[3 * b + 2] += (px - q[3 * b]) * fy - (py - q[3 * b + 1]) * fx


@njit(cache=True)
def constraints(t, q, qd, cons_i, cons_f, drv_f, Phi, J, gamma, Phit):
    """Fill ``Phi``, Jacobian ``J``, ``gamma`` (acceleration right-hand side) and ``Phi_t``."""
    J[:, :] = 0.0
    for k in range(cons_i.shape[0]):
        typ = cons_i[k, 0]; bi = cons_i[k, 1]; bj = cons_i[k, 2]; r = cons_i[k, 3]
        if typ == REV or typ == TRANS:
            six = cons_f[k, 0]; siy = cons_f[k, 1]; sjx = cons_f[k, 2]; sjy = cons_f[k, 3]
            ci = 1.0; si = 0.0; wi = 0.0; cj = 1.0; sj = 0.0; wj = 0.0
            rix = 0.0; riy = 0.0; rjx = 0.0; rjy = 0.0
            if bi >= 0:
                ci = math.cos(q[3 * bi + 2]); si = math.sin(q[3 * bi + 2]); wi = qd[3 * bi + 2]
                rix = q[3 * bi]; riy = q[3 * bi + 1]
            if bj >= 0:
                cj = math.cos(q[3 * bj + 2]); sj = math.sin(q[3 * bj + 2]); wj = qd[3 * bj + 2]
                rjx = q[3 * bj]; rjy = q[3 * bj + 1]
            # A s and B s = dA/dphi s
            Aix = ci * six - si * siy; Aiy = si * six + ci * siy
            Ajx = cj * sjx - sj * sjy; Ajy = sj * sjx + cj * sjy
            Bix = -Aiy; Biy = Aix
            Bjx = -Ajy; Bjy = Ajx
            if typ == REV:
                Phi[r] = rix + Aix - rjx - Ajx
                Phi[r + 1] = riy + Aiy - rjy - Ajy
                if bi >= 0:
                    J[r, 3 * bi] = 1.0; J[r + 1, 3 * bi + 1] = 1.0
                    J[r, 3 * bi + 2] = Bix; J[r + 1, 3 * bi + 2] = Biy
                if bj >= 0:
                    J[r, 3 * bj] = -1.0; J[r + 1, 3 * bj + 1] = -1.0
                    J[r, 3 * bj + 2] = -Bjx; J[r + 1, 3 * bj + 2] = -Bjy
                gamma[r] = Aix * wi * wi - Ajx * wj * wj
                gamma[r + 1] = Aiy * wi * wi - Ajy * wj * wj
                Phit[r] = 0.0; Phit[r + 1] = 0.0
            else:
                nxp = cons_f[k, 4]; nyp = cons_f[k, 5]; phi0 = cons_f[k, 6]
                nx = ci * nxp - si * nyp; ny = si * nxp + ci * nyp
                Bnx = -ny; Bny = nx
                dx = rjx + Ajx - rix - Aix; dy = rjy + Ajy - riy - Aiy
                vix = 0.0; viy = 0.0; vjx = 0.0; vjy = 0.0
                if bi >= 0:
                    vix = qd[3 * bi]; viy = qd[3 * bi + 1]
                if bj >= 0:
                    vjx = qd[3 * bj]; vjy = qd[3 * bj + 1]
                ddx = vjx + Bjx * wj - vix - Bix * wi
                ddy = vjy + Bjy * wj - viy - Biy * wi
                Phi[r] = nx * dx + ny * dy
                if bi >= 0:
                    J[r, 3 * bi] = -nx; J[r, 3 * bi + 1] = -ny
                    J[r, 3 * bi + 2] = Bnx * dx + Bny * dy - (nx * Bix + ny * Biy)
                if bj >= 0:
                    J[r, 3 * bj] = nx; J[r, 3 * bj + 1] = ny
                    J[r, 3 * bj + 2] = nx * Bjx + ny * Bjy
                # gamma = -(terms of Phi_ddot without qdd)
                g = (-(nx * wi * wi) * dx - (ny * wi * wi) * dy
                     + 2.0 * (Bnx * wi * ddx + Bny * wi * ddy)
                     + nx * (-Ajx * wj * wj + Aix * wi * wi) + ny * (-Ajy * wj * wj + Aiy * wi * wi))
                gamma[r] = -g
                phj = q[3 * bj + 2] if bj >= 0 else 0.0
                phi_ = q[3 * bi + 2] if bi >= 0 else 0.0
                Phi[r + 1] = phj - phi_ - phi0
                if bi >= 0:
                    J[r + 1, 3 * bi + 2] = -1.0
                if bj >= 0:
                    J[r + 1, 3 * bj + 2] = 1.0
                gamma[r + 1] = 0.0
                Phit[r] = 0.0; Phit[r + 1] = 0.0
        else:
            f, f1, f2 = driver_value(drv_f[int(cons_f[k, 0])], t)
            if typ == DRV_PHI:
                val = q[3 * bi + 2]
                J[r, 3 * bi + 2] = 1.0
                if bj >= 0:
                    val -= q[3 * bj + 2]
                    J[r, 3 * bj + 2] = -1.0
            elif typ == DRV_X:
                val = q[3 * bi]; J[r, 3 * bi] = 1.0
            else:
                val = q[3 * bi + 1]; J[r, 3 * bi + 1] = 1.0
            Phi[r] = val - f
            Phit[r] = -f1
            gamma[r] = f2
