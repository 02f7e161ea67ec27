"""Film and asperity forces of a worn bushing: quadratures over the bore (compiled).

A worn bushing (wear depth ``h_w(psi)`` [m] on the wear loop's body-fixed nodes ``psi_k = 2 pi k /
M``, :class:`workbench.wear.surfaces.WornJoint`) has the film thickness, in the bushing frame,

    h(psi) = c + h_w(psi) - (e_x cos psi + e_y sin psi)

(``theta = psi - alpha - pi`` from the largest film: ``h = c (1 + eps cos theta) + h_w``, as in
:func:`.reynolds.bushing_wear`).  The profile is fixed in the bushing, so at a fixed bushing angle
``dh/dt = -(v_x cos psi + v_y sin psi)`` (``v`` the eccentricity rate seen from the bushing) and the
film's wedge is driven by the relative spin ``omega = omega_j - omega_b`` on ``dh/dpsi``: the
Reynolds equation in the bushing frame (Pinkus & Sternlicht (1961) ch. 3, with the bushing at
rest and the journal's surface moving at ``R omega``) reads

    (1/R^2) d/dpsi (h^3 dp/dpsi) + d/dz (h^3 dp/dz) = 6 mu omega dh/dpsi + 12 mu dh/dt.

For the circular bore this is the line-of-centres form of :mod:`.short_bearing` and
:mod:`.long_bearing` (``w = omega - 2 gamma_dot`` appears when ``dh/dt`` is taken at fixed
``theta``); here it is evaluated on the bore as it is.

* **Short bearing** (Ocvirk, ``L/D -> 0``): ``p = (3 mu / h^3)(z^2 - L^2/4)(omega dh/dpsi + 2
  dh/dt)``, integrated over ``z``: ``P(psi) = -mu L^3 (omega dh/dpsi + 2 dh/dt) / (2 h^3)`` [Pa m], kept
  where positive (Gümbel), force ``-R int P (cos, sin) dpsi``.
* **Long bearing** (Sommerfeld, ``L/D -> inf``): ``h^3 p' = 6 mu R^2 (omega h + 2 Q) + C`` with
  ``Q = int dh/dt dpsi``, ``C`` from periodicity (``oint p' = 0``) and the level from ``oint h^3 p
  dpsi = 0``: integrating the 2-D equation over ``psi`` (the wedge and squeeze sources vanish over
  the turn) gives ``d^2/dz^2 oint h^3 p dpsi = 0``, and with ambient ends ``oint h^3 p = 0`` at every
  ``z``: the long limit of the finite bearing with ambient edges (:mod:`.reynolds`).  Negative
  pressure is then set to zero (Gümbel / half-Sommerfeld); force ``-R L int p (cos, sin) dpsi``.
  For a steady circular journal this is Sommerfeld's antisymmetric solution, clipped: the
  half-Sommerfeld forces of :mod:`.long_bearing`; under squeeze it keeps ``p >= 0`` wherever the
  squeeze puts it, unlike the fixed half ``0..pi``.
* **Asperities** (Greenwood & Tripp (1970), :mod:`.greenwood_tripp`): ``-R L K E* int F_5/2(h /
  sigma) (cos, sin) dpsi`` over the nodes where ``h / sigma`` is inside the ``F_5/2`` table.
* **Shear moment**: the Couette moment ``-mu omega R^3 L oint dpsi / h`` (Petrov's law on the worn
  film; for the circular bore ``-2 pi mu omega R^3 L / (c sqrt(1 - eps^2))``,
  :func:`.kinematics.couette_torque`).

Quadrature: the trapezoidal rule on ``MQ >= QUAD_NODES`` uniform nodes (the profile's nodes,
refined by an integer factor with the profile interpolated linearly); where a clipped pressure
changes sign between two nodes the positive part of the linear interpolant is integrated (the
zero crossing is not lost).  Measured on the circular bore against the closed forms at 720 nodes
(tests/lubrication/test_worn_film_forces.py): relative error 2e-5 at ``eps = 0.5``, 1e-4 at 0.9,
1.3e-3 at 0.99 (pure wedge, the worst case: the Gümbel edge sits on the pressure peak).

The film thickness is floored: when the journal would bring the thinnest film below ``(1 -
eps_max) c`` the eccentricity is scaled down until it does not (the closed forms' ``eps_cap``).

Parameter block (appended to a model's parameter array at ``off``): ``[MQ, min h_w, h_w (MQ),
dh_w/dpsi (MQ), cos psi (MQ), sin psi (MQ)]`` [1, m, m, m/rad, 1, 1]; the model's clearance entry stays the
nominal ``c``.  A uniform profile ``d`` (all nodes equal) is the clearance ``c + d`` exactly and
has no block: the model keeps its closed form (:func:`pack_bore`).
"""
from __future__ import annotations

import math

import numpy as np

from ..jit import njit
from . import greenwood_tripp as gt

#: fewest quadrature nodes over the turn (a coarser profile is refined by an integer factor)
QUAD_NODES = 720


