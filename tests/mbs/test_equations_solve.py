"""The multiplier solve of the compiled right-hand side: the in-place ``L D L^T`` factorisation of
the Schur complement and the equations of motion it must satisfy (Wang & Liu (2015) eq. 38:
``M qdd + Phi_q^T lambda = Q``, ``Phi_q qdd = gamma - 2 alpha Phi_dot - beta^2 Phi``)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.mbs.clearance import N_CREC
from workbench.mbs.compiled import compile_mechanism
from workbench.mbs.equations import ldl_factor, ldl_solve, rhs, workspace
from workbench.mbs.solver import _constraint_arrays, assemble
from workbench.plugins import build_registry
from workbench.study.load import load_study

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("m", [1, 2, 5, 8])
def test_ldl_factor_then_solve_matches_numpy(m):
    rng = np.random.default_rng(m)
    A = rng.normal(size=(m, m))
    S = A @ A.T + m * np.eye(m)          # symmetric positive definite
    b = rng.normal(size=m)
    F = S.copy()
    assert ldl_factor(F, m)
    x = np.zeros(m)
    ldl_solve(F, b, x, m)
    np.testing.assert_allclose(x, np.linalg.solve(S, b), rtol=1e-12, atol=1e-14)
    # the factors can be reused for a second right-hand side (the joint-friction re-solve)
    b2 = rng.normal(size=m)
    ldl_solve(F, b2, x, m)
    np.testing.assert_allclose(x, np.linalg.solve(S, b2), rtol=1e-12, atol=1e-14)


def test_ldl_factor_rejects_a_singular_matrix():
    S = np.array([[1.0, 1.0], [1.0, 1.0]])   # rank 1: redundant constraints
    assert not ldl_factor(S, 2)


def test_rhs_satisfies_the_equations_of_motion_on_the_flores_slider_crank():
    study = load_study(ROOT / "studies" / "flores_slider_crank.toml", build_registry())
    mech, s = study.mechanism, study.solver
    q0, qd0 = assemble(mech, 0.0)
    cm = compile_mechanism(mech, angles=q0[2::3])
    n, npts = 3 * cm.nb, cm.n_points
    rng = np.random.default_rng(7)
    # a state off the constraint manifold, so that the Baumgarte terms count too
    q = q0 + 1e-4 * rng.normal(size=n)
    qd = qd0 + 1e-2 * rng.normal(size=n)
    y = np.concatenate([q, qd, np.zeros(npts), np.zeros(4)])
    ydot = np.zeros_like(y)
    lam = np.zeros(cm.n_rows)
    rec = np.zeros((1, N_CREC))
    ws = workspace(cm.mass, cm.n_rows, npts)
    np.testing.assert_array_equal(ws.minv, 1.0 / cm.mass)
    dm = np.full(max(npts, 1), -1.0)      # contact open: the clearance joint adds no force
    t = 1.3e-3
    alpha, beta = s.baumgarte_alpha, s.baumgarte_beta
    assert rhs(t, y, dm, ydot, lam, rec, ws, alpha, beta, cm.model()) == -1
    qdd = ydot[n:2 * n]
    Phi, J, gam, Phit = _constraint_arrays(cm, t, q, qd)
    Q = ws.Q
    scale = np.abs(cm.mass * qdd).max()
    np.testing.assert_allclose(cm.mass * qdd + J.T @ lam, Q, rtol=0, atol=1e-11 * scale)
    rhs_acc = gam - 2.0 * alpha * (J @ qd + Phit) - beta ** 2 * Phi
    np.testing.assert_allclose(J @ qdd, rhs_acc, rtol=0, atol=1e-11 * np.abs(rhs_acc).max())
    np.testing.assert_array_equal(ydot[:n], qd)
