"""Shared helpers of the study/results/CLI tests: a registry of tiny in-process models (so the
tests do not depend on which built-in plugins exist yet), a study text, and a hand-made
:class:`~workbench.mbs.solution.Simulation` with the right shapes."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from workbench.hookspecs import hookimpl
from workbench.mbs.solution import Simulation
from workbench.models import ContactLaw, FrictionLaw, parameter
from workbench.plugins import build_registry, get_plugin_manager


@njit(cache=False)  # compiled: validate compiles every model's kernel as run does
def _toy_contact_kernel(delta, delta_dot, delta_dot_minus, p):
    return p[0] * delta ** 1.5 if delta > 0.0 else 0.0


@njit(cache=False)
def _toy_friction_kernel(v_t, f_n, z, p):
    return -p[0] * f_n * (1.0 if v_t > 0 else -1.0), 0.0


class ToyContact(ContactLaw):
    """Test-only contact law ``F = K delta^1.5``."""
    name = "toy_contact"
    reference = "test helper (Hertz form, Machado et al. 2012 eq. 2)"

    @dataclass(frozen=True)
    class Params:
        stiffness: float = parameter(1e9, unit="N/m^1.5", doc="stiffness", min=0.0)
        restitution: float = parameter(0.9, unit="1", doc="coefficient of restitution", min=0.0, max=1.0)

    kernel = staticmethod(_toy_contact_kernel)

    def pack(self, geometry):
        return np.array([self.params.stiffness])


class ToyFriction(FrictionLaw):
    """Test-only Coulomb law."""
    name = "toy_friction"
    reference = "test helper (Coulomb)"

    @dataclass(frozen=True)
    class Params:
        c_f: float = parameter(0.1, unit="1", doc="friction coefficient", min=0.0)

    kernel = staticmethod(_toy_friction_kernel)

    def pack(self):
        return np.array([self.params.c_f])


class _ToyPlugin:
    @hookimpl
    def register_contact_laws(self, register):
        register(ToyContact)

    @hookimpl
    def register_friction_laws(self, register):
        register(ToyFriction)


def toy_registry():
    """A registry with only the toy models (no entry points)."""
    return build_registry(get_plugin_manager(load_entry_points=False, extra_plugins=(_ToyPlugin(),)))


STUDY_TEXT = '''
[study]
title = "toy slider-crank"

[mechanism]
ground_points = { O = [0.0, 0.0] }

[[mechanism.bodies]]
name = "crank"
mass = 0.30
inertia = 1.0e-4
position = [0.025, 0.0]
points = { O = [-0.025, 0.0], A = [0.025, 0.0] }

[[mechanism.bodies]]
name = "rod"
mass = 0.21
inertia = 2.5e-4
position = [0.11, 0.0]
points = { A = [-0.06, 0.0], B = [0.06, 0.0] }

[[mechanism.bodies]]
name = "slider"
mass = 0.14
inertia = 1.0e-4
position = [0.17, 0.0]
points = { B = [0.0, 0.0] }

[[mechanism.joints]]
name = "O"
type = "revolute"
body_i = "ground"
point_i = "O"
body_j = "crank"
point_j = "O"

[[mechanism.joints]]
name = "A"
type = "revolute"
body_i = "crank"
point_i = "A"
body_j = "rod"
point_j = "A"

[[mechanism.joints]]
name = "guide"
type = "translational"
body_i = "ground"
point_i = "O"
body_j = "slider"
point_j = "B"

[[mechanism.drivers]]
name = "motor"
body = "crank"
speed_rpm = 5000.0

[[mechanism.clearance_joints]]
name = "B"
type = "revolute"
bushing_body = "slider"
bushing_point = "B"
journal_body = "rod"
journal_point = "B"
journal_radius = 0.0100
bushing_radius = 0.0105
contact = { model = "toy_contact", restitution = 0.9 }
friction = { model = "toy_friction", c_f = 0.01 }

[solver]
revolutions = 2

[output]
step = 1.0e-4
'''


def fake_simulation(mechanism, nt: int = 50, *, n_impacts: int = 2, t_end: float = 0.024,
                    seed: int = 0) -> Simulation:
    """A Simulation with the shapes of ``mechanism`` filled with random numbers."""
    rng = np.random.default_rng(seed)
    nb, nd = len(mechanism.bodies), len(mechanism.drivers)
    nj, nc = len(mechanism.joints), len(mechanism.clearance_joints)
    r = lambda *shape: rng.normal(size=shape)  # noqa: E731
    return Simulation(
        body_names=[b.name for b in mechanism.bodies], driver_names=[d.name for d in mechanism.drivers],
        joint_names=[j.name for j in mechanism.joints],
        clearance_names=[c.name for c in mechanism.clearance_joints],
        clearance_kinds=["revolute" if hasattr(c, "journal_radius") else "translational"
                         for c in mechanism.clearance_joints],
        time=np.linspace(0.0, t_end, nt), position=r(nt, nb, 3), velocity=r(nt, nb, 3),
        acceleration=r(nt, nb, 3), driver_load=r(nt, nd), joint_reaction=r(nt, nj, 2),
        contact_force=np.abs(r(nt, nc)), friction_force=r(nt, nc), penetration=r(nt, nc) * 1e-5,
        eccentricity=r(nt, nc, 2) * 1e-4, slip_velocity=r(nt, nc), kinetic_energy=np.abs(r(nt)),
        potential_energy=r(nt), contact_energy=np.abs(r(nt)), driver_work=r(nt),
        dissipated_energy=np.abs(r(nt)), drift_position=np.abs(r(nt)) * 1e-9,
        drift_velocity=np.abs(r(nt)) * 1e-7,
        impact_time=np.sort(rng.uniform(0, t_end, n_impacts)),
        impact_velocity=np.abs(r(n_impacts)), impact_joint=np.zeros(n_impacts, dtype=int),
        impact_point=np.zeros(n_impacts, dtype=int),
        stats={"steps": 123, "rejected_steps": 4, "rhs_calls": 1000, "wall_time": 0.5})


def sigint_as_in_a_terminal():
    """``preexec_fn`` of a child that a test stops with SIGINT: SIGINT back to its default action,
    as under an interactive terminal.  A shell running a job in the background (``cmd &``) starts it
    with SIGINT ignored, every child inherits that, and a Python started so never raises
    KeyboardInterrupt: such a run of the suite must not fail these tests."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)
