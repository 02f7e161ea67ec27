"""Plots of a calibration result: the posterior of k against its prior, and the posterior
predictive of the worn profile (and volumes) against the data (PNG and PDF)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..results.figures import cycles_axis


def plots(ds, outdir) -> list[Path]:
    """Write ``calibration_posterior`` and ``calibration_profile`` (.png, .pdf) into ``outdir``."""
    from ..results.plot import new_figure
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    files = []
    k = ds["k"].values
    fig = new_figure(figsize=(6, 4))
    ax = fig.subplots()
    ax.plot(k, ds["posterior_density"].values, label="posterior")
    ax.plot(k, ds["prior_density"].values, "--", label=f"prior: {ds.attrs.get('prior', '')}")
    ax.axvspan(float(ds["k_lower"]), float(ds["k_upper"]), alpha=0.2,
               label=f"{float(ds.attrs.get('credible_level', 0.95)):.0%} credible interval")
    if k[-1] / k[0] > 3.0:   # a narrow posterior's zoomed grid reads better on a linear axis
        ax.set_xscale("log")
    ax.set_xlabel("wear coefficient k [1/Pa]")
    ax.set_ylabel("density of ln k")
    ax.set_title(f"k = {float(ds['k_median']):.4g} [{float(ds['k_lower']):.4g}, {float(ds['k_upper']):.4g}] 1/Pa")
    ax.legend(fontsize=8)
    fig.tight_layout()
    for ext in (".png", ".pdf"):
        files.append(outdir / f"calibration_posterior{ext}")
        fig.savefig(files[-1])

    q = ds["observation_quantity"].values.astype(str)
    depth, vol = q == "wear_depth", q == "wear_volume"
    fig = new_figure(figsize=(11 if vol.any() else 6, 4))
    axes = fig.subplots(1, 2 if vol.any() else 1, squeeze=False)
    ax = axes[0, 0]
    cyc = ds["observation_cycles"].values
    for i, N in enumerate(np.unique(cyc[depth])):
        sel = np.flatnonzero(depth & (cyc == N))
        th = np.degrees(ds["observation_theta"].values[sel])
        o = np.argsort(th)
        sel, th = sel[o], th[o]
        c = f"C{i % 10}"
        ax.fill_between(th, 1e6 * ds["predictive_lower"].values[sel], 1e6 * ds["predictive_upper"].values[sel],
                        color=c, alpha=0.25)
        ax.plot(th, 1e6 * ds["predictive_median"].values[sel], color=c, label=f"{N:.6g} cycles: predictive")
        ax.errorbar(th, 1e6 * ds["observed"].values[sel], yerr=1.96e6 * ds["observed_stderr"].values[sel],
                    fmt="o", ms=3, color=c, label=f"{N:.6g} cycles: measured (95 %)")
    ax.set_xlabel("angle [deg] (body frame)")
    ax.set_ylabel("wear depth [um]")
    ax.set_title("worn profile: posterior predictive against the data")
    ax.legend(fontsize=7)
    if vol.any():
        ax = axes[0, 1]
        sel = np.flatnonzero(vol)
        o = np.argsort(cyc[sel])
        sel = sel[o]
        ax.fill_between(cyc[sel], 1e9 * ds["predictive_lower"].values[sel], 1e9 * ds["predictive_upper"].values[sel], alpha=0.25)
        ax.plot(cyc[sel], 1e9 * ds["predictive_median"].values[sel], label="predictive")
        ax.errorbar(cyc[sel], 1e9 * ds["observed"].values[sel], yerr=1.96e9 * ds["observed_stderr"].values[sel],
                    fmt="o", ms=3, label="measured (95 %)")
        cycles_axis(ax.xaxis)
        ax.set_ylabel("worn volume [mm^3]")
        ax.legend(fontsize=8)
    fig.tight_layout()
    for ext in (".png", ".pdf"):
        files.append(outdir / f"calibration_profile{ext}")
        fig.savefig(files[-1])
    return files
