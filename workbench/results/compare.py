"""Overlay the same quantities from several results: ``workbench compare A B ... -o DIR``.

One figure per quantity, one curve per result, the legend from the studies' titles (made unique
with the file names when two titles agree):

* dynamics results: ``compare_contact_force_<joint>`` (normal contact force of each clearance
  joint the results share) and ``compare_driver_load`` (the first driver's load), against the
  crank angle (or time);
* wear results: ``compare_profile_<joint>_<surface>`` (the last worn profile of each worn surface,
  ±2 standard-error band) and ``compare_wear_volume`` (worn volume vs machine cycles, ±2 SE band);
* pressure results: ``compare_pressure_<case>`` (the pressure over the bore angle of every model
  of every result, one panel per load the results share, one line style per result) and
  ``compare_peak_pressure_<case>`` (peak pressure against the load), for each case the results
  share by name.  A result with several models labels its curves ``title: model``; a closed
  form (Persson, Hertz) is drawn once.

Files go through :func:`workbench.results.figures.save` (``--format``, ``--width``, ``--style``);
a file already in ``outdir`` is never replaced unless ``overwrite`` and it is one of ours
(:func:`workbench.results.outputs.check_plot_target`, when the output-safety rules provide it;
else only new files are written).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..errors import WorkbenchError
from .figures import cycles_axis, error_band, save, unit_text


def labels(datasets, names) -> list[str]:
    """A legend entry per result: its title, with the file name where titles repeat.  Where all
    titles differ and share a lead ending at ``: `` or ``, `` (two studies of one mechanism:
    "Flores slider-crank: wear ..., approximate-area pressure" and "..., winkler pressure"),
    the lead is left out and the entries keep what tells them apart."""
    titles = [str(ds.attrs.get("title") or Path(n).stem) for ds, n in zip(datasets, names)]
    if len(set(titles)) == len(titles) > 1:
        lead = os.path.commonprefix(titles)
        cut = max(lead.rfind(": "), lead.rfind(", "))
        if cut > 0 and all(len(t) > cut + 2 for t in titles):
            titles = [t[cut + 2:] for t in titles]
    return [f"{t} ({Path(n).name})" if titles.count(t) > 1 else t for t, n in zip(titles, names)]


def _kind(ds) -> str:
    kind = ds.attrs.get("study_kind")
    if kind in ("dynamics", "wear", "pressure"):
        return str(kind)
    return "wear" if ("wear_depth" in ds or "guide_wear_depth" in ds) else "dynamics"


def _target(outdir: Path, stem: str) -> Path:
    from .figures import current
    path = outdir / f"{stem}.{current().format}"
    if path.exists():
        raise WorkbenchError(f"{path} exists: compare writes only new files (choose another -o folder)")
    return path


def _figure(width=7.0, height=3.6):
    from .plot import new_figure
    fig = new_figure(figsize=(width, height))
    return fig, fig.add_subplot(1, 1, 1)


def compare(datasets, names, outdir: str | Path) -> list[Path]:
    """Write the overlay figures of ``datasets`` (read from the files ``names``) into ``outdir``."""
    if len(datasets) < 2:
        raise WorkbenchError("compare needs at least two results")
    kinds = {_kind(ds) for ds in datasets}
    if len(kinds) != 1:
        raise WorkbenchError(f"compare overlays results of one study kind; got {', '.join(sorted(kinds))}")
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    legend = labels(datasets, names)
    kind = kinds.pop()
    if kind == "dynamics":
        return _dynamics(datasets, legend, outdir)
    if kind == "wear":
        return _wear(datasets, legend, outdir)
    return _pressure(datasets, legend, outdir)


def _abscissa(ds):
    if "crank_angle" in ds:
        return np.degrees(ds["crank_angle"].values), "crank angle [°]"
    return ds["time"].values * 1e3, "time [ms]"


def _shared(datasets, dim: str) -> list:
    common = None
    for ds in datasets:
        have = [str(v) for v in ds[dim].values] if dim in ds.coords else []
        common = have if common is None else [v for v in common if v in have]
    return common or []


def _dynamics(datasets, legend, outdir) -> list[Path]:
    from .plot import envelope
    paths = []
    quantities = [(f"contact_force_{j}", "contact_force", {"joint": j}, f"Normal contact force, joint {j} [N]")
                  for j in _shared(datasets, "joint")]
    drivers = _shared(datasets, "driver")
    if drivers:
        unit = unit_text(str(datasets[0]["driver_load"].attrs.get("units", "")))
        quantities.append(("driver_load", "driver_load", {"driver": drivers[0]},
                           f"Load of driver {drivers[0]}" + (f" [{unit}]" if unit else "")))
    for stem, name, sel, ylabel in quantities:
        fig, ax = _figure()
        for ds, lab in zip(datasets, legend):
            if name not in ds:
                continue
            x, xlabel = _abscissa(ds)
            ax.plot(*envelope(x, np.asarray(ds[name].sel(sel).values, float), 1400), lw=0.9, label=lab)
        ax.set_xlabel(xlabel); ax.set_ylabel(ylabel); ax.grid(alpha=0.3)
        ax.legend(fontsize="small", loc="best")
        fig.tight_layout()
        paths.append(save(fig, _target(outdir, f"compare_{stem}"), dpi=150))
    return paths


def _total_volume(ds):
    """Worn volume of every surface of a wear result per cycle [m^3] and its standard error [m^3]
    (``None`` when not stored): bushings and journals (``wear_volume``) and guides and sliders
    (``guide_wear_volume``) alike, so that a guide-only result compares too."""
    n = ds.sizes["cycle"]
    v, var, have_se = np.zeros(n), np.zeros(n), True
    for name in ("wear_volume", "guide_wear_volume"):
        if name not in ds:
            continue
        x = np.asarray(ds[name].values, float).reshape(n, -1)
        v += x.sum(axis=1)
        se = ds.get(name + "_stderr")
        if se is not None and se.dims[0] == "cycle":
            var += (np.asarray(se.values, float).reshape(n, -1) ** 2).sum(axis=1)
        else:
            have_se = False
    return v, (np.sqrt(var) if have_se else None)


def _wear(datasets, legend, outdir) -> list[Path]:
    paths = []
    for j in _shared(datasets, "joint"):
        for surf in ("bushing", "journal"):
            worn = [ds for ds in datasets
                    if np.any(np.asarray(ds["wear_depth"].sel(joint=j, surface=surf).values, float) > 0)]
            if not worn:
                continue    # no empty panels: a surface no result wears is not drawn
            fig, ax = _figure()
            for ds, lab in zip(datasets, legend):
                theta = np.degrees(np.asarray(ds["theta"].values, float))
                h = np.asarray(ds["wear_depth"].sel(joint=j, surface=surf).values, float)[-1] * 1e6
                n = f"{float(ds['cycle'].values[-1]):,.0f}".replace(",", "\u2009")   # the number's commas only
                line, = ax.plot(theta, h, lw=1.1, label=f"{lab}, {n} cycles")
                if "wear_depth_stderr" in ds:
                    se = np.asarray(ds["wear_depth_stderr"].sel(joint=j, surface=surf).values, float)[-1] * 1e6
                    error_band(ax, theta, h, se, color=line.get_color())
            ax.set_xlabel("body-fixed angle θ [°]"); ax.set_ylabel(f"{surf} wear depth [µm]")
            ax.set_xlim(0, 360); ax.grid(alpha=0.3)
            ax.set_title(f"Joint {j}, {surf}: last worn profile (bands: ±2 standard errors)", fontsize="medium")
            ax.legend(fontsize="small", loc="best")
            fig.tight_layout()
            paths.append(save(fig, _target(outdir, f"compare_profile_{j}_{surf}"), dpi=150))
    fig, ax = _figure()
    for ds, lab in zip(datasets, legend):
        cycles = np.asarray(ds["cycle"].values, float)
        v, se = _total_volume(ds)
        line, = ax.plot(cycles, v * 1e9, marker=".", label=lab)
        if se is not None:
            error_band(ax, cycles, v * 1e9, se * 1e9, color=line.get_color())
    cycles_axis(ax.xaxis); ax.set_ylabel("worn volume, all surfaces [mm³]"); ax.grid(alpha=0.3)
    ax.set_title("Worn volume (bands: ±2 standard errors)", fontsize="medium")
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    paths.append(save(fig, _target(outdir, "compare_wear_volume"), dpi=150))
    return paths


_STYLES = ("-", "--", ":", "-.")


def _curves(datasets, legend):
    """``(dataset, model, label, line style)`` of every model of every result; the closed forms
    (Persson, Hertz) that several results carry are drawn once."""
    out, drawn = [], set()
    for k, (ds, lab) in enumerate(zip(datasets, legend)):
        models = [str(m) for m in ds["model"].values]
        plugins = [str(p) for p in ds["plugin"].values] if "plugin" in ds.coords else [""] * len(models)
        own = sum(p != "closed_form" for p in plugins)
        for m, plugin in zip(models, plugins):
            if plugin == "closed_form":
                if m in drawn:
                    continue
                drawn.add(m)
                out.append((ds, m, f"{m} (closed form)", _STYLES[k % len(_STYLES)]))
                continue
            out.append((ds, m, lab if own == 1 else f"{lab}: {m}", _STYLES[k % len(_STYLES)]))
    return out


def _shared_loads(datasets, case) -> list[float]:
    """The load values [N] of ``case`` that every result has."""
    common = None
    for ds in datasets:
        have = [float(v) for v in ds["load_value"].sel(case=case).values]
        common = have if common is None else [v for v in common if any(np.isclose(v, h, rtol=1e-9) for h in have)]
    return common or []


def _load_index(ds, case, F: float) -> int:
    return int(np.argmin(np.abs(np.asarray(ds["load_value"].sel(case=case).values, float) - F)))


def _pressure(datasets, legend, outdir) -> list[Path]:
    """Pressure curves of the cases the results share, and their peak pressures over the load."""
    from .figures import number_text
    from .plot import new_figure
    cases = _shared(datasets, "case")
    if not cases:
        raise WorkbenchError("compare: the pressure results share no case (by name); nothing to overlay")
    curves = _curves(datasets, legend)
    paths = []
    for case in cases:
        loads = _shared_loads(datasets, case)
        if not loads:
            continue
        fig = new_figure(figsize=(2.6 * len(loads) + 2.4, 3.2))
        axes = fig.subplots(1, len(loads), squeeze=False)[0]
        for ax, F in zip(axes, loads):
            reach = 0.0
            for i, (ds, m, lab, ls) in enumerate(curves):
                theta = np.degrees(np.asarray(ds["theta"].values, float))
                p = np.asarray(ds["pressure"].sel(case=case, model=m).isel(load=_load_index(ds, case, F)).values,
                               float)
                if not np.isfinite(p).any():
                    continue
                ax.plot(theta, p / 1e6, ls, color=f"C{i % 10}", lw=1.1, label=lab)
                loaded = np.abs(theta[np.nan_to_num(p) > 0])
                reach = max(reach, float(loaded.max()) if loaded.size else 0.0)
            lim = min(180.0, 1.15 * reach + 1.0) if reach else 180.0
            ax.set_xlim(-lim, lim)
            ax.grid(alpha=0.3)
            ax.set_title(f"F = {number_text(F)} N", fontsize=9)
        fig.supxlabel("angle θ from the load line [°]", fontsize="medium")
        axes[0].set_ylabel("contact pressure [MPa]")
        axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))   # off the peaks
        fig.suptitle(f"{case}: contact pressure", fontsize=10)
        fig.tight_layout()
        paths.append(save(fig, _target(outdir, f"compare_pressure_{case}"), dpi=150))
        if len(loads) < 2:
            continue
        fig, ax = _figure()
        for i, (ds, m, lab, ls) in enumerate(curves):
            peak = [float(ds["peak_pressure"].sel(case=case, model=m).isel(load=_load_index(ds, case, F)))
                    for F in loads]
            if np.isfinite(peak).any():
                ax.plot(loads, np.asarray(peak) / 1e6, ls, marker="o", ms=3, color=f"C{i % 10}", label=lab)
        ax.set_xscale("log")
        ax.set_xlabel("load [N]"); ax.set_ylabel("peak contact pressure [MPa]"); ax.grid(alpha=0.3)
        ax.set_title(f"{case}: peak pressure", fontsize="medium")
        ax.legend(fontsize="small", loc="best")
        fig.tight_layout()
        paths.append(save(fig, _target(outdir, f"compare_peak_pressure_{case}"), dpi=150))
    return paths
