"""The result of a UQ run: prediction bands against the cycles and Sobol' indices.

From the sweep of the Saltelli design (:mod:`.design`) and each run's wear store:

* **histories**: the bushing's worn volume and deepest wear of every run, with their standard
  errors (the chaotic scatter of the dynamics, the updates' variances added; the deepest wear takes
  the error of its node), interpolated linearly in the cycles onto ``grid_points`` even cycles;
* **bands**: at each cycle the central ``level`` quantiles of all runs, each run drawn
  ``scatter_draws`` times as its value plus its standard error times a standard normal (the
  *predictive* band: parameter uncertainty and chaotic scatter), and of the runs' values alone
  (the *parameter* band);
* **Sobol' indices** of the final worn volume and deepest wear: SALib's first-order and total
  indices (Saltelli et al. (2010) estimators; Jansen's for the total) with their 95 % bootstrap
  confidence half-widths, and the share of each output's variance that is chaotic scatter
  (mean squared standard error over the runs' variance).  The runs' values include their scatter,
  so an input whose indices are inside their half-widths of 0 does not drive the output; the same
  indices at every cycle of the grid (``sobol_*_cycles``);
* with ``surrogate = "pce"``, a polynomial chaos of the runs checked against held-back direct runs
  and its own Sobol' indices (:mod:`.surrogate`).  The held-back runs join neither the bands nor
  SALib's estimators.

Every variable states its ``units`` and ``long_name``.
"""
from __future__ import annotations

import datetime as _dt

import numpy as np
import xarray as xr

from ..errors import WorkbenchError
from ..runtime.version import __version__
from .design import problem
from .spec import UQSpec


def _var(dims, data, units, long_name, **attrs):
    return xr.Variable(dims, np.asarray(data), {"units": units, "long_name": long_name, **attrs})


def history(store_path, joint: str | None, grid: np.ndarray) -> np.ndarray:
    """(4, G) worn volume, its SE, deepest wear, its SE of the bushing of ``joint`` (default the
    first worn joint) in the wear store at ``store_path``, on the cycles ``grid`` (NaN beyond
    the run's last update)."""
    from ..results.store_reader import open_store
    ds = open_store(store_path)
    try:
        j = joint if joint is not None else str(ds["joint"].values[0])
        if j not in [str(v) for v in ds["joint"].values]:
            raise WorkbenchError(f"{store_path}: joint '{j}' is not worn in this run "
                                 f"(worn: {', '.join(map(str, ds['joint'].values))})")
        sel = dict(joint=j, surface="bushing")
        c = ds["cycle"].values.astype(float)
        vol = ds["wear_volume"].sel(**sel).values
        vol_se = ds["wear_volume_stderr"].sel(**sel).values
        h = ds["wear_depth"].sel(**sel).values
        h_se = ds["wear_depth_stderr"].sel(**sel).values
    finally:
        ds.close()
    k = np.argmax(h, axis=1)
    rows = np.arange(len(c))
    out = np.stack([vol, vol_se, h[rows, k], h_se[rows, k]])
    # the last row is the run's end: a horizon that differs from it only by rounding is the end
    at = np.where((grid > c[-1]) & (grid <= c[-1] * (1 + 1e-9)), c[-1], grid)
    return np.array([np.interp(at, c, y, right=np.nan) for y in out])


def sobol(spec: UQSpec, y: np.ndarray) -> dict:
    """SALib's first-order and total indices of ``y`` (one value per design row) with their 95 %
    half-widths; NaN when a run failed (the estimators need every row)."""
    d = len(spec.parameters)
    if not np.all(np.isfinite(y)):
        return {k: np.full(d, np.nan) for k in ("S1", "S1_conf", "ST", "ST_conf")}
    from SALib.analyze import sobol as analyze
    r = analyze.analyze(problem(spec), y, calc_second_order=False, conf_level=0.95, seed=spec.seed)
    return {k: np.asarray(r[k], float) for k in ("S1", "S1_conf", "ST", "ST_conf")}


