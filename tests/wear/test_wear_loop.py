"""The wear loop against closed forms, its cycle-jump convergence, and resume.

Rig: ``studies/journal_wear_constant_load.toml`` — a rigid journal turning at constant speed in a
fixed Winkler-lined bushing under a constant radial load, frictionless.  Oracles from
``docs/validation.md``:

* Rigid journal in a Winkler-lined bushing: ``P = R k dR (eps - sin eps cos eps) / cos eps``,
  ``p = k (delta cos theta - dR)``, ``delta = dR / cos eps``.
* Wear bookkeeping: Archard's local form ``dh = k_d p ds`` over the arc removes
  ``k_d F s * (int p dtheta / int p cos theta dtheta)`` per sliding distance ``s``.
* Reye on Coulomb friction (constant mu, sliding far above v_eps) gives Archard's profiles with
  ``k_d = mu k_R``.
"""
from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import zarr
from scipy.optimize import brentq

from workbench.errors import StudyError, WorkbenchError
from workbench.study.load import load_study_text
from workbench.wear.loop import run_wear_study
from workbench.wear.store import COMPLETED, open_store

ROOT = Path(__file__).resolve().parents[2]
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"
RIG_TEXT = RIG.read_text()

# the rig's data (asserted below to be what the study file says)
F, R_B, R_J, B, K, KD = 2000.0, 0.01002, 0.0100, 0.01, 3.0e12, 1.0e-15
DR = R_B - R_J


def rig(registry, **replace):
    text = RIG_TEXT
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    return load_study_text(text, file=RIG, registry=registry)


def winkler_factor(force: float) -> tuple[float, float]:
    """Half-angle eps [rad] and arc factor int p / int p cos of the Winkler closed form."""
    P = force / B
    eps = brentq(lambda e: R_B * K * DR * (e - math.sin(e) * math.cos(e)) / math.cos(e) - P, 1e-9, 1.5)
    d = DR / math.cos(eps)
    num = 2 * d * math.sin(eps) - 2 * DR * eps
    den = d * (eps + math.sin(eps) * math.cos(eps)) - 2 * DR * math.sin(eps)
    return eps, num / den


def volume_rate(ds) -> float:
    """Bushing wear volume per cycle of the first update, linear (Archard) measure [m^3/cycle]."""
    rate = ds.wear_rate.isel(cycle=0).sel(surface="bushing").values[0]
    return B * R_B * (2 * math.pi / rate.size) * float(rate.sum())


def test_rig_file_holds_the_data_used_here(registry):
    st = load_study_text(RIG_TEXT, file=RIG, registry=registry)
    j = st.mechanism.clearance_joints[0]
    assert (j.bushing_radius, j.journal_radius, j.length) == (R_B, R_J, B)
    assert st.mechanism.forces[0].force == (0.0, -F)
    assert st.wear.pressure.params.stiffness == K and st.wear.law.params.wear_coefficient == KD


def test_archard_volume_equals_kd_F_s_times_the_arc_factor(registry, tmp_path):
    """docs/validation.md wear bookkeeping with the Winkler closed form (contact half-angle ~43 deg)."""
    ds = run_wear_study(rig(registry), registry=registry, out=tmp_path / "rig.zarr", max_updates=1)
    eps, factor = winkler_factor(F)
    s = 2 * math.pi * R_J                      # sliding distance per cycle (journal surface speed)
    expected = KD * F * s * factor
    assert 30 < math.degrees(eps) < 50 and factor > 1.03   # the factor is visible, not ~1
    # the dynamics carries the load exactly (steady, frictionless)
    assert ds.mean_contact_force.values[0, 0] == pytest.approx(F, rel=1e-6)
    # 720 nodes resolve the arc to ~(dtheta/eps)^2 = 1.4e-4 at worst (measured: 1.2e-6)
    assert volume_rate(ds) == pytest.approx(expected, rel=2e-4)
    # ... and it is not the global form k_d F s: the test can tell the two apart
    assert abs(volume_rate(ds) / (KD * F * s) - 1) > 0.03
    # the peak pressure is the closed form's k dR (1/cos eps - 1)
    assert ds.peak_pressure.values[0, 0] == pytest.approx(K * DR * (1 / math.cos(eps) - 1), rel=2e-4)


