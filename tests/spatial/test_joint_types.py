"""Every spatial joint type, the drivers, springs and applied loads: constraints held, energy
books closed (kinetic + potential + dissipated - work of drivers and loads = const), on both
right-hand sides; a fixed joint makes one rigid body."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from workbench.mbs.solution import SolverSettings
from workbench.spatial import (AppliedForce, AppliedTorque, Body, Driver, DriverFunction, Joint,
                               SpatialMechanism, SpringDamper)
from workbench.spatial.rotation import from_axis_angle
from workbench.spatial.solver import simulate

G = (0.0, -9.81, 0.0)
J = (0.02, 0.05, 0.04)


def _body(name, pos, **kw):
    return Body(name, 1.5, J, position=pos, points={"O": (-0.3, 0.0, 0.0), "E": (0.3, 0.0, 0.0)}, **kw)


def cases():
    q = tuple(from_axis_angle((1.0, 1.0, 0.0), 0.4))
    yield "spherical", SpatialMechanism(
        (_body("a", (0.3, 0.0, 0.0), angular_velocity=(1.0, 2.0, 3.0)),),
        (Joint("s", "spherical", "ground", "O", "a", "O"),), gravity=G, ground_points={"O": (0, 0, 0)})
    yield "revolute+fixed", SpatialMechanism(
        (_body("a", (0.3, 0.0, 0.0), angular_velocity=(0, 0, 2.0)), _body("b", (0.9, 0.0, 0.0), quaternion=q)),
        (Joint("r", "revolute", "ground", "O", "a", "O", axis_i=(0.0, 0.0, 1.0)),
         Joint("f", "fixed", "a", "E", "b", "O")), gravity=G, ground_points={"O": (0, 0, 0)})
    yield "prismatic+spring", SpatialMechanism(
        (_body("a", (0.3, 0.0, 0.0), velocity=(0.5, 0.5, 0.0), quaternion=q),),
        (Joint("p", "prismatic", "ground", "O", "a", "O", axis_i=(1.0, 1.0, 0.0)),),
        spring_dampers=(SpringDamper("k", "ground", "A", "a", "E", stiffness=200.0, damping=3.0, free_length=0.2),),
        gravity=G, ground_points={"O": (0, 0, 0), "A": (-0.5, -0.5, 0.1)})
    yield "cylindrical+drivers", SpatialMechanism(
        (_body("a", (0.3, 0.0, 0.0)),),
        (Joint("c", "cylindrical", "ground", "O", "a", "O", axis_i=(0.0, 0.0, 1.0)),),
        drivers=(Driver("turn", "c", DriverFunction((0.0, 3.0), ((0.2, 5.0, 0.0),))),
                 Driver("push", "c", DriverFunction((0.0, 0.1, 0.5)), coordinate="slide")),
        gravity=G, ground_points={"O": (0, 0, 0)})
    yield "universal+loads", SpatialMechanism(
        (_body("a", (0.3, 0.0, 0.0), angular_velocity=(0.0, 1.0, 1.0)),),
        (Joint("u", "universal", "ground", "O", "a", "O", axis_i=(0.0, 0.0, 1.0), axis_j=(0.0, 1.0, 0.0)),),
        forces=(AppliedForce("F", "a", (0.0, 2.0, 1.0), point="E"),),
        torques=(AppliedTorque("T", "a", (0.5, 0.0, 0.3)),), gravity=G, ground_points={"O": (0, 0, 0)})


@pytest.mark.parametrize("path", ["fast", "scipy"])
@pytest.mark.parametrize("name, mech", list(cases()), ids=[c[0] for c in cases()])
def test_constraints_hold_and_books_close(name, mech, path):
    s = SolverSettings(t_end=0.5, output_step=0.025, rtol=1e-10, atol=1e-12, path=path)
    sim = simulate(mech, s)
    books = sim.kinetic_energy + sim.potential_energy + sim.dissipated_energy - sim.driver_work
    scale = max(np.abs(sim.kinetic_energy).max(), np.abs(sim.driver_work).max(), 1.0)
    print(f"\n{name} ({path}): books {np.abs(books - books[0]).max():.2g} J of {scale:.3g} J, drift "
          f"{sim.drift_position.max():.2g} m, quaternion drift {sim.stats['quaternion_drift']:.2g}")
    assert np.abs(books - books[0]).max() < 1e-8 * scale
    assert sim.drift_position.max() < 1e-9 and sim.drift_velocity.max() < 1e-8
    assert sim.stats["quaternion_drift"] < 1e-10
    if name == "revolute+fixed":   # b rides on a: their relative orientation stays the initial one
        from workbench.spatial.rotation import rotation_matrix
        Ra = [rotation_matrix(p) for p in sim.position[:, 0, 3:]]
        Rb = [rotation_matrix(p) for p in sim.position[:, 1, 3:]]
        rel = np.array([a.T @ b for a, b in zip(Ra, Rb)])
        assert np.abs(rel - rel[0]).max() < 1e-9
    if name == "cylindrical+drivers":   # the drivers' functions are followed
        z = sim.position[:, 0, 2]
        assert np.allclose(z, 0.1 * sim.time + 0.5 * sim.time ** 2, atol=1e-9)
        assert sim.dissipated_energy[-1] == 0.0 and abs(sim.driver_work[-1]) > 0.1
    if name == "prismatic+spring":
        assert sim.dissipated_energy[-1] > 0.0
