"""Finite-length bearing for the dynamics: the Reynolds solution (:mod:`.reynolds`) tabulated.

One Reynolds solve costs milliseconds (and an LCP solve tens of them); the dynamics needs the
film force at every right-hand side, so the dimensionless forces ``(f_e, f_t)`` of
:func:`.reynolds.solve_film` are tabulated once per bearing (its ``L/D``, cavitation and mesh)
over

* the eccentricity ratio on ``eps(u) = 1 - (1 - EPS_TABLE)^u``, ``u`` uniform in ``[0, 1]`` (nodes
  crowd towards ``eps = 1``, where the forces grow like ``(1 - eps^2)^(-5/2)``), and
* the squeeze angle ``psi = atan2(2 eps_dot, w)`` in ``[-pi, pi)`` (periodic),

stored scaled by ``(1 - eps^2)^(5/2)`` and interpolated by a bicubic Catmull-Rom spline
(compiled, :func:`finite_kernel`).  The dimensional force is ``F = (6 mu R^4 V / c^2)(f_e, f_t)``,
``V = sqrt(w^2 + 4 eps_dot^2)``.  Above ``EPS_TABLE`` the scaled force is held at its last value
(the growth ``(1 - eps^2)^(-5/2)`` of the short and long bearings continues it).  The
interpolation error against direct solves off the nodes is measured in
``tests/test_lubrication.py`` (and stated in ``docs/lubrication.md``).

Tables are kept in memory per process and in the workbench cache folder
(:func:`workbench.runtime.caches.cache_root`, files ``lubrication-*.npz``).
"""
from __future__ import annotations

import functools
import hashlib
import math

import numpy as np

from ..jit import njit
from .kinematics import couette_torque, film_state, to_frame

EPS_TABLE = 0.95
#: head of the packed parameters: [mu, R, L, c, eps_cap, n_u, n_psi, eps_table]
P_HEAD = 8


def eps_nodes(n_u: int) -> np.ndarray:
    u = np.linspace(0.0, 1.0, n_u)
    return 1.0 - (1.0 - EPS_TABLE) ** u


def psi_nodes(n_psi: int) -> np.ndarray:
    return -math.pi + 2.0 * math.pi * np.arange(n_psi) / n_psi


def build_table(l_over_d: float, cavitation: str = "gumbel", n_u: int = 25, n_psi: int = 36,
                n_theta: int = 96, n_y: int = 25) -> np.ndarray:
    """Scaled forces ``(2, n_u, n_psi)``: ``(f_e, f_t) (1 - eps^2)^(5/2)`` at the table nodes."""
    # the FE solver (scipy.sparse, scikit-fem: about 1 s to import) only when a table is built:
    # every command imports this model's plugin, few build a table
    from .reynolds import gumbel_sweep, solve_film
    eps = eps_nodes(n_u)
    psi = psi_nodes(n_psi)
    out = np.empty((2, n_u, n_psi))
    for i, e in enumerate(eps):
        if cavitation == "gumbel":
            out[:, i, :] = gumbel_sweep(float(e), l_over_d, psi, n_theta=n_theta, n_y=n_y).T * (1 - e * e) ** 2.5
            continue
        for k, ps in enumerate(psi):
            s = solve_film(float(e), l_over_d, float(ps), cavitation=cavitation, n_theta=n_theta, n_y=n_y)
            out[0, i, k] = s.f_e * (1 - e * e) ** 2.5
            out[1, i, k] = s.f_t * (1 - e * e) ** 2.5
    # a centred journal without squeeze carries nothing (eps = 0, psi = 0 or -pi): exact zeros
    # instead of the solver's rounding, so the kernel gives exactly no force there
    out[:, 0, np.isclose(np.abs(np.sin(psi)), 0.0, atol=1e-12)] = 0.0
    return out


@functools.lru_cache(maxsize=16)
def table(l_over_d: float, cavitation: str = "gumbel", n_u: int = 25, n_psi: int = 36,
          n_theta: int = 96, n_y: int = 25) -> np.ndarray:
    """:func:`build_table`, from the memory or disk cache when built before."""
    key = f"{l_over_d!r}-{cavitation}-{n_u}-{n_psi}-{n_theta}-{n_y}-v2"
    path = None
    try:
        from ..runtime.caches import cache_root
        root = cache_root()
        root.mkdir(parents=True, exist_ok=True)
        path = root / f"lubrication-{hashlib.sha1(key.encode()).hexdigest()[:16]}.npz"
        if path.exists():
            with np.load(path) as z:
                if str(z["key"]) == key:
                    return z["table"]
    except OSError:
        path = None
    tab = build_table(l_over_d, cavitation, n_u, n_psi, n_theta, n_y)
    if path is not None:
        try:
            tmp = path.with_suffix(".tmp.npz")
            np.savez(tmp, table=tab, key=np.array(key))
            tmp.replace(path)
        except OSError:
            pass
    return tab


