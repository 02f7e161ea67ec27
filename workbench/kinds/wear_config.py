"""The ``[wear]`` table of a wear study, checked into a :class:`WearConfig`.

Keys, units and defaults are defined once in :data:`workbench.study.schema.WEAR` (and documented
from there in ``docs/study_format.md``); this module adds the checks that need the mechanism and
the plugin registry: joint and body names, the cycle period, the pressure model and wear law.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..mbs.mechanism import Mechanism, RevoluteClearanceJoint, TranslationalClearanceJoint
from ..study import schema as S
from ..errors import choices_text, did_you_mean


@dataclass(frozen=True)
class WearConfig:
    """A checked ``[wear]`` table (SI units; see ``docs/study_format.md``).

    Attributes
    ----------
    cycles : machine cycles to simulate [1].
    cycle_period : one machine cycle [s].
    settle_cycles, samples_per_cycle, nodes : counts [1].
    average_cycles, max_average_cycles : smallest and largest number of averaging cycles [1].
    rate_tolerance, profile_tolerance : largest relative standard error of the volume rate and of
        the rate profile (L2 norms) of an update [1].
    jump_tolerance : largest systematic relative change of the rate profile over a jump [1].
    jump_control : ``"last_update"`` (change over the last jump against the within-update errors)
        or ``"history"`` (trend over the last updates against the scatter about it).
    penetration_limit : largest penetration per cycle / radial clearance [1].
    outlier_k : robust outlier limit median + k MAD [1].
    hardness_limit : peak pressure / hardness that stops the run [1].
    bushing_share : fraction of the wear depth removed from the bushing [1].
    depth_step : largest depth increment per update / radial clearance [1].
    max_cycle_jump : upper bound of the cycle jump [1] (``inf`` = none).
    joints : indices of the worn revolute clearance joints in ``mechanism.clearance_joints`` (may be
        empty: a study may wear its translational joints alone, ``guides``).
    output_body : index of the body whose motion is compared with the ideal mechanism.
    output_coordinate : 0 (x [m]), 1 (y [m]) or 2 (phi [rad]).
    dynamics_every : store the dynamics of every n-th update [1].
    stiffness : ``"worn"`` or ``"nominal"`` contact-law geometry.
    chains : independent replicas of each update's dynamics, run side by side and pooled [1]
        (:mod:`.chains`).
    pressure, law : the pressure-model and wear-law instances.
    """
    cycles: float
    cycle_period: float
    settle_cycles: int
    average_cycles: int
    samples_per_cycle: int
    nodes: int
    bushing_share: float
    depth_step: float
    max_cycle_jump: float
    joints: tuple[int, ...]
    output_body: int
    output_coordinate: int
    dynamics_every: int
    stiffness: str
    pressure: Any
    law: Any
    max_average_cycles: int = 32
    rate_tolerance: float = 0.05
    profile_tolerance: float = 0.15
    jump_tolerance: float = 0.1
    penetration_limit: float = 0.5
    outlier_k: float = 10.0
    hardness_limit: float = 10.0
    jump_control: str = "last_update"   # jump control over the last updates (workbench.wear.statistics)
    guides: tuple[int, ...] = ()   # translational: indices of the worn translational clearance joints
    chains: int = 1   # replicas of each update's dynamics run side by side (workbench.wear.chains)

    @property
    def output_name(self) -> str:
        return ("x", "y", "phi")[self.output_coordinate]


def default_cycle_period(mechanism: Mechanism) -> float | None:
    """``2 pi / |speed|`` of the first constant-speed angle driver [s], or ``None``."""
    d = mechanism.first_angle_driver()
    f = d.function if d is not None else None
    if f is None or f.harmonics or len(f.polynomial) != 2 or f.polynomial[1] == 0.0:
        return None
    return 2.0 * math.pi / abs(f.polynomial[1])


def read_wear_models(table: Any, mechanism, registry, probs: S.Problems, model_reader):
    """``(values, pressure model, wear law)`` of a ``[wear]`` table, or None when the table, its
    models or the mechanism have problems (they are in ``probs``); the planar and the spatial
    wear study's first step."""
    v = S.read_table(table, S.WEAR, "wear", probs)
    if v is None:
        return None
    pressure = law = S.BAD
    if v["pressure"] is not S.BAD:
        pressure = model_reader(registry, "pressure", v["pressure"], "wear.pressure", probs)
    if v["law"] is not S.BAD:
        law = model_reader(registry, "wear", v["law"], "wear.law", probs)
    if mechanism is None or S.has_bad(v) or pressure is S.BAD or law is S.BAD:
        return None
    return v, pressure, law


