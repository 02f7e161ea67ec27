"""Distributed (elastic-foundation) contact of a revolute clearance joint over worn surfaces.

The point-contact route (:func:`.clearance.worn_penetration`) puts one force law at the largest
overlap.  Here every direction ``psi`` of the bore (bushing frame) carries the local overlap

    u(psi) = e_b . n(psi) - C(psi),   C = R_b - R_j + h_b(psi) + h_j(psi - phi_rel),

(``e_b`` the eccentricity in the bushing frame, ``phi_rel`` the journal angle minus the bushing
angle, both wear-depth profiles on their own body-fixed nodes) and a Winkler foundation pressure
(Wang & Liu (2015) §2.3.3 eq. 23)

    p(psi) = k u (1 + chi u_dot / delta_dot_minus)   where u > 0, clamped at p >= 0,

with the Lankarani & Nikravesh (1990) factor ``chi = 3 (1 - e^2) / 4`` applied to the LOCAL
approach rate ``u_dot`` of each foundation spring: every spring then dissipates
``k chi u u_dot^2 / delta_dot_minus >= 0`` (a global rate would push energy into springs whose
own overlap shrinks while the patch slides round the bore, e.g. a journal rolling in a worn
pocket); ``delta_dot_minus`` is the joint's impact speed, recorded by the integrator at the
contact start (the instant the first direction overlaps).  The resultant on the journal is
``-R_b b int p n dpsi`` (``b`` the joint length) and, as the overlap depends on ``phi_rel``
through the worn journal profile, a torque ``R_b b int p dC/dphi_rel dpsi`` about the journal
centre; together they are the exact generalised force of the potential
``V = (k/2) R_b b int u+^2 dpsi`` (applied to the journal at its centre and, reversed, to the
bushing body at the same point), so an undamped frictionless contact conserves energy.
Friction: the joint's (memoryless) law at every quadrature point with that point's normal force
and slip speed ``v_t = (v_Pj - v_Pb) . t + w_j R_j - w_b R_b``, acting at the two surfaces.

Smoothness for the event-located integrator: each profile is the periodic C2 cubic B-spline
quasi-interpolant of its nodes (:func:`control_points`: local, no system to solve, reproduces
cubics, so it differs from the nodal depths by O(dth^4)); over each
bushing segment the clearance is the cubic Hermite through the exact spline values and slopes
at the segment's ends (C1 in ``psi``, its nodal data C2 in ``phi_rel``).  The contact patches
(any number) are found segment by segment (:mod:`.distributed_segment`): the critical points and
roots of the cubic through the overlap's exact nodal values and slopes, which differs from ``u``
by at most ``|e| dth^4 / 384`` (each root then polished by one Newton step on ``u``); each run of
a segment where ``u > 0`` is integrated by Gauss-Legendre between its ends.  As ``u = 0`` at the
moving ends, the resultant is C1 in the state.  Contact starts where ``max u`` crosses 0
(:func:`distributed_gap`, used by the event detection).

Fast path: :func:`distributed_contact` (numba, called from :func:`.clearance.clearance_forces` through
:mod:`.distributed_joint`); one walk over the window's nodes (:mod:`.distributed_nodes`: each
control point once, the node angles by rotation, nothing stored) and a segment whose overlap bound
is <= 0 is not searched (the results are those of searching it).
Reference path: :func:`.distributed_reference.reference_contact` (numpy, a fine trapezoid grid
over the whole bore); ``tests/mbs/test_distributed_contact.py`` checks that they agree.
"""
from __future__ import annotations

import math

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .compiled import REV_DIST_FLOOR, REV_HB_MAX, REV_HJ_MAX, REV_NODES, REV_PROFILE
from .distributed_nodes import _cp, journal_basis as _journal_basis, node_step as _node_step
from .distributed_nodes import segment_bound as _segment_bound
from .distributed_segment import _cs, _hermite, _u, cubic, cubic_critical, cubic_max, cubic_root
from .kernels import RAISED

