"""Internal forces of the ANCF cable beams of a mechanism, compiled: elasticity and strain-rate damping.

Elastic forces and their exact tangent are :func:`workbench.flex.ancf_cable.element_forces`
(Gerstmayr & Irschik (2008) eqs 6-9).  Damping is Kelvin-Voigt (strain-rate) damping with the
time constant ``beta`` [s]: the axial force ``EA beta eps_dot`` and the bending moment ``EI beta
kappa_dot``, whose generalised forces are ``Q_d = int (EA beta eps_e eps_e^T + EI beta kappa_e
kappa_e^T) dx  v = D(e) v`` (``eps_e``, ``kappa_e`` the gradients of the axial strain and the
curvature with respect to the element coordinates).  At the undeformed state ``D = beta K``:
stiffness-proportional Rayleigh damping (modal damping ratio ``beta omega / 2``, Rayleigh (1877)
§97), but written with strain rates, which are zero in any rigid motion, so rotating the beam
is never damped.  The damping force's derivative with respect to the positions is left out of
the tangent (it is of order ``beta`` times the strain rate).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .ancf_cable import GAUSS_W, GAUSS_X, _matrix, element_forces, hermite


@njit(cache=True)
def element_damping(e, ea, ei, le, beta):
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
        dkap = dc / (gg * nr) - 1.5 * c / (gg * gg * nr) * dg
        D += w * (ea * np.outer(deps, deps) + ei * np.outer(dkap, dkap))
    return D


@njit(cache=True)
def beam_forces(q, v, off, n_el, le, ea, ei, beta, G, K, C):
    """Add one beam's elastic and damping forces to ``G`` (internal forces, [N]) and their
    tangents to ``K`` (d/dq) and ``C`` (d/dv); the beam's coordinates start at ``off``."""
    for k in range(n_el):
        a = off + 4 * k
        e = q[a:a + 8].copy()
        Q, Ke = element_forces(e, ea, ei, le)
        for i in range(8):
            G[a + i] += Q[i]
            for j in range(8):
                K[a + i, a + j] += Ke[i, j]
        if beta > 0.0:
            D = element_damping(e, ea, ei, le, beta)
            ve = v[a:a + 8]
            Qd = D @ ve
            for i in range(8):
                G[a + i] += Qd[i]
                for j in range(8):
                    C[a + i, a + j] += D[i, j]


def beam_energy(q, off, n_el, le, ea, ei) -> float:
    """Strain energy [J] of one beam (sum of :func:`~workbench.flex.ancf_cable.element_energy`)."""
    from .ancf_cable import element_energy
    return sum(element_energy(np.asarray(q[off + 4 * k: off + 4 * k + 8]), ea, ei, le) for k in range(n_el))
