"""The Qi pendulum with LuGre friction (``studies/qi_pendulum_lugre.toml``: cylindrical joint,
bristle deflection in the slip plane, ``method = "Radau"``) against the set-valued run of the same
pendulum (``coulomb_set_valued`` at the study's ``mu_c = mu_s``): the bristles lag the slip by
about ``mu / sigma0``, so the slide, the dissipated energy and the friction force differ by that
order (their 1 / sigma0 rate over a decade: ``test_bristles.py``, slow).  Short span (default suite)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from workbench import engines
from workbench.spatial import stick
from workbench.study.load import load_study

STUDY = Path(__file__).resolve().parents[2] / "studies" / "qi_pendulum_lugre.toml"
T = 0.02


def test_the_lugre_study_follows_the_set_valued_run_within_the_bristle_lag():
    from workbench.plugins import build_registry
    reg = build_registry()
    st = load_study(STUDY, registry=reg)
    p = st.mechanism.joints[0].friction.params
    assert st.solver.method == "Radau" and p.mu_c == p.mu_s and p.sigma2 == 0.0
    settings = dataclasses.replace(st.solver, t_end=T, output_step=T / 4)
    sim = engines.simulate(st.mechanism, settings)
    j = dataclasses.replace(st.mechanism.joints[0], friction=reg.create("friction", "coulomb_set_valued",
                                                                        dict(mu=p.mu_c)))
    sv = stick.simulate(dataclasses.replace(st.mechanism, joints=(j,)), dataclasses.replace(settings, rtol=1e-10))
    lag = p.mu_c / p.sigma0                                    # [m]: the bristles' steady deflection
    late = sim.time > 0        # at t = 0 the bristles are relaxed: LuGre starts without force
    N = sv.extras["contact_load"][:, 0, :2].sum(axis=1)
    e_s = np.abs(sim.position[:, 0, 2] - sv.position[:, 0, 2]).max()
    e_E = np.abs(sim.dissipated_energy - sv.dissipated_energy).max()
    e_f = np.abs(sim.extras["friction_force"][late, 0] - sv.extras["friction_force"][late, 0]).max()
    z = sim.extras["bristle_deflection"][-1, 0]
    print(f"\nQi pendulum, LuGre sigma0 {p.sigma0:g} 1/m against set-valued, {T} s: |d s| {e_s:.3g} m, "
          f"|d E_diss| {e_E:.3g} J, |d f| {e_f:.3g} N (mu N {p.mu_c * N.max():.4g} N), |z| {np.hypot(*z):.4g} m, "
          f"rhs {sim.stats['rhs_calls']}")
    assert sim.stats["path"] == "scipy" and np.isfinite(sim.position).all()
    # slipping at about 1 m/s all along: the bristles sit at their steady deflection mu / sigma0 in
    # the slip direction (their Stribeck function is flat: mu_c = mu_s)
    assert abs(np.hypot(*z) / lag - 1) < 1e-3
    # the slide lags by a fraction of the bristle deflection; the dissipated energy by the work of
    # the friction over that lag; the force by what the lag changes in N and the slip direction
    assert e_s < lag
    assert e_E < 2 * p.mu_c * N.max() * lag
    assert e_f < 1e-3 * p.mu_c * N.max()
