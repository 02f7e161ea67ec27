"""Clearance joints, compiled: contact kinematics and forces.

Revolute clearance joint (Wang & Liu (2015) eq. 1-8, 26-31; Wang, Chen, Ma & Sun (2016) eqs. 1-9): eccentricity
``e = P_journal - P_bushing``, ``n = e/|e|``, penetration ``delta = |e| - c``, contact points
``Q_k = P_k + R_k n``, ``v_N = (v_Qj - v_Qi).n`` (= d delta/dt), ``v_T = (v_Qj - v_Qi).t``,
``t = (-n_y, n_x)``.  Translational clearance joint (Wang, Chen, Ma & Sun (2016) eqs. 18-31): the four corners of the
slider against the two guide faces ``+-H/2`` from the guide centre line.

Worn revolute joints (Wang & Liu (2015) §4 steps 7-8): the bushing and journal profiles are sampled on
``M`` body-fixed nodes (wear depths ``h_b``, ``h_j`` in the columns after ``REV_PROFILE`` of
``clr_f``, see :mod:`.compiled`).  The radial clearance seen in bushing-frame direction ``psi`` is
``c(psi) = R_b - R_j + h_b(psi) + h_j(psi - phi_rel)`` (``phi_rel`` = journal angle minus bushing
angle), the periodic cubic B-spline whose control points are its values at the bushing nodes (de Boor
(1978) ch. IX): C2, so the contact normal turns smoothly as the contact crosses the nodes, and a
convex combination of the nodal values, so it never dips below them; it departs from the nodal
values by ``h^2 c''/6`` (``h`` the node spacing), far below the wear depths.  The control points are
the nodal clearances averaged over :data:`PROFILE_SMOOTHING` (8 deg) of arc: a point contact stands
for an elastic contact some degrees wide, which presses waviness shorter than itself flat (a wave
of amplitude ``D`` and wavelength ``L`` is in full contact above the mean pressure
``pi E* D / L``, Westergaard (1939); Johnson (1985) §13.1: 0.5 GPa for the 1 um, 4 deg ripple that
the statistical noise of a wear update leaves on the 10 mm steel joint of the wear study, whose
Hertz pressures reach 0.7-0.8 GPa).  Without the averaging, such a ripple, whose ``d^2c/dpsi^2``
exceeds ``|e|``, splits the overlap into competing maxima and the contact point jumps between
them.  The average moves a smooth scar by ``c'' w^2/6`` (``w`` its half-width, 4 deg): 0.2 % of
the depth of the wear study's scar.  The penetration is
the largest overlap over all directions, ``delta = max_psi [e . n(psi) - c(psi)]``, searched over every
segment that can hold it (nodes, and Newton inside segments where the slope changes sign);
the contact sits at the maximiser ``psi*`` and the normal is ``n(psi*)``, which is the gradient of
``delta`` with respect to the eccentricity (envelope theorem), so the force direction is
consistent with the penetration.  Without wear this is ``delta = |e| - c`` exactly.
"""
from __future__ import annotations

import math

from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .compiled import CL_FRICTION_BOUND, CL_REV, REV_HB_MAX, REV_HJ_MAX, REV_NODES, REV_PROFILE
from .compiled import REV_DISTRIBUTED
from .distributed_joint import joint_forces as _distributed_forces, joint_gap as _distributed_gap
from .kernels import LUB_FA, LUB_FAT, LUB_FNT, LUB_FY, LUB_TJ, RAISED
from .kinematics import apply_force, material_velocity, point_position, rotate
from .slider_guide import corner

# clearance-joint record columns.  ``C_FN``/``C_FT``: the solid contact's normal and friction force
# (the contact law's and, for a lubricated joint in mixed lubrication, the asperities' part of the
# lubrication model: what the wear law acts on); ``C_FILM``: the magnitude [N] of the film's force
# on the journal (the lubrication model's force less its asperity part), 0 without lubrication
C_FN, C_FT, C_PEN, C_EX, C_EY, C_VT, C_VN, C_PSI, C_PHI, C_FILM = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
N_CREC = 10
TWO_PI = 2.0 * math.pi

