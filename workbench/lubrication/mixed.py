"""Mixed lubrication of a journal bearing: the load shared by the film and the asperities.

The journal feels, at every instant,

* the **film** force of a short (Ocvirk with the Gümbel condition,
  :func:`.short_bearing.gumbel_forces`) or long (Sommerfeld, pi film, :mod:`.long_bearing`) bearing at the eccentricity ratio ``min(eps, eps_film_max)`` (the film
  formulas are singular at ``eps = 1``, where the asperities carry the load);
* the **asperity** pressure of Greenwood & Tripp (1970) (:mod:`.greenwood_tripp`) on the
  nominal film ``h(theta) = c (1 + eps cos theta)`` (``theta`` from the largest film), integrated
  over the bore: ``F_a = R L int p_a(h(theta)) (cos theta, sin theta) dtheta`` along the
  eccentricity and normal to it (the second vanishes by symmetry);
* the **friction** of both parts (Patir & Cheng (1979) / Gelinck & Schipper (2000) share the
  friction the same way): film shear, Petrov's Couette moment ``-2 pi mu R^3 L omega / (c
  sqrt(1 - eps^2))`` (:func:`.kinematics.couette_torque`), plus boundary friction
  ``mu_b |F_a|`` at the contact, against the slip ``v_s = R omega + c eps gamma_dot``
  (regularised: ``v_s / sqrt(v_s^2 + v_reg^2)``).

Nothing in the model knows about regimes: at a given load the eccentricity at which film and
asperities together carry it decides how much each part carries and what the friction is, so the
Stribeck curve (friction coefficient against the Hersey number ``mu N / P``) comes out of the
force balance (:func:`steady_state`, :func:`stribeck`).

On a worn bushing (``pack(..., bore=depth)``, :mod:`.worn_film`) the asperities and the short or
long films (pi or Gümbel) integrate the worn gap over the bore (:mod:`.worn_pi_film` for the pi
film).  There
the asperity force has a component across the line of centres too (the worn gap is not mirror-
symmetric about it): it belongs to the asperities (their load, their boundary friction
``mu_b |F_a|`` with ``|F_a|`` the resultant's magnitude, their stored energy), not to the film.

The wear law of a mixed joint is fed with the asperity load only: the model's parts kernel
(:func:`mixed_parts_kernel`) hands the solver the asperity part of its force (both components of
the asperity pressure's resultant and the boundary friction), which the solver records as the
joint's contact force (the wear loop's load: the resultant's magnitude) and the rest as the film
force (:func:`workbench.mbs.clearance.film_forces`); the film carries load without wear.  The
asperity pressure over the bore (:func:`asperity_pressure_profile`) is its distribution.
"""
from __future__ import annotations

import math

import numpy as np

from ..jit import njit
from . import greenwood_tripp as gt
from . import worn_film
from .kinematics import couette_torque, film_state, to_frame
from .long_bearing import sommerfeld_forces
from .short_bearing import gumbel_forces
from .worn_film import asperity_force as worn_asperity_force, long_film, short_film
from .worn_pi_film import long_pi_film

#: the film: short (Ocvirk, Gümbel), long (Sommerfeld, pi film), long with the Gümbel condition on
#: the periodic film (:func:`.worn_film.long_film`, squeeze-correct)
FILMS = ("short_bearing", "long_bearing", "long_bearing_gumbel")
#: p layout: [mu, R, L, c, eps_film_max, film, K E*, sigma, mu_b, v_reg, n_quad, bore, f52 table...,
#: bore block...] (``bore`` 1: the bore's block, :mod:`.worn_film`, follows the table: a worn
#: bushing or the Gümbel long film; the solver passes ``p`` as a pointer, so a flag says so)
P_TABLE = 12


def pack(mu, R, L, c, eps_film_max, film, sigma, eta, beta, E_star, mu_b, v_reg, n_quad=96,
         bore=None) -> np.ndarray:
    """Parameter array of :func:`mixed_kernel`; ``bore`` the bushing's wear depth [m] on uniform
    nodes (``None``: the circular bore).  A uniform depth ``d`` is the clearance ``c + d``."""
    block = None
    if bore is not None:
        c, block = worn_film.pack_bore(bore, c)
    if block is None and film == "long_bearing_gumbel":
        block = worn_film.bore_block(np.zeros(worn_film.QUAD_NODES))
    head = [mu, R, L, c, eps_film_max, float(FILMS.index(film)), gt.prefactor(sigma, eta, beta) * E_star,
            sigma, mu_b, v_reg, float(n_quad), float(block is not None)]
    parts = [np.asarray(head, float), gt.f52_table()]
    return np.concatenate(parts + ([block] if block is not None else []))


