"""The Qi, Luo & Huang (2009) bar on a universal joint (``studies/qi_pendulum_universal.toml``:
Coulomb friction in both journals, their eqs. 54-58) against the independent Newton-Euler
reference in the two journal angles, ``tests/reference/qi_universal.py`` (no workbench).

The study as shipped, both journals slipping (the bar swings down about ``a`` and out about
``b``), both sides at rtol 1e-11: its first 0.05 s in the default suite, its first 0.3 s slow.
Tolerances: angles 1e-9 rad, the dissipated energy 1e-8 of the largest kinetic energy, moments and
loads 1e-8 of their largest value.  Each journal carries its axial load at the tilt point of their
eq. 36 or on the flush face.  The engine solves those states on its compiled path (0.05 s in about
0.7 s); the independent reference finds them by scans of the circle, continued from each journal's
last state (``test_universal_reference_continuation.py`` checks the continuation against the full
scan): 0.05 s in about 3.5 s of CPU (12 s before the continuation and the batched scans; the first
milliseconds, where journal 2 passes between its flush states, cost the most)."""
from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE)); sys.path.insert(0, str(HERE.parent / "reference"))
from qi_universal import solve  # noqa: E402
from qi_universal_stick import UBar  # noqa: E402

from workbench import engines  # noqa: E402
from workbench.spatial.rotation import rotation_matrix  # noqa: E402
from workbench.study.load import load_study  # noqa: E402

STUDY = HERE.parents[1] / "studies" / "qi_pendulum_universal.toml"
N = 16
RTOL, ATOL = 1e-11, 1e-12


def _angles(sim):
    """``(phi, psi)`` [rad] of ``R = Rz(phi) Ry(psi)``: the bar's x axis is ``(cos phi cos psi,
    sin phi cos psi, -sin psi)``."""
    x = np.array([rotation_matrix(q)[:, 0] for q in sim.position[:, 0, 3:]])
    return np.unwrap(np.arctan2(x[:, 1], x[:, 0])), -np.arcsin(x[:, 2])


def _case(t_end):
    from workbench.plugins import build_registry
    st = load_study(STUDY, registry=build_registry())
    j = st.mechanism.joints[0]
    s = dataclasses.replace(st.solver, t_end=t_end, output_step=t_end / (N - 1), rtol=RTOL, atol=ATOL)
    sim = engines.simulate(st.mechanism, s)
    bar = UBar(R1=j.radius, c1=j.length / 2, R2=j.radius_j, c2=j.length_j / 2, mu=j.friction.params.mu)
    w = np.asarray(st.mechanism.bodies[0].angular_velocity)
    ref = solve(bar, (0.0, 0.0, w[2], w[1]), t_end, sim.time, v_eps=j.friction.params.v_eps, rtol=RTOL, atol=ATOL)
    return sim, ref


def _check(sim, ref, t_end):
    assert sim.engine == "spatial"
    phi, psi = _angles(sim)
    fm, cl = sim.extras["friction_moment"][:, 0], sim.extras["contact_load"][:, 0]
    wr = sim.velocity[:, 0, 3:]
    scale_m = np.abs(np.concatenate([ref["m1"], ref["m2"]])).max()
    scale_N = np.abs(np.concatenate([ref["N1"], ref["N2"]])).max()
    e = {"phi": np.abs(phi - ref["phi"]).max(), "psi": np.abs(psi - ref["psi"]).max(),
         "E_diss": np.abs(sim.dissipated_energy - ref["dissipated"]).max() / sim.kinetic_energy.max(),
         "m1": np.abs(fm[:, 0] - ref["m1"]).max() / scale_m, "m2": np.abs(fm[:, 1] - ref["m2"]).max() / scale_m,
         "N1": np.abs(cl[:, 0] - ref["N1"]).max() / scale_N, "N2": np.abs(cl[:, 1] - ref["N2"]).max() / scale_N}
    print(f"\nuniversal Qi bar, {t_end} s: " + ", ".join(f"|d {k}| {v:.2g}" for k, v in e.items())
          + f"; E_diss {sim.dissipated_energy[-1]:.9g} J, phi {phi[-1]:.9g} rad, psi {psi[-1]:.9g} rad; "
          f"{sim.stats.get('rhs_calls')} right-hand sides, {sim.stats.get('reference_fallbacks')} on the reference path")
    # both journals turn and slip (not a planar swing): each carries a friction moment
    assert np.abs(ref["dpsi"]).max() > 0.5 and np.abs(ref["dphi"]).max() > 0.5
    assert np.abs(fm[1:, 0]).max() > 1.0 and np.abs(fm[1:, 1]).max() > 1.0
    assert e["phi"] < 1e-9 and e["psi"] < 1e-9 and e["E_diss"] < 1e-8
    assert max(e["m1"], e["m2"], e["N1"], e["N2"]) < 1e-8
    # the journals' rates are the reference's (omega = phi_d a + psi_d b)
    b = np.array([rotation_matrix(q)[:, 1] for q in sim.position[:, 0, 3:]])
    assert np.abs(wr[:, 2] - ref["dphi"]).max() < 1e-8 and np.abs(np.sum(wr * b, axis=1) - ref["dpsi"]).max() < 1e-8
    books = sim.kinetic_energy + sim.potential_energy + sim.dissipated_energy
    assert np.abs(books - books[0]).max() < 1e-6
    assert math.isclose(sim.dissipated_energy[0], 0.0, abs_tol=0.0) and np.all(np.diff(sim.dissipated_energy) > 0)


def test_the_universal_study_agrees_with_the_newton_euler_reference():
    _check(*_case(0.05), 0.05)


@pytest.mark.slow   # about 20 s of CPU (the reference); the default suite keeps
#                     test_the_universal_study_agrees_with_the_newton_euler_reference (its first 0.05 s)
def test_the_universal_study_agrees_with_the_reference_over_0_3_s():
    _check(*_case(0.3), 0.3)