# model-output checks: a fault is reported as joint * N_FAULT + cause
FAULT_CONTACT_NONFINITE, FAULT_CONTACT_RAISED, FAULT_CONTACT_TENSILE = 0, 1, 2
FAULT_FRICTION_NONFINITE, FAULT_FRICTION_RAISED, FAULT_FRICTION_BOUND = 3, 4, 5
#: the lubrication model of the joint raised or returned a non-finite force or moment
FAULT_LUBRICATION = 6
N_FAULT = 8
#: full width [rad] of the moving average that the worn-profile control points take over the
#: nodes (module docstring): about the Hertz contact width of a loaded kilonewton journal joint,
#: so that waviness shorter than the contact, which the contact presses flat, is not seen
PROFILE_SMOOTHING = math.radians(8.0)
#: slack of the friction bound |f_t| <= mu_max f_n (rounding of the law's own arithmetic)
FRICTION_BOUND_SLACK = 1e-9


@njit(cache=True)
def _contact_fault(fn, out):
    """Cause code of a bad contact-force output, -1 when ``fn`` is finite and >= 0."""
    if out[RAISED] != 0.0:
        return FAULT_CONTACT_RAISED
    if not math.isfinite(fn):
        return FAULT_CONTACT_NONFINITE
    if fn < 0.0:
        return FAULT_CONTACT_TENSILE
    return -1


@njit(cache=True)
def _friction_fault(ft, zdot, fn, bound, out):
    """Cause code of a bad friction output, -1 when finite and ``|ft| <= bound fn`` (``bound``:
    the law's largest friction coefficient, inf when the law has none, e.g. LuGre's damping)."""
    if out[RAISED] != 0.0:
        return FAULT_FRICTION_RAISED
    if not (math.isfinite(ft) and math.isfinite(zdot)):
        return FAULT_FRICTION_NONFINITE
    if abs(ft) > bound * fn * (1.0 + FRICTION_BOUND_SLACK) + 1e-300:
        return FAULT_FRICTION_BOUND
    return -1


@njit(cache=True)
def _journal_depth(row, M, theta):
    """Journal wear depth [m] at journal-frame angle ``theta`` (linear between nodes)."""
    u = (theta % TWO_PI) * M / TWO_PI
    i = int(u)
    f = u - i
    i = i % M
    return row[REV_PROFILE + M + i] * (1.0 - f) + row[REV_PROFILE + M + (i + 1) % M] * f


@njit(cache=True)
def _worn_clearance(row, M, k, phi_rel, c0, journal_worn):
    """Nodal clearance [m] at bushing node ``k`` (any integer, taken modulo ``M``): the control
    point of the clearance spline there."""
    km = k % M
    c = c0 + row[REV_PROFILE + km]
    if journal_worn:
        c += _journal_depth(row, M, km * TWO_PI / M - phi_rel)
    return c


@njit(cache=True)
def _bspline(p0, p1, p2, p3):
    """Coefficients ``(a, b1, b2, b3)`` of the uniform cubic B-spline segment with control points
    ``p0..p3`` as the cubic ``a + b1 t + b2 t^2 + b3 t^3`` on ``t in [0, 1]`` (de Boor (1978)
    ch. IX).  Written so that equal control points give exactly ``(p1, 0, 0, 0)``."""
    d2 = (p0 - p1) + (p2 - p1)
    return p1 + d2 / 6.0, 0.5 * (p2 - p0), 0.5 * d2, ((p3 - p0) + 3.0 * (p1 - p2)) / 6.0


@njit(cache=True)
def _smoothing_half_width(M):
    """Half-width ``m`` [nodes] of the moving average over :data:`PROFILE_SMOOTHING` on ``M`` nodes."""
    return int(round(0.5 * PROFILE_SMOOTHING * M / TWO_PI))


