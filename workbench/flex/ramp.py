"""The speed-ramp start of a mechanism with flexible beams (``[solver] ramp`` [s]).

An undeformed rod started at full speed is a step load: its axial mode (kHz) is excited and,
undamped, never dies out.  With ``ramp = tau > 0`` the flexible solver first runs a *pre-roll* over
``[t_start - tau, t_start]`` in which the first angle driver's speed rises smoothly from rest to its
constant value ``omega``:

    omega(t) = omega (3 x^2 - 2 x^3),   x = (t - t_start + tau) / tau,

(the cubic smoothstep: the crank's angular acceleration is zero at both ends of the ramp, so the
angle is twice continuously differentiable across ``t_start``), i.e. the angle

    phi(t) = phi(t_start) - omega tau / 2 + omega tau (x^3 - x^4 / 2),

which reaches the study's own driver ``phi(t_start) = phi_0 + omega t_start`` with its speed and
zero acceleration at ``x = 1``.  The mechanism starts the pre-roll assembled at rest (the
consistent start at zero speed: no step; the beams placed unstrained, as rigid bodies; the crank
turned back from its given angle by continuation, so the mechanism keeps the branch of its given
configuration -- :func:`pre_roll_start`), and the
study's run starts at ``t_start`` from the
pre-roll's final state: the recorded window, the driver and everything after ``t_start`` are the
study's own.  A ramp several times longer than the axial mode's period is quasi-static for that
mode (the rod follows the slowly growing inertia load without ringing).
"""
from __future__ import annotations

import dataclasses

import numpy as np
from numpy.polynomial import Polynomial

from ..mbs.mechanism import DriverFunction


def ramp_function(function: DriverFunction, t_start: float, ramp: float) -> DriverFunction:
    """The pre-roll driver of a constant-speed angle driver ``function`` (``phi_0 + omega t``):
    speed from 0 at ``t_start - ramp`` [s] to ``omega`` at ``t_start`` [s] (module docstring)."""
    phi0, w = (float(c) for c in function.polynomial)
    a = t_start - ramp
    x = Polynomial([-a / ramp, 1.0 / ramp])               # x(t)
    shape = Polynomial([0.0, 0.0, 0.0, 1.0, -0.5])        # S(x) = x^3 - x^4 / 2, S'(x) = 3x^2 - 2x^3
    p = (phi0 + w * t_start - 0.5 * w * ramp) + w * ramp * shape(x)
    return DriverFunction(polynomial=tuple(float(c) for c in p.coef))


def ramp_problems(mechanism, solver) -> list[tuple[str, str]]:
    """``(key, message)`` of what a run with ``[solver] ramp`` > 0 would reject."""
    ramp = float(getattr(solver, "ramp", 0.0) or 0.0)
    if ramp <= 0.0:
        return []
    if not getattr(mechanism, "beams", ()):
        return [("solver.ramp", f"ramp = {ramp:g} s: the speed-ramp start runs with flexible beams only "
                                f"(this mechanism is rigid, it starts consistently at full speed); valid: 0")]
    d = mechanism.first_angle_driver()
    f = d.function if d is not None else None
    if f is None or f.harmonics or len(f.polynomial) != 2 or f.polynomial[1] == 0.0:
        return [("solver.ramp", f"ramp = {ramp:g} s needs a constant-speed angle driver (phi_0 + omega t) "
                                f"to ramp; valid: a [[mechanism.drivers]] with speed_rpm, or ramp = 0")]
    return []


def pre_roll_start(pre, t: float):
    """``(q, v)`` of the pre-roll mechanism ``pre`` at ``t`` [s]: the consistent start
    (:func:`workbench.flex.start.consistent_start`: the beams placed unstrained, as rigid bodies, the
    crank driven back from the given positions to the ramp's start angle by continuation, so the
    mechanism keeps the branch of its given configuration; at rest, the ramp's speed being zero)."""
    from .mechanism import FlexModel
    from .start import consistent_start
    return consistent_start(FlexModel(pre), t)


def pre_roll(mech, settings):
    """``(pre, settings)``: the pre-roll's mechanism (the ramp's driver, the bodies at rest) and
    solver settings (over ``[t_start - ramp, t_start]``, one output sample at its end)."""
    d = mech.first_angle_driver()
    ramp = float(settings.ramp)
    f = ramp_function(d.function, float(settings.t_start), ramp)
    drivers = tuple(dataclasses.replace(x, function=f) if x is d else x for x in mech.drivers)
    # assembled at rest: the bodies' velocity guesses are the consistent start's, set to zero
    bodies = tuple(dataclasses.replace(b, velocity=(0.0, 0.0), angular_velocity=0.0) for b in mech.bodies)
    pre = dataclasses.replace(mech, drivers=drivers, bodies=bodies)
    s1 = dataclasses.replace(settings, t_start=settings.t_start - ramp, t_end=settings.t_start, output_step=ramp,
                             ramp=0.0)
    return pre, s1


def ramped_start(mech, settings, *, surfaces=None, geometries=None):
    """``(q, v)`` at ``settings.t_start`` after the pre-roll (module docstring) of ``mech``."""
    from .solver import simulate
    pre, s1 = pre_roll(mech, settings)
    q0, v0 = pre_roll_start(pre, s1.t_start)
    sim = simulate(pre, s1, surfaces=surfaces, geometries=geometries, initial=(q0, v0))
    q = [sim.position[-1].ravel()] + [sim.flex[b.name]["coordinates"][-1].ravel() for b in mech.beams]
    v = [sim.velocity[-1].ravel()] + [sim.flex[b.name]["velocities"][-1].ravel() for b in mech.beams]
    return np.concatenate(q), np.concatenate(v)
