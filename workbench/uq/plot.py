"""Plots of an uncertainty-propagation result: the profile band, the output distributions and
the Sobol' indices (PNG and PDF)."""
from __future__ import annotations

from pathlib import Path

import numpy as np


def plots(ds, outdir) -> list[Path]:
    """Write ``uq_bands`` and ``uq_sobol`` (.png, .pdf) into ``outdir``; return the files."""
    from ..results.plot import new_figure
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    files = []
    level = float(ds.attrs.get("level", 0.95))
    fig = new_figure(figsize=(14, 4))
    ax = fig.subplots(1, 3)
    th = np.degrees(ds["theta"].values)
    band = 1e6 * ds["profile_band"].values
    ax[0].fill_between(th, band[0], band[2], alpha=0.3, label=f"{level:.0%} band")
    ax[0].plot(th, band[1], label="median")
    ax[0].set_xlabel("angle [deg] (bushing frame)")
    ax[0].set_ylabel("wear depth [um]")
    ax[0].set_title(f"bushing profile after {float(ds.attrs.get('cycles', np.nan)):.6g} cycles")
    ax[0].legend(fontsize=8)
    for a, name, scale, unit in ((ax[1], "deepest_wear_samples", 1e6, "um"), (ax[2], "wear_volume_samples", 1e9, "mm^3")):
        a.hist(scale * ds[name].values, bins=60, density=True, alpha=0.7)
        q = scale * np.quantile(ds[name].values, [0.5 * (1 - level), 0.5 * (1 + level)])
        for x in q:
            a.axvline(x, color="k", ls="--", lw=0.8)
        a.set_xlabel(f"{ds[name].attrs.get('long_name', name)} [{unit}]")
    fig.tight_layout()
    for ext in (".png", ".pdf"):
        files.append(outdir / f"uq_bands{ext}")
        fig.savefig(files[-1])
    fig = new_figure(figsize=(7, 4))
    ax = fig.subplots()
    names = [str(n) for n in ds["input"].values]
    x = np.arange(len(names))
    for i, (var, lab) in enumerate((("sobol_first_deepest", "S1 deepest"), ("sobol_total_deepest", "ST deepest"),
                                    ("sobol_first_volume", "S1 volume"), ("sobol_total_volume", "ST volume"))):
        ax.bar(x + (i - 1.5) * 0.2, ds[var].values, 0.2, label=lab)
    ax.set_xticks(x, [n.split(".")[-1] for n in names])
    ax.set_ylabel("Sobol' index")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8)
    ax.set_title("which input drives the wear")
    fig.tight_layout()
    for ext in (".png", ".pdf"):
        files.append(outdir / f"uq_sobol{ext}")
        fig.savefig(files[-1])
    return files


def study_plots(ds, outdir) -> list[Path]:
    """The plots of a UQ run (:func:`workbench.uq.analyze.analyze`) in ``outdir``: ``uq_bands``
    (worn volume and deepest wear against the cycles: the median, the parameter band and the
    predictive band) and ``uq_sobol`` (first-order and total Sobol' indices of the final values
    with their 95 % confidence half-widths as error bars), each as .png and .pdf."""
    from ..results.plot import new_figure
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    files = []
    level = float(ds.attrs.get("level", 0.9))
    a = 0.5 * (1 - level)
    c = ds["cycle"].values
    fig = new_figure(figsize=(10, 4))
    axes = fig.subplots(1, 2)
    for ax, key, scale, unit in ((axes[0], "wear_volume", 1e9, "mm$^3$"), (axes[1], "deepest_wear", 1e6, r"$\mu$m")):
        pb, pp = scale * ds[f"{key}_band"].values, scale * ds[f"{key}_parameter_band"].values
        ax.fill_between(c, pb[0], pb[2], alpha=0.25, color="C0",
                        label=f"{100 * a:.3g}-{100 * (1 - a):.3g} %: parameters + scatter")
        ax.fill_between(c, pp[0], pp[2], alpha=0.35, color="C1", label="parameters alone")
        ax.plot(c, pb[1], color="C0", label="median")
        ax.set_xlabel("machine cycles")
        ax.set_ylabel(f"{ds[key].attrs['long_name'].replace(' of each run', '')} [{unit}]")
        ax.legend(fontsize=8, loc="upper left")
    fig.suptitle(str(ds.attrs.get("title", "")), fontsize=9)
    fig.tight_layout()
    for ext in (".png", ".pdf"):
        files.append(outdir / f"uq_bands{ext}")
        fig.savefig(files[-1])
    fig = new_figure(figsize=(7, 4))
    ax = fig.subplots()
    names = [str(n) for n in ds["input"].values]
    x = np.arange(len(names))
    bars = (("sobol_first_volume", "S1 volume"), ("sobol_total_volume", "ST volume"),
            ("sobol_first_deepest", "S1 deepest"), ("sobol_total_deepest", "ST deepest"))
    for i, (var, lab) in enumerate(bars):
        ax.bar(x + (i - 1.5) * 0.2, ds[var].values, 0.2, yerr=ds[f"{var}_conf"].values, capsize=3, label=lab)
    ax.axhline(0.0, color="k", lw=0.6)
    ax.set_xticks(x, names)
    ax.set_ylabel("Sobol' index (95 % bootstrap bars)")
    ax.legend(fontsize=8)
    ax.set_title(f"which input drives the wear after {c[-1]:.6g} cycles", fontsize=9)
    fig.tight_layout()
    for ext in (".png", ".pdf"):
        files.append(outdir / f"uq_sobol{ext}")
        fig.savefig(files[-1])
    return files