@njit(cache=True)
def _window_sum(row, M, k, m, phi_rel, journal_worn):
    """Sum [m] of the nodal wear (bushing + journal) over the ``2 m + 1`` nodes ``k - m .. k + m``;
    the control point of the clearance spline at node ``k`` is ``c0`` plus its mean."""
    s = 0.0
    for i in range(k - m, k + m + 1):
        s += _worn_clearance(row, M, i, phi_rel, 0.0, journal_worn)
    return s


@njit(cache=True)
def _bushing_sum(row, M, k, m):
    """Sum [m] of the bushing depths over the nodes ``k - m .. k + m``."""
    s = 0.0
    for r in range(k - m, k + m + 1):
        s += row[REV_PROFILE + r % M]
    return s


@njit(cache=True)
def _bushing_at(row, M, m, psi):
    """The bushing's part [m] of the clearance spline at angle ``psi`` [rad]."""
    u = (psi % TWO_PI) * M / TWO_PI
    i = int(u)
    t = u - i
    nw = 2 * m + 1
    a, b1, b2, b3 = _bspline(_bushing_sum(row, M, i - 1, m) / nw, _bushing_sum(row, M, i, m) / nw,
                             _bushing_sum(row, M, i + 1, m) / nw, _bushing_sum(row, M, i + 2, m) / nw)
    return a + t * (b1 + t * (b2 + t * b3))


