"""Pressure of a slider face on a worn guide face: line contact over the contact length.

In the four-corner model (Wang, Chen, Ma & Sun (2016) eqs. 18-31) a slider face touches the guide at
its corners; the face itself is rigid and straight.  Between its two corners ``B`` (``u = -L/2``)
and ``A`` (``u = +L/2``) the overlap of the face with the worn guide face is

    ``o(u) = o_B + (o_A - o_B) (u + L/2) / L - g(s(u)) - h_slider(u)``,

with ``o_A = delta_A + g(s_A) + r_A`` (the corner's penetration from the dynamics with the worn
parts added back, i.e. the overlap of the unworn straight faces), ``s(u)`` the guide coordinate
(linear between the corners), ``g`` the guide's wear depth and ``h_slider`` the face's own.  ``o``
is sampled on the slider's face nodes and taken piecewise linear between them.  The face load is
the sum of its two corner forces ``F``; the width is ``b`` (out of plane).

* **approximate area** (``model = 0``): the load spread uniformly over the contact length
  ``a = |{u : o(u) > 0}|``, ``p = F / (a b)`` (the block ``p = F / A`` of Wang & Liu (2015) eq. 22
  with a line contact: ``A = a b``).  A face lying flat on an unworn guide has ``a = L``; one
  corner dug in by ``delta`` at a tilt ``theta`` has ``a = delta / theta``.
* **Winkler** (``model = 1``): an elastic foundation of modulus ``k`` [Pa/m] under the rigid face,
  ``p(u) = k max(0, o(u) + d)`` with the rigid approach ``d`` [m] solved so that ``b int p du = F``
  (Wang & Liu (2015) eq. 23-24 on a line; ``d`` by Newton from above on the convex, increasing
  load function, which converges monotonically).

The pressure ``p`` is projected on the nodes of both faces exactly: ``P_i = int p N_i du / int N_i``
(the guide's nodes receive the force per unit slider length, so that the guide carries exactly the
face load; the face's tilt changes the guide length it covers by ``1 - cos(theta)``, below 1e-6)
with ``N_i`` the hat function of node ``i`` (``p N_i`` is at most quadratic on every piece between
the two grids and the edge of the contact, integrated by the 2-point Gauss rule), so that the nodal
pressures carry the load, ``b sum P_i int N_i = F``, and a block moving over the nodes wears no
sawtooth into them.
"""
from __future__ import annotations

import math

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from ..mbs.slider_guide import guide_depth
from ..mbs.guide_profile import TR_DS, TR_NODES, TR_REACH, TR_S0

APPROXIMATE_AREA, WINKLER = 0, 1
_G = 0.5 / math.sqrt(3.0)


@njit(cache=True)
def _positive_part(o0, o1):
    """``[ta, tb]`` of ``t`` in [0, 1] where ``o0 + (o1 - o0) t > 0`` (ta >= tb: none)."""
    if o0 > 0.0 and o1 > 0.0:
        return 0.0, 1.0
    if o0 <= 0.0 and o1 <= 0.0:
        return 1.0, 0.0
    tz = o0 / (o0 - o1)
    return (0.0, tz) if o0 > 0.0 else (tz, 1.0)


@njit(cache=True)
def _load(o, du, k, b, d):
    """``b int k max(0, o + d) du`` [N] and its derivative in ``d`` for the piecewise-linear ``o``."""
    f = 0.0; df = 0.0
    for j in range(o.size - 1):
        a0 = o[j] + d; a1 = o[j + 1] + d
        ta, tb = _positive_part(a0, a1)
        if tb > ta:
            va = a0 + (a1 - a0) * ta; vb = a0 + (a1 - a0) * tb
            f += 0.5 * (va + vb) * (tb - ta) * du
            df += (tb - ta) * du
    return k * b * f, k * b * df


@njit(cache=True)
def _project(o, d, level, slope, sB, sA, u0, du, s0, ds, N, f, Pg, Pu):
    """Add ``int p N_i`` over the face to ``Pg[f]`` (guide nodes) and ``Pu[f]`` (slider nodes);
    ``p = level + slope (o + d)`` on ``o + d > 0`` (AA: level = F/(a b), slope 0; Winkler: 0, k)."""
    nu = o.size
    L = du * (nu - 1)
    for j in range(nu - 1):
        a0 = o[j] + d; a1 = o[j + 1] + d
        ta, tb = _positive_part(a0, a1)
        if not tb > ta:
            continue
        # guide coordinate along this interval (linear in u)
        s_a = sB + (sA - sB) * (j * du) / L
        s_b = sB + (sA - sB) * ((j + 1) * du) / L
        # breakpoints: the contact edges and every guide node crossed
        t_lo = ta
        while t_lo < tb:
            s_lo = s_a + (s_b - s_a) * t_lo
            x = (s_lo - s0) / ds
            if s_b >= s_a:
                nxt = math.floor(x) + 1.0
            else:
                nxt = math.ceil(x) - 1.0
            t_hi = tb
            if s_b != s_a:
                tn = (s0 + nxt * ds - s_a) / (s_b - s_a)
                if tn < t_hi:
                    t_hi = max(tn, t_lo + 1e-15)
            h = t_hi - t_lo
            for g in range(2):
                t = t_lo + h * (0.5 - _G if g == 0 else 0.5 + _G)
                w = 0.5 * h * du
                p = level + slope * (a0 + (a1 - a0) * t)
                Pu[f, j] += w * p * (1.0 - t)
                Pu[f, j + 1] += w * p * t
                xs = (s_a + (s_b - s_a) * t - s0) / ds
                i = int(math.floor(xs))
                fr = xs - i
                if 0 <= i < N:
                    Pg[f, i] += w * p * (1.0 - fr)
                if 0 <= i + 1 < N:
                    Pg[f, i + 1] += w * p * fr
            t_lo = t_hi


