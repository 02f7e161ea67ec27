"""The spatial wear loop's run control (issue 29): a stopped run continues from its store, and
every update checks its peak pressure against the softer part's hardness.

Rig: the tilted journal under a constant load of ``test_spatial_wear_map.py`` (helpers in
``spatial_wear_rig.py``), small maps (36 x 5 nodes) so that a run of ~10 updates takes a second.
"""
from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from workbench.errors import WorkbenchError
from workbench.models import Material
from workbench.wear.spatial_loop import run_spatial_wear
from workbench.wear.spatial_samples import constant_load_rig
from workbench.wear.validity import WearValidityWarning

from spatial_wear_rig import RPM, study

W, TILT = 2000.0, math.radians(0.05)


def _rig(registry, cycles=2000.0, **kw):
    return study(registry, nodes=36, z_nodes=5, cycles=cycles, depth_step=0.02, jump_control="history", **kw)


def _source():
    return constant_load_rig(W, TILT, RPM, 2)


def test_a_resumed_run_continues_as_if_never_stopped(registry, tmp_path):
    """Stopped after 4 of 7 updates (``max_updates = 4``; the history control's window is 4 rows) and continued with ``resume``: the same rows as an
    uninterrupted run -- the cycles, jumps and maps exactly (the maps and the jump control's
    history come back exactly), the standard errors to 1e-12 (stored as errors, restored as
    variances: one square root and one square apart)."""
    st = _rig(registry, cycles=1200.0)
    full = run_spatial_wear(st, out=tmp_path / "full.zarr", source=_source())
    assert len(full.cycle) >= 6 and str(full.attrs["run_status"]) == "complete"
    part = run_spatial_wear(st, out=tmp_path / "part.zarr", source=_source(), max_updates=4)
    assert len(part.cycle) == 4 and str(part.attrs["run_status"]).startswith("incomplete")
    res = run_spatial_wear(st, out=tmp_path / "part.zarr", source=_source(), resume=True)
    assert str(res.attrs["run_status"]) == "complete"
    np.testing.assert_array_equal(res.cycle.values, full.cycle.values)
    for name in ("wear_depth", "depth_increment", "wear_rate", "cycle_jump", "wear_volume"):
        np.testing.assert_array_equal(res[name].values, full[name].values, err_msg=name)
    for name in ("wear_depth_stderr", "wear_volume_stderr"):
        np.testing.assert_allclose(res[name].values, full[name].values, rtol=1e-12, atol=0.0, err_msg=name)


def test_a_resume_of_another_studys_store_is_refused(registry, tmp_path):
    st = _rig(registry)
    run_spatial_wear(st, out=tmp_path / "a.zarr", source=_source(), max_updates=1)
    other = dataclasses.replace(st.wear, depth_step=0.01)
    import types
    st2 = types.SimpleNamespace(mechanism=st.mechanism, wear=other, text="another rig", title="x")
    with pytest.raises(WorkbenchError, match="different study text"):
        run_spatial_wear(st2, out=tmp_path / "a.zarr", source=_source(), resume=True)


def _with_hardness(registry, H, **kw):
    st = _rig(registry)
    jt = dataclasses.replace(st.mechanism.spatial_clearance_joints[0],
                             material_i=Material(E=3e9, nu=0.35, hardness=H))
    st2 = _rig(registry, joint=jt, **kw)
    return st2


def test_each_update_checks_the_peak_pressure_against_the_hardness(registry, tmp_path):
    """``p_max/H`` per update as in the planar loop: stored as ``pressure_hardness_ratio``; above
    1/3 a warning (kept in the store's ``validity_warnings``), above ``hardness_limit`` the run
    stops with the limit's key in the message; without a hardness the ratio is NaN and a note
    says the checks were skipped."""
    plain = run_spatial_wear(_rig(registry), out=tmp_path / "plain.zarr", source=_source(), max_updates=1)
    assert np.isnan(plain.pressure_hardness_ratio.values).all()
    assert "no material hardness" in plain.attrs["validity_notes"]
    p = float(plain.peak_pressure.values[0, 0])
    with pytest.warns(WearValidityWarning, match="beyond Archard's range"):
        ds = run_spatial_wear(_with_hardness(registry, 2.0 * p), out=tmp_path / "h.zarr", source=_source(),
                              max_updates=1)
    assert float(ds.pressure_hardness_ratio.values[0, 0]) == pytest.approx(0.5, rel=1e-12)
    assert any("beyond Archard's range" in w for w in json.loads(ds.attrs["validity_warnings"]))
    with pytest.raises(WorkbenchError, match="hardness_limit = 10"):
        run_spatial_wear(_with_hardness(registry, p / 20.0), out=tmp_path / "stop.zarr", source=_source())


def _regimes(spread: float, noise: float):
    """The rig's source with the load switching between ``1 -+ spread`` of W from one update to
    the next (two dynamic regimes) and ``noise`` (relative, normal, seeded) on each averaging
    cycle's load: a within-update error far below the scatter between updates."""
    rng = np.random.default_rng(3)

    def source(run, n, tighten=1.0):
        scale = 1.0 + (spread if run.update % 2 else -spread)
        out = constant_load_rig(W * scale, TILT, RPM, 2)(run, n, tighten)
        for s in out.values():
            s.load = s.load * np.repeat(1.0 + noise * rng.standard_normal(n), 2)[:, None]
        return out
    return source


