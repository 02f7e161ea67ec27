"""Reference (numpy) path of the distributed contact (:mod:`.distributed`), and helpers to build
its inputs outside a compiled mechanism (tests, the wear coupling).

The same overlap field as the compiled path -- the quasi-interpolating B-splines of the profiles,
the cubic Hermite of their values and slopes on each bushing segment -- but written with numpy on
a uniform grid over the whole bore and integrated by the trapezoid rule: no patch search, no
roots, no Gauss points.  The two agree to the grid's O(n^-2) error (tests/mbs/test_distributed_contact.py).
"""
from __future__ import annotations

import numpy as np

from .compiled import REV_DIST_FLOOR, REV_HB_MAX, REV_HJ_MAX, REV_NODES, REV_PROFILE
from .distributed import P_CHI, P_K, P_LEN, P_VFLOOR, TWO_PI, clearance_floor, control_points


def spline_values(h, x):
    """The quasi-interpolant of :func:`control_points` and its first two derivatives at ``x`` [rad]
    (numpy, the reference path)."""
    h = np.asarray(h, float)
    M = len(h); dth = TWO_PI / M
    c = control_points(h)
    u = np.mod(np.asarray(x, float), TWO_PI) / dth
    i = np.minimum(np.floor(u).astype(int), M - 1)
    t = u - i
    cm, c0, c1, c2 = c[(i - 1) % M], c[i % M], c[(i + 1) % M], c[(i + 2) % M]
    s = 1.0 - t
    v = (s ** 3 * cm + (3 * t ** 3 - 6 * t ** 2 + 4) * c0 + (-3 * t ** 3 + 3 * t ** 2 + 3 * t + 1) * c1
         + t ** 3 * c2) / 6.0
    d = (-3 * s ** 2 * cm + (9 * t ** 2 - 12 * t) * c0 + (-9 * t ** 2 + 6 * t + 3) * c1 + 3 * t ** 2 * c2) / (6 * dth)
    dd = (6 * s * cm + (18 * t - 12) * c0 + (-18 * t + 6) * c1 + 6 * t * c2) / (6 * dth ** 2)
    return v, d, dd



def reference_contact(h_bushing, h_journal, R_b, R_j, cp, e_b, e_dot, phi_rel, phi_rel_dot=0.0,
                      v_rel=(0.0, 0.0), w_rel=0.0, dm=1.0, friction=None, n_grid=40000):
    """Reference (numpy) of :func:`distributed_contact`: the same overlap field on a uniform grid
    of ``n_grid`` directions over the whole bore, integrated by the trapezoid rule.

    ``h_bushing``/``h_journal`` the nodal depths [m] (``None``: unworn), ``cp`` the contact row,
    ``e_b``/``e_dot`` eccentricity [m] and its rate [m/s] (bushing frame), ``v_rel`` the journal
    centre's velocity minus the bushing centre's (bushing frame) [m/s], ``w_rel = w_j R_j - w_b R_b``
    [m/s]; ``friction(v_t, f_n) -> f_t`` vectorised, or None.  Returns a dict of the resultants
    (keys as the ``R_*`` names, lower case, without the prefix) and the pressure ``p`` on ``psi``."""
    psi = np.arange(n_grid) * TWO_PI / n_grid
    c0 = R_b - R_j
    if h_bushing is None or not (np.any(h_bushing) or np.any(h_journal)):
        C = np.full(n_grid, c0); Cph = np.zeros(n_grid)
    else:
        hb = np.asarray(h_bushing, float); hj = np.asarray(h_journal, float)
        M = len(hb); dth = TWO_PI / M
        nodes = np.arange(M + 1) * dth
        vb, db, _ = spline_values(hb, nodes)
        vj, dj, ddj = spline_values(hj, nodes - phi_rel)
        if not np.any(hj):
            vj = dj = ddj = np.zeros(M + 1)
        c, s, cph, sph = c0 + vb + vj, db + dj, -dj, -ddj
        k = np.minimum((psi / dth).astype(int), M - 1)
        t = psi / dth - k
        H = (2 * t ** 3 - 3 * t ** 2 + 1, t ** 3 - 2 * t ** 2 + t, -2 * t ** 3 + 3 * t ** 2, t ** 3 - t ** 2)
        C = H[0] * c[k] + H[1] * dth * s[k] + H[2] * c[k + 1] + H[3] * dth * s[k + 1]
        Cph = H[0] * cph[k] + H[1] * dth * sph[k] + H[2] * cph[k + 1] + H[3] * dth * sph[k + 1]
    n = np.stack([np.cos(psi), np.sin(psi)], axis=1)
    u = n @ np.asarray(e_b, float) - C
    ud = n @ np.asarray(e_dot, float) - Cph * phi_rel_dot
    v_minus = max(dm, cp[P_VFLOOR])
    p = np.where(u > 0.0, cp[P_K] * u * (1.0 + cp[P_CHI] * ud / v_minus), 0.0)
    p = np.clip(p, 0.0, None)
    w = R_b * cp[P_LEN] * TWO_PI / n_grid
    dF = p * w
    vt = -v_rel[0] * n[:, 1] + v_rel[1] * n[:, 0] + w_rel
    ft = friction(vt, dF) if friction is not None else np.zeros(n_grid)
    on = u > 0.0
    starts = int(np.sum(on & ~np.roll(on, 1)))
    return {"fbx": float(dF @ n[:, 0]), "fby": float(dF @ n[:, 1]), "torque": float(dF @ Cph),
            "ftx": float(-ft @ n[:, 1]), "fty": float(ft @ n[:, 0]), "ft": float(ft.sum()),
            "pc": float(dF @ ud), "pf": float(-(ft @ vt)), "delta": float(u.max()),
            "psi": float(psi[np.argmax(u)]), "patches": starts if starts else int(on.any()),
            "fnsum": float(dF.sum()), "p": p, "grid": psi}


def profile_row(R_b, R_j, h_bushing=None, h_journal=None) -> np.ndarray:
    """A ``clr_f`` row of a revolute clearance joint with these radii and profiles, as
    :func:`.compiled.compile_mechanism` builds it for a distributed contact (tests, the wear
    coupling)."""
    from .compiled import REV_DISTRIBUTED
    M = 0 if h_bushing is None else len(h_bushing)
    r = np.zeros(12 + 2 * M)
    r[4] = R_b; r[5] = R_j; r[REV_DISTRIBUTED] = 1.0
    if M:
        hb = np.asarray(h_bushing, float); hj = np.asarray(h_journal, float)
        r[REV_NODES] = M
        r[REV_HB_MAX] = max(float(hb.max()), 0.0); r[REV_HJ_MAX] = max(float(hj.max()), 0.0)
        r[REV_PROFILE:REV_PROFILE + M] = hb; r[REV_PROFILE + M:] = hj
        r[REV_DIST_FLOOR] = clearance_floor(hb, hj)
    return r
