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
