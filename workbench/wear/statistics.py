"""The wear rate of an update as a statistical estimate, outlier screening and the jump controller.

**Why statistics.**  The contact of a clearance joint that impacts is chaotic: cycle after cycle
the journal visits the same attractor, never on the same path.  The per-cycle wear rate wanted by
the cycle jump is the average over that attractor, and a finite number of simulated cycles gives
an *estimate* of it.  Each averaging cycle of an update is one sample (its wear-volume increment
and its wear-depth profile); the estimate is the sample mean and its uncertainty the standard error
of that mean.

**Serial correlation.**  Consecutive cycles of one simulation are correlated (on the Flores
slider-crank at 5000 rpm the lag-1 autocorrelation of the per-cycle wear volume is about 0.3).
The variance of the mean of ``n`` samples of a first-order autoregressive series with lag-1
autocorrelation ``rho`` is ``s^2/n (1 + rho)/(1 - rho)`` for large ``n`` (the sum
``1 + 2 sum_k rho^k`` of its autocorrelations), i.e. the effective number of samples is
``n (1 - rho)/(1 + rho)`` (Zwiers & von Storch (1995), effective sample size of an AR(1) series).  We estimate ``rho``
from the per-cycle volume series of the update, correct the estimate for its bias (the lag-1
sample autocorrelation of ``n`` values about their own mean is low by ``(1 + 3 rho)/n`` on
average, Marriott & Pope (1954): ``rho = (n r + 1)/(n - 3)``; uncorrected, 24-32 cycles of an
AR(1) series with rho = 0.3-0.5 gave standard errors 6-9 % short of the true spread of the mean),
clip it to ``[0, 0.9]`` (a negative estimate from a few cycles is not taken as a gain; 0.9 keeps
the factor finite), and apply the same factor to every node of the profile.  Batch means (Flegal & Jones (2010)) would need tens of cycles per
batch to be safe; with the 4-32 cycles an update can afford, the AR(1) correction is the
better-defended choice.

**Norm of the profile error.**  ``profile_error = ||se(theta)||_2 / ||mean(theta)||_2`` over the
nodes of a surface (bushing and journal together), a relative error of the whole rate profile.

**Outliers.**  A cycle is an outlier when its largest penetration exceeds ``penetration_limit``
times the radial clearance, or when its peak contact force or its wear volume lies above
``median + k * max(MAD, |median|)`` of the update's cycles (MAD scaled by 1.4826 so that it
estimates the standard deviation of normal data).  The floor at the median itself matters: cycles
with and without impacts make the peak-force distribution bimodal (5.8-46 kN on the slider-crank),
and the MAD of a few cycles can be that of one mode only -- with 4 cycles a 19 kN impact cycle
among 6 kN impact-free ones was flagged without it.  So a cycle is an outlier only above
``(1 + k)`` times the median at least (k = 10: an order of magnitude), and a steady contact
(MAD = rounding noise) is never flagged by its last bits.

**Jump control.**  :func:`jump_limit` compares the last two updates against their within-update
standard errors; :func:`trend_jump_limit` (``jump_control = "history"``) fits a trend to the last
updates and takes the scatter about it as noise too (see its docstring for why).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

RHO_MAX = 0.9
MAD_SCALE = 1.4826      # MAD -> standard deviation for normal data
MAD_FLOOR = 1.0         # of |median|


def lag1_autocorrelation(x) -> float:
    """Lag-1 autocorrelation of the series ``x`` (0 for fewer than 3 samples or no variance)."""
    x = np.asarray(x, float)
    if len(x) < 3:
        return 0.0
    d = x - x.mean()
    den = float(np.dot(d, d))
    return float(np.dot(d[:-1], d[1:]) / den) if den > 0.0 else 0.0


def correlation_factor(series) -> float:
    """``(1 + rho)/(1 - rho)`` with ``rho`` the lag-1 autocorrelation, corrected for its bias
    (``(n r + 1)/(n - 3)``, Marriott & Pope (1954); for ``n >= 5``) and clipped to ``[0, 0.9]``."""
    n = len(series)
    r = lag1_autocorrelation(series)
    if n >= 5:
        r = (n * r + 1.0) / (n - 3.0)
    rho = min(max(r, 0.0), RHO_MAX)
    return (1.0 + rho) / (1.0 - rho)


def mean_and_stderr(samples, factor: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Mean over axis 0 and its standard error ``sqrt(factor s^2 / n)`` (``s^2`` with ``n - 1``).

    With one sample the standard error is ``inf`` (nothing is known about the spread)."""
    x = np.asarray(samples, float)
    n = x.shape[0]
    mean = x.mean(axis=0)
    if n < 2:
        return mean, np.full_like(mean, np.inf)
    return mean, np.sqrt(factor * x.var(axis=0, ddof=1) / n)


def relative(se, mean) -> float:
    """``||se||_2 / ||mean||_2`` (0 when both vanish, inf when only the mean does)."""
    num, den = float(np.linalg.norm(se)), float(np.linalg.norm(mean))
    if den == 0.0:
        return 0.0 if num == 0.0 else math.inf
    return num / den