@njit(cache=True)
def worn_penetration(row, ebx, eby, phi_rel):
    """Penetration of a revolute clearance joint with worn profiles.

    ``(ebx, eby)`` is the eccentricity [m] in the bushing frame, ``phi_rel`` [rad] the journal
    angle minus the bushing angle.  Returns ``(delta [m], psi [rad], h_b [m], h_j [m])``: the
    largest overlap, its bushing-frame direction and the two wear depths there.

    The clearance curve is the periodic cubic B-spline whose control points are the nodal
    clearances (module docstring): C2, so the maximiser ``psi*`` moves smoothly with the
    eccentricity and the contact normal has no kinks where it crosses a node (a C1 curve has
    jumps of curvature there, which made the step-size control reject about two steps per
    accepted one on worn surfaces); and a convex combination of the nodal values, so it never
    dips below the smallest of them (wear never makes the joint tighter).
    """
    c0 = row[4] - row[5]
    em = math.sqrt(ebx * ebx + eby * eby)
    alpha = math.atan2(eby, ebx) if em > 1e-300 else 0.0
    M = int(row[REV_NODES])
    hb_max = row[REV_HB_MAX]; hj_max = row[REV_HJ_MAX]
    if M == 0 or hb_max + hj_max <= 0.0:
        return em - c0, alpha, 0.0, 0.0
    journal_worn = hj_max > 0.0
    dth = TWO_PI / M
    # coarse search over the nodes: outside |psi - alpha| > w no direction can beat the one along
    # e, since em cos w - c0 <= em - c0 - hmax (the spline lies in [c0, c0 + hmax])
    ratio = 1.0 - (hb_max + hj_max) / em if em > 1e-300 else -2.0
    w = math.acos(ratio) if ratio > -1.0 else math.pi
    k_lo = int(math.floor((alpha - w) / dth)) - 1
    k_hi = int(math.ceil((alpha + w) / dth)) + 1
    if k_hi - k_lo >= M:
        k_lo = 0; k_hi = M
    # every segment of the window: its start node, and a maximum of f = e.n - c inside any
    # segment where f' changes sign from + to -
    best = -1e300; psi_best = alpha; c_best = c0
    m = _smoothing_half_width(M)
    nw = 2 * m + 1
    a0 = c0 + _window_sum(row, M, k_lo - 1, m, phi_rel, journal_worn) / nw
    a1 = c0 + _window_sum(row, M, k_lo, m, phi_rel, journal_worn) / nw
    ssum = _window_sum(row, M, k_lo + 1, m, phi_rel, journal_worn)
    a2 = c0 + ssum / nw
    for k in range(k_lo, k_hi):
        if m == 0:
            a3 = _worn_clearance(row, M, k + 2, phi_rel, c0, journal_worn)
        else:                     # slide the window: add node k + 2 + m, drop node k + 1 - m
            ssum += (_worn_clearance(row, M, k + 2 + m, phi_rel, 0.0, journal_worn)
                     - _worn_clearance(row, M, k + 1 - m, phi_rel, 0.0, journal_worn))
            a3 = c0 + ssum / nw
        # the spline segment c(t) = cs + b1 t + b2 t^2 + b3 t^3 on t in [0, 1]
        cs, b1, b2, b3 = _bspline(a0, a1, a2, a3)
        th0 = k * dth
        f = em * math.cos(th0 - alpha) - cs
        if f > best:
            best = f; psi_best = th0; c_best = cs
        # f'(t) (per rad) is, to O(em dth^3), the quadratic A + B t + C t^2: its + to - roots in
        # [0, 1] are the interior maxima (a segment may hold one even when f' > 0 at both ends)
        s0 = math.sin(th0 - alpha); k0 = math.cos(th0 - alpha)
        A = -em * s0 - b1 / dth
        B = -em * k0 * dth - 2.0 * b2 / dth
        C = 0.5 * em * s0 * dth * dth - 3.0 * b3 / dth
        n_r = 0
        r1 = -1.0; r2 = -1.0
        if abs(C) > 1e-30 * (abs(A) + abs(B) + 1e-300):
            disc = B * B - 4.0 * A * C
            if disc >= 0.0:
                sq = math.sqrt(disc)
                q = -0.5 * (B + (sq if B >= 0.0 else -sq))
                x1 = q / C
                x2 = A / q if q != 0.0 else x1
                r1 = min(x1, x2); r2 = max(x1, x2); n_r = 2
        elif B != 0.0:
            r1 = -A / B; n_r = 1
        for ir in range(n_r):
            t = r1 if ir == 0 else r2
            if not (0.0 <= t <= 1.0) or 2.0 * C * t + B >= 0.0:   # not a + to - crossing
                continue
            for _ in range(8):       # Newton on the exact f'
                ps = th0 + t * dth
                d = -em * math.sin(ps - alpha) - (b1 + 2.0 * b2 * t + 3.0 * b3 * t * t) / dth
                dd = -em * math.cos(ps - alpha) * dth - (2.0 * b2 + 6.0 * b3 * t) / dth
                if dd >= 0.0:
                    break
                tn = min(max(t - d / dd, 0.0), 1.0)
                if abs(tn - t) < 1e-15:
                    t = tn
                    break
                t = tn
            ps = th0 + t * dth
            c = cs + t * (b1 + t * (b2 + t * b3))
            f = em * math.cos(ps - alpha) - c
            if f > best:
                best = f; psi_best = ps; c_best = c
        a0 = a1; a1 = a2; a2 = a3
    cs = _bspline(a0, a1, a2, a2)[0]     # the curve at node k_hi (p3 does not enter it)
    f = em * math.cos(k_hi * dth - alpha) - cs
    if f > best:
        best = f; psi_best = k_hi * dth; c_best = cs
    # split the clearance increase at psi* into the bushing and journal parts (the spline is
    # linear in its control points: the bushing part is the spline of the bushing depths)
    if not journal_worn:
        return best, (psi_best + math.pi) % TWO_PI - math.pi, c_best - c0, 0.0
    hb = _bushing_at(row, M, m, psi_best)
    hj = c_best - c0 - hb
    return best, (psi_best + math.pi) % TWO_PI - math.pi, hb, hj




