"""The distributed contact's compiled kernels as they were before the node walk (frozen copy of
``workbench/mbs/distributed.py`` and ``distributed_nodes.py`` at commit f9b64fb, docstrings kept), the
baseline that ``bench_distributed.py`` times the current kernels against in the same process.
Not used by the workbench."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from workbench.mbs.compiled import REV_DIST_FLOOR, REV_HB_MAX, REV_HJ_MAX, REV_NODES, REV_PROFILE
from workbench.mbs.kernels import RAISED

TWO_PI = 2.0 * math.pi
#: packed parameter columns (the joint's contact row, made by the law's ``pack``): foundation
#: modulus k [Pa/m], joint length b [m], hysteresis factor chi [1], impact-speed floor [m/s], Gauss
#: points per piece [1], pieces of the unworn arc [1]
P_K, P_LEN, P_CHI, P_VFLOOR, P_NGAUSS, P_PIECES = range(6)
N_PARAM = 6
MAX_GAUSS = 8
_GL_X = np.zeros((MAX_GAUSS + 1, MAX_GAUSS))
_GL_W = np.zeros((MAX_GAUSS + 1, MAX_GAUSS))
for _n in range(1, MAX_GAUSS + 1):
    _x, _w = np.polynomial.legendre.leggauss(_n)
    _GL_X[_n, :_n] = 0.5 * (_x + 1.0)   # on [0, 1]
    _GL_W[_n, :_n] = 0.5 * _w
# outputs of distributed_contact (``res`` array): normal resultant on the journal's side
#: (bushing frame, pointing from the bushing centre to the contact) [N], torque dC/dphi_rel term
#: [N m], friction force vector on the journal (bushing frame) [N], sum of the friction forces
#: along t [N], normal and friction power [W], largest overlap [m], its direction [rad], patches
#: patches, and the sum of the quadrature points' normal forces (bounds the friction) [N]
R_FBX, R_FBY, R_TORQUE, R_FTX, R_FTY, R_FT, R_PC, R_PF, R_DELTA, R_PSI, R_PATCHES, R_FNSUM = range(12)
N_RES = 12



@njit(cache=True, inline="always")
def _wrap(i, M):
    """``i mod M`` for any integer ``i`` (a branch in the usual case, a division only outside
    ``[-M, 2M)``)."""
    if i >= M:
        i -= M
        if i >= M:
            i %= M
    elif i < 0:
        i += M
        if i < 0:
            i %= M
    return i


@njit(cache=True, inline="always")
def _cp(row, off, M, i):
    """Control point ``i`` (any integer) of the periodic quasi-interpolant of ``row[off:off + M]``:
    ``(8 h_i - h_(i-1) - h_(i+1)) / 6`` (:func:`.distributed.control_points`)."""
    im = _wrap(i, M)
    a = row[off + (im - 1 if im > 0 else M - 1)]
    c = row[off + (im + 1 if im < M - 1 else 0)]
    return (8.0 * row[off + im] - a - c) / 6.0


@njit(cache=True)
def nodes(row, M, k_lo, k_hi, phi_rel, c0, journal_worn, ebx, eby):
    """Node pass over bore nodes ``k_lo .. k_hi`` (any integers): rows ``(C [m], dC/dpsi [m/rad],
    dC/dphi_rel [m/rad], d(dC/dpsi)/dphi_rel [m/rad^2], A = e . n [m], B = e . t [m], cos psi_k,
    sin psi_k)``, and the largest nodal overlap ``A - C`` [m] over ``k_lo .. k_hi - 1`` (a lower bound of
    the window's largest overlap)."""
    h = TWO_PI / M
    n = k_hi - k_lo + 1
    nd = np.empty((n, 8))
    umax = -1e300
    # bushing: C = c0 + (c_(k-1) + 4 c_k + c_(k+1)) / 6, slope (c_(k+1) - c_(k-1)) / (2 h)
    bm = _cp(row, REV_PROFILE, M, k_lo - 1); bc = _cp(row, REV_PROFILE, M, k_lo)
    # journal at x_k = k h - phi_rel: knot span i_k = i_0 + (k - k_lo), the same parameter t
    jw0 = jw1 = jw2 = jw3 = jd0 = jd1 = jd2 = jd3 = jdd0 = jdd1 = jdd2 = jdd3 = 0.0
    jm = jc = jn = 0.0; i0 = 0
    if journal_worn:
        u = ((k_lo * h - phi_rel) % TWO_PI) / h
        i0 = int(u)
        if i0 >= M:
            i0 = M - 1
        t = u - i0
        s = 1.0 - t; t2 = t * t; t3 = t2 * t
        jw0 = s * s * s / 6.0; jw1 = (3 * t3 - 6 * t2 + 4) / 6.0
        jw2 = (-3 * t3 + 3 * t2 + 3 * t + 1) / 6.0; jw3 = t3 / 6.0
        jd0 = -3 * s * s / (6.0 * h); jd1 = (9 * t2 - 12 * t) / (6.0 * h)
        jd2 = (-9 * t2 + 6 * t + 3) / (6.0 * h); jd3 = 3 * t2 / (6.0 * h)
        jdd0 = 6 * s / (6.0 * h * h); jdd1 = (18 * t - 12) / (6.0 * h * h)
        jdd2 = (-18 * t + 6) / (6.0 * h * h); jdd3 = 6 * t / (6.0 * h * h)
        jm = _cp(row, REV_PROFILE + M, M, i0 - 1); jc = _cp(row, REV_PROFILE + M, M, i0)
        jn = _cp(row, REV_PROFILE + M, M, i0 + 1)
    for m in range(n):
        k = k_lo + m
        bq = _cp(row, REV_PROFILE, M, k + 1)
        c = c0 + (bm + 4.0 * bc + bq) / 6.0
        sl = (bq - bm) / (2.0 * h)
        cph = 0.0; sph = 0.0
        if journal_worn:
            jq = _cp(row, REV_PROFILE + M, M, i0 + m + 2)
            c += jw0 * jm + jw1 * jc + jw2 * jn + jw3 * jq
            d = jd0 * jm + jd1 * jc + jd2 * jn + jd3 * jq
            sl += d; cph = -d
            sph = -(jdd0 * jm + jdd1 * jc + jdd2 * jn + jdd3 * jq)
            jm = jc; jc = jn; jn = jq
        bm = bc; bc = bq
        th = k * h
        co = math.cos(th); si = math.sin(th)
        A = ebx * co + eby * si
        nd[m, 0] = c; nd[m, 1] = sl; nd[m, 2] = cph; nd[m, 3] = sph
        nd[m, 4] = A; nd[m, 5] = eby * co - ebx * si; nd[m, 6] = co; nd[m, 7] = si
        if m < n - 1 and A - c > umax:
            umax = A - c
    return nd, umax


@njit(cache=True, inline="always")
def bound(nd, i, dth, cd, sd, em):
    """Upper bound [m] of the overlap u over segment ``i`` of the node pass ``nd``: the largest
    ``e . n`` on it (``em`` when the eccentricity's direction lies inside the segment, else the
    larger end value; ``cd``, ``sd`` = cos, sin of ``dth``) minus the lowest the Hermite cubic of the
    clearance can reach, ``min(C1, C2) - (4/27) dth (|C'1| + |C'2|)`` (the Hermite basis functions
    of the end tangents peak at 4/27 in magnitude; the end-value part stays between C1 and C2)."""
    A = nd[i, 4]; B = nd[i, 5]
    A1 = A * cd + B * sd
    if B > 0.0 and B * cd - A * sd < 0.0:
        en = em
    else:
        en = A if A > A1 else A1
    cmin = min(nd[i, 0], nd[i + 1, 0]) - (4.0 / 27.0) * dth * (abs(nd[i, 1]) + abs(nd[i + 1, 1]))
    return en - cmin


@njit(cache=True, inline="always")
def _hermite(t, a1, m1, a2, m2):
    """Cubic Hermite on [0, 1] (tangents per unit t): value, d/dt, d2/dt2."""
    t2 = t * t; t3 = t2 * t
    v = (2 * t3 - 3 * t2 + 1) * a1 + (t3 - 2 * t2 + t) * m1 + (-2 * t3 + 3 * t2) * a2 + (t3 - t2) * m2
    d = (6 * t2 - 6 * t) * a1 + (3 * t2 - 4 * t + 1) * m1 + (-6 * t2 + 6 * t) * a2 + (3 * t2 - 2 * t) * m2
    dd = (12 * t - 6) * a1 + (6 * t - 4) * m1 + (-12 * t + 6) * a2 + (6 * t - 2) * m2
    return v, d, dd


@njit(cache=True, inline="always")
def _cs(x):
    """``(cos x, sin x)``: Taylor series for |x| <= 0.05 (a segment; error < 1e-17), else libm."""
    if abs(x) > 0.05:
        return math.cos(x), math.sin(x)
    x2 = x * x
    return (1.0 - x2 * (0.5 - x2 * (1.0 / 24.0 - x2 / 720.0)),
            x * (1.0 - x2 * (1.0 / 6.0 - x2 * (1.0 / 120.0 - x2 / 5040.0))))


@njit(cache=True, inline="always")
def _u(t, dth, A, B, a1, m1, a2, m2):
    """Overlap u, du/dt, d2u/dt2 on a segment at parameter ``t``; ``A = e . n(theta_0)`` and
    ``B = e . t(theta_0)`` at the segment start (so no trigonometry of the absolute angle)."""
    cx, sx = _cs(t * dth)
    v, d, dd = _hermite(t, a1, m1, a2, m2)
    en = A * cx + B * sx
    return en - v, dth * (B * cx - A * sx) - d, -dth * dth * en - dd


@njit(cache=True)
def _root(ta, tb, ua, dth, A, B, a1, m1, a2, m2):
    """Root of u on [ta, tb] (u monotone there, opposite signs at the ends): Newton kept inside
    the bracket, bisection when it leaves it."""
    lo = ta; hi = tb; ulo = ua
    t = 0.5 * (lo + hi)
    for _ in range(60):
        u, d, _dd = _u(t, dth, A, B, a1, m1, a2, m2)
        if (u > 0.0) == (ulo > 0.0):
            lo = t; ulo = u
        else:
            hi = t
        if hi - lo < 1e-15:
            break
        tn = t - u / d if d != 0.0 else 0.5 * (lo + hi)
        if not (lo < tn < hi):
            tn = 0.5 * (lo + hi)
        if abs(tn - t) < 1e-16:
            t = tn
            break
        t = tn
    return t


@njit(cache=True)
def _critical(dth, A, B, a1, m1, a2, m2, out):
    """Critical points of u in (0, 1), sorted, into ``out``; returns how many (<= 2).  ``u'`` is
    fitted by the quadratic through t = 0, 1/2, 1 and its roots polished by Newton."""
    _, d0, _ = _u(0.0, dth, A, B, a1, m1, a2, m2)
    _, dh, _ = _u(0.5, dth, A, B, a1, m1, a2, m2)
    _, d1, _ = _u(1.0, dth, A, B, a1, m1, a2, m2)
    qa = d0; qb = -3.0 * d0 + 4.0 * dh - d1; qc = 2.0 * d0 - 4.0 * dh + 2.0 * d1
    n = 0
    r1 = -1.0; r2 = -1.0
    scale = abs(qa) + abs(qb) + abs(qc)
    if abs(qc) > 1e-12 * scale:
        disc = qb * qb - 4.0 * qa * qc
        if disc >= 0.0:
            sq = math.sqrt(disc)
            q = -0.5 * (qb + (sq if qb >= 0.0 else -sq))
            x1 = q / qc
            x2 = qa / q if q != 0.0 else x1
            r1 = min(x1, x2); r2 = max(x1, x2); n = 2
    elif qb != 0.0:
        r1 = -qa / qb; n = 1
    m = 0
    for ir in range(n):
        t = r1 if ir == 0 else r2
        if not (0.0 < t < 1.0):
            continue
        for _ in range(6):
            _, d, dd = _u(t, dth, A, B, a1, m1, a2, m2)
            if dd == 0.0:
                break
            tn = t - d / dd
            if not (0.0 < tn < 1.0):
                break
            if abs(tn - t) < 1e-15:
                t = tn
                break
            t = tn
        if m == 1 and abs(t - out[0]) < 1e-12:
            continue
        out[m] = t; m += 1
    if m == 2 and out[1] < out[0]:
        x = out[0]; out[0] = out[1]; out[1] = x
    return m


@njit(cache=True)
def _window(row, ebx, eby):
    """``(M, c0, k_lo, k_hi, em, alpha, empty)``: the bushing segments where u can be > 0."""
    c0 = row[4] - row[5]
    em = math.sqrt(ebx * ebx + eby * eby)
    alpha = math.atan2(eby, ebx) if em > 1e-300 else 0.0
    M = int(row[REV_NODES])
    worn = M > 0 and row[REV_HB_MAX] + row[REV_HJ_MAX] > 0.0
    if not worn:
        return 0, c0, 0, 0, em, alpha, em <= c0
    clo = c0 + row[REV_DIST_FLOOR]
    if em <= clo:
        return M, c0, 0, 0, em, alpha, True
    dth = TWO_PI / M
    w = math.acos(clo / em) if clo > 0.0 else math.pi
    k_lo = int(math.floor((alpha - w) / dth)) - 1
    k_hi = int(math.ceil((alpha + w) / dth)) + 1
    if k_hi - k_lo >= M:
        k_lo = 0; k_hi = M
    return M, c0, k_lo, k_hi, em, alpha, False


@njit(cache=True)
def distributed_gap(row, ebx, eby, phi_rel):
    """Largest overlap ``max_psi u`` [m] and its direction ``psi`` [rad] (bushing frame), with
    ``dC/dphi_rel`` there [m/rad] (for the gap rate).  Negative when no direction overlaps (then
    only the sign is meaningful)."""
    M, c0, k_lo, k_hi, em, alpha, empty = _window(row, ebx, eby)
    if M == 0:
        return em - c0, alpha, 0.0
    if empty:
        return em - (c0 + row[REV_DIST_FLOOR]), alpha, 0.0
    journal_worn = row[REV_HJ_MAX] > 0.0
    dth = TWO_PI / M
    crit = np.zeros(2)
    best = -1e300; psi_b = alpha; cph_b = 0.0
    # segment screen: a segment whose overlap bound is below the largest nodal overlap cannot hold
    # the maximum (on a worn bore the window spans ~40 segments, the patch a few)
    nd, umax = nodes(row, M, k_lo, k_hi, phi_rel, c0, journal_worn, ebx, eby)
    cd = math.cos(dth); sd = math.sin(dth)
    for i in range(k_hi - k_lo):
        a1 = nd[i, 0]; s1 = nd[i, 1]; p1 = nd[i, 2]; q1 = nd[i, 3]
        A = nd[i, 4]; B = nd[i, 5]
        th0 = (k_lo + i) * dth
        u0 = A - a1
        if u0 > best:
            best = u0; psi_b = th0; cph_b = p1
        if bound(nd, i, dth, cd, sd, em) <= umax:
            continue
        a2 = nd[i + 1, 0]; s2 = nd[i + 1, 1]; p2 = nd[i + 1, 2]; q2 = nd[i + 1, 3]
        nc = _critical(dth, A, B, a1, s1 * dth, a2, s2 * dth, crit)
        for ic in range(nc):
            t = crit[ic]
            u, d, dd = _u(t, dth, A, B, a1, s1 * dth, a2, s2 * dth)
            if u > best and dd < 0.0:
                best = u; psi_b = th0 + t * dth
                cph_b, _, _ = _hermite(t, p1, q1 * dth, p2, q2 * dth)
    a1 = nd[k_hi - k_lo, 0]; p1 = nd[k_hi - k_lo, 2]
    th = k_hi * dth
    u = ebx * math.cos(th) + eby * math.sin(th) - a1
    if u > best:
        best = u; psi_b = th; cph_b = p1
    return best, (psi_b + math.pi) % TWO_PI - math.pi, cph_b


@njit(cache=True)
def _accumulate(ta, tb, th0, dth, c0_, s0_, ebx, eby, edx, edy, phd, a1, m1, a2, m2, p1, q1, p2, q2,
                cp, v_minus, scale, vrx, vry, wrel, fk, fp, z, tmp, res, bins):
    """Gauss-Legendre over ``[ta, tb]`` of one segment (u >= 0 there) into ``res``, and each
    point's normal force shared between the two nearest of the ``len(bins)`` nodes (none when
    empty); returns
    False when the friction law raised or returned a non-finite value."""
    ng = int(cp[P_NGAUSS])
    nbin = bins.shape[0]
    k = cp[P_K]; chi = cp[P_CHI]
    for g in range(ng):
        t = ta + (tb - ta) * _GL_X[ng, g]
        wgt = (tb - ta) * dth * _GL_W[ng, g] * scale
        ps = th0 + t * dth
        cx, sx = _cs(t * dth)
        cs = c0_ * cx - s0_ * sx; sn = s0_ * cx + c0_ * sx
        c, _, _ = _hermite(t, a1, m1, a2, m2)
        u = ebx * cs + eby * sn - c
        if u <= 0.0:
            continue
        cph, _, _ = _hermite(t, p1, q1, p2, q2)
        ud = edx * cs + edy * sn - cph * phd
        f = k * u * (1.0 + chi * ud / v_minus)
        if f <= 0.0:
            continue
        dF = f * wgt
        res[R_FBX] += dF * cs; res[R_FBY] += dF * sn
        res[R_TORQUE] += dF * cph
        res[R_PC] += dF * ud
        res[R_FNSUM] += dF
        if nbin > 0:   # shared linearly between the two nearest nodes: keeps the force and its moment
            ub = (ps % TWO_PI) * nbin / TWO_PI
            ib = int(ub)
            fb = ub - ib
            bins[ib % nbin] += dF * (1.0 - fb)
            bins[(ib + 1) % nbin] += dF * fb
        vt = -vrx * sn + vry * cs + wrel
        tmp[0] = 0.0; tmp[RAISED] = 0.0
        ft = fk(vt, dF, z, fp, tmp.ctypes)
        if tmp[RAISED] != 0.0 or not math.isfinite(ft):
            res[R_FT] = math.nan
            return False
        res[R_FT] += ft
        res[R_FTX] -= ft * sn; res[R_FTY] += ft * cs
        res[R_PF] -= ft * vt
    return True


@njit(cache=True)
def distributed_contact(row, cp, ebx, eby, edx, edy, phi_rel, phd, vrx, vry, wrel, dm, scale,
                        fk, fp, z, tmp, res, bins):
    """Resultants of the distributed contact of one joint into ``res`` (``R_*`` columns).

    ``row``: the joint's ``clr_f`` row (profiles); ``cp``: its contact row (``P_*`` columns);
    ``(ebx, eby)`` eccentricity [m] and ``(edx, edy)`` its rate [m/s] in the bushing frame;
    ``phi_rel`` [rad] and its rate ``phd`` [rad/s]; ``(vrx, vry)`` = velocity of the journal centre
    minus that of the bushing centre, bushing frame [m/s]; ``wrel = w_j R_j - w_b R_b`` [m/s];
    ``dm`` the impact speed [m/s]; ``scale = R_b b`` [m^2]; ``fk``/``fp``/``z`` the friction law.
    ``bins``: empty, or ``M_w`` floats that receive the normal force [N] shared linearly between
    the two nearest of ``M_w`` equally spaced bore nodes (the pressure the wear coupling samples).
    Returns False when the friction law failed (``res[R_FT]`` is then NaN)."""
    for i in range(N_RES):
        res[i] = 0.0
    v_minus = dm if dm > cp[P_VFLOOR] else cp[P_VFLOOR]
    M, c0, k_lo, k_hi, em, alpha, empty = _window(row, ebx, eby)
    if M == 0:
        res[R_DELTA] = em - c0; res[R_PSI] = alpha
        if em <= c0:
            return True
        eps = math.atan2(math.sqrt((em - c0) * (em + c0)), c0)
        npc = int(cp[P_PIECES])
        dth = 2.0 * eps / npc
        res[R_PATCHES] = 1.0
        for i in range(npc):
            th = alpha - eps + i * dth
            if not _accumulate(0.0, 1.0, th, dth, math.cos(th), math.sin(th), ebx, eby, edx, edy, phd, c0, 0.0,
                               c0, 0.0, 0.0, 0.0, 0.0, 0.0, cp, v_minus, scale, vrx, vry, wrel, fk, fp,
                               z, tmp, res, bins):
                return False
        return True
    if empty:
        res[R_DELTA] = em - (c0 + row[REV_DIST_FLOOR]); res[R_PSI] = alpha
        return True
    journal_worn = row[REV_HJ_MAX] > 0.0
    dth = TWO_PI / M
    crit = np.zeros(2)
    bp = np.zeros(4); ub = np.zeros(4)
    best = -1e300; psi_b = alpha
    n_up = 0; any_pos = False
    # segment screen: a segment whose overlap bound is <= 0 carries no pressure, and when it is also
    # below the largest nodal overlap it cannot hold the largest overlap either (the results are
    # those of evaluating every segment; on a worn bore the window spans ~40 segments, the patch
    # a few)
    nd, umax = nodes(row, M, k_lo, k_hi, phi_rel, c0, journal_worn, ebx, eby)
    cd = math.cos(dth); sd = math.sin(dth)
    skip_below = umax if umax < 0.0 else 0.0
    for i in range(k_hi - k_lo):
        if bound(nd, i, dth, cd, sd, em) <= skip_below:
            continue
        a1 = nd[i, 0]; s1 = nd[i, 1]; p1 = nd[i, 2]; q1 = nd[i, 3]
        a2 = nd[i + 1, 0]; s2 = nd[i + 1, 1]; p2 = nd[i + 1, 2]; q2 = nd[i + 1, 3]
        A = nd[i, 4]; B = nd[i, 5]; c0_ = nd[i, 6]; s0_ = nd[i, 7]
        th0 = (k_lo + i) * dth
        m1 = s1 * dth; m2 = s2 * dth; r1 = q1 * dth; r2 = q2 * dth
        nc = _critical(dth, A, B, a1, m1, a2, m2, crit)
        nb = 0
        bp[0] = 0.0; nb = 1
        for ic in range(nc):
            bp[nb] = crit[ic]; nb += 1
        bp[nb] = 1.0; nb += 1
        for ib in range(nb):
            ub[ib], _, _ = _u(bp[ib], dth, A, B, a1, m1, a2, m2)
            if ub[ib] > best and ib < nb - 1:
                best = ub[ib]; psi_b = th0 + bp[ib] * dth
        for ib in range(nb - 1):
            ta = bp[ib]; tb = bp[ib + 1]; ua = ub[ib]; uc = ub[ib + 1]
            if ua > 0.0 and uc > 0.0:
                lo = ta; hi = tb
            elif ua > 0.0 and uc <= 0.0:
                lo = ta; hi = _root(ta, tb, ua, dth, A, B, a1, m1, a2, m2)
            elif ua <= 0.0 and uc > 0.0:
                lo = _root(ta, tb, ua, dth, A, B, a1, m1, a2, m2); hi = tb
                n_up += 1
            else:
                continue
            any_pos = True
            if hi > lo and not _accumulate(lo, hi, th0, dth, c0_, s0_, ebx, eby, edx, edy, phd, a1, m1, a2, m2,
                                           p1, r1, p2, r2, cp, v_minus, scale, vrx, vry, wrel, fk,
                                           fp, z, tmp, res, bins):
                return False
    res[R_DELTA] = best
    res[R_PSI] = (psi_b + math.pi) % TWO_PI - math.pi
    res[R_PATCHES] = n_up if n_up > 0 else (1.0 if any_pos else 0.0)
    return True
