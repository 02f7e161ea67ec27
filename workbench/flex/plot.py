"""PNG plots of a dynamics result with flexible beams.

:func:`flex_plots` writes ``slider_acceleration_spectrum.png``: the amplitude spectrum of the
slider's acceleration along its guide (``slider_acceleration_spectrum`` of the dataset: Hann
window, mean removed, :func:`workbench.flex.results.spectrum`) with its dominant frequency
above the crank harmonics marked (``slider_acceleration_dominant_frequency``; the search starts at
``spectrum_cutoff_frequency``, shaded below) -- the frequency content Wang, Chen, Ma & Sun (2016)
read from their FFTs.  A dataset without the spectrum gives no plot.  matplotlib is imported
inside the function (on :func:`workbench.results.plot.new_figure`'s Agg canvas).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

SPECTRUM_FILE = "slider_acceleration_spectrum.png"


def plot_spectrum(ds, path: str | Path) -> Path | None:
    """The slider-acceleration spectrum of ``ds`` into ``path`` (``None`` when ``ds`` has none)."""
    if "slider_acceleration_spectrum" not in ds or ds.sizes.get("frequency", 0) < 2:
        return None
    from ..results.plot import new_figure
    f = np.asarray(ds["frequency"].values, float)
    amp = np.asarray(ds["slider_acceleration_spectrum"].values, float)
    f_dom = float(ds["slider_acceleration_dominant_frequency"].values) \
        if "slider_acceleration_dominant_frequency" in ds else math.nan
    cut = float(ds.attrs.get("spectrum_cutoff_frequency", 0.0))
    fig = new_figure(figsize=(7.0, 3.6), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    ax.plot(f * 1e-3, amp, color="tab:blue", lw=0.9)
    if cut > 0.0:
        ax.axvspan(0.0, cut * 1e-3, color="0.9", label=f"crank harmonics (< {cut:.0f} Hz, not searched)")
    if math.isfinite(f_dom):
        a_dom = float(np.interp(f_dom, f, amp))
        ax.axvline(f_dom * 1e-3, color="tab:red", lw=1.0, ls="--")
        ax.plot([f_dom * 1e-3], [a_dom], "o", color="tab:red", label=f"dominant, whole run: {f_dom:.0f} Hz")
    if "dominant_frequency_revolution_mean" in ds and "dominant_frequency_revolution_se" in ds:
        # the number the summary reports: the mean over the revolutions with its standard error
        from ..results.figures import value_with_error
        m = float(ds["dominant_frequency_revolution_mean"].values)
        se = float(ds["dominant_frequency_revolution_se"].values)
        if math.isfinite(m):
            w = 2.0 * se if math.isfinite(se) else 0.0
            ax.axvspan((m - w) * 1e-3, (m + w) * 1e-3, color="tab:orange", alpha=0.25, lw=0,
                       label=f"per revolution: {value_with_error(m, se, 'Hz')} (band ±2 SE)")
    ax.set_xlim(0.0, min(float(f[-1]), max(10_000.0, 3.0 * (f_dom if math.isfinite(f_dom) else 0.0))) * 1e-3)
    ax.set_xlabel("frequency [kHz]")
    ax.set_ylabel(f"amplitude [{ds['slider_acceleration_spectrum'].attrs.get('units', 'm/s^2')}]")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    title = ds.attrs.get("title", "")
    fig.suptitle("Slider acceleration spectrum" + (f"\n{title}" if title else ""), fontsize=10)
    path = Path(path)
    from ..results.figures import save
    return save(fig, path, dpi=130)


def flex_plots(ds, outdir: str | Path) -> list[Path]:
    """Every flexible-beam plot that applies to ``ds``, written into ``outdir``."""
    if "slider_acceleration_spectrum" not in ds:
        return []
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    p = plot_spectrum(ds, outdir / SPECTRUM_FILE)
    return [p] if p is not None else []
