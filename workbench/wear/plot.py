"""Plots of a wear result (``workbench plot RESULT.zarr``).

* ``profiles_<joint>.png`` — polar wear-depth profiles of bushing and journal over the cycles
  (radial axis: wear depth, magnified; one curve per stored update, coloured by cycles), the
  last one with its +-2 standard-error band;
* ``wear_volume.png`` — worn volume of each surface vs machine cycles with its +-2 standard-error
  band;
* ``degradation.png`` — peak pressure, largest contact force and the output deviation from the
  ideal mechanism (Wang & Liu (2015) §4 step 10) vs machine cycles;
* ``guide_<joint>.png``, ``guide_volume.png`` — translational joints (:mod:`.guide_plot`);
* ``wear_trends.png`` — peak force, impacts per cycle and volume rate vs the deepest wear with
  their standard errors and fitted slopes (:mod:`.trends`; results with 3 updates or more).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..results.plot import PNG


def _figure(*args, figsize=None, **kwargs):
    """A figure and its axes on an Agg canvas of their own (no pyplot state, no backend switch)."""
    from ..results.plot import new_figure
    fig = new_figure(figsize=figsize)
    return fig, fig.subplots(*args, **kwargs)


def plot_wear(ds, outdir: str | Path, max_curves: int = 8) -> list[Path]:
    """Write the wear plots of ``ds`` into ``outdir``; return the paths."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    cycles = np.asarray(ds["cycle"].values, float)
    theta = np.asarray(ds["theta"].values, float)
    th = np.append(theta, theta[0] + 2 * np.pi)
    pick = np.unique(np.linspace(0, len(cycles) - 1, min(max_curves, len(cycles))).round().astype(int))
    for j in ds["joint"].values:
        fig, axes = _figure(1, 2, subplot_kw={"projection": "polar"}, figsize=(10, 5))
        from matplotlib import colormaps
        cmap = colormaps["viridis"]
        for ax, surf in zip(axes, ("bushing", "journal")):
            h = np.asarray(ds["wear_depth"].sel(joint=j, surface=surf).values, float) * 1e6
            for n, k in enumerate(pick):
                ax.plot(th, np.append(h[k], h[k][0]), color=cmap(n / max(len(pick) - 1, 1)),
                        label=f"{cycles[k]:,.0f} cycles")
            if "wear_depth_stderr" in ds and len(pick):
                k = pick[-1]
                se = np.asarray(ds["wear_depth_stderr"].sel(joint=j, surface=surf).values, float)[k] * 1e6
                lo, hi = np.maximum(h[k] - 2 * se, 0.0), h[k] + 2 * se
                ax.fill_between(th, np.append(lo, lo[0]), np.append(hi, hi[0]), color="grey", alpha=0.35,
                                label="last +-2 SE")
            ax.set_rmin(0.0)
            if not np.any(h > 0):
                ax.set_rmax(1.0)
                ax.text(0, 0, "unworn", ha="center", va="center")
            ax.set_title(f"{surf} wear depth [um], body frame")
        axes[1].legend(loc="lower left", bbox_to_anchor=(1.05, 0.0), fontsize="small")
        fig.suptitle(f"joint {j}: worn profiles")
        fig.tight_layout()
        p = outdir / f"profiles_{j}.png"
        fig.savefig(p, dpi=120, pil_kwargs=PNG); paths.append(p)

    fig, ax = _figure(figsize=(7, 4.5))
    for j in ds["joint"].values:
        for surf in ("bushing", "journal"):
            v = np.asarray(ds["wear_volume"].sel(joint=j, surface=surf).values, float)
            if np.any(v > 0):
                line, = ax.plot(cycles, v * 1e9, marker=".", label=f"{j} {surf}")
                if "wear_volume_stderr" in ds:
                    se = np.asarray(ds["wear_volume_stderr"].sel(joint=j, surface=surf).values, float)
                    ax.fill_between(cycles, (v - 2 * se) * 1e9, (v + 2 * se) * 1e9, color=line.get_color(),
                                    alpha=0.25, label=f"{j} {surf} +-2 SE")
    ax.set_xlabel("machine cycles"); ax.set_ylabel("worn volume [mm^3]"); ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:   # nothing worn yet: no curves to name
        ax.legend()
    fig.tight_layout()
    p = outdir / "wear_volume.png"
    fig.savefig(p, dpi=120, pil_kwargs=PNG); paths.append(p)

    fig, axes = _figure(3, 1, sharex=True, figsize=(7, 8))
    for j in ds["joint"].values:
        axes[0].plot(cycles, ds["peak_pressure"].sel(joint=j).values / 1e6, marker=".", label=str(j))
        axes[1].plot(cycles, ds["max_contact_force"].sel(joint=j).values, marker=".", label=str(j))
    unit = ds["output_deviation_rms"].attrs.get("units", "")
    axes[2].plot(cycles, ds["output_deviation_rms"].values, marker=".", label="RMS")
    axes[2].plot(cycles, ds["output_deviation_max"].values, marker=".", label="max")
    axes[0].set_ylabel("peak pressure [MPa]"); axes[1].set_ylabel("max contact force [N]")
    axes[2].set_ylabel(f"output deviation [{unit}]"); axes[2].set_xlabel("machine cycles")
    for a in axes:
        a.grid(alpha=0.3); a.legend(fontsize="small")
    fig.suptitle("degradation with wear")
    fig.tight_layout()
    p = outdir / "degradation.png"
    fig.savefig(p, dpi=120, pil_kwargs=PNG); paths.append(p)
    from .guide_plot import plot_guides
    paths += plot_guides(ds, outdir, max_curves)
    from .trends import plot_if_recorded
    paths += plot_if_recorded(ds, outdir)
    return paths
