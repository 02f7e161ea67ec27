"""The surrogate of a UQ run: a polynomial chaos fitted on the design's runs, checked against
held-back direct runs, with its own Sobol' indices beside SALib's.

With ``[uq] surrogate = "pce"`` the design's finished runs (every row of the Saltelli design is a
draw of the joint input distribution) fit a total-degree ``surrogate_order`` expansion
(:mod:`workbench.uq.pce`) of the worn volume and the deepest wear at every cycle of the grid.  From
it:

* **Sobol' indices** from the coefficients (Sudret (2008)), of the final values and along the
  cycles, beside SALib's Monte Carlo estimates;
* a **surrogate band**: the central ``level`` quantiles of the expansion over 20 000 draws of the
  inputs (parameter uncertainty alone: the expansion is fitted on the runs' values, whose chaotic
  scatter the regression averages out);
* the **held-back check**: ``held_back`` direct runs at fresh random draws, not in the fit, against
  the expansion at the same inputs.  The relative error of their mean and of their band edges (the
  ``(1 - level)/2`` and ``(1 + level)/2`` quantiles over the held-back runs, direct against
  surrogate, so the draws' own sampling error cancels) is reported, with the RMS of the pointwise
  relative errors.  A direct run carries its chaotic scatter (standard error ``se``), which no
  surrogate can follow: the statistical error of the mean is ``rms(se) / sqrt(H)`` and of a band
  edge about ``rms(se)``.  The surrogate is **flagged** (a :class:`SurrogateWarning` and the
  ``surrogate_check`` attribute) when an error exceeds ``surrogate_tolerance`` plus twice that
  statistical error.

Every variable states its ``units`` and ``long_name``; the errors are also dataset attributes
(``surrogate_error_<statistic>_<output>``, [1]).
"""
from __future__ import annotations

import warnings

import numpy as np
import xarray as xr

from .pce import FAMILY, fit
from .spec import UQSpec

#: draws of the inputs for the surrogate's band
BAND_DRAWS = 20_000
#: the outputs: (name in the dataset, row of the histories, row of their standard errors, unit, words)
OUTPUTS = (("volume", "wear_volume", 0, 1, "m^3", "final bushing worn volume"),
           ("deepest", "deepest_wear", 2, 3, "m", "final deepest bushing wear"))
STATISTICS = ("mean", "low", "high", "rms")


class SurrogateWarning(UserWarning):
    """The surrogate of a UQ run missed its held-back direct runs by more than its tolerance."""


def _var(dims, data, units, long_name, **attrs):
    return xr.Variable(dims, np.asarray(data), {"units": units, "long_name": long_name, **attrs})


