"""PNG plots of a sweep dataset (:mod:`workbench.sweeps.run`): the summary quantities side by side.

:func:`plot_sweep` writes ``summary.png``: one panel per summary quantity (and per entry of its
own dimensions, e.g. per clearance joint), the panels side by side.  In each panel the first
sweep dimension is the x axis — bars for model names and other labels, lines with markers for
numbers — and every combination of the other sweep dimensions is one bar group / line.  A
quantity whose standard error is a summary too (``X_se``, ``X_stderr``, or ``X_mean`` with
``X_se``) gets ±2 SE error bars instead of a panel of its own.  Failed
cases have no bar; a red cross on the axis marks them.  A quantity with a long own dimension (a
profile, e.g. wear depth over theta) is drawn as one line per case over that dimension.
"""
from __future__ import annotations

import itertools
import json
import math
import textwrap
from pathlib import Path

import numpy as np

from .figures import readable
from .plot import PNG


#: an own dimension longer than this (a profile over theta ...) is an x axis, not a set of panels
PROFILE_MIN = 8


def _panels(ds, names: list[str], sweep_dims: tuple[str, ...], pairs: dict | None = None):
    """``(title, long_name, units, DataArray, its standard error or None)`` for every quantity and
    entry of its own dimensions; the DataArray has the sweep dims, plus the last own dim when
    that is a profile."""
    pairs = pairs or {}
    for name in names:
        da = ds[name]
        se_all = ds[pairs[name]] if name in pairs and ds[pairs[name]].dims == da.dims else None
        own = [d for d in da.dims if d not in sweep_dims]
        units = da.attrs.get("units", "")
        long = da.attrs.get("long_name", name)
        if own and da.sizes[own[-1]] >= PROFILE_MIN:
            own = own[:-1]
        if not own:
            yield name, long, units, da, se_all
            continue
        for combo in itertools.product(*(range(da.sizes[d]) for d in own)):
            sel = dict(zip(own, combo))
            sub = da.isel(sel)
            where = ", ".join(f"{d} {sub[d].values.item() if d in sub.coords else i}"
                              for d, i in sel.items())
            yield f"{name} ({where})", long, units, sub, None if se_all is None else se_all.isel(sel)


def _scaled(values: np.ndarray, units: str) -> tuple[np.ndarray, str]:
    """Values in an engineering multiple of ``units`` (kN, mm, um ...) for readable axes."""
    finite = np.abs(values[np.isfinite(values)])
    if not finite.size or units in ("", "1") or finite.max() == 0.0:
        return values, units
    exp3 = int(math.floor(math.log10(finite.max()) / 3.0)) * 3
    prefix = {-9: "n", -6: "u", -3: "m", 3: "k", 6: "M", 9: "G"}.get(exp3)
    if prefix is None or " " in units or "/" in units or "^" in units:
        return values, units
    return values / 10.0 ** exp3, prefix + units


def _draw_profile(ax, da, sweep_dims, units: str) -> None:
    """One line per case over the profile dimension (e.g. wear depth over theta)."""
    x_dim = next(d for d in da.dims if d not in sweep_dims)
    x = da[x_dim].values if x_dim in da.coords else np.arange(da.sizes[x_dim])
    flat = da.transpose(*sweep_dims, x_dim).values.reshape(-1, da.sizes[x_dim])
    y, unit = _scaled(np.asarray(flat, dtype=float), units)
    for k, combo in enumerate(itertools.product(*(range(da.sizes[d]) for d in sweep_dims))):
        label = ", ".join(str(da[d].values[i]) for d, i in zip(sweep_dims, combo))
        ax.plot(x, y[k], lw=0.9, label=label)
    ax.set_xlabel(x_dim + (f" [{da[x_dim].attrs['units']}]" if x_dim in da.coords
                           and da[x_dim].attrs.get("units") not in (None, "", "1") else ""))
    ax.set_ylabel(f"[{unit}]" if unit not in ("", "1") else "[1]")
    ax.grid(alpha=0.3)
    if flat.shape[0] <= 12:
        ax.legend(fontsize=7)


def stderr_pairs(names: list[str]) -> dict[str, str]:
    """``{quantity: its standard-error summary}`` among ``names``."""
    out = {}
    for n in names:
        for cand in (f"{n}_se", f"{n}_stderr", n[:-len("_mean")] + "_se" if n.endswith("_mean") else None):
            if cand and cand in names and cand != n:
                out[n] = cand
                break
    return out


