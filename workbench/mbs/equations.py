"""Compiled equations of motion of a planar mechanism in absolute coordinates.

State ``y = [q, qdot, z, W]``: ``q = (x, y, phi)`` per moving body [m, m, rad], their rates, one
friction state per contact point (LuGre bristle deflection [m]) and four energy integrals [J]:
driver work, work absorbed by contact forces, friction dissipation, damper dissipation.

Equations (seed 000 eq. 38, seed 004 eq. 41): ``M qdd + Phi_q^T lambda = Q`` with
``Phi_q qdd = gamma - 2 alpha Phi_dot - beta^2 Phi`` (Baumgarte).  Because ``M`` is diagonal the
multipliers come from the Schur complement ``Phi_q M^-1 Phi_q^T``.

Revolute clearance joint (seed 000 eqs. 1-8, 26-31; seed 004 eqs. 1-9): eccentricity
``e = P_journal - P_bushing``, ``n = e/|e|``, penetration ``delta = |e| - c``, contact points
``Q_k = P_k + R_k n``, ``v_N = (v_Qj - v_Qi).n`` (= d delta/dt), ``v_T = (v_Qj - v_Qi).t``,
``t = (-n_y, n_x)``.  Translational clearance joint (seed 004 eqs. 18-31): the four corners of the
slider against the two guide faces ``+-H/2`` from the guide centre line.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .compiled import (CL_REV, DRV_PHI, DRV_X, FORCE, MAX_POLY, REV, SPRING, TORQUE, TRANS)

# clearance-joint record columns
C_FN, C_FT, C_PEN, C_EX, C_EY, C_VT, C_VN = 0, 1, 2, 3, 4, 5, 6
N_CREC = 7


@njit(cache=True)
def driver_value(drv, t):
    """``(f, f', f'')`` of a driver row at time ``t``."""
    npoly = int(drv[0])
    f = 0.0; f1 = 0.0; f2 = 0.0
    for k in range(npoly):
        a = drv[1 + k]
        f += a * t ** k
        if k >= 1:
            f1 += k * a * t ** (k - 1)
        if k >= 2:
            f2 += k * (k - 1) * a * t ** (k - 2)
    nh = int(drv[1 + MAX_POLY])
    for m in range(nh):
        A = drv[2 + MAX_POLY + 3 * m]; w = drv[3 + MAX_POLY + 3 * m]; ph = drv[4 + MAX_POLY + 3 * m]
        f += A * math.sin(w * t + ph)
        f1 += A * w * math.cos(w * t + ph)
        f2 -= A * w * w * math.sin(w * t + ph)
    return f, f1, f2


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


@njit(cache=True)
def clearance_forces(q, qd, z, dm, Q, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z, rec, tmp):
    """Add clearance-joint contact and friction forces to ``Q``; fill ``zdot`` and ``rec``.

    Returns ``(contact_power, friction_power, bad_joint)``: the rate of work absorbed by the
    normal contact forces [W], the friction dissipation rate [W] and the index of a joint whose
    model returned a non-finite value (-1 when all is well).
    """
    pc = 0.0; pf = 0.0; bad = -1
    for j in range(clr_i.shape[0]):
        typ = clr_i[j, 0]; bi = clr_i[j, 1]; bj = clr_i[j, 2]; p0 = clr_i[j, 3]
        rec[j, :] = 0.0
        cp = cpar[j].ctypes
        fp = fpar[j].ctypes
        if typ == CL_REV:
            Pbx, Pby = point_position(q, bi, clr_f[j, 0], clr_f[j, 1])
            Pjx, Pjy = point_position(q, bj, clr_f[j, 2], clr_f[j, 3])
            Rb = clr_f[j, 4]; Rj = clr_f[j, 5]
            ex = Pjx - Pbx; ey = Pjy - Pby
            em = math.sqrt(ex * ex + ey * ey)
            if em > 1e-300:
                nx = ex / em; ny = ey / em
            else:
                nx = 1.0; ny = 0.0
            delta = em - (Rb - Rj)
            qbx = Pbx + Rb * nx; qby = Pby + Rb * ny
            qjx = Pjx + Rj * nx; qjy = Pjy + Rj * ny
            vbx, vby = material_velocity(q, qd, bi, qbx, qby)
            vjx, vjy = material_velocity(q, qd, bj, qjx, qjy)
            vrx = vjx - vbx; vry = vjy - vby
            vn = vrx * nx + vry * ny
            vt = -vrx * ny + vry * nx
            fn = 0.0
            if delta > 0.0:
                fn = ckern[j](delta, vn, dm[p0], cp)
            ft = 0.0
            ft = fkern[j](vt, fn, z[p0], fp, tmp.ctypes)
            zdot[p0] = tmp[0] if has_z[j] else 0.0
            if not (math.isfinite(fn) and math.isfinite(ft) and math.isfinite(zdot[p0])):
                bad = j
            fx = -fn * nx - ft * ny
            fy = -fn * ny + ft * nx
            apply_force(Q, q, bj, qjx, qjy, fx, fy)
            apply_force(Q, q, bi, qbx, qby, -fx, -fy)
            pc += fn * vn
            pf -= ft * vt
            # eccentricity in the bushing frame
            cb = 1.0; sb = 0.0
            if bi >= 0:
                cb = math.cos(q[3 * bi + 2]); sb = math.sin(q[3 * bi + 2])
            rec[j, C_FN] = fn; rec[j, C_FT] = ft; rec[j, C_PEN] = delta
            rec[j, C_EX] = cb * ex + sb * ey; rec[j, C_EY] = -sb * ex + cb * ey
            rec[j, C_VT] = vt; rec[j, C_VN] = vn
        else:
            Pgx, Pgy = point_position(q, bi, clr_f[j, 0], clr_f[j, 1])
            Cx, Cy = point_position(q, bj, clr_f[j, 2], clr_f[j, 3])
            ax, ay = rotate(q, bi, clr_f[j, 4], clr_f[j, 5])
            mx = -ay; my = ax
            ux, uy = rotate(q, bj, clr_f[j, 6], clr_f[j, 7])
            vx_ = -uy; vy_ = ux
            L = clr_f[j, 8]; W = clr_f[j, 9]; H = clr_f[j, 10]
            maxpen = -1e300; fnt = 0.0; ftt = 0.0; vtm = 0.0; vnm = 0.0
            for k in range(4):
                su = 0.5 * L if (k == 0 or k == 3) else -0.5 * L
                sv = 0.5 * W if k < 2 else -0.5 * W
                X = Cx + su * ux + sv * vx_; Y = Cy + su * uy + sv * vy_
                h = (X - Pgx) * mx + (Y - Pgy) * my
                if sv > 0.0:
                    delta = h - 0.5 * H; Nx = mx; Ny = my
                else:
                    delta = -0.5 * H - h; Nx = -mx; Ny = -my
                vsx, vsy = material_velocity(q, qd, bj, X, Y)
                vgx, vgy = material_velocity(q, qd, bi, X, Y)
                vrx = vsx - vgx; vry = vsy - vgy
                vn = vrx * Nx + vry * Ny
                vt = vrx * ax + vry * ay
                fn = 0.0
                if delta > 0.0:
                    fn = ckern[j](delta, vn, dm[p0 + k], cp)
                ft = fkern[j](vt, fn, z[p0 + k], fp, tmp.ctypes)
                zdot[p0 + k] = tmp[0] if has_z[j] else 0.0
                if not (math.isfinite(fn) and math.isfinite(ft) and math.isfinite(zdot[p0 + k])):
                    bad = j
                fx = -fn * Nx + ft * ax
                fy = -fn * Ny + ft * ay
                apply_force(Q, q, bj, X, Y, fx, fy)
                apply_force(Q, q, bi, X, Y, -fx, -fy)
                pc += fn * vn
                pf -= ft * vt
                fnt += fn; ftt += ft
                if delta > maxpen:
                    maxpen = delta; vtm = vt; vnm = vn
            dx = Cx - Pgx; dy = Cy - Pgy
            rec[j, C_FN] = fnt; rec[j, C_FT] = ftt; rec[j, C_PEN] = maxpen
            rec[j, C_EX] = dx * ax + dy * ay; rec[j, C_EY] = dx * mx + dy * my
            rec[j, C_VT] = vtm; rec[j, C_VN] = vnm
    return pc, pf, bad


@njit(cache=True)
def element_forces(q, qd, Q, frc_i, frc_f, gravity, mass):
    """Gravity and force elements into ``Q``; returns the damper dissipation rate [W]."""
    nb = mass.shape[0] // 3
    for b in range(nb):
        Q[3 * b] += mass[3 * b] * gravity[0]
        Q[3 * b + 1] += mass[3 * b] * gravity[1]
    pd = 0.0
    for k in range(frc_i.shape[0]):
        typ = frc_i[k, 0]; bi = frc_i[k, 1]; bj = frc_i[k, 2]
        if typ == SPRING:
            pix, piy = point_position(q, bi, frc_f[k, 0], frc_f[k, 1])
            pjx, pjy = point_position(q, bj, frc_f[k, 2], frc_f[k, 3])
            dx = pjx - pix; dy = pjy - piy
            l = math.sqrt(dx * dx + dy * dy)
            if l < 1e-300:
                continue
            ex = dx / l; ey = dy / l
            vix, viy = material_velocity(q, qd, bi, pix, piy)
            vjx, vjy = material_velocity(q, qd, bj, pjx, pjy)
            ld = (vjx - vix) * ex + (vjy - viy) * ey
            f = frc_f[k, 4] * (l - frc_f[k, 6]) + frc_f[k, 5] * ld + frc_f[k, 7]  # tension > 0
            apply_force(Q, q, bi, pix, piy, f * ex, f * ey)
            apply_force(Q, q, bj, pjx, pjy, -f * ex, -f * ey)
            pd += frc_f[k, 5] * ld * ld
        elif typ == FORCE:
            px, py = point_position(q, bi, frc_f[k, 0], frc_f[k, 1])
            apply_force(Q, q, bi, px, py, frc_f[k, 2], frc_f[k, 3])
        elif typ == TORQUE:
            if bi >= 0:
                Q[3 * bi + 2] += frc_f[k, 0]
    return pd


@njit(cache=True)
def workspace_size(n, n_rows, npts):
    """Length of the float work buffer :func:`rhs` needs."""
    m = max(n_rows, 1)
    return 2 * n + max(npts, 1) + 1 + 6 * m + m * n + m * m


@njit(cache=True)
def _cholesky_solve(S, b, x, m):
    """Solve ``S x = b`` for symmetric positive definite ``S`` (overwritten by its factor).
    Returns False when ``S`` is not positive definite (redundant or degenerate constraints)."""
    for j in range(m):
        d = S[j, j]
        for k in range(j):
            d -= S[j, k] * S[j, k]
        if not (d > 1e-300):
            return False
        d = math.sqrt(d)
        S[j, j] = d
        for i in range(j + 1, m):
            v = S[i, j]
            for k in range(j):
                v -= S[i, k] * S[j, k]
            S[i, j] = v / d
    for i in range(m):
        v = b[i]
        for k in range(i):
            v -= S[i, k] * x[k]
        x[i] = v / S[i, i]
    for i in range(m - 1, -1, -1):
        v = x[i]
        for k in range(i + 1, m):
            v -= S[k, i] * x[k]
        x[i] = v / S[i, i]
    return True


@njit(cache=True)
def rhs(t, y, dm, ydot, lam, rec, ws, alpha, beta, n_rows,
        mass, cons_i, cons_f, drv_f, frc_i, frc_f, gravity, clr_i, clr_f,
        ckern, fkern, cpar, fpar, has_z):
    """Right-hand side ``ydot = f(t, y)``; also fills multipliers ``lam`` and the clearance
    record ``rec``.  ``ws`` is a work buffer of :func:`workspace_size` floats.  Returns the index
    of a joint whose model gave a non-finite value, or -1 (-2 when the constraint system is
    singular, -3 when the state is not finite)."""
    n = mass.shape[0]
    npts = ydot.shape[0] - 2 * n - 4
    m = max(n_rows, 1)
    q = y[:n]; qd = y[n:2 * n]; z = y[2 * n:2 * n + npts]
    o = 0
    Q = ws[o:o + n]; o += n
    zdot = ws[o:o + max(npts, 1)]; o += max(npts, 1)
    tmp = ws[o:o + 1]; o += 1
    Q[:] = 0.0
    pd = element_forces(q, qd, Q, frc_i, frc_f, gravity, mass)
    pc, pf, bad = clearance_forces(q, qd, z, dm, Q, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar,
                                   has_z, rec, tmp)
    if bad >= 0:
        return bad
    qdd = ydot[n:2 * n]
    pdrv = 0.0
    if n_rows > 0:
        Phi = ws[o:o + m]; o += m
        gam = ws[o:o + m]; o += m
        Phit = ws[o:o + m]; o += m
        Jqd = ws[o:o + m]; o += m
        b = ws[o:o + m]; o += m
        x = ws[o:o + m]; o += m
        J = ws[o:o + m * n].reshape((m, n)); o += m * n
        S = ws[o:o + m * m].reshape((m, m)); o += m * m
        gen = ws[o:o + n]; o += n
        constraints(t, q, qd, cons_i, cons_f, drv_f, Phi, J, gam, Phit)
        for i in range(m):
            acc = 0.0
            for k in range(n):
                acc += J[i, k] * qd[k]
            Jqd[i] = acc
            acc = 0.0
            for k in range(n):
                acc += J[i, k] * Q[k] / mass[k]
            b[i] = acc - (gam[i] - 2.0 * alpha * (Jqd[i] + Phit[i]) - beta * beta * Phi[i])
            if not math.isfinite(b[i]):
                return -3
            for j2 in range(i + 1):
                acc = 0.0
                for k in range(n):
                    acc += J[i, k] * J[j2, k] / mass[k]
                S[i, j2] = acc
        if not _cholesky_solve(S, b, x, m):
            return -2
        for i in range(m):
            lam[i] = x[i]
        for k in range(n):
            acc = Q[k]
            for i in range(m):
                acc -= J[i, k] * x[i]
            qdd[k] = acc / mass[k]
        # driver power: -lambda * (Phi_q qd) on driver rows
        for k in range(cons_i.shape[0]):
            if cons_i[k, 0] >= DRV_PHI:
                r = cons_i[k, 3]
                pdrv += -x[r] * Jqd[r]
    else:
        for i in range(n):
            qdd[i] = Q[i] / mass[i]
    ydot[:n] = qd
    for i in range(npts):
        ydot[2 * n + i] = zdot[i]
    ydot[2 * n + npts] = pdrv
    ydot[2 * n + npts + 1] = pc
    ydot[2 * n + npts + 2] = pf
    ydot[2 * n + npts + 3] = pd
    return bad


@njit(cache=True)
def contact_gaps(y, n, clr_i, clr_f, g, gd):
    """Penetration ``g`` [m] and its rate ``gd`` [m/s] of every contact point at state ``y``."""
    q = y[:n]; qd = y[n:2 * n]
    for j in range(clr_i.shape[0]):
        typ = clr_i[j, 0]; bi = clr_i[j, 1]; bj = clr_i[j, 2]; p0 = clr_i[j, 3]
        if typ == CL_REV:
            Pbx, Pby = point_position(q, bi, clr_f[j, 0], clr_f[j, 1])
            Pjx, Pjy = point_position(q, bj, clr_f[j, 2], clr_f[j, 3])
            ex = Pjx - Pbx; ey = Pjy - Pby
            em = math.sqrt(ex * ex + ey * ey)
            g[p0] = em - (clr_f[j, 4] - clr_f[j, 5])
            vbx, vby = material_velocity(q, qd, bi, Pbx, Pby)
            vjx, vjy = material_velocity(q, qd, bj, Pjx, Pjy)
            gd[p0] = ((vjx - vbx) * ex + (vjy - vby) * ey) / em if em > 1e-300 else 0.0
        else:
            Pgx, Pgy = point_position(q, bi, clr_f[j, 0], clr_f[j, 1])
            Cx, Cy = point_position(q, bj, clr_f[j, 2], clr_f[j, 3])
            ax, ay = rotate(q, bi, clr_f[j, 4], clr_f[j, 5])
            mx = -ay; my = ax
            ux, uy = rotate(q, bj, clr_f[j, 6], clr_f[j, 7])
            L = clr_f[j, 8]; W = clr_f[j, 9]; H = clr_f[j, 10]
            for k in range(4):
                su = 0.5 * L if (k == 0 or k == 3) else -0.5 * L
                sv = 0.5 * W if k < 2 else -0.5 * W
                X = Cx + su * ux - sv * uy; Y = Cy + su * uy + sv * ux
                h = (X - Pgx) * mx + (Y - Pgy) * my
                vsx, vsy = material_velocity(q, qd, bj, X, Y)
                vgx, vgy = material_velocity(q, qd, bi, X, Y)
                vn = (vsx - vgx) * mx + (vsy - vgy) * my
                if sv > 0.0:
                    g[p0 + k] = h - 0.5 * H; gd[p0 + k] = vn
                else:
                    g[p0 + k] = -0.5 * H - h; gd[p0 + k] = -vn


@njit(cache=True)
def mechanical_energy(y, n, mass, gravity, frc_i, frc_f):
    """Kinetic [J] and potential [J] energy (gravity, springs, constant forces and torques)."""
    q = y[:n]; qd = y[n:2 * n]
    ke = 0.0
    for i in range(n):
        ke += 0.5 * mass[i] * qd[i] * qd[i]
    pe = 0.0
    nb = n // 3
    for b in range(nb):
        pe -= mass[3 * b] * (gravity[0] * q[3 * b] + gravity[1] * q[3 * b + 1])
    for k in range(frc_i.shape[0]):
        typ = frc_i[k, 0]; bi = frc_i[k, 1]; bj = frc_i[k, 2]
        if typ == SPRING:
            pix, piy = point_position(q, bi, frc_f[k, 0], frc_f[k, 1])
            pjx, pjy = point_position(q, bj, frc_f[k, 2], frc_f[k, 3])
            l = math.sqrt((pjx - pix) ** 2 + (pjy - piy) ** 2)
            pe += 0.5 * frc_f[k, 4] * (l - frc_f[k, 6]) ** 2 + frc_f[k, 7] * l
        elif typ == FORCE:
            px, py = point_position(q, bi, frc_f[k, 0], frc_f[k, 1])
            pe -= frc_f[k, 2] * px + frc_f[k, 3] * py
        elif typ == TORQUE and bi >= 0:
            pe -= frc_f[k, 0] * q[3 * bi + 2]
    return ke, pe