# --- pressure branch: approximate_area now carries F as a vector resultant ---------------------
def test_approximate_area_wear_volume_has_its_arc_factor(registry, tmp_path):
    """Wang & Liu (2015) eq. 22 spreads F over the Hertz arc; the nodal pressures carry F as a
    vector, so the local Archard form removes k_d F s times the arc factor int p / int p cos of the
    distribution: alpha / (2 J1(alpha)) for the default semi-elliptical one (here the Hertz
    half-angle is capped at 90 deg by the soft liner); 1e-4: the node hats' excess dtheta^2/8 and
    the dynamics' 1e-6 on the mean load."""
    from scipy.special import j1
    st = rig(registry, **{'pressure = { model = "winkler", stiffness = 3.0e12 }':
                          'pressure = { model = "approximate_area" }'})
    ds = run_wear_study(st, registry=registry, out=tmp_path / "aa.zarr", max_updates=1)
    alpha = math.pi / 2
    factor = alpha / (2 * j1(alpha))
    assert volume_rate(ds) == pytest.approx(KD * F * 2 * math.pi * R_J * factor, rel=1e-4)
# --- end pressure branch ------------------------------------------------------------------------


# Slow (~15 s, two wear runs): the default suite keeps Reye on the simulated friction work through
# tests/wear/test_wear_statistics.py::test_reye_uses_the_simulated_friction_work.
@pytest.mark.slow
def test_reye_on_coulomb_friction_gives_archard_profiles(registry, tmp_path):
    """Reye (Wang & Liu (2015) eq. 11-12) works on the friction the dynamics produces: on the rig
    with Coulomb friction mu = 0.2 the journal slides at ~0.63 m/s, 6000 times the regularisation
    speed, so tanh(v/v_eps) is 1 in floating point and |F_t| = mu F_n exactly: Reye with k_R equals
    Archard with k_d = mu k_R to rounding, update after update (the rig is steady, not chaotic)."""
    contact = 'contact = { model = "winkler_foundation", stiffness = 3.0e12, restitution = 0.3 }'
    fric = contact + '\nfriction = { model = "coulomb", mu = 0.2, v_eps = 1.0e-4 }'
    a = run_wear_study(rig(registry, **{contact: fric}), registry=registry, out=tmp_path / "a.zarr")
    st = rig(registry, **{contact: fric, 'law = { model = "archard", wear_coefficient = 1.0e-15 }':
                          'law = { model = "reye", wear_coefficient = 5.0e-15 }'})
    r = run_wear_study(st, registry=registry, out=tmp_path / "r.zarr")
    assert a.sizes["cycle"] == r.sizes["cycle"] >= 3
    # the first update sees identical dynamics: rounding only
    np.testing.assert_allclose(r.wear_rate.values[0], a.wear_rate.values[0], rtol=1e-12, atol=0.0)
    # later updates start from surfaces that differ by rounding; the adaptive integrator (rtol
    # 1e-8) may then take other steps, so the profiles agree to ~the solver tolerance (measured:
    # 1e-13 m on a 3e-8 m node, 1e-7 of the deepest wear); 1e-6 of the deepest wear is asserted
    h = float(a.max_wear_depth.values[-1].max())
    np.testing.assert_allclose(r.wear_depth.values, a.wear_depth.values, rtol=0.0, atol=1e-6 * h)
    assert h > 1e-6
    # without friction Reye has no friction work to wear with
    z = run_wear_study(rig(registry, **{'law = { model = "archard", wear_coefficient = 1.0e-15 }':
                                        'law = { model = "reye", wear_coefficient = 5.0e-15 }'}),
                       registry=registry, out=tmp_path / "z.zarr", max_updates=1)
    assert float(np.abs(z.wear_rate.values).max()) == 0.0


