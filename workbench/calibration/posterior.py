"""The posterior of the wear coefficient: likelihood, priors, and the one-dimensional posterior.

**Likelihood.**  Observation ``i`` (measured ``y_i`` with standard error ``sigma_i``) against the
simulated ``mu_i(k)`` whose own standard error is ``s_i(k)`` (the wear store's standard errors of
the cumulative depth and volume, the chaotic scatter of the dynamics):
``y_i ~ Normal(mu_i(k), sigma_i^2 + s_i(k)^2)``, independent.  The simulation's error enters as
a variance because the simulated value is itself an estimate of the mean wear.  Independence
across observations is an assumption: the simulation errors at neighbouring angles and
successive cycles come from the same averaging cycles and are correlated; treated as
independent, a large simulation error is counted as if it averaged out, so keep the
simulation's standard errors well below the measurement errors (the result reports their ratio).

**Priors** (on k [1/Pa]): ``lognormal`` (median, sigma of ln k; the natural prior for a
coefficient whose measured values scatter by a factor: 20-30 % coefficient of variation in
block-on-ring tests, ASTM G77), ``loguniform`` (lower, upper), ``normal`` (mean, sd; truncated
at k > 0), ``uniform`` (lower, upper).

**One parameter, exact.**  With k alone the posterior is computed on a fine grid in ln k
(quadrature; no sampling error): mean, standard deviation, median and the central credible
interval from its cumulative distribution.  **Closed form** (``method = "linear"``): when the
prediction is linear in k, ``mu = beta m``, ``beta = k/k0``, and the simulation error is
negligible, the likelihood is Gaussian in beta with precision ``sum m^2/v`` and mean
``sum m y / v / sum m^2/v``, ``v_i = sigma_i^2 + beta^2 s_i^2`` evaluated at the estimate and
iterated (the effective-variance method; Orear (1982)); with a flat prior that is the posterior.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..errors import WorkbenchError

PRIORS = ("lognormal", "loguniform", "normal", "uniform")


@dataclass(frozen=True)
class Prior:
    """A prior on a positive parameter: ``kind`` in :data:`PRIORS` and its two numbers ``a``, ``b``
    (lognormal: median [unit], sigma of ln; loguniform / uniform: lower, upper; normal: mean, sd)."""
    kind: str
    a: float
    b: float

    def __post_init__(self):
        if self.kind not in PRIORS:
            raise WorkbenchError(f"prior {self.kind!r}: valid priors are {', '.join(PRIORS)}")
        bad = (not (math.isfinite(self.a) and math.isfinite(self.b)) or self.b <= 0
               or (self.kind in ("lognormal", "loguniform") and self.a <= 0)
               or (self.kind in ("loguniform", "uniform") and not self.b > self.a))
        if bad:
            raise WorkbenchError(f"prior {self.kind}({self.a!r}, {self.b!r}): bad numbers "
                                 "(lognormal: median > 0, sigma > 0; loguniform/uniform: 0 <= lower < upper; "
                                 "normal: sd > 0)")

    @classmethod
    def parse(cls, text: str) -> "Prior":
        """``"lognormal:1e-15:0.5"`` -> Prior('lognormal', 1e-15, 0.5)."""
        parts = text.split(":")
        if len(parts) != 3:
            raise WorkbenchError(f"prior {text!r}: write KIND:A:B, e.g. lognormal:1e-15:0.5 (median, sigma of ln k) "
                                 f"or loguniform:1e-16:1e-14; kinds: {', '.join(PRIORS)}")
        try:
            return cls(parts[0], float(parts[1]), float(parts[2]))
        except ValueError:
            raise WorkbenchError(f"prior {text!r}: A and B must be numbers") from None

    def support(self, mass: float = 1e-6) -> tuple[float, float]:
        """An interval holding all but ``mass`` of the prior [unit]."""
        a, b = self.a, self.b
        if self.kind == "lognormal":
            z = stats.norm.isf(mass / 2)
            return a * math.exp(-z * b), a * math.exp(z * b)
        if self.kind == "normal":
            z = stats.norm.isf(mass / 2)
            return max(a - z * b, a * 1e-6 if a > 0 else b * 1e-6), a + z * b
        return (max(a, 1e-300 if self.kind == "loguniform" else 0.0), b)

    def log_density_log(self, k: np.ndarray) -> np.ndarray:
        """Log prior density of ``ln k`` (the grid's variable) up to a constant."""
        k = np.asarray(k, float)
        lk = np.log(k)
        if self.kind == "lognormal":
            return -0.5 * ((lk - math.log(self.a)) / self.b) ** 2
        if self.kind == "loguniform":
            return np.where((k >= self.a) & (k <= self.b), 0.0, -np.inf)
        if self.kind == "uniform":   # density in k times the Jacobian k
            return np.where((k >= self.a) & (k <= self.b), lk, -np.inf)
        return -0.5 * ((k - self.a) / self.b) ** 2 + lk

    def ppf(self, u) -> np.ndarray:
        """Quantiles at probabilities ``u`` (the inverse of the distribution function): to draw from
        the distribution, and to map a unit-cube design onto it (uncertainty propagation)."""
        u = np.clip(np.asarray(u, float), 1e-12, 1.0 - 1e-12)
        if self.kind == "lognormal":
            return self.a * np.exp(self.b * stats.norm.ppf(u))
        if self.kind == "normal":
            return self.a + self.b * stats.norm.ppf(u)
        if self.kind == "loguniform":
            return np.exp(np.log(self.a) + u * (np.log(self.b) - np.log(self.a)))
        return self.a + u * (self.b - self.a)

    def describe(self) -> str:
        names = {"lognormal": ("median", "sigma_ln"), "loguniform": ("lower", "upper"),
                 "normal": ("mean", "sd"), "uniform": ("lower", "upper")}[self.kind]
        return f"{self.kind}({names[0]}={self.a:.6g}, {names[1]}={self.b:.6g})"


def log_likelihood(y, sigma, mu, s) -> np.ndarray:
    """Gaussian log likelihood summed over the last axis: ``mu``, ``s`` (G, n); ``y``, ``sigma`` (n,)."""
    v = sigma ** 2 + s ** 2
    return -0.5 * np.sum((y - mu) ** 2 / v + np.log(v), axis=-1)


@dataclass
class GridPosterior:
    """A one-dimensional posterior on a grid in ln k."""
    k: np.ndarray          # (G,) [1/Pa]
    density: np.ndarray    # (G,) posterior density of ln k, normalised
    cdf: np.ndarray        # (G,)

    @classmethod
    def from_log(cls, k, logp) -> "GridPosterior":
        lk = np.log(k)
        p = np.exp(logp - np.max(logp))
        p[~np.isfinite(p)] = 0.0
        mass = np.concatenate([[0.0], np.cumsum(0.5 * (p[1:] + p[:-1]) * np.diff(lk))])
        if not mass[-1] > 0:
            raise WorkbenchError("the posterior vanishes on the whole prior range: the data and the "
                                 "simulation disagree for every k (check the units and the cycles)")
        return cls(np.asarray(k, float), p / mass[-1], mass / mass[-1])

    def quantile(self, q) -> np.ndarray:
        return np.exp(np.interp(q, self.cdf, np.log(self.k)))

    def moments(self) -> tuple[float, float]:
        lk = np.log(self.k)
        w = self.density * np.gradient(lk)
        w = w / w.sum()
        m = float(np.sum(w * self.k))
        return m, float(math.sqrt(max(np.sum(w * (self.k - m) ** 2), 0.0)))

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        a = 0.5 * (1.0 - level)
        lo, hi = self.quantile([a, 1.0 - a])
        return float(lo), float(hi)

    def edge_mass(self) -> float:
        """Posterior density at the grid's ends relative to its peak (large: the grid truncates it)."""
        return float(max(self.density[0], self.density[-1]) / self.density.max())


def linear_gaussian(y, sigma, m, s, iterations: int = 20) -> tuple[float, float]:
    """Closed-form posterior of ``beta = k/k0`` for ``y ~ N(beta m, sigma^2 + beta^2 s^2)`` with a flat
    prior (effective variance, iterated): its mean and standard deviation."""
    beta = float(np.sum(m * y / sigma ** 2) / np.sum(m * m / sigma ** 2))
    for _ in range(iterations):
        v = sigma ** 2 + beta ** 2 * s ** 2
        prec = float(np.sum(m * m / v))
        new = float(np.sum(m * y / v) / prec)
        if abs(new - beta) <= 1e-14 * abs(beta):
            beta = new
            break
        beta = new
    v = sigma ** 2 + beta ** 2 * s ** 2
    return beta, 1.0 / math.sqrt(float(np.sum(m * m / v)))
