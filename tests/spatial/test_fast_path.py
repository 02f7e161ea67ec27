"""The compiled right-hand side (``path = "fast"``, :mod:`workbench.spatial.kernels`) and the
reference one (``path = "scipy"``) integrate the same equations: the Qi pendulum with cylindrical
and revolute friction, a universal joint with friction, and the slider-crank with a driver agree
to the integration tolerance, and no call fell back to the reference path (the universal joint's
journals carry their axial loads at the tilt point of Qi, Luo & Huang (2009) eq. 36 or on the
flush face: the compiled path solves both states itself, ``kernels._flush`` and
``kernels._tilted_secant``)."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from pendulum import mechanism as pendulum  # noqa: E402
from slider_crank import mechanism as slider_crank  # noqa: E402
from test_joint_friction_spatial import _hooke  # noqa: E402

from workbench.mbs.solution import SolverSettings  # noqa: E402
from workbench.spatial.solver import simulate  # noqa: E402


# The cylindrical case (~20 s: the reference path integrates the friction loop in Python) runs with
# the slow suite; its fast path is checked against the independent reference in test_qi_pendulum.py.
# The universal case's journals are flush or tilted by their axial loads (Qi, Luo & Huang (2009)
# eq. 36): both states are solved on the compiled path (kernels._flush, kernels._tilted_secant).
@pytest.mark.parametrize("case", [pytest.param("cylindrical", marks=pytest.mark.slow), "revolute", "universal",
                                  "slider_crank"])
def test_fast_and_reference_paths_agree(registry, case):
    law = registry.create("friction", "coulomb", {"mu": 0.1})
    mech, T = {"cylindrical": (lambda: pendulum(law), 0.6), "revolute": (lambda: pendulum(law, joint="revolute"), 0.6),
               "universal": (lambda: _hooke(law), 0.2), "slider_crank": (slider_crank, 0.006)}[case]
    mech = mech()
    s = SolverSettings(t_end=T, output_step=T / 30, rtol=1e-11, atol=1e-13)
    fast = simulate(mech, s)
    ref = simulate(mech, dataclasses.replace(s, path="scipy"))
    assert fast.stats["path"] == "fast" and ref.stats["path"] == "scipy"
    assert fast.stats["reference_fallbacks"] == 0
    dp = np.abs(fast.position - ref.position).max()
    dv = np.abs(fast.velocity - ref.velocity).max() / max(np.abs(ref.velocity).max(), 1.0)
    print(f"\n{case}: fast vs reference |d position| {dp:.2g}, |d velocity| rel {dv:.2g}; rhs calls "
          f"{fast.stats['rhs_calls']} / {ref.stats['rhs_calls']}, fallbacks {fast.stats['reference_fallbacks']}")
    assert dp < 1e-9 and dv < 1e-8
    if fast.extras["friction_force"].size:
        assert np.allclose(fast.extras["friction_moment"], ref.extras["friction_moment"], rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("case", ["slider_crank", "revolute"])
def test_the_samples_with_compiled_rows_are_the_reference_paths(registry, case):
    """The output samples of the fast path (multipliers, reactions, driver loads, accelerations,
    friction) use the compiled constraint rows (:func:`workbench.spatial.kernels.constraint_rows`)
    in the reference path's record: the same samples as with its Python rows, to 1e-11 relative,
    on states off the trajectory (velocities perturbed)."""
    from workbench.spatial.kernels import constraint_rows, pack
    from workbench.spatial.model import Model
    from workbench.spatial.solver import to_simulation
    law = registry.create("friction", "coulomb", {"mu": 0.1})
    mech = slider_crank() if case == "slider_crank" else pendulum(law, joint="revolute")
    model = Model(mech)
    nb = model.nb
    T = 0.004 if case == "slider_crank" else 0.3     # the pendulum swung into friction
    sim = simulate(mech, SolverSettings(t_end=T, output_step=T / 4, rtol=1e-8, atol=1e-11))
    t = sim.time
    rng = np.random.default_rng(28)
    Y = np.concatenate([sim.position[:, :, :3].reshape(len(t), -1), sim.position[:, :, 3:].reshape(len(t), -1),
                        np.concatenate([sim.velocity[:, :, :3], sim.extras["angular_velocity_body"]], axis=2)
                        .reshape(len(t), -1), np.zeros((len(t), 2))], axis=1)
    Y[:, 7 * nb:13 * nb] += rng.normal(0.0, 0.05, (len(t), 6 * nb))   # off the trajectory a little
    ref = to_simulation(model, t, Y, 10.0, 10.0, {})
    fast = to_simulation(model, t, Y, 10.0, 10.0, {}, rows=constraint_rows(pack(model)))
    for name in ("joint_reaction", "driver_load", "acceleration", "drift_position", "drift_velocity"):
        a, b = getattr(fast, name), getattr(ref, name)
        if b.size == 0:       # the pendulum has no driver
            continue
        assert np.abs(a - b).max() <= 1e-11 * max(np.abs(b).max(), 1e-300), name
    if case == "revolute":
        ff, fr = fast.extras["friction_moment"], ref.extras["friction_moment"]   # a revolute joint: no axial force
        assert np.abs(ff).max() > 0.0 and np.abs(ff - fr).max() <= 1e-11 * np.abs(fr).max()
