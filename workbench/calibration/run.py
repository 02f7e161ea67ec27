"""``calibrate``: the posterior of the wear coefficient from measured wear (see the package docstring)."""
from __future__ import annotations

import dataclasses
import datetime as _dt
import math
import shutil
import tempfile
from pathlib import Path

import numpy as np
import xarray as xr

from ..runtime.version import __version__
from ..errors import WorkbenchError
from . import forward as fw
from .data import Measurements, read_measurements
from .posterior import GridPosterior, Prior, linear_gaussian, log_likelihood

METHODS = ("scaled", "linear")
PARAMETERS = ("wear_coefficient",)


def _var(dims, data, units, long_name):
    return xr.Variable(dims, np.asarray(data), {"units": units, "long_name": long_name})


def reference_coefficient(study) -> float:
    """The study's wear coefficient k0 [1/Pa], checked to be one the scaling applies to."""
    if study.kind != "wear":
        raise WorkbenchError(f"calibrate needs a wear study (kind = \"wear\"), got kind = {study.kind!r}")
    law = study.wear.law
    k0 = getattr(law.params, "wear_coefficient", None)
    if k0 is None or getattr(law, "evolving", False):
        raise WorkbenchError(f"calibrate: the wear law '{law.name}' is not linear in a 'wear_coefficient' "
                             f"(a law whose coefficient evolves with the sliding distance breaks the k N "
                             f"scaling); use archard or reye")
    if not k0 > 0:
        raise WorkbenchError(f"calibrate: the study's wear_coefficient must be > 0, got {k0!r}")
    return float(k0)


def simulate(study, cycles: float, out: Path, registry=None):
    """Run the wear study to ``cycles`` cycles into the new store ``out``; return its dataset."""
    from ..wear.loop import run_wear_study
    st = dataclasses.replace(study, wear=dataclasses.replace(study.wear, cycles=float(cycles)))
    return run_wear_study(st, registry=registry, out=out)