def check(direct: np.ndarray, se: np.ndarray, surrogate: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Relative held-back errors and their statistical floors, each over :data:`STATISTICS`
    (mean, lower band edge, upper band edge, RMS pointwise), of the surrogate's values at the
    held-back inputs against the direct runs' values ``direct`` with standard errors ``se``."""
    a = 0.5 * (1.0 - level)
    h = len(direct)
    rms_se = float(np.sqrt(np.mean(se ** 2)))
    ref = [np.mean(direct), *np.quantile(direct, [a, 1.0 - a])]
    got = [np.mean(surrogate), *np.quantile(surrogate, [a, 1.0 - a])]
    err = [abs(g - r) / abs(r) for g, r in zip(got, ref)]
    floor = [rms_se / np.sqrt(h) / abs(ref[0]), rms_se / abs(ref[1]), rms_se / abs(ref[2])]
    err.append(float(np.sqrt(np.mean(((surrogate - direct) / direct) ** 2))))
    floor.append(float(np.sqrt(np.mean((se / direct) ** 2))))
    return np.array(err, float), np.array(floor, float)


def surrogate_part(spec: UQSpec, u: np.ndarray, hist: np.ndarray, n_design: int, grid: np.ndarray):
    """The surrogate's variables, attributes and summary lines of a UQ run.

    u : (n, d) unit-cube coordinates of every run (design rows first, then the held-back runs);
    hist : (n, 4, G) worn volume, its SE, deepest wear, its SE on the cycle ``grid`` (NaN: failed);
    n_design : the number of design rows.
    Returns ``(variables, attrs, lines, coords)``: the dataset variables, attributes, the lines of
    the printed summary and the ``statistic`` coordinate."""
    fams = [FAMILY[p.prior.kind] for p in spec.parameters]
    ok = np.all(np.isfinite(hist.reshape(len(hist), -1)), axis=1)
    design = np.arange(len(hist)) < n_design
    fit_rows, check_rows = design & ok, ~design & ok
    level = spec.level
    a = 0.5 * (1.0 - level)
    rng = np.random.default_rng([spec.seed, 7])
    ub = rng.uniform(size=(BAND_DRAWS, len(fams)))
    v: dict = {}
    attrs: dict = {"surrogate": "pce", "surrogate_order": spec.surrogate_order,
                   "surrogate_fit_runs": int(fit_rows.sum()), "held_back_runs": int((~design).sum()),
                   "held_back_runs_ok": int(check_rows.sum()), "surrogate_tolerance": spec.surrogate_tolerance,
                   "surrogate_germs": ", ".join(f"{p.name}: {f}" for p, f in zip(spec.parameters, fams))}
    lines = []
    flags = []
    v["held_back"] = _var(("run",), (~design).astype(np.int8), "1",
                          "1: a held-back direct run checking the surrogate (not in the fit nor in SALib's "
                          "estimators); 0: a row of the Saltelli design")
    for out, key, row, se_row, unit, what in OUTPUTS:
        pce = fit(fams, u[fit_rows], hist[fit_rows, row, :], spec.surrogate_order)
        s1, st = pce.sobol()
        along = what.replace("final ", "")
        tag = "(from the polynomial chaos)"
        v.update({
            f"sobol_first_{out}_pce": _var(("input",), s1[:, -1], "1", f"first-order Sobol' index, {what} {tag}"),
            f"sobol_total_{out}_pce": _var(("input",), st[:, -1], "1", f"total Sobol' index, {what} {tag}"),
            f"sobol_first_{out}_pce_cycles": _var(("input", "cycle"), s1, "1",
                                                  f"first-order Sobol' index along the cycles, {along} {tag}"),
            f"sobol_total_{out}_pce_cycles": _var(("input", "cycle"), st, "1",
                                                  f"total Sobol' index along the cycles, {along} {tag}"),
            f"{key}_surrogate_band": _var(("quantile", "cycle"), np.quantile(pce(ub), [a, 0.5, 1.0 - a], axis=0), unit,
                                          f"{along}: quantiles of the polynomial chaos over {BAND_DRAWS} input "
                                          "draws (parameter uncertainty alone)"),
            f"{key}_surrogate_mean": _var(("cycle",), pce.mean, unit,
                                          f"{along}: mean of the polynomial chaos (its constant term)"),
            f"surrogate_{key}": _var(("run",), pce(u)[:, -1], unit, f"{what}: the polynomial chaos at each run's inputs"),
            f"pce_coefficients_{out}": _var(("term",), pce.coef[:, -1], unit,
                                            f"polynomial chaos coefficients of the {what} (orthonormal basis)"),
            "pce_multi_index": _var(("term", "input"), pce.alpha, "1", "degree of each input's polynomial in each term"),
        })
        if check_rows.sum() < 2:
            attrs[f"surrogate_check_{out}"] = "not possible: fewer than 2 held-back runs finished"
            flags.append(f"{out}: fewer than 2 held-back runs finished, the surrogate is unchecked")
            continue
        err, floor = check(hist[check_rows, row, -1], hist[check_rows, se_row, -1], pce(u[check_rows])[:, -1], level)
        v[f"surrogate_error_{out}"] = _var(("statistic",), err, "1",
                                           f"{what}: relative error of the surrogate against the held-back direct runs")
        v[f"surrogate_error_{out}_floor"] = _var(("statistic",), floor, "1",
                                                 f"{what}: the held-back runs' own statistical error of the same statistic (relative)")
        for s, e in zip(STATISTICS, err):
            attrs[f"surrogate_error_{s}_{out}"] = float(e)
        bad = [f"{s} {100 * e:.3g} % > {100 * spec.surrogate_tolerance:.3g} % + 2 x {100 * f:.2g} %"
               for s, e, f in zip(STATISTICS[:3], err[:3], floor[:3]) if e > spec.surrogate_tolerance + 2 * f]
        attrs[f"surrogate_check_{out}"] = "flagged: " + "; ".join(bad) if bad else "passed"
        if bad:
            flags.append(f"{out}: " + "; ".join(bad))
        lines.append(f"  surrogate {out}: held-back relative error of the mean {100 * err[0]:.3g} %, band edges "
                     f"{100 * a:.3g} % {100 * err[1]:.3g} %, {100 * (1 - a):.3g} % {100 * err[2]:.3g} % (runs' own "
                     f"error {100 * floor[0]:.2g}, {100 * floor[1]:.2g}, {100 * floor[2]:.2g} %); pointwise RMS "
                     f"{100 * err[3]:.3g} % -> {attrs[f'surrogate_check_{out}']}")
    attrs["surrogate_check"] = ("flagged: " + " | ".join(flags)) if flags else "passed"
    lines.insert(0, f"  surrogate: polynomial chaos of order {spec.surrogate_order} ({len(pce.alpha)} terms) on "
                    f"{int(fit_rows.sum())} design runs, checked on {int(check_rows.sum())} held-back runs: "
                    f"{attrs['surrogate_check'].split(':')[0]}")
    if flags:
        warnings.warn(f"uncertainty propagation '{spec.title}': the polynomial chaos of order "
                      f"{spec.surrogate_order} fails its check on the held-back direct runs ({' | '.join(flags)}); "
                      f"raise surrogate_order or base_samples, or read SALib's indices", SurrogateWarning, stacklevel=2)
    coords = {"statistic": _var(("statistic",), np.array(STATISTICS, dtype=object), "1",
                                "held-back statistic: mean, lower and upper band edge, RMS of the pointwise errors")}
    return v, attrs, lines, coords
