"""``workbench converge`` on mechanisms with flexible beams, and the crank quantities it judges.

Rigs: the shipped flexible slider-crank with 0.2 mm clearances (studies/flexible_slider_crank_c020.toml,
the 207 GPa rod) cut to its first impact (0.3 ms), and the shipped ideal-joint one
(studies/flexible_slider_crank_ideal.toml, 2 GPa rod) over three revolutions, so that two follow the
start-up one and the per-revolution means have standard errors.  Each table is checked against
direct runs of the solver and against what the study's own dataset reports (with beams the peaks
are taken after the start-up revolution, as the flexible studies read them).
"""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.converge import signals
from workbench.converge.runner import converge_study
from workbench.engines import simulate
from workbench.kinds.dynamics_run import run_dynamics
from workbench.results.dataset import ENGINE
from workbench.study.load import load_study_text

ROOT = Path(__file__).resolve().parents[2]
C020 = ROOT / "studies" / "flexible_slider_crank_c020.toml"
IDEAL = ROOT / "studies" / "flexible_slider_crank_ideal.toml"


def _text(path: Path, old: str, new: str) -> str:
    text = path.read_text()
    assert old in text, old
    return text.replace(old, new, 1)


def test_lowpass_keeps_the_crank_harmonics_and_removes_the_ringing():
    """The zero-phase Butterworth: a 100 Hz component (the crank's first harmonics at 5000 rpm)
    passes with its amplitude and phase, a 5 kHz one (the 207 GPa rod's axial ringing) is gone."""
    t = np.arange(0.0, 0.024, 1e-5)
    slow = 50.0 * np.sin(2 * math.pi * 100.0 * t)
    x = slow + 20.0 * np.sin(2 * math.pi * 5000.0 * t)
    y = signals.lowpass(t, x, 1000.0)
    inner = slice(200, -200)                            # away from the ends' padding
    assert np.max(np.abs(y[inner] - slow[inner])) < 0.01 * 50.0
    with pytest.raises(ValueError, match="Nyquist"):
        signals.lowpass(t, x, 60e3)


