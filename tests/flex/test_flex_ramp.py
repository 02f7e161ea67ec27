"""The speed-ramp start of a flexible mechanism (``[solver] ramp``): the ramp's driver, validation,
and the axial-mode ringing it avoids.

Rig: the shipped ideal-joint flexible slider-crank (``studies/flexible_slider_crank_ideal.toml``)
with the rod at E = 20 GPa and NO damping, one revolution at 5000 rpm.  Its axial mode with the
slider on the rod's end, omega = sqrt((E A / L) / (m_slider + m_rod / 3)), is 2124 Hz by that
estimate (measured: the spectral peak at 2.0 kHz), between the crank's 25th and 26th harmonics,
so the crank's own forcing hardly reaches it: what rings there is the start.  The consistent
start at full speed is a step of the inertia load; a ramp several axial periods long (4 ms here,
8 periods) is quasi-static for the mode.  Measured: amplitude of the mid-rod axial strain in the
1.5-3 kHz band 9.1e-4 (step start), 1.3e-4 (2 ms ramp), 4.9e-5 (4 ms ramp); the crank moment's
112, 17 and 6 N m.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.errors import StudyError
from workbench.flex.ramp import ramp_function
from workbench.flex.results import spectrum
from workbench.mbs.mechanism import DriverFunction
from workbench.kinds.dynamics_run import run_dynamics
from workbench.study.load import load_study_text

ROOT = Path(__file__).resolve().parents[2]
IDEAL = ROOT / "studies" / "flexible_slider_crank_ideal.toml"
RIGID = ROOT / "studies" / "ideal_slider_crank.toml"


def test_ramp_driver_rises_smoothly_to_the_study_driver():
    f = DriverFunction(polynomial=(0.3, 523.6))
    t0, tau = 0.01, 0.004
    r = ramp_function(f, t0, tau)
    # at rest at the start of the pre-roll, no acceleration
    assert abs(r(t0 - tau, 1)) < 1e-9 and abs(r(t0 - tau, 2)) < 1e-6
    # the study's driver at t_start: angle, speed and (zero) acceleration
    assert r(t0) == pytest.approx(f(t0), abs=1e-12)
    assert r(t0, 1) == pytest.approx(523.6, rel=1e-12) and abs(r(t0, 2)) < 1e-6
    # the speed omega (3x^2 - 2x^3) rises monotonically, half way at mid-ramp
    t = np.linspace(t0 - tau, t0, 41)
    w = r(t, 1)
    assert np.all(np.diff(w) >= -1e-9) and r(t0 - tau / 2, 1) == pytest.approx(0.5 * 523.6, rel=1e-12)


def test_ramp_is_refused_on_a_rigid_mechanism(registry):
    text = RIGID.read_text()
    assert "[solver]\n" in text
    with pytest.raises(StudyError) as info:
        load_study_text(text.replace("[solver]\n", "[solver]\nramp = 0.004\n", 1), file=RIGID, registry=registry)
    assert "solver.ramp" in str(info.value) and "flexible beams only" in str(info.value)
    with pytest.raises(StudyError, match="solver.ramp"):
        load_study_text(IDEAL.read_text().replace("[solver]\n", "[solver]\nramp = -1.0\n", 1), file=IDEAL,
                        registry=registry)


def _axial_ringing(registry, ramp: float):
    text = IDEAL.read_text()
    for old, new in {"E = 2.0000e+09": "E = 2.0e10", "damping = 2.370e-05": "damping = 0.0",
                     "revolutions = 2": "revolutions = 1", "[solver]\n": f"[solver]\nramp = {ramp}\n"}.items():
        assert old in text, old
        text = text.replace(old, new, 1)
    ds = run_dynamics(load_study_text(text, file=IDEAL, registry=registry), registry=registry)
    t = ds.time.values
    strain = np.linalg.norm(ds["beam_node_slope"].isel(beam=0, beam_node=3).values, axis=0) - 1.0
    f, a = spectrum(t, strain)
    _, am = spectrum(t, ds["driver_load"].isel(driver=0).values)
    band = (f > 1500.0) & (f < 3000.0)
    return float(a[band].max()), float(am[band].max()), float(f[band][np.argmax(a[band])])


def test_ramp_start_leaves_far_less_axial_ringing_than_the_step_start(registry):
    step, step_m, f_step = _axial_ringing(registry, 0.0)
    ramp, ramp_m, _ = _axial_ringing(registry, 0.004)
    print(f"axial-mode strain amplitude: step {step:.3e}, ramp {ramp:.3e}; "
          f"crank moment {step_m:.3g} / {ramp_m:.3g} N m")
    assert 1700.0 < f_step < 2400.0            # the ringing is the axial mode (estimate 2124 Hz)
    assert step > 3e-4                          # the step start rings (undamped) ...
    assert ramp < 0.15 * step                   # ... the ramp start hardly (measured 0.054)
    assert ramp_m < 0.15 * step_m