def robust_limit(x, k: float) -> float:
    """``median + k * max(1.4826 MAD, |median|)`` of the samples ``x``."""
    x = np.asarray(x, float)
    med = float(np.median(x))
    mad = MAD_SCALE * float(np.median(np.abs(x - med)))
    return med + k * max(mad, MAD_FLOOR * abs(med))


@dataclass(frozen=True)
class Outlier:
    """One outlying averaging cycle (``cycle`` counts from 0 within the update's averaging cycles)."""
    cycle: int
    reason: str


def find_outliers(peak_force, volume, max_penetration, clearance: float, penetration_limit: float,
                  k: float) -> list[Outlier]:
    """The outlying cycles of one joint in one update (see the module docstring).

    peak_force [N], volume [m^3], max_penetration [m]: one value per averaging cycle;
    clearance [m]; penetration_limit [1] fraction of the clearance; k [1] robust-limit factor.
    """
    out = []
    pen = np.asarray(max_penetration, float)
    for c in np.flatnonzero(pen > penetration_limit * clearance):
        out.append(Outlier(int(c), f"penetration {pen[c]:.4g} m = {pen[c] / clearance:.3g} of the "
                                   f"radial clearance {clearance:.4g} m (limit {penetration_limit:g})"))
    if len(pen) >= 3:
        for name, unit, x in (("peak contact force", "N", peak_force), ("wear volume", "m^3", volume)):
            x = np.asarray(x, float)
            lim = robust_limit(x, k)
            for c in np.flatnonzero(x > lim):
                out.append(Outlier(int(c), f"{name} {x[c]:.4g} {unit} above median + {k:g} MAD "
                                           f"= {lim:.4g} {unit} of the update's cycles"))
    return sorted(out, key=lambda o: o.cycle)


def jump_limit(rate, rate_se, prev_rate, prev_se, prev_jump: float, tolerance: float) -> float:
    """Largest next cycle jump [cycles] allowed by the change of the rate profile over the last jump.

    The jump is an explicit (Euler) step in the cycle count ``N`` of ``dh/dN = r(h)``; its local
    error is about ``dN/2`` times the change of ``r`` over the jump.  The change measured over the
    previous jump, ``||r_k - r_{k-1}||``, holds the statistical noise of both estimates, whose
    expected square is ``||se_k||^2 + ||se_{k-1}||^2``; what is left,
    ``e = sqrt(max(||r_k - r_{k-1}||^2 - noise^2, 0)) / ||r_k||``, is the systematic relative
    change over ``prev_jump`` cycles.  Assuming the change grows linearly with the jump, the next
    jump keeps it below ``tolerance``: ``dN <= tolerance * prev_jump / e`` (inf when ``e = 0``).
    """
    r, p = np.asarray(rate, float), np.asarray(prev_rate, float)
    norm = float(np.linalg.norm(r))
    if norm == 0.0 or prev_jump <= 0.0:
        return math.inf
    change2 = float(np.sum((r - p) ** 2))
    noise2 = float(np.sum(np.asarray(rate_se, float) ** 2) + np.sum(np.asarray(prev_se, float) ** 2))
    if not math.isfinite(noise2):
        return math.inf
    e = math.sqrt(max(change2 - noise2, 0.0)) / norm
    return math.inf if e == 0.0 else tolerance * prev_jump / e


# ------------------------------------------------------------------------------ history jump control
HISTORY_UPDATES = 5     # updates (this one included) in the trend window of trend_jump_limit
SIGNIFICANCE = 0.975    # one-sided quantile of Student's t a trend must pass to limit the jump


@dataclass(frozen=True)
class Trend:
    """Linear trend of the rate profile over the last updates (see :func:`rate_trend`).

    slope : d(rate)/dN per node [rate unit / cycle].
    slope_noise2 : expected ||noise of slope||^2 [(rate unit / cycle)^2].
    scatter2 : ||rate - trend||^2 per update, residual mean square [(rate unit)^2] (``nan`` below
        3 updates: no degree of freedom left).
    dof : degrees of freedom of ``scatter2`` (updates - 2).
    """
    slope: np.ndarray
    slope_noise2: float
    scatter2: float
    dof: int

    @property
    def t2(self) -> float:
        """Squared signal-to-noise ratio ``||slope||^2 / slope_noise2`` of the trend [1]."""
        g2 = float(np.sum(self.slope ** 2))
        if self.slope_noise2 == 0.0:
            return math.inf if g2 > 0.0 else 0.0
        return g2 / self.slope_noise2