def calibrate(study, data, *, prior: Prior | str | None = None, method: str = "scaled",
              simulation=None, keep_simulation: str | Path | None = None, k_max_factor: float = 4.0,
              grid: int = 2001, level: float = 0.95, registry=None) -> xr.Dataset:
    """The posterior of the wear coefficient of ``study`` given the measured ``data``.

    study : a wear study (loaded, a path or TOML text), its wear coefficient k0 the reference run's;
    data : :class:`~workbench.calibration.data.Measurements` or a CSV / netCDF file;
    prior : :class:`Prior` or ``"KIND:A:B"``; default lognormal, median k0, sigma of ln k 1;
    method : ``"scaled"`` (exact for Archard-type laws, nonlinear wear included: the run at k0
        read at N k/k0) or ``"linear"`` (small wear: ``(k/k0) h(N)``, with the closed form);
    simulation : an existing wear result (path or dataset) of this study to use instead of
        running it; it must reach ``max(cycles) * k_max_factor`` (``scaled``);
    keep_simulation : where to keep the reference run (a new zarr store); default a temporary one;
    k_max_factor : the reference run covers k up to this multiple of k0 (``scaled``);
    grid, level : grid points in ln k, credible level.

    Returns an :class:`xarray.Dataset` (units, provenance in the attributes).
    """
    from ..study.load import load_any as load_study
    study = load_study(study, registry=registry)
    if method not in METHODS:
        raise WorkbenchError(f"calibrate: method {method!r}; valid: {', '.join(METHODS)}")
    k0 = reference_coefficient(study)
    data = data if isinstance(data, Measurements) else read_measurements(data)
    prior = Prior.parse(prior) if isinstance(prior, str) else (prior or Prior("lognormal", k0, 1.0))
    n_max = float(np.max(data.cycles))
    need = n_max * (k_max_factor if method == "scaled" else 1.0)
    tmp = None
    try:
        if simulation is None:
            if keep_simulation is not None:
                out = Path(keep_simulation)
            else:
                tmp = Path(tempfile.mkdtemp(prefix="workbench-calibrate-"))
                out = tmp / "reference.zarr"
            ds = simulate(study, need, out, registry=registry)
            sim_file = "" if tmp is not None else str(out)
        else:
            from ..results.dataset import open_results
            ds = simulation if isinstance(simulation, xr.Dataset) else open_results(simulation)
            sim_file = "" if isinstance(simulation, xr.Dataset) else str(simulation)
        ds = ds.load()
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)   # safe: our own temporary folder
    fwd = fw.from_store(ds, data, k0)
    lo, hi = prior.support()
    hi = min(hi, k0 * fwd.last / n_max) if method == "scaled" else hi
    if not hi > lo:
        raise WorkbenchError(f"calibrate: the simulation ({fwd.last:.6g} cycles) covers no k of the prior "
                             f"{prior.describe()} at {n_max:.6g} measured cycles; run it longer")
    model = fwd.scaled if method == "scaled" else fwd.linear
    k = np.geomspace(lo, hi, grid)
    for _ in range(3):   # zoom: the posterior is often far narrower than the prior's range
        mu, s = model(k, data.cycles)
        loglik = log_likelihood(data.value, data.stderr, mu, s)
        logp = loglik + prior.log_density_log(k)
        bulk = np.flatnonzero(logp >= np.max(logp) - 40.0)   # e^-40: nothing of the posterior is left outside
        a, b = max(bulk[0] - 2, 0), min(bulk[-1] + 2, len(k) - 1)
        if b - a >= grid // 4:
            break
        k = np.geomspace(k[a], k[b], grid)
    post = GridPosterior.from_log(k, logp)
    kw = np.geomspace(*prior.support(), 20001)       # the prior normalised over its own range
    wide = GridPosterior.from_log(kw, prior.log_density_log(kw))
    prior_density = np.interp(np.log(k), np.log(kw), wide.density)
    if post.edge_mass() > 1e-3 and (k[0] <= lo * (1 + 1e-9) or k[-1] >= hi * (1 - 1e-9)):
        raise WorkbenchError(
            f"calibrate: the posterior reaches the end of the k range [{lo:.4g}, {hi:.4g}] 1/Pa "
            f"(density there {post.edge_mass():.2g} of its peak): "
            + ("raise k_max_factor (the reference run must reach the measured cycles times k/k0)"
               if post.density[-1] >= post.density[0] and method == "scaled" else "widen the prior"))
    mean, sd = post.moments()
    lower, upper = post.interval(level)
    # closed form (linear model), for comparison and as the fast path's check
    m_lin, s_lin = fwd.at(np.asarray(data.cycles)[None, :])
    beta, beta_sd = linear_gaussian(data.value, data.stderr, m_lin[0], s_lin[0])
    # posterior predictive at the observations: draws of k, the simulation's error added
    rng = np.random.default_rng(0)
    draws = post.quantile(rng.uniform(size=4000))
    pm, ps = (fwd.scaled if method == "scaled" else fwd.linear)(draws, data.cycles)
    pred = pm + ps * rng.standard_normal(pm.shape)
    band = np.quantile(pred, [0.5 * (1 - level), 0.5, 0.5 * (1 + level)], axis=0)
    i_map = int(np.argmax(post.density))
    # how far the small-wear model (k/k0) h(N) is from the exact k N scaling at the mode, in
    # measurement standard errors: above ~0.3 the linear method's interval is biased
    nonlinearity = math.nan        # NaN: the run does not reach N k/k0 (a linear-method run)
    if k[i_map] * n_max / k0 <= fwd.last:
        ms, _ = fwd.scaled(k[i_map:i_map + 1], data.cycles)
        ml, _ = fwd.linear(k[i_map:i_map + 1], data.cycles)
        nonlinearity = float(np.sqrt(np.mean(((ms - ml) / data.stderr) ** 2)))
    sim_ratio = float(np.median(s[i_map] / data.stderr))
    obs = np.arange(len(data))
    units = np.array([("m" if q == "wear_depth" else "m^3") for q in data.quantity])
    out = xr.Dataset(
        {
            "posterior_density": _var(("k",), post.density, "1", "posterior density of ln k"),
            "prior_density": _var(("k",), prior_density, "1", "prior density of ln k"),
            "posterior_cdf": _var(("k",), post.cdf, "1", "posterior cumulative distribution of k"),
            "log_likelihood": _var(("k",), loglik, "1", "log likelihood of the data"),
            "k_mean": _var((), mean, "1/Pa", "posterior mean of the wear coefficient"),
            "k_sd": _var((), sd, "1/Pa", "posterior standard deviation of the wear coefficient"),
            "k_median": _var((), float(post.quantile(0.5)), "1/Pa", "posterior median of the wear coefficient"),
            "k_map": _var((), float(k[i_map]), "1/Pa", "posterior mode of the wear coefficient"),
            "k_lower": _var((), lower, "1/Pa", f"lower end of the central {level:.0%} credible interval"),
            "k_upper": _var((), upper, "1/Pa", f"upper end of the central {level:.0%} credible interval"),
            "k_linear": _var((), beta * k0, "1/Pa", "closed-form (linear model, flat prior) estimate of k"),
            "k_linear_sd": _var((), beta_sd * k0, "1/Pa", "its standard deviation"),
            "observed": _var(("observation",), data.value, "m or m^3 (see observation_units)", "measured value"),
            "observed_stderr": _var(("observation",), data.stderr, "m or m^3", "measurement standard error"),
            "observation_quantity": _var(("observation",), data.quantity.astype(str), "1", "wear_depth or wear_volume"),
            "observation_units": _var(("observation",), units, "1", "units of the observation"),
            "observation_cycles": _var(("observation",), data.cycles, "1", "machine cycles of the observation"),
            "observation_theta": _var(("observation",), data.theta, "rad", "body-frame angle (wear_depth)"),
            "observation_surface": _var(("observation",), data.surface.astype(str), "1", "worn surface"),
            "predicted_at_map": _var(("observation",), mu[i_map], "m or m^3", "simulated value at the posterior mode"),
            "simulation_stderr_at_map": _var(("observation",), s[i_map], "m or m^3",
                                             "the simulation's standard error at the posterior mode"),
            "predictive_lower": _var(("observation",), band[0], "m or m^3", f"posterior predictive, lower {level:.0%} bound"),
            "predictive_median": _var(("observation",), band[1], "m or m^3", "posterior predictive median"),
            "predictive_upper": _var(("observation",), band[2], "m or m^3", f"posterior predictive, upper {level:.0%} bound"),
        },
        coords={"k": _var(("k",), k, "1/Pa", "wear coefficient k_d (grid)"), "observation": obs},
        attrs={
            "Conventions": "CF-1.8", "title": f"calibration of the wear coefficient: {study.title}",
            "study_kind": "calibration", "workbench_version": __version__,
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "parameter": "wear_coefficient", "wear_law": study.wear.law.name,
            "reference_coefficient": k0, "reference_coefficient_units": "1/Pa",
            "method": method, "prior": prior.describe(), "credible_level": level,
            "likelihood": "y_i ~ Normal(mu_i(k), sigma_i^2 + s_i(k)^2), independent; s: the simulation's standard error",
            "data_file": str(data.source), "observations": len(data),
            "study_text": study.text, "study_file": str(study.file or ""),
            "simulation_file": sim_file, "simulation_cycles": fwd.last,
            "simulation_to_measurement_error": sim_ratio,
            "nonlinearity": nonlinearity,
            "nonlinearity_meaning": ("RMS over the observations of (scaled - linear prediction) / measurement "
                                     "error at the posterior mode; above ~0.3 use method 'scaled'; NaN: the run does not reach N k/k0"),
        })
    return out
