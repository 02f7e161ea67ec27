"""The worn-bore rig shared by the lubrication tests of the worn film in the dynamics: a bushing
profile on 720 nodes, a Gaussian scar, and a free journal in a short-bearing film started
eccentric, moving and spinning, whose recorded film force at t = 0 the tests compare with the
kernel's."""
from __future__ import annotations

import math

import numpy as np

NODES = 720
PSI = 2 * math.pi * np.arange(NODES) / NODES
ALPHA = 0.3                           # direction of the eccentricity in the bushing frame [rad]
#: viscosity [Pa s], journal radius [m], length [m], radial clearance [m] of the rig
MU, R, L, C = 0.04, 0.01, 0.01, 2e-5


def scar(center, depth, width=0.4):
    """A Gaussian wear scar [m] of ``depth`` [m] centred at ``center`` [rad], ``width`` [rad]."""
    gap = np.angle(np.exp(1j * (PSI - center)))
    return depth * np.exp(-(gap / width) ** 2)


def start():
    """The journal's start: eccentricity [m] at 0.7 c along :data:`ALPHA`, velocity [m/s], spin [rad/s]."""
    e = 0.7 * C * np.array([math.cos(ALPHA), math.sin(ALPHA)])
    return e, np.array([1e-4, -2e-4]), 500.0


def film_force_at_start(registry, surfaces):
    """``(lubrication model, e, v, w, recorded film force [N])`` of a 1 µs run of the free journal
    in the short-bearing film on the worn ``surfaces`` (bushing, journal profiles [m])."""
    from mechanisms import free_journal
    from workbench.mbs.solution import SolverSettings
    from workbench.mbs.solver import simulate
    lub = registry.create("lubrication", "short_bearing", {"viscosity": MU})
    mech = free_journal(registry, lub, journal_radius=R, clearance=C, length=L)
    e, v, w = start()
    sim = simulate(mech, SolverSettings(t_end=1e-6, output_step=1e-6),
                   surfaces={0: surfaces}, initial=(np.array([*e, 0.0]), np.array([*v, w])))
    return lub, e, v, w, float(np.asarray(sim.film_force)[0, 0])
