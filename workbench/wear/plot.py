"""Plots of a wear result (``workbench plot RESULT.zarr``).

* ``profiles_<joint>.png`` — polar wear-depth profiles of bushing and journal over the cycles
  (radial axis: wear depth, magnified; one curve per stored update, coloured by cycles), the
  last one with its ±2 standard-error band; a surface that never wears gets no panel (the
  journal when the bushing takes all the wear), its absence said in the title;
* ``wear_volume.png`` — worn volume of each surface vs machine cycles with its ±2 standard-error
  band;
* ``degradation.png`` — peak pressure, largest contact force, the worn-volume rate and the output
  deviation from the ideal mechanism (Wang & Liu (2015) §4 step 10) vs machine cycles, each with
  ±2 standard-error bars wherever the result stores a standard error (``X_stderr``); revolute and
  translational joints alike (a guide-only result has no profile or ``wear_volume.png`` figure);
* ``guide_<joint>.png``, ``guide_volume.png`` — translational joints (:mod:`.guide_plot`);
* ``wear_trends.png`` — peak force, impacts per cycle and volume rate vs the deepest wear with
  their standard errors and fitted slopes (:mod:`.trends`; results with 3 updates or more).

Every figure is saved through :func:`workbench.results.figures.save` (``--format``, ``--width``,
``--style``).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..results.figures import cycles_axis, error_bars, per_cycles, save, stderr_of, unit_text
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
    if "wear_depth" in ds:   # worn revolute joints (a guide-only result has only the guide plots)
        paths += _revolute_plots(ds, outdir, max_curves)
    paths.append(plot_degradation(ds, outdir / "degradation.png"))
    from .guide_plot import plot_guides
    paths += plot_guides(ds, outdir, max_curves)
    from .trends import plot_if_recorded
    paths += plot_if_recorded(ds, outdir)
    return paths


def _revolute_plots(ds, outdir: Path, max_curves: int) -> list[Path]:
    """``profiles_<joint>.png`` and ``wear_volume.png`` of the worn revolute joints."""
    paths = []
    cycles = np.asarray(ds["cycle"].values, float)
    theta = np.asarray(ds["theta"].values, float)
    th = np.append(theta, theta[0] + 2 * np.pi)
    pick = np.unique(np.linspace(0, len(cycles) - 1, min(max_curves, len(cycles))).round().astype(int))
    title = ds.attrs.get("title", "")
    for j in ds["joint"].values:
        worn = [s for s in ("bushing", "journal")
                if np.any(np.asarray(ds["wear_depth"].sel(joint=j, surface=s).values, float) > 0)]
        shown = worn or ["bushing"]
        fig, axes = _figure(1, len(shown), subplot_kw={"projection": "polar"},
                            figsize=(5.2 * len(shown) + (1.6 if len(shown) == 1 else 0), 5))
        axes = np.atleast_1d(axes)
        from matplotlib import colormaps
        cmap = colormaps["viridis"]
        for ax, surf in zip(axes, shown):
            h = np.asarray(ds["wear_depth"].sel(joint=j, surface=surf).values, float) * 1e6
            for n, k in enumerate(pick):
                ax.plot(th, np.append(h[k], h[k][0]), color=cmap(n / max(len(pick) - 1, 1)),
                        label=f"{cycles[k]:,.0f} cycles".replace(",", "\u2009"))
            if "wear_depth_stderr" in ds and len(pick):
                k = pick[-1]
                se = np.asarray(ds["wear_depth_stderr"].sel(joint=j, surface=surf).values, float)[k] * 1e6
                lo, hi = np.maximum(h[k] - 2 * se, 0.0), h[k] + 2 * se
                ax.fill_between(th, np.append(lo, lo[0]), np.append(hi, hi[0]), color="grey", alpha=0.35,
                                label="last ±2 SE")
            ax.set_rmin(0.0)
            if not np.any(h > 0):
                ax.set_rmax(1.0)
                ax.text(0, 0, "unworn", ha="center", va="center")
            ax.set_title(f"{surf} wear depth [µm], body frame")
        axes[-1].legend(loc="lower left", bbox_to_anchor=(1.05, 0.0), fontsize="small")
        unworn = [s for s in ("bushing", "journal") if s not in shown]
        fig.suptitle(f"Joint {j}: worn profiles" + (f" ({unworn[0]} unworn)" if unworn else "")
                     + (f"\n{title}" if title else ""))
        fig.tight_layout()
        paths.append(save(fig, outdir / f"profiles_{j}.png", dpi=120, pil_kwargs=PNG))

    fig, ax = _figure(figsize=(7, 4.5))
    for j in ds["joint"].values:
        for surf in ("bushing", "journal"):
            v = np.asarray(ds["wear_volume"].sel(joint=j, surface=surf).values, float)
            if np.any(v > 0):
                line, = ax.plot(cycles, v * 1e9, marker=".", label=f"{j} {surf}")
                if "wear_volume_stderr" in ds:
                    se = np.asarray(ds["wear_volume_stderr"].sel(joint=j, surface=surf).values, float)
                    ax.fill_between(cycles, (v - 2 * se) * 1e9, (v + 2 * se) * 1e9, color=line.get_color(),
                                    alpha=0.25, label=f"{j} {surf} ±2 SE")
    cycles_axis(ax.xaxis); ax.set_ylabel("worn volume [mm³]"); ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:   # nothing worn yet: no curves to name
        ax.legend()
    fig.tight_layout()
    if title:
        ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    paths.append(save(fig, outdir / "wear_volume.png", dpi=120, pil_kwargs=PNG))
    return paths


def _with_se(ax, ds, name, x, sel: dict, scale: float, label: str):
    """``ds[name]`` (selected, times ``scale``) vs ``x`` with ±2 SE bars when ``name_stderr`` exists."""
    y = np.asarray(ds[name].sel(sel).values, float) * scale
    se = stderr_of(ds, name)
    se = None if se is None else np.asarray(se.sel(sel).values, float) * scale
    return error_bars(ax, x, y, se, marker=".", ms=4, label=label)


def _rate_unit(ds) -> tuple[float, str]:
    """Scale [(mm³ per N cycles) / (m³/cycle)] and label of the worn-volume rate, N from
    :func:`~workbench.results.figures.per_cycles` (no exponent at the axis end)."""
    rates = [np.asarray(ds[n].values, float) for n in ("volume_rate", "guide_volume_rate") if n in ds]
    top = max((float(np.nanmax(np.abs(r))) for r in rates if r.size), default=0.0) * 1e9
    n, per = per_cycles(top)
    return 1e9 * n, "worn-volume rate [mm³/cycle]" if n == 1.0 else f"worn-volume rate [mm³ per {per}]"


def plot_degradation(ds, path) -> Path:
    """``degradation.png`` (see the module docstring); returns the path written."""
    cycles = np.asarray(ds["cycle"].values, float)
    panels = [("peak_pressure", 1e-6, "peak pressure [MPa]"), ("max_contact_force", 1.0, "max contact force [N]")]
    if "volume_rate" in ds or "guide_volume_rate" in ds:
        panels.append(("volume_rate",) + _rate_unit(ds))
    fig, axes = _figure(len(panels) + 1, 1, sharex=True, figsize=(7, 2.4 * (len(panels) + 1) + 0.8))
    # revolute joints (dims joint, surface) and translational ones (guide_joint, guide_part)
    kinds = (("", "joint", "surface"), ("guide_", "guide_joint", "guide_part"))
    for ax, (base, scale, ylabel) in zip(axes, panels):
        for prefix, jdim, sdim in kinds:
            name = prefix + base
            if name not in ds or jdim not in ds.dims:
                continue
            for j in ds[jdim].values:
                if sdim in ds[name].dims:
                    for surf in ds[sdim].values:
                        if np.any(np.asarray(ds[name].sel({jdim: j, sdim: surf}).values, float) > 0):
                            _with_se(ax, ds, name, cycles, {jdim: j, sdim: surf}, scale, f"{j} {surf}")
                else:
                    _with_se(ax, ds, name, cycles, {jdim: j}, scale, str(j))
        ax.set_ylabel(ylabel)
    unit = unit_text(str(ds["output_deviation_rms"].attrs.get("units", "")))
    scale = 1.0
    if unit == "m":       # display units, not an exponent at the axis end
        scale, unit = 1e6, "µm"
    elif unit == "rad":
        scale, unit = 180.0 / np.pi * 3600.0, "arcsec"
    axes[-1].plot(cycles, ds["output_deviation_rms"].values * scale, marker=".", label="RMS")
    axes[-1].plot(cycles, ds["output_deviation_max"].values * scale, marker=".", label="max")
    axes[-1].set_ylabel(f"output deviation [{unit}]"); cycles_axis(axes[-1].xaxis)
    for a in axes:
        a.grid(alpha=0.3)
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize="small")
    title = ds.attrs.get("title", "")
    fig.suptitle("Degradation with wear (bars: ±2 standard errors)" + (f"\n{title}" if title else ""))
    fig.tight_layout()
    return save(fig, path, dpi=120, pil_kwargs=PNG)
