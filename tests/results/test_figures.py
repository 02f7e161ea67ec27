"""Paper-ready figures: formats, sizes, unit typography, error bars, compare overlays."""
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from workbench.errors import WorkbenchError
from workbench.results import figures as F
from workbench.results.compare import compare, labels
from workbench.results.plot import new_figure


def test_unit_typography_and_readable_identifiers():
    assert F.unit_text("depth [um], volume [mm^3], +-2 SE") == "depth [µm], volume [mm³], ±2 SE"
    assert F.readable("c5e-05") == "c = 5×10⁻⁵"
    assert F.readable("5000000.0") == "5\u2009000\u2009000"
    assert F.readable("slider_crank_wear") == "slider crank wear"
    assert F.value_with_error(4981.3, 210.0, "Hz") == "4981 ± 210 Hz"


def test_axis_label_from_long_name_and_per_cycle_units():
    da = xr.DataArray([1.0], dims="x", attrs={"long_name": "worn volume per cycle", "units": "m^3",
                                               "units_per": "cycle"})
    assert F.axis_label(da) == "Worn volume per cycle [m³/cycle]"


@pytest.mark.parametrize("fmt, magic", [("pdf", b"%PDF"), ("svg", b"<?xml"), ("png", b"\x89PNG")])
def test_save_writes_the_format_and_width_in_force(tmp_path, fmt, magic):
    with F.figure_options(format=fmt, width=3.5, style="paper"):
        fig = new_figure(figsize=(7, 3))
        ax = fig.add_subplot(1, 1, 1)
        ax.plot([0, 1], [1000.0, 1000.001])
        fig.canvas.draw()
        assert ax.yaxis.get_offset_text().get_text() == ""          # no "+1e3" offset at the axis end
        path = F.save(fig, tmp_path / "f.png")
    assert path == tmp_path / f"f.{fmt}" and path.read_bytes().startswith(magic)
    assert fig.get_size_inches()[0] == pytest.approx(3.5)


def test_a_paper_figure_cuts_no_text_and_keeps_a_readable_height(tmp_path):
    """A 7 x 3.2 in screen plot with a study's long title and 10 pt text, saved for a 3.5 in column
    (style paper): every text inside the figure, the title re-broken (its short first line kept),
    sizes capped at 9 pt (title) and 8 pt, the units typeset, the height 3.2 sqrt(0.5) in."""
    long = "Flores slider-crank: wear of the rod-slider clearance joint, approximate-area pressure"
    with F.figure_options(width=3.5, style="paper"):
        fig = new_figure(figsize=(7, 3.2))
        ax = fig.add_subplot(1, 1, 1)
        ax.plot([0, 720], [0, 40e3], label="contact force")
        ax.set_xlabel("crank angle [deg]"); ax.set_ylabel("a long label of a quantity [um]", fontsize=10)
        ax.legend(fontsize=8, loc="upper right")
        fig.suptitle(f"Contact force\n{long}", fontsize=10)
        F.save(fig, tmp_path / "f.png")
        renderer = fig.canvas.get_renderer()
        box = fig.bbox
        texts = [fig._suptitle, ax.xaxis.label, ax.yaxis.label, ax.title]
        for t in texts:
            if t.get_text():
                e = t.get_window_extent(renderer)
                assert e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1 and e.y1 <= box.y1 + 1, t.get_text()
    lines = fig._suptitle.get_text().split("\n")
    assert lines[0] == "Contact force" and len(lines) >= 3 and " ".join(lines[1:]) == long
    assert fig._suptitle.get_fontsize() == 9.0 and ax.yaxis.label.get_fontsize() == 8.0
    assert ax.get_legend().get_texts()[0].get_fontsize() == 7.0
    assert ax.xaxis.label.get_text() == "crank angle [°]" and "[µm]" in ax.yaxis.label.get_text()
    assert fig.get_size_inches() == pytest.approx((3.5, 3.2 * np.sqrt(0.5)))


