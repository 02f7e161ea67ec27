"""The compiled model's precomputed structure and its small pieces.

- The Schur complement ``Phi_q M^-1 Phi_q^T`` is summed only over the entries and bodies that
  ``constraint_structure`` lists once per mechanism: that pattern must cover every non-zero of
  the dense product (computed here with numpy at arbitrary states).
- A driver is evaluated by one implementation (the compiled ``driver_value``), for the integrator
  and for outputs alike: checked against its closed form and its derivatives.
- The impact table grows as impacts come; growing keeps every row.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from workbench.mbs.compiled import compile_mechanism, constraint_structure
from workbench.mbs.integrator import N_IMP, _grown, _make_table
from workbench.mbs.kinematics import constraints
from workbench.mbs.mechanism import DriverFunction
from workbench.mbs.solver import assemble
from workbench.study import load_study

ROOT = Path(__file__).resolve().parents[1]
STUDIES = ("flores_slider_crank", "mixed_clearance_slider_crank_c005", "five_bar_wear")


@pytest.fixture(scope="module")
def registry():
    from workbench.plugins import build_registry
    return build_registry()


@pytest.mark.parametrize("name", STUDIES)
def test_schur_pattern_covers_the_dense_product(name, registry):
    mech = load_study(ROOT / "studies" / f"{name}.toml", registry).mechanism
    q0, _ = assemble(mech)
    cm = compile_mechanism(mech, angles=q0[2::3])
    m, n = cm.n_rows, 3 * cm.nb
    row_body, schur = constraint_structure(cm.cons_i, m)
    listed = {(int(i), int(j)) for i, j, _, _ in schur}
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = q0 + rng.normal(scale=0.3, size=n)
        Phi, J, gam, Phit = np.zeros(m), np.zeros((m, n)), np.zeros(m), np.zeros(m)
        constraints(0.01, q, rng.normal(size=n), cm.cons_i, cm.cons_f, cm.drv_f, Phi, J, gam, Phit,
                    np.zeros((cm.nb, 2)))
        S = J @ np.diag(1.0 / cm.mass) @ J.T
        # each listed entry, summed over the listed bodies only, is the dense entry
        for i, j, ba, bb in schur:
            cols = [3 * b + c for b in (ba, bb) if b >= 0 for c in range(3)]
            assert np.sum(J[i, cols] * J[j, cols] / cm.mass[cols]) == pytest.approx(S[i, j], rel=1e-12, abs=1e-300)
        # and every non-zero of the dense lower triangle is listed
        nz = {(i, j) for i in range(m) for j in range(i + 1) if S[i, j] != 0.0}
        assert nz <= listed
        # the rows touch only their bodies' coordinates
        for i in range(m):
            touched = {k // 3 for k in np.flatnonzero(J[i])}
            assert touched <= {int(b) for b in row_body[i] if b >= 0}


def test_driver_function_is_the_compiled_driver():
    f = DriverFunction(polynomial=(0.1, 100.0, -3.0), harmonics=((0.5, 50.0, 0.25), (0.01, 7.0, -1.0)))
    t = np.linspace(0.0, 0.3, 61)
    exact = (0.1 + 100.0 * t - 3.0 * t ** 2 + 0.5 * np.sin(50.0 * t + 0.25) + 0.01 * np.sin(7.0 * t - 1.0))
    rate = 100.0 - 6.0 * t + 25.0 * np.cos(50.0 * t + 0.25) + 0.07 * np.cos(7.0 * t - 1.0)
    acc = -6.0 - 1250.0 * np.sin(50.0 * t + 0.25) - 0.49 * np.sin(7.0 * t - 1.0)
    np.testing.assert_allclose(f(t), exact, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(f(t, 1), rate, rtol=1e-13, atol=1e-11)
    np.testing.assert_allclose(f(t, 2), acc, rtol=1e-13, atol=1e-9)
    assert isinstance(f(0.2), float) and f(0.2) == f(t[40:41])[0]
    assert f(t.reshape(61, 1)).shape == (61, 1)
    with pytest.raises(ValueError, match="derivative"):
        f(0.0, 3)


def test_impact_table_grows_and_keeps_its_rows():
    tab = _make_table(23, 9, 1, 1, 1000)
    rows = tab.imp.shape[0]
    assert 0 < rows < 1000
    tab.imp[:] = np.arange(rows * N_IMP).reshape(rows, N_IMP)
    tab.imp_j[:] = np.arange(rows); tab.imp_p[:] = -np.arange(rows)
    big = _grown(tab, 1000)
    assert big.imp.shape == (min(2 * rows, 1000), N_IMP)
    np.testing.assert_array_equal(big.imp[:rows], tab.imp)
    np.testing.assert_array_equal(big.imp_j[:rows], tab.imp_j)
    np.testing.assert_array_equal(big.imp_p[:rows], tab.imp_p)
    assert big.cur is tab.cur or np.shares_memory(big.cur, tab.cur)
    assert _grown(_grown(_grown(big, 1000), 1000), 1000).imp.shape[0] == 1000  # capped
    assert math.isfinite(big.imp[rows:].sum())
