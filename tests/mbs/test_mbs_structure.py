"""Small pieces of the compiled core.

- A driver is evaluated by one implementation (the compiled ``driver_value``), for the integrator
  and for outputs alike: checked against its closed form and its derivatives.
- The impact table grows as impacts come; growing keeps every row.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.mbs.integrator import N_IMP, _grown, _make_table
from workbench.mbs.mechanism import DriverFunction


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
