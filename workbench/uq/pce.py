"""A polynomial-chaos surrogate fitted by least squares, its moments and its Sobol' indices.

Each uncertain input is written through a standard *germ* ``xi`` of its own family (the
Wiener-Askey scheme, Xiu & Karniadakis (2002) §4): a normal input is ``mean + sd xi`` and a
lognormal one ``median exp(sigma_ln xi)`` with ``xi`` standard normal (probabilists' Hermite
polynomials ``He_n(xi) / sqrt(n!)``), a uniform or log-uniform one is linear in ``xi`` uniform on
[-1, 1] (Legendre polynomials ``sqrt(2n + 1) P_n(xi)``).  Both families are orthonormal under their
germ's density, so the products ``Psi_a(xi) = prod_i psi_{a_i}(xi_i)`` over the multi-indices ``a``
of total degree ``<= order`` are orthonormal under the joint density of independent inputs.  The
germ of a draw is computed from its unit-cube coordinate ``u`` (the design's), exactly as the
runs' values were: ``xi = Phi^-1(u)`` or ``2 u - 1``.

The surrogate ``y(xi) = sum_a c_a Psi_a(xi)`` is fitted by ordinary least squares on the design
runs (non-intrusive regression, Blatman & Sudret (2010)).  By orthonormality its mean is ``c_0``,
its variance ``D = sum_{a != 0} c_a^2``, and Sobol's variance decomposition falls out of the
coefficients (Sudret (2008)): the first-order index of input i sums ``c_a^2 / D`` over the ``a``
with only ``a_i`` non-zero, the total index over every ``a`` with ``a_i > 0``.

Everything here is plain numpy on arrays: ``u`` (n, d), outputs (n,) or (n, m).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..errors import WorkbenchError

#: germ family of each distribution kind (:class:`workbench.calibration.posterior.Prior` kinds)
FAMILY = {"normal": "hermite", "lognormal": "hermite", "uniform": "legendre", "loguniform": "legendre"}
#: the probabilities a germ is held inside (the design's own clip, :data:`workbench.uq.spec.TAIL`)
TAIL = 1.0e-4


def multi_indices(d: int, order: int) -> np.ndarray:
    """All multi-indices of ``d`` inputs of total degree ``<= order``, by degree (the constant
    first): an (P, d) int array, ``P = (d + order)! / (d! order!)``."""
    if d < 1 or order < 0:
        raise WorkbenchError(f"polynomial chaos: need d >= 1 inputs and order >= 0, got d = {d}, order = {order}")
    rows = [a for a in itertools.product(range(order + 1), repeat=d) if sum(a) <= order]
    rows.sort(key=lambda a: (sum(a), tuple(-x for x in a)))
    return np.array(rows, dtype=int).reshape(-1, d)


def terms(d: int, order: int) -> int:
    """Number of terms ``P`` of a total-degree ``order`` expansion in ``d`` inputs."""
    return math.comb(d + order, order)


def germ(families, u: np.ndarray) -> np.ndarray:
    """The germs ``xi`` (n, d) of the unit-cube points ``u`` (n, d), one family per column."""
    from scipy.stats import norm
    u = np.atleast_2d(np.asarray(u, float))
    xi = np.empty_like(u)
    for i, fam in enumerate(families):
        if fam == "hermite":
            xi[:, i] = norm.ppf(np.clip(u[:, i], TAIL, 1.0 - TAIL))
        elif fam == "legendre":
            xi[:, i] = 2.0 * u[:, i] - 1.0
        else:
            raise WorkbenchError(f"polynomial chaos: unknown germ family {fam!r}; valid: hermite, legendre")
    return xi


def _univariate(fam: str, x: np.ndarray, order: int) -> np.ndarray:
    """(order + 1, n) orthonormal polynomials of degrees 0..order of ``fam`` at ``x``."""
    from numpy.polynomial import hermite_e, legendre
    out = np.empty((order + 1, len(x)))
    for n in range(order + 1):
        c = np.zeros(n + 1)
        c[n] = 1.0
        if fam == "hermite":
            out[n] = hermite_e.hermeval(x, c) / math.sqrt(math.factorial(n))
        else:
            out[n] = legendre.legval(x, c) * math.sqrt(2 * n + 1)
    return out


def basis(families, alpha: np.ndarray, xi: np.ndarray) -> np.ndarray:
    """The design matrix ``Psi_a(xi)``: (n, P) for germs ``xi`` (n, d) and multi-indices ``alpha``."""
    order = int(alpha.max()) if alpha.size else 0
    uni = [_univariate(f, xi[:, i], order) for i, f in enumerate(families)]
    psi = np.ones((len(xi), len(alpha)))
    for i in range(len(families)):
        psi *= uni[i][alpha[:, i]].T
    return psi


@dataclass(frozen=True)
class PCE:
    """A fitted expansion: germ ``families`` per input, ``alpha`` (P, d), ``coef`` (P, m) for ``m``
    outputs fitted at once."""
    families: tuple
    alpha: np.ndarray
    coef: np.ndarray

    @property
    def order(self) -> int:
        return int(self.alpha.sum(axis=1).max())

    def __call__(self, u: np.ndarray) -> np.ndarray:
        """The surrogate's outputs (n, m) at unit-cube points ``u`` (n, d)."""
        return basis(self.families, self.alpha, germ(self.families, u)) @ self.coef

    @property
    def mean(self) -> np.ndarray:
        """(m,) the expansion's mean, ``c_0``."""
        return self.coef[0].copy()

    @property
    def variance(self) -> np.ndarray:
        """(m,) the expansion's variance, ``sum_{a != 0} c_a^2``."""
        return np.sum(self.coef[1:] ** 2, axis=0)

    def sobol(self) -> tuple[np.ndarray, np.ndarray]:
        """First-order and total Sobol' indices (d, m) from the coefficients (NaN where the
        expansion's variance is 0)."""
        c2 = self.coef ** 2
        var = self.variance
        nz = self.alpha > 0                                      # (P, d)
        only = nz & (nz.sum(axis=1, keepdims=True) == 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            s1 = (only.T.astype(float) @ c2) / var
            st = (nz.T.astype(float) @ c2) / var
        bad = ~(var > 0)
        s1[:, bad] = np.nan
        st[:, bad] = np.nan
        return s1, st


def fit(families, u: np.ndarray, y: np.ndarray, order: int) -> PCE:
    """Least-squares expansion of total degree ``order`` through the outputs ``y`` (n,) or (n, m)
    at the unit-cube points ``u`` (n, d).  Needs at least as many points as terms."""
    families = tuple(families)
    u = np.atleast_2d(np.asarray(u, float))
    y = np.asarray(y, float)
    y2 = y.reshape(len(y), -1)
    alpha = multi_indices(len(families), order)
    if len(u) < len(alpha):
        raise WorkbenchError(f"polynomial chaos of order {order} in {len(families)} inputs has {len(alpha)} "
                             f"terms but only {len(u)} runs to fit them: lower the order or add runs")
    if not np.all(np.isfinite(y2)):
        raise WorkbenchError("polynomial chaos: every output to fit must be finite")
    psi = basis(families, alpha, germ(families, u))
    coef, *_ = np.linalg.lstsq(psi, y2, rcond=None)
    return PCE(families, alpha, coef)