@njit(cache=True)
def film_forces(q, qd, bi, bj, cb, sb, Pjx, Pjy, ebx, eby, lk, lp, Q, tmp):
    """Add the lubrication model's force and moment of one revolute clearance joint to ``Q``.

    The kernel (:class:`workbench.models.LubricationModel`) gets the bushing-frame eccentricity
    ``(ebx, eby)``, its rate seen from the bushing (the velocity of the journal centre relative to
    the bushing's material point there, turned into the bushing frame) and ``omega_j - omega_b``;
    its force acts on the journal at the journal centre and, opposite, on the bushing at the same
    point; its moment on the journal and, opposite, on the bushing.  Returns ``(dissipation [W],
    ok, film [N], f_n [N], f_ta [N], p_asp [W])``: the power the model takes from the relative
    motion, ``-(F . v_rel + t_j omega_rel)``, less the part ``p_asp`` the asperities' normal load
    absorbs (``f_na (u_e . v_rel) - f_nt (u_t . v_rel)``, both components of the asperity
    pressure's resultant: elastic storage, returned when they unload, so it belongs with the
    contact's books, not with the dissipation); the magnitude of the film's force (the model's
    force less its asperity part); the magnitude ``|(f_na, f_nt)|`` of the asperity pressure's
    resultant (its load) and the asperities' friction force (along the line of centres turned +90
    deg), all 0 for a model without asperities (``jit.LUB_FA``, ``jit.LUB_FAT``, ``jit.LUB_FNT``)."""
    vjx, vjy = material_velocity(q, qd, bj, Pjx, Pjy)
    vbx, vby = material_velocity(q, qd, bi, Pjx, Pjy)
    dvx = vjx - vbx; dvy = vjy - vby
    wrel = (qd[3 * bj + 2] if bj >= 0 else 0.0) - (qd[3 * bi + 2] if bi >= 0 else 0.0)
    tmp[LUB_FY] = 0.0; tmp[LUB_TJ] = 0.0; tmp[RAISED] = 0.0; tmp[LUB_FA] = 0.0; tmp[LUB_FAT] = 0.0
    tmp[LUB_FNT] = 0.0
    flx = lk(ebx, eby, cb * dvx + sb * dvy, -sb * dvx + cb * dvy, wrel, lp.ctypes, tmp.ctypes)
    fly = tmp[LUB_FY]; tj = tmp[LUB_TJ]; fa = tmp[LUB_FA]; fat = tmp[LUB_FAT]; fnt = tmp[LUB_FNT]
    if tmp[RAISED] != 0.0 or not (math.isfinite(flx) and math.isfinite(fly) and math.isfinite(tj)
                                  and math.isfinite(fa) and math.isfinite(fat)
                                  and math.isfinite(fnt)) or fa < 0.0:
        return 0.0, False, 0.0, 0.0, 0.0, 0.0
    fx = cb * flx - sb * fly; fy = sb * flx + cb * fly
    apply_force(Q, q, bj, Pjx, Pjy, fx, fy)
    apply_force(Q, q, bi, Pjx, Pjy, -fx, -fy)
    if bj >= 0:
        Q[3 * bj + 2] += tj
    if bi >= 0:
        Q[3 * bi + 2] -= tj
    # the film's part: the model's force (bushing frame) less the asperities' -fa u_e + (fat + fnt) u_t
    em = math.sqrt(ebx * ebx + eby * eby)
    uex = ebx / em if em > 0.0 else 1.0
    uey = eby / em if em > 0.0 else 0.0
    gx = flx + fa * uex + (fat + fnt) * uey
    gy = fly + fa * uey - (fat + fnt) * uex
    # the asperities' normal power, bushing frame: (f_na u_e - f_nt u_t) . v_rel (v_rel turned into
    # that frame); the asperities' friction f_ta stays with the dissipation
    vbx_ = cb * dvx + sb * dvy; vby_ = -sb * dvx + cb * dvy
    p_asp = fa * (uex * vbx_ + uey * vby_) - fnt * (-uey * vbx_ + uex * vby_)
    return (-(fx * dvx + fy * dvy + tj * wrel) - p_asp, True, math.sqrt(gx * gx + gy * gy),
            math.sqrt(fa * fa + fnt * fnt), fat, p_asp)


