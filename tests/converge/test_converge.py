"""``workbench converge``: a study re-run at tightened settings, its convergence table.

Dynamics: the Flores slider-crank (studies/flores_slider_crank.toml) cut to half a revolution, at
rtol 1e-6 (set here, so the test does not move with the shipped defaults).  Wear: the journal-wear
check rig (studies/journal_wear_constant_load.toml) over a few thousand cycles, whose wear volume
has a closed form (Archard's local form over the Winkler arc, see tests/wear/test_wear_loop.py).
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.converge.runner import (DYNAMICS_QUANTITIES, WEAR_QUANTITIES, converge_study,
                                first_impact_peak_force, write_table)
from workbench.errors import WorkbenchError
from workbench.mbs.solver import simulate
from workbench.results.dataset import ENGINE
from workbench.study.load import load_study_text

ROOT = Path(__file__).resolve().parents[2]
FLORES = ROOT / "studies" / "flores_slider_crank.toml"
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"


def flores_text() -> str:
    text = FLORES.read_text()
    text, n = re.subn(r"(?m)^\[solver\]\n(?:[^\[].*\n)*", "[solver]\nrevolutions = 0.5\nrtol = 1.0e-6\n"
                      "atol = 1.0e-9\n\n", text)
    assert n == 1
    return text


@pytest.fixture(scope="module")
def flores_table():
    from workbench.plugins import build_registry
    registry = build_registry()
    study = load_study_text(flores_text(), file=FLORES, registry=registry)
    return study, converge_study(study, registry=registry)


def test_dynamics_table_against_direct_runs(flores_table):
    """Rows rtol/10, rtol/100 (atol likewise) and output_step/2; every number re-computed here from
    independent runs of the solver: first impact, its peak force on the samples, number of impacts,
    and the trajectory change (largest distance between the body positions of the two runs)."""
    study, ds = flores_table
    assert list(ds["setting"].values) == ["rtol/10", "rtol/100", "output_step/2"]
    np.testing.assert_allclose(ds["setting_value"].values, [[1e-6, 1e-7], [1e-6, 1e-8], [1e-5, 5e-6]])
    import dataclasses
    base = simulate(study.mechanism, study.solver)
    tight = simulate(study.mechanism, dataclasses.replace(study.solver, rtol=1e-7, atol=1e-10))
    row = ds.sel(setting="rtol/10")
    assert row["first_impact_time"].values.tolist() == [base.impact_time[0], tight.impact_time[0]]
    assert row["impacts"].values.tolist() == [len(base.impact_time), len(tight.impact_time)]
    # peak of the first impact: the solver's impact table (located on the dense output), never
    # below the largest sampled force between its start and separation
    k = np.searchsorted(base.time, base.impact_time[0])
    f = base.contact_force[:, 0]
    sep = k + np.argmax(f[k:] == 0.0)
    assert row["first_impact_peak_force"].values[0] == base.impact_peak_force[0] == first_impact_peak_force(base)
    assert f[k - 1:sep].max() <= base.impact_peak_force[0] * (1 + 1e-12)
    assert f[k - 1:sep].max() > 1e3            # an impact of kilonewtons, not a graze
    d = np.hypot(*(base.position[:, :, c] - tight.position[:, :, c] for c in (0, 1))).max()
    assert float(row["trajectory_change"]) == pytest.approx(d, rel=1e-12)
    # the reference trajectory is the tightest run: its own distance is 0
    assert float(ds["trajectory"].sel(setting="rtol/100", run="tightened")) == 0.0
    # the first impact of a clearance joint converges long before the trajectory does
    for q in ("first_impact_time", "first_impact_velocity", "first_impact_peak_force"):
        assert bool(ds[f"{q}_converged"].sel(setting="rtol/10")), q


def test_dynamics_verdicts_follow_the_tolerances(flores_table):
    """A row is converged exactly when every change is within its stated tolerance; the output step
    only resamples the dense output (the fast path's steps do not depend on it): its row changes
    nothing but sample-based peaks."""
    _, ds = flores_table
    # every quantity the Flores study reports (not the per-revolution means: half a revolution)
    quantities = [q for q in DYNAMICS_QUANTITIES if f"{q.name}_change" in ds]
    assert [q.name for q in DYNAMICS_QUANTITIES if q not in quantities] == [
        "crank_moment_peak_revolution_mean", "dominant_frequency_revolution_mean"]
    for i, label in enumerate(ds["setting"].values):
        ok = all(float(ds[f"{q.name}_change"].values[i]) <= q.tolerance for q in quantities)
        assert (ds["verdict"].values[i] == "converged") == ok, label
        if not ok:
            assert all(q.name in ds["verdict"].values[i] for q in quantities
                       if float(ds[f"{q.name}_change"].values[i]) > q.tolerance)
    step = ds.sel(setting="output_step/2")
    for q in ("first_impact_time", "first_impact_velocity", "trajectory", "impacts"):
        assert float(step[f"{q}_change"]) <= 1e-12, q
    assert float(step["impact_sequence_differs"].sel(run="tightened")) == 0.0


def test_table_file_units_and_no_overwrite(flores_table, tmp_path):
    """netCDF with units and long_name on every variable; an existing file is never replaced (its
    bytes unchanged), and a missing directory is not created."""
    _, ds = flores_table
    out = write_table(ds, tmp_path / "table.nc")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.nc"]
    with xr.open_dataset(out, engine=ENGINE) as back:
        for name, var in back.data_vars.items():
            assert var.attrs.get("units") and var.attrs.get("long_name"), name
        np.testing.assert_array_equal(back["impacts"].values, ds["impacts"].values)
        assert back.attrs["study_kind"] == "dynamics" and "rtol" in back.attrs["study_text"]
    before = out.read_bytes()
    with pytest.raises(WorkbenchError, match="exists: converge never overwrites"):
        write_table(ds, out)
    assert out.read_bytes() == before
    with pytest.raises(WorkbenchError, match="does not exist"):
        write_table(ds, tmp_path / "nowhere" / "t.nc")
    assert not (tmp_path / "nowhere").exists()


def rig_volume_per_cycle() -> float:
    """Archard's local form over the Winkler closed-form arc (the rig's data, see test_wear_loop)."""
    from scipy.optimize import brentq
    F, R_B, R_J, B, K, KD = 2000.0, 0.01002, 0.0100, 0.01, 3.0e12, 1.0e-15
    DR = R_B - R_J
    eps = brentq(lambda e: R_B * K * DR * (e - math.sin(e) * math.cos(e)) / math.cos(e) - F / B, 1e-9, 1.5)
    d = DR / math.cos(eps)
    factor = (2 * d * math.sin(eps) - 2 * DR * eps) / (d * (eps + math.sin(eps) * math.cos(eps))
                                                       - 2 * DR * math.sin(eps))
    return KD * F * 2 * math.pi * R_J * factor


def test_wear_rig_converges_under_every_knob(registry, tmp_path):
    """The rig (steady, frictionless, Winkler pressure) over 700 cycles (--cycles; 1500, three
    updates per run, until the default suite had to get back under 8 minutes on 2 cores: now the
    base runs a jump and the final update, depth_step/2 two jumps, its first one limited by the
    depth step at 370 cycles, so every knob still changes the run): rows rtol/10,
    depth_step/2, samples_per_cycle*2, nodes*2, average_cycles*2; the base volume is the closed
    form (early wear, the arc has barely changed: 1 %), and every knob moves volume, deepest wear
    and profile by less than the stated tolerances (verdict converged), the nodes by more than
    rounding (the table sees a real change).  Through the CLI: table printed and written, nothing
    else written, an existing table refused before any run."""
    out = tmp_path / "rig.nc"
    runner = CliRunner(env={"COLUMNS": "160"})
    res = runner.invoke(main, ["converge", str(RIG), "-o", str(out), "--cycles", "700", "--tol", "profile=0.03"],
                        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "depth_step/2" in res.output and "converged" in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rig.nc"]
    with xr.open_dataset(out, engine=ENGINE) as ds:
        ds = ds.load()
    assert list(ds["setting"].values) == ["rtol/10", "depth_step/2", "samples_per_cycle*2", "nodes*2",
                                          "average_cycles*2"]
    assert ds.attrs["cycles_override"] == 700.0 and ds.attrs["run_status"] == "complete"
    assert ds["profile_change"].attrs["tolerance"] == 0.03 and "profile 0.03" in ds.attrs["tolerances"]
    assert ds["wear_volume_change"].attrs["tolerance"] == 0.01       # the others keep their defaults
    base = float(ds["wear_volume"].sel(setting="nodes*2", run="base"))
    assert base == pytest.approx(700 * rig_volume_per_cycle(), rel=1e-2)
    assert all(v == "converged" for v in ds["verdict"].values)
    assert float(ds["profile_change"].sel(setting="nodes*2")) > 1e-9
    for q in WEAR_QUANTITIES:
        assert np.all(ds[f"{q.name}_change"].values <= q.tolerance)
    before = out.read_bytes()
    res = runner.invoke(main, ["converge", str(RIG), "-o", str(out), "--cycles", "10"])
    assert res.exit_code == 2 and "never overwrites" in res.output
    assert out.read_bytes() == before


def test_bad_requests_are_clear_errors(tmp_path):
    """--cycles on a dynamics study, a non-positive --cycles, an unknown quantity or a bad value in
    --tol: exit status 2 and a message naming the option, the value and the valid choices; nothing
    runs."""
    runner = CliRunner()
    res = runner.invoke(main, ["converge", str(FLORES), "--cycles", "10"])
    assert res.exit_code == 2 and "--cycles shortens a wear study" in res.output
    res = runner.invoke(main, ["converge", str(RIG), "--cycles", "-1"])
    assert res.exit_code == 2 and "--cycles must be > 0" in res.output
    res = runner.invoke(main, ["converge", str(RIG), "--tol", "profle=0.1"])
    assert res.exit_code == 2 and "unknown quantity 'profle'" in res.output and "'profile'" in res.output
    res = runner.invoke(main, ["converge", str(RIG), "--tol", "profile=abc"])
    assert res.exit_code == 2 and "QUANTITY=VALUE" in res.output
    res = runner.invoke(main, ["converge", str(FLORES), "--tol", "trajectory=-1"])
    assert res.exit_code == 2 and "finite number >= 0" in res.output


def test_ctrl_c_keeps_the_settings_done(registry):
    """Ctrl-C during a later run: the table keeps the settings whose runs finished, and says where
    it stopped (the CLI prints and writes it, then exits with 130)."""
    from workbench.study.load import load_study

    def stop(label):
        if label == "samples_per_cycle*2":
            raise KeyboardInterrupt

    ds = converge_study(load_study(RIG, registry=registry), registry=registry, cycles=100, progress=stop)
    assert list(ds["setting"].values) == ["rtol/10", "depth_step/2"]
    assert ds.attrs["run_status"] == "interrupted during the samples_per_cycle*2 run: 2 of 5 settings done"
    assert np.all(np.isfinite(ds["wear_volume"].values))
