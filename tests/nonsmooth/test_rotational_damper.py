"""The rotational damper of the torque force element (``damping`` [N m s/rad]) on the compliant
fast path: a wheel pinned at its centre spins down as ``w(t) = w0 exp(-c t / I)`` (the linear
ODE I w' = -c w), and the books hold: the kinetic energy lost is the damper's dissipation."""
import math

import numpy as np

from workbench.mbs.mechanism import Body, ConstantTorque, Mechanism, RevoluteJoint
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import simulate


def test_wheel_spins_down_exponentially():
    I, c, w0 = 0.5, 0.2, 10.0          # kg m^2, N m s/rad, rad/s
    mech = Mechanism(
        bodies=(Body("wheel", 1.0, I, points={"C": (0.0, 0.0)}, angular_velocity=w0),),
        joints=(RevoluteJoint("pin", "ground", "O", "wheel", "C"),),
        forces=(ConstantTorque("damper", "wheel", 0.0, damping=c),),
        ground_points={"O": (0.0, 0.0)})
    sim = simulate(mech, SolverSettings(t_end=2.0, output_step=0.01))
    w = sim.velocity[:, 0, 2]
    np.testing.assert_allclose(w, w0 * np.exp(-c * sim.time / I), rtol=1e-8)
    books = sim.kinetic_energy - sim.kinetic_energy[0] + sim.dissipated_energy
    assert np.abs(books).max() < 1e-8 * sim.kinetic_energy[0]
    assert sim.dissipated_energy[-1] > 0.5 * 0.5 * I * w0 ** 2 * (1 - math.exp(-2 * c * 2.0 / I)) * 0.99