@njit(cache=True)
def face_pressures(delta, s, fn, row, h_slider, u0, du, model, k, b, Pg, Pu):
    """Nodal pressures [Pa] of one sample on the guide faces ``Pg`` (2, N) and the slider faces
    ``Pu`` (2, Nu), from the corner penetrations ``delta`` (4,) [m], guide coordinates ``s`` (4,)
    [m] and normal forces ``fn`` (4,) [N].  ``row``: the joint's packed ``clr_f`` row (guide
    profile, :mod:`workbench.mbs.guide_profile`); ``h_slider`` (2, Nu) [m]; ``model`` and ``k``
    [Pa/m]: see the module docstring; ``b`` width [m].  Returns the contact length of each face [m]."""
    N = int(row[TR_NODES]); s0 = row[TR_S0]; ds = row[TR_DS]
    nu = h_slider.shape[1]
    Pg[:, :] = 0.0; Pu[:, :] = 0.0
    o = np.zeros(nu)
    lengths = np.zeros(2)
    L = du * (nu - 1)
    for f in range(2):
        cA = 0 if f == 0 else 3
        cB = 1 if f == 0 else 2
        F = fn[cA] + fn[cB]
        if not F > 0.0:
            continue
        gA, _ = guide_depth(row, f, s[cA]); gB, _ = guide_depth(row, f, s[cB])
        oA = delta[cA] + gA + row[TR_REACH + cA]
        oB = delta[cB] + gB + row[TR_REACH + cB]
        for j in range(nu):
            t = j * du / L
            sj = s[cB] + (s[cA] - s[cB]) * t
            gj, _ = guide_depth(row, f, sj)
            o[j] = oB + (oA - oB) * t - gj - h_slider[f, j]
        if model == APPROXIMATE_AREA:
            a = 0.0
            for j in range(nu - 1):
                ta, tb = _positive_part(o[j], o[j + 1])
                if tb > ta:
                    a += (tb - ta) * du
            if not a > 0.0:      # rounding: the loaded corner's own node interval
                a = du
                jm = 0
                for j in range(nu):
                    if o[j] > o[jm]:
                        jm = j
                o[:] = -1.0
                o[jm] = 1.0
            lengths[f] = a
            _project(o, 0.0, F / (a * b), 0.0, s[cB], s[cA], u0, du, s0, ds, N, f, Pg, Pu)
        else:
            omin = o.min(); omax = o.max()
            d = F / (k * b * L) - omin + 1e-12 * (abs(omin) + abs(omax) + 1e-12)
            for _ in range(200):
                val, der = _load(o, du, k, b, d)
                if der <= 0.0:
                    break
                step = (val - F) / der
                d -= step
                if abs(step) <= 1e-14 * (abs(d) + abs(omax) + 1e-300):
                    break
            for j in range(nu - 1):
                ta, tb = _positive_part(o[j] + d, o[j + 1] + d)
                if tb > ta:
                    lengths[f] += (tb - ta) * du
            _project(o, d, 0.0, k, s[cB], s[cA], u0, du, s0, ds, N, f, Pg, Pu)
    # int N_i: ds for guide nodes (interior: the guide spans the travel with a margin),
    # du for interior slider nodes and du/2 at the face's ends
    for f in range(2):
        for i in range(N):
            Pg[f, i] /= ds
        for j in range(nu):
            Pu[f, j] /= (0.5 * du if (j == 0 or j == nu - 1) else du)
    return lengths


@njit(cache=True)
def batch_pressures(delta, s, fn, row, h_slider, u0, du, model, k, b):
    """:func:`face_pressures` of ``ns`` samples: ``(Pg (ns, 2, N), Pu (ns, 2, Nu), lengths (ns, 2))``."""
    ns = delta.shape[0]
    N = int(row[TR_NODES]); nu = h_slider.shape[1]
    Pg = np.zeros((ns, 2, N)); Pu = np.zeros((ns, 2, nu)); lengths = np.zeros((ns, 2))
    for i in range(ns):
        lengths[i] = face_pressures(delta[i], s[i], fn[i], row, h_slider, u0, du, model, k, b, Pg[i], Pu[i])
    return Pg, Pu, lengths
