"""Uncertainty propagation through a wear study.

Inputs: independent distributions of study parameters, by key path as in a sweep
(``"wear.law.wear_coefficient"``, ``"mechanism.clearance_joints[0].bushing_radius"``; a
:class:`~workbench.calibration.posterior.Prior` or ``"KIND:A:B"``).  Outputs at ``cycles``: the
bushing's deepest wear, its worn volume and its profile, with bands that combine the parameter
uncertainty and the chaotic scatter of the dynamics, Sobol' indices, and the surrogate's error on
held-back direct runs.

How:

* the **wear coefficient** costs nothing: for Archard-type laws the worn state depends on k N
  only (:mod:`workbench.calibration.forward`), so each run at the study's k0 predicts every k;
* the **other parameters** get design runs over their distributions' ranges (0.05 %-99.95 %
  quantiles; evenly for one, a scrambled Sobol' sequence for several) and a thin-plate
  radial-basis interpolant between them (linear in the runs' values);
* **bands**: Monte Carlo over the inputs on the surrogate, each draw's outputs perturbed by the
  simulation's standard error there (the chaotic scatter; the deepest wear takes the error of
  its node), central ``level`` quantiles;
* **Sobol' indices** of the surrogate's mean outputs (:func:`workbench.uq.sobol.sobol_indices`),
  and the share of the output variance that is chaotic scatter;
* **check**: ``held_back`` extra direct runs at random draws, against the surrogate.
"""
from __future__ import annotations

import datetime as _dt
import math

import numpy as np
import xarray as xr

from ..runtime.version import __version__
from ..calibration import forward as fw
from ..calibration.data import Measurements
from ..calibration.design import design_runs, with_values
from ..calibration.posterior import Prior
from ..calibration.run import reference_coefficient, simulate
from ..errors import WorkbenchError
from .sobol import sobol_indices

K_KEY = "wear.law.wear_coefficient"


def _var(dims, data, units, long_name):
    return xr.Variable(dims, np.asarray(data), {"units": units, "long_name": long_name})


