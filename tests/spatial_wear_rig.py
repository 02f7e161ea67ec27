"""The constant-load rigs of the spatial wear loop's tests (helpers; not tests).

A rigid journal (R_j = 10 mm, length L = 10 mm) or ball (R_j = 10 mm) in a fixed bushing or
socket lined with a Winkler layer (k_w = 3e12 Pa/m, radial clearance c = 20 um), Archard wear
(k_d = 1e-15 1/Pa), 600 rpm: the data of ``studies/journal_wear_constant_load.toml``.
"""
from __future__ import annotations

import types

from workbench.models import Material
from workbench.spatial.clearance import ClearanceJoint
from workbench.wear.spatial_loop import SpatialWearConfig

R_I, R_J, L, K, KD, RPM = 0.01002, 0.0100, 0.01, 3.0e12, 1.0e-15, 600.0
C = R_I - R_J


def ball_joint(registry) -> ClearanceJoint:
    """The rig's ball in its socket."""
    return ClearanceJoint("S", "spherical", "ground", "O", "ball", "C", R_I, R_J, registry.create("contact", "hertz", {}),
                          material_i=Material(E=3e9, nu=0.35), material_j=Material(E=207e9, nu=0.3, rigid=True))


def study(registry, *, nodes=360, z_nodes=41, cycles=2000.0, samples_per_cycle=2, joint=None, **cfg):
    """A study-like object of the rig: ``mechanism.spatial_clearance_joints`` (the journal, or
    ``joint``) and ``wear`` (a :class:`SpatialWearConfig`)."""
    contact = registry.create("contact", "hertz", {})
    jt = joint or ClearanceJoint(name="J", type="cylindrical", body_i="ground", point_i="C", body_j="journal", point_j="O",
                        radius_i=R_I, radius_j=R_J, contact=contact, length=L,
                        material_i=Material(E=3e9, nu=0.35), material_j=Material(E=207e9, nu=0.3, rigid=True))
    wear = SpatialWearConfig(cycles=cycles, cycle_period=60.0 / RPM, nodes=nodes, z_nodes=z_nodes, joints=(0,),
                             pressure=registry.create("pressure", "winkler", {"stiffness": K}),
                             law=registry.create("wear", "archard", {"wear_coefficient": KD}),
                             samples_per_cycle=samples_per_cycle, **cfg)
    return types.SimpleNamespace(mechanism=types.SimpleNamespace(spatial_clearance_joints=(jt,)), wear=wear,
                                 text="spatial rig", title="spatial rig")