def parse_wear(table: Any, mechanism: Mechanism | None, registry, probs: S.Problems,
               model_reader) -> WearConfig | None:
    """Check ``[wear]``; problems go to ``probs``.  ``model_reader(registry, family, table, path,
    probs)`` builds a model from ``{model = ...}`` (the study loader's own reader)."""
    read = read_wear_models(table, mechanism, registry, probs, model_reader)
    if read is None:
        return None
    v, pressure, law = read
    if isinstance(table, dict) and "z_nodes" in table:
        probs.add("wear.z_nodes", f"{table['z_nodes']!r}: the nodes along a worn map's axis are for spatial "
                                  f"mechanisms ([mechanism] dimension = 3); remove the key")
    revolute = {c.name: i for i, c in enumerate(mechanism.clearance_joints)
                if isinstance(c, RevoluteClearanceJoint)}
    translational = {c.name: i for i, c in enumerate(mechanism.clearance_joints)
                     if isinstance(c, TranslationalClearanceJoint)}
    if not revolute and not translational:
        probs.add("mechanism.clearance_joints", "a wear study needs at least one clearance joint to wear "
                                                "([[mechanism.clearance_joints]] type = \"revolute\" or "
                                                "\"translational\")")
        return None
    # default: every revolute clearance joint; a mechanism without one wears its translational joints
    names = v["joints"] if v["joints"] is not None else (tuple(revolute) or tuple(translational))
    if not names:
        probs.add("wear.joints", f"names no clearance joint to wear; valid: "
                                 f"{choices_text({**revolute, **translational})}")
        return None
    joints = []
    guides = [translational[n] for n in names if n in translational]
    if guides:
        from ..wear.translational import pressure_problem
        why = pressure_problem(pressure)
        if why is not None:
            probs.add("wear.pressure", why)
    valid = {**revolute, **translational}
    for k, name in enumerate(names):
        if name in translational:   # translational
            continue
        if name not in revolute:
            probs.add(f"wear.joints[{k}]", f"'{name}' is not a clearance joint."
                                           f"{did_you_mean(name, valid)} Valid: {choices_text(valid)}")
        else:
            joints.append(revolute[name])
    bodies = [b.name for b in mechanism.bodies]
    body = v["output_body"] if v["output_body"] is not None else bodies[-1]
    if body not in bodies:
        probs.add("wear.output_body", f"unknown body '{body}'.{did_you_mean(body, bodies)} "
                                      f"Valid: {choices_text(bodies)}")
    period = v["cycle_period"]
    if period is None:
        period = default_cycle_period(mechanism)
        if period is None:
            probs.add("wear.cycle_period", "no constant-speed angle driver to take the cycle from; "
                                           "give 'cycle_period' [s]")
    if v["max_average_cycles"] < v["average_cycles"]:
        probs.add("wear.max_average_cycles", f"{v['max_average_cycles']} is below average_cycles = "
                                             f"{v['average_cycles']} (the smallest number of averaging cycles)")
    if v["chains"] > v["average_cycles"]:
        probs.add("wear.chains", f"{v['chains']} chains need at least as many averaging cycles "
                                 f"(average_cycles = {v['average_cycles']}): each chain samples one or more")
    if probs.items:
        return None
    return WearConfig(
        cycles=v["cycles"], cycle_period=period, settle_cycles=v["settle_cycles"],
        average_cycles=v["average_cycles"], samples_per_cycle=v["samples_per_cycle"],
        nodes=v["nodes"], bushing_share=v["bushing_share"], depth_step=v["depth_step"],
        max_cycle_jump=v["max_cycle_jump"] if v["max_cycle_jump"] is not None else math.inf,
        joints=tuple(joints), output_body=bodies.index(body),
        output_coordinate=("x", "y", "phi").index(v["output_coordinate"]),
        dynamics_every=v["dynamics_every"], stiffness=v["stiffness"], pressure=pressure, law=law,
        max_average_cycles=v["max_average_cycles"],
        rate_tolerance=v["rate_tolerance"], profile_tolerance=v["profile_tolerance"],
        jump_tolerance=v["jump_tolerance"], penetration_limit=v["penetration_limit"],
        outlier_k=v["outlier_k"], hardness_limit=v["hardness_limit"], guides=tuple(guides),
        jump_control=v["jump_control"], chains=v["chains"])
