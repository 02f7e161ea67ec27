"""The Flores slider-crank with ideal joints (``studies/ideal_slider_crank.toml``) written as a
spatial mechanism.

A planar loop of four revolute-type joints is over-constrained in space (20 equations for 18
coordinates and one degree of freedom: the out-of-plane rows of the loop repeat each other), so
the spatial model is the classical R-U-S-P chain that has the same planar motion and exactly
one degree of freedom: crank on the ground by a revolute joint (axis z), rod on the crank by a
universal joint (cross axes: the crank's z and the rod's in-plane normal y, which lets the rod
turn about z and locks its spin about its own axis), slider on the rod by a spherical joint,
slider on the ground by a prismatic joint along x.  The out-of-plane moments of inertia are
not in the planar data; they are set equal to the in-plane one (the motion stays planar, so
they do not enter the in-plane results).
"""
from __future__ import annotations

import math

from workbench.spatial import Body, Driver, DriverFunction, Joint, SpatialMechanism

OMEGA = 5000.0 * 2.0 * math.pi / 60.0   # rad/s


def mechanism() -> SpatialMechanism:
    bodies = (
        Body("crank", 0.30, (1e-4, 1e-4, 1e-4), position=(0.025, 0.0, 0.0),
             points={"O": (-0.025, 0.0, 0.0), "A": (0.025, 0.0, 0.0)}),
        Body("rod", 0.21, (2.5e-4, 2.5e-4, 2.5e-4), position=(0.11, 0.0, 0.0),
             points={"A": (-0.06, 0.0, 0.0), "B": (0.06, 0.0, 0.0)}),
        Body("slider", 0.14, (1e-4, 1e-4, 1e-4), position=(0.17, 0.0, 0.0), points={"B": (0.0, 0.0, 0.0)}),
    )
    z = (0.0, 0.0, 1.0)
    joints = (
        Joint("O", "revolute", "ground", "O", "crank", "O", axis_i=z),
        Joint("A", "universal", "crank", "A", "rod", "A", axis_i=z, axis_j=(0.0, 1.0, 0.0)),
        Joint("B", "spherical", "slider", "B", "rod", "B"),
        Joint("guide", "prismatic", "ground", "O", "slider", "B", axis_i=(1.0, 0.0, 0.0)),
    )
    drivers = (Driver("crank_speed", "O", DriverFunction((0.0, OMEGA))),)
    return SpatialMechanism(bodies, joints, drivers, gravity=(0.0, -9.81, 0.0),
                            ground_points={"O": (0.0, 0.0, 0.0)})
