"""The planar ANCF cable element: gradient-deficient, Euler-Bernoulli (no shear).

Each element has two nodes with the position ``r`` and the slope ``r' = dr/dx`` [m, -] of the
beam's centre line, ``e = [r1, r1', r2, r2']`` (8 coordinates), interpolated by cubic Hermite
shape functions of the reference arc length ``x`` in ``[0, le]`` (Shabana (1997); Berzeri &
Shabana (2000)).  Elastic line energy of Gerstmayr & Irschik (2008) eqs 6-9: the axial strain
``eps = |r'| - 1`` and a curvature ``kappa``,

    U = 1/2 int_0^le (EA eps^2 + EI kappa^2) dx,

with the curvature a choice of the beam (``curvature``, :data:`CURVATURE_EXPONENT`):

* ``"exact"`` (the default): ``kappa = (r' x r'') / |r'|^3``, the curvature of the deformed
  centre line per unit of its own arc length (Gerstmayr & Irschik (2008));
* ``"material"``: ``kappa = (r' x r'') / |r'|^2``, the rate of the centre line's angle per unit of
  the *reference* arc length, ``d theta / dx`` (the form of Berzeri & Shabana (2000)'s simple
  elastic-force models and of Exudyn's ``ANCFCable2D``).

The two differ by the factor ``1 / |r'| = 1 / (1 + eps)`` only, i.e. where axial strain and
curvature coexist: negligible for steel rods (strains of 1e-4), 0.7-2.5 % in the crank-moment
peaks of the undamped 6 and 2 GPa slider-cranks near resonance.

integrated by Gauss-Legendre quadrature (5 points: exact for the mass matrix and for the bending
energy of the undeformed, straight element).  The mass matrix ``M = rho A int S^T S dx`` is
constant.  :func:`element_forces` returns the elastic forces ``Q = dU/de`` and their exact
tangent stiffness ``K = d^2U/de^2`` (both derivatives by hand, checked against finite
differences in the tests).  Compiled with numba: the assembly loop runs inside the integrator.

Why no fully parametrised (shear-deformable) element (Omar & Shabana (2001)): the connecting rod of
Wang, Chen, Ma & Sun (2016) is loaded mostly along its axis, and the frequencies the paper reports
for soft rods are its axial mode, which the cable element carries exactly; the fully parametrised
element adds four coordinates per node and suffers from shear and Poisson locking (its known
weakness), for a shear correction of bending that is of order (h/L)^2 for a rod whose length is
about 8 times its depth.
"""
from __future__ import annotations

import numpy as np
from ..jit import njit  # house: numba is imported when a compiled function is first needed

#: the curvature ``kappa = (r' x r'') / |r'|^(2 p)`` by name: its exponent ``p`` [1] (module docstring)
CURVATURE_EXPONENT = {"exact": 1.5, "material": 1.0}
#: the curvature of a beam that does not choose one
DEFAULT_CURVATURE = "exact"

GAUSS_X, GAUSS_W = np.polynomial.legendre.leggauss(5)
GAUSS_X = 0.5 * (GAUSS_X + 1.0)   # on [0, 1]
GAUSS_W = 0.5 * GAUSS_W


@njit(cache=True)
def hermite(xi: float, le: float):
    """Cubic Hermite shape functions and their first and second x-derivatives at ``xi = x/le``.

    Returns three arrays of the four scalar functions (value of r1, r1', r2, r2' weights).
    """
    s = np.empty(4)
    ds = np.empty(4)
    dds = np.empty(4)
    x2, x3 = xi * xi, xi * xi * xi
    s[0] = 1.0 - 3.0 * x2 + 2.0 * x3
    s[1] = le * (xi - 2.0 * x2 + x3)
    s[2] = 3.0 * x2 - 2.0 * x3
    s[3] = le * (-x2 + x3)
    ds[0] = (-6.0 * xi + 6.0 * x2) / le
    ds[1] = 1.0 - 4.0 * xi + 3.0 * x2
    ds[2] = (6.0 * xi - 6.0 * x2) / le
    ds[3] = -2.0 * xi + 3.0 * x2
    dds[0] = (-6.0 + 12.0 * xi) / (le * le)
    dds[1] = (-4.0 + 6.0 * xi) / le
    dds[2] = (6.0 - 12.0 * xi) / (le * le)
    dds[3] = (-2.0 + 6.0 * xi) / le
    return s, ds, dds


@njit(cache=True)
def _matrix(s):
    """The 2 x 8 interpolation matrix [s0 I, s1 I, s2 I, s3 I]."""
    S = np.zeros((2, 8))
    for a in range(4):
        S[0, 2 * a] = s[a]
        S[1, 2 * a + 1] = s[a]
    return S


@njit(cache=True)
def element_mass(rho_a: float, le: float) -> np.ndarray:
    """Constant mass matrix [kg, kg m, kg m^2 blocks] of an element of length ``le`` [m] and mass
    per length ``rho_a`` [kg/m]."""
    M = np.zeros((8, 8))
    for g in range(GAUSS_X.size):
        s, _, _ = hermite(GAUSS_X[g], le)
        S = _matrix(s)
        M += (rho_a * le * GAUSS_W[g]) * (S.T @ S)
    return M


