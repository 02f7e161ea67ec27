"""Plots of the translational joints of a wear result (called by :func:`workbench.wear.plot.plot_wear`).

* ``guide_<joint>.png`` — wear depth of the guide's upper and lower faces along the guide (one curve
  per stored update, coloured by cycles; the last one with its ±2 standard-error band), and of the
  slider's top and bottom faces along the slider;
* ``guide_volume.png`` — worn volume of guide and slider vs machine cycles with ±2 standard errors.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..results.figures import cycles_axis, save


def _figure(*args, figsize=None, **kwargs):
    """A figure and its axes on an Agg canvas of their own (no pyplot state, no backend switch)."""
    from ..results.plot import new_figure
    fig = new_figure(figsize=figsize)
    return fig, fig.subplots(*args, **kwargs)


def _curves(ax, x, h, se, pick, cycles, cmap):
    for n, k in enumerate(pick):
        ax.plot(x, h[k], color=cmap(n / max(len(pick) - 1, 1)), label=f"{cycles[k]:,.0f} cycles")
    if se is not None and len(pick):
        k = pick[-1]
        ax.fill_between(x, np.maximum(h[k] - 2 * se[k], 0.0), h[k] + 2 * se[k], color="grey", alpha=0.35,
                        label="last ±2 SE")
    ax.grid(alpha=0.3)


def plot_guides(ds, outdir: str | Path, max_curves: int = 8) -> list[Path]:
    """Write the guide plots of ``ds`` (nothing when it has no translational joint); return the paths."""
    if "guide_wear_depth" not in ds:
        return []
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    cycles = np.asarray(ds["cycle"].values, float)
    pick = np.unique(np.linspace(0, len(cycles) - 1, min(max_curves, len(cycles))).round().astype(int))
    for j in ds["guide_joint"].values:
        fig, axes = _figure(2, 2, figsize=(11, 7))
        from matplotlib import colormaps
        cmap = colormaps["viridis"]
        s = np.asarray(ds["guide_s"].sel(guide_joint=j).values, float) * 1e3
        u = np.asarray(ds["slider_u"].sel(guide_joint=j).values, float) * 1e3
        for col, surf in enumerate(ds["guide_surface"].values):
            h = np.asarray(ds["guide_wear_depth"].sel(guide_joint=j, guide_surface=surf).values, float) * 1e6
            se = np.asarray(ds["guide_wear_depth_stderr"].sel(guide_joint=j, guide_surface=surf).values, float) * 1e6
            _curves(axes[0, col], s, h, se, pick, cycles, cmap)
            axes[0, col].set_title(f"guide, {surf} face"); axes[0, col].set_xlabel("s along the guide [mm]")
            axes[0, col].set_ylabel("wear depth [µm]")
        for col, face in enumerate(ds["slider_face"].values):
            h = np.asarray(ds["slider_wear_depth"].sel(guide_joint=j, slider_face=face).values, float) * 1e6
            se = np.asarray(ds["slider_wear_depth_stderr"].sel(guide_joint=j, slider_face=face).values, float) * 1e6
            _curves(axes[1, col], u, h, se, pick, cycles, cmap)
            axes[1, col].set_title(f"slider, {face} face"); axes[1, col].set_xlabel("u along the slider [mm]")
            axes[1, col].set_ylabel("wear depth [µm]")
        axes[0, 1].legend(fontsize="small")
        fig.suptitle(f"translational joint {j}: worn profiles over the cycles")
        fig.tight_layout()
        paths.append(save(fig, outdir / f"guide_{j}.png", dpi=120))

    fig, ax = _figure(figsize=(7, 4.5))
    for j in ds["guide_joint"].values:
        for part in ds["guide_part"].values:
            v = np.asarray(ds["guide_wear_volume"].sel(guide_joint=j, guide_part=part).values, float)
            se = np.asarray(ds["guide_wear_volume_stderr"].sel(guide_joint=j, guide_part=part).values, float)
            if np.any(v > 0):
                line, = ax.plot(cycles, v * 1e9, marker=".", label=f"{j} {part}")
                ax.fill_between(cycles, (v - 2 * se) * 1e9, (v + 2 * se) * 1e9, color=line.get_color(),
                                alpha=0.25, label=f"{j} {part} ±2 SE")
    cycles_axis(ax.xaxis); ax.set_ylabel("worn volume [mm³]"); ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    paths.append(save(fig, outdir / "guide_volume.png", dpi=120))
    return paths
