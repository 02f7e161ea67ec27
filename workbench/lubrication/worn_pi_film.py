"""The pi films (half-Sommerfeld / Gümbel fixed half) on a worn bushing: quadratures (compiled).

The pi film of Flores et al. (2006) (short bearing) and Flores et al. (2009) (long bearing)
integrates the pressure over the fixed half ``0 <= theta <= pi`` of the line of centres
(``theta`` from the largest film, in the sense of the surfaces' motion) and ignores the other
half, without clipping (:mod:`.short_bearing`, :mod:`.long_bearing`).  On a worn bushing the film
thickness gains the bore's wear depth ``h_w(psi)`` (:mod:`.worn_film`, bushing frame, ``psi =
alpha + pi + theta``, ``alpha`` the direction of the eccentricity):

    h(psi) = c + h_w(psi) - (e_x cos psi + e_y sin psi),

and the Reynolds source in the bushing frame is ``omega dh/dpsi + 2 dh/dt`` (``dh/dt = -(v_x cos
psi + v_y sin psi)`` at a fixed bushing angle; :mod:`.worn_film`'s docstring), which is the
line-of-centres source ``w dh/dtheta + 2 dh/dt|_theta`` of the closed forms for the circular bore
(and carries the worn profile's turning with the whirl, ``gamma_dot dh_w/dtheta``, of
:func:`.reynolds.solve_film` with ``whirl``).  On the window ``psi_a = alpha + pi <= psi <= psi_a + pi``:

* **short** (Ocvirk): ``P(psi) = -mu L^3 (omega dh/dpsi + 2 dh/dt) / (2 h^3)`` [Pa m], integrated
  as it is (no clipping: the pi film); force ``-R int P (cos, sin) dpsi``;
* **long** (Sommerfeld): ``h^3 p' = 6 mu R^2 (omega h + 2 Q) + C`` with ``Q = int_{psi_a} dh/dt``
  (in closed form), ``p(psi_a) = 0`` and ``C`` from ``p(psi_a + pi) = 0`` (the boundary conditions
  of the closed form); force ``-R L int p (cos, sin) dpsi``.

For the circular bore these are the closed forms :func:`.short_bearing.ocvirk_forces` and
:func:`.long_bearing.sommerfeld_forces` (wedge, squeeze and whirl).  The shear moment is the worn
Couette moment of :mod:`.worn_film` (over the whole turn, as the closed forms' Petrov moment).

Quadrature: the trapezoidal rule on the block's uniform nodes inside the window plus its two ends
(``psi_a`` and ``psi_a + pi`` generally fall between nodes; the profile is interpolated linearly
there), so the window's ends are exact; second order in the node spacing (measured against the
closed forms in tests/lubrication/test_worn_pi_film.py).  The film is floored as in
:mod:`.worn_film` (``thinnest_scale``).
"""
from __future__ import annotations

import math

import numpy as np

from ..jit import njit
from .worn_film import thinnest_scale


@njit(cache=True)
def _window(ex, ey, M):
    """``(psi_a, k_a, n)``: the window's start [rad], the first node after it (unwrapped index)
    and the number of nodes strictly inside ``(psi_a, psi_a + pi)``."""
    alpha = math.atan2(ey, ex)
    d = 2.0 * math.pi / M
    psi_a = alpha + math.pi                      # in (0, 2 pi]
    ka = int(math.floor(psi_a / d)) + 1
    kb = int(math.ceil((psi_a + math.pi) / d)) - 1
    return psi_a, ka, kb - ka + 1