def _periodic_linear(values: np.ndarray, m: int) -> np.ndarray:
    """``values`` on ``M`` periodic nodes, linearly interpolated onto ``m M`` nodes."""
    if m == 1:
        return values.copy()
    f = np.arange(m) / m
    nxt = np.roll(values, -1)
    return (values[:, None] * (1.0 - f) + nxt[:, None] * f).ravel()


def bore_block(depth, min_nodes: int = QUAD_NODES) -> np.ndarray:
    """The parameter block of a bushing profile ``depth`` [m] on ``M`` uniform nodes (module
    docstring); all zero: the circular bore."""
    h = np.asarray(depth, float)
    if h.ndim != 1 or len(h) < 3 or not np.all(np.isfinite(h)):
        raise ValueError(f"a bushing wear profile must be a 1-D array of >= 3 finite depths [m], got "
                         f"shape {h.shape}")
    M = len(h)
    dh = (np.roll(h, -1) - np.roll(h, 1)) / (2.0 * (2.0 * math.pi / M))
    m = -(-int(min_nodes) // M)
    MQ = M * m
    psi = 2.0 * math.pi * np.arange(MQ) / MQ
    return np.concatenate([[float(MQ), float(h.min())], _periodic_linear(h, m), _periodic_linear(dh, m),
                           np.cos(psi), np.sin(psi)])


def pack_bore(depth, clearance: float, min_nodes: int = QUAD_NODES) -> tuple[float, np.ndarray | None]:
    """``(c, block)`` for a bushing wear profile ``depth`` [m] and the nominal radial clearance
    [m]: a uniform profile ``d`` is the clearance ``c + d`` exactly, with no block (``None``: the
    model's closed form); any other profile keeps ``c`` and gives its block."""
    h = np.asarray(depth, float)
    if h.ndim == 1 and len(h) and np.all(np.isfinite(h)) and np.all(h == h[0]):
        return clearance + float(h[0]), None
    return clearance, bore_block(h, min_nodes)


@njit(cache=True)
def thinnest_scale(ex, ey, p, off, c, eps_max):
    """Factor ``s`` in ``(0, 1]`` by which the eccentricity is scaled so that the thinnest film is
    at least ``(1 - eps_max) c`` [m] (1 when it already is)."""
    M = int(p[off]); h0 = off + 2; c0 = h0 + 2 * M; s0 = h0 + 3 * M
    floor = (1.0 - eps_max) * c
    if c + p[off + 1] - math.sqrt(ex * ex + ey * ey) >= floor:    # no node can be thinner
        return 1.0
    s = 1.0
    for k in range(M):
        q = ex * p[c0 + k] + ey * p[s0 + k]
        if q > 0.0:
            r = (c + p[h0 + k] - floor) / q
            if r < s:
                s = r
    return max(s, 0.0)


@njit(cache=True)
def _crossing(pa, pb, fa):
    """Correction to the trapezoid ``sum max(P_k, 0) f_k`` of an interval (unit width) over which
    ``P`` falls from ``pa > 0`` to ``pb < 0`` (or rises, with the ends swapped): the positive part
    of the linear interpolant ends at the zero crossing, ``0.5 (s - 1) pa fa``, ``s = pa / (pa - pb)``."""
    return 0.5 * (pa / (pa - pb) - 1.0) * pa * fa


@njit(cache=True)
def _clipped_add(sx, sy, pk, pp, ck, sk, cp, sp):
    """``(sx, sy)`` plus node k's clipped pressure ``max(p_k, 0)`` times its ``(cos, sin)``, with the
    zero crossing between the previous node (``pp, cp, sp``) and this one corrected
    (:func:`_crossing`): the short and the long film's force sums."""
    if pk > 0.0:
        sx += pk * ck; sy += pk * sk
        if pp < 0.0:
            sx += _crossing(pk, pp, ck); sy += _crossing(pk, pp, sk)
    elif pk < 0.0 and pp > 0.0:
        sx += _crossing(pp, pk, cp); sy += _crossing(pp, pk, sp)
    return sx, sy


@njit(cache=True)
def short_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_max, p, off):
    """Ocvirk film of the worn bore with the Gümbel condition: ``(f_x, f_y, t_j)`` [N, N, N m] in the
    bushing frame (module docstring)."""
    M = int(p[off]); h0 = off + 2; d0 = h0 + M; c0 = h0 + 2 * M; s0 = h0 + 3 * M
    s = thinnest_scale(ex, ey, p, off, c, eps_max)
    ex *= s; ey *= s
    k0 = -mu * L ** 3 / 2.0
    sx = 0.0; sy = 0.0; inv = 0.0
    cp = p[c0 + M - 1]; sp = p[s0 + M - 1]
    ih = 1.0 / (c + p[h0 + M - 1] - ex * cp - ey * sp)
    Pp = k0 * (omega * (ex * sp - ey * cp + p[d0 + M - 1]) - 2.0 * (vx * cp + vy * sp)) * ih * ih * ih
    for k in range(M):
        ck = p[c0 + k]; sk = p[s0 + k]
        ih = 1.0 / (c + p[h0 + k] - ex * ck - ey * sk)
        Pk = k0 * (omega * (ex * sk - ey * ck + p[d0 + k]) - 2.0 * (vx * ck + vy * sk)) * ih * ih * ih
        inv += ih
        sx, sy = _clipped_add(sx, sy, Pk, Pp, ck, sk, cp, sp)
        Pp = Pk; cp = ck; sp = sk
    d = 2.0 * math.pi / M
    return -R * d * sx, -R * d * sy, -mu * omega * R ** 3 * L * d * inv


