"""Internal forces of the ANCF cable beams of a mechanism, compiled: elasticity and strain-rate damping.

Elastic forces and their exact tangent are :func:`workbench.flex.ancf_cable.element_forces`
(Gerstmayr & Irschik (2008) eqs 6-9).  Damping is Kelvin-Voigt (strain-rate) damping with the
time constant ``beta`` [s]: the axial force ``EA beta eps_dot`` and the bending moment ``EI beta
kappa_dot``, whose generalised forces are ``Q_d = int (EA beta eps_e eps_e^T + EI beta kappa_e
kappa_e^T) dx  v = D(e) v`` (``eps_e``, ``kappa_e`` the gradients of the axial strain and the
curvature with respect to the element coordinates).  At the undeformed state ``D = beta K``:
stiffness-proportional Rayleigh damping (modal damping ratio ``beta omega / 2``), but written with strain rates, which are zero in any rigid motion, so rotating the beam
is never damped.  The damping force's derivative with respect to the positions is left out of
the tangent (it is of order ``beta`` times the strain rate).
"""
from __future__ import annotations

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

from .ancf_cable import GAUSS_W, GAUSS_X, _matrix, element_forces, hermite


@njit(cache=True)
def element_damping(e, ea, ei, le, beta, pw=1.5):
    """Damping matrix ``D(e)`` [N s/m ...] of one element (module docstring)."""
    D = np.zeros((8, 8))
    for g in range(GAUSS_X.size):
        w = le * GAUSS_W[g] * beta
        _, ds, dds = hermite(GAUSS_X[g], le)
        S1 = _matrix(ds)
        S2 = _matrix(dds)
        r1 = S1 @ e
        r2 = S2 @ e
        gg = r1[0] * r1[0] + r1[1] * r1[1]
        nr = np.sqrt(gg)
        deps = (r1 @ S1) / nr
        c = r1[0] * r2[1] - r1[1] * r2[0]
        dc = r1[0] * S2[1] + r2[1] * S1[0] - r1[1] * S2[0] - r2[0] * S1[1]
        dg = 2.0 * (r1 @ S1)
        dkap = dc / gg ** pw - pw * c / gg ** (pw + 1.0) * dg
        D += w * (ea * np.outer(deps, deps) + ei * np.outer(dkap, dkap))
    return D


@njit(cache=True)
def element_kernel(e, ea, ei, le, beta, Q, K, D, tangent=True, ve=None, pw=1.5):
    """Fast path of one element: adds the elastic forces to ``Q``, their exact tangent to ``K``
    and the damping matrix to ``D`` (``beta > 0``) when ``tangent`` (a modified Newton iteration
    needs the forces only), and with the element velocities ``ve`` the damping forces ``D(e) ve``
    to ``Q`` (as ``w beta (EA eps_e (eps_e . ve) + EI kappa_e (kappa_e . ve))`` per Gauss point,
    without the matrix).  The same quantities as
    :func:`workbench.flex.ancf_cable.element_forces` and :func:`element_damping` (the reference
    path, tested to agree), written out in scalars: the interpolation matrices are ``s_a I``
    blocks, so every product is a sum over the four shape functions, without temporary arrays."""
    deps = np.empty(8)
    dc = np.empty(8)
    dkap = np.empty(8)
    for g in range(GAUSS_X.size):
        w = le * GAUSS_W[g]
        _, ds, dds = hermite(GAUSS_X[g], le)
        r1x = 0.0; r1y = 0.0; r2x = 0.0; r2y = 0.0
        for a in range(4):
            r1x += ds[a] * e[2 * a]; r1y += ds[a] * e[2 * a + 1]
            r2x += dds[a] * e[2 * a]; r2y += dds[a] * e[2 * a + 1]
        gg = r1x * r1x + r1y * r1y
        nr = np.sqrt(gg)
        eps = nr - 1.0
        c = r1x * r2y - r1y * r2x
        g15 = gg ** pw          # |r'|^3 (exact curvature) or |r'|^2 (material)
        g25 = g15 * gg
        g35 = g25 * gg
        kap = c / g15
        for a in range(4):
            deps[2 * a] = ds[a] * r1x / nr
            deps[2 * a + 1] = ds[a] * r1y / nr
            dc[2 * a] = ds[a] * r2y - r1y * dds[a]
            dc[2 * a + 1] = r1x * dds[a] - ds[a] * r2x
        for i in range(8):
            # dg = 2 nr deps
            dkap[i] = dc[i] / g15 - 2.0 * pw * c / g25 * nr * deps[i]
            Q[i] += w * (ea * eps * deps[i] + ei * kap * dkap[i])
        if ve is not None and beta > 0.0:
            de = 0.0
            dk = 0.0
            for i in range(8):
                de += deps[i] * ve[i]
                dk += dkap[i] * ve[i]
            for i in range(8):
                Q[i] += w * beta * (ea * deps[i] * de + ei * dkap[i] * dk)
        if not tangent:
            continue
        for a in range(4):
            for b in range(4):
                sab = ds[a] * ds[b]
                xab = ds[a] * dds[b] - ds[b] * dds[a]
                for i in range(2):
                    for j in range(2):
                        I = 2 * a + i
                        J = 2 * b + j
                        dij = sab if i == j else 0.0
                        ddeps = dij / nr - deps[I] * deps[J] / nr
                        if i == 0 and j == 1:
                            ddc = xab
                        elif i == 1 and j == 0:
                            ddc = -xab
                        else:
                            ddc = 0.0
                        dgi = 2.0 * nr * deps[I]
                        dgj = 2.0 * nr * deps[J]
                        ddkap = (ddc / g15 - pw / g25 * (dc[I] * dgj + dgi * dc[J])
                                 - 2.0 * pw * c / g25 * dij + pw * (pw + 1.0) * c / g35 * dgi * dgj)
                        K[I, J] += w * (ea * (deps[I] * deps[J] + eps * ddeps)
                                        + ei * (dkap[I] * dkap[J] + kap * ddkap))
                        if beta > 0.0:
                            D[I, J] += w * beta * (ea * deps[I] * deps[J] + ei * dkap[I] * dkap[J])


