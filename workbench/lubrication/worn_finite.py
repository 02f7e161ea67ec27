"""The finite-length bearing on a worn bushing, reduced for the dynamics (compiled).

The finite bearing's table (:mod:`.finite_bearing`) is over ``(eps, psi)`` for the circular bore.
A worn bore adds the direction of the line of centres relative to the profile and the whirl (the
profile turns in the line-of-centres frame) as table axes: out of reach per wear update.  The
reduced model here keeps the circular table and corrects it for the wear with a film that
integrates the worn bore at every call:

* **the worn harmonic film**: at every node of the bore the midplane pressure of the short
  bearing (Ocvirk, ``p_s = -(3 mu L^2 / 4)(omega dh/dpsi + 2 dh/dt) / h^3``) and the pressure of
  the periodic long bearing (Sommerfeld, :mod:`.worn_film`'s long film before clipping) on the
  worn film ``h(psi) = c + h_w(psi) - e . n``, combined as ``p = p_s p_l / (p_s + p_l)`` where
  both are positive (zero elsewhere: Gümbel), with a parabolic axial profile (mean ``2/3`` of the
  midplane value); the combination of Hirani, Athre & Biswas (1999) (their eq. for the finite
  bearing's pressure as the harmonic mean of the short and long solutions, equation number not
  checked here: the paper was not at hand).  It tends to the short film as ``L/D -> 0``
  (``p_s << p_l``) and to the long one as ``L/D -> inf``;
* **the circular correction**: the ratio ``z = F_fin / F_harm`` of the finite bearing (the
  shipped table) to the harmonic film on the circular bore at the same ``(eps, psi)``, taken as a
  complex number in the line-of-centres frame (its modulus scales the force, its argument turns
  it), multiplies the worn harmonic force: ``F = z F_harm,worn``.  ``F_harm`` on the circular bore
  is tabulated on the finite table's grid when the joint is packed (:func:`harmonic_table`).

Exact for the circular bore (``z F_harm = F_fin``, the table itself) and for a uniform wear (a
larger clearance, :func:`.worn_film.pack_bore`).  Its error on scarred bores, measured against
direct FE solves of the same worn film (:func:`.reynolds.solve_film` with ``wear`` and
``whirl``), is stated in ``docs/lubrication.md`` ("The finite bearing on a worn bore"); the
plugin flags the bores deeper than the measured range (:data:`DEPTH_VALIDATED`).  The candidate
``F = (F_fin / F_short) F_short,worn`` (the worn short film with the circular finite/short ratio)
was measured too and is 2-5 times worse in the tails (same section).

Parameters: :func:`.finite_bearing.pack`'s array (head, table, the flag 0) for the circular bore;
for a worn one the flag is 1 and the circular harmonic table (same grid) and the bore's block
(:mod:`.worn_film`) follow.  Shear moment: the worn Couette moment (:mod:`.worn_film`).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..jit import njit
from . import finite_bearing as fb
from .kinematics import film_state
from .worn_film import _long_level, _long_slope, bore_block, thinnest_scale, QUAD_NODES

#: the deepest scar (largest minus smallest wear depth over the bore, over the nominal radial
#: clearance) at which the reduced model's error was measured; deeper bores are flagged [1]
DEPTH_VALIDATED = 1.0
#: the largest L/D at which it was measured (it tends to the exact short film below) [1]
LD_VALIDATED = 1.0


@njit(cache=True)
def harmonic_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_max, p, off):
    """Harmonic-mean film of the worn bore (module docstring): ``(f_x, f_y, t_j)`` [N, N, N m] in
    the bushing frame; ``p[off:]`` the bore's block (:mod:`.worn_film`)."""
    M = int(p[off]); h0 = off + 2; d0 = h0 + M; c0 = h0 + 2 * M; s0 = h0 + 3 * M
    s = thinnest_scale(ex, ey, p, off, c, eps_max)
    ex *= s; ey *= s
    C, p0, inv = _long_level(ex, ey, vx, vy, omega, mu, R, c, p, off)
    k6 = 0.5 * (2.0 * math.pi / M) * 6.0 * mu * R * R
    ks = -0.75 * mu * L * L
    sx = 0.0; sy = 0.0
    ih, h3, gp = _long_slope(0, ex, ey, vx, vy, omega, p, off, c, C)
    pl = p0
    for k in range(M):
        if k > 0:
            ih, h3, g = _long_slope(k, ex, ey, vx, vy, omega, p, off, c, C)
            pl += k6 * (gp + g)
            gp = g
        ck = p[c0 + k]; sk = p[s0 + k]
        ps = ks * (omega * (ex * sk - ey * ck + p[d0 + k]) - 2.0 * (vx * ck + vy * sk)) * ih * ih * ih
        if ps > 0.0 and pl > 0.0:
            ph = ps * pl / (ps + pl)
            sx += ph * ck; sy += ph * sk
    d = 2.0 * math.pi / M
    f = -(2.0 / 3.0) * L * R * d
    return f * sx, f * sy, -mu * omega * R ** 3 * L * d * inv


