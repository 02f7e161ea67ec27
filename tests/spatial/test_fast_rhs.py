"""The allocation-free right-hand side (:mod:`workbench.spatial.fast_rhs`: the constraint rows as
two blocks per row, the Schur complement) against the dense one (:func:`workbench.spatial.kernels.rhs`:
the full augmented matrix) at perturbed states of every joint type, the drivers, springs and loads,
and the slider-crank: the same derivative to round-off."""
from __future__ import annotations

import numpy as np
import pytest
import slider_crank
from test_joint_types import cases

from workbench.mbs.solution import SolverSettings
from workbench.spatial.fast_rhs import of, rhs
from workbench.spatial.kernels import pack, rhs as dense_rhs
from workbench.spatial.model import Model
from workbench.spatial.solver import initial_state


def _mechanisms():
    yield from cases()
    yield "slider-crank", slider_crank.mechanism()


@pytest.mark.parametrize("name, mech", list(_mechanisms()), ids=[c[0] for c in _mechanisms()])
def test_the_sparse_right_hand_side_is_the_dense_one(name, mech):
    model = Model(mech)
    args = pack(model)
    s = SolverSettings(t_end=1.0)
    y0 = initial_state(model, 0.0)
    rng = np.random.default_rng(11)
    ws = of(args)
    nb = model.nb
    ftab = np.zeros((len(model.joints), 2)); qx = np.zeros(6 * nb)
    worst = 0.0
    for _ in range(4):
        # positions and rotations off the constraints (Baumgarte's terms act), random velocities
        y = y0 + 0.05 * rng.normal(size=y0.shape)
        y[7 * nb:13 * nb] = rng.normal(size=6 * nb)
        t = float(rng.uniform(0.0, 1.0))
        a = np.empty_like(y); b = np.empty_like(y)
        assert rhs(t, y, s.baumgarte_alpha, s.baumgarte_beta, *args, ftab, qx, a, ws) == 0
        assert np.array_equal(ws[17][:6 * nb], a[7 * nb:13 * nb])   # the Schur path ran (no dense fallback)
        assert dense_rhs(t, y, s.baumgarte_alpha, s.baumgarte_beta, *args, ftab, qx, b) == 0
        # round-off of two eliminations of one system (Cholesky of D M^-1 D^T against LU of the
        # augmented matrix): relative to the largest entry
        worst = max(worst, np.abs(a - b).max() / np.abs(b).max())
    print(f"\n{name}: largest difference {worst:.2g} of the largest entry")
    assert worst <= 1e-11