@pytest.mark.parametrize("control", ["history", "last_update"])
def test_history_control_widens_the_errors_to_the_scatter_between_updates(registry, tmp_path, control):
    """``jump_control = "history"`` widens an update's rate errors to the scatter of the rates
    between updates (:func:`workbench.wear.history.with_scatter`, the planar loop's rule): on
    +-15 % load regimes with 1 % noise within an update, the volume-rate error of the updates with
    two before them is the regimes' size (asserted > 5 % of the rate); without the history
    (``last_update``) it stays the within-update error (asserted < 2 %)."""
    st = study(registry, nodes=36, z_nodes=5, cycles=1500.0, depth_step=0.02, jump_control=control,
               average_cycles=8, max_average_cycles=8)
    ds = run_spatial_wear(st, out=tmp_path / f"{control}.zarr", source=_regimes(0.15, 0.01), max_updates=5)
    rel = (ds.volume_rate_stderr / ds.volume_rate).isel(joint=0, surface=0).values
    assert len(rel) >= 4
    assert np.all(rel[:2] < 0.02)       # no history yet: the within-update error
    if control == "history":
        assert np.all(rel[2:] > 0.05), rel
    else:
        assert np.all(rel[2:] < 0.02), rel


def test_a_store_from_before_a_new_row_variable_resumes_in_its_own_format(registry, tmp_path):
    """A store written before the rows gained a variable (here the per-cycle statistics and the
    sliding maps, dropped from the first rows) is resumed: the new rows keep the store's variables,
    and the run completes (a 10^6-cycle run started by an older version is not lost)."""
    import xarray as xr

    from workbench.wear.store import WearStore
    st = _rig(registry, cycles=600.0)
    run_spatial_wear(st, out=tmp_path / "a.zarr", source=_source(), max_updates=2)
    old = xr.open_zarr(tmp_path / "a.zarr", consolidated=False).load()
    drop = ["peak_contact_force", "peak_contact_force_stderr", "impacts_per_cycle", "impacts_per_cycle_stderr",
            "sliding_distance", "sliding_increment"]
    store = WearStore(tmp_path / "b.zarr")
    store.create(old.isel(cycle=[0]).drop_vars(drop).assign_attrs(old.attrs))
    store.append(old.isel(cycle=[1]).drop_vars(drop))
    store.set_attrs(run_status="incomplete (resume with --resume)")
    res = run_spatial_wear(st, out=tmp_path / "b.zarr", source=_source(), resume=True)
    assert str(res.attrs["run_status"]) == "complete" and len(res.cycle) > 2
    assert not set(drop) & set(res.data_vars)


def test_spatial_rows_carry_the_per_cycle_statistics_the_trends_read(registry, tmp_path):
    """Each row holds the per-cycle peak contact force (mean and standard error over the
    averaging cycles: the rig's load with 1 % noise per cycle, so the mean is the load within its
    error) and the contact starts per cycle (NaN: the rig records none); ``trends`` reads a spatial
    store (no nominal radii: the clearance-relative columns are NaN) and fits the volume rate and
    the stored maxima on the deepest wear."""
    from workbench.wear.trends import trends
    ds = run_spatial_wear(_rig(registry, cycles=600.0), out=tmp_path / "t.zarr", source=_regimes(0.0, 0.01))
    f, se = ds.peak_contact_force.values, ds.peak_contact_force_stderr.values
    # the error is of the noise's order (1 % per cycle over 4-8 cycles; the AR(1) factor, from each
    # series' own lag-1 autocorrelation over so few cycles, inflates it up to a few times: measured
    # 0.1-2.3 % of W), not of the load's
    assert np.all(se > 0.0) and np.all(np.abs(f - W) < 4.0 * se) and np.all(se < 0.05 * W)
    assert np.all(np.isnan(ds.impacts_per_cycle.values))
    tr = trends(ds).isel(joint=0)
    assert np.isfinite(float(tr.volume_rate_slope)) and np.isfinite(float(tr.peak_pressure_slope))
    assert np.isnan(float(tr.wear_fraction.isel(cycle=-1))) and float(tr.chain_shown) == 0.0
    # a constant load under Archard wears at a rate nearly flat in the depth (the arc widens a little)
    rate0 = float(tr.volume_rate.isel(cycle=0))
    assert abs(float(tr.volume_rate_slope)) * float(tr.deepest_wear.max()) < 0.05 * rate0


def test_the_spatial_loop_runs_inside_the_store_session(registry, tmp_path):
    """``run_spatial_wear`` is the store session's (``session.guarded``, as the planar loop): a
    user's file at ``-o`` is refused before any work, byte for byte unchanged (``--overwrite``
    too), and the keywords the study kind passes (``overwrite``, ``note``) are taken."""
    user = tmp_path / "mine.zarr"
    user.write_bytes(b"a user's file")
    for kw in ({}, {"overwrite": True}):
        with pytest.raises(WorkbenchError):
            run_spatial_wear(_rig(registry), out=user, source=_source(), max_updates=1, **kw)
        assert user.read_bytes() == b"a user's file"
    ds = run_spatial_wear(_rig(registry), out=tmp_path / "ours.zarr", source=_source(), max_updates=1,
                          overwrite=False, note=lambda m: None)
    assert len(ds.cycle) == 1