def test_the_degradation_rate_reads_without_an_exponent():
    """The worn-volume rate panel picks mm³ per 10³/10⁶/10⁹ cycles so that the rate reads 0.1-1000."""
    from workbench.wear.plot import _rate_unit
    for rate, label, shown in [(1.0e-14, "mm³ per 10⁶ cycles", 10.0), (3e-12, "mm³ per 10³ cycles", 3.0),
                               (2e-9, "mm³/cycle", 2.0), (5e-19, "mm³ per 10⁹ cycles", 0.5)]:
        scale, text = _rate_unit(xr.Dataset({"volume_rate": ("cycle", [0.0, rate])}))
        assert label in text and rate * scale == pytest.approx(shown)


@pytest.mark.parametrize("top, label, last, width", [(2.0e5, "machine cycles [×10³]", "200", 3),
                                                     (1.0e6, "machine cycles [×10⁶]", "1", 4),
                                                     (3000.0, "machine cycles", "3000", 4)])
def test_a_cycles_axis_reads_its_ticks_in_thousands_or_millions(tmp_path, top, label, last, width):
    # six-digit tick labels of a 2e5-cycle run ran into each other on a half-width panel
    with F.figure_options():
        fig = new_figure(figsize=(4, 3))
        ax = fig.add_subplot()
        ax.plot([0.0, top], [0.0, 1.0])
        F.cycles_axis(ax.xaxis)
        F.save(fig, tmp_path / "c.png")
        ticks = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert ax.xaxis.get_label().get_text() == label
    assert max(len(t) for t in ticks) <= width and last in ticks, ticks


def test_bad_options_are_refused():
    with pytest.raises(WorkbenchError, match="format"):
        F.FigureOptions(format="jpg")
    with pytest.raises(WorkbenchError, match="width"):
        F.FigureOptions(width=0.1)


def _wear(title, scale):
    cyc, th = np.array([0.0, 1e5, 2e5]), np.linspace(0, 2 * np.pi, 8, endpoint=False)
    depth = np.zeros((3, 1, 2, 8)); depth[:, 0, 0] = scale * np.outer([0, 1, 2], 1 + np.cos(th)) * 1e-6
    vol = np.zeros((3, 1, 2)); vol[:, 0, 0] = scale * np.array([0, 1, 2]) * 1e-9
    return xr.Dataset({"wear_depth": (("cycle", "joint", "surface", "theta"), depth),
                       "wear_depth_stderr": (("cycle", "joint", "surface", "theta"), 0.1 * depth),
                       "wear_volume": (("cycle", "joint", "surface"), vol),
                       "wear_volume_stderr": (("cycle", "joint", "surface"), 0.1 * vol)},
                      coords={"cycle": cyc, "joint": ["B"], "surface": ["bushing", "journal"], "theta": th},
                      attrs={"title": title, "study_kind": "wear"})


def test_compare_overlays_wear_results_with_bands_and_no_empty_panel(tmp_path):
    a, b = _wear("Archard", 1.0), _wear("Archard, Winkler pressure", 1.5)
    with F.figure_options(format="svg"):
        paths = compare([a, b], ["a.zarr", "b.zarr"], tmp_path / "cmp")
    names = sorted(p.name for p in paths)
    assert names == ["compare_profile_B_bushing.svg", "compare_wear_volume.svg"]   # the journal never wears
    svg = (tmp_path / "cmp" / "compare_wear_volume.svg").read_text()
    assert "Archard, Winkler pressure" in svg and "±2 standard errors" in svg
    with pytest.raises(WorkbenchError, match="exists"):
        with F.figure_options(format="svg"):
            compare([a, b], ["a.zarr", "b.zarr"], tmp_path / "cmp")


def test_legend_labels_are_the_titles_made_unique():
    a = xr.Dataset(attrs={"title": "T"})
    assert labels([a, a], ["x/one.nc", "y/two.nc"]) == ["T (one.nc)", "T (two.nc)"]
    b, c = (xr.Dataset(attrs={"title": f"Flores slider-crank: wear of joint B, {p} pressure"}) for p in ("winkler", "fem"))
    assert labels([b, c], ["b.zarr", "c.zarr"]) == ["winkler pressure", "fem pressure"]
    d = xr.Dataset(attrs={"title": "Flores"})
    assert labels([b, d], ["b", "d"]) == [b.attrs["title"], "Flores"]   # no shared lead: whole titles
    with pytest.raises(WorkbenchError, match="one study kind"):
        compare([_wear("w", 1), xr.Dataset(attrs={"study_kind": "dynamics"})], ["a", "b"], "/tmp/never")