TWO_PI = 2.0 * math.pi
#: packed parameter columns (the joint's contact row, made by the law's ``pack``): foundation
#: modulus k [Pa/m], joint length b [m], hysteresis factor chi [1], impact-speed floor [m/s], Gauss
#: points per piece [1], pieces of the unworn arc [1] -- the plugin contract's layout
#: (:data:`workbench.models.DISTRIBUTED_SLOTS`), which a distributed-contact law packs first
from ..models import MAX_GAUSS, N_PARAM, P_CHI, P_K, P_LEN, P_NGAUSS, P_PIECES, P_VFLOOR  # noqa: E402,F401
#: factor on the bound ``|e| dth^4 / 384`` of the overlap's departure from its nodal cubic
#: (:mod:`.distributed_segment`): room for rounding, which is ~1e-19 m against the bound's ~1e-14 m
ERR_SAFETY = 1.01
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


# ------------------------------------------------------------------------------ profiles
def control_points(h) -> np.ndarray:
    """Control points of the periodic cubic B-spline quasi-interpolant of the nodal values ``h``:
    ``c_k = (8 h_k - h_(k-1) - h_(k+1)) / 6`` (de Boor (2001) ch. XII; it reproduces cubics, so the
    spline differs from the nodal values by O(dth^4) times the fourth derivative)."""
    h = np.asarray(h, float)
    return (8.0 * h - np.roll(h, 1) - np.roll(h, -1)) / 6.0


def seen_profiles(contact, h_bushing, h_journal):
    """The wear-depth profiles [m] the distributed contact ``contact`` sees: the nodal depths
    themselves, or, when the law asks for it (``smooth_profile``), each averaged over the point
    contact's window (:data:`.clearance.PROFILE_SMOOTHING`, :func:`.clearance._smoothing_half_width`
    nodes either side): an elastic contact presses waviness shorter than its width flat
    (Westergaard (1939); Johnson (1985) §13.1), which a Winkler foundation, having no coupling
    between its springs, cannot do by itself.  Used by the compiled mechanism and by the wear
    coupling, so the dynamics and the pressure the wear law integrates see one surface."""
    hb = np.asarray(h_bushing, float); hj = np.asarray(h_journal, float)
    if not getattr(getattr(contact, "params", None), "smooth_profile", False):
        return hb, hj
    from .clearance import _smoothing_half_width   # lazily: clearance imports this module
    return moving_average(hb, _smoothing_half_width(len(hb))), moving_average(hj, _smoothing_half_width(len(hj)))


def moving_average(h, m: int) -> np.ndarray:
    """Periodic moving average of ``h`` over the ``2 m + 1`` nodes ``k - m .. k + m``."""
    h = np.asarray(h, float)
    if m <= 0 or not np.any(h):
        return h.copy()
    c = np.concatenate([[0.0], np.cumsum(np.concatenate([h[-m:], h, h[:m]]))])
    return (c[2 * m + 1:] - c[:-(2 * m + 1)]) / (2 * m + 1)


def clearance_floor(h_bushing, h_journal) -> float:
    """Lower bound [m] of the interpolated clearance increase over the bore (``clr_f`` column
    ``REV_DIST_FLOOR``): below ``c0`` plus this no direction can overlap.  The B-spline lies above
    its smallest control point; the Hermite cubic of a segment dips at most ``(4/27) dth (|s1| +
    |s2|)`` below its smaller end, with the slopes ``|S'| <= max|control difference| / dth``."""
    hb = np.asarray(h_bushing, float); hj = np.asarray(h_journal, float)
    if not (np.any(hb) or np.any(hj)):
        return 0.0
    cb, cj = control_points(hb), control_points(hj)
    d = np.abs(np.roll(cb, -1) - cb).max() + np.abs(np.roll(cj, -1) - cj).max()
    return float(min(cb.min() + cj.min() - (8.0 / 27.0) * d, 0.0))


# ------------------------------------------------------------------------------ compiled
@njit(cache=True, inline="always")
def _ctrl(row, off, M, i):
    """Control point ``i`` (any integer) of the quasi-interpolant of ``row[off:off + M]``."""
    im = i % M
    a = row[off + (im - 1) % M]; b = row[off + im]; c = row[off + (im + 1) % M]
    return (8.0 * b - a - c) / 6.0


