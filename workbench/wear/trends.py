"""Deep-wear trends: how the contact and the wear rate change as a clearance joint wears.

As a bushing wears, its clearance grows; a wider clearance lets the journal travel farther in free
flight and strike the bushing faster, so the impacts become more frequent and their peak forces
larger (Flores & Ambrósio (2004): the impact force peaks grow with the radial clearance), and
Archard's worn volume ``k_d int F ds`` (Wang & Liu (2015) eq. 14) grows with them.  This module
gives a wear run the numbers that show (or fail to show) that chain:

* :func:`cycle_statistics` -- per update and worn joint, the per-cycle peak contact force and the
  impacts per cycle over the averaging cycles, each as a mean and its standard error (the AR(1)
  factor of :mod:`.statistics`, from each series' own lag-1 autocorrelation).  The wear loop
  writes them to every store row (``peak_contact_force``, ``impacts_per_cycle`` and their
  ``*_stderr``), next to ``volume_rate`` and ``volume_rate_stderr``.
* :func:`trends` -- the three quantities per update against the machine cycles, the deepest wear
  and the effective clearance, and the weighted least-squares slope of each on the deepest wear
  with its standard error (Bevington & Robinson (2003) eq. 6.12 and 6.21: weights ``1/se^2``);
  when the updates scatter more than their standard errors say (reduced chi-square above 1: the
  chaotic contact switches between regimes from update to update), the slope's variance is scaled
  by the reduced chi-square (Birge (1932)), never shrunk below the weights' own.
  ``chain_shown`` is 1 for a joint whose three slopes are all positive beyond two standard errors.
  ``min_depth`` fits only the updates at or beyond that deepest wear: a worn joint can first run in
  (the pocket conforms to the journal, the impacts fall) and only then open up; the fit over all
  updates mixes the two phases, the fit beyond the run-in reads the second alone.  Chosen after
  looking at the data, such a window is a description, not a test: report it with the whole fit.
* ``python -m workbench.wear.trends RESULT [--plot wear_trends.png]`` prints the table and the
  slopes and draws the three trends with their error bars.
* A spatial store (worn maps, :mod:`.spatial_loop`) has the same per-cycle statistics in its rows
  (the contact starts from the spatial impact table) but no nominal radii: its clearance-relative
  columns are NaN.  Its largest contact force and peak pressure per update (no standard error
  stored) are fitted by ordinary least squares beside the chain (:data:`EXTRA`).

SI units: forces in N, depths and clearances in m, volumes in m^3, rates per machine cycle.
"""
from __future__ import annotations

import argparse
import math
import sys
from functools import partial
from pathlib import Path

import numpy as np
import xarray as xr

from ..results.variables import var
from . import statistics as st

#: the quantities of the chain: (store variable, its unit, long name)
QUANTITIES = (
    ("peak_contact_force", "N", "peak normal contact force per averaging cycle, mean over the cycles"),
    ("impacts_per_cycle", "1", "impacts (contact starts) per averaging cycle, mean over the cycles"),
    ("volume_rate", "m^3/cycle", "worn volume per cycle, bushing and journal together, mean over the cycles"),
)
#: quantities a spatial store's rows hold without a standard error (one value per update):
#: fitted by ordinary least squares, reported beside the chain, not part of it
EXTRA = (
    ("max_contact_force", "N", "largest contact force over the averaging cycles"),
    ("peak_pressure", "Pa", "largest contact pressure over the averaging cycles"),
)
#: a slope shows the chain when it exceeds this many standard errors
SIGMAS = 2.0


#: the variables of this module hold measured (float) data
_var = partial(var, dtype=float)


def cycle_counts(times, t0: float, period: float, n: int) -> np.ndarray:
    """Events at ``times`` [s] counted in each of the ``n`` cycles of ``period`` [s] from ``t0`` [s]
    (NaN for every cycle when ``times`` is None: not recorded)."""
    if times is None:
        return np.full(n, np.nan)
    it = np.asarray(times, float)
    it = it[it >= t0]
    k = np.floor((it - t0) / period).astype(int)
    return np.bincount(k[k < n], minlength=n)[:n].astype(float)


def _cycle_impacts(sim, joint: int, t0: float, period: float, n: int) -> np.ndarray:
    """Contact starts of clearance joint ``joint`` in each of the ``n`` cycles of ``period`` [s]
    from ``t0`` [s]."""
    if getattr(sim, "impact_time", None) is None:   # a simulation without an impact table
        return np.full(n, np.nan)
    return cycle_counts(sim.impact_time[sim.impact_joint == joint], t0, period, n)