def test_sweep_plot_draws_standard_errors_as_error_bars(tmp_path):
    import json
    from workbench.results import sweep_plot
    law = xr.Variable(("law",), np.array(["a", "b"]), {"long_name": "law"})
    ds = xr.Dataset({"wear_volume": (("law",), [1e-9, 2e-9], {"units": "m^3", "long_name": "volume"}),
                     "wear_volume_stderr": (("law",), [1e-10, 3e-10], {"units": "m^3", "long_name": "se"}),
                     "status": (("law",), np.array(["ok", "ok"]))},
                    coords={"law": law}, attrs={"summary": json.dumps(["wear_volume", "wear_volume_stderr"]),
                                                "title": "t", "study_kind": "sweep"})
    assert sweep_plot.stderr_pairs(["wear_volume", "wear_volume_stderr", "x_mean", "x_se"]) == \
        {"wear_volume": "wear_volume_stderr", "x_mean": "x_se"}
    bars = []
    from matplotlib.axes import Axes
    orig = Axes.bar

    def spy(self, *a, **k):
        bars.append(k.get("yerr"))
        return orig(self, *a, **k)
    Axes.bar = spy
    try:
        paths = sweep_plot.plot_sweep(ds, tmp_path)
    finally:
        Axes.bar = orig
    assert len(paths) == 1 and len(bars) == 1                       # one panel: the SE is not a panel
    assert bars[0] is not None and np.allclose(bars[0], [2e-10, 6e-10])   # ±2 SE, in the panel's units


def _pressure(title, models, scale, plugins=None):
    th = np.linspace(-np.pi, np.pi, 16, endpoint=False)
    loads = np.array([[1000.0, 5000.0]])
    p = np.stack([[scale * (m + 1) * F * np.clip(np.cos(2 * th), 0, None) for F in loads[0]]
                  for m in range(len(models))])[None]
    return xr.Dataset({"pressure": (("case", "model", "load", "theta"), p),
                       "peak_pressure": (("case", "model", "load"), p.max(axis=-1)),
                       "load_value": (("case", "load"), loads)},
                      coords={"case": ["pin"], "model": models, "load": [0, 1], "theta": th,
                              "plugin": ("model", plugins or list(models))},
                      attrs={"title": title, "study_kind": "pressure"})


def test_compare_overlays_pressure_curves_of_two_studies_with_titles(tmp_path):
    """Winkler vs FE as two pressure studies: one figure of curves per shared case (a panel per
    shared load) and the peak pressure over the load; a result's one model is labelled by its
    title, a closed form that both results carry is drawn once."""
    a = _pressure("Winkler, calibrated", ["winkler", "persson"], 1.0, ["winkler", "closed_form"])
    b = _pressure("Plane-strain FE", ["fem", "persson"], 1.2, ["fem", "closed_form"])
    with F.figure_options(format="svg"):
        paths = compare([a, b], ["w.nc", "f.nc"], tmp_path / "cmp")
    assert sorted(p.name for p in paths) == ["compare_peak_pressure_pin.svg", "compare_pressure_pin.svg"]
    svg = (tmp_path / "cmp" / "compare_pressure_pin.svg").read_text()
    assert "Winkler, calibrated" in svg and "Plane-strain FE" in svg
    assert svg.count("persson (closed form)") == 1 and "Winkler, calibrated: winkler" not in svg
    c = _pressure("other", ["fem"], 1.0).assign_coords(case=["bushing"])
    with pytest.raises(WorkbenchError, match="share no case"):
        compare([a, c], ["w.nc", "c.nc"], tmp_path / "cmp2")


def test_sweep_panels_are_titled_by_their_long_names():
    """A sweep panel reads "Peak normal contact force of the first contact (joint B)", not the
    summary's identifier; the identifier only where there is no long name, in words."""
    from workbench.results.sweep_plot import _panel_title
    assert _panel_title("first_impact_peak_force (joint B)", "peak normal contact force of the first contact") \
        == "Peak normal contact force of the first contact (joint B)"
    assert _panel_title("crank_moment_peak", "") == "crank moment peak"