def propagate(study, parameters: dict, *, cycles: float | None = None, samples: int = 4000, design: int = 5,
              held_back: int = 2, level: float = 0.95, sobol_n: int = 1024, seed: int = 0,
              registry=None) -> xr.Dataset:
    """Bands and Sobol' indices of the bushing's wear after ``cycles`` (default: the study's) of
    ``study`` under the distributions ``parameters`` (see the module docstring)."""
    from scipy.interpolate import RBFInterpolator
    from ..study.load import load_any as load_study
    study = load_study(study, registry=registry)
    k0 = reference_coefficient(study)
    N = float(cycles if cycles is not None else study.wear.cycles)
    dists = {k: (Prior.parse(v) if isinstance(v, str) else v) for k, v in parameters.items()}
    if not dists:
        raise WorkbenchError("propagate: no uncertain parameters")
    kd = dists.get(K_KEY, Prior("uniform", k0 * (1 - 1e-9), k0 * (1 + 1e-9)))
    names = [k for k in dists if k != K_KEY]
    k_lo, k_hi = float(kd.ppf(0.0005)), float(kd.ppf(0.9995))
    need = N * max(k_hi / k0, 1.0) * 1.02
    rng = np.random.default_rng(seed)
    if names:
        from scipy.stats import qmc
        u = (np.linspace(0.0, 1.0, design)[:, None] if len(names) == 1
             else qmc.Sobol(len(names), scramble=True, seed=seed).random(design))
        u = 0.0005 + 0.999 * u
        points = np.column_stack([dists[n].ppf(u[:, i]) for i, n in enumerate(names)])
        runs = design_runs(study, names, points, need, registry)
    else:
        runs = design_runs(study, [], np.zeros((1, 0)), need, registry)
    M = int(runs[0][1].sizes["theta"])
    theta_nodes = 2 * math.pi * np.arange(M) / M
    obs = Measurements.from_arrays(["wear_depth"] * M + ["wear_volume"], N, np.zeros(M + 1), 1.0,
                                   theta=list(theta_nodes) + [math.nan])
    fwds = [fw.from_store(ds, obs, k0) for _, ds in runs]
    pts = np.array([t for t, _ in runs], float).reshape(len(runs), len(names))
    lo, hi = (pts.min(axis=0), pts.max(axis=0)) if names else (np.zeros(0), np.zeros(0))
    scale = np.where(hi > lo, hi - lo, 1.0)
    basis = (RBFInterpolator((pts - lo) / scale, np.eye(len(runs)), kernel="thin_plate_spline", degree=1)
             if names and len(runs) > len(names) + 1 else None)

    def predict(k, theta):
        """Mean (S, M+1) and standard error for draws k (S,) and theta (S, d); k is held inside its
        0.05-99.95 % quantiles (the runs' reach: a truncation of 0.1 % of the distribution)."""
        k = np.clip(k, k_lo, k_hi)
        pieces = [f.scaled(k, obs.cycles) for f in fwds]
        if basis is None:
            return pieces[0]
        w = basis((np.atleast_2d(theta) - lo) / scale)
        mu = np.einsum("sj,jsn->sn", w, np.array([p[0] for p in pieces]))
        se = np.sqrt(np.einsum("sj,jsn->sn", np.abs(w), np.array([p[1] for p in pieces]) ** 2))
        return mu, se

    def outputs(mu, se, z=None):
        i = np.argmax(mu[:, :M], axis=1)
        deep, deep_se = mu[np.arange(len(mu)), i], se[np.arange(len(mu)), i]
        vol, vol_se = mu[:, M], se[:, M]
        if z is not None:
            deep, vol = deep + deep_se * z[:, 0], vol + vol_se * z[:, 1]
        return deep, vol, deep_se, vol_se

    # Monte Carlo on the surrogate: parameter uncertainty + chaotic scatter
    uu = rng.uniform(size=(samples, 1 + len(names)))
    kk = kd.ppf(uu[:, 0])
    th = np.column_stack([dists[n].ppf(uu[:, 1 + i]) for i, n in enumerate(names)]) if names else np.zeros((samples, 0))
    th = np.clip(th, lo, hi) if names else th
    mu, se = predict(kk, th)
    z = rng.standard_normal((samples, 2))
    deep, vol, deep_se, vol_se = outputs(mu, se, z)
    prof = mu[:, :M] + se[:, :M] * rng.standard_normal((samples, M))
    a = 0.5 * (1 - level)
    q = lambda x: np.quantile(x, [a, 0.5, 1 - a], axis=0)  # noqa: E731
    chaos = {"deep": float(np.mean(deep_se ** 2) / np.var(deep)), "vol": float(np.mean(vol_se ** 2) / np.var(vol))}
    # Sobol' indices of the surrogate's mean outputs
    all_names = [K_KEY] + names
    sob_in = {K_KEY: kd, **{n: dists[n] for n in names}}

    def mean_out(x, which):
        m, s = predict(x[:, 0], np.clip(x[:, 1:], lo, hi) if names else x[:, 1:])
        return outputs(m, s)[which]

    sob = {w: sobol_indices(lambda x, w=w: mean_out(x, w), sob_in, sobol_n, seed=seed) for w in (0, 1)}
    # held-back direct runs
    hb = []
    for h in range(held_back):
        uh = rng.uniform(0.05, 0.95, size=1 + len(names))
        kh = float(kd.ppf(uh[0]))
        thh = np.array([float(dists[n].ppf(uh[1 + i])) for i, n in enumerate(names)])
        st = with_values(study, [K_KEY] + names, np.concatenate([[kh], thh]), registry)
        (_, ds), = design_runs(st, [], np.zeros((1, 0)), N, registry)
        f = fw.from_store(ds, obs, kh)
        m_d, s_d = f.at(np.full((1, M + 1), N))
        d_dir = outputs(m_d, s_d)
        d_sur = outputs(*predict(np.array([kh]), thh[None, :] if names else np.zeros((1, 0))))
        hb.append([kh, *thh, float(d_dir[0][0]), float(d_sur[0][0]), float(d_dir[2][0]),
                   float(d_dir[1][0]), float(d_sur[1][0]), float(d_dir[3][0])])
    hb = np.array(hb).reshape(held_back, 1 + len(names) + 6)
    cols = len(all_names)
    return xr.Dataset(
        {
            "deepest_wear_band": _var(("quantile",), q(deep), "m", "deepest bushing wear: predictive quantiles"),
            "wear_volume_band": _var(("quantile",), q(vol), "m^3", "bushing worn volume: predictive quantiles"),
            "profile_band": _var(("quantile", "theta"), q(prof), "m", "bushing wear profile: pointwise predictive quantiles"),
            "deepest_wear_samples": _var(("sample",), deep, "m", "Monte Carlo draws of the deepest wear"),
            "wear_volume_samples": _var(("sample",), vol, "m^3", "Monte Carlo draws of the worn volume"),
            "chaotic_share_deepest": _var((), chaos["deep"], "1", "share of the deepest wear's variance from the chaotic scatter"),
            "chaotic_share_volume": _var((), chaos["vol"], "1", "share of the worn volume's variance from the chaotic scatter"),
            "sobol_first_deepest": _var(("input",), sob[0]["S1"], "1", "first-order Sobol' index, deepest wear"),
            "sobol_total_deepest": _var(("input",), sob[0]["ST"], "1", "total Sobol' index, deepest wear"),
            "sobol_total_deepest_conf": _var(("input",), sob[0]["ST_conf"], "1", "95 % bootstrap half-width"),
            "sobol_first_volume": _var(("input",), sob[1]["S1"], "1", "first-order Sobol' index, worn volume"),
            "sobol_total_volume": _var(("input",), sob[1]["ST"], "1", "total Sobol' index, worn volume"),
            "held_back_inputs": _var(("held_back", "input"), hb[:, :cols], "SI", "inputs of the held-back direct runs"),
            "held_back_deepest": _var(("held_back", "source"), hb[:, [cols, cols + 1]], "m", "deepest wear: direct run, surrogate"),
            "held_back_deepest_stderr": _var(("held_back",), hb[:, cols + 2], "m", "the direct run's standard error"),
            "held_back_volume": _var(("held_back", "source"), hb[:, [cols + 3, cols + 4]], "m^3", "worn volume: direct run, surrogate"),
            "held_back_volume_stderr": _var(("held_back",), hb[:, cols + 5], "m^3", "the direct run's standard error"),
            "design_points": _var(("design", "extra"), pts, "SI", "design runs' parameter values"),
        },
        coords={"quantile": [a, 0.5, 1 - a], "theta": _var(("theta",), theta_nodes, "rad", "bushing node angle"),
                "input": all_names, "extra": names, "source": ["direct", "surrogate"]},
        attrs={"Conventions": "CF-1.8", "title": f"uncertainty propagation: {study.title}", "study_kind": "uq",
               "workbench_version": __version__,
               "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
               "cycles": N, "samples": samples, "design_runs": len(runs), "level": level,
               "distributions": "; ".join(f"{k}: {v.describe()}" for k, v in sob_in.items()),
               "study_text": study.text, "study_file": str(study.file or "")})