def statistics_vars(peaks, impacts) -> dict:
    """Store variables (dimension ``joint``): for each joint's per-cycle peak contact forces [N]
    and contact starts [1] (lists over the joints of ``(n,)`` arrays), the mean over the cycles
    and its standard error (AR(1)-corrected, :mod:`.statistics`)."""
    out = {k: np.zeros(len(peaks)) for k in ("f", "f_se", "i", "i_se")}
    for a, (p, i) in enumerate(zip(peaks, impacts)):
        for key, x in (("f", np.asarray(p, float)), ("i", np.asarray(i, float))):
            m, se = st.mean_and_stderr(x, st.correlation_factor(x))
            out[key][a], out[key + "_se"][a] = float(m), float(se)
    return {
        "peak_contact_force": _var(("joint",), out["f"], "N", QUANTITIES[0][2]),
        "peak_contact_force_stderr": _var(("joint",), out["f_se"], "N", "standard error of peak_contact_force"),
        "impacts_per_cycle": _var(("joint",), out["i"], "1", QUANTITIES[1][2]),
        "impacts_per_cycle_stderr": _var(("joint",), out["i_se"], "1", "standard error of impacts_per_cycle"),
    }


def cycle_statistics(run, meas) -> dict:
    """Store variables (dimension ``joint``) of one update: the mean over the averaging cycles of
    each cycle's peak contact force [N] and of its impacts [1], with their standard errors."""
    js = sorted(run.worn)
    n, T = meas.n_cycles, run.cfg.cycle_period
    t0 = float(meas.sim.time[meas.start])
    return statistics_vars([meas.rates[j].cycles.peak_force for j in js],
                           [_cycle_impacts(meas.sim, j, t0, T, n) for j in js])


def weighted_slope(x, y, se) -> tuple[float, float, float, float]:
    """Weighted least-squares line ``y = a + b x`` with weights ``1/se^2`` (Bevington & Robinson
    (2003) eq. 6.12, 6.21; :func:`numpy.polyfit`); returns ``(b, se_b, a, chi2_reduced)``.  The
    slope's variance is scaled by ``max(1, chi2_reduced)`` (Birge (1932)).  Rows with a
    non-finite value or a standard error <= 0 are left out; fewer than 3 rows, or one abscissa,
    give NaN.  Units: ``b`` and ``se_b`` in units of y per unit of x, ``a`` in units of y."""
    x, y, se = (np.asarray(v, float) for v in (x, y, se))
    ok = np.isfinite(x) & np.isfinite(y) & np.isfinite(se) & (se > 0.0)
    x, y, se = x[ok], y[ok], se[ok]
    if len(x) < 3 or np.ptp(x) == 0.0:
        return math.nan, math.nan, math.nan, math.nan
    (b, a), cov = np.polyfit(x, y, 1, w=1.0 / se, cov="unscaled")
    chi2 = float(np.sum(((y - a - b * x) / se) ** 2) / (len(x) - 2))
    return float(b), float(math.sqrt(cov[0, 0] * max(1.0, chi2))), float(a), chi2