def pack(mu, R, L, c, eps_cap, tab: np.ndarray) -> np.ndarray:
    """Parameter array of :func:`finite_kernel`: the head, the table, and a trailing 0 (the flag
    of :mod:`.worn_finite`: the circular bore)."""
    _, n_u, n_psi = tab.shape
    return np.concatenate([[mu, R, L, c, eps_cap, n_u, n_psi, EPS_TABLE], tab.ravel(), [0.0]])


@njit(cache=True)
def _cr(t):
    """Catmull-Rom weights at ``t`` in [0, 1]."""
    t2 = t * t; t3 = t2 * t
    return (0.5 * (-t3 + 2.0 * t2 - t), 0.5 * (3.0 * t3 - 5.0 * t2 + 2.0),
            0.5 * (-3.0 * t3 + 4.0 * t2 + t), 0.5 * (t3 - t2))


@njit(cache=True)
def interpolate(eps, psi, p):
    """Dimensionless ``(f_e, f_t)`` at ``(eps, psi)`` from the packed table."""
    return interpolate_at(eps, psi, p, P_HEAD)


@njit(cache=True)
def table_cell(eps, psi, n_u, n_psi, eps_t):
    """``(i, t_u, k, t_psi)``: the table cell of ``(eps, psi)`` and the fractions within it, on the
    nodes :func:`eps_nodes` (clamped at ``eps_t``) and :func:`psi_nodes` (``k`` not yet wrapped)."""
    e = min(eps, eps_t)
    u = math.log(1.0 - e) / math.log(1.0 - eps_t) * (n_u - 1)
    i = min(int(u), n_u - 2)
    v = (psi + math.pi) / (2.0 * math.pi) * n_psi
    k = int(math.floor(v))
    return i, u - i, k, v - k


@njit(cache=True)
def interpolate_at(eps, psi, p, base):
    """:func:`interpolate` of a table of the same grid (``p[5:8]``) stored from ``p[base]`` on
    (:mod:`.worn_finite` packs a second one)."""
    n_u = int(p[5]); n_psi = int(p[6]); eps_t = p[7]
    i, tu, k, tv = table_cell(eps, psi, n_u, n_psi, eps_t)
    wu = _cr(tu); wv = _cr(tv)
    fe = 0.0; ft = 0.0
    off = n_u * n_psi
    for a in range(4):
        ii = min(max(i - 1 + a, 0), n_u - 1)
        for b in range(4):
            kk = (k - 1 + b) % n_psi
            wgt = wu[a] * wv[b]
            fe += wgt * p[base + ii * n_psi + kk]
            ft += wgt * p[base + off + ii * n_psi + kk]
    s = (1.0 - eps * eps) ** 2.5
    return fe / s, ft / s


@njit(cache=True)
def finite_forces(eps, eps_dot, w, p):
    """``(F_e, F_t)`` [N] of the tabulated finite bearing."""
    mu = p[0]; R = p[1]; c = p[3]
    V = math.sqrt(w * w + 4.0 * eps_dot * eps_dot)
    if V == 0.0:
        return 0.0, 0.0
    fe, ft = interpolate(eps, math.atan2(2.0 * eps_dot, w), p)
    k = 6.0 * mu * R ** 4 * V / (c * c)
    return k * fe, k * ft


@njit(cache=True)
def finite_kernel(ex, ey, vx, vy, omega, p):
    """Lubrication kernel (:class:`workbench.models.LubricationModel`) of the tabulated bearing."""
    mu = p[0]; R = p[1]; L = p[2]; c = p[3]; eps_cap = p[4]
    eps, eps_dot, w, uex, uey = film_state(ex, ey, vx, vy, omega, c)
    eps = min(eps, eps_cap)
    fe, ft = finite_forces(eps, eps_dot, w, p)
    fx, fy = to_frame(fe, ft, uex, uey)
    return fx, fy, couette_torque(mu, R, L, c, eps, omega)