@njit(cache=True)
def element_forces(e: np.ndarray, ea: float, ei: float, le: float, pw: float = 1.5):
    """Elastic forces ``Q = dU/de`` [N, N m] and tangent stiffness ``K = d^2U/de^2`` of one element.

    Parameters
    ----------
    e : (8,) nodal coordinates [m, -, m, -].
    ea : axial stiffness E A [N].
    ei : bending stiffness E I [N m^2].
    le : reference length [m].
    pw : exponent of the curvature ``kappa = (r' x r'') / |r'|^(2 pw)`` [1]: 1.5 the exact
        curvature, 1 the material one (:data:`CURVATURE_EXPONENT`).
    """
    Q = np.zeros(8)
    K = np.zeros((8, 8))
    for g in range(GAUSS_X.size):
        w = le * GAUSS_W[g]
        _, ds, dds = hermite(GAUSS_X[g], le)
        S1 = _matrix(ds)
        S2 = _matrix(dds)
        r1 = S1 @ e
        r2 = S2 @ e
        gg = r1[0] * r1[0] + r1[1] * r1[1]
        nr = np.sqrt(gg)
        # axial: eps = |r'| - 1
        deps = (r1 @ S1) / nr
        ddeps = (S1.T @ S1) / nr - np.outer(deps, deps) / nr
        eps = nr - 1.0
        # bending: kappa = c / g^(3/2), c = r'_x r''_y - r'_y r''_x
        c = r1[0] * r2[1] - r1[1] * r2[0]
        dc = r1[0] * S2[1] + r2[1] * S1[0] - r1[1] * S2[0] - r2[0] * S1[1]
        A = np.outer(S1[0], S2[1]) - np.outer(S1[1], S2[0])
        ddc = A + A.T
        dg = 2.0 * (r1 @ S1)
        ddg = 2.0 * (S1.T @ S1)
        g15 = gg ** pw
        g25 = g15 * gg
        g35 = g25 * gg
        kap = c / g15
        dkap = dc / g15 - pw * c / g25 * dg
        ddkap = (ddc / g15 - pw / g25 * (np.outer(dc, dg) + np.outer(dg, dc))
                 - pw * c / g25 * ddg + pw * (pw + 1.0) * c / g35 * np.outer(dg, dg))
        Q += w * (ea * eps * deps + ei * kap * dkap)
        K += w * (ea * (np.outer(deps, deps) + eps * ddeps) + ei * (np.outer(dkap, dkap) + kap * ddkap))
    return Q, K


def element_energy(e: np.ndarray, ea: float, ei: float, le: float, pw: float = 1.5) -> float:
    """Strain energy [J] of one element (the reference the force test differentiates); ``pw`` as
    :func:`element_forces`."""
    u = 0.0
    for xg, wg in zip(GAUSS_X, GAUSS_W):
        _, ds, dds = hermite(float(xg), le)
        r1 = _matrix(ds) @ e
        r2 = _matrix(dds) @ e
        nr = float(np.hypot(*r1))
        kap = (r1[0] * r2[1] - r1[1] * r2[0]) / nr ** (2.0 * pw)
        u += 0.5 * le * wg * (ea * (nr - 1.0) ** 2 + ei * kap ** 2)
    return u


class CableBeam:
    """A straight ANCF cable beam of ``n_el`` equal elements, assembled (reference path and tests).

    Parameters
    ----------
    length : m.   area : m^2.   second_moment : m^4.   youngs_modulus : Pa.   density : kg/m^3.
    n_el : number of elements.   origin : (2,) m, the first node.   angle : rad, the beam's axis.
    curvature : ``"exact"`` or ``"material"`` (:data:`CURVATURE_EXPONENT`).
    """

    def __init__(self, length, area, second_moment, youngs_modulus, density, n_el, origin=(0.0, 0.0),
                 angle=0.0, curvature=DEFAULT_CURVATURE):
        if n_el < 1 or length <= 0 or area <= 0 or second_moment <= 0 or youngs_modulus <= 0 or density <= 0:
            raise ValueError("CableBeam: length, area, second_moment, youngs_modulus, density must be > 0 "
                             "and n_el >= 1")
        self.L, self.n_el = float(length), int(n_el)
        self.pw = CURVATURE_EXPONENT[curvature]
        self.le = self.L / self.n_el
        self.ea = youngs_modulus * area
        self.ei = youngs_modulus * second_moment
        self.rho_a = density * area
        self.n = 4 * (self.n_el + 1)
        t = np.array([np.cos(angle), np.sin(angle)])
        q0 = np.zeros(self.n)
        for k in range(self.n_el + 1):
            q0[4 * k:4 * k + 2] = np.asarray(origin, float) + k * self.le * t
            q0[4 * k + 2:4 * k + 4] = t
        self.q0 = q0
        me = element_mass(self.rho_a, self.le)
        self.M = np.zeros((self.n, self.n))
        for k in range(self.n_el):
            sl = slice(4 * k, 4 * k + 8)
            self.M[sl, sl] += me

    def forces(self, q: np.ndarray):
        """Global elastic forces [N] and tangent stiffness at the coordinates ``q``."""
        Q = np.zeros(self.n)
        K = np.zeros((self.n, self.n))
        for k in range(self.n_el):
            sl = slice(4 * k, 4 * k + 8)
            qe, ke = element_forces(np.ascontiguousarray(q[sl]), self.ea, self.ei, self.le, self.pw)
            Q[sl] += qe
            K[sl, sl] += ke
        return Q, K

    def position(self, q: np.ndarray, s: float) -> np.ndarray:
        """Centre-line position [m] at the reference arc length ``s`` [m]."""
        k = min(int(s / self.le), self.n_el - 1)
        sh, _, _ = hermite((s - k * self.le) / self.le, self.le)
        return _matrix(sh) @ q[4 * k:4 * k + 8]
