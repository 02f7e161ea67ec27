"""Plots of a spatial wear result (worn maps ``wear_depth(cycle, joint, surface, theta, z)``).

* ``map_<joint>_<surface>.png`` -- the last stored map unwrapped: wear depth [um] as an image over
  the angle ``theta`` [deg] and the axial position ``z`` [mm] (a ball's cap: the polar angle
  ``phi`` [deg]), with depth contours (a tilted journal's tapered groove shows as contours
  slanting across the bearing length);
* ``cuts_<joint>.png`` -- two cuts of the last bushing map: the polar profile at each rim and at
  mid-length (a cap: on its deepest ``phi`` row; radial axis: depth), and the depth along ``z``
  (``phi``) through the deepest angle for every stored update (the groove's taper growing);
* ``wear_volume.png`` -- worn volume of each surface vs machine cycles with its ±2 standard-error
  band.

Saved through :func:`workbench.results.figures.save`, as the planar plots (:mod:`.plot`).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..results.figures import cycles_axis, save
from ..results.plot import new_figure
from .plot import _figure


def is_map(ds) -> bool:
    """Whether ``ds`` holds worn maps (a ``z`` dimension) or caps (``phi``)."""
    return "wear_depth" in ds and bool({"z", "phi"} & set(ds["wear_depth"].dims))


def plot_maps(ds, outdir: str | Path, max_curves: int = 8) -> list[Path]:
    """Write the spatial wear plots of ``ds`` into ``outdir``; return the paths."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    theta = np.degrees(np.asarray(ds["theta"].values, float))
    second = [d for d in ds["wear_depth"].dims if d not in ("cycle", "joint", "surface", "theta")][0]
    ball = second == "phi"      # a ball joint's cap over (theta, phi); a journal's map over (theta, z)
    z = np.degrees(np.asarray(ds[second].values, float)) if ball else np.asarray(ds[second].values, float) * 1e3
    zlab, zname = ("φ [deg]", "φ") if ball else ("z [mm]", "z")
    zunit = "deg" if ball else "mm"
    cycles = np.asarray(ds["cycle"].values, float)
    title = ds.attrs.get("title", "")
    for j in ds["joint"].values:
        for surf in ("bushing", "journal"):
            h = np.asarray(ds["wear_depth"].sel(joint=j, surface=surf).isel(cycle=-1).values, float) * 1e6
            if surf == "journal" and not np.any(h > 0):
                continue
            fig, ax = _figure(figsize=(8, 4))
            im = ax.pcolormesh(theta, z, h.T, shading="nearest", cmap="viridis")
            if np.ptp(h) > 0:
                levels = np.linspace(h.min(), h.max(), 8)[1:-1]    # inside the range: no contour on the unworn floor
                cs = ax.contour(theta, z, h.T, levels=levels, colors="white", linewidths=0.7)
                ax.clabel(cs, fontsize=7, fmt="%.3g")
            fig.colorbar(im, ax=ax, label="wear depth [µm]")
            ax.set_xlabel("θ [deg]")
            ax.set_ylabel(zlab)
            ax.set_title(f"{title}\njoint {j}, {surf}, after {cycles[-1]:,.0f} cycles", fontsize=9)
            paths.append(save(fig, outdir / f"map_{j}_{surf}.png"))
        h = np.asarray(ds["wear_depth"].sel(joint=j, surface="bushing").values, float) * 1e6   # (cycle, theta, z)
        fig = new_figure(figsize=(11, 4.6))
        axp = fig.add_subplot(1, 2, 1, projection="polar")
        ax = fig.add_subplot(1, 2, 2)
        th = np.radians(np.append(theta, theta[0] + 360.0))
        rows = ((int(np.argmax(h[-1].max(axis=0))),) if ball else (0, len(z) // 2, len(z) - 1))
        for m in rows:
            axp.plot(th, np.append(h[-1][:, m], h[-1][0, m]), label=f"{zname} = {z[m]:.3g} {zunit}")
        axp.set_title("socket depth [µm] on the deepest φ row" if ball
                      else "bushing depth [µm] at the rims and mid-length", fontsize=9)
        axp.legend(fontsize=7, loc="lower left", bbox_to_anchor=(-0.1, -0.15))
        k = int(np.argmax(h[-1].max(axis=1)))
        pick = np.unique(np.linspace(0, len(cycles) - 1, min(max_curves, len(cycles))).round().astype(int))
        for i in pick:
            ax.plot(z, h[i, k], marker=".", label=f"{cycles[i]:,.0f} cycles")
        ax.set_xlabel(zlab)
        ax.set_ylabel("socket wear depth [µm]" if ball else "bushing wear depth [µm]")
        ax.set_title(f"along the bearing at θ = {theta[k]:.1f} deg (deepest)", fontsize=9)
        ax.legend(fontsize=7)
        paths.append(save(fig, outdir / f"cuts_{j}.png"))
    fig, ax = _figure(figsize=(6, 4))
    for j in ds["joint"].values:
        for surf in ("bushing", "journal"):
            v = np.asarray(ds["wear_volume"].sel(joint=j, surface=surf).values, float)
            se = np.asarray(ds["wear_volume_stderr"].sel(joint=j, surface=surf).values, float)
            if not np.any(v > 0):
                continue
            ax.plot(cycles, v * 1e9, label=f"{j} {surf}")
            ax.fill_between(cycles, (v - 2 * se) * 1e9, (v + 2 * se) * 1e9, alpha=0.25)
    cycles_axis(ax.xaxis)
    ax.set_ylabel("worn volume [mm³]")
    ax.set_title("worn volume, ±2 standard errors", fontsize=9)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    paths.append(save(fig, outdir / "wear_volume.png"))
    return paths