@functools.lru_cache(maxsize=16)
def harmonic_table(l_over_d: float, n_u: int, n_psi: int) -> np.ndarray:
    """The circular bore's harmonic film on the finite table's grid, dimensionless as the table
    (``f = F c^2 / (6 mu R^4 V)``) and scaled by ``(1 - eps^2)^(5/2)``: ``(2, n_u, n_psi)``."""
    blk = bore_block(np.zeros(QUAD_NODES))
    L = 2.0 * l_over_d
    out = np.empty((2, n_u, n_psi))
    for i, e in enumerate(fb.eps_nodes(n_u)):
        for k, ps in enumerate(fb.psi_nodes(n_psi)):
            fx, fy, _ = harmonic_film(float(e), 0.0, 0.5 * math.sin(ps), 0.0, math.cos(ps), 1.0, 1.0, L,
                                      1.0, 0.999, blk, 0)
            out[0, i, k] = fx / 6.0 * (1.0 - e * e) ** 2.5
            out[1, i, k] = fy / 6.0 * (1.0 - e * e) ** 2.5
    return out


def pack_worn(mu, R, L, c, eps_cap, tab: np.ndarray, depth) -> np.ndarray:
    """Parameters of :func:`kernel` for a bushing profile ``depth`` [m] (uniform nodes) and the
    nominal radial clearance ``c`` [m]: the profile's least depth is a clearance increase
    (exact); a uniform profile packs the circular table at ``c + d`` (:func:`.finite_bearing.pack`)."""
    h = np.asarray(depth, float)
    if h.ndim != 1 or len(h) < 3 or not np.all(np.isfinite(h)):
        raise ValueError(f"a bushing wear profile must be a 1-D array of >= 3 finite depths [m], got shape {h.shape}")
    lo = float(h.min())
    if np.all(h == h[0]):
        return fb.pack(mu, R, L, c + lo, eps_cap, tab)
    _, n_u, n_psi = tab.shape
    head = fb.pack(mu, R, L, c + lo, eps_cap, tab)
    head[-1] = 1.0
    return np.concatenate([head, harmonic_table(round(L / (2.0 * R), 12), n_u, n_psi).ravel(), bore_block(h - lo)])


@njit(cache=True)
def kernel(ex, ey, vx, vy, omega, p):
    """Lubrication kernel of the finite bearing (:class:`workbench.models.LubricationModel`): the
    table (:func:`.finite_bearing.finite_kernel`) on a circular bore (flag 0), the reduced worn
    model (module docstring) on a worn one (flag 1)."""
    n = int(p[5]) * int(p[6])
    flag = fb.P_HEAD + 2 * n
    if p[flag] == 0.0:
        return fb.finite_kernel(ex, ey, vx, vy, omega, p)
    mu = p[0]; R = p[1]; L = p[2]; c = p[3]; eps_cap = p[4]
    hb = flag + 1
    fx, fy, tj = harmonic_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_cap, p, hb + 2 * n)
    s = thinnest_scale(ex, ey, p, hb + 2 * n, c, eps_cap)
    eps, eps_dot, w, uex, uey = film_state(ex * s, ey * s, vx, vy, omega, c)
    psi = math.atan2(2.0 * eps_dot, w)
    eps = min(eps, eps_cap)
    fe, ft = fb.interpolate_at(eps, psi, p, fb.P_HEAD)
    he, ht = fb.interpolate_at(eps, psi, p, hb)
    den = he * he + ht * ht
    if den == 0.0:                 # a centred journal without squeeze: no ratio, the film as it is
        return fx, fy, tj
    zr = (fe * he + ft * ht) / den
    zi = (ft * he - fe * ht) / den
    return zr * fx - zi * fy, zr * fy + zi * fx, tj
