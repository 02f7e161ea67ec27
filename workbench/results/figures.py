"""Figures for a paper: file format, size and style, unit typography, labels from long names.

Every plot of the workbench is saved through :func:`save`, which writes the format, resolution
and width of the :class:`FigureOptions` in force (:func:`figure_options`, a context manager:
``workbench run/plot/compare --format pdf --style paper --width 3.5``).  Inside it matplotlib
draws without offset exponents (``1e-5`` at the axis end: the values are scaled to display units
instead, µm and mm³), with mathtext for any scientific notation, fonts embedded as TrueType
(pdf) or kept as text (svg), and -- style ``paper`` -- 8 pt text and thinner lines for a
single-column figure.

:func:`unit_text` writes a unit as a reader expects it (``um`` -> ``µm``, ``mm^3`` -> ``mm³``,
``+-`` -> ``±``); :func:`axis_label` makes an axis label from a variable's ``long_name`` and
``units``; :func:`readable` turns an identifier (``c5e-05``, ``5000000.0``) into words.
:func:`error_band` and :func:`error_bars` draw a quantity with its standard error whenever the
dataset stores one (``X_stderr`` beside ``X``).

A foundation module (results): matplotlib is imported inside the functions.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

FORMATS = ("png", "pdf", "svg")
STYLES = ("screen", "paper")


@dataclass(frozen=True)
class FigureOptions:
    """How figures are written.

    format : ``png`` (raster), ``pdf`` or ``svg`` (vector).
    dpi : resolution of a PNG [dots per inch] (``None``: 300 for style ``paper``, else the plot's own).
    width : figure width [in] (``None``: the plot's own; the height scales with it).
    style : ``screen`` or ``paper`` (8 pt text, thin lines, for a 3.5 in column).
    """
    format: str = "png"
    dpi: float | None = None
    width: float | None = None
    style: str = "screen"

    def __post_init__(self):
        from ..errors import WorkbenchError
        if self.format not in FORMATS:
            raise WorkbenchError(f"figure format '{self.format}' is not one of {', '.join(FORMATS)}")
        if self.style not in STYLES:
            raise WorkbenchError(f"figure style '{self.style}' is not one of {', '.join(STYLES)}")
        if self.width is not None and not (math.isfinite(self.width) and 1.0 <= self.width <= 30.0):
            raise WorkbenchError(f"figure width {self.width} in: give 1 to 30 inches")


_OPTIONS: contextvars.ContextVar[FigureOptions] = contextvars.ContextVar("figure_options",
                                                                         default=FigureOptions())


def current() -> FigureOptions:
    """The :class:`FigureOptions` in force."""
    return _OPTIONS.get()


def rc(options: FigureOptions) -> dict:
    """The matplotlib settings of ``options`` (see the module docstring)."""
    # mathtext in the DejaVu fonts matplotlib always ships, with no fallback font family: a
    # matplotlib whose wheel carries no Computer Modern or STIX fonts would otherwise log a
    # "findfont ... not found" line per glyph family on every run
    out = {"axes.formatter.useoffset": False, "axes.formatter.use_mathtext": True,
           "mathtext.fontset": "dejavusans", "mathtext.fallback": None,
           "pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none",
           "legend.framealpha": 0.85}
    if options.style == "paper":
        out.update({"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 7,
                    "ytick.labelsize": 7, "legend.fontsize": 7, "lines.linewidth": 1.0,
                    "lines.markersize": 3, "axes.linewidth": 0.6, "grid.linewidth": 0.4})
    return out


@contextlib.contextmanager
def figure_options(options: FigureOptions | None = None, **values):
    """Draw and save the figures made inside with ``options`` (or :class:`FigureOptions` of
    ``values``)."""
    opts = replace(options or FigureOptions(), **values) if values else (options or FigureOptions())
    import logging

    import matplotlib
    token = _OPTIONS.set(opts)
    # a fallback to DejaVu Sans for a font family the matplotlib wheel does not ship (STIX, Computer
    # Modern) is logged once per family and process: not a problem of the user's, kept off stderr
    fonts = logging.getLogger("matplotlib.font_manager")
    level = fonts.level
    fonts.setLevel(logging.ERROR)
    try:
        with matplotlib.rc_context(rc(opts)):
            yield opts
    finally:
        fonts.setLevel(level)
        _OPTIONS.reset(token)


def save(fig, path: str | Path, *, dpi: float = 130, pil_kwargs: dict | None = None) -> Path:
    """Write ``fig`` to ``path`` with the suffix, width and resolution of the options in force;
    return the path written (``x.png`` becomes ``x.pdf`` under ``--format pdf``)."""
    opts = current()
    path = Path(path).with_suffix("." + opts.format)
    if opts.width is not None:
        w, h = fig.get_size_inches()
        fig.set_size_inches(opts.width, h * height_scale(opts.width / w))
    typeset(fig)
    paper = opts.style == "paper" and _paper_text(fig)
    if fit_text(fig) or paper or opts.width is not None:
        _relayout(fig)
    kwargs = {"dpi": opts.dpi or (300 if opts.style == "paper" else dpi)}
    if opts.format == "png" and pil_kwargs:
        kwargs["pil_kwargs"] = pil_kwargs
    if opts.format == "pdf":
        kwargs["metadata"] = {"Creator": "Joint Wear Workbench"}
    if opts.style == "paper":   # nothing cut off at the edge (a legend or tick label outside the axes)
        kwargs.update(bbox_inches="tight", pad_inches=0.03)
    fig.savefig(path, **kwargs)
    return path


def height_scale(ratio: float) -> float:
    """How a figure's height follows a width changed by ``ratio`` [1]: in proportion when it
    widens; as ``sqrt(ratio)`` when it narrows, since text keeps its size in points: a 7 x 3.2 in
    panel made 3.5 in wide keeps 2.3 in of height, not 1.6 in of which the labels would take half."""
    return ratio if ratio >= 1.0 else math.sqrt(ratio)


#: largest text sizes of style ``paper`` [pt]: the figure title, axes titles and labels, tick
#: labels and legends (a plot's own explicit sizes, set for a 7 in screen figure, are capped)
_PAPER_PT = {"suptitle": 9.0, "text": 8.0, "small": 7.0}


def _paper_text(fig) -> bool:
    """Cap the text sizes of ``fig`` at :data:`_PAPER_PT`; True (the layout must be redone)."""
    from matplotlib.text import Text
    small = set()
    for ax in fig.axes:
        small.update(ax.get_xticklabels() + ax.get_yticklabels())
        leg = ax.get_legend()
        if leg is not None:
            small.update(leg.get_texts())
            small.add(leg.get_title())
            if leg.get_bbox_to_anchor() is ax.bbox:   # placed in the axes, not outside
                leg.set_loc("best")   # a corner picked for the screen size may cover the small panel's data
        small.add(ax.xaxis.get_offset_text())
        small.add(ax.yaxis.get_offset_text())
    for leg in fig.legends:
        small.update(leg.get_texts())
    sup = getattr(fig, "_suptitle", None)
    for t in fig.findobj(Text):
        cap = (_PAPER_PT["suptitle"] if t is sup else
               _PAPER_PT["small"] if t in small else _PAPER_PT["text"])
        if t.get_fontsize() > cap:
            t.set_fontsize(cap)
    return True


def _wrap(text: str, fits: float) -> str:
    """``text`` re-broken so that no line is longer than ``fits`` (< 1) of its longest line (the
    lines that fit stay as they are)."""
    import textwrap
    old = text.split("\n")
    width = max(12, int(max(len(line) for line in old) * fits))
    lines = []
    for line in old:
        lines.extend(textwrap.wrap(line, width, break_on_hyphens=False) or [""])
    return "\n".join(lines)


def typeset(fig) -> None:
    """:func:`unit_text` on every title, axis label and legend entry of ``fig`` (``[deg]`` ->
    ``[°]``, ``um`` -> ``µm``, ``+-`` -> ``±``), whichever plot drew them."""
    texts = [getattr(fig, "_suptitle", None)]
    for leg in fig.legends:
        texts += list(leg.get_texts())
    for ax in fig.axes:
        texts += [ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None),
                  ax.xaxis.label, ax.yaxis.label]
        leg = ax.get_legend()
        if leg is not None:
            texts += list(leg.get_texts())
    for t in texts:
        if t is not None and t.get_text():
            new = unit_text(t.get_text())
            if new != t.get_text():
                t.set_text(new)


def fit_text(fig) -> bool:
    """Re-break the figure title, axes titles and axis labels of ``fig`` that run past the figure
    (titles) or past their axes (labels), so that no text is cut off at a narrow width; returns
    whether any text changed."""
    try:
        renderer = fig.canvas.get_renderer()
    except Exception:  # noqa: BLE001 - a canvas without a renderer: nothing measured, nothing changed
        return False
    fig_w = fig.bbox.width
    items = []
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_text():
        items.append((sup, 0.96 * fig_w, "w"))
    for ax in fig.axes:
        box = ax.get_window_extent(renderer)
        # an axes title may use the figure's width when no panel stands beside its axes
        beside = any(o is not ax and o.get_window_extent(renderer).y1 > box.y0 and
                     o.get_window_extent(renderer).y0 < box.y1 for o in fig.axes)
        title_room = 1.1 * box.width if beside else 0.96 * fig_w
        for t in (ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)):
            if t is not None and t.get_text():
                items.append((t, title_room, "w"))
        if ax.xaxis.label.get_text():
            items.append((ax.xaxis.label, 1.1 * box.width, "w"))
        if ax.yaxis.label.get_text():
            items.append((ax.yaxis.label, 1.1 * box.height, "h"))
        leg = ax.get_legend()
        if leg is not None:
            items += [(t, 0.8 * fig_w, "w") for t in leg.get_texts() if t.get_text()]
    changed = False
    for t, room, along in items:
        ext = t.get_window_extent(renderer)
        size = ext.width if along == "w" else ext.height
        if size > room > 0:
            t.set_text(_wrap(t.get_text(), room / size))
            changed = True
    return changed


def _relayout(fig) -> None:
    """Lay a resized figure out again (its margins were set for its own size): text keeps its
    size in points, so the axes give way."""
    import warnings
    if fig.get_constrained_layout():
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # tight_layout's "not compatible" notes on polar legends
        try:
            fig.tight_layout(pad=0.4)
        except Exception:  # noqa: BLE001 - a figure tight_layout cannot handle keeps its layout
            pass


# ------------------------------------------------------------------------------ typography
_UNIT_TEXT = [(r"\bum\b", "µm"), (r"\bmm\^3\b", "mm³"), (r"\bm\^3\b", "m³"), (r"\bmm\^2\b", "mm²"),
              (r"\bm\^2\b", "m²"), (r"\bs\^2\b", "s²"), (r"\^1\.5\b", "¹·⁵"), (r"\^-1\b", "⁻¹"),
              (r"\+-", "±"), (r"\bdeg\b", "°"), (r"\bOhm\b", "Ω")]


def unit_text(text: str) -> str:
    """``text`` with units and signs typeset: ``um`` -> ``µm``, ``mm^3`` -> ``mm³``, ``+-`` -> ``±``."""
    for pat, rep in _UNIT_TEXT:
        text = re.sub(pat, rep, text)
    return text


def units_of(da) -> str:
    """The unit of a variable as a label shows it (a unit per cycle with its ``/cycle``)."""
    u = str(da.attrs.get("units", "") or "")
    if da.attrs.get("units_per"):
        u = f"{u}/{da.attrs['units_per']}" if u not in ("", "1") else f"1/{da.attrs['units_per']}"
    return "" if u == "1" else unit_text(u)


def axis_label(da, *, unit: str | None = None) -> str:
    """``Long name [unit]`` of a variable (``unit`` overrides its own, e.g. after scaling)."""
    name = str(da.attrs.get("long_name") or da.name or "")
    name = name[:1].upper() + name[1:]
    u = unit if unit is not None else units_of(da)
    return f"{name} [{unit_text(u)}]" if u else name


_NUMBER = re.compile(r"^([a-zA-Z_]*?)_?(-?\d+(?:\.\d*)?(?:e[-+]?\d+)?)$")


def readable(identifier: str) -> str:
    """An identifier as words: ``c5e-05`` -> ``c = 5×10⁻⁵``, ``5000000.0`` -> ``5 000 000``,
    ``slider_crank_wear`` -> ``slider crank wear``."""
    s = str(identifier)
    m = _NUMBER.match(s)
    if m:
        head, num = m.groups()
        text = number_text(float(num))
        return f"{head.replace('_', ' ')} = {text}" if head else text
    return s.replace("_", " ")


_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def cycles_axis(axis, label: str = "machine cycles") -> None:
    """Label ``axis`` (``ax.xaxis``) as a count of cycles whose tick labels stay short: from 10⁴ on
    the ticks are read in thousands or millions, said in the label ("machine cycles [×10³]"), so
    six-digit labels never run into each other and no offset sits at the axis end."""
    from matplotlib.ticker import Formatter

    class _Counts(Formatter):
        k = 0

        def set_locs(self, locs):
            super().set_locs(locs)
            top = max((abs(float(v)) for v in locs), default=0.0)
            self.k = 3 * int(math.floor(math.log10(top) / 3)) if top >= 1e4 else 0
            self.axis.set_label_text(label if self.k == 0 else
                                     f"{label} [×10{str(self.k).translate(_SUP)}]")

        def __call__(self, x, pos=None):
            return f"{x / 10 ** self.k:g}".replace("-", "\N{MINUS SIGN}")

    axis.set_label_text(label)
    axis.set_major_formatter(_Counts())


def number_text(x: float, digits: int = 3) -> str:
    """``x`` for a reader: thin-space thousands, ``a×10ⁿ`` for very small or large numbers."""
    if x == 0 or not math.isfinite(x):
        return str(x)
    e = int(math.floor(math.log10(abs(x))))
    if -3 <= e < 7:
        if float(x).is_integer():
            return f"{int(x):,}".replace(",", "\u2009")
        return f"{x:.{digits}g}"
    mant = x / 10 ** e
    mant_s = f"{mant:.{digits}g}"
    return (f"{mant_s}×" if mant_s != "1" else "") + "10" + str(e).translate(_SUP)


def per_cycles(top: float) -> tuple[float, str]:
    """``(N, "N cycles")`` with N = 1, 10³, 10⁶ or 10⁹: the count of cycles a rate whose largest
    value is ``top`` (per cycle, in the unit shown) is best given per, so that it reads 0.1-1000
    rather than with an exponent at the axis end."""
    for k, per in ((0, "cycle"), (3, "10³ cycles"), (6, "10⁶ cycles"), (9, "10⁹ cycles")):
        if top * 10.0 ** k >= 0.1 or k == 9:
            return 10.0 ** k, per
    return 1.0, "cycle"   # not reached


def value_with_error(x: float, se: float, unit: str = "") -> str:
    """``4981 ± 210 Hz``: the value rounded to the standard error's second significant digit."""
    if not (math.isfinite(se) and se > 0):
        return f"{x:.4g}{' ' + unit_text(unit) if unit else ''}"
    d = max(0, 1 - int(math.floor(math.log10(se))))
    return f"{x:.{d}f} ± {se:.{d}f}{' ' + unit_text(unit) if unit else ''}"


# ------------------------------------------------------------------------------ uncertainty
def stderr_of(ds, name: str):
    """The standard-error variable stored beside ``name`` (``X_stderr``, ``X_se``), or ``None``."""
    for cand in (f"{name}_stderr", f"{name}_se"):
        if cand in ds:
            return ds[cand]
    return None


def error_band(ax, x, y, se, *, k: float = 2.0, color=None, label: str | None = None, alpha=0.25):
    """A ±k·se band around ``y`` (where ``se`` is finite)."""
    y, se = np.asarray(y, float), np.asarray(se, float)
    ok = np.isfinite(se)
    if not ok.any():
        return None
    return ax.fill_between(np.asarray(x)[ok], (y - k * se)[ok], (y + k * se)[ok], color=color,
                           alpha=alpha, linewidth=0, label=label)


def error_bars(ax, x, y, se, *, k: float = 2.0, **kwargs):
    """``y`` with ±k·se error bars (a plain line where no standard error is finite)."""
    se = None if se is None else np.where(np.isfinite(np.asarray(se, float)), k * np.asarray(se, float), 0.0)
    return ax.errorbar(x, y, yerr=se, capsize=2, elinewidth=0.8, **kwargs)
