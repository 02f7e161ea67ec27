"""Clearance joints, compiled: contact kinematics and forces.

Revolute clearance joint (seed 000 eqs. 1-8, 26-31; seed 004 eqs. 1-9): eccentricity
``e = P_journal - P_bushing``, ``n = e/|e|``, penetration ``delta = |e| - c``, contact points
``Q_k = P_k + R_k n``, ``v_N = (v_Qj - v_Qi).n`` (= d delta/dt), ``v_T = (v_Qj - v_Qi).t``,
``t = (-n_y, n_x)``.  Translational clearance joint (seed 004 eqs. 18-31): the four corners of the
slider against the two guide faces ``+-H/2`` from the guide centre line.
"""
from __future__ import annotations

import math

from numba import njit

from .compiled import CL_REV
from .kinematics import apply_force, material_velocity, point_position, rotate

# clearance-joint record columns
C_FN, C_FT, C_PEN, C_EX, C_EY, C_VT, C_VN = 0, 1, 2, 3, 4, 5, 6
N_CREC = 7


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
