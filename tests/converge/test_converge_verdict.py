"""``workbench converge`` on statistical quantities: the verdict against the standard error of the
difference, and its common-error accounting (synthetic stores, fast).

Oracles: for two independent normal estimates of the same value, ``|a - b| > 2 sqrt(se_a^2 +
se_b^2)`` has probability ``erfc(2 / sqrt(2)) = 4.55 %``; a shared error term cancels in the
difference, so its variance loses ``2 cov``.  Both are checked by Monte Carlo on stores built as
the wear loop builds them (cumulative depth and volume, variances of the updates added).
"""
from __future__ import annotations

import dataclasses
import io
import math

import numpy as np
import pytest
import xarray as xr
from rich.console import Console

from workbench.converge import verdict as cv
from workbench.converge.runner import WEAR_KNOBS, WEAR_QUANTITIES, print_table, table_dataset, write_table
from workbench.results.dataset import ENGINE

LEVEL = math.erfc(2.0 / math.sqrt(2.0))     # 0.0455: P(|N(0,1)| > 2)


def store(rates, rate_se, jumps, averaging=None, vol_factor=1e-6):
    """A wear store as the loop writes it: rows k = 0..K (the last one wears nothing) of one joint;
    ``rates`` (K, M) bushing depth per cycle [m/cycle] with standard errors ``rate_se`` (K, M),
    ``jumps`` (K,) cycle jumps; the journal wears nothing; volume rate = ``vol_factor`` * sum of
    the rate profile [m^3/cycle], its standard error likewise (nodes' errors fully correlated:
    any fixed rule serves the test)."""
    rates, rate_se, jumps = np.atleast_2d(rates), np.atleast_2d(rate_se), np.asarray(jumps, float)
    K, M = rates.shape
    z = np.zeros(M)
    rows = []
    depth, var, vol, vvar, done = z.copy(), z.copy(), 0.0, 0.0, 0.0
    for k in range(K + 1):
        last = k == K
        r = z if last else rates[k]
        s = z if last else rate_se[k]
        dN = 0.0 if last else jumps[k]
        vr, vs = vol_factor * r.sum(), vol_factor * float(s.sum())
        rows.append(xr.Dataset({
            "wear_depth": (("joint", "surface", "theta"), np.stack([depth, z])[None]),
            "wear_depth_stderr": (("joint", "surface", "theta"), np.stack([np.sqrt(var), z])[None]),
            "wear_rate": (("joint", "surface", "theta"), np.stack([r, z])[None]),
            "wear_rate_stderr": (("joint", "surface", "theta"), np.stack([s, z])[None]),
            "volume_rate": (("joint", "surface"), [[vr, 0.0]]),
            "volume_rate_stderr": (("joint", "surface"), [[vs, 0.0]]),
            "wear_volume": (("joint", "surface"), [[vol, 0.0]]),
            "wear_volume_stderr": (("joint", "surface"), [[math.sqrt(vvar), 0.0]]),
            "cycle_jump": dN, "average_cycles": 24 if averaging is None else averaging[min(k, K - 1)],
        }).expand_dims(cycle=[done]))
        depth, var = depth + dN * r, var + (dN * s) ** 2
        vol, vvar, done = vol + dN * vr, vvar + (dN * vs) ** 2, done + dN
    ds = xr.concat(rows, "cycle")
    return ds.assign_coords(theta=2 * np.pi * np.arange(M) / M)


# ------------------------------------------------------------------------------ the rule
@pytest.mark.parametrize("change, band, tol, expected", [
    (0.005, 0.002, 0.01, cv.CONVERGED),        # a real change, below the tolerance
    (0.030, 0.010, 0.01, cv.NOT_CONVERGED),    # a real change, beyond it
    (0.004, 0.008, 0.01, cv.CONVERGED),        # no change seen, and one of the tolerance's size would be
    (0.004, 0.045, 0.01, cv.INCONCLUSIVE),     # no change seen, but the band hides the tolerance
    (0.030, 0.045, 0.01, cv.INCONCLUSIVE),     # beyond the tolerance, yet inside the noise
    (0.000, 0.000, 0.01, cv.CONVERGED),        # a steady contact: no noise, no change
    (0.020, math.nan, 0.01, cv.NOT_CONVERGED),  # no error known: the tolerance alone
])
def test_verdict_cases(change, band, tol, expected):
    assert cv.verdict(change, band, tol) == expected