@njit(cache=True)
def _spline(row, M, off, x):
    """Value, slope and curvature of the periodic quasi-interpolating B-spline of
    ``row[off:off + M]`` at ``x`` [rad] (:func:`.distributed_reference.spline_values`)."""
    h = TWO_PI / M
    u = (x % TWO_PI) / h
    i = int(u)
    if i >= M:
        i = M - 1
    t = u - i
    cm = _ctrl(row, off, M, i - 1); c0 = _ctrl(row, off, M, i)
    c1 = _ctrl(row, off, M, i + 1); c2 = _ctrl(row, off, M, i + 2)
    s = 1.0 - t
    t2 = t * t; t3 = t2 * t
    v = (s * s * s * cm + (3 * t3 - 6 * t2 + 4) * c0 + (-3 * t3 + 3 * t2 + 3 * t + 1) * c1 + t3 * c2) / 6.0
    d = (-3 * s * s * cm + (9 * t2 - 12 * t) * c0 + (-9 * t2 + 6 * t + 3) * c1 + 3 * t2 * c2) / (6.0 * h)
    dd = (6 * s * cm + (18 * t - 12) * c0 + (-18 * t + 6) * c1 + 6 * t * c2) / (6.0 * h * h)
    return v, d, dd


@njit(cache=True)
def _node(row, M, k, phi_rel, c0, journal_worn):
    """Clearance data at bushing node ``k`` (any integer): ``(C, dC/dpsi, dC/dphi_rel,
    d(dC/dpsi)/dphi_rel)``."""
    h = TWO_PI / M
    cm = _ctrl(row, REV_PROFILE, M, k - 1); cc = _ctrl(row, REV_PROFILE, M, k)
    cq = _ctrl(row, REV_PROFILE, M, k + 1)
    c = c0 + (cm + 4.0 * cc + cq) / 6.0
    s = (cq - cm) / (2.0 * h)
    cph = 0.0; sph = 0.0
    if journal_worn:
        v, d, dd = _spline(row, M, REV_PROFILE + M, (k % M) * h - phi_rel)
        c += v; s += d; cph = -d; sph = -dd
    return c, s, cph, sph


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
    best = -1e300; psi_b = alpha; cph_b = 0.0
    # one walk over the window's nodes (distributed_nodes); a segment whose overlap bound is below
    # the largest overlap found so far cannot hold the maximum and is not searched
    err = ERR_SAFETY * em * dth ** 4 / 384.0   # |u - p| (distributed_segment)
    i0, w, jm, jc, jn = _journal_basis(row, M, k_lo, phi_rel, journal_worn)
    bm = _cp(row, REV_PROFILE, M, k_lo - 1); bc = _cp(row, REV_PROFILE, M, k_lo)
    cd = math.cos(dth); sd = math.sin(dth)
    co = math.cos(k_lo * dth); si = math.sin(k_lo * dth)
    a1, s1, p1, q1, bm, bc, jm, jc, jn = _node_step(row, M, k_lo, 0, c0, journal_worn, i0, w, bm, bc, jm, jc, jn)
    A1 = ebx * co + eby * si; B1 = eby * co - ebx * si
    for i in range(k_hi - k_lo):
        co, si = co * cd - si * sd, si * cd + co * sd
        a2, s2, p2, q2, bm, bc, jm, jc, jn = _node_step(row, M, k_lo + i + 1, i + 1, c0, journal_worn, i0,
                                                        w, bm, bc, jm, jc, jn)
        A2 = ebx * co + eby * si; B2 = eby * co - ebx * si
        th0 = (k_lo + i) * dth
        u0 = A1 - a1
        if u0 > best:
            best = u0; psi_b = th0; cph_b = p1
        u2 = A2 - a2   # the next node's overlap: the segment's maximum must beat it too
        if _segment_bound(a1, s1, A1, B1, a2, s2, A2, B2, dth, em) > max(best, u2):
            m1 = s1 * dth; m2 = s2 * dth
            d0 = dth * B1 - m1
            c2, c3 = cubic(u0, d0, u2, dth * B2 - m2)
            nc, t1, t2 = cubic_critical(d0, c2, c3)
            if nc > 0 and cubic_max(u0, d0, c2, c3, u2, nc, t1, t2) + err > max(best, u2):
                for ic in range(nc):
                    t = t1 if ic == 0 else t2
                    u, d, dd = _u(t, dth, A1, B1, a1, m1, a2, m2)
                    if u > best and dd < 0.0:
                        best = u; psi_b = th0 + t * dth
                        cph_b, _, _ = _hermite(t, p1, q1 * dth, p2, q2 * dth)
        a1 = a2; s1 = s2; p1 = p2; q1 = q2; A1 = A2; B1 = B2
    if A1 - a1 > best:
        best = A1 - a1; psi_b = k_hi * dth; cph_b = p1
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
    best = -1e300; psi_b = alpha
    n_up = 0; any_pos = False
    # one walk over the window's nodes (distributed_nodes, no stored node table); a segment whose
    # overlap bound is <= 0 carries no pressure and is not searched (on a worn bore the window
    # spans ~40 segments, the patch a few)
    err = ERR_SAFETY * em * dth ** 4 / 384.0   # |u - p| (distributed_segment)
    i0, w, jm, jc, jn = _journal_basis(row, M, k_lo, phi_rel, journal_worn)
    bm = _cp(row, REV_PROFILE, M, k_lo - 1); bc = _cp(row, REV_PROFILE, M, k_lo)
    cd = math.cos(dth); sd = math.sin(dth)
    co = math.cos(k_lo * dth); si = math.sin(k_lo * dth)
    a1, s1, p1, q1, bm, bc, jm, jc, jn = _node_step(row, M, k_lo, 0, c0, journal_worn, i0, w, bm, bc, jm, jc, jn)
    A1 = ebx * co + eby * si; B1 = eby * co - ebx * si
    for i in range(k_hi - k_lo):
        co2 = co * cd - si * sd; si2 = si * cd + co * sd
        a2, s2, p2, q2, bm, bc, jm, jc, jn = _node_step(row, M, k_lo + i + 1, i + 1, c0, journal_worn, i0,
                                                        w, bm, bc, jm, jc, jn)
        A2 = ebx * co2 + eby * si2; B2 = eby * co2 - ebx * si2
        if _segment_bound(a1, s1, A1, B1, a2, s2, A2, B2, dth, em) > 0.0:
            th0 = (k_lo + i) * dth
            m1 = s1 * dth; m2 = s2 * dth; r1 = q1 * dth; r2 = q2 * dth
            u1 = A1 - a1; u2 = A2 - a2; d0 = dth * B1 - m1
            c2, c3 = cubic(u1, d0, u2, dth * B2 - m2)
            nc, t1, t2 = cubic_critical(d0, c2, c3)
            if cubic_max(u1, d0, c2, c3, u2, nc, t1, t2) + err > 0.0:
                # pieces between the breakpoints 0, the critical points, 1 (p monotone on each): the
                # roots end the runs where u > 0, each run one Gauss-Legendre interval (u is smooth
                # inside a segment, the kinks of u+ are at the roots)
                ta = 0.0; ua = u1; lo = 0.0
                for ib in range(nc + 1):
                    if ib == nc:
                        tb = 1.0; uc = u2
                    else:
                        tb = t1 if ib == 0 else t2
                        uc, _, _ = _u(tb, dth, A1, B1, a1, m1, a2, m2)
                    if ua > best:
                        best = ua; psi_b = th0 + ta * dth
                    hi = -1.0
                    if ua > 0.0 and uc <= 0.0:
                        hi = cubic_root(ta, tb, ua, uc, u1, d0, c2, c3, dth, A1, B1, a1, m1, a2, m2)
                    elif ua <= 0.0 and uc > 0.0:
                        lo = cubic_root(ta, tb, ua, uc, u1, d0, c2, c3, dth, A1, B1, a1, m1, a2, m2)
                        n_up += 1
                        if ib == nc:
                            hi = 1.0
                    elif ua > 0.0 and ib == nc:
                        hi = 1.0
                    if ua > 0.0 or uc > 0.0:
                        any_pos = True
                    if hi > lo and not _accumulate(lo, hi, th0, dth, co, si, ebx, eby, edx, edy, phd, a1, m1,
                                                   a2, m2, p1, r1, p2, r2, cp, v_minus, scale, vrx, vry,
                                                   wrel, fk, fp, z, tmp, res, bins):
                        return False
                    ta = tb; ua = uc
        a1 = a2; s1 = s2; p1 = p2; q1 = q2; A1 = A2; B1 = B2; co = co2; si = si2
    if any_pos:
        res[R_DELTA] = best
        res[R_PSI] = (psi_b + math.pi) % TWO_PI - math.pi
    else:   # the largest overlap (negative): the search of distributed_gap, another walk
        res[R_DELTA], res[R_PSI], _ = distributed_gap(row, ebx, eby, phi_rel)
    res[R_PATCHES] = n_up if n_up > 0 else (1.0 if any_pos else 0.0)
    return True
