"""Flexible beams in the wear loop: validate, the E -> infinity check for wear, and resume.

The last test repeats the E -> infinity check with impacts (the shipped studies as they are, 5000 rpm),
statistically: within two standard errors of the difference.

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
from workbench.study.load import load_study_text
from workbench.wear.loop import run_wear_study

ROOT = Path(__file__).resolve().parents[2]
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
    from workbench.study.load import load_study
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
    two = (text[:i] + text[j:]).replace("[solver]", guide + "[solver]", 1)
    two = two.replace('joints = ["B"]', 'joints = ["B", "guide"]')
    with pytest.raises(StudyError, match="'guide' is translational: worn translational joints run with rigid bodies"):
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


def test_a_beam_end_journal_sees_the_worn_bushing_as_the_rigid_rod_does(registry):
    """The flexible contact takes the worn profiles through the rigid path's own worn-gap kernels:
    at the same state (rod straight along x, slider pushed off centre) the penetration at the
    rod's end equals the rigid twin's, worn or not, and the wear opens the gap by the depth."""
    from workbench.flex.mechanism import FlexModel
    from workbench.flex.solver import assemble as flex_assemble
    from workbench.mbs.clearance import contact_gaps
    from workbench.mbs.compiled import compile_mechanism
    from workbench.mbs.solver import assemble as rigid_assemble
    from workbench.study.load import load_study
    flex, rigid = load_study(FLEX, registry=registry).mechanism, load_study(RIGID, registry=registry).mechanism
    M = 360
    theta = 2 * np.pi * np.arange(M) / M
    centre = np.arctan2(-0.05, -0.1)                       # the contact direction of the offset below
    bump = 20e-6 * np.cos(np.clip(theta - centre - 2 * np.pi * np.round((theta - centre) / (2 * np.pi)),
                                  -np.pi / 2, np.pi / 2)) ** 2
    pen = {}
    for worn in (False, True):
        surfaces = {0: (bump, np.zeros(M))} if worn else None
        fm = FlexModel(flex, surfaces=surfaces)
        q, v = flex_assemble(fm, 0.0)
        q[3:5] += (1e-4, 5e-5)                              # the slider (bushing) off the journal's centre
        g_flex = fm.gaps(q, np.zeros_like(v))[0]
        cm = compile_mechanism(rigid, surfaces=surfaces)
        md = cm.model()
        qr, _ = rigid_assemble(rigid, 0.0)
        qr[3:5] += (1e-4, 5e-5)                             # the slider: bodies crank, slider, rod
        g = np.zeros(max(cm.n_points, 1)); gd = np.zeros_like(g)
        contact_gaps(np.concatenate([qr, np.zeros_like(qr)]), len(qr), md.clr_i, md.clr_f, g, gd)
        np.testing.assert_allclose(g_flex, g[:cm.n_points], rtol=0, atol=1e-12)
        pen[worn] = float(g_flex[0])
    assert pen[False] == pytest.approx(math.hypot(1e-4, 5e-5) - 2e-4, abs=1e-12)
    assert pen[True] == pytest.approx(pen[False] - 20e-6, abs=2e-7)     # the bump's depth (node spacing)


def test_the_wear_loop_runs_a_flexible_mechanism_on_the_flexible_solver(registry, tmp_path, monkeypatch):
    """One dispatch point: the ideal reference and every update's averaging cycles of a mechanism
    with beams go to the flexible solver, the update's with the current worn surfaces."""
    from workbench.flex import solver as flex_solver
    from workbench.study.load import load_study
    real, calls = flex_solver.simulate, []

    class Stop(Exception):
        pass

    def spy(mech, settings, **kw):
        calls.append((mech, settings, kw))
        if len(calls) == 1:                      # the ideal reference: run it (short: one settle + one cycle)
            return real(mech, settings, **kw)
        raise Stop                               # the first update: record what it was given, stop

    monkeypatch.setattr(flex_solver, "simulate", spy)
    study = load_study(FLEX, registry=registry)
    with pytest.raises(Stop):
        run_wear_study(study, registry=registry, out=tmp_path / "w.zarr")
    (ideal, _, kw0), (mech, s, kw1) = calls
    assert ideal.beams and not ideal.clearance_joints and not kw0
    assert mech is study.mechanism
    h_b, h_j = kw1["surfaces"][0]
    assert h_b.shape == (study.wear.nodes,) and not h_b.any() and not h_j.any()
    T = study.wear.cycle_period
    assert s.t_end == pytest.approx((study.wear.settle_cycles + study.wear.average_cycles) * T)
    assert s.output_step == pytest.approx(T / study.wear.samples_per_cycle)