def test_bands_of_independent_runs_against_hand_formula():
    """No shared update (different first rates): volume band = 2 sqrt(se_a^2 + se_b^2) / V_a,
    deepest wear at its node, profile 2 sqrt(sum se_a^2 + se_b^2) / ||h_a||; the tightened run on
    twice the nodes is compared on the base nodes (a subset: exact)."""
    M = 36
    th = 2 * np.pi * np.arange(M) / M
    ra = 1e-10 * (1 + np.cos(th - 1.0)) + 1e-12
    a = store([ra, 1.1 * ra], [0.03 * ra, 0.02 * ra], [1e5, 5e4])
    th2 = 2 * np.pi * np.arange(2 * M) / (2 * M)
    rb = 1.02e-10 * (1 + np.cos(th2 - 1.0)) + 1e-12
    b = store([rb, rb], [0.04 * rb, 0.04 * rb], [1e5, 5e4])
    out = cv.statistical_changes(a, b)
    assert out["shared_updates"] == 0
    va, sa = cv.final_volume(a)
    vb, sb = cv.final_volume(b)
    assert va == pytest.approx(1e-6 * (1e5 * ra.sum() + 5e4 * 1.1 * ra.sum()))
    assert sa == pytest.approx(1e-6 * math.hypot(1e5 * 0.03 * ra.sum(), 5e4 * 0.02 * 1.1 * ra.sum()))
    assert out["wear_volume"]["change"] == pytest.approx(abs(vb - va) / va)
    assert out["wear_volume"]["band"] == pytest.approx(2 * math.hypot(sa, sb) / va)
    ha = a.wear_depth.values[-1, 0, 0]
    hb = b.wear_depth.values[-1, 0, 0]
    k, kb = int(np.argmax(ha)), int(np.argmax(hb))
    ea, eb = a.wear_depth_stderr.values[-1, 0, 0, k], b.wear_depth_stderr.values[-1, 0, 0, kb]
    assert out["deepest_wear"]["change"] == pytest.approx(abs(hb[kb] - ha[k]) / ha[k])
    assert out["deepest_wear"]["band"] == pytest.approx(2 * math.hypot(ea, eb) / ha[k])
    qa, qb = a.wear_depth_stderr.values[-1, 0, 0], b.wear_depth_stderr.values[-1, 0, 0, ::2]
    assert out["profile"]["change"] == pytest.approx(np.linalg.norm(hb[::2] - ha) / np.linalg.norm(ha))
    assert out["profile"]["band"] == pytest.approx(2 * math.sqrt(np.sum(qa ** 2 + qb ** 2)) / np.linalg.norm(ha))


def test_a_shared_first_update_enters_the_difference_once():
    """depth_step/2 repeats the first update bit for bit (same cycles averaged) and jumps half as
    far: its error e enters the volumes as dN e and dN/2 e, so the difference's variance is the
    independent sum less 2 dN (dN/2) se^2.  Then a Monte Carlo: 4000 pairs of such runs (first
    update shared, later ones independent, same true rates): the change exceeds the band at the
    5 % level with the covariance (4.55 % expected), and at well under it when the shared error is
    ignored -- the common error makes the test sharper, not looser."""
    M = 24
    th = 2 * np.pi * np.arange(M) / M
    r = 1e-10 * (1.5 + np.cos(th))
    se = 0.05 * r
    a = store([r, r], [se, se], [1e5, 1e5])
    b = store([r, r, r], [se, se, se], [5e4, 5e4, 1e5])
    out = cv.statistical_changes(a, b)
    assert out["shared_updates"] == 1
    _, sa = cv.final_volume(a)
    _, sb = cv.final_volume(b)
    vse = 1e-6 * se.sum()
    cov = 1e5 * 5e4 * vse ** 2
    va = cv.final_volume(a)[0]
    assert out["wear_volume"]["band"] == pytest.approx(2 * math.sqrt(sa ** 2 + sb ** 2 - 2 * cov) / va)
    assert out["wear_volume"]["band"] < 2 * math.hypot(sa, sb) / va
    # a different second rate in b does not make its first update less shared; a first rate from
    # other cycles (1e-6 off) is not shared, one scaled by a rounding-level coefficient is
    b2 = store([r, 1.01 * r], [se, se], [5e4, 1.5e5])
    assert cv.statistical_changes(a, b2)["shared_updates"] == 1
    b3 = store([r * (1 + 1e-6), r], [se, se], [5e4, 1.5e5])
    assert cv.statistical_changes(a, b3)["shared_updates"] == 0
    twin = store([r * (1 + 1e-12), r], [se * (1 + 1e-12), se], [5e4, 1.5e5])   # k (1 + 1e-12): same cycles
    assert cv.statistical_changes(a, twin)["shared_updates"] == 1

    rng = np.random.default_rng(12345)
    n = 4000
    hits = hits_indep = 0
    sig = 1e-6 * se.sum()          # standard error of one update's volume rate
    for _ in range(n):
        e0, e1, f1, f2 = rng.standard_normal(4) * sig
        v = 1e-6 * r.sum()
        dva = 1e5 * (v + e0) + 1e5 * (v + e1)
        dvb = 5e4 * (v + e0) + 5e4 * (v + f1) + 1e5 * (v + f2)
        d = abs(dvb - dva)
        sa_, sb_ = math.sqrt(2) * 1e5 * sig, math.sqrt(2 * (5e4 * sig) ** 2 + (1e5 * sig) ** 2)
        hits += d > 2 * cv.difference_sigma(sa_, sb_, 1e5 * 5e4 * sig ** 2)
        hits_indep += d > 2 * math.hypot(sa_, sb_)
    assert abs(hits / n - LEVEL) < 0.012          # binomial sd at n = 4000: 0.0033
    assert hits_indep / n < 0.75 * LEVEL