@njit(cache=True)
def beam_forces(q, v, off, n_el, le, ea, ei, beta, G, K, C, tangent=True, pw=1.5):
    """Add one beam's elastic and damping forces to ``G`` (internal forces, [N]) and, when
    ``tangent``, their derivatives to ``K`` (d/dq) and ``C`` (d/dv); the beam's coordinates start
    at ``off``; ``pw`` the curvature's exponent (:data:`workbench.flex.ancf_cable.CURVATURE_EXPONENT`)."""
    Q = np.empty(8)
    Ke = np.zeros((8, 8))
    D = np.zeros((8, 8))
    for k in range(n_el):
        a = off + 4 * k
        Q[:] = 0.0
        if tangent:
            Ke[:, :] = 0.0
            D[:, :] = 0.0
        element_kernel(q[a:a + 8], ea, ei, le, beta, Q, Ke, D, tangent, v[a:a + 8], pw)
        for i in range(8):
            G[a + i] += Q[i]
            if tangent:
                for j in range(8):
                    K[a + i, a + j] += Ke[i, j]
                    C[a + i, a + j] += D[i, j]


@njit(cache=True)
def beam_energy(q, off, n_el, le, ea, ei, pw=1.5):
    """Strain energy [J] of one beam, compiled: ``int (EA eps^2 + EI kappa^2) / 2 dx`` by the
    elements' Gauss rule (the fast path of :func:`beam_energy_reference`)."""
    u = 0.0
    for k in range(n_el):
        a = off + 4 * k
        for g in range(GAUSS_X.size):
            _, ds, dds = hermite(GAUSS_X[g], le)
            r1x = 0.0; r1y = 0.0; r2x = 0.0; r2y = 0.0
            for b in range(4):
                r1x += ds[b] * q[a + 2 * b]; r1y += ds[b] * q[a + 2 * b + 1]
                r2x += dds[b] * q[a + 2 * b]; r2y += dds[b] * q[a + 2 * b + 1]
            nr = np.sqrt(r1x * r1x + r1y * r1y)
            kap = (r1x * r2y - r1y * r2x) / nr ** (2.0 * pw)
            u += 0.5 * le * GAUSS_W[g] * (ea * (nr - 1.0) ** 2 + ei * kap * kap)
    return u


def beam_energy_reference(q, off, n_el, le, ea, ei, pw=1.5) -> float:
    """Strain energy [J] of one beam (sum of :func:`~workbench.flex.ancf_cable.element_energy`)."""
    from .ancf_cable import element_energy
    return sum(element_energy(np.asarray(q[off + 4 * k: off + 4 * k + 8]), ea, ei, le, pw) for k in range(n_el))
