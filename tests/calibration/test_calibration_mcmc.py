"""The wear coefficient with a parameter that changes the dynamics: design runs, surrogate, emcee
(workbench.calibration.mcmc)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

pytest.importorskip("emcee")

from workbench.calibration import Measurements, calibrate_mcmc
from workbench.calibration import forward as fw
from workbench.calibration.run import simulate
from workbench.study.load import load_study_text

ROOT = Path(__file__).resolve().parents[2]
RIG = ROOT / "studies" / "journal_wear_constant_load.toml"


def toy_store(theta: float, M: int = 72, cycles=(0.0, 1000.0, 2000.0, 4000.0)) -> xr.Dataset:
    """A wear result whose depth is exactly N (g + theta g2)(alpha) [m]: linear in the cycles (so the
    k N scaling holds exactly) and in theta (which the thin-plate surrogate with its linear term
    reproduces exactly)."""
    a = 2 * math.pi * np.arange(M) / M
    g = 1e-9 * np.maximum(np.cos(a - 1.5 * math.pi), 0.0)
    g2 = 1e-9 * np.maximum(np.cos(a - 1.5 * math.pi), 0.0) ** 3
    N = np.asarray(cycles)[:, None]
    depth = np.zeros((len(cycles), 1, 2, M))
    depth[:, 0, 0] = N * (g + theta * g2)
    vol = np.zeros((len(cycles), 1, 2))
    vol[:, 0, 0] = depth[:, 0, 0].sum(axis=1) * 1e-4
    return xr.Dataset({"wear_depth": (("cycle", "joint", "surface", "theta"), depth),
                       "wear_depth_stderr": (("cycle", "joint", "surface", "theta"), 0 * depth),
                       "wear_volume": (("cycle", "joint", "surface"), vol),
                       "wear_volume_stderr": (("cycle", "joint", "surface"), 0 * vol)},
                      coords={"cycle": list(cycles), "joint": ["J"]})


def test_sampler_recovers_the_exact_posterior_of_a_linear_model(registry):
    """Toy forward model mu = beta N (g + theta g2), beta = k/k0 (fast counterpart of the rig test):
    in (beta, gamma = beta theta) it is linear, so with nearly flat priors the posterior means are
    the weighted least-squares solution and its covariance.  The MCMC means agree within 4 Monte
    Carlo errors plus 0.2 posterior sd (the priors' Jacobian), the sds within 15 %."""
    study = load_study_text(RIG.read_text(), file=RIG, registry=registry)
    k0 = 1e-15
    thetas = [-0.5, 0.0, 0.5, 1.0, 1.5]
    designs = [(np.array([t]), toy_store(t)) for t in thetas]
    rng = np.random.default_rng(3)
    M = 72
    alpha = 2 * math.pi * np.arange(M) / M
    sel = np.flatnonzero(np.cos(alpha - 1.5 * math.pi) > 0.2)
    q = ["wear_depth"] * (2 * len(sel))
    c = [1000.0] * len(sel) + [2000.0] * len(sel)
    th = list(alpha[sel]) * 2
    data0 = Measurements.from_arrays(q, c, np.zeros(len(q)), 1.0, theta=th)
    base = fw.from_store(designs[1][1], data0, k0).at(np.array(c)[None, :])[0][0]       # theta = 0
    extra = fw.from_store(designs[3][1], data0, k0).at(np.array(c)[None, :])[0][0] - base  # g2 part
    beta_true, theta_true = 1.2, 0.6
    sigma = np.full(len(q), 0.03 * base.max())
    y = beta_true * (base + theta_true * extra) + sigma * rng.standard_normal(len(q))
    data = Measurements.from_arrays(q, c, y, sigma, theta=th)
    A = np.column_stack([base, extra]) / sigma[:, None]
    cov = np.linalg.inv(A.T @ A)
    bg = cov @ A.T @ (y / sigma)                       # (beta, gamma)
    res = calibrate_mcmc(study, data, {"wear.toy_theta": "uniform:-0.5:1.5"}, designs=designs,
                         prior="loguniform:1e-16:1e-14", k_max_factor=2.0, walkers=32, steps=3000, seed=1)
    s = res.samples.values
    beta, gamma = s[:, 0] / k0, (s[:, 0] / k0) * s[:, 1]
    n_eff = len(s) / 2.0
    for est, exact, sd in ((beta, bg[0], math.sqrt(cov[0, 0])), (gamma, bg[1], math.sqrt(cov[1, 1]))):
        assert abs(est.mean() - exact) < 4 * sd / math.sqrt(n_eff) + 0.2 * sd
        assert est.std() == pytest.approx(sd, rel=0.15)
    assert 0.2 < res.attrs["acceptance_fraction"] < 0.8
    assert float(res.surrogate_loo_error.max()) < 1e-12 * base.max()    # linear in theta: exact


@pytest.mark.slow
def test_wear_coefficient_and_clearance_from_the_rig(registry, tmp_path):
    """The rig at k = 1.3e-15 1/Pa and a 23 um clearance (bushing radius 10.023 mm), profiles and
    volumes at 500, 1000, 2000 cycles with noise (0.05 um, 2 %); the bushing radius prior uniform
    over 10.016-10.026 mm (5 design runs to 4000 cycles, ~45 s).  Both true values lie in their
    95 % intervals (measured: k 1.302e-15 +- 0.0065e-15, radius 10.02332 mm +- 0.36 um)."""
    K_TRUE, RB_TRUE = 1.3e-15, 0.010023
    text = RIG.read_text()
    st0 = load_study_text(text, file=RIG, registry=registry)
    stT = load_study_text(text.replace("wear_coefficient = 1.0e-15", f"wear_coefficient = {K_TRUE}")
                          .replace("bushing_radius = 0.01002 ", f"bushing_radius = {RB_TRUE} "), file=RIG, registry=registry)
    truth = simulate(stT, 2000.0, tmp_path / "truth.zarr", registry=registry)
    ang = np.radians(np.arange(230.0, 311.0, 8.0))
    q, c, th = [], [], []
    for N in (500.0, 1000.0, 2000.0):
        q += ["wear_depth"] * len(ang) + ["wear_volume"]
        c += [N] * (len(ang) + 1)
        th += list(ang) + [math.nan]
    m0 = Measurements.from_arrays(q, c, np.zeros(len(q)), 1.0, theta=th)
    true = fw.from_store(truth, m0, K_TRUE).at(np.array(c)[None, :])[0][0]
    sig = np.where(np.array(q) == "wear_depth", 0.05e-6, 0.02 * true)
    y = true + sig * np.random.default_rng(1).standard_normal(len(sig))
    res = calibrate_mcmc(st0, Measurements.from_arrays(q, c, y, sig, theta=th),
                         {"mechanism.clearance_joints[0].bushing_radius": "uniform:0.010016:0.010026"},
                         prior="lognormal:1e-15:1.0", k_max_factor=2.0, registry=registry, steps=2000)
    lo, hi = res.lower.values, res.upper.values
    assert lo[0] <= K_TRUE <= hi[0] and lo[1] <= RB_TRUE <= hi[1]
    assert (hi[1] - lo[1]) < 2e-6           # the clearance is identified to better than 2 um
