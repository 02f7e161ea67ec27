"""Mass-conserving (JFO) finite bearing for the dynamics: the grooved JFO film tabulated.

JFO cavitation (:func:`.reynolds.solve_film` with ``cavitation="jfo"``) needs a feed: an axial
groove at ambient pressure, flooded, fixed in the bushing at the bushing angle ``psi_g``.  In the
line-of-centres frame of the film (``theta`` from the largest film, bushing angle ``alpha + pi +
theta``, ``alpha = atan2(e_y, e_x)`` the direction of the eccentricity) it sits at

    theta_g = psi_g - alpha - pi   (mod 2 pi),

so the table of the Gümbel/Reynolds bearing (:mod:`.finite_bearing`, axes ``eps`` and the
squeeze angle ``psi = atan2(2 eps_dot, w)``) gains the axis ``theta_g``.  The dimensionless forces
``(f_e, f_t)`` are stored scaled by ``(1 - eps^2)^(5/2)`` on

* ``eps(u) = 1 - (1 - EPS_TABLE)^u``, ``u`` uniform (as :mod:`.finite_bearing`),
* ``psi`` uniform in ``[-pi, pi)`` and ``theta_g`` uniform in ``[0, 2 pi)`` (both periodic),

and interpolated by a tricubic Catmull-Rom spline (compiled, allocation-free: :func:`jfo_kernel`).

**Where the quasi-static JFO problem has no solution.** The table's JFO film is quasi-static (the
squeeze source ``theta_f dh/dt``, without the memory ``h d theta_f / dt`` of the cavitated zone;
:mod:`.reynolds`).  Under a separating squeeze (``eps_dot < 0``) strong enough beside the wedge,
the cavitated zone's balance ``cos(psi) d(theta_f H)/dtheta + sin(psi) theta_f cos(theta) = 0``
has no fill ``0 <= theta_f <= 1`` that also meets the full film (under a pure separation it asks
``theta_f = 0`` everywhere: the void fraction is set by the history, not by the state), and the
active-set Newton of :func:`.reynolds.solve_film` cycles without converging (so it does at a few
approaching states too, cause not found: docs/lubrication.md).  At those nodes the
table holds the Swift-Stieber (Reynolds) film of the same grooved bearing (the solution the JFO
one reduces to when the film does not reform) and :func:`build_table` marks them (``fallback``);
their share is stated in ``docs/lubrication.md``.  A node counts as solved by JFO when the
Newton converged (``info["jfo_converged"]`` of :func:`.reynolds.solve_film`: the flux residual below
``reynolds.JFO_TOL`` of the Couette flux, the fill within [0, 1]).

The table costs ``n_u n_psi n_g`` JFO solves (~0.05-0.3 s each): minutes, so the shipped
resolution is package data (``workbench/lubrication/data/``) built by
``python -m workbench.lubrication.jfo_table`` (:func:`main`); another L/D or mesh is built on first
use and cached like the Gümbel table (:func:`table`).
"""
from __future__ import annotations

import functools
import hashlib
import math
import time
from pathlib import Path

import numpy as np

from ..jit import njit
from . import finite_bearing as fb
from .kinematics import couette_torque, film_state, to_frame
from .worn_film import thinnest_scale as _thinnest
from .worn_finite import harmonic_film as _harmonic

EPS_TABLE = 0.95
#: Newton iterations before a node is declared without a quasi-static JFO solution
MAX_ITER = 60
#: the shipped tables' grids (l_over_d, n_u, n_psi, n_g, n_theta, n_y): L/D = 2 of the lubricated
#: Flores slider-crank (bearing length 40 mm on a 10 mm journal) and L/D = 0.5 of the conformance
#: suite's steel joint and of the Gümbel table's tests
SHIPPED = ((2.0, 13, 24, 16, 96, 17), (0.5, 13, 24, 16, 96, 17))
#: head of the packed parameters: [mu, R, L, c, eps_cap, n_u, n_psi, n_g, eps_table, psi_groove]
P_HEAD = 10
#: the deepest scar (largest minus least wear depth, over the nominal clearance) at which the
#: reduced worn model's error was measured (docs/lubrication.md); deeper bores are flagged [1]
DEPTH_VALIDATED = 0.5
DATA = Path(__file__).resolve().parent / "data"


