"""The spatial clearance forces in one compiled call (:mod:`workbench.spatial.clearance.compiled_forces`,
the laws imported by name into a generated module) against the loop that calls the same compiled
laws from Python (``Clearances._forces_loop``) and the reference path (``Clearances.forces``):
the slider-crank's revolute clearance joint (rims with Ambrosio friction, shoulders without) on a
worn map, and a ball in a worn socket, over states that close every contact."""
from __future__ import annotations

import numpy as np
import pytest

from workbench.errors import MechanismError


def _states(model, y0, rng, n, scale):
    nb = model.nb
    out = []
    for _ in range(n):
        y = y0.copy()
        y[:3 * nb] += rng.uniform(-scale, scale, 3 * nb)
        for b in range(nb):
            q = y[3 * nb + 4 * b:3 * nb + 4 * b + 4] + rng.uniform(-0.05, 0.05, 4)
            y[3 * nb + 4 * b:3 * nb + 4 * b + 4] = q / np.linalg.norm(q)
        y[7 * nb:13 * nb] += rng.uniform(-2.0, 2.0, 6 * nb)
        out.append(y)
    return out


def _cases(registry, rng):
    from spatial_clearance_models import ball_in_socket, slider_crank
    from workbench.spatial.model import Model
    from workbench.wear.spatial_cap import WornCap
    from workbench.wear.spatial_map import WornMap
    mech = slider_crank(registry, tilt=0.01)
    w = WornMap.fresh(mech.spatial_clearance_joints[0], 90, 7)
    w.h_bushing[:] = rng.uniform(0.0, 5e-6, w.shape)
    ball = ball_in_socket(registry.create("contact", "hertz", {}), position=(3e-4, 1e-4, 0.0),
                          friction=registry.create("friction", "coulomb", {"mu": 0.1}))
    cap = WornCap.fresh(ball.spatial_clearance_joints[0], 72, 36)
    cap.h_bushing[:] = rng.uniform(0.0, 4e-6, cap.shape)
    return [(Model(mech), mech, {0: w}, 8e-4), (Model(ball), ball, {0: cap}, 8e-4)]


def test_the_generated_forces_are_the_python_loops_to_the_last_bit(registry):
    from workbench.spatial.clearance.forces import Clearances
    from workbench.spatial.solver import initial_state
    rng = np.random.default_rng(30)
    closed = 0
    for model, mech, worn, scale in _cases(registry, rng):
        clr = Clearances(model, mech.spatial_clearance_joints, compiled=True, worn=worn)
        ref = Clearances(model, mech.spatial_clearance_joints, compiled=False, worn=worn)
        for y in _states(model, initial_state(model, 0.0), rng, 30, scale):
            dm = np.abs(rng.normal(0.0, 0.5, clr.n_points))      # every contact closed
            Q, pc, pf = clr.forces_fast(y, dm)
            assert clr._generated, "the generated function was not used"
            Q2, pc2, pf2 = clr._forces_loop(y, dm)
            np.testing.assert_array_equal(Q, Q2)
            assert (pc, pf) == (pc2, pf2)
            Q3, pc3, pf3, rec3 = ref.forces(model.kinematics(y), dm, record=True)
            np.testing.assert_allclose(Q, Q3, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(Q3).max()))
            # the record of the output samples: the loop's forces, the reference's columns
            Q4, rec, normals, R, A, W = clr.record_fast(y, dm)
            np.testing.assert_array_equal(Q4, Q)
            np.testing.assert_allclose(rec, rec3, rtol=1e-9, atol=1e-12 * max(1.0, np.abs(rec3).max()))
            assert np.array_equal(rec[:, 2] == 0.0, rec3[:, 2] == 0.0)
            for k, p in enumerate(clr.points):
                n_ref = ref._geometry(p, *model.kinematics(y)[:2])[1]
                np.testing.assert_allclose(normals[k], n_ref, atol=1e-12)
            closed += int(np.any(Q != 0.0))
    assert closed >= 20          # most states press a point: the laws were called


def test_a_law_returning_nan_stops_with_the_reference_paths_message(registry):
    from spatial_clearance_models import ball_in_socket
    from workbench.spatial.clearance.forces import Clearances
    from workbench.spatial.model import Model
    from workbench.spatial.solver import initial_state
    law = registry.create("contact", "hertz", {})
    mech = ball_in_socket(law, position=(6e-4, 0.0, 0.0))      # 0.1 mm into the socket
    model = Model(mech)
    clr = Clearances(model, mech.spatial_clearance_joints, compiled=True)
    clr.forces_fast(initial_state(model, 0.0), np.zeros(1))
    funs, args = clr._generated
    cps = (np.full_like(args[6][0], np.nan),)                    # the law's parameters poisoned
    clr._generated = (funs, args[:6] + (cps,) + args[7:])
    with pytest.raises(MechanismError, match=r"clearance joint 'socket': the contact law returned nan at penetration 0.0001 m"):
        clr.forces_fast(initial_state(model, 0.0), np.zeros(1))
