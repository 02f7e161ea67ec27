"""Spatial (3-D) rigid multibody dynamics: bodies with full inertia tensors, orientations by Euler
parameters, ideal spherical, revolute, cylindrical, prismatic, universal and fixed joints,
drivers, springs and applied loads, and joint friction from the constraint reactions (Qi, Luo &
Huang (2009)).

Layer: engines and physics (it never imports a study kind, the CLI or :mod:`workbench.results`).
The engine of :mod:`workbench.engines` that runs it is ``spatial``
(:mod:`workbench.engines.spatial`).

* :mod:`.mechanism` — the mechanism as data (:class:`SpatialMechanism` and its parts);
* :mod:`.rotation` — Euler parameters;
* :mod:`.model` — the compiled arrays and the equations of motion (index-1 DAE, Baumgarte);
* :mod:`.joint_friction` — Qi, Luo & Huang (2009) eqs. 1-58;
* :mod:`.solver` — assembly, integration, the :class:`~workbench.mbs.solution.Simulation`.
"""
from .mechanism import (GROUND, AppliedForce, AppliedTorque, Body, Driver, DriverFunction, Joint,
                        SpatialMechanism, SpringDamper)

__all__ = ["GROUND", "AppliedForce", "AppliedTorque", "Body", "Driver", "DriverFunction", "Joint",
           "SpatialMechanism", "SpringDamper", "simulate"]


def simulate(mechanism, settings, **kw):
    """Run a :class:`SpatialMechanism` (:func:`workbench.spatial.solver.simulate`)."""
    from .solver import simulate as _simulate
    return _simulate(mechanism, settings, **kw)