@njit(cache=True)
def _long_slope(k, ex, ey, vx, vy, omega, p, off, c, C):
    """``(1/h, h^3, h^3 p' / (6 mu R^2))`` at node ``k`` of the long film (module docstring)."""
    M = int(p[off]); h0 = off + 2
    ck = p[h0 + 2 * M + k]; sk = p[h0 + 3 * M + k]
    h = c + p[h0 + k] - ex * ck - ey * sk
    ih = 1.0 / h
    Q = -vx * sk - vy * (1.0 - ck)
    return ih, h * h * h, (omega * h + 2.0 * Q + C) * ih * ih * ih


@njit(cache=True)
def _long_level(ex, ey, vx, vy, omega, mu, R, c, p, off):
    """``(C, p0, sum 1/h)``: the periodicity constant of ``h^3 p'`` and the pressure at node 0 [Pa]
    that make ``oint h^3 p = 0`` (module docstring)."""
    M = int(p[off])
    sa = 0.0; sb = 0.0; inv = 0.0
    for k in range(M):
        ih, h3, a = _long_slope(k, ex, ey, vx, vy, omega, p, off, c, 0.0)
        sa += a; sb += ih * ih * ih; inv += ih
    C = -sa / sb
    k6 = 0.5 * (2.0 * math.pi / M) * 6.0 * mu * R * R
    ih, h3, gp = _long_slope(0, ex, ey, vx, vy, omega, p, off, c, C)
    pt = 0.0; m3 = 0.0; s3 = h3
    for k in range(1, M):
        ih, h3, g = _long_slope(k, ex, ey, vx, vy, omega, p, off, c, C)
        pt += k6 * (gp + g)
        m3 += h3 * pt; s3 += h3
        gp = g
    return C, -m3 / s3, inv


@njit(cache=True)
def long_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_max, p, off):
    """Sommerfeld film of the worn bore, periodic, ambient level ``oint h^3 p = 0``, Gümbel
    condition: ``(f_x, f_y, t_j)`` [N, N, N m] in the bushing frame (module docstring)."""
    M = int(p[off]); c0 = off + 2 + 2 * M; s0 = off + 2 + 3 * M
    s = thinnest_scale(ex, ey, p, off, c, eps_max)
    ex *= s; ey *= s
    C, p0, inv = _long_level(ex, ey, vx, vy, omega, mu, R, c, p, off)
    k6 = 0.5 * (2.0 * math.pi / M) * 6.0 * mu * R * R
    # forces from the clipped pressure: the cumulative sum again, node 0 (= node M) last
    ih, h3, gp = _long_slope(0, ex, ey, vx, vy, omega, p, off, c, C)
    pp = p0; cp = p[c0]; sp = p[s0]
    sx = 0.0; sy = 0.0
    for k in range(1, M + 1):
        if k < M:
            ih, h3, g = _long_slope(k, ex, ey, vx, vy, omega, p, off, c, C)
            pk = pp + k6 * (gp + g)
            ck = p[c0 + k]; sk = p[s0 + k]
        else:
            g = gp; pk = p0; ck = p[c0]; sk = p[s0]
        sx, sy = _clipped_add(sx, sy, pk, pp, ck, sk, cp, sp)
        pp = pk; gp = g; cp = ck; sp = sk
    d = 2.0 * math.pi / M
    return -R * L * d * sx, -R * L * d * sy, -mu * omega * R ** 3 * L * d * inv


@njit(cache=True)
def asperity_force(ex, ey, p, off, c, R, L, KE, sigma, tab):
    """Greenwood-Tripp asperity force of the worn bore ``(f_x, f_y)`` [N] in the bushing frame
    (pushes the journal back): the trapezoidal rule over the nodes inside the ``F_5/2`` table
    (``tab`` its offset in ``p``)."""
    M = int(p[off]); h0 = off + 2; c0 = h0 + 2 * M; s0 = h0 + 3 * M
    t_max = p[tab] + p[tab + 1] * (p[tab + 2] - 1.0)
    sx = 0.0; sy = 0.0
    if c + p[off + 1] - math.sqrt(ex * ex + ey * ey) >= t_max * sigma:   # no node inside the table
        return 0.0, 0.0
    for k in range(M):
        ck = p[c0 + k]; sk = p[s0 + k]
        t = (c + p[h0 + k] - ex * ck - ey * sk) / sigma
        if t < t_max:
            f = gt.f52(t, p, tab)
            sx += f * ck; sy += f * sk
    d = 2.0 * math.pi / M
    return -R * L * KE * d * sx, -R * L * KE * d * sy
