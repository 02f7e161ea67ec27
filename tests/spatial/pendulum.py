"""The pendulum of Qi, Luo & Huang (2009) §5 built in code (the same data as
``studies/qi_pendulum.toml``)."""
from __future__ import annotations

from workbench.spatial import AppliedForce, Body, Joint, SpatialMechanism

L, A, RHO, G = 1.0, 0.1, 7800.0, 9.80665


def mechanism(friction, *, joint="cylindrical", v0=1.0, R=0.05, length=1.0, axial_force=0.0,
              axial_arm=0.0) -> SpatialMechanism:
    """``axial_force`` [N] along +z on the bar at ``axial_arm`` [m] from its joint point along the bar."""
    m = RHO * L * A * A
    J = (m * 2 * A * A / 12, m * (L * L + A * A) / 12, m * (L * L + A * A) / 12)
    bar = Body("bar", m, J, position=(L / 2, 0.0, 0.0), velocity=(0.0, 0.0, v0 if joint == "cylindrical" else 0.0),
               points={"P": (-L / 2, 0.0, 0.0), "A": (-L / 2 + axial_arm, 0.0, 0.0)}, shape=("box", (L, A, A)))
    j = Joint("shaft", joint, "ground", "O", "bar", "P", axis_i=(0.0, 0.0, 1.0), friction=friction,
              radius=R, length=length, sleeve="j")
    forces = (AppliedForce("axial", "bar", (0.0, 0.0, axial_force), point="A"),) if axial_force else ()
    return SpatialMechanism((bar,), (j,), gravity=(0.0, -G, 0.0), ground_points={"O": (0.0, 0.0, 0.0)},
                            forces=forces)