def eps_nodes(n_u: int) -> np.ndarray:
    return 1.0 - (1.0 - EPS_TABLE) ** np.linspace(0.0, 1.0, n_u)


def psi_nodes(n_psi: int) -> np.ndarray:
    return fb.psi_nodes(n_psi)


def groove_nodes(n_g: int) -> np.ndarray:
    return 2.0 * math.pi * np.arange(n_g) / n_g


def solve_node(eps, l_over_d, psi, theta_g, n_theta, n_y):
    """``(f_e, f_t, fallback)`` of one state: the JFO film, or the Reynolds film where JFO has no
    quasi-static solution (module docstring)."""
    from .reynolds import solve_film
    s = solve_film(float(eps), l_over_d, float(psi), cavitation="jfo", groove=True,
                   groove_angle=float(theta_g), n_theta=n_theta, n_y=n_y, max_iter=MAX_ITER, warn=False)
    if s.info.get("jfo_converged", False):
        return s.f_e, s.f_t, False
    s = solve_film(float(eps), l_over_d, float(psi), cavitation="reynolds", groove=True,
                   groove_angle=float(theta_g), n_theta=n_theta, n_y=n_y)
    return s.f_e, s.f_t, True


def build_table(l_over_d: float, n_u: int, n_psi: int, n_g: int, n_theta: int = 96, n_y: int = 17,
                progress=None):
    """``(table, fallback)``: scaled forces ``(2, n_u, n_psi, n_g)`` and the mask ``(n_u, n_psi,
    n_g)`` of the nodes that hold the Reynolds film (module docstring)."""
    tab = np.empty((2, n_u, n_psi, n_g))
    fall = np.zeros((n_u, n_psi, n_g), bool)
    for i, e in enumerate(eps_nodes(n_u)):
        s5 = (1.0 - e * e) ** 2.5
        for k, ps in enumerate(psi_nodes(n_psi)):
            for m, g in enumerate(groove_nodes(n_g)):
                fe, ft, fb_ = solve_node(e, l_over_d, ps, g, n_theta, n_y)
                tab[0, i, k, m] = fe * s5; tab[1, i, k, m] = ft * s5; fall[i, k, m] = fb_
        if progress is not None:
            progress(i + 1, n_u)
    # a centred journal without squeeze carries nothing: exact zeros
    tab[:, 0, np.isclose(np.abs(np.sin(psi_nodes(n_psi))), 0.0, atol=1e-12), :] = 0.0
    return tab, fall


def _key(l_over_d, n_u, n_psi, n_g, n_theta, n_y):
    return f"jfo-{l_over_d!r}-{n_u}-{n_psi}-{n_g}-{n_theta}-{n_y}-v1"


def shipped_path(l_over_d, n_u, n_psi, n_g, n_theta, n_y) -> Path:
    return DATA / f"jfo_table_ld{l_over_d:g}_{n_u}x{n_psi}x{n_g}_{n_theta}x{n_y}.npz"


@functools.lru_cache(maxsize=8)
def table(l_over_d: float, n_u: int = 13, n_psi: int = 24, n_g: int = 16, n_theta: int = 96,
          n_y: int = 17):
    """``(table, fallback)`` of :func:`build_table`: the shipped package data, else the disk
    cache, else built (minutes) and cached."""
    key = _key(l_over_d, n_u, n_psi, n_g, n_theta, n_y)
    paths = [shipped_path(l_over_d, n_u, n_psi, n_g, n_theta, n_y)]
    cached = None
    try:
        from ..runtime.caches import cache_root
        root = cache_root()
        cached = root / f"lubrication-{hashlib.sha1(key.encode()).hexdigest()[:16]}.npz"
        paths.append(cached)
    except OSError:
        pass
    for path in paths:
        if path.exists():
            with np.load(path) as z:
                if str(z["key"]) == key:
                    return z["table"], z["fallback"]
    tab, fall = build_table(l_over_d, n_u, n_psi, n_g, n_theta, n_y)
    if cached is not None:
        try:
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_suffix(".tmp.npz")
            np.savez(tmp, table=tab, fallback=fall, key=np.array(key))
            tmp.replace(cached)
        except OSError:
            pass
    return tab, fall