@njit(cache=True)
def bore_offset(p):
    """Where the bore's block starts in ``p`` (after the ``F_5/2`` table; there only when ``p[11]``)."""
    return P_TABLE + 3 + int(p[P_TABLE + 2])


@njit(cache=True)
def asperity_force(eps, p):
    """Asperity force along the eccentricity ``F_a`` [N] (<= 0: pushes the journal back) for
    eccentricity ratio ``eps``: trapezoidal rule over the window around the thinnest film where
    ``h / sigma < T_MAX`` (outside it ``F_{5/2}`` is below 1e-15)."""
    R = p[1]; L = p[2]; c = p[3]; KE = p[6]; sigma = p[7]; n = int(p[10])
    t_max = p[P_TABLE] + p[P_TABLE + 1] * (p[P_TABLE + 2] - 1.0)
    hmin = c * (1.0 - eps)
    if hmin >= t_max * sigma or eps <= 0.0:
        return 0.0
    ca = 1.0 - (t_max * sigma - hmin) / (c * eps)     # h(pi - a) = t_max sigma
    a = math.pi if ca <= -1.0 else math.acos(ca)
    s = 0.0
    for k in range(n + 1):
        th = math.pi - a + 2.0 * a * k / n
        wgt = 0.5 if (k == 0 or k == n) else 1.0
        h = c * (1.0 + eps * math.cos(th))
        s += wgt * gt.f52(h / sigma, p, P_TABLE) * math.cos(th)
    return R * L * KE * s * (2.0 * a / n)


@njit(cache=True)
def mixed_parts(ex, ey, vx, vy, omega, p):
    """``(fe_film, ft_film, f_asp, ft_asp, t_film, t_asp, uex, uey, eps)``: the parts of
    :func:`mixed_kernel` along the line of centres ``u_e`` and across it ``u_t`` [N], the film's
    and the asperities' moments [N m], ``u_e`` and the eccentricity ratio.  ``f_asp``, ``ft_asp``:
    the asperity pressure's resultant on the journal (``ft_asp`` is 0 on the circular bore, by
    symmetry)."""
    mu = p[0]; R = p[1]; L = p[2]; c = p[3]; eps_f_max = p[4]; film = int(p[5])
    mu_b = p[8]; v_reg = p[9]
    eps, eps_dot, w, uex, uey = film_state(ex, ey, vx, vy, omega, c)
    if p[11] != 0.0:
        return _bore_parts(ex, ey, vx, vy, omega, p, bore_offset(p), eps, eps_dot, w, uex, uey)
    eps_f = min(eps, eps_f_max)
    if film == 0:
        fe, ft = gumbel_forces(eps_f, eps_dot, w, mu, R, L, c)
    else:
        fe, ft = sommerfeld_forces(eps_f, eps_dot, w, mu, R, L, c)
    fa = asperity_force(eps, p)
    t_film = couette_torque(mu, R, L, c, eps_f, omega)
    gdot = 0.5 * (omega - w)
    vs = R * omega + c * eps * gdot
    t_asp = -R * mu_b * abs(fa) * vs / math.sqrt(vs * vs + v_reg * v_reg)
    return fe, ft, fa, 0.0, t_film, t_asp, uex, uey, eps


@njit(cache=True)
def _bore_parts(ex, ey, vx, vy, omega, p, off, eps, eps_dot, w, uex, uey):
    """:func:`mixed_parts` on the bore's block (a worn bushing, or the Gümbel long film): the film by
    :func:`.worn_film.short_film` / :func:`.worn_pi_film.long_pi_film` / :func:`.worn_film.long_film`
    (short, pi long, Gümbel long), the asperities by :func:`.worn_film.asperity_force`, both of its
    components (the one across the line of centres is the asperities', not the film's); the
    boundary friction ``mu_b`` times the asperity resultant's magnitude."""
    mu = p[0]; R = p[1]; L = p[2]; c = p[3]; eps_f_max = p[4]; film = int(p[5])
    KE = p[6]; sigma = p[7]; mu_b = p[8]; v_reg = p[9]
    if film == 0:
        fx, fy, t_film = short_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_f_max, p, off)
    elif film == 1:
        fx, fy, t_film = long_pi_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_f_max, p, off)
    else:
        fx, fy, t_film = long_film(ex, ey, vx, vy, omega, mu, R, L, c, eps_f_max, p, off)
    fe = fx * uex + fy * uey; ft = -fx * uey + fy * uex
    ax, ay = worn_asperity_force(ex, ey, p, off, c, R, L, KE, sigma, P_TABLE)
    fa = ax * uex + ay * uey
    fat = -ax * uey + ay * uex
    gdot = 0.5 * (omega - w)
    vs = R * omega + c * eps * gdot
    t_asp = -R * mu_b * math.sqrt(fa * fa + fat * fat) * vs / math.sqrt(vs * vs + v_reg * v_reg)
    return fe, ft, fa, fat, t_film, t_asp, uex, uey, eps