@pytest.mark.parametrize("correlated", [True, False])
def test_profile_test_holds_its_level_whatever_the_node_correlation(correlated):
    """Two runs with the same true profile and errors of the stated size, fully correlated over the
    nodes (one degree of freedom) or independent node by node: the profile change exceeds its band
    in ~4.6 % of 2000 pairs (chi-square with 1 dof), and with 36 independent nodes of unequal
    errors almost never (a weighted chi-square over its mean, > 4 with a probability below 1e-6).
    The wear store's path to these arrays is tested above; this draws the final profiles."""
    rng = np.random.default_rng(7)
    M = 36
    th = 2 * np.pi * np.arange(M) / M
    r = 1e-10 * (1.5 + np.cos(th))
    se = 0.05 * r
    n, hits = 2000, 0
    for _ in range(n):
        # two runs of two updates of 1e5 cycles, only the first noisy: final profile and its error
        ha, hb = ((2 * r + (rng.standard_normal() * np.ones(M) if correlated else rng.standard_normal(M)) * se) * 1e5
                  for _ in range(2))
        out = cv.profile_change(ha, 1e5 * se, th, hb, 1e5 * se, th)
        hits += cv.verdict(out["change"], out["band"], 0.0) == cv.NOT_CONVERGED
    if correlated:
        assert abs(hits / n - LEVEL) < 0.015
    else:
        assert hits == 0


def test_table_says_inconclusive_and_holds_common(tmp_path):
    """Three synthetic knob rows through table_dataset and print_table: a noisy pair whose change
    lies in its band but whose band is wider than the tolerance is 'inconclusive: band wider than
    tolerance' (not 'converged', not 'NOT converged'); a precise pair beyond the tolerance is NOT
    converged; a precise pair within it converged.  Every variable has units and long_name; the
    header says what the runs hold common and the z; the file round-trips."""
    M = 36
    th = 2 * np.pi * np.arange(M) / M
    r = 1e-10 * (1.5 + np.cos(th))
    base = store([r, r], [0.02 * r, 0.02 * r], [1e5, 1e5])
    cases = {  # rates and stderr of the tightened run
        "noisy, inside the band": (1.01 * r, 0.03 * r),
        "precise, beyond": (1.05 * r, 1e-4 * r),
        "precise, within": (1.002 * r, 1e-5 * r),
    }
    precise_base = store([r * (1 + 1e-9), r], [1e-5 * r, 1e-5 * r], [1e5, 1e5])
    rows = []
    from types import SimpleNamespace as NS
    study = NS(kind="wear", title="synthetic", file=None, text="[wear]", wear=NS(depth_step=0.02))
    for i, (name, (rb, sb)) in enumerate(cases.items()):
        b0 = base if i == 0 else precise_base
        b1 = store([rb, rb], [sb, sb], [1e5, 1e5])
        stats = cv.statistical_changes(b0, b1)
        vals = lambda ds: {"wear_volume": cv.final_volume(ds)[0], "deepest_wear": cv.final_deepest(ds)[0],  # noqa: E731
                           "profile": math.nan}
        change = {q.name: stats[q.name]["change"] for q in WEAR_QUANTITIES}
        knob = WEAR_KNOBS[1]
        rows.append((dataclasses.replace(knob, label=name), study, study, vals(b0), vals(b1),
                     change, stats))
    ds = table_dataset(study, rows, WEAR_QUANTITIES)
    v = dict(zip(ds["setting"].values, ds["verdict"].values))
    assert v["noisy, inside the band"] == "inconclusive: band wider than tolerance: wear_volume, deepest_wear, profile"
    assert v["precise, beyond"] == "NOT converged: wear_volume, deepest_wear, profile"
    assert v["precise, within"] == "converged"
    row = ds.sel(setting="noisy, inside the band")
    assert float(row["wear_volume_change"]) < float(row["wear_volume_band"])
    assert float(row["wear_volume_band"]) > 0.01 and int(row["wear_volume_within_tolerance"]) == 1
    assert str(row["wear_volume_status"].values) == "inconclusive" and int(row["wear_volume_converged"]) == 0
    for name, var in ds.data_vars.items():
        assert var.attrs.get("units") and var.attrs.get("long_name"), name
    assert ds.attrs["significance_z"] == 2.0
    assert "restarts the dynamics from the same assembled state" in ds.attrs["held_common"]
    buf = io.StringIO()
    print_table(ds, Console(file=buf, width=200))
    text = " ".join(buf.getvalue().split())
    assert "inconclusive: band wider than tolerance" in text and "held common" in text.lower()
    assert "2 standard errors" in text
    out = write_table(ds, tmp_path / "t.nc")
    with xr.open_dataset(out, engine=ENGINE) as back:
        assert list(back["verdict"].values) == list(ds["verdict"].values)