def pack(mu, R, L, c, eps_cap, psi_groove, tab: np.ndarray) -> np.ndarray:
    """Parameters of :func:`jfo_kernel`: ``[mu, R, L, c, eps_cap, n_u, n_psi, n_g, EPS_TABLE,
    psi_groove]`` [Pa s, m, m, m, 1, -, -, -, 1, rad], the table, a trailing 0 (circular bore)."""
    _, n_u, n_psi, n_g = tab.shape
    return np.concatenate([[mu, R, L, c, eps_cap, n_u, n_psi, n_g, EPS_TABLE, psi_groove],
                           tab.ravel(), [0.0]])


@njit(cache=True)
def interpolate(eps, psi, theta_g, p):
    """Dimensionless ``(f_e, f_t)`` at ``(eps, psi, theta_g)`` from the packed table (tricubic
    Catmull-Rom, periodic in ``psi`` and ``theta_g``; clamped in ``eps``)."""
    n_u = int(p[5]); n_psi = int(p[6]); n_g = int(p[7]); eps_t = p[8]
    i, tu, k, tv = fb.table_cell(eps, psi, n_u, n_psi, eps_t)
    g = (theta_g / (2.0 * math.pi)) % 1.0 * n_g
    m = int(math.floor(g))
    tg = g - m
    wu = fb._cr(tu); wv = fb._cr(tv); wg = fb._cr(tg)
    fe = 0.0; ft = 0.0
    off = n_u * n_psi * n_g
    for a in range(4):
        ii = min(max(i - 1 + a, 0), n_u - 1)
        for b in range(4):
            kk = (k - 1 + b) % n_psi
            wab = wu[a] * wv[b]
            row = P_HEAD + (ii * n_psi + kk) * n_g
            for d in range(4):
                mm = (m - 1 + d) % n_g
                wgt = wab * wg[d]
                fe += wgt * p[row + mm]
                ft += wgt * p[row + off + mm]
    s = (1.0 - eps * eps) ** 2.5
    return fe / s, ft / s


@njit(cache=True)
def jfo_circular(ex, ey, vx, vy, omega, p):
    """The tabulated grooved JFO bearing on the circular bore: ``(f_x, f_y, t_j)`` [N, N, N m], the
    groove at ``theta_g = psi_g - alpha - pi`` of the line of centres."""
    mu = p[0]; R = p[1]; L = p[2]; c = p[3]; eps_cap = p[4]
    eps, eps_dot, w, uex, uey = film_state(ex, ey, vx, vy, omega, c)
    eps = min(eps, eps_cap)
    V = math.sqrt(w * w + 4.0 * eps_dot * eps_dot)
    if V == 0.0:
        return 0.0, 0.0, couette_torque(mu, R, L, c, eps, omega)
    alpha = math.atan2(uey, uex)
    fe, ft = interpolate(eps, math.atan2(2.0 * eps_dot, w), p[9] - alpha - math.pi, p)
    k = 6.0 * mu * R ** 4 * V / (c * c)
    fx, fy = to_frame(k * fe, k * ft, uex, uey)
    return fx, fy, couette_torque(mu, R, L, c, eps, omega)