@pytest.mark.slow   # one flexible wear update of 9 cycles with impacts + the rigid twin's: ~3 min
def test_very_stiff_rod_reproduces_the_rigid_impact_wear_rate_within_its_standard_errors(registry, tmp_path):
    """The shipped pair at 5000 rpm, where the journal impacts (tens of impacts per update): the
    first update's volume rate of a rod 100 times stiffer than steel agrees with the rigid rod's
    within two standard errors of the difference.  (Measured: 6.899e-16 +- 9.3e-18 against
    6.874e-16 +- 1.2e-17 m^3/cycle, 0.16 sigma.  A steel rod, 207 GPa, is not yet rigid for the
    impacts: its axial stiffness E A / L = 3.9e8 N/m is below the Lankarani-Nikravesh contact's
    tangent stiffness at the impact loads (about 6e8 N/m at 5 kN), its peak force falls to 5.0 kN
    from 12.6 kN and its volume rate to 6.380e-16 +- 6e-19 m^3/cycle, 4 sigma below the rigid rod's.)"""
    from workbench.study.load import load_study
    rigid = run_wear_study(load_study(RIGID, registry=registry), registry=registry, out=tmp_path / "r.zarr",
                           max_updates=1)
    text = FLEX.read_text()
    for old, new in stiff(207e11).items():
        assert old in text
        text = text.replace(old, new, 1)
    flex = run_wear_study(load_study_text(text, file=FLEX, registry=registry), registry=registry,
                          out=tmp_path / "f.zarr", max_updates=1)
    vr, se_r, _ = rate(rigid)
    vf, se_f, _ = rate(flex)
    print(f"volume rate rigid {vr:.4e} +- {se_r:.2e}, 20700 GPa {vf:.4e} +- {se_f:.2e} m^3/cycle")
    assert int(rigid.impacts.isel(cycle=0).sel(joint="B")) > 10 and int(flex.impacts.isel(cycle=0).sel(joint="B")) > 10
    assert 0.0 < se_r < 0.05 * vr and 0.0 < se_f < 0.05 * vf     # the cycles scatter: real error bars
    assert abs(vf - vr) <= 2.0 * math.hypot(se_r, se_f)


def _store(volume, vol_se, depth, depth_se, cycles=1.0e6):
    import xarray as xr
    M = len(depth)
    d = np.zeros((2, 1, 2, M)); d[1, 0, 0] = depth
    ds_ = np.zeros((2, 1, 2, M)); ds_[1, 0, 0] = depth_se
    v = np.zeros((2, 1, 2)); v[1, 0, 0] = volume
    vs = np.zeros((2, 1, 2)); vs[1, 0, 0] = vol_se
    dims = ("cycle", "joint", "surface", "theta")
    return xr.Dataset({"wear_depth": (dims, d), "wear_depth_stderr": (dims, ds_), "wear_volume": (dims[:3], v),
                       "wear_volume_stderr": (dims[:3], vs), "cycle_jump": ("cycle", [cycles, 0.0])},
                      coords={"cycle": [0.0, cycles], "joint": ["B"], "surface": ["bushing", "journal"],
                              "theta": np.arange(M)})


def test_comparison_of_two_wear_results_gives_differences_errors_and_significance():
    from workbench.errors import WorkbenchError
    from workbench.wear.flex_compare import compare, table
    a = _store(1.0e-9, 3e-11, np.array([1e-6, 2e-6, 0.0, 0.0]), np.array([1e-7, 1e-7, 0.0, 0.0]))
    b = _store(1.1e-9, 4e-11, np.array([1e-6, 1e-6, 3e-6, 0.0]), np.array([1e-7, 1e-7, 2e-7, 0.0]))
    r = compare(a, b)
    assert r["volume"]["d"] == pytest.approx(1e-10) and r["volume"]["se_d"] == pytest.approx(5e-11)
    assert not r["volume"]["significant"]                      # 2.0 sigma: not above 2
    assert r["deepest"]["d"] == pytest.approx(1e-6) and r["deepest"]["se_d"] == pytest.approx(math.hypot(1e-7, 2e-7))
    assert r["deepest"]["significant"]                         # 4.5 sigma
    d = np.array([0.0, -1e-6, 3e-6, 0.0])
    se = np.hypot([1e-7, 1e-7, 0.0, 0.0], [1e-7, 1e-7, 2e-7, 0.0])
    assert r["profile"]["d"] == pytest.approx(np.sqrt(np.mean(d ** 2)))
    assert r["profile"]["se_d"] == pytest.approx(np.sqrt(np.mean(se ** 2)))
    assert r["profile"]["significant"]
    assert "| volume [mm^3] | 1 ± 0.03 | 1.1 ± 0.04 | +0.1 ± 0.05 | no |" in table(r)
    with pytest.raises(WorkbenchError, match="differ in cycles"):
        compare(a, _store(1e-9, 3e-11, np.zeros(4), np.zeros(4), cycles=5e5))
    with pytest.raises(WorkbenchError, match="no worn joint 'A'"):
        compare(a, b, joint="A")
