"""Independent reference: the consistency of the reactions and the friction of a UNIVERSAL joint
whose two journals both slip (Qi, Luo & Huang (2009) eqs. 54-58), at one state, without the
workbench: where the friction coefficient makes the joint self-locking.

The bar, its journals and their contact systems are those of ``qi_universal_stick.py`` and
``qi_universal.py`` (Newton-Euler about the fixed point, each journal's across-axis contact system
built from its points' forces and moments, the axial load on a face at the azimuth of their eq. 36
or on the flush face, ``qi_universal_stick.face_point``).  With both
journals slipping the coefficients ``k_1 = -mu sgn(omega_1)``, ``k_2 = -mu sgn(omega_2)`` are known,
and the unknowns are the two friction moments ``m = (m_1, m_2)`` [N m] (the joint moment's
components along the cross axes ``a`` and ``b``):

* given ``m``, the bar's rotational equation about ``O`` (three components) gives the two journal
  accelerations and the cross's constraint moment ``M_n``; the joint force ``F`` follows from the
  centre's acceleration: ``F``, ``M_n`` are AFFINE in ``m``;
* each journal's load ``N_1 = |u_1| + |u_2| + |F.a|`` with ``A_1(k_1) u = (F.b, F.n, m_2, M_n) -
  face(F.a, theta_3)`` (journal 2 alike with ``(F.n, F.a, M_n, m_1)``), the face load's across-axis
  wrench at its contact state: positively homogeneous of degree one in ``(F, M)``, which are affine
  in ``m``;
* consistency: ``m_k = k_k R_k N_k(m)``; in magnitudes ``x = |m|`` (the sign of ``m_k`` is that
  of ``k_k``) a fixed point ``x = g(x)``, ``g_k(x) = mu R_k N_k(S x)``, ``S = diag(sgn k)``.

``g(0) > 0``, and its growth at infinity is that of its
positively homogeneous part ``mu h(x)`` (``h_k = R_k N_k`` without gravity and the velocity terms):
``h(x) = lambda x`` has an eigenvector ``d >= 0``; if ``mu lambda < 1`` the map is asymptotically
a contraction (for loads that are sums of norms of affine maps, as with the axial load spread round
the face, ``g`` is convex and the fixed point then exists and is unique; the contact states of eq.
36 make the loads piecewise, so here that is checked, not proved); at ``mu* = 1 / lambda`` the
consistent moments run to infinity (the contact loads grow with the friction they cause faster
than they produce it: self-locking, a Painleve-type paradox).  :func:`critical_mu` gives ``mu*``;
:func:`fixed_points` counts the fixed points by brute force (a polar grid of ``x`` refined by
Powell's method) so that the claim is checked, not assumed.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq, root

from qi_universal import _wrench
from qi_universal_stick import Journal, UBar, load_of


def _affine(bar: UBar, phi, psi, dphi, dpsi):
    """``(F0, Fm, M0, Mm, (a, b, n))``: the joint's force [N] and moment about O [N m] on the bar
    as affine maps of the journal moments ``m = (M.a, M.b)``: ``F = F0 + Fm m``, ``M = M0 + Mm m``."""
    # the wrench is affine in the accelerations: its value at 0 and its two unit columns
    F0, M0, (a, b, n) = _wrench(bar, phi, psi, dphi, dpsi, 0.0, 0.0)
    cols = [_wrench(bar, phi, psi, dphi, dpsi, e[0], e[1])[:2] for e in np.eye(2)]
    dF = np.column_stack([f - F0 for f, _ in cols])         # d F / d (phi_dd, psi_dd)
    dM = np.column_stack([m - M0 for _, m in cols])
    P = np.array([a, b])                                     # m = P M
    T = np.linalg.inv(P @ dM)                                # (phi_dd, psi_dd) = T (m - P M0)
    dd0 = -T @ (P @ M0)
    return F0 + dF @ dd0, dF @ T, M0 + dM @ dd0, dM @ T, (a, b, n)


class Joint:
    """The consistency map of the bar's universal joint at the state ``(phi, psi, phi_d, psi_d)``
    [rad, rad/s] with both journals slipping (``phi_d``, ``psi_d`` not zero)."""

    def __init__(self, bar: UBar, phi, psi, dphi, dpsi):
        self.bar = bar
        self.F0, self.Fm, self.M0, self.Mm, (self.a, self.b, self.n) = _affine(bar, phi, psi, dphi, dpsi)
        self.s = np.array([-math.copysign(1.0, dphi), -math.copysign(1.0, dpsi)])   # sgn k

    def loads(self, x, mu, homogeneous=False):
        """``(N_1, N_2)`` [N] at moment magnitudes ``x`` [N m] (``homogeneous``: without the parts
        that do not scale with ``m``, gravity and the velocity terms)."""
        bar, a, b, n = self.bar, self.a, self.b, self.n
        m = self.s * np.asarray(x, float)
        F = self.Fm @ m + (0.0 if homogeneous else self.F0)
        M = self.Mm @ m + (0.0 if homogeneous else self.M0)
        k1, k2 = self.s * mu
        A1, A2 = Journal(a, b, n, k1, bar.c1, bar.R1), Journal(b, n, a, k2, bar.c2, bar.R2)
        N1 = load_of(A1, F, (M @ b) * b + (M @ n) * n)
        N2 = load_of(A2, F, (M @ n) * n + (M @ a) * a)
        return np.array([N1, N2])

    def g(self, x, mu, homogeneous=False):
        """The moment magnitudes ``mu R_k N_k`` [N m] the loads at ``x`` produce."""
        return mu * np.array([self.bar.R1, self.bar.R2]) * self.loads(x, mu, homogeneous)

    def gain(self, mu):
        """``(mu lambda, d)``: the growth rate at infinity of ``g`` and its direction (unit, >= 0):
        the direction ``d = (cos t, sin t)`` whose image ``mu h(d)`` is parallel to it."""
        def turn(t):
            d = np.array([math.cos(t), math.sin(t)])
            h = self.g(d, mu, homogeneous=True)
            return math.atan2(h[1], h[0]) - t
        ts = np.linspace(0.0, math.pi / 2, 46)
        vals = [turn(t) for t in ts]
        roots = [brentq(turn, ts[i], ts[i + 1], xtol=1e-15) for i in range(len(ts) - 1)
                 if vals[i] * vals[i + 1] < 0]
        if not roots:
            raise RuntimeError("no eigen-direction of the homogeneous map in the positive quadrant")
        best = max((np.linalg.norm(self.g(np.array([math.cos(t), math.sin(t)]), mu, True)), t) for t in roots)
        return best[0], np.array([math.cos(best[1]), math.sin(best[1])])


def critical_mu(joint: Joint, lo=1e-3, hi=5.0) -> float:
    """``mu*``: the friction coefficient at which the growth rate at infinity reaches 1 (the contact
    systems themselves depend on ``mu``, so this is a root, not ``1 / lambda`` at one ``mu``)."""
    return brentq(lambda mu: joint.gain(mu)[0] - 1.0, lo, hi, xtol=1e-14)


def fixed_points(joint: Joint, mu, r_max=1e7, n_r=60, n_t=24, tol=1e-9) -> list:
    """All moment magnitudes ``x >= 0`` [N m] with ``x = g(x)`` found from a polar grid (radius to
    ``r_max`` N m, log-spaced) by Powell's hybrid method; relative residual ``tol``; sorted by size."""
    found = []
    scale = np.linalg.norm(joint.g(np.zeros(2), mu))
    for r in np.geomspace(1e-3 * scale, r_max, n_r):
        for t in np.linspace(0.0, math.pi / 2, n_t):
            x0 = r * np.array([math.cos(t), math.sin(t)])
            sol = root(lambda x: joint.g(np.abs(x), mu) - np.abs(x), x0, method="hybr", options={"xtol": 1e-14})
            x = np.abs(sol.x)
            if np.max(np.abs(joint.g(x, mu) - x)) <= tol * max(np.max(x), scale):
                if not any(np.allclose(x, y, rtol=1e-6) for y in found):
                    found.append(x)
    return sorted(found, key=lambda x: float(np.linalg.norm(x)))


def fixed_point(joint: Joint, mu, start=None) -> np.ndarray:
    """The consistent moment magnitudes [N m] by Powell's hybrid method from ``start`` (default: the
    loads without friction; raises when it does not converge)."""
    x0 = joint.g(np.zeros(2), mu) if start is None else start
    sol = root(lambda x: joint.g(np.abs(x), mu) - np.abs(x), x0, method="hybr", options={"xtol": 1e-14})
    x = np.abs(sol.x)
    if not np.max(np.abs(joint.g(x, mu) - x)) <= 1e-11 * np.max(x):
        raise RuntimeError(f"no consistent friction found at mu = {mu}: {sol.message}")
    return x
