"""Finite-length journal bearing: the Reynolds equation on the unwrapped film, with cavitation.

The film of a journal of radius ``R`` in a bushing of radial clearance ``c`` and length ``L`` is
unwrapped onto ``(theta, y)``, ``theta`` in ``[0, 2 pi)`` measured from the line of centres at the
*largest* film (the journal is displaced towards ``theta = pi``), ``y = z / R`` in
``[-L/D, L/D]``.  With ``H = h / c = 1 + eps cos(theta) + h_w(theta) / c`` (``h_w``: an optional
worn-bushing profile, seen in this frame) and the time derivative taken in the frame of the line
of centres (Pinkus & Sternlicht (1961) ch. 3; Flores et al. (2006)), the Reynolds equation

    div(h^3 grad p) = 6 mu R^2 [ w d(theta_f h)/d theta + 2 theta_f d h / d t ],

``w = omega_journal - omega_bushing - 2 gamma_dot`` (``gamma_dot``: whirl of the line of centres,
bushing frame), ``d h / d t = c eps_dot cos(theta) + gamma_dot d h_w / d theta`` (the worn
profile is fixed in the bushing and so turns with the whirl in this frame), is made
dimensionless with ``V = sqrt(w^2 + 4 eps_dot^2)``, ``psi = atan2(2 eps_dot, w)``,
``Omega = 2 gamma_dot / V`` (``whirl``) and ``p = 6 mu R^2 V / c^2 P``:

    div(H^3 grad P) = cos(psi) d(theta_f H)/d theta + sin(psi) theta_f cos(theta)
                      + Omega theta_f d H_w / d theta.

The forces on the journal along the eccentricity and along the eccentricity turned +90 deg are
``F = (6 mu R^4 V / c^2) (f_e, f_t)`` with ``(f_e, f_t) = int int P (cos theta, sin theta) dtheta dy``.

Discretisation: P1 triangles on a structured, ``theta``-periodic mesh (scikit-fem) for the
pressure-flow term; on this mesh (right triangles) the P1 stiffness row of a node is exactly the
net pressure flow out of its dual cell, so the Couette term is written in the same flux form
(face flux ``theta_f H``, central between two full-film nodes, upwind next to a cavitated one,
the switch of Elrod & Adams (1974) and Vijayaraghavan & Keith (1989)): every dual cell balances
its mass to solver precision, which is what makes the JFO solution mass-conserving.

Cavitation, ``cavitation=``:

* ``"gumbel"`` -- the full-film (Sommerfeld) solution with negative pressures set to zero
  (Gümbel; half-Sommerfeld in the long limit).  Linear in ``(cos psi, sin psi)``: one
  factorisation serves every ``psi``.
* ``"reynolds"`` -- ``P >= 0``, Reynolds residual ``>= 0``, complementary (Swift-Stieber /
  Reynolds boundary condition, the condition of Raimondi & Boyd (1958)): an LCP with an SPD
  M-matrix, solved by the primal-dual active set method = semismooth Newton (Hintermüller, Ito &
  Kunisch (2003)), exact after finitely many steps.
* ``"jfo"`` -- mass-conserving Jakobsson-Floberg-Olsson cavitation in the complementarity form
  of Giacopini et al. (2010): ``P >= 0``, void fraction ``r = 1 - theta_f >= 0``, ``P r = 0``, the
  flux balance above in every cell; the same active-set Newton on ``min(P, r) = 0``.  The squeeze
  term is quasi-static (``theta_f dh/dt``: the memory of the cavitated zone, ``h d theta_f / dt``,
  is neglected -- a table cannot carry it).

The side edges ``y = +-L/D`` are at ambient pressure and flooded (``P = 0``, ``theta_f = 1``).
``groove=True`` adds an axial feed line at ``theta = 0`` (``P = 0``, flooded), the full bearing
of Raimondi & Boyd (1958).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

CAVITATION = ("gumbel", "reynolds", "jfo")
#: JFO converged: the largest cell flux residual below this share of the Couette flux, and the
#: fill within [0, 1]
JFO_TOL = 1e-9


class FilmNotConverged(RuntimeWarning):
    """:func:`solve_film` could not converge the cavitated film (its ``info`` says how far off);
    the JFO film of a separating journal often has no quasi-static solution (its fill depends on
    the film's history, not on the state alone)."""


@dataclass
class FilmSolution:
    """A solved film: nodal fields on the ``(n_theta, n_y)`` grid and the dimensionless forces."""
    theta: np.ndarray          # (n_theta,) [rad]
    y: np.ndarray              # (n_y,) z/R [1]
    H: np.ndarray              # (n_theta,) film thickness h/c [1]
    P: np.ndarray              # (n_theta, n_y) dimensionless pressure [1]
    fill: np.ndarray           # (n_theta, n_y) fill fraction theta_f [1] (1 where P > 0)
    f_e: float                 # dimensionless force along the eccentricity [1]
    f_t: float                 # dimensionless force normal to it (+90 deg) [1]
    iterations: int = 0
    info: dict = field(default_factory=dict)


@functools.lru_cache(maxsize=32)
def _grid(n_theta: int, n_y: int, l_over_d: float):
    """Mesh, periodic fold and node bookkeeping of the unwrapped film."""
    from skfem import Basis, ElementTriP1, MeshTri
    x = np.linspace(0.0, 2.0 * math.pi, n_theta + 1)
    y = np.linspace(-l_over_d, l_over_d, n_y)
    mesh = MeshTri.init_tensor(x, y)
    basis = Basis(mesh, ElementTriP1())
    # node (i, j) of the full (n_theta + 1) x n_y grid, from the coordinates
    dx, dy = x[1] - x[0], y[1] - y[0]
    ii = np.rint(mesh.p[0] / dx).astype(int)
    jj = np.rint((mesh.p[1] + l_over_d) / dy).astype(int)
    fold = (ii % n_theta) * n_y + jj          # periodic node index, theta-major
    n = n_theta * n_y
    Pm = sp.csr_matrix((np.ones(mesh.p.shape[1]), (np.arange(mesh.p.shape[1]), fold)),
                       shape=(mesh.p.shape[1], n))
    return x[:-1], y, basis, Pm, dx, dy


def _stiffness(H_fun, n_theta, n_y, l_over_d):
    """Periodic P1 stiffness of ``div(H^3 grad P)`` (``H_fun(theta)`` evaluated at quadrature points)."""
    from skfem import BilinearForm
    from skfem.helpers import dot, grad
    theta, y, basis, Pm, dx, dy = _grid(n_theta, n_y, l_over_d)

    @BilinearForm
    def form(u, v, w):
        return H_fun(w.x[0]) ** 3 * dot(grad(u), grad(v))
    K = form.assemble(basis)
    return (Pm.T @ K @ Pm).tocsr()


def _couette_matrix(Hn, n_theta, n_y, dy, upwind_mask, direction):
    """Matrix ``C`` with ``(C q)_k = dy (F_{k+1/2} - F_{k-1/2})`` for face fluxes of ``q = theta_f H``:
    central ``(q_k + q_{k+1}) / 2`` on a face whose mask is False, upwind on a face whose mask
    (per face ``k + 1/2``, shape (n_theta, n_y)) is True; ``direction`` the sign of the flow."""
    k = np.arange(n_theta)[:, None] * n_y + np.arange(n_y)[None, :]
    kp = ((np.arange(n_theta) + 1) % n_theta)[:, None] * n_y + np.arange(n_y)[None, :]
    up_own = k if direction >= 0 else kp           # upwind node of face k + 1/2
    rows, cols, vals = [], [], []
    # the flux of face (k, k+1) leaves cell k (+) and enters cell k+1 (-)
    wc = np.where(upwind_mask, 0.0, 0.5) * dy
    wu = np.where(upwind_mask, 1.0, 0.0) * dy
    for sign, cell in ((1.0, k), (-1.0, kp)):
        rows += [cell.ravel(), cell.ravel(), cell.ravel()]
        cols += [k.ravel(), kp.ravel(), up_own.ravel()]
        vals += [sign * wc.ravel(), sign * wc.ravel(), sign * wu.ravel()]
    n = n_theta * n_y
    C = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
    return C


def film_thickness(theta, eps, wear=None):
    """``H = 1 + eps cos(theta) (+ wear(theta))`` [1]; ``wear`` a callable of theta giving h_w/c."""
    H = 1.0 + eps * np.cos(theta)
    if wear is not None:
        H = H + wear(theta)
    return H


def bushing_wear(angles, depth, clearance: float, alpha: float):
    """The ``wear`` callable of :func:`film_thickness` and :func:`solve_film` for a worn bushing.

    ``angles`` [rad]: body-fixed bushing node angles (uniform over the turn, as the wear loop's
    ``theta``), ``depth`` [m]: the bushing's wear depth there (``WornJoint.h_bushing``),
    ``clearance`` [m]: the radial clearance ``c``, ``alpha`` [rad]: the direction of the
    eccentricity in the bushing frame.  The film angle ``theta`` runs from the largest film, which
    lies opposite the eccentricity, in the direction of the surfaces' motion: bushing angle
    ``alpha + pi + theta``.  A worn bushing is deeper, so the film there is thicker by the depth:
    ``h = c (1 + eps cos theta) + h_w``; periodic linear interpolation between the nodes."""
    ang = np.asarray(angles, float)
    d = np.asarray(depth, float) / clearance

    def wear(theta):
        return np.interp(np.mod(alpha + math.pi + np.asarray(theta, float), 2 * math.pi), ang, d,
                         period=2 * math.pi)
    return wear


def solve_film(eps: float, l_over_d: float, psi: float = 0.0, *, cavitation: str = "gumbel",
               n_theta: int = 96, n_y: int = 25, wear=None, whirl: float = 0.0, groove: bool = False,
               groove_angle: float = 0.0, groove_fill: float = 1.0, pi_film: bool = False,
               max_iter: int = 200, warn: bool = True) -> FilmSolution:
    """Solve the dimensionless finite-bearing film (module docstring) and return its forces.

    ``eps`` eccentricity ratio [1] (0 <= eps < 1); ``l_over_d`` L/D [1]; ``psi`` [rad] the
    squeeze angle ``atan2(2 eps_dot, w)`` (0: pure wedge, pi/2: pure approach); ``wear``: a
    callable ``theta -> h_w / c`` (a worn bushing profile in the line-of-centres frame);
    ``whirl`` [1]: ``2 gamma_dot / V``, the whirl of the line of centres in the scaling of ``psi``
    (``V = sqrt(w^2 + 4 eps_dot^2)``, ``w = omega_journal - omega_bushing - 2 gamma_dot``).  The
    profile is fixed in the bushing, so in the line-of-centres frame it moves with the whirl:
    ``dh/dt`` gains ``gamma_dot dh_w/dtheta``, the source ``whirl theta_f dH_w/dtheta`` (module
    docstring); it vanishes without wear.
    ``groove``: an axial feed line at ``groove_angle`` [rad] (rounded to the nearest grid column)
    at ambient pressure whose oil has the fill fraction ``groove_fill`` (1: flooded, < 1: starved).

    ``pi_film``: the half-Sommerfeld film of the closed forms (Flores et al. (2006) for the short,
    Flores et al. (2009) for the long bearing): ``P = 0`` on the lines ``theta = 0`` and ``theta =
    pi`` (``n_theta`` even), the full film between them kept as it is (negative pressure too) and
    the other half ignored (needs ``cavitation="gumbel"``, whose clipping it replaces).

    JFO needs a feed: without one, a steady periodic film with ``P = 0`` and any constant
    ``theta_f H <= H_min`` satisfies every condition (the amount of oil in a bearing without supply
    is not fixed by the steady equations), so ``cavitation="jfo"`` requires ``groove=True``.

    Convergence: ``info["lcp_converged"]`` (the Swift-Stieber active set settled within
    ``max_iter``) and, for JFO, ``info["jfo_converged"]`` (every cell's flux balanced to
    :data:`JFO_TOL` of the Couette flux, the fill within [0, 1]; ``info["jfo_settled"]``: its
    active set also stopped changing).  A film that did not
    converge is returned as it stands, with a :class:`FilmNotConverged` warning unless ``warn`` is
    False (a caller that checks ``info`` itself, as the JFO table does).
    """
    if cavitation == "jfo" and not groove:
        raise ValueError("JFO cavitation needs a feed (groove=True): without one the steady film is not unique")
    if cavitation not in CAVITATION:
        raise ValueError(f"cavitation must be one of {CAVITATION}, got {cavitation!r}")
    if pi_film and (cavitation != "gumbel" or n_theta % 2):
        raise ValueError("pi_film needs cavitation='gumbel' (it replaces the clipping) and an even n_theta")
    theta, y, basis, Pm, dx, dy = _grid(n_theta, n_y, l_over_d)
    n = n_theta * n_y
    Hn = film_thickness(theta, eps, wear)                         # (n_theta,)

    def H_fun(x):
        return film_thickness(x, eps, wear)
    K = _stiffness(H_fun, n_theta, n_y, l_over_d)
    cps, sps = math.cos(psi), math.sin(psi)
    Hq = np.repeat(Hn, n_y)                                        # nodal H, node order theta-major
    area = np.full(n, dx * dy)
    jj = np.tile(np.arange(n_y), n_theta)
    area[(jj == 0) | (jj == n_y - 1)] *= 0.5
    src = area * np.repeat(np.cos(theta), n_y)                     # int cos(theta) over the dual cell
    if wear is not None and whirl != 0.0:
        # the worn profile moving with the whirl: int dH_w/dtheta over the dual cell, exactly
        dHw = (wear(theta + 0.5 * dx) - wear(theta - 0.5 * dx)) / dx
        src = sps * src + whirl * area * np.repeat(dHw, n_y)
        sps = 1.0
    fixed = (jj == 0) | (jj == n_y - 1)
    kg = int(round(groove_angle / dx)) % n_theta
    if groove:
        fixed |= np.repeat(np.arange(n_theta) == kg, n_y)
    if pi_film:
        fixed |= np.repeat((np.arange(n_theta) == 0) | (np.arange(n_theta) == n_theta // 2), n_y)
    free = ~fixed
    direction = 1.0 if cps >= 0.0 else -1.0
    no_up = np.zeros((n_theta, n_y), bool)
    C0 = _couette_matrix(Hn, n_theta, n_y, dy, no_up, direction)
    g_full = cps * (C0 @ Hq) + sps * src                          # residual of a full film, P = 0
    Kff = K[free][:, free]
    P = np.zeros(n)
    fill = np.ones(n)
    it = 0
    info = {}
    if cavitation == "gumbel":
        P[free] = spla.spsolve(Kff.tocsc(), -g_full[free])
        info["negative_fraction"] = float(np.mean(P[free] < 0.0))
        if pi_film:
            P[np.repeat(np.arange(n_theta) > n_theta // 2, n_y)] = 0.0
        else:
            P = np.maximum(P, 0.0)
    else:
        lu = None
        # Swift-Stieber LCP: P >= 0, lam = K P + g >= 0, P lam = 0 (primal-dual active set)
        active = np.zeros(n, bool)                                 # cavitated (P = 0) among free
        for it in range(1, max_iter + 1):
            inact = free & ~active
            P = np.zeros(n)
            Kii = K[inact][:, inact].tocsc()
            P[inact] = spla.spsolve(Kii, -g_full[inact]) if inact.any() else 0.0
            lam = K @ P + g_full
            new = free & ((active & (lam > 0.0)) | (~active & (P < 0.0)))
            if np.array_equal(new, active):
                break
            active = new
        else:
            it = max_iter + 1          # the set never settled
        info["lcp_converged"] = it <= max_iter
        info["lcp_iterations"] = min(it, max_iter)
        info["mass_defect"] = float(np.sum(np.maximum(lam[free & active], 0.0)))
        if cavitation == "jfo":
            fill0 = np.ones(n)
            if groove:
                fill0[np.repeat(np.arange(n_theta) == kg, n_y) & ~((jj == 0) | (jj == n_y - 1))] = groove_fill
            P, fill, it2, info2 = _jfo(K, Hn, Hq, src, cps, sps, n_theta, n_y, dy, free, active, max_iter, fill0)
            info.update(info2)
            it += it2
        bad = [k for k in ("lcp_converged", "jfo_converged") if k in info and not info[k]]
        if bad and warn:
            import warnings
            warnings.warn(f"the {cavitation} film at eps = {eps:g}, squeeze angle {psi:g} rad did not converge "
                          f"({', '.join(bad)} false; info {info})", FilmNotConverged, stacklevel=2)
    Pg = P.reshape(n_theta, n_y)
    wq = area.reshape(n_theta, n_y)
    f_e = float(np.sum(Pg * wq * np.cos(theta)[:, None]))
    f_t = float(np.sum(Pg * wq * np.sin(theta)[:, None]))
    return FilmSolution(theta, y, Hn, Pg, fill.reshape(n_theta, n_y), f_e, f_t, it, info)


def _jfo(K, Hn, Hq, src, cps, sps, n_theta, n_y, dy, free, active0, max_iter, fill0):
    """JFO complementarity (Giacopini et al. 2010): unknown P on full-film nodes, void fraction r
    on cavitated ones; semismooth Newton on ``min(P, r) = 0`` started from the LCP's sets."""
    n = n_theta * n_y
    direction = 1.0 if cps >= 0.0 else -1.0
    active = active0.copy()
    r0 = 1.0 - fill0                       # the void fraction of the fixed nodes (a starved feed)
    r = np.zeros(n)
    P = np.zeros(n)
    for it in range(1, max_iter + 1):
        # faces next to a cavitated node are upwinded (the switch function)
        A2 = (active | (r0 > 0.0)).reshape(n_theta, n_y)
        up = A2 | np.roll(A2, -1, axis=0)
        C = _couette_matrix(Hn, n_theta, n_y, dy, up, direction)
        # K P + cps C (H (1 - r)) + sps src (1 - r) = 0  ->  K P - (cps C diag(H) + sps diag(src)) r = -(cps C H + sps src)
        B = (cps * (C @ sp.diags(Hq)) + sps * sp.diags(src)).tocsr()
        rhs = -(cps * (C @ Hq) + sps * src) + B @ r0
        inact = free & ~active
        act = free & active
        idx_p = np.flatnonzero(inact); idx_r = np.flatnonzero(act)
        rows = np.flatnonzero(free)
        M = sp.hstack([K[rows][:, idx_p], -B[rows][:, idx_r]]).tocsc()
        x = spla.spsolve(M, rhs[rows])
        P = np.zeros(n); r = r0.copy()
        P[idx_p] = x[:len(idx_p)]
        r[idx_r] = x[len(idx_p):]
        new = free & ((active & (r > 0.0)) | (~active & (P < 0.0)))
        if np.array_equal(new, active):
            settled = True
            break
        active = new
    else:
        settled = False
    # flux balance of every free cell (the discrete mass balance), relative to the Couette flux
    A2 = (active | (r0 > 0.0)).reshape(n_theta, n_y)
    up = A2 | np.roll(A2, -1, axis=0)
    C = _couette_matrix(Hn, n_theta, n_y, dy, up, direction)
    fill = 1.0 - r
    res = K @ P + cps * (C @ (Hq * fill)) + sps * src * fill
    scale = dy * np.abs(Hq).max()
    info = {"jfo_iterations": it, "jfo_residual": float(np.abs(res[free]).max() / scale),
            "fill_min": float(fill[free].min()), "fill_max": float(fill[free].max())}
    info["jfo_settled"] = settled      # the active set stopped changing within max_iter
    info["jfo_converged"] = bool(info["jfo_residual"] < JFO_TOL and info["fill_min"] >= -1e-12
                                 and info["fill_max"] <= 1.0 + 1e-12)
    return P, fill, it, info


def gumbel_sweep(eps: float, l_over_d: float, psis, *, n_theta: int = 96, n_y: int = 25,
                 wear=None) -> np.ndarray:
    """Gümbel forces ``(len(psis), 2)`` for many squeeze angles at one ``eps``: the full film is
    linear in ``(cos psi, sin psi)``, so two solves serve every ``psi`` (then clipped)."""
    theta, y, basis, Pm, dx, dy = _grid(n_theta, n_y, l_over_d)
    n = n_theta * n_y
    Hn = film_thickness(theta, eps, wear)
    K = _stiffness(lambda x: film_thickness(x, eps, wear), n_theta, n_y, l_over_d)
    jj = np.tile(np.arange(n_y), n_theta)
    area = np.full(n, dx * dy)
    area[(jj == 0) | (jj == n_y - 1)] *= 0.5
    free = ~((jj == 0) | (jj == n_y - 1))
    C0 = _couette_matrix(Hn, n_theta, n_y, dy, np.zeros((n_theta, n_y), bool), 1.0)
    g = np.column_stack([C0 @ np.repeat(Hn, n_y), area * np.repeat(np.cos(theta), n_y)])
    lu = spla.splu(K[free][:, free].tocsc())
    Pw = np.zeros(n); Ps = np.zeros(n)
    Pw[free] = lu.solve(-g[free, 0]); Ps[free] = lu.solve(-g[free, 1])
    ce = area * np.repeat(np.cos(theta), n_y); st = area * np.repeat(np.sin(theta), n_y)
    out = np.empty((len(psis), 2))
    for k, ps in enumerate(psis):
        P = np.maximum(math.cos(ps) * Pw + math.sin(ps) * Ps, 0.0)
        out[k] = P @ ce, P @ st
    return out
