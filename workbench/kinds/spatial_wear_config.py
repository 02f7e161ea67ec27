"""The ``[wear]`` table of a wear study on a spatial mechanism (``[mechanism] dimension = 3``),
checked into a :class:`workbench.wear.spatial_loop.SpatialWearConfig`: journals (revolute,
cylindrical) wear maps over ``(theta, z)``, balls (spherical) caps over ``(theta, phi)``.

The keys are the planar ``[wear]`` table's (:data:`workbench.study.schema.WEAR`, one definition;
``z_nodes`` is read here only); this module adds what only a spatial mechanism can check: the worn joints are
spatial clearance joints of one kind (journals or balls), the pressure model is the Winkler layer the
worn maps are pressed with (:mod:`workbench.wear.spatial_map`), the wear law has no memory of the
sliding distance, and the planar-only keys keep their defaults.
"""
from __future__ import annotations

import math
from typing import Any

from ..errors import choices_text, did_you_mean
from ..study import schema as S
from .wear_config import read_wear_models

#: pressure models the worn maps are pressed with
PRESSURE_MODELS = ("winkler",)
#: planar-only keys that must keep their defaults on a spatial mechanism (key -> why)
PLANAR_ONLY = {"chains": "replica chains", "stiffness": "the worn contact-law stiffness",
               "output_body": "the ideal-mechanism comparison", "output_coordinate": "the ideal-mechanism "
               "comparison", "dynamics_every": "stored dynamics records"}


def cycle_period(mechanism) -> float | None:
    """``2 pi / |speed|`` [s] of the first constant-speed angle driver, or ``None``."""
    for d in mechanism.drivers:
        f = d.function
        if d.coordinate == "angle" and not f.harmonics and len(f.polynomial) == 2 and f.polynomial[1] != 0.0:
            return 2.0 * math.pi / abs(f.polynomial[1])
    return None


def parse_spatial_wear(table: Any, mechanism, registry, probs: S.Problems, model_reader):
    """Check ``[wear]`` of a spatial wear study; problems go to ``probs`` (key, value, choices)."""
    from ..wear.spatial_loop import SpatialWearConfig
    read = read_wear_models(table, mechanism, registry, probs, model_reader)
    if read is None:
        return None
    v, pressure, law = read
    if pressure.name not in PRESSURE_MODELS:
        probs.add("wear.pressure.model", f"'{pressure.name}' cannot press a spatial joint's worn map (a rigid "
                                         f"journal line on an elastic layer); valid: {choices_text(PRESSURE_MODELS)}")
    elif getattr(pressure.params, "calibrate", "none") != "none":
        probs.add("wear.pressure.calibrate", f"'{pressure.params.calibrate}': the worn map's layer modulus is "
                                             f"the textbook one; valid: 'none'")
    every = mechanism.spatial_clearance_joints
    maps = {c.name: i for i, c in enumerate(every)}
    if not maps:
        probs.add("mechanism.clearance_joints", "a spatial wear study needs a clearance joint to wear")
        return None
    # default: the journals, or the balls when there is no journal (one kind of map per study)
    journals = tuple(c.name for c in every if c.type != "spherical")
    names = v["joints"] if v["joints"] is not None else (journals or tuple(maps))
    joints = []
    for k, name in enumerate(names):
        if name not in maps:
            probs.add(f"wear.joints[{k}]", f"'{name}' is not a clearance joint.{did_you_mean(name, maps)} "
                                           f"Valid: {choices_text(maps)}")
        else:
            joints.append(maps[name])
    balls = [every[j].name for j in joints if every[j].type == "spherical"]
    if balls and len(balls) < len(joints):
        probs.add("wear.joints", f"{list(names)} mixes ball joints ({', '.join(balls)}: caps over theta, phi) with "
                                 f"journals (maps over theta, z); wear one kind per study")
    if balls and v["bushing_share"] != 1.0:
        probs.add("wear.bushing_share", f"{v['bushing_share']!r}: a ball joint's wear goes to its socket; valid: 1.0")
    for key, why in PLANAR_ONLY.items():
        t = table.get(key) if isinstance(table, dict) else None
        if t is not None:
            probs.add(f"wear.{key}", f"{t!r}: {why} is not made for spatial mechanisms; remove the key")
    z_nodes = v["z_nodes"]
    period = v["cycle_period"] if v["cycle_period"] is not None else cycle_period(mechanism)
    if period is None:
        probs.add("wear.cycle_period", "no constant-speed angle driver to take the cycle from; give "
                                       "'cycle_period' [s]")
    if v["max_average_cycles"] < v["average_cycles"]:
        probs.add("wear.max_average_cycles", f"{v['max_average_cycles']} is below average_cycles = "
                                             f"{v['average_cycles']}")
    if probs.items:
        return None
    return SpatialWearConfig(
        cycles=v["cycles"], cycle_period=period, nodes=v["nodes"], z_nodes=z_nodes, joints=tuple(joints),
        pressure=pressure, law=law, settle_cycles=v["settle_cycles"], samples_per_cycle=v["samples_per_cycle"],
        average_cycles=v["average_cycles"], max_average_cycles=v["max_average_cycles"],
        rate_tolerance=v["rate_tolerance"], profile_tolerance=v["profile_tolerance"],
        jump_tolerance=v["jump_tolerance"], jump_control=v["jump_control"],
        penetration_limit=v["penetration_limit"], outlier_k=v["outlier_k"], bushing_share=v["bushing_share"],
        depth_step=v["depth_step"], hardness_limit=v["hardness_limit"], max_cycle_jump=v["max_cycle_jump"] if v["max_cycle_jump"] is not None else math.inf)