# Slow (three wear runs to 45 % of the clearance, ~35 s): the default suite keeps the cycle jump's
# convergence through tests/converge/test_converge.py::test_wear_rig_converges_under_every_knob.
@pytest.mark.slow
@pytest.mark.parametrize("study_key", ["rig"])
def test_halving_the_depth_step_converges(registry, tmp_path, study_key):
    """Halving the allowed depth step changes wear volume and profile by less than
    the stated tolerance.  The rig is worn to ~45 % of its clearance so the pressure redistributes
    (conformal wear) and the cycle jump matters.  Tolerances: volume 0.5 %, profile 2 % of the
    deepest wear between depth steps 5 % and 2.5 % of the clearance; the change must also shrink
    when the step is halved again (first-order convergence)."""
    runs = {}
    for step in (0.1, 0.05, 0.025):
        st = rig(registry, **{"cycles = 2000.0": "cycles = 20000.0",
                              "depth_step = 0.05            # <= 1 um per update": f"depth_step = {step}"})
        runs[step] = run_wear_study(st, registry=registry, out=tmp_path / f"s{step}.zarr")

    def final(ds):
        return (float(ds.wear_volume.isel(cycle=-1).sel(surface="bushing")[0]),
                ds.wear_depth.isel(cycle=-1).sel(surface="bushing").values[0])

    v = {s: final(ds) for s, ds in runs.items()}
    assert float(runs[0.025].cycle[-1]) == 20000.0
    hmax = v[0.025][1].max()
    assert hmax > 0.3 * DR
    dv1 = abs(v[0.1][0] - v[0.05][0]) / v[0.05][0]
    dv2 = abs(v[0.05][0] - v[0.025][0]) / v[0.025][0]
    dp1 = np.abs(v[0.1][1] - v[0.05][1]).max() / hmax
    dp2 = np.abs(v[0.05][1] - v[0.025][1]).max() / hmax
    print(f"volume change {dv1:.2e} -> {dv2:.2e}; profile change {dp1:.2e} -> {dp2:.2e}")
    assert dv2 < 5e-3 and dp2 < 2e-2
    assert dp2 < dp1


def test_resume_after_stop_equals_uninterrupted(registry, tmp_path):
    """Stopped after two updates, a crash's extra rows added, resumed: identical to the
    uninterrupted run.  The rig over 1500 cycles (six updates: two before the stop, four
    resumed; 2000 cycles, eight updates, until the default suite had to get back under 8 minutes
    on 2 cores) -- the resume still restores the state of a store with completed updates and
    continues over several updates."""
    st = rig(registry, **{"depth_step = 0.05            # <= 1 um per update": "depth_step = 0.02",
                          "cycles = 2000.0": "cycles = 1500.0"})
    full = run_wear_study(st, registry=registry, out=tmp_path / "full.zarr")
    out = tmp_path / "part.zarr"
    part = run_wear_study(st, registry=registry, out=out, max_updates=2)
    assert part.sizes["cycle"] == 2 and part.attrs["run_status"].startswith("incomplete")
    # a crash in the middle of the next append leaves extra rows in some arrays: resume trims them
    g = zarr.open_group(str(out), mode="r+")
    g["wear_depth"].append(np.full((1,) + g["wear_depth"].shape[1:], 7.0), axis=0)
    assert open_store(out).sizes["cycle"] == 2          # a reader sees whole updates only
    res = run_wear_study(st, registry=registry, out=out, resume=True)
    assert res.attrs["run_status"] == "complete"
    assert res.sizes["cycle"] == full.sizes["cycle"] > 4
    for name in ("wear_depth", "wear_volume", "peak_pressure", "cycle_jump", "sliding_distance",
                 "wear_volume_stderr", "wear_depth_stderr", "average_cycles"):
        np.testing.assert_array_equal(res[name].values, full[name].values, err_msg=name)
    np.testing.assert_array_equal(res.cycle.values, full.cycle.values)