def pack_worn(mu, R, L, c, eps_cap, psi_groove, tab: np.ndarray, depth) -> np.ndarray:
    """Parameters of :func:`jfo_kernel` on a bushing worn by ``depth`` [m] (uniform body-fixed
    nodes) with the nominal radial clearance ``c`` [m]: the profile's least depth is a clearance
    increase (exact; a uniform profile packs the circular table at ``c + d``); a scar packs the
    reduced worn model (:func:`jfo_kernel`): the flag 1, the offset of the circular bore's block,
    the worn bore's block and the circular one (:func:`.worn_film.bore_block`)."""
    from .worn_film import bore_block
    h = np.asarray(depth, float)
    if h.ndim != 1 or len(h) < 3 or not np.all(np.isfinite(h)):
        raise ValueError(f"a bushing wear profile must be a 1-D array of >= 3 finite depths [m], got shape {h.shape}")
    lo = float(h.min())
    head = pack(mu, R, L, c + lo, eps_cap, psi_groove, tab)
    if np.all(h == h[0]):
        return head
    head[-1] = 1.0
    worn = bore_block(h - lo)
    circ = bore_block(np.zeros(len(h)))
    off_circ = len(head) + 1 + len(worn)
    return np.concatenate([head, [float(off_circ)], worn, circ])


@njit(cache=True)
def jfo_kernel(ex, ey, vx, vy, omega, p):
    """Lubrication kernel of the grooved JFO bearing (:class:`workbench.models.LubricationModel`):
    the table (:func:`jfo_circular`) on a circular bore (flag 0 after the table); on a worn one
    (flag 1) the reduced worn model of :mod:`.worn_finite` with the JFO table as its base: the
    worn bore's harmonic short/long film times the complex ratio of the JFO table to the circular
    bore's harmonic film at the same state, ``F = (F_JFO / F_harm,circ) F_harm,worn`` (its error
    against direct worn JFO solves in docs/lubrication.md)."""
    n = int(p[5]) * int(p[6]) * int(p[7])
    flag = P_HEAD + 2 * n
    if p[flag] == 0.0:
        return jfo_circular(ex, ey, vx, vy, omega, p)
    from_worn = flag + 2
    from_circ = int(p[flag + 1])
    mu = p[0]; R = p[1]; L = p[2]; c = p[3]; eps_cap = p[4]
    fx, fy, tj = _harmonic(ex, ey, vx, vy, omega, mu, R, L, c, eps_cap, p, from_worn)
    s = _thinnest(ex, ey, p, from_worn, c, eps_cap)
    ex *= s; ey *= s
    eps, eps_dot, w, uex, uey = film_state(ex, ey, vx, vy, omega, c)
    V = math.sqrt(w * w + 4.0 * eps_dot * eps_dot)
    if V == 0.0:
        return fx, fy, tj
    eps = min(eps, eps_cap)
    alpha = math.atan2(uey, uex)
    fe, ft = interpolate(eps, math.atan2(2.0 * eps_dot, w), p[9] - alpha - math.pi, p)
    k = 6.0 * mu * R ** 4 * V / (c * c)
    fe *= k; ft *= k
    cx, cy, _ = _harmonic(ex, ey, vx, vy, omega, mu, R, L, c, eps_cap, p, from_circ)
    he = cx * uex + cy * uey; ht = -cx * uey + cy * uex
    den = he * he + ht * ht
    if den == 0.0:                 # no circular harmonic film to compare with: the film as it is
        return fx, fy, tj
    zr = (fe * he + ft * ht) / den
    zi = (ft * he - fe * ht) / den
    return zr * fx - zi * fy, zr * fy + zi * fx, tj


def main(argv=None):
    """Build the shipped JFO tables into ``workbench/lubrication/data/`` (``python -m
    workbench.lubrication.jfo_table``; about 10 min per table on one core)."""
    import argparse
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--force", action="store_true", help="rebuild tables that exist")
    a = ap.parse_args(argv)
    DATA.mkdir(parents=True, exist_ok=True)
    for grid in SHIPPED:
        path = shipped_path(*grid)
        if path.exists() and not a.force:
            print(f"{path.name}: exists")
            continue
        t0 = time.perf_counter()
        tab, fall = build_table(*grid, progress=lambda i, n: print(
            f"  eps row {i}/{n}, {time.perf_counter() - t0:.0f} s", flush=True))
        np.savez_compressed(path, table=tab, fallback=fall, key=np.array(_key(*grid)))
        print(f"{path.name}: {tab.shape}, {fall.mean():.1%} Reynolds fallback nodes, "
              f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
