"""Force elements, drivers and ideal joints against closed forms (no clearance joints)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.mbs.mechanism import (Body, ConstantForce, ConstantTorque, Driver, DriverFunction, Mechanism,
                                     RevoluteJoint, SpringDamper, TranslationalJoint)
from workbench.mbs.solution import SolverSettings
from workbench.mbs.solver import simulate

TIGHT = dict(rtol=1e-10, atol=1e-13)


def test_damped_oscillator_on_a_translational_joint():
    """Mass on a horizontal guide with spring k, damper c and a constant force F:
    x(t) = F/k + (x0 - F/k) e^(-z w t) (cos wd t + z w/wd sin wd t) (linear oscillator)."""
    m, k, c, F, x0 = 2.0, 800.0, 4.0, 10.0, 0.05
    body = Body("mass", m, 0.1, position=(x0, 0.0), points={"P": (0.0, 0.0)})
    mech = Mechanism((body,),
                     (TranslationalJoint("guide", "ground", "O", "mass", "P", axis=(1.0, 0.0)),),
                     (), (SpringDamper("spring", "ground", "O", "mass", "P", stiffness=k, damping=c),
                          ConstantForce("push", "mass", (F, 0.0), "P")),
                     (), {"O": (0.0, 0.0)}, (0.0, -9.81))
    sim = simulate(mech, SolverSettings(t_end=0.5, output_step=1e-3, **TIGHT))
    w = math.sqrt(k / m); z = c / (2 * math.sqrt(k * m)); wd = w * math.sqrt(1 - z * z)
    t = sim.time
    exact = F / k + (x0 - F / k) * np.exp(-z * w * t) * (np.cos(wd * t) + z * w / wd * np.sin(wd * t))
    assert np.max(np.abs(sim.position[:, 0, 0] - exact)) < 1e-8
    # the guide carries the weight: reaction on the mass = +m g in y
    assert np.allclose(sim.joint_reaction[:, 0, 1], m * 9.81, rtol=1e-8)
    # books: the damper dissipation closes the energy balance
    books = sim.kinetic_energy + sim.potential_energy + sim.dissipated_energy
    assert np.ptp(books) < 1e-9 * books.max()


def test_pendulum_with_prescribed_harmonic_motion_needs_inverse_dynamics_torque():
    """A rod pinned at one end, driven phi(t) = A sin(w t) (driver function with a harmonic):
    the driver torque equals J_O phi_dd + m g (L/2) cos(phi) (inverse dynamics), and a constant
    torque on the body is subtracted from it."""
    m, L, A, w, T = 1.5, 0.4, 0.3, 7.0, 0.2
    J = m * L ** 2 / 12
    rod = Body("rod", m, J, position=(L / 2, 0.0), points={"O": (-L / 2, 0.0)})
    mech = Mechanism((rod,), (RevoluteJoint("pin", "ground", "O", "rod", "O"),),
                     (Driver("motor", "rod", DriverFunction(polynomial=(0.0,), harmonics=((A, w, 0.0),))),),
                     (ConstantTorque("help", "rod", T),), (), {"O": (0.0, 0.0)}, (0.0, -9.81))
    sim = simulate(mech, SolverSettings(t_end=1.0, output_step=1e-2, **TIGHT))
    t = sim.time
    phi = A * np.sin(w * t)
    phidd = -A * w * w * np.sin(w * t)
    assert np.allclose(sim.position[:, 0, 2], phi, atol=1e-10)
    J_O = J + m * (L / 2) ** 2
    torque = J_O * phidd + m * 9.81 * (L / 2) * np.cos(phi) - T
    assert np.allclose(sim.driver_load[:, 0], torque, atol=1e-7 * np.abs(torque).max())


@pytest.mark.parametrize("coordinate", ["x", "y"])
def test_translation_driver_force(coordinate):
    """A free mass driven x(t) or y(t) = a t^2: the driver force is m a_dd (minus gravity in y)."""
    m, a = 3.0, 0.7
    body = Body("mass", m, 0.1)
    mech = Mechanism((body,), (), (Driver("push", "mass", DriverFunction(polynomial=(0.0, 0.0, a)),
                                          coordinate=coordinate),
                                   Driver("hold", "mass", DriverFunction(polynomial=(0.0,)),
                                          coordinate="y" if coordinate == "x" else "x"),
                                   Driver("norot", "mass", DriverFunction(polynomial=(0.0,)))),
                     (), (), {}, (0.0, -9.81))
    sim = simulate(mech, SolverSettings(t_end=0.2, output_step=1e-2, **TIGHT))
    expected = 2 * a * m + (m * 9.81 if coordinate == "y" else 0.0)
    assert np.allclose(sim.driver_load[:, 0], expected, rtol=1e-8)
