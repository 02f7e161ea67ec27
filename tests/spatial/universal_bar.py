"""A bar hanging from a universal joint (test helper): the Qi, Luo & Huang (2009) §5 bar on a
universal joint at its end, cross axis ``a = z`` fixed in the ground, ``b`` the bar's body y."""
from __future__ import annotations

import math

import numpy as np

from workbench.spatial import Body, Joint, SpatialMechanism
from workbench.spatial.rotation import from_matrix

L, A, RHO, G = 1.0, 0.1, 7800.0, 9.80665
M = RHO * L * A * A


def rz(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def ry(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def mechanism(friction, *, phi=-math.pi / 2, psi=0.0, R1=0.2, R2=0.1, length1=0.1, length2=0.1) -> SpatialMechanism:
    """The bar at rest, turned ``phi`` [rad] about the ground axis z (from +x) and tilted ``psi`` [rad]
    about its own y axis (``R0 = Rz(phi) Ry(psi)``); journal radii ``R1`` (axis a), ``R2`` (axis b) [m]."""
    J = (M * 2 * A * A / 12, M * (L * L + A * A) / 12, M * (L * L + A * A) / 12)
    R0 = rz(phi) @ ry(psi)
    bar = Body("bar", M, J, position=tuple(R0 @ np.array([L / 2, 0.0, 0.0])), quaternion=tuple(from_matrix(R0)),
               points={"P": (-L / 2, 0.0, 0.0)}, shape=("box", (L, A, A)))
    j = Joint("cross", "universal", "ground", "O", "bar", "P", axis_i=(0.0, 0.0, 1.0), axis_j=(0.0, 1.0, 0.0),
              friction=friction, radius=R1, length=length1, radius_j=R2, length_j=length2)
    return SpatialMechanism((bar,), (j,), gravity=(0.0, -G, 0.0), ground_points={"O": (0.0, 0.0, 0.0)})