def rate_trend(cycles, rates, stderrs) -> Trend | None:
    """Least-squares line through the rate profiles ``rates[i]`` measured at ``cycles[i]``.

    cycles [cycles] (m values, m >= 2, not all equal); rates, stderrs: m rows of node values
    [m/cycle].  The noise of the slope is the larger of the within-update part,
    ``sum_i x_i^2 ||se_i||^2 / Sxx^2`` (``x_i`` = cycles about their mean, ``Sxx = sum x_i^2``),
    and, from 3 updates on, the between-update part ``s^2 / Sxx`` with ``s^2`` the residual mean
    square ``sum_i ||r_i - fit_i||^2 / (m - 2)`` (straight-line least squares, Draper & Smith
    (1998) ch. 1).  ``None`` when the cycles do not spread.
    """
    N = np.asarray(cycles, float)
    r = np.asarray(rates, float)
    se = np.asarray(stderrs, float)
    m = len(N)
    x = N - N.mean()
    sxx = float(np.dot(x, x))
    if m < 2 or sxx == 0.0:
        return None
    rbar = r.mean(axis=0)
    g = (x @ (r - rbar)) / sxx
    within = float(np.dot(x ** 2, np.sum(se ** 2, axis=1))) / sxx ** 2
    if m >= 3:
        resid = r - rbar - np.outer(x, g)
        s2 = float(np.sum(resid ** 2)) / (m - 2)
        noise = max(within, s2 / sxx)
    else:
        s2, noise = math.nan, within
    return Trend(g, noise, s2, m - 2)


def scatter_factor(scatter2: float, stderr) -> float:
    """``max(1, sqrt(scatter2) / ||stderr||_2)`` [1]: the factor that widens a standard error to the
    scatter ``scatter2`` (a squared L2 norm in the same unit squared; 1 when it is not finite or
    the error is 0)."""
    se = float(np.linalg.norm(stderr))
    if not math.isfinite(scatter2) or se == 0.0 or not math.isfinite(se):
        return 1.0
    return max(1.0, math.sqrt(scatter2) / se)


def t_quantile(dof: int, p: float = SIGNIFICANCE) -> float:
    """Quantile ``p`` [1] of Student's t with ``dof`` degrees of freedom (``inf`` for ``dof <= 0``:
    nothing is significant without an estimate of the scatter)."""
    if dof <= 0:
        return math.inf
    from scipy.special import stdtrit
    return float(stdtrit(dof, p))


def trend_jump_limit(cycles, rates, stderrs, prev_jump: float, tolerance: float) -> float:
    """Largest next cycle jump [cycles] allowed by the trend of the rate profile over the last updates.

    cycles [cycles]: the cycle count of each update in the window, oldest first, this update last;
    rates, stderrs [m/cycle]: their rate profiles and within-update standard errors (one row per
    update); prev_jump [cycles]: the last jump; tolerance [1]: largest systematic relative change
    of the profile over the next jump.

    **Why.**  :func:`jump_limit` takes the within-update standard errors as the only noise.  A
    joint with several dynamic regimes on the same surfaces (the worn five-bar: about 17 or about
    130 impacts per cycle, chaotically chosen by each update's start) stays in one regime over an
    update's averaging cycles, so its standard error is small while consecutive updates differ by
    the regime switch.  That difference does not grow with the jump, but the controller assumes it
    does (``dN <= tolerance * prev_jump / e``): with ``e`` fixed by the regimes, every update
    shrinks the jump by ``e / tolerance`` (6 086 -> 495 -> 139 cycles measured), and the run never
    ends.

    **What.**  With two updates in the window this is :func:`jump_limit` (nothing else is known).
    From three on, the profiles are fitted by a straight line in the cycle count
    (:func:`rate_trend`), which a steady drift of the rate (the wear the jump is meant to follow)
    obeys and a switch between regimes does not: the residual mean square ``s^2`` is the scatter
    between updates, the noise of the slope is the larger of it and the within-update errors
    (``/Sxx``), and

    * the slope limits the jump only when it is significant: ``||g||^2 > t^2 * noise`` with ``t``
      the 97.5 % quantile of Student's t with ``m - 2`` degrees of freedom (the residuals of ``m``
      updates about a line; pooled over nodes that move together, the conservative count).  A
      trend the scatter could have drawn leaves the jump to the depth step, which bounds the
      explicit-Euler error in the depth on its own (the geometry moves by at most the depth step);
    * a significant slope gives ``dN <= tolerance * ||r_k|| / sqrt(||g||^2 - noise)``: the noise is
      subtracted as in :func:`jump_limit`, and the change of the rate over the next jump is
      ``dN ||g||`` (a slope per cycle does not need the linear-growth assumption).

    A steady drift with small within-update errors leaves residuals of rounding size: it is
    significant at once, and with two updates on a line the limit equals :func:`jump_limit`'s.
    """
    N = np.asarray(cycles, float)
    if len(N) < 2:
        return math.inf
    if len(N) == 2:
        return jump_limit(rates[1], stderrs[1], rates[0], stderrs[0], prev_jump, tolerance)
    trend = rate_trend(N, rates, stderrs)
    norm = float(np.linalg.norm(np.asarray(rates, float)[-1]))
    if trend is None or norm == 0.0 or not math.isfinite(trend.slope_noise2):
        return math.inf
    if trend.t2 <= t_quantile(trend.dof) ** 2:
        return math.inf
    g2 = float(np.sum(trend.slope ** 2)) - trend.slope_noise2
    return math.inf if g2 <= 0.0 else tolerance * norm / math.sqrt(g2)