@njit(cache=True)
def _points(ex, ey, p, off, c):
    """Window points ``psi`` [rad] (the ends and the nodes between), their ``h`` [m], ``dh_w/dpsi``
    [m/rad], ``cos psi`` and ``sin psi``."""
    M = int(p[off]); h0 = off + 2; d0 = h0 + M; c0 = h0 + 2 * M; s0 = h0 + 3 * M
    psi_a, ka, n = _window(ex, ey, M)
    d = 2.0 * math.pi / M
    psi = np.empty(n + 2); hw = np.empty(n + 2); dw = np.empty(n + 2)
    cs = np.empty(n + 2); sn = np.empty(n + 2)
    for j in range(2):                            # the ends, profile interpolated linearly
        t = psi_a + j * math.pi
        u = t / d
        i = int(math.floor(u)); f = u - i
        i0 = i % M; i1 = (i + 1) % M
        k = 0 if j == 0 else n + 1
        psi[k] = t
        hw[k] = p[h0 + i0] * (1.0 - f) + p[h0 + i1] * f
        dw[k] = p[d0 + i0] * (1.0 - f) + p[d0 + i1] * f
        cs[k] = math.cos(t); sn[k] = math.sin(t)
    for j in range(n):
        k = (ka + j) % M
        psi[j + 1] = (ka + j) * d
        hw[j + 1] = p[h0 + k]; dw[j + 1] = p[d0 + k]
        cs[j + 1] = p[c0 + k]; sn[j + 1] = p[s0 + k]
    h = c + hw - ex * cs - ey * sn
    return psi, h, dw, cs, sn


@njit(cache=True)
def _shear(ex, ey, mu, omega, R, L, c, p, off):
    """Couette moment of the worn film over the whole turn [N m] (:mod:`.worn_film`)."""
    M = int(p[off]); h0 = off + 2; c0 = h0 + 2 * M; s0 = h0 + 3 * M
    inv = 0.0
    for k in range(M):
        inv += 1.0 / (c + p[h0 + k] - ex * p[c0 + k] - ey * p[s0 + k])
    return -mu * omega * R ** 3 * L * (2.0 * math.pi / M) * inv


@njit(cache=True)
def _trapz2(psi, f, cs, sn):
    """``(int f cos, int f sin)`` over the window points, trapezoidal rule."""
    sx = 0.0; sy = 0.0
    for k in range(len(psi) - 1):
        w = 0.5 * (psi[k + 1] - psi[k])
        sx += w * (f[k] * cs[k] + f[k + 1] * cs[k + 1])
        sy += w * (f[k] * sn[k] + f[k + 1] * sn[k + 1])
    return sx, sy


@njit(cache=True)
def short_pi_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_max, p, off):
    """Ocvirk pi film of the worn bore: ``(f_x, f_y, t_j)`` [N, N, N m] in the bushing frame."""
    s = thinnest_scale(ex, ey, p, off, c, eps_max)
    ex *= s; ey *= s
    psi, h, dw, cs, sn = _points(ex, ey, p, off, c)
    src = omega * (ex * sn - ey * cs + dw) - 2.0 * (vx * cs + vy * sn)
    P = (-mu * L ** 3 / 2.0) * src / (h * h * h)
    sx, sy = _trapz2(psi, P, cs, sn)
    return -R * sx, -R * sy, _shear(ex, ey, mu, omega, R, L, c, p, off)


@njit(cache=True)
def long_pi_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_max, p, off):
    """Sommerfeld pi film of the worn bore, ``p = 0`` at both ends of the window: ``(f_x, f_y,
    t_j)`` [N, N, N m] in the bushing frame."""
    s = thinnest_scale(ex, ey, p, off, c, eps_max)
    ex *= s; ey *= s
    psi, h, dw, cs, sn = _points(ex, ey, p, off, c)
    n = len(psi)
    ca = cs[0]; sa = sn[0]
    Q = -vx * (sn - sa) + vy * (cs - ca)          # int_{psi_a}^{psi} -(v_x cos + v_y sin)
    ih3 = 1.0 / (h * h * h)
    a = (omega * h + 2.0 * Q) * ih3
    ia = 0.0; ib = 0.0
    for k in range(n - 1):
        w = 0.5 * (psi[k + 1] - psi[k])
        ia += w * (a[k] + a[k + 1]); ib += w * (ih3[k] + ih3[k + 1])
    C = -ia / ib
    k6 = 6.0 * mu * R * R
    pr = np.zeros(n)
    for k in range(n - 1):
        w = 0.5 * (psi[k + 1] - psi[k])
        pr[k + 1] = pr[k] + k6 * w * (a[k] + a[k + 1] + C * (ih3[k] + ih3[k + 1]))
    sx, sy = _trapz2(psi, pr, cs, sn)
    return -R * L * sx, -R * L * sy, _shear(ex, ey, mu, omega, R, L, c, p, off)
