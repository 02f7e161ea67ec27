"""Per-revolution crank-moment peaks and dominant frequencies of the flexible slider-crank studies
(workbench.flex.results).

The impacting motion in clearance joints is chaotic: two runs differing only in rounding agree to
1e-9 for the first 2.4 ms and drift apart after about one revolution, so the last revolution's
crank-moment peak moves by several per cent when rtol goes from 1e-6 to 1e-7 and is not a
reproducible number.  What the studies report instead is the mean over the revolutions after the
start-up one with its standard error; these tests check the statistics on signals with known
answers, the dataset variables, and (slow) that the mean is converged within its standard error at
the shipped tolerance while the single last revolution's peak is not.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from workbench.flex.results import mean_se, per_revolution
from workbench.kinds.dynamics import summary_lines
from workbench.kinds.dynamics_run import run_dynamics
from workbench.study.load import load_study, load_study_text

ROOT = Path(__file__).resolve().parents[2]


def test_per_revolution_finds_each_revolutions_peak_and_frequency():
    # a moment whose peak grows by 1 per revolution and an acceleration with a 3 kHz tone in even
    # and a 1 kHz tone in odd revolutions (crank 5000 rpm: period 12 ms, bin width 83.3 Hz, both
    # tones on bins); the first revolution is left out.
    T = 0.012
    t = np.linspace(0.0, 5 * T, 6001)          # samples every 1e-5 s, the end included (as a run)
    k = np.floor(t / T + 1e-9)
    moment = (10.0 + k) * np.sin(2 * np.pi * t / T)
    acc = np.where(k % 2 == 0, np.sin(2 * np.pi * 3000 * t), np.sin(2 * np.pi * 1000 * t))
    revs, peak, freq = per_revolution(t, moment, acc, T, f_min=4 / T)
    assert list(revs) == [1, 2, 3, 4]
    np.testing.assert_allclose(peak, [11, 12, 13, 14], rtol=1e-6)
    np.testing.assert_allclose(freq, [1000, 3000, 1000, 3000], atol=1e-6)
    m, se = mean_se(peak)
    assert m == pytest.approx(12.5) and se == pytest.approx(np.std([11, 12, 13, 14], ddof=1) / 2)
    assert math.isnan(mean_se([1.0])[1])


def test_flexible_study_dataset_has_the_per_revolution_statistics(registry):
    # the ideal-joint study (2 GPa rod), 3 revolutions: revolutions 1 and 2 are reported
    text = (ROOT / "studies" / "flexible_slider_crank_ideal.toml").read_text()
    text = text.replace("revolutions = 2\n", "revolutions = 3\n")
    study = load_study_text(text, file="flexible_slider_crank_ideal.toml", registry=registry)
    ds = run_dynamics(study, registry=registry)
    assert list(ds["revolution"].values) == [1, 2]
    peak = ds["crank_moment_peak_per_revolution"]
    assert peak.attrs["units"] == "N m" and peak.attrs["long_name"]
    assert ds["dominant_frequency_per_revolution"].attrs["units"] == "Hz"
    # each revolution's peak is the largest |moment| of its 12 ms window (crank at 5000 rpm)
    M = np.abs(ds["driver_load"].isel(driver=0))
    for k in (1, 2):
        window = M.where((M.time >= k * 0.012 - 1e-12) & (M.time < (k + 1) * 0.012 - 1e-12))
        assert float(peak.sel(revolution=k)) == pytest.approx(float(window.max()), rel=1e-12)
    # not periodic yet with the 2 GPa rod: its axial mode (672 Hz) sits on the crank's 8th harmonic
    # (667 Hz) and 5 % damping; measured 175.8, 163.7, 132.4, 128.5, 136.5 N m in revolutions 1-5
    assert float(ds["crank_moment_peak_revolution_max"]) == pytest.approx(float(peak.max()))
    assert ds["crank_moment_peak_revolution_se"].attrs["units"] == "N m"
    assert any("crank-moment peak per revolution" in line for line in summary_lines(ds))
    from workbench.results.reducers import REDUCERS
    assert float(REDUCERS["crank_moment_peak_mean"](ds)) == float(ds["crank_moment_peak_revolution_mean"])
    assert float(REDUCERS["crank_moment_peak_se"](ds)) == float(ds["crank_moment_peak_revolution_se"])
    assert math.isnan(float(REDUCERS["crank_moment_peak_mean"](ds.drop_vars("crank_moment_peak_revolution_mean"))))



def _run(name, registry, rtol_factor=1.0):
    """The shipped study ``name``, its rtol multiplied by ``rtol_factor``."""
    text = (ROOT / "studies" / name).read_text()
    rtol = load_study(ROOT / "studies" / name, registry=registry).solver.rtol
    assert f"rtol = {rtol:g} " in text
    text = text.replace(f"rtol = {rtol:g} ", f"rtol = {rtol * rtol_factor:g} ")
    return run_dynamics(load_study_text(text, file=name, registry=registry), registry=registry)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["flexible_slider_crank_c005.toml", "flexible_slider_crank_c020.toml"])
def test_mean_peak_is_converged_within_its_error_the_last_revolutions_peak_is_not(name, registry):
    # The shipped study (10 revolutions, rtol 1e-6; about 18 s warm each on the shared 2-core machine) against
    # the same at rtol 1e-7.  The two runs' revolutions are independent samples of the chaotic
    # response, so their means differ by a normal variable of standard deviation
    # sqrt(se1^2 + se2^2): agreement within 2 of those is the 95 % test.  Measured at the studies'
    # former output step 1e-5 s (N m, Hz; now 5e-6 s, not re-run here):
    #   C = 0.05 mm: peak 242.5 +- 7.5 vs 217.1 +- 16.1 (1.4 sigma); frequency 4981 +- 208 vs 4889 +- 97;
    #   C = 0.2 mm:  peak 541.5 +- 34.1 vs 528.4 +- 27.6 (0.3 sigma); frequency 5157 +- 407 vs 4722 +- 301;
    # while the last revolution's peak moved 230 -> 163 and 501 -> 394 N m (21-29 %).
    a, b = _run(name, registry), _run(name, registry, rtol_factor=0.1)
    for var in ("crank_moment_peak", "dominant_frequency"):
        ma, sa = float(a[f"{var}_revolution_mean"]), float(a[f"{var}_revolution_se"])
        mb, sb = float(b[f"{var}_revolution_mean"]), float(b[f"{var}_revolution_se"])
        assert sa > 0 and sb > 0
        assert abs(ma - mb) < 2.0 * math.hypot(sa, sb), (var, ma, sa, mb, sb)
    la, lb = (float(x["crank_moment_peak_per_revolution"][-1]) for x in (a, b))
    assert abs(la - lb) > 0.01 * la          # a single revolution's peak: not reproducible


@pytest.mark.parametrize("E, damping, measured", [
    pytest.param(None, None, "175.84 / 175.83 N m", id="2GPa-shipped"),
    pytest.param(2.07e11, 2.329e-06, "138.53 / 138.54 N m", id="207GPa"),
])
def test_ideal_joint_peak_is_converged_at_the_shipped_tolerance(E, damping, measured, registry):
    # Ideal joints: no impacts, the response is deterministic and periodic once the start-up ringing
    # is damped, so the last revolution's peak is a converged number.  The shipped ideal study (2 GPa
    # rod) and the same with the 207 GPa rod and its 5 % axial-mode damping (each under 1 s warm) at
    # rtol 1e-6 against 1e-7; measured (rtol 1e-6 / 1e-7): see ``measured``.
    name = "flexible_slider_crank_ideal.toml"
    text = (ROOT / "studies" / name).read_text()
    if E is not None:
        text = text.replace("E = 2.0000e+09 ", f"E = {E:.4e} ").replace("damping = 2.370e-05 ",
                                                                        f"damping = {damping:.3e} ")
        assert f"E = {E:.4e}" in text and f"damping = {damping:.3e}" in text
    peaks = []
    for rtol in ("1e-06", "1e-07"):
        t = text.replace("rtol = 1e-06 ", f"rtol = {rtol} ")
        ds = run_dynamics(load_study_text(t, file=name, registry=registry), registry=registry)
        peaks.append(float(ds["crank_moment_peak_per_revolution"][-1]))
    assert abs(peaks[0] - peaks[1]) < 1e-3 * peaks[1], (peaks, measured)
