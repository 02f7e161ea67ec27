"""Plots of an uncertainty-propagation result: the profile band, the output distributions and
the Sobol' indices (PNG and PDF)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..results.figures import cycles_axis


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
    """The plots of a UQ run (:func:`workbench.uq.analyze.analyze`) in ``outdir``, each as .png and
    .pdf: ``uq_bands`` (worn volume and deepest wear against the cycles: the median, the parameter
    band, the predictive band and, with a surrogate, the polynomial chaos's band), ``uq_sobol``
    (first-order and total Sobol' indices of the final values, SALib's with their 95 % confidence
    half-widths as error bars, the polynomial chaos's beside them) and ``uq_sobol_cycles`` (the
    total indices along the cycles)."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    files = []
    for name, draw in (("uq_bands", _bands), ("uq_sobol", _sobol), ("uq_sobol_cycles", _sobol_cycles)):
        fig = draw(ds)
        if fig is None:
            continue
        fig.tight_layout()
        for ext in (".png", ".pdf"):
            files.append(outdir / f"{name}{ext}")
            fig.savefig(files[-1])
    return files


def _level(ds) -> tuple[float, float]:
    a = 0.5 * (1 - float(ds.attrs.get("level", 0.9)))
    return a, 1 - a


OUTS = (("wear_volume", "volume", 1e9, "mm$^3$"), ("deepest_wear", "deepest", 1e6, r"$\mu$m"))


def _bands(ds):
    from ..results.plot import new_figure
    lo, hi = _level(ds)
    c = ds["cycle"].values
    fig = new_figure(figsize=(10, 4))
    axes = fig.subplots(1, 2)
    for ax, (key, _, scale, unit) in zip(axes, OUTS):
        pb, pp = scale * ds[f"{key}_band"].values, scale * ds[f"{key}_parameter_band"].values
        ax.fill_between(c, pb[0], pb[2], alpha=0.25, color="C0",
                        label=f"{100 * lo:.3g}-{100 * hi:.3g} %: parameters + scatter")
        ax.fill_between(c, pp[0], pp[2], alpha=0.35, color="C1", label="parameters alone")
        ax.plot(c, pb[1], color="C0", label="median")
        if f"{key}_surrogate_band" in ds:
            sb = scale * ds[f"{key}_surrogate_band"].values
            ax.plot(c, sb[0], "k--", lw=0.9, label=f"polynomial chaos (order {ds.attrs.get('surrogate_order', '?')})")
            ax.plot(c, sb[2], "k--", lw=0.9)
        cycles_axis(ax.xaxis)
        ax.set_ylabel(f"{ds[key].attrs['long_name'].replace(' of each run', '')} [{unit}]")
        ax.legend(fontsize=8, loc="upper left")
    check = str(ds.attrs.get("surrogate_check", "")).split(":")[0]     # the details are in the attribute
    fig.suptitle(str(ds.attrs.get("title", "")) + (f"\nheld-back check of the polynomial chaos: {check}"
                                                   if check else ""), fontsize=9)
    return fig


def _sobol(ds):
    from ..results.plot import new_figure
    fig = new_figure(figsize=(8, 4))
    ax = fig.subplots()
    names = [str(n) for n in ds["input"].values]
    x = np.arange(len(names))
    bars = [(f"sobol_{o}_{out}", f"{'S1' if o == 'first' else 'ST'} {out}") for out in ("volume", "deepest")
            for o in ("first", "total")]
    pce = "sobol_total_volume_pce" in ds
    width = 0.8 / (len(bars) * (2 if pce else 1))
    i = 0
    for var, lab in bars:
        ax.bar(x + (i + 0.5) * width - 0.4, ds[var].values, width, yerr=ds[f"{var}_conf"].values, capsize=3,
               label=f"{lab} (SALib)", color=f"C{i // (2 if pce else 1)}")
        i += 1
        if pce:
            ax.bar(x + (i + 0.5) * width - 0.4, ds[f"{var}_pce"].values, width, hatch="//", fill=False,
                   edgecolor=f"C{(i - 1) // 2}", label=f"{lab} (polynomial chaos)")
            i += 1
    ax.axhline(0.0, color="k", lw=0.6)
    ax.set_xticks(x, names)
    ax.set_ylabel("Sobol' index (SALib: 95 % bootstrap bars)")
    ax.legend(fontsize=7, ncol=2)
    ax.set_title(f"which input drives the wear after {ds['cycle'].values[-1]:.6g} cycles", fontsize=9)
    return fig


def _sobol_cycles(ds):
    from ..results.plot import new_figure
    if "sobol_total_volume_cycles" not in ds:
        return None
    c = ds["cycle"].values
    fig = new_figure(figsize=(10, 4))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, (key, out, _, _) in zip(axes, OUTS):
        for i, name in enumerate(ds["input"].values):
            st, conf = ds[f"sobol_total_{out}_cycles"].values[i], ds[f"sobol_total_{out}_cycles_conf"].values[i]
            ax.plot(c, st, color=f"C{i}", marker="o", ms=3, label=f"ST {name} (SALib, 95 % band)")
            ax.fill_between(c, st - conf, st + conf, color=f"C{i}", alpha=0.2)
            if f"sobol_total_{out}_pce_cycles" in ds:
                ax.plot(c, ds[f"sobol_total_{out}_pce_cycles"].values[i], color=f"C{i}", ls="--",
                        label=f"ST {name} (polynomial chaos)")
        ax.axhline(0.0, color="k", lw=0.6)
        cycles_axis(ax.xaxis)
        ax.set_title(ds[key].attrs["long_name"].replace(" of each run", ""), fontsize=9)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("total Sobol' index")
    return fig
