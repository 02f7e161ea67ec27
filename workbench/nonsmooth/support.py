"""What a study may not ask of set-valued friction laws (which engine runs them is decided by
:func:`workbench.engines.select`; the event-driven engine's own checks are in
:mod:`workbench.engines.event_driven`).

Light on imports on purpose: the study loader calls :func:`set_valued_problems` for every study.
"""
from __future__ import annotations


def is_set_valued(model) -> bool:
    """Whether a friction model is set-valued (``set_valued = True`` on its class)."""
    return model is not None and bool(getattr(type(model), "set_valued", False))


def _index(raw, name) -> str:
    for i, t in enumerate(raw or ()):
        if isinstance(t, dict) and t.get("name") == name:
            return str(i)
    return "?"


def set_valued_problems(joints, clearance, table) -> list[tuple[str, str]]:
    """``(key, message)`` for every use of a set-valued friction law the solvers cannot run.

    ``joints`` and ``clearance`` are the parsed ideal and clearance joints, ``table`` the
    ``[mechanism]`` table as read (for the indices in the keys).
    """
    raw_c = table.get("clearance_joints") if isinstance(table.get("clearance_joints"), list) else []
    out = []
    for c in clearance:
        if is_set_valued(c.friction):
            out.append((f"mechanism.clearance_joints[{_index(raw_c, c.name)}].friction.model",
                        f"'{c.friction.name}' is a set-valued law (stick and slip, no regularisation "
                        f"velocity); the compliant contact of clearance joint '{c.name}' needs a "
                        f"regularised law. Valid choices here: coulomb, ambrosio, bai_zhao, lugre "
                        f"(or make the joint ideal: [[mechanism.joints]] with friction = "
                        f"{{model = \"{c.friction.name}\", ...}})"))
    set_valued = [j for j in joints if is_set_valued(getattr(j, "friction", None))]
    # what the event-driven engine takes of these joints: workbench.engines.event_driven.problems
    if set_valued and clearance:
        out.append(("mechanism.clearance_joints",
                    f"the joints {', '.join(repr(j.name) for j in set_valued)} carry set-valued "
                    f"friction, run by the event-driven solver, which has no clearance joints; "
                    f"valid: no clearance joints in this mechanism (or regularised friction)"))
    return out