def sobol_along(spec: UQSpec, y: np.ndarray) -> dict:
    """:func:`sobol` of ``y`` (design rows, cycles) at every cycle: arrays (d, G); NaN where the
    runs do not vary (the start) or a run failed."""
    d, G = len(spec.parameters), y.shape[1]
    out = {k: np.full((d, G), np.nan) for k in ("S1", "S1_conf", "ST", "ST_conf")}
    for g in range(G):
        if np.all(np.isfinite(y[:, g])) and np.ptp(y[:, g]) > 0:
            r = sobol(spec, y[:, g])
            for k in out:
                out[k][:, g] = r[k]
    return out


def analyze(spec: UQSpec, runs: xr.Dataset, x: np.ndarray, u: np.ndarray | None = None,
            n_design: int | None = None) -> xr.Dataset:
    """The UQ dataset of ``spec`` from its sweep dataset ``runs`` (one dimension over the runs'
    values ``x``; its ``case_file`` and ``status``).  The first ``n_design`` rows (default all) are
    the Saltelli design, the rest the held-back runs of the surrogate, which needs the runs'
    unit-cube coordinates ``u`` (:func:`workbench.uq.design.rows`)."""
    dim = runs["status"].dims[0]
    status = runs["status"].values.astype(str)
    files = runs["case_file"].values.astype(str)
    n, G = len(x), spec.grid_points
    n_design = n if n_design is None else int(n_design)
    grid = np.linspace(0.0, spec.cycles, G)
    hist = np.full((n, 4, G), np.nan)
    for i in range(n):
        if status[i] == "ok":
            hist[i] = history(files[i], spec.joint, grid)
    rng = np.random.default_rng(spec.seed)
    a = 0.5 * (1.0 - spec.level)
    qs = [a, 0.5, 1.0 - a]
    ok = np.all(np.isfinite(hist[:, :, -1]), axis=1) & (np.arange(n) < n_design)
    if not ok.any():
        raise WorkbenchError(f"uncertainty propagation '{spec.title}': no run finished "
                             f"({', '.join(sorted(set(status)))}); see the runs' errors")
    bands = {}
    for key, (m, s) in {"wear_volume": (0, 1), "deepest_wear": (2, 3)}.items():
        mu, se = hist[ok, m], hist[ok, s]
        z = rng.standard_normal((spec.scatter_draws,) + mu.shape)
        bands[key] = (np.nanquantile((mu + se * z).reshape(-1, G), qs, axis=0), np.nanquantile(mu, qs, axis=0))
    final = hist[:n_design, :, -1]
    sob = {"volume": sobol(spec, final[:, 0]), "deepest": sobol(spec, final[:, 2])}
    along = {"volume": sobol_along(spec, hist[:n_design, 0]), "deepest": sobol_along(spec, hist[:n_design, 2])}
    okd = ok[:n_design]
    chaos = {"volume": np.mean(final[okd, 1] ** 2) / np.var(final[okd, 0]),
             "deepest": np.mean(final[okd, 3] ** 2) / np.var(final[okd, 2])}
    v = {}
    for i, p in enumerate(spec.parameters):
        v[f"input_{p.name}"] = _var(("run",), x[:, i], p.units or "1", f"{p.path} of each run ({p.describe()})")
    v.update({
        "status": _var(("run",), status.astype(object), "1", "run status (ok, failed, timed_out, ...)"),
        "wear_volume": _var(("run", "cycle"), hist[:, 0], "m^3", "bushing worn volume of each run"),
        "wear_volume_stderr": _var(("run", "cycle"), hist[:, 1], "m^3", "standard error of the worn volume (chaotic scatter)"),
        "deepest_wear": _var(("run", "cycle"), hist[:, 2], "m", "deepest bushing wear of each run"),
        "deepest_wear_stderr": _var(("run", "cycle"), hist[:, 3], "m", "standard error of the deepest wear (its node's)"),
    })
    for key, unit, what in (("wear_volume", "m^3", "bushing worn volume"), ("deepest_wear", "m", "deepest bushing wear")):
        v[f"{key}_band"] = _var(("quantile", "cycle"), bands[key][0], unit,
                                f"{what}: predictive quantiles (parameter uncertainty and chaotic scatter)")
        v[f"{key}_parameter_band"] = _var(("quantile", "cycle"), bands[key][1], unit,
                                          f"{what}: quantiles of the runs' values (parameter uncertainty alone)")
    for out, what in (("volume", "final bushing worn volume"), ("deepest", "final deepest bushing wear")):
        r = sob[out]
        v[f"sobol_first_{out}"] = _var(("input",), r["S1"], "1", f"first-order Sobol' index, {what}")
        v[f"sobol_first_{out}_conf"] = _var(("input",), r["S1_conf"], "1", "95 % bootstrap half-width of the first-order index")
        v[f"sobol_total_{out}"] = _var(("input",), r["ST"], "1", f"total Sobol' index, {what}")
        v[f"sobol_total_{out}_conf"] = _var(("input",), r["ST_conf"], "1", "95 % bootstrap half-width of the total index")
        v[f"chaotic_share_{out}"] = _var((), chaos[out], "1", f"share of the {what}'s variance that is chaotic scatter")
        r, what = along[out], what.replace("final ", "")
        for k, lab in (("S1", "first-order"), ("ST", "total")):
            name = f"sobol_{'first' if k == 'S1' else 'total'}_{out}_cycles"
            v[name] = _var(("input", "cycle"), r[k], "1", f"{lab} Sobol' index along the cycles, {what} (SALib; NaN: no variance)")
            v[name + "_conf"] = _var(("input", "cycle"), r[k + "_conf"], "1", f"95 % bootstrap half-width of the {lab} index along the cycles")
    coords = {}
    attrs = {}
    if spec.surrogate == "pce":
        if u is None:
            raise WorkbenchError("analyze: a surrogate needs the runs' unit-cube coordinates u")
        from .surrogate import SurrogateWarning, surrogate_part
        try:
            sv, attrs, lines, coords = surrogate_part(spec, u, hist, n_design, grid)
        except WorkbenchError as exc:   # too few finished runs to fit it: the direct results still count
            import warnings
            sv, lines = {}, [f"  surrogate: not fitted: {exc}"]
            attrs = {"surrogate": spec.surrogate, "surrogate_check": f"not possible: {exc}"}
            warnings.warn(f"uncertainty propagation '{spec.title}': the surrogate was not fitted: {exc}",
                          SurrogateWarning, stacklevel=2)
        v.update(sv)
        attrs["surrogate_summary"] = "\n".join(lines)
    return xr.Dataset(
        v, coords={"run": _var(("run",), np.arange(n), "1", "run: the design rows (Saltelli order: A, AB_i..., B blocks), then any held-back runs"),
                   "cycle": _var(("cycle",), grid, "1", "machine cycles"),
                   "quantile": _var(("quantile",), qs, "1", "probability of the quantile"),
                   "input": _var(("input",), np.array(spec.names, dtype=object), "1", "uncertain parameter"),
                   **coords},
        attrs={"Conventions": "CF-1.8", "title": f"uncertainty propagation: {spec.title}", "study_kind": "uq",
               "workbench_version": __version__,
               "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
               "level": spec.level, "base_samples": spec.base_samples, "runs": n, "runs_ok": int(np.sum(status == "ok")),
               "cycles": spec.cycles, "scatter_draws": spec.scatter_draws, "seed": spec.seed,
               "distributions": "; ".join(p.describe() for p in spec.parameters),
               "sampling": "SALib Saltelli design (scrambled Sobol' sequence, no second-order terms): N (d + 2) runs",
               "uq_text": spec.text, "uq_file": str(spec.file or ""), "base_study_file": str(spec.base_file),
               "runs_dimension": dim, "design_runs": n_design, **attrs})
