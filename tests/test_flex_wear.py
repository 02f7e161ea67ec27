"""Flexible beams in the wear loop: validate, the E -> infinity check for wear, and resume.

Rig: the shipped wear studies ``studies/flexible_slider_crank_wear.toml`` (rod of 6 ANCF cable
elements) and its rigid-rod twin ``studies/slider_crank_wear_c020_rigid_rod.toml``, run at 1000 rpm
with a constant 2 kN force pushing the slider towards the crank (a compressor's gas force): the rod
stays in compression, the journal stays on the bushing (no impacts after the start), and each
cycle repeats the last, so the wear rate is deterministic and the comparison sharp.  The inertia
forces (about 0.35 kg x 105^2 rad^2/s^2 x 0.05 m = 190 N) stay below the load.

E -> infinity: the flexible rod shortens by F L / (E A) = 2000 x 0.12 / (207e9 x 2.24e-4) = 5.2 um at
207 GPa, a strain of 4.3e-5; the contact load and the sliding distance, hence the Archard wear rate
(Wang & Liu (2015) eq. 13-14), move by relative amounts of that order.  The flexible wear rate
must approach the rigid one as 1/E: within 2e-3 at 207 GPa and 10 times closer than at 20.7 GPa
(within the slack of the integrators' own errors).  Measured: volume rate 3.6103e-15 m^3/cycle
rigid, relative differences 8.5e-5 at 207 GPa and 9.4e-4 at 20.7 GPa (ratio 11: first order in 1/E).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from workbench.errors import StudyError
from workbench.study import load_study_text
from workbench.wear.loop import run_wear_study

ROOT = Path(__file__).resolve().parents[1]
FLEX = ROOT / "studies" / "flexible_slider_crank_wear.toml"
RIGID = ROOT / "studies" / "slider_crank_wear_c020_rigid_rod.toml"
C020 = ROOT / "studies" / "flexible_slider_crank_c020.toml"

GAS = '''[[mechanism.forces]]
name = "gas"
type = "force"
body = "slider"
point = "B"
force = [-2000.0, 0.0]     # N

[[mechanism.clearance_joints]]'''

LOADED = {
    "speed_rpm = 5000.0": "speed_rpm = 1000.0",
    "[[mechanism.clearance_joints]]": GAS,
    "average_cycles = 8\n": "average_cycles = 2\n",
    "max_average_cycles = 8": "max_average_cycles = 2",
    "samples_per_cycle = 720": "samples_per_cycle = 360",
    "cycles = 1.0e6": "cycles = 2.0e4",
    "wear_coefficient = 2.0e-17": "wear_coefficient = 1.0e-16",
}


def _text(path: Path, **more) -> str:
    text = path.read_text()
    for old, new in {**LOADED, **more}.items():
        assert old in text, (path.name, old)
        text = text.replace(old, new, 1)
    return text


def loaded(path: Path, registry, **more):
    return load_study_text(_text(path, **more), file=path, registry=registry)


def stiff(E: float) -> dict:
    """Replacements giving the flexible rod modulus ``E`` [Pa] (damping kept at 5 % of its axial mode)."""
    beta = 1.368e-05 * math.sqrt(6.0e9 / E)
    return {"E = 6.0e+9                 # Pa": f"E = {E:.6e}   # Pa",
            "damping = 1.368e-05": f"damping = {beta:.6e}"}


def rate(ds, row: int = 0):
    """Bushing volume rate [m^3/cycle], its standard error, and the rate profile [m/cycle] of a row."""
    r = ds.isel(cycle=row).sel(joint="B", surface="bushing")
    return float(r.volume_rate), float(r.volume_rate_stderr), np.asarray(r.wear_rate.values)


def test_validate_accepts_a_flexible_wear_study_and_refuses_what_run_refuses(registry):
    from workbench.study import load_study
    study = load_study(FLEX, registry=registry)
    assert study.mechanism.beams[0].E == 6.0e9 and study.wear.settle_cycles >= 1
    text = FLEX.read_text()
    assert "Start-up protocol" in text
    # the dynamics' own pressure re-evaluates the contact on rigid bodies' samples: refused
    bad = text.replace('pressure = { model = "approximate_area", distribution = "elliptical" }',
                       'pressure = { model = "dynamics" }')
    with pytest.raises(StudyError) as info:
        load_study_text(bad, file=FLEX, registry=registry)
    assert "flexible_slider_crank_wear.toml" in str(info.value) and "wear.pressure.model" in str(info.value)
    assert "flexible beams" in str(info.value)
    # a worn translational joint: refused, naming the joint
    c020 = C020.read_text()
    guide = c020[c020.index('[[mechanism.clearance_joints]]\nname = "guide"'):c020.index("[solver]")]
    i = text.index('[[mechanism.joints]]\nname = "guide"')
    j = text.index("[[mechanism.drivers]]")
    two = (text[:i] + text[j:]).replace("[solver]", guide + "[solver]", 1).replace('joints = ["B"]', 'joints = ["B", "guide"]')
    with pytest.raises(StudyError, match="'guide' is translational: worn translational joints run with rigid bodies only"):
        load_study_text(two, file=FLEX, registry=registry)


@pytest.fixture(scope="module")
def flexible_full(tmp_path_factory):
    """The loaded flexible study (207 GPa rod), run to its end: update 0 wears, the final row re-measures."""
    from workbench.plugins import build_registry
    reg = build_registry()
    st = loaded(FLEX, reg, **stiff(207e9))
    out = tmp_path_factory.mktemp("flexwear") / "full.zarr"
    return st, reg, run_wear_study(st, registry=reg, out=out)


@pytest.mark.slow   # three flexible wear updates of 3 cycles: ~2.5 min on a loaded 2-core machine
def test_stiff_flexible_rod_reproduces_the_rigid_wear_rate(flexible_full, registry, tmp_path):
    _, _, flex = flexible_full
    rigid = run_wear_study(loaded(RIGID, registry), registry=registry, out=tmp_path / "rigid.zarr", max_updates=1)
    soft = run_wear_study(loaded(FLEX, registry, **stiff(20.7e9)), registry=registry,
                          out=tmp_path / "soft.zarr", max_updates=1)
    vr, se_r, pr = rate(rigid)
    vf, se_f, pf = rate(flex)
    vs, _, ps = rate(soft)
    assert int(flex.impacts.isel(cycle=0).sel(joint="B")) == 0          # the journal stays on the bushing
    assert vr > 0.0
    d_stiff, d_soft = abs(vf - vr) / vr, abs(vs - vr) / vr
    print(f"volume rate rigid {vr:.6e} +- {se_r:.2e}, 207 GPa {vf:.6e} ({d_stiff:.2e}), 20.7 GPa {vs:.6e} "
          f"({d_soft:.2e}) m^3/cycle")
    # within the standard errors where the cycles scatter, else within the O(F/EA) bound above
    assert abs(vf - vr) <= 2 * math.hypot(se_r, se_f) + 2e-3 * vr
    assert d_stiff < 0.2 * d_soft + 2e-4          # converging as 1/E (the slack: integrators' errors)
    # the rate profiles (where the bushing wears) agree the same way
    scale = np.abs(pr).max()
    assert np.abs(pf - pr).max() < 0.02 * scale
    assert np.abs(pf - pr).max() < np.abs(ps - pr).max() + 1e-3 * scale


@pytest.mark.slow   # two more flexible wear updates: ~2 min on a loaded 2-core machine
def test_flexible_wear_resume_equals_uninterrupted(flexible_full, tmp_path):
    st, reg, full = flexible_full
    assert full.attrs["run_status"] == "complete" and full.sizes["cycle"] >= 2
    out = tmp_path / "part.zarr"
    part = run_wear_study(st, registry=reg, out=out, max_updates=1)
    assert part.sizes["cycle"] == 1 and part.attrs["run_status"].startswith("incomplete")
    res = run_wear_study(st, registry=reg, out=out, resume=True)
    assert res.attrs["run_status"] == "complete"
    assert res.sizes["cycle"] == full.sizes["cycle"]
    for name in ("wear_depth", "wear_volume", "peak_pressure", "cycle_jump", "sliding_distance",
                 "wear_volume_stderr", "wear_depth_stderr", "average_cycles", "volume_rate"):
        np.testing.assert_array_equal(res[name].values, full[name].values, err_msg=name)
    np.testing.assert_array_equal(res.cycle.values, full.cycle.values)
