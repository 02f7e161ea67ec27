"""Flexible beams in the wear loop: the averaging cycles of a mechanism with ANCF beams run on the
implicit solver (the ``generalized_alpha`` engine, :mod:`workbench.engines.generalized_alpha`,
which :func:`workbench.engines.select` picks for a mechanism with beams).

The flexible solver takes the same ``surfaces`` / ``geometries`` as the rigid one and hands them
to :func:`workbench.mbs.compiled.compile_mechanism` for its proxy bodies
(:mod:`workbench.flex.clearance`): a clearance joint at a beam end sees its worn bushing and
journal profiles through the rigid path's own worn-gap kernels, in the frame of the beam's end
(position and slope direction).  It returns the same :class:`~workbench.mbs.solution.Simulation`
(contact force, friction, contact angle, relative rotation, slip velocity, penetration, impacts)
that :meth:`workbench.wear.increment.ContactSamples.from_simulation` reads, so the statistics, the
store, resume and the plots are those of a rigid mechanism.

Start-up protocol: every update starts from the assembled state (the flexible solver's
consistent start: the ideal mechanism's configuration and velocity field, beams moved rigidly,
:mod:`workbench.flex.start`), which is a step load on
a beam; its axial mode rings until its damping (Kelvin-Voigt ``damping`` of the beam, or the
generalised-alpha scheme's numerical damping) has taken it out.  The wear loop's
``settle_cycles`` are the cycles given to that transient before the averaging starts: a study
states which damping it uses and how many settle cycles that needs.

What is not supported yet with beams (``validate`` refuses it, :func:`wear_problems`): worn
translational joints (their guide nodes come from a rigid ideal run) and the dynamics' own
pressure (``pressure = "dynamics"``, which re-evaluates the contact on the rigid bodies' samples);
the engine reports them as its problems.
"""
from __future__ import annotations


def wear_problems(mechanism, wear) -> list[tuple[str, str]]:
    """``(key, message)`` of everything a wear run of ``mechanism`` (with beams) under the wear
    table ``wear`` would reject."""
    out = []
    if not getattr(mechanism, "beams", ()) or wear is None:
        return out
    for j in getattr(wear, "guides", ()) or ():
        c = mechanism.clearance_joints[j]
        out.append(("wear.joints", f"clearance joint '{c.name}' is translational: worn translational "
                                   f"joints run with rigid bodies only (the mechanism has flexible beams); "
                                   f"valid: the revolute clearance joints of the mechanism"))
    from .coupled import MODEL, is_coupled
    if is_coupled(wear):
        out.append(("wear.pressure.model", f"'{MODEL}' (the dynamics' own pressure) runs with rigid bodies "
                                           f"only (the mechanism has flexible beams); valid: a pressure model "
                                           f"that computes its own field (approximate_area, winkler, fem)"))
    if getattr(wear, "chains", 1) > 1:
        out.append(("wear.chains", f"{wear.chains}: replicas run with rigid bodies only (the mechanism has "
                                   f"flexible beams); valid: 1"))
    return out