def test_converge_on_a_flexible_study_with_clearance_produces_its_table(tmp_path):
    """Through the command line (table printed as Markdown and written): the impact quantities
    and the crank quantities of the flexible run, each equal to what direct runs at the base and
    tightened settings give."""
    study_file = tmp_path / "flex_c020_short.toml"
    study_file.write_text(_text(C020, "revolutions = 10 ", "t_end = 3.0e-4  # "))
    out = tmp_path / "table.nc"
    res = CliRunner().invoke(main, ["converge", str(study_file), "--setting", "rtol/10", "--markdown",
                                    "-o", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "| rtol/10 | 1e-06 -> 1e-07 | first_impact_time [s] |" in res.output
    assert "cut-off 1000 Hz" in res.output
    with xr.open_dataset(out, engine=ENGINE) as ds:
        ds = ds.load()
    assert list(ds["setting"].values) == ["rtol/10"]
    names = [n[:-len("_change")] for n in ds.data_vars if n.endswith("_change")]
    assert names == ["first_impact_time", "first_impact_velocity", "first_impact_peak_force", "trajectory",
                     "peak_contact_force", "impacts", "impact_sequence_differs", "crank_moment_peak",
                     "crank_moment_lowpass_peak", "slider_acceleration_peak"]
    from workbench.plugins import build_registry
    study = load_study_text(study_file.read_text(), file=study_file, registry=build_registry())
    for run, settings in (("base", study.solver),
                          ("tightened", dataclasses.replace(study.solver, rtol=1e-7, atol=1e-10))):
        sim = simulate(study.mechanism, settings)
        row = ds.sel(setting="rtol/10", run=run)
        assert float(row["first_impact_time"]) == sim.impact_time[0] > 1e-4      # the consistent start's
        assert float(row["crank_moment_peak"]) == np.abs(sim.driver_load[:, 0]).max() > 0
        slider = sim.body_names.index("slider")
        assert float(row["slider_acceleration_peak"]) == np.abs(sim.acceleration[:, slider, 0]).max()
    assert ds.attrs["lowpass_cutoff_hz"] == 1000.0 and "sosfiltfilt" in ds.attrs["lowpass_filter"]
    assert ds["crank_moment_peak_change"].attrs["tolerance"] == 0.005


# Slow (~20 s on 2 cores: three revolutions of the flexible study, three times): the default suite
# keeps the per-revolution statistics through tests/flex/test_flexible_per_revolution.py and the
# converge table through test_converge_on_a_flexible_study_with_clearance_produces_its_table above.
@pytest.mark.slow
def test_per_revolution_quantities_match_what_the_study_reports(registry):
    """Three revolutions of the ideal-joint flexible study: the per-revolution mean of the table's
    base run is the study dataset's own, its standard error is the table's, and the band is 2
    standard errors of the difference; the low-pass peak is the filter of
    :func:`scipy.signal.filtfilt` (transfer-function form, an independent implementation) applied
    to the dataset's crank moment."""
    from scipy.signal import butter, filtfilt
    study = load_study_text(_text(IDEAL, "revolutions = 2\n", "revolutions = 3\n"), file=IDEAL, registry=registry)
    ds = converge_study(study, registry=registry, settings=["rtol/10"])
    ref = run_dynamics(study, registry=registry)
    row = ds.sel(setting="rtol/10")
    base = row.sel(run="base")
    assert "first_impact_time" not in ds                   # no clearance joints: no impacts to judge
    assert float(base["crank_moment_peak_revolution_mean"]) == float(ref["crank_moment_peak_revolution_mean"])
    assert float(base["crank_moment_peak_revolution_mean_stderr"]) == float(ref["crank_moment_peak_revolution_se"])
    assert float(base["dominant_frequency_revolution_mean"]) == float(ref["dominant_frequency_revolution_mean"])
    se = row["crank_moment_peak_revolution_mean_stderr"].values
    band = 2.0 * math.hypot(*se) / float(base["crank_moment_peak_revolution_mean"])
    assert float(row["crank_moment_peak_revolution_mean_band"]) == pytest.approx(band, rel=1e-12)
    b, a = butter(4, 1000.0, fs=1e5)
    m = ref["driver_load"].values[:, 0] if ref["driver_load"].dims[0] == "time" else ref["driver_load"].values[0]
    after = ref["time"].values >= 60.0 / 5000.0           # peaks after the start-up revolution
    assert float(base["crank_moment_peak"]) == np.abs(m[after]).max()
    assert float(base["crank_moment_peak"]) == float(ref["crank_moment_peak_revolution_max"])
    assert float(base["crank_moment_lowpass_peak"]) == pytest.approx(np.abs(filtfilt(b, a, m)[after]).max(), rel=1e-6)
    assert float(base["crank_moment_lowpass_peak"]) < float(base["crank_moment_peak"])
    assert ds.attrs["held_common"].startswith("held common")


def test_bad_converge_requests_are_clear_errors_before_any_run(tmp_path):
    """An unknown quantity or setting, a quantity the study does not report, a cut-off above the
    samples' Nyquist frequency: exit 2, naming the option, the value and the valid choices."""
    runner = CliRunner()
    res = runner.invoke(main, ["converge", str(C020), "--quantity", "crank_momnt_peak"])
    assert res.exit_code == 2 and "unknown quantity 'crank_momnt_peak'" in res.output
    assert "'crank_moment_peak'" in res.output and "Did you mean" in res.output
    res = runner.invoke(main, ["converge", str(IDEAL), "--quantity", "crank_moment_peak_revolution_mean"])
    assert res.exit_code == 2 and "does not report it" in res.output and "whole revolutions" in res.output
    res = runner.invoke(main, ["converge", str(IDEAL), "--quantity", "first_impact_time"])
    assert res.exit_code == 2 and "clearance joints" in res.output
    res = runner.invoke(main, ["converge", str(C020), "--setting", "rtol/1000"])
    assert res.exit_code == 2 and "unknown setting 'rtol/1000'" in res.output and "'rtol/10'" in res.output
    res = runner.invoke(main, ["converge", str(C020), "--lowpass", "150000"])   # output every 5 us
    assert res.exit_code == 2 and "Nyquist" in res.output and "100000 Hz" in res.output
