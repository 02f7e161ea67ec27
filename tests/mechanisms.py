"""Mechanisms built in Python (no study file) for the solver tests.

The Flores slider-crank (Flores & Ambrosio 2004; docs/validation.md): crank 0.05 m, rod 0.12 m,
masses 0.30/0.21/0.14 kg, inertias 1e-4/2.5e-4/1e-4 kg m^2, 5000 rpm, journal R = 10.0 mm in
bushing R = 10.5 mm, E = 207 GPa, nu = 0.3.
"""
from __future__ import annotations

import math

from workbench.mbs.mechanism import (Body, Driver, DriverFunction, Mechanism, RevoluteClearanceJoint,
                                     RevoluteJoint, TranslationalJoint)

R_CRANK, L_ROD = 0.05, 0.12
OMEGA = 5000.0 * 2.0 * math.pi / 60.0


def slider_crank(contact=None, friction=None, *, clearance: float = 0.5e-3, journal_radius: float = 0.010,
                 omega: float = OMEGA, gravity=(0.0, -9.81), ideal: bool = False) -> Mechanism:
    """In-line slider-crank, crank and rod along +x at t = 0; clearance at the rod-slider joint."""
    r, l = R_CRANK, L_ROD
    bodies = (
        Body("crank", 0.30, 1e-4, position=(r / 2, 0.0), angle=0.0,
             points={"O": (-r / 2, 0.0), "A": (r / 2, 0.0)}),
        Body("rod", 0.21, 2.5e-4, position=(r + l / 2, 0.0), angle=0.0,
             points={"A": (-l / 2, 0.0), "B": (l / 2, 0.0)}),
        Body("slider", 0.14, 1e-4, position=(r + l, 0.0), angle=0.0, points={"B": (0.0, 0.0)}),
    )
    joints = [RevoluteJoint("ground_crank", "ground", "O", "crank", "O"),
              RevoluteJoint("crank_rod", "crank", "A", "rod", "A"),
              TranslationalJoint("guide", "ground", "O", "slider", "B", axis=(1.0, 0.0))]
    clr = ()
    if ideal or contact is None:
        joints.append(RevoluteJoint("rod_slider", "slider", "B", "rod", "B"))
    else:
        clr = (RevoluteClearanceJoint("rod_slider", "slider", "B", "rod", "B",
                                      bushing_radius=journal_radius + clearance,
                                      journal_radius=journal_radius, contact=contact, friction=friction),)
    drivers = (Driver("motor", "crank", DriverFunction(polynomial=(0.0, omega))),)
    return Mechanism(bodies, tuple(joints), drivers, (), clr, {"O": (0.0, 0.0)}, gravity)


def free_journal(registry, lubrication, *, journal_radius: float, clearance: float, length: float,
                 mass: float = 1.0, inertia: float = 1e-4) -> Mechanism:
    """A free journal (``mass`` [kg], ``inertia`` [kg m^2]) in a ground bushing, no gravity: the
    lubricated clearance joint "J" (Hertz contact, ``lubrication`` a lubrication model) of radii
    ``journal_radius`` and ``journal_radius + clearance`` [m], ``length`` [m]."""
    return Mechanism(
        bodies=(Body("journal", mass, inertia, position=(0.0, 0.0), points={"C": (0.0, 0.0)}),), joints=(),
        clearance_joints=(RevoluteClearanceJoint(
            "J", "ground", "O", "journal", "C", bushing_radius=journal_radius + clearance,
            journal_radius=journal_radius, contact=registry.create("contact", "hertz"), length=length,
            lubrication=lubrication),),
        ground_points={"O": (0.0, 0.0)}, gravity=(0.0, 0.0))