# Slow (~40 s: a full and a killed-and-resumed command-line run): the default suite keeps resuming
# through test_resume_after_stop_equals_uninterrupted above and the kill-at-every-write-step
# fault injection of the wear store.
@pytest.mark.slow
def test_resume_of_a_killed_cli_run_equals_uninterrupted(registry, tmp_path):
    """Kill ``workbench run`` mid-run, ``--resume`` it, compare with a full run."""
    text = RIG_TEXT.replace("depth_step = 0.05            # <= 1 um per update", "depth_step = 0.01") \
                   .replace("cycles = 2000.0", "cycles = 6000.0")
    study = tmp_path / "rig.toml"
    study.write_text(text)
    full = run_wear_study(load_study_text(text, file=study, registry=registry), registry=registry,
                          out=tmp_path / "full.zarr")
    out = tmp_path / "killed.zarr"
    exe = [sys.executable, "-m", "workbench.cli.main", "run", str(study), "-o", str(out), "--no-plot"]
    proc = subprocess.Popen(exe, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            try:
                if int(zarr.open_group(str(out), mode="r").attrs.get(COMPLETED, 0)) >= 3:
                    break
            except Exception:  # noqa: BLE001 - the store does not exist yet
                pass
            time.sleep(0.02)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    killed_at = int(zarr.open_group(str(out), mode="r").attrs[COMPLETED])
    assert killed_at < full.sizes["cycle"], "the run finished before it could be killed"
    r = subprocess.run(exe + ["--resume"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    res = open_store(out)
    assert res.sizes["cycle"] == full.sizes["cycle"]
    np.testing.assert_array_equal(res.wear_depth.values, full.wear_depth.values)
    np.testing.assert_array_equal(res.cycle.values, full.cycle.values)


def test_resume_refuses_another_study(registry, tmp_path):
    out = tmp_path / "a.zarr"
    run_wear_study(rig(registry), registry=registry, out=out, max_updates=1)
    other = rig(registry, **{"cycles = 2000.0": "cycles = 3000.0"})
    with pytest.raises(WorkbenchError, match="different study"):
        run_wear_study(other, registry=registry, out=out, resume=True)
    with pytest.raises(WorkbenchError, match="no wear store"):
        run_wear_study(other, registry=registry, out=tmp_path / "none.zarr", resume=True)


def test_store_holds_units_provenance_and_profiles(registry, tmp_path):
    ds = run_wear_study(rig(registry), registry=registry, out=tmp_path / "p.zarr")
    for name in ("wear_depth", "radius", "wear_volume", "peak_pressure", "max_contact_force",
                 "output_deviation_rms", "dyn_contact_force"):
        assert "units" in ds[name].attrs and "long_name" in ds[name].attrs, name
    assert ds.wear_depth.dims == ("cycle", "joint", "surface", "theta")
    assert ds.radius.sel(surface="journal").values.max() == pytest.approx(R_J)   # journal unworn
    np.testing.assert_allclose(ds.radius.sel(surface="bushing").values,
                               R_B + ds.wear_depth.sel(surface="bushing").values)
    assert ds.attrs["study_text"] == RIG_TEXT and "archard" in ds.attrs["wear_law"]
    assert "winkler" in ds.attrs["plugins"]
    assert ds.attrs["engine"] == "compiled" and ds.attrs["engine_reason"].startswith("auto: ")
    assert np.all(np.diff(ds.wear_volume.sel(surface="bushing").values[:, 0]) > 0)
    # the wear sits under the load (bushing-frame angle -90 deg)
    th = ds.theta.values[np.argmax(ds.wear_depth.isel(cycle=-1).sel(surface="bushing").values[0])]
    assert math.isclose(th, 1.5 * math.pi, abs_tol=2 * math.pi / ds.sizes["theta"])


@pytest.mark.parametrize("snippet, key", [
    ('law = { model = "archard", wear_coefficient = 1.0e-15 }', "wear.law.model"),
    ('joints = ["J"]', "wear.joints[0]"),
    ('output_body = "journal"', "wear.output_body"),
    ("bushing_share = 1.0", "wear.bushing_share"),
])
def test_bad_wear_tables_name_file_and_key(registry, snippet, key):
    bad = {'law = { model = "archard", wear_coefficient = 1.0e-15 }': 'law = { model = "archad" }',
           'joints = ["J"]': 'joints = ["K"]',
           'output_body = "journal"': 'output_body = "jornal"',
           "bushing_share = 1.0": "bushing_share = 1.5"}[snippet]
    with pytest.raises(StudyError) as err:
        rig(registry, **{snippet: bad})
    assert err.value.key == key and str(RIG) in str(err.value)


def test_a_new_run_never_replaces_an_unfinished_store(registry, tmp_path):
    out = tmp_path / "u.zarr"
    run_wear_study(rig(registry), registry=registry, out=out, max_updates=1)
    with pytest.raises(WorkbenchError, match="--resume"):
        run_wear_study(rig(registry), registry=registry, out=out)
    assert open_store(out).sizes["cycle"] == 1       # what the run produced is still there
