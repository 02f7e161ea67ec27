"""Mechanisms with spatial clearance joints for the tests (helpers; not tests).

* :func:`slider_crank` -- the Flores slider-crank (``studies/flores_slider_crank.toml``) written as
  the spatial R-U-P chain of ``tests/spatial/slider_crank.py`` with the rod-slider joint B a
  revolute clearance joint (rod: journal, slider: bushing, axis z), started like the planar
  study: journal centred, the ideal mechanism's velocities at the crank's dead centre.
* :func:`ball_in_socket` -- a ball on a free body in a socket on the ground.
"""
from __future__ import annotations

import math

from workbench.spatial import Body, Driver, DriverFunction, Joint, SpatialMechanism
from workbench.spatial.clearance import ClearanceJoint

OMEGA = 5000.0 * 2.0 * math.pi / 60.0   # rad/s, the crank speed
STEEL = dict(E=207.0e9, nu=0.3)


def slider_crank(registry, *, tilt=0.0, friction=True, restitution=0.9, axial_clearance=1e-4):
    from workbench.models import Material
    contact = registry.create("contact", "lankarani_nikravesh", {"restitution": restitution})
    fr = registry.create("friction", "ambrosio", {"c_f": 0.01, "v0": 1e-4, "v1": 1e-2}) if friction else None
    w_rod = -0.05 * OMEGA / 0.12          # rod angular velocity at the dead centre, ideal joints
    bodies = (
        Body("crank", 0.30, (1e-4, 1e-4, 1e-4), position=(0.025, 0.0, 0.0), velocity=(0.0, 0.025 * OMEGA, 0.0),
             angular_velocity=(0.0, 0.0, OMEGA), points={"O": (-0.025, 0.0, 0.0), "A": (0.025, 0.0, 0.0)}),
        Body("rod", 0.21, (2.5e-4, 2.5e-4, 2.5e-4), position=(0.11, 0.0, 0.0),
             velocity=(0.0, 0.05 * OMEGA + 0.06 * w_rod, 0.0), angular_velocity=(0.0, 0.0, w_rod),
             points={"A": (-0.06, 0.0, 0.0), "B": (0.06, 0.0, 0.0)}),
        Body("slider", 0.14, (1e-4, 1e-4, 1e-4), position=(0.17, 0.0, 0.0), points={"B": (0.0, 0.0, 0.0)}),
    )
    z = (0.0, 0.0, 1.0)
    joints = (
        Joint("O", "revolute", "ground", "O", "crank", "O", axis_i=z),
        Joint("A", "universal", "crank", "A", "rod", "A", axis_i=z, axis_j=(0.0, 1.0, 0.0)),
        Joint("guide", "prismatic", "ground", "O", "slider", "B", axis_i=(1.0, 0.0, 0.0)),
    )
    clr = (ClearanceJoint("B", "revolute", "slider", "B", "rod", "B", 0.0105, 0.0100, contact, fr, axis_i=z,
                          length=0.01, axial_clearance=axial_clearance, tilt=tilt,
                          material_i=Material(**STEEL), material_j=Material(**STEEL)),)
    drivers = (Driver("crank_speed", "O", DriverFunction((0.0, OMEGA))),)
    return SpatialMechanism(bodies, joints, drivers, gravity=(0.0, -9.81, 0.0), ground_points={"O": (0.0, 0.0, 0.0)},
                            spatial_clearance_joints=clr)


def ball_in_socket(contact, *, friction=None, position=(0.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0),
                   angular_velocity=(0.0, 0.0, 0.0), gravity=(0.0, 0.0, 0.0), mass=1.0, R_socket=0.0105,
                   R_ball=0.0100, forces=()):
    """A ball (mass ``mass`` [kg], a solid steel-like sphere's inertia) centred on its body's
    centre of mass, in a socket centred at the origin of the ground."""
    J = 0.4 * mass * R_ball ** 2
    ball = Body("ball", mass, (J, J, J), position=position, velocity=velocity, angular_velocity=angular_velocity,
                points={"C": (0.0, 0.0, 0.0)})
    cj = ClearanceJoint("socket", "spherical", "ground", "O", "ball", "C", R_socket, R_ball, contact, friction)
    return SpatialMechanism((ball,), gravity=gravity, ground_points={"O": (0.0, 0.0, 0.0)}, forces=tuple(forces),
                            spatial_clearance_joints=(cj,))