@njit(cache=True)
def clearance_forces(q, qd, z, dm, Q, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z, rec, tmp):
    """:func:`clearance_forces_lubricated` without lubrication (the flexible solver's proxies,
    which compile it for their 15 argument types): the film branch is compiled away."""
    return clearance_forces_lubricated(q, qd, z, dm, Q, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar,
                                       has_z, rec, tmp, None, None, None)


@njit(cache=True)
def clearance_forces_lubricated(q, qd, z, dm, Q, zdot, clr_i, clr_f, ckern, fkern, cpar, fpar, has_z, rec,
                                tmp, lflag, lkern, lpar, dist=True):
    """Add clearance-joint contact and friction forces to ``Q``; fill ``zdot`` and ``rec``.

    Returns ``(contact_power, friction_power, fault)``: the rate of work absorbed by the
    normal contact forces [W] (lubricated joints: the asperities' normal load too), the friction
    dissipation rate [W] (lubricated joints: the film's dissipation and the asperities' friction
    too, :func:`film_forces`) and ``-1`` when all is well, else
    ``joint * N_FAULT + cause`` for the first model output that failed its check (``FAULT_*``;
    the remaining joints are then not evaluated).  ``tmp`` holds ``kernels.N_OUT`` floats.
    ``lflag``/``lkern``/``lpar``: the lubrication of each joint (:data:`.compiled.Model`); all
    three None (:func:`clearance_forces`): no joint is lubricated and the branch is compiled away.
    ``dist`` None: no joint has a distributed contact law, and that branch is compiled away too
    (:func:`.compiled.features`).
    """
    pc = 0.0; pf = 0.0; bad = -1
    for j in range(clr_i.shape[0]):
        typ = clr_i[j, 0]; bi = clr_i[j, 1]; bj = clr_i[j, 2]; p0 = clr_i[j, 3]
        rec[j, :] = 0.0
        cp = cpar[j].ctypes
        fp = fpar[j].ctypes
        if typ == CL_REV:
            phb = q[3 * bi + 2] if bi >= 0 else 0.0
            phj = q[3 * bj + 2] if bj >= 0 else 0.0
            cb = math.cos(phb); sb = math.sin(phb)
            cj_ = math.cos(phj); sj_ = math.sin(phj)
            Pbx = clr_f[j, 0]; Pby = clr_f[j, 1]
            if bi >= 0:   # point_position with the bushing's cos/sin computed once
                Pbx = q[3 * bi] + cb * clr_f[j, 0] - sb * clr_f[j, 1]
                Pby = q[3 * bi + 1] + sb * clr_f[j, 0] + cb * clr_f[j, 1]
            Pjx = clr_f[j, 2]; Pjy = clr_f[j, 3]
            if bj >= 0:
                Pjx = q[3 * bj] + cj_ * clr_f[j, 2] - sj_ * clr_f[j, 3]
                Pjy = q[3 * bj + 1] + sj_ * clr_f[j, 2] + cj_ * clr_f[j, 3]
            if dist is not None and clr_f[j, REV_DISTRIBUTED] > 0.0:
                tmp[0] = 0.0; tmp[RAISED] = 0.0
                pcd, pfd, fsum, ok = _distributed_forces(q, qd, bi, bj, clr_f[j], cpar[j], phb, phj, Pbx, Pby,
                                                         Pjx, Pjy, dm[p0], fkern[j], fp, z[p0], Q, tmp, rec[j])
                zdot[p0] = 0.0
                cause = _contact_fault(rec[j, C_FN], tmp) if ok else -1
                if cause >= 0:
                    return pc, pf, j * N_FAULT + cause
                if not ok:
                    tmp[RAISED] = 1.0
                cause = _friction_fault(rec[j, C_FT], 0.0, fsum, clr_f[j, CL_FRICTION_BOUND], tmp)
                if cause >= 0:
                    return pc, pf, j * N_FAULT + cause
                pc += pcd; pf += pfd
                continue
            Rb = clr_f[j, 4]; Rj = clr_f[j, 5]
            ex = Pjx - Pbx; ey = Pjy - Pby
            ebx = cb * ex + sb * ey; eby = -sb * ex + cb * ey
            film = 0.0; fna = 0.0; fta = 0.0
            if lflag is not None:   # lubrication: the film acts in and out of contact
                if lflag[j] != 0:
                    pfl, ok, film, fna, fta, pca = film_forces(q, qd, bi, bj, cb, sb, Pjx, Pjy, ebx, eby,
                                                               lkern[j], lpar[j], Q, tmp)
                    if not ok:
                        return pc, pf, j * N_FAULT + FAULT_LUBRICATION
                    pf += pfl   # film shear and squeeze, asperity friction: dissipated
                    pc += pca   # the asperities' normal load: stored and returned, as a contact's
            delta, psi, hb, hj = worn_penetration(clr_f[j], ebx, eby, phj - phb)
            em = math.sqrt(ebx * ebx + eby * eby)
            if hb == 0.0 and hj == 0.0 and em > 1e-300 and clr_f[j, REV_HB_MAX] + clr_f[j, REV_HJ_MAX] <= 0.0:
                cp_ = ebx / em; sp_ = eby / em   # unworn: the contact is along the eccentricity
            else:
                cp_ = math.cos(psi); sp_ = math.sin(psi)
            nx = cb * cp_ - sb * sp_; ny = sb * cp_ + cb * sp_
            qbx = Pbx + (Rb + hb) * nx; qby = Pby + (Rb + hb) * ny
            qjx = Pjx + (Rj - hj) * nx; qjy = Pjy + (Rj - hj) * ny
            vbx, vby = material_velocity(q, qd, bi, qbx, qby)
            vjx, vjy = material_velocity(q, qd, bj, qjx, qjy)
            vrx = vjx - vbx; vry = vjy - vby
            vn = vrx * nx + vry * ny
            vt = -vrx * ny + vry * nx
            fn = 0.0
            if delta > 0.0 and dm[p0] >= 0.0:   # dm < 0: open mode frozen over the step (integrator)
                fn = ckern[j](delta, vn, dm[p0], cp, tmp.ctypes)
                cause = _contact_fault(fn, tmp)
                if cause >= 0:
                    return pc, pf, j * N_FAULT + cause
            ft = 0.0
            tmp[0] = 0.0; tmp[RAISED] = 0.0
            if fn > 0.0 or has_z[j]:   # a memoryless law gives no friction without a normal force
                ft = fkern[j](vt, fn, z[p0], fp, tmp.ctypes)
            zdot[p0] = tmp[0] if has_z[j] else 0.0
            cause = _friction_fault(ft, zdot[p0], fn, clr_f[j, CL_FRICTION_BOUND], tmp)
            if cause >= 0:
                return pc, pf, j * N_FAULT + cause
            fx = -fn * nx - ft * ny
            fy = -fn * ny + ft * nx
            apply_force(Q, q, bj, qjx, qjy, fx, fy)
            apply_force(Q, q, bi, qbx, qby, -fx, -fy)
            pc += fn * vn
            pf -= ft * vt
            # the solid contact: the contact law's and the asperities' part (both 0 in full film)
            rec[j, C_FN] = fn + fna; rec[j, C_FT] = ft + fta; rec[j, C_PEN] = delta   # fna: |asperity load|
            rec[j, C_FILM] = film
            rec[j, C_EX] = ebx; rec[j, C_EY] = eby
            rec[j, C_PSI] = psi; rec[j, C_PHI] = phj - phb
            rec[j, C_VT] = vt; rec[j, C_VN] = vn
        else:
            Pgx, Pgy = point_position(q, bi, clr_f[j, 0], clr_f[j, 1])
            Cx, Cy = point_position(q, bj, clr_f[j, 2], clr_f[j, 3])
            ax, ay = rotate(q, bi, clr_f[j, 4], clr_f[j, 5])
            mx = -ay; my = ax
            maxpen = -1e300; fnt = 0.0; ftt = 0.0; vtm = 0.0; vnm = 0.0
            for k in range(4):
                X, Y, delta, Nx, Ny, tx, ty, vn, vt, s = corner(q, qd, bi, bj, clr_f[j], k)
                fn = 0.0
                if delta > 0.0 and dm[p0 + k] >= 0.0:   # dm < 0: open mode frozen over the step
                    fn = ckern[j](delta, vn, dm[p0 + k], cp, tmp.ctypes)
                    cause = _contact_fault(fn, tmp)
                    if cause >= 0:
                        return pc, pf, j * N_FAULT + cause
                ft = 0.0
                tmp[0] = 0.0; tmp[RAISED] = 0.0
                if fn > 0.0 or has_z[j]:
                    ft = fkern[j](vt, fn, z[p0 + k], fp, tmp.ctypes)
                zdot[p0 + k] = tmp[0] if has_z[j] else 0.0
                cause = _friction_fault(ft, zdot[p0 + k], fn, clr_f[j, CL_FRICTION_BOUND], tmp)
                if cause >= 0:
                    return pc, pf, j * N_FAULT + cause
                fx = -fn * Nx + ft * tx
                fy = -fn * Ny + ft * ty
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
def contact_gaps(y, n, clr_i, clr_f, g, gd, dist=True):
    """Penetration ``g`` [m] and its rate ``gd`` [m/s] of every contact point at state ``y``
    (``dist`` None: no joint has a distributed contact law, whose branch is then not compiled)."""
    q = y[:n]; qd = y[n:2 * n]
    for j in range(clr_i.shape[0]):
        typ = clr_i[j, 0]; bi = clr_i[j, 1]; bj = clr_i[j, 2]; p0 = clr_i[j, 3]
        if typ == CL_REV:
            if dist is not None and clr_f[j, REV_DISTRIBUTED] > 0.0:   # its own largest overlap, the one its force uses
                g[p0], gd[p0] = _distributed_gap(q, qd, bi, bj, clr_f[j])
                continue
            Pbx, Pby = point_position(q, bi, clr_f[j, 0], clr_f[j, 1])
            Pjx, Pjy = point_position(q, bj, clr_f[j, 2], clr_f[j, 3])
            ex = Pjx - Pbx; ey = Pjy - Pby
            phb = q[3 * bi + 2] if bi >= 0 else 0.0
            phj = q[3 * bj + 2] if bj >= 0 else 0.0
            cb = math.cos(phb); sb = math.sin(phb)
            delta, psi, hb, hj = worn_penetration(clr_f[j], cb * ex + sb * ey, -sb * ex + cb * ey, phj - phb)
            g[p0] = delta
            # d delta/dt = de/dt . n(psi*) (envelope theorem; the profiles' own motion is second order)
            cp_ = math.cos(psi); sp_ = math.sin(psi)
            nx = cb * cp_ - sb * sp_; ny = sb * cp_ + cb * sp_
            vbx, vby = material_velocity(q, qd, bi, Pbx, Pby)
            vjx, vjy = material_velocity(q, qd, bj, Pjx, Pjy)
            gd[p0] = (vjx - vbx) * nx + (vjy - vby) * ny
        else:
            for k in range(4):
                X, Y, delta, Nx, Ny, tx, ty, vn, vt, s = corner(q, qd, bi, bj, clr_f[j], k)
                g[p0 + k] = delta; gd[p0 + k] = vn