def _draw(ax, da, sweep_dims, units: str, status, se=None) -> None:
    if any(d not in sweep_dims for d in da.dims):
        _draw_profile(ax, da, sweep_dims, units)
        return
    x_dim = sweep_dims[0]
    labels = [str(v) for v in da[x_dim].values]
    numeric = np.issubdtype(da[x_dim].dtype, np.number)
    rest = [d for d in sweep_dims[1:]]
    groups = list(itertools.product(*(range(da.sizes[d]) for d in rest))) or [()]
    data = da.transpose(x_dim, *rest).values.reshape(len(labels), -1)
    failed = np.asarray(status.transpose(x_dim, *rest).values).reshape(len(labels), -1) == "failed"
    raw = np.asarray(data, dtype=float)
    data, unit = _scaled(raw, units)
    scale = np.nanmax(np.abs(data)) / np.nanmax(np.abs(raw)) if np.isfinite(raw).any() and np.nanmax(np.abs(raw)) else 1.0
    err = None
    if se is not None and all(d in sweep_dims for d in se.dims):
        err = 2.0 * scale * np.asarray(se.transpose(x_dim, *rest).values, float).reshape(len(labels), -1)
    xs = np.arange(len(labels), dtype=float)
    width = 0.8 / len(groups)
    for k, g in enumerate(groups):
        name = ", ".join(f"{d} = {da[d].values[i]}" for d, i in zip(rest, g)) or None
        y = data[:, k]
        if numeric:
            xv = np.asarray(da[x_dim].values, dtype=float)
            if err is not None:
                ax.errorbar(xv, y, yerr=err[:, k], fmt="o-", lw=1.0, ms=4, capsize=2, label=name)
            else:
                ax.plot(xv, y, "o-", lw=1.0, ms=4, label=name)
            ax.plot(xv[failed[:, k]], np.zeros(int(failed[:, k].sum())), "x", color="tab:red", ms=8)
        else:
            pos = xs - 0.4 + width * (k + 0.5)
            ax.bar(pos, np.nan_to_num(y, nan=0.0), width=width * 0.95, label=name,
                   yerr=None if err is None else np.nan_to_num(err[:, k]), capsize=2)
            ax.plot(pos[failed[:, k]], np.zeros(int(failed[:, k].sum())), "x", color="tab:red", ms=8,
                    label="failed" if k == 0 and failed.any() else None)
    if not numeric:
        ax.set_xticks(xs, labels, rotation=60, ha="right", fontsize=8)
    ax.set_xlabel(readable(x_dim) + (f" [{da[x_dim].attrs['units']}]" if numeric and da[x_dim].attrs.get("units")
                           not in (None, "", "1") else ""))
    ax.set_ylabel(f"[{unit}]" if unit not in ("", "1") else "[1]")
    ax.grid(alpha=0.3, axis="y")
    if len(groups) > 1 or failed.any():
        ax.legend(fontsize=7)


def _panel_title(name: str, long: str) -> str:
    """A panel's title from the summary's long name (the identifier only where there is none), with
    the joint it belongs to: "Peak normal contact force of the first contact (joint B)"."""
    where = name[name.index(" ("):] if " (" in name else ""
    text = (long[:1].upper() + long[1:]) if long else readable(name.split(" (")[0])
    return "\n".join(textwrap.wrap(text + where, 60))


def plot_sweep(ds, outdir: str | Path) -> list[Path]:
    """Write ``summary.png`` for the sweep dataset ``ds`` into ``outdir``; return the files."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    names = [n for n in json.loads(ds.attrs.get("summary", "[]")) if n in ds]
    pairs = stderr_pairs(names)
    names = [n for n in names if n not in pairs.values()]     # drawn as error bars, not panels
    sweep_dims = tuple(ds["status"].dims)
    panels = list(_panels(ds, names, sweep_dims, pairs))
    if not panels or not sweep_dims:
        return []
    ncols = min(len(panels), 3)
    nrows = math.ceil(len(panels) / ncols)
    fig = Figure(figsize=(4.6 * ncols, 3.8 * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    for i, (title, long, units, da, se) in enumerate(panels):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        _draw(ax, da, sweep_dims, units, ds["status"], se)
        if se is not None:
            long += " (bars: ±2 standard errors)"
        ax.set_title(_panel_title(title, long), fontsize=8)
    n_failed = int((ds["status"].values != "ok").sum())
    fig.suptitle(f"{ds.attrs.get('title', 'sweep')}"
                 + (f"  ({n_failed} of {ds['status'].size} cases failed)" if n_failed else ""), fontsize=10)
    path = outdir / "summary.png"
    from .figures import save
    return [save(fig, path, dpi=120, pil_kwargs=PNG)]
