"""PNG plots of a dynamics results dataset, each against the ideal-joint mechanism.

:func:`plot_results` writes

* ``contact_force.png`` — normal contact force of every clearance joint vs crank angle, with the
  reaction of the ideal joint that replaces it (``ideal_contact_force``);
* ``journal_orbit.png`` — journal-centre orbit inside the clearance circle (revolute joints) and
  the slider offset across the guide with its clearance band (translational joints);
* ``slider_acceleration.png`` — slider acceleration along the guide vs crank angle, with the ideal
  mechanism's;
* ``driver_moment.png`` — load of the first driver (the crank moment) vs crank angle, with the
  ideal mechanism's.

The x axis is the crank angle [deg] when the dataset has ``crank_angle``, else time [ms].
A sweep dataset (``study_kind = "sweep"``) goes to :func:`workbench.results.sweep_plot.plot_sweep`.
matplotlib is imported inside the functions; every plot of the workbench draws on a
:func:`new_figure` (Agg canvas, no global pyplot state, no backend switch).

Start-up: a Flores run draws these four figures in about a fifth of its time, so they are drawn
cheaply.  The margins are fixed in inches (:func:`_figure`) instead of matplotlib's constrained
layout, which draws every figure twice to measure its text; and a time series longer than twice
the pixel width of its axes is drawn through its min/max envelope (:func:`envelope`): per pixel
column the smallest and the largest sample, so every peak of the contact force stays in the
picture exactly as it would be drawn from all samples.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

_CLEAR = "tab:red"
_IDEAL = "0.35"


def new_figure(**kwargs):
    """A :class:`matplotlib.figure.Figure` on its own Agg canvas: no pyplot state, no backend
    switch (a notebook's backend stays as it is).  ``kwargs`` go to ``Figure`` (``figsize`` ...)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(**kwargs)
    FigureCanvasAgg(fig)
    return fig


#: resolution of the PNG files [dots per inch]
DPI = 130
#: PNG writer options of every workbench plot: zlib level 1 instead of Pillow's 6 (a quarter of
#: the drawing time of the Flores plots went to compression; the files grow by about 6 %)
PNG = {"compress_level": 1}
#: fixed margins of a figure [in]: room for the y tick labels (up to 7 characters, beyond which
#: matplotlib switches to an offset or scientific notation) and the y label; for the x tick labels
#: and the x label; for the two-line suptitle and the panel title; between stacked panels (a panel
#: title above, tick labels below)
_LEFT, _RIGHT, _BOTTOM, _TOP, _GAP = 1.0, 0.2, 0.55, 0.7, 0.55


def _figure(n_panels: int = 1, *, width: float = 7.0, height: float = 3.2):
    """A figure of ``n_panels`` stacked axes, ``width`` x ``height`` [in] each, with fixed margins
    (no constrained layout: it measures every text by drawing the figure once more)."""
    total = height * n_panels
    fig = new_figure(figsize=(width, total))
    panel = max((total - _TOP - _BOTTOM - _GAP * (n_panels - 1)) / n_panels, 0.1 * height)
    fig.subplots_adjust(left=_LEFT / width, right=1.0 - _RIGHT / width, bottom=_BOTTOM / total,
                        top=1.0 - _TOP / total, hspace=_GAP / panel)
    axes = [fig.add_subplot(n_panels, 1, i + 1) for i in range(n_panels)]
    return fig, axes


def envelope(x: np.ndarray, y: np.ndarray, columns: int) -> tuple[np.ndarray, np.ndarray]:
    """The min/max envelope of the series ``y(x)`` on ``columns`` pixel columns: the samples cut
    into ``columns`` consecutive runs of equal length, and of each run its smallest and its
    largest sample, in their order, with the first and last sample of the series.  A line through
    them covers, in every pixel column, the same vertical span as the line through all samples
    (for ``x`` increasing and evenly sampled), so no peak is lost.  ``x`` and ``y`` come back
    unchanged when there are at most ``2 columns`` samples or ``y`` is not finite everywhere.
    Units: those of ``x`` and ``y``."""
    x, y = np.asarray(x), np.asarray(y)
    n = len(y)
    if columns < 1 or n <= 2 * columns or not np.isfinite(y).all():
        return x, y
    k = -(-n // columns)                                  # samples per run (the last may be short)
    rows = -(-n // k)
    padded = np.concatenate([y, np.full(rows * k - n, y[-1])]).reshape(rows, k)
    base = np.arange(rows) * k
    keep = np.concatenate([[0, n - 1], base + padded.argmin(axis=1), base + padded.argmax(axis=1)])
    keep = np.unique(np.minimum(keep, n - 1))
    return x[keep], y[keep]


def _columns(ax) -> int:
    """Width of the axes ``ax`` on the PNG [pixels]."""
    fig = ax.figure
    return max(int(ax.get_position().width * fig.get_figwidth() * DPI), 1)


def _series(ax, x, y, **kwargs):
    """``ax.plot(x, y)`` through the min/max envelope of the axes' pixel width (:func:`envelope`)."""
    return ax.plot(*envelope(x, y, _columns(ax)), **kwargs)


def _abscissa(ds) -> tuple[np.ndarray, str]:
    if "crank_angle" in ds:
        return np.degrees(ds["crank_angle"].values), "crank angle [deg]"
    return ds["time"].values * 1e3, "time [ms]"


def _title(ds, what: str) -> str:
    title = ds.attrs.get("title", "")
    return f"{what}\n{title}" if title else what


def _save(fig, path: Path) -> Path:
    from .figures import save   # the format, width and style in force (workbench.results.figures)
    return save(fig, path, dpi=DPI, pil_kwargs=PNG)


def plot_contact_force(ds, path: Path) -> Path | None:
    joints = list(ds["joint"].values) if "joint" in ds.dims else []
    if not joints:
        return None
    x, xlabel = _abscissa(ds)
    fig, axes = _figure(len(joints))
    for ax, j in zip(axes, joints):
        if "ideal_contact_force" in ds:
            _series(ax, x, ds["ideal_contact_force"].sel(joint=j).values, color=_IDEAL, lw=1.2,
                    label="ideal joint (reaction)")
        _series(ax, x, ds["contact_force"].sel(joint=j).values, color=_CLEAR, lw=0.8,
                label="clearance joint (contact force)")
        ax.set_ylabel("force [N]")
        ax.set_title(f"joint {j}", fontsize=9)
        ax.legend(fontsize=8, loc="upper right")
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel(xlabel)
    fig.suptitle(_title(ds, "Contact force"), fontsize=10)
    return _save(fig, path)


def plot_orbit(ds, path: Path) -> Path | None:
    joints = list(ds["joint"].values) if "joint" in ds.dims else []
    if not joints:
        return None
    kinds = ds["joint_kind"].values if "joint_kind" in ds.coords else ["revolute"] * len(joints)
    x, xlabel = _abscissa(ds)
    fig, axes = _figure(len(joints), width=5.5, height=5.0)
    for ax, j, kind in zip(axes, joints, kinds):
        e = ds["eccentricity"].sel(joint=j)
        ex, ey = e.sel(axis="x").values * 1e3, e.sel(axis="y").values * 1e3
        c = float(ds["clearance"].sel(joint=j)) * 1e3 if "clearance" in ds else float("nan")
        if kind == "revolute":
            th = np.linspace(0.0, 2.0 * np.pi, 361)
            if np.isfinite(c):
                ax.plot(c * np.cos(th), c * np.sin(th), color="k", lw=1.0, label="clearance circle")
            ax.plot(ex, ey, color=_CLEAR, lw=0.6, label="journal centre")
            ax.plot([0.0], [0.0], "+", color=_IDEAL, ms=10, label="ideal joint")
            ax.set_aspect("equal", adjustable="datalim")
            ax.set_xlabel("e_x [mm] (bushing frame)")
            ax.set_ylabel("e_y [mm]")
        else:
            _series(ax, x, ey, color=_CLEAR, lw=0.8, label="slider centre offset")
            if np.isfinite(c):
                for s in (-c, c):
                    ax.axhline(s, color="k", lw=1.0)
            ax.axhline(0.0, color=_IDEAL, lw=1.0, ls="--", label="ideal joint")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("offset across the guide [mm]")
        ax.set_title(f"joint {j} ({kind}), clearance {c * 1e3:.4g} um", fontsize=9)
        ax.legend(fontsize=8, loc="upper right")
        ax.grid(alpha=0.3)
    fig.suptitle(_title(ds, "Journal orbit"), fontsize=10)
    return _save(fig, path)


def _slider_series(ds, name: str) -> np.ndarray | None:
    body = ds.attrs.get("slider_body")
    if name not in ds or body is None or body not in ds["body"].values:
        return None
    axis = np.asarray(ds.attrs.get("slider_axis", [1.0, 0.0]), dtype=float).ravel()
    a = ds[name].sel(body=body)
    return axis[0] * a.sel(component="x").values + axis[1] * a.sel(component="y").values


def plot_slider_acceleration(ds, path: Path) -> Path | None:
    acc = _slider_series(ds, "acceleration")
    if acc is None:
        return None
    x, xlabel = _abscissa(ds)
    fig, (ax,) = _figure(1, height=3.6)
    ideal = _slider_series(ds, "ideal_acceleration")
    if ideal is not None:
        _series(ax, x, ideal, color=_IDEAL, lw=1.2, label="ideal joints")
    _series(ax, x, acc, color=_CLEAR, lw=0.8, label="with clearance" if ideal is not None else "slider")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("acceleration along the guide [m/s²]")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(alpha=0.3)
    fig.suptitle(_title(ds, f"Slider acceleration ({ds.attrs['slider_body']})"), fontsize=10)
    return _save(fig, path)


def plot_driver_load(ds, path: Path) -> Path | None:
    if "driver" not in ds.dims or not ds.sizes["driver"]:
        return None
    x, xlabel = _abscissa(ds)
    name = str(ds["driver"].values[0])
    unit = str(ds["driver_unit"].values[0]) if "driver_unit" in ds.coords else ds["driver_load"].attrs["units"]
    fig, (ax,) = _figure(1, height=3.6)
    if "ideal_driver_load" in ds:
        _series(ax, x, ds["ideal_driver_load"].sel(driver=name).values, color=_IDEAL, lw=1.2,
                label="ideal joints")
    _series(ax, x, ds["driver_load"].sel(driver=name).values, color=_CLEAR, lw=0.8,
            label="with clearance" if "ideal_driver_load" in ds else name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{'moment' if unit == 'N m' else 'force'} [{unit}]")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(alpha=0.3)
    fig.suptitle(_title(ds, f"Driver load ({name})"), fontsize=10)
    return _save(fig, path)


def plot_results(ds, outdir: str | Path) -> list[Path]:
    """Write every plot that applies to ``ds`` into ``outdir``; return the files written."""
    if ds.attrs.get("study_kind") == "sweep":
        from .sweep_plot import plot_sweep
        return plot_sweep(ds, outdir)
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    jobs = (("contact_force.png", plot_contact_force), ("journal_orbit.png", plot_orbit),
            ("slider_acceleration.png", plot_slider_acceleration), ("driver_moment.png", plot_driver_load))
    return [p for name, func in jobs if (p := func(ds, outdir / name)) is not None]