@njit(cache=True)
def mixed_parts_kernel(ex, ey, vx, vy, omega, p):
    """:func:`mixed_kernel` and the asperity part of its force: ``(f_x, f_y, t_j, f_na, f_ta,
    f_nt)`` with ``f_na = -F_a`` [N] the asperity pressure's resultant pushing the journal back
    along the line of centres (>= 0), ``f_ta`` [N] the boundary friction force along the line of
    centres turned +90 deg and ``f_nt`` [N] the asperity pressure's resultant along that same
    direction (0 on the circular bore; on a worn bore the gap is not symmetric about the line of
    centres) (:attr:`workbench.models.LubricationModel.parts_kernel`): the solver records them as
    the joint's contact force, which the wear law acts on; the film's part is the rest."""
    fe, ft, fa, fat, t_film, t_asp, uex, uey, eps = mixed_parts(ex, ey, vx, vy, omega, p)
    R = p[1]
    # boundary friction at the contact point (journal centre + R u_e), along u_t
    ff = t_asp / R
    fx, fy = to_frame(fe + fa, ft + fat + ff, uex, uey)
    return fx, fy, t_film + t_asp, -fa, ff, fat


@njit(cache=True)
def mixed_kernel(ex, ey, vx, vy, omega, p):
    """Lubrication kernel: film + asperity force on the journal and the moment of both frictions."""
    fx, fy, tj, fna, fta, fnt = mixed_parts_kernel(ex, ey, vx, vy, omega, p)
    return fx, fy, tj


def asperity_pressure_profile(theta_b, e_b, p) -> np.ndarray:
    """Asperity pressure [Pa] on bushing-frame angles ``theta_b`` for the eccentricity ``e_b``
    [m] (bushing frame): what the wear law of a mixed joint is fed with."""
    c, KE, sigma = p[3], p[6], p[7]
    h = c - (e_b[0] * np.cos(theta_b) + e_b[1] * np.sin(theta_b))
    return KE * gt.F(2.5, h / sigma)




def steady_state(p, load: float, omega: float) -> dict:
    """Journal under a constant load ``load`` [N] turning at ``omega`` [rad/s] with no whirl: the
    eccentricity ratio where film + asperities carry the load (the force's magnitude depends on
    ``eps`` only), the share of the asperities and the friction coefficient ``|t_j| / (R W)``."""
    from scipy.optimize import brentq
    c = p[3]

    def parts(eps):
        return mixed_parts.py_func(eps * c, 0.0, 0.0, 0.0, omega, p)

    def excess(eps):
        fe, ft, fa, fat, *_ = parts(eps)
        return math.hypot(fe + fa, ft + fat) - load
    hi = 1.0
    while excess(hi) < 0.0:
        hi += 0.05
    eps = brentq(excess, 1e-9, hi, xtol=1e-14, rtol=1e-13)
    fe, ft, fa, fat, t_film, t_asp, *_ = parts(eps)
    R = p[1]
    return {"eps": eps, "asperity_share": math.hypot(fa, fat) / load, "film_share": math.hypot(fe, ft) / load,
            "friction": abs(t_film + t_asp) / (R * load), "friction_film": abs(t_film) / (R * load),
            "friction_asperity": abs(t_asp) / (R * load),
            "lambda": c * (1.0 - eps) / p[7],
            "attitude": math.atan2(ft + fat, -(fe + fa))}


def stribeck(p, load: float, omegas) -> dict:
    """:func:`steady_state` over the speeds ``omegas`` [rad/s], with the Hersey number
    ``mu N / P`` (``N`` rev/s, ``P = W / (L D)``)."""
    mu, R, L = p[0], p[1], p[2]
    rows = [steady_state(p, load, w) for w in omegas]
    out = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    out["hersey"] = mu * (np.asarray(omegas) / (2 * math.pi)) / (load / (L * 2 * R))
    return out
