"""The jump control over the last updates (``jump_control = "history"``,
:func:`workbench.wear.statistics.trend_jump_limit`).

Oracles:

* straight-line least squares (Draper & Smith (1998) ch. 1): the slope of points on a line is
  recovered to rounding, the residual mean square of points about their line estimates the
  scatter;
* with two updates the control is the last-update control (:func:`jump_limit`), bit for bit;
* a rate that drifts linearly in the cycle count, ``r = r0 (1 + a N)``, changes by the relative
  amount ``a dN / (1 + a N)`` over a jump ``dN``: the control must hold that at the tolerance
  (``dN = tol (1 + a N) / a``), as the last-update control does;
* a rate that switches at random between two levels (+-15 % about a constant mean, the two
  dynamic regimes of the worn five-bar), with small within-update standard errors, has no trend:
  the jumps must stay at the depth-step cap, where the last-update control collapses them.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from workbench.study.load import load_study, load_study_text
from workbench.wear import statistics as st
from workbench.wear.loop import run_wear_study

M = 200
THETA = np.linspace(0.0, 2.0 * np.pi, M, endpoint=False)
MU = 1e-12 * (0.2 + np.exp(-((THETA - np.pi) / 0.4) ** 2))     # a worn-bore-like profile [m/cycle]


def drive(control: str, rate, cap: float, updates: int, tol: float = 0.1) -> np.ndarray:
    """The loop's jump choice (``workbench.wear.loop.choose_jump``) on a synthetic rate: each update
    measures ``rate(k, N) -> (profile, stderr)`` at ``N`` cycles and jumps ``min(cap, limit)``."""
    N, hist, prev, jumps = 0.0, [], 0.0, []
    for k in range(updates):
        r, se = rate(k, N)
        hist = (hist + [(N, r, se)])[-st.HISTORY_UPDATES:]
        if len(hist) < 2:
            lim = math.inf
        elif control == "last_update":
            lim = st.jump_limit(r, se, hist[-2][1], hist[-2][2], prev, tol)
        else:
            lim = st.trend_jump_limit([h[0] for h in hist], [h[1] for h in hist], [h[2] for h in hist], prev, tol)
        dN = min(cap, max(1.0, math.floor(lim))) if math.isfinite(lim) else cap
        jumps.append(dN)
        N += dN
        prev = dN
    return np.array(jumps)


def telegraph(seed: int):
    """Two regimes, +-15 % about MU, drawn at random for each update; 3 % node noise between
    updates; within-update standard error 0.5 % (an update stays in its regime)."""
    rng = np.random.default_rng(seed)

    def rate(k, N):
        level = 1.15 if rng.random() < 0.5 else 0.85
        return MU * level * (1.0 + 0.03 * rng.standard_normal(M)), 0.005 * MU
    return rate


def test_two_updates_are_the_last_update_control():
    rng = np.random.default_rng(3)
    r0, r1 = MU, MU * (1.2 + 0.01 * rng.standard_normal(M))
    se0, se1 = 0.01 * MU, 0.02 * MU
    assert st.trend_jump_limit([5e3, 8e3], [r0, r1], [se0, se1], 3e3, 0.1) == \
        st.jump_limit(r1, se1, r0, se0, 3e3, 0.1)
    assert st.trend_jump_limit([5e3], [r0], [se0], 0.0, 0.1) == math.inf


def test_rate_trend_recovers_a_line_and_the_scatter_about_it():
    N = np.array([0.0, 1e4, 2.5e4, 3e4, 4.5e4])
    g = 1e-17 * np.sin(THETA)
    exact = st.rate_trend(N, [MU + g * n for n in N], [0.0 * MU] * 5)
    np.testing.assert_allclose(exact.slope, g, rtol=1e-9, atol=1e-12 * np.abs(g).max())
    assert exact.scatter2 <= 1e-20 * float(np.sum(MU ** 2)) and exact.dof == 3
    # scatter: 2000 replicates of 5 updates with independent node noise s about the line: the
    # residual mean square (per update, summed over nodes) averages M s^2
    rng = np.random.default_rng(0)
    s = 0.05 * MU
    est = [st.rate_trend(N, [MU + g * n + s * rng.standard_normal(M) for n in N], [0.0 * MU] * 5).scatter2
           for _ in range(2000)]
    assert np.mean(est) == pytest.approx(float(np.sum(s ** 2)), rel=0.02)


@pytest.mark.parametrize("seed", range(5))
def test_regime_switches_do_not_collapse_the_jumps(seed):
    """(a) 60 updates at a depth-step cap of 1000 cycles: the trend control keeps the mean jump
    >= 95 % of the cap (measured 98.8-100 % over the 5 seeds), and the last 10 jumps at the cap;
    the last-update control, fed the same rates, collapses (mean 5-25 % of the cap measured;
    asserted < 50 %: the test can tell the two apart)."""
    cap = 1000.0
    old = drive("last_update", telegraph(seed), cap, 60)
    new = drive("history", telegraph(seed), cap, 60)
    assert new.mean() >= 0.95 * cap and np.all(new[-10:] == cap)
    assert old.mean() < 0.5 * cap


def test_linear_drift_is_followed_as_before():
    """(b) ``r = MU (1 + a N)`` with a = 1e-4 /cycle and 0.1 % noise: both controls shrink the
    first jump from the cap (1e5) to ``tol (1 + a N) / a`` = 11 000 cycles and then let it grow
    with ``1 + a N``; the true relative change of the rate over every later jump is within 3 % of
    the tolerance (measured <= 1 %), and the two controls agree within 2 % jump by jump."""
    a, tol = 1e-4, 0.1
    jumps = {}
    for control in ("last_update", "history"):
        rng = np.random.default_rng(0)

        def rate(k, N):
            return MU * (1.0 + a * N) * (1.0 + 0.001 * rng.standard_normal(M)), 0.001 * MU * (1.0 + a * N)
        jumps[control] = drive(control, rate, 1e5, 12, tol)
    new = jumps["history"]
    N = np.concatenate([[0.0], np.cumsum(new)])[:-1]
    change = a * new / (1.0 + a * N)               # relative change of the true rate over each jump
    assert new[0] == 1e5 and new[1] == pytest.approx(tol * (1 + a * 1e5) / a, rel=0.02)
    np.testing.assert_allclose(change[1:], tol, rtol=0.03)
    np.testing.assert_allclose(new, jumps["last_update"], rtol=0.02)


def test_a_trend_within_the_scatter_does_not_limit_but_a_significant_one_does():
    """Three updates whose third sits 30 % off a flat line (one regime switch): the fitted slope
    is not significant against its one-degree-of-freedom scatter (t_0.975 = 12.7), the jump is
    left to the depth step.  The same slope on five updates on a line is significant and limits."""
    N = [0.0, 1e4, 2e4]
    se = [0.005 * MU] * 3
    assert st.trend_jump_limit(N, [MU, MU, 1.3 * MU], se, 1e4, 0.1) == math.inf
    N5 = [0.0, 1e4, 2e4, 3e4, 4e4]
    lim = st.trend_jump_limit(N5, [MU * (1 + 1.5e-5 * n) for n in N5], [0.005 * MU] * 5, 1e4, 0.1)
    # slope 1.5e-5 MU per cycle; noise of the slope sum(x_i^2 ||se||^2) / Sxx^2 with Sxx = 1e9 cycles^2
    g2 = (1.5e-5) ** 2 * float(np.sum(MU ** 2))
    noise = float(np.sum((0.005 * MU) ** 2)) * sum(x ** 2 for x in (-2e4, -1e4, 0, 1e4, 2e4)) / 1e9 ** 2
    assert lim == pytest.approx(0.1 * np.linalg.norm(MU * 1.6) / math.sqrt(g2 - noise), rel=1e-9)



def test_errors_widen_to_the_scatter_between_updates_never_narrow():
    """``scatter_factor`` scales an error up to the residual scatter, never down; on the telegraph
    rates (+-15 % regimes, within-update error 0.5 %) the widened profile error of 5 updates
    estimates the real spread of one update's rate about the mean (15 % of ||MU|| and the 3 % node
    noise: 15.3 %), within the spread of a 3-degree-of-freedom estimate (asserted: the mean over
    400 windows within 10 %, measured +1.1 %)."""
    assert st.scatter_factor(4.0, [1.0]) == 2.0 and st.scatter_factor(0.25, [1.0]) == 1.0
    assert st.scatter_factor(math.nan, [1.0]) == 1.0 and st.scatter_factor(4.0, [0.0]) == 1.0
    rate = telegraph(7)
    N = [0.0, 1e3, 2e3, 3e3, 4e3]
    widened = []
    for _ in range(400):
        rows = [rate(k, n) for k, n in enumerate(N)]
        trend = st.rate_trend(N, [r for r, _ in rows], [se for _, se in rows])
        widened.append(np.linalg.norm(rows[-1][1]) * st.scatter_factor(trend.scatter2, rows[-1][1]))
    true = math.sqrt(0.15 ** 2 + 0.03 ** 2 * (1 + 0.15 ** 2)) * np.linalg.norm(MU)
    assert np.mean(np.square(widened)) ** 0.5 == pytest.approx(true, rel=0.10)

# ------------------------------------------------------------------------------ in the wear loop
ROOT = Path(__file__).resolve().parents[2]
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"
FIVE_BAR = ROOT / "studies" / "five_bar_wear_distributed.toml"


def _study(path: Path, registry, **replace):
    text = path.read_text()
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    return load_study_text(text, file=path, registry=registry)


# Slow (~18 s on 2 cores: 21 wear updates of the rig): the default suite keeps the history control
# through the synthetic trend tests above and the spatial rig's
# tests/wear/test_spatial_wear_resume.py::test_history_control_widens_the_errors_to_the_scatter_between_updates,
# and the bit-identical resume through tests/wear/test_wear_loop.py::test_resume_after_stop_equals_uninterrupted.
@pytest.mark.slow
def test_history_control_follows_the_rig_and_resumes_bit_identical(registry, tmp_path):
    """The constant-load rig (a steady contact: its rate drifts only as the bore conforms) with a
    1 % depth step and jump_tolerance 0.003, where the control limits the jumps: the trend control
    jumps as the last-update control does (47-48 cycles after the first, measured; asserted within
    5 %), and reading the last 5 rows, a run stopped after 3 updates and resumed ends with the same
    jumps and depths as an uninterrupted one."""
    rig = {"depth_step = 0.05 ": 'depth_step = 0.01\njump_tolerance = 0.003\njump_control = "history"\n#'}
    st_ = _study(RIG, registry, **rig)
    assert st_.wear.jump_control == "history"
    full = run_wear_study(st_, registry=registry, out=tmp_path / "full.zarr", max_updates=7)
    last = run_wear_study(_study(RIG, registry, **{k: v.replace("history", "last_update") for k, v in rig.items()}),
                          registry=registry, out=tmp_path / "last.zarr", max_updates=7)
    limited = ~_capped(full, st_.wear.depth_step, st_.mechanism.clearance_joints[0].clearance, st_.wear.cycles)
    assert limited.sum() >= 3                                   # the control acts
    np.testing.assert_allclose(full.cycle_jump.values, last.cycle_jump.values, rtol=0.05)
    part = run_wear_study(st_, registry=registry, out=tmp_path / "part.zarr", max_updates=3)
    res = run_wear_study(st_, registry=registry, out=tmp_path / "part.zarr", resume=True, max_updates=4)
    assert part.sizes["cycle"] == 3 and res.sizes["cycle"] == full.sizes["cycle"] == 7
    for name in ("cycle_jump", "wear_depth", "wear_volume", "wear_volume_stderr"):
        np.testing.assert_array_equal(res[name].values, full[name].values, err_msg=name)


def _capped(ds, depth_step: float, clearance: float, cycles: float) -> np.ndarray:
    """Per update: True where the jump is the depth-step cap [1 of clearance [m]] or ends the run
    at ``cycles``."""
    deepest = ds.wear_rate.values[:, 0].max(axis=(1, 2))
    cap = np.floor(depth_step * clearance / deepest)
    jump = ds.cycle_jump.values
    end = jump + ds.cycle.values >= cycles                     # the jump that ends the run, and the final row
    return (jump >= cap) | end


@pytest.mark.slow
def test_five_bar_distributed_reaches_1e6_cycles(registry, tmp_path):
    """studies/five_bar_wear_distributed.toml as shipped, 10^6 cycles: the run completes, no update
    penetrates beyond the study's penetration_limit (the loop would have re-sampled and then
    stopped), and the jumps do not collapse: at most 2 updates (the first comparison, unworn
    against worn, has no scatter estimate yet) jump less than the depth-step cap.  Measured: 25
    updates, 1 below the cap, largest penetration 1.6 % of the clearance (limit 5 %), worn volume
    39.2 +- 0.9 mm^3, 290-740 s warm on 2 shared cores.  The worn updates need the coupling's guard
    against sweeping a sample's pressure across a jump in force or patch count
    (workbench/wear/coupled.py): without it the first worn update stops on the load check."""
    st_ = load_study(FIVE_BAR, registry=registry)
    cfg = st_.wear
    ds = run_wear_study(st_, registry=registry, out=tmp_path / "f.zarr")
    clearance = st_.mechanism.clearance_joints[cfg.joints[0]].clearance
    capped = _capped(ds, cfg.depth_step, clearance, cfg.cycles)
    print(f"updates {ds.sizes['cycle']}, jumps {ds.cycle_jump.values.astype(int).tolist()}, "
          f"largest penetration {float(ds.max_penetration_ratio.max()):.4f} of the clearance")
    assert ds.attrs["run_status"] == "complete" and float(ds.cycle.values[-1]) == cfg.cycles
    assert float(ds.max_penetration_ratio.max()) <= cfg.penetration_limit
    assert int(np.sum(~capped[:-1])) <= 2
