"""Two bars in a row on two revolute joints with friction (test helper): ``hip`` (ground to bar 1)
and ``knee`` (bar 1's end to bar 2), axes along z, gravity ``-g`` along y, both bars horizontal
along +x at rest."""
from __future__ import annotations

from workbench.spatial import Body, Joint, SpatialMechanism

L, A, RHO, G = 1.0, 0.1, 7800.0, 9.80665
M = RHO * L * A * A
J_C = M * (L * L + A * A) / 12     # about a bar's centre, for turning about z [kg m^2]


def mechanism(hip_law, knee_law, *, R_hip, R_knee, length=0.1) -> SpatialMechanism:
    """``R_hip``, ``R_knee``: the joints' friction radii [m]; ``length``: their end-face distance [m]."""
    J = (M * 2 * A * A / 12, J_C, J_C)
    b1 = Body("bar1", M, J, position=(L / 2, 0.0, 0.0), points={"P": (-L / 2, 0.0, 0.0), "Q": (L / 2, 0.0, 0.0)})
    b2 = Body("bar2", M, J, position=(3 * L / 2, 0.0, 0.0), points={"P": (-L / 2, 0.0, 0.0)})
    joints = (Joint("hip", "revolute", "ground", "O", "bar1", "P", axis_i=(0.0, 0.0, 1.0), friction=hip_law,
                    radius=R_hip, length=length, sleeve="j"),
              Joint("knee", "revolute", "bar1", "Q", "bar2", "P", axis_i=(0.0, 0.0, 1.0), friction=knee_law,
                    radius=R_knee, length=length, sleeve="j"))
    return SpatialMechanism((b1, b2), joints, gravity=(0.0, -G, 0.0), ground_points={"O": (0.0, 0.0, 0.0)})