def _per_update(ds: xr.Dataset, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(cycle, joint) mean and standard error of ``name``; NaN when the store lacks it (a store
    written before the per-cycle statistics were recorded)."""
    shape = (ds.sizes["cycle"], ds.sizes["joint"])
    if name == "volume_rate":
        return (ds["volume_rate"].sum("surface").values,
                np.sqrt((ds["volume_rate_stderr"] ** 2).sum("surface")).values)
    if name not in ds:
        return np.full(shape, np.nan), np.full(shape, np.nan)
    return ds[name].values.astype(float), ds[name + "_stderr"].values.astype(float)


def trends(ds: xr.Dataset, min_depth: float = 0.0) -> xr.Dataset:
    """The deep-wear trends of a wear result ``ds`` (module docstring): variables on
    ``(cycle, joint)`` per update and the fitted slopes on ``joint``; units and long_name on each.
    ``min_depth`` [m]: the slopes fit only the updates whose deepest wear is at least this."""
    nj = ds.sizes["joint"]
    if "nominal_radius" in ds:
        c = (ds["nominal_radius"].sel(surface="bushing") - ds["nominal_radius"].sel(surface="journal")).values
    else:                     # a spatial store: its joints' clearances are in the study, not the rows
        c = np.full(nj, np.nan)
    deep = ds["max_wear_depth"].max("surface").values                      # (cycle, joint)
    eff = c[None, :] + ds["max_wear_depth"].sum("surface").values
    dims = ("cycle", "joint")
    v = {
        "deepest_wear": _var(dims, deep, "m", "deepest wear of bushing or journal at the update"),
        "wear_fraction": _var(dims, deep / c[None, :], "1", "deepest wear / unworn radial clearance"),
        "effective_clearance": _var(dims, eff, "m",
                                    "unworn radial clearance plus the deepest wear of bushing and journal "
                                    "(the largest radial gap when the two deepest points face each other)"),
        "max_penetration_ratio": _var(dims, ds["max_penetration_ratio"].values if "max_penetration_ratio" in ds
                                      else np.full(deep.shape, np.nan), "1",
                                      "largest penetration over the averaging cycles / unworn radial clearance"),
    }
    shown = np.ones(len(c))
    for name, unit, long_name in QUANTITIES:
        y, se = _per_update(ds, name)
        v[name] = _var(dims, y, unit, long_name)
        v[name + "_stderr"] = _var(dims, se, unit, f"standard error of {name}")
        fits = np.array([weighted_slope(*(a[deep[:, j] >= min_depth] for a in (deep[:, j], y[:, j], se[:, j])))
                         for j in range(len(c))])
        su = f"{unit}/m" if unit != "1" else "1/m"
        v[name + "_slope"] = _var(("joint",), fits[:, 0], su,
                                  f"weighted least-squares slope of {name} on the deepest wear")
        v[name + "_slope_stderr"] = _var(("joint",), fits[:, 1], su, f"standard error of {name}_slope "
                                         "(scaled by the reduced chi-square when above 1)")
        v[name + "_chi2_reduced"] = _var(("joint",), fits[:, 3], "1",
                                         f"reduced chi-square of the {name} fit (1: scatter as the standard errors say)")
        shown = shown * (fits[:, 0] > SIGMAS * fits[:, 1])
    for name, unit, long_name in EXTRA:
        if name not in ds:
            continue
        y = ds[name].values.astype(float)
        v[name] = _var(dims, y, unit, long_name)
        # no standard error is stored: unit weights, the slope's error from the residuals (the
        # reduced chi-square scaling of weighted_slope is then the ordinary least-squares one)
        fits = np.array([weighted_slope(*(a[deep[:, j] >= min_depth] for a in (deep[:, j], y[:, j], np.ones(len(y))))
                         ) for j in range(nj)])
        su = f"{unit}/m"
        v[name + "_slope"] = _var(("joint",), fits[:, 0], su, f"least-squares slope of {name} on the deepest wear")
        v[name + "_slope_stderr"] = _var(("joint",), fits[:, 1], su,
                                         f"standard error of {name}_slope (from the residuals)")
    v["chain_shown"] = _var(("joint",), shown, "1",
                            f"1 when the slopes of peak force, impacts and volume rate on the deepest wear are all "
                            f"positive beyond {SIGMAS:g} standard errors")
    out = xr.Dataset({k: xr.DataArray(x) for k, x in v.items()},
                     coords={"cycle": ("cycle", ds["cycle"].values, {"units": "1", "long_name": "machine cycles done"}),
                             "joint": ("joint", ds["joint"].values, {"units": "1", "long_name": "worn clearance joint"})})
    out.attrs = {"title": f"deep-wear trends of: {ds.attrs.get('title', '?')}",
                 "fit": "weighted least squares on the deepest wear, weights 1/stderr^2 (Bevington & Robinson "
                        "(2003) eq. 6.12, 6.21), slope variance scaled by max(1, reduced chi-square) (Birge (1932))",
                 "fit_min_depth": float(min_depth), "fit_min_depth_units": "m"}
    return out


def table(tr: xr.Dataset, joint: int = 0) -> str:
    """A text table of the trends of joint index ``joint`` (forces in kN, depths in um)."""
    t = tr.isel(joint=joint)
    lines = [f"{'cycles':>10} {'deepest um':>10} {'h/c':>6} {'pen/c':>6} {'peak force kN':>16} "
             f"{'impacts/cycle':>14} {'volume rate 1e-14 m^3':>22}"]
    for k in range(t.sizes["cycle"]):
        r = t.isel(cycle=k)
        f = lambda n, s: f"{float(r[n]) * s:.3g} +- {float(r[n + '_stderr']) * s:.2g}"   # noqa: E731
        lines.append(f"{float(r.cycle):>10.6g} {float(r.deepest_wear) * 1e6:>10.2f} {float(r.wear_fraction):>6.3f} "
                     f"{float(r.max_penetration_ratio):>6.3f} {f('peak_contact_force', 1e-3):>16} "
                     f"{f('impacts_per_cycle', 1):>14} {f('volume_rate', 1e14):>22}")
    m = float(tr.attrs.get("fit_min_depth", 0.0))
    if m > 0.0:
        lines.append(f"slopes fitted on the {int(np.sum(t.deepest_wear.values >= m))} updates with deepest wear >= {m * 1e6:g} um")
    for name, unit, _ in QUANTITIES:
        b, sb = float(t[name + "_slope"]), float(t[name + "_slope_stderr"])
        lines.append(f"slope of {name} on the deepest wear: {b:.4g} +- {sb:.2g} {unit}/m "
                     f"({b / sb if sb > 0 else math.nan:.2f} SE; reduced chi2 {float(t[name + '_chi2_reduced']):.3g})")
    for name, unit, _ in EXTRA:
        if name + "_slope" in t:
            b, sb = float(t[name + "_slope"]), float(t[name + "_slope_stderr"])
            lines.append(f"slope of {name} on the deepest wear: {b:.4g} +- {sb:.2g} {unit}/m "
                         f"({b / sb if sb > 0 else math.nan:.2f} SE; least squares, no stored errors)")
    lines.append(f"chain shown (all slopes > {SIGMAS:g} SE): {bool(float(t.chain_shown))}")
    return "\n".join(lines)


def plot(tr: xr.Dataset, path, joint: int = 0) -> Path:
    """``wear_trends.png``: the three quantities against the deepest wear [um], error bars of one
    standard error, and the fitted lines."""
    from ..results.plot import PNG, new_figure
    t = tr.isel(joint=joint)
    x = t.deepest_wear.values * 1e6
    fig = new_figure(figsize=(6.5, 8.0))
    axes = fig.subplots(3, 1, sharex=True)
    # the volume rate in mm³ per 10^k cycles, reading 0.1-1000 (no exponent in the label)
    from ..results.figures import per_cycles
    rate = t["volume_rate"].values
    n, per = per_cycles(float(np.nanmax(np.abs(rate))) * 1e9 if np.isfinite(rate).any() else 0.0)
    panels = ((1e-3, "peak force [kN]"), (1.0, "impacts per cycle"), (1e9 * n, f"volume rate [mm³ per {per}]"))
    for ax, (name, unit, _), (s, lab) in zip(axes, QUANTITIES, panels):
        y, se = t[name].values, t[name + "_stderr"].values
        ax.errorbar(x, y * s, yerr=se * s, fmt="o", ms=3, capsize=2)
        m = t.deepest_wear.values >= float(tr.attrs.get("fit_min_depth", 0.0))
        b, sb, a, _ = weighted_slope(t.deepest_wear.values[m], y[m], se[m])
        if math.isfinite(b):
            xx = np.array([np.nanmin(x[m]), np.nanmax(x[m])])
            ax.plot(xx, (a + b * xx * 1e-6) * s, "-", lw=1,
                    label=f"slope {b * s * 1e-6:.3g} ± {sb * s * 1e-6:.2g} per µm")   # in the axis' unit
            ax.legend(fontsize=8)
        ax.set_ylabel(lab)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("deepest wear [µm]")
    fig.suptitle(f"deep-wear trends, joint {t.joint.values} (mean ± standard error over the averaging cycles)",
                 fontsize=9)
    fig.tight_layout()
    from ..results.figures import save
    return save(fig, path, dpi=120, pil_kwargs=PNG)


def plot_if_recorded(ds: xr.Dataset, outdir) -> list:
    """``wear_trends.png`` in ``outdir`` for a wear result with the per-cycle statistics and at
    least 3 updates (the wear plots call it); returns the paths written."""
    if "peak_contact_force" not in ds or ds.sizes.get("cycle", 0) < 3:
        return []
    return [plot(trends(ds), Path(outdir) / "wear_trends.png")]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m workbench.wear.trends",
                                description="Deep-wear trends of a wear result (peak force, impacts, volume rate).")
    p.add_argument("result", help="wear result store (.zarr)")
    p.add_argument("--plot", default=None, help="write the trends figure here (e.g. wear_trends.png)")
    p.add_argument("--min-depth", type=float, default=0.0, metavar="METRES",
                   help="fit the slopes only on the updates with at least this deepest wear [m], e.g. 100e-6")
    a = p.parse_args(argv)
    from .store import open_store
    tr = trends(open_store(a.result), min_depth=a.min_depth)
    for j in range(tr.sizes["joint"]):
        print(f"joint {tr.joint.values[j]}")
        print(table(tr, j))
    if a.plot:
        plot(tr, a.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
