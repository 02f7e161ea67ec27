"""Spatial clearance joints: elements of the spatial engine (:mod:`workbench.spatial`) whose
reaction comes from the contact-force and friction plugins instead of constraint equations.

* :mod:`.joints` — the joints as data (:class:`ClearanceJoint`: ``spherical``, ``revolute``,
  ``cylindrical``) and their checks;
* :mod:`.geometry` — the contact points of each joint: penetration, normal, the two material
  points (ball in socket; the two rims of a journal, possibly tilted, in its bushing; the axial
  contact against the bushing's shoulders);
* :mod:`.forces` — the contact and friction forces as generalised forces of the spatial model,
  their powers and records;
* :mod:`.run` — the event-driven integration: every contact start and end is located, the
  approach speed at the start is what the contact law sees (as in the planar engine).

Equations and sources: ``docs/spatial.md`` (section "Clearance joints").
"""
from .joints import CLEARANCE_TYPES, ClearanceJoint

__all__ = ["CLEARANCE_TYPES", "ClearanceJoint"]
