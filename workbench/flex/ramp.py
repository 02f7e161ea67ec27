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
consistent start at zero speed: no step; the beams placed unstrained, as rigid bodies), and the
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


def _rigid_beam_assembly(fm, t: float, tol: float = 1e-13, max_iter: int = 50) -> np.ndarray:
    """Positions at ``t`` [s] with every beam moved as a rigid body from its straight reference
    (Gauss-Newton over the rigid bodies' coordinates and each beam's translation and rotation
    about its first node): the unstrained start of the pre-roll.  The general assembly
    (:func:`workbench.flex.solver.assemble`) corrects every nodal coordinate by minimum
    norm, which from far off (the crank turned back by the ramp's angle) can crumple a beam."""
    from ..errors import SolverError
    n3 = 3 * fm.nb
    refs = [(o, fm.q_ref[o:o + cb.n].reshape(-1, 4).copy()) for _, cb, o in fm.beams]
    p = np.concatenate([fm.q_ref[:n3], np.zeros(3 * len(refs))])

    def place(p):
        q = fm.q_ref.copy()
        q[:n3] = p[:n3]
        G = np.zeros((fm.n, len(p)))
        G[:n3, :n3] = np.eye(n3)
        for k, (o, ref) in enumerate(refs):
            cx, cy, th = p[n3 + 3 * k:n3 + 3 * k + 3]
            c, s = np.cos(th), np.sin(th)
            R, dR = np.array([[c, -s], [s, c]]), np.array([[-s, -c], [c, -s]])
            rel = ref[:, 0:2] - ref[0, 0:2]
            blk = np.column_stack([ref[0, 0:2] + (cx, cy) + rel @ R.T, ref[:, 2:4] @ R.T])
            q[o:o + blk.size] = blk.ravel()
            dq = np.column_stack([rel @ dR.T, ref[:, 2:4] @ dR.T]).ravel()
            cols = n3 + 3 * k
            G[o:o + blk.size:4, cols] = 1.0
            G[o + 1:o + blk.size:4, cols + 1] = 1.0
            G[o:o + blk.size, cols + 2] = dq
        return q, G

    for _ in range(max_iter):
        q, G = place(p)
        Phi, B, _ = fm.constraints(q, t)
        if np.linalg.norm(Phi) < tol:
            return q
        p -= np.linalg.lstsq(B @ G, Phi, rcond=None)[0]
    raise SolverError(f"could not assemble the speed-ramp start at t = {t:.9g} s with rigid beams: constraint "
                      f"violation {np.linalg.norm(Phi):.3e} after {max_iter} Gauss-Newton iterations")


def ramped_start(mech, settings, *, surfaces=None, geometries=None):
    """``(q, v)`` at ``settings.t_start`` after the pre-roll (module docstring) of ``mech``."""
    from .solver import simulate
    d = mech.first_angle_driver()
    ramp = float(settings.ramp)
    f = ramp_function(d.function, float(settings.t_start), ramp)
    drivers = tuple(dataclasses.replace(x, function=f) if x is d else x for x in mech.drivers)
    # assembled at rest: the bodies' velocity guesses are the consistent start's, set to zero
    bodies = tuple(dataclasses.replace(b, velocity=(0.0, 0.0), angular_velocity=0.0) for b in mech.bodies)
    pre = dataclasses.replace(mech, drivers=drivers, bodies=bodies)
    s1 = dataclasses.replace(settings, t_start=settings.t_start - ramp, t_end=settings.t_start, output_step=ramp,
                             ramp=0.0)
    from .mechanism import FlexModel
    q0 = _rigid_beam_assembly(FlexModel(pre), s1.t_start)
    sim = simulate(pre, s1, surfaces=surfaces, geometries=geometries, initial=(q0, np.zeros_like(q0)))
    q = [sim.position[-1].ravel()] + [sim.flex[b.name]["coordinates"][-1].ravel() for b in mech.beams]
    v = [sim.velocity[-1].ravel()] + [sim.flex[b.name]["velocities"][-1].ravel() for b in mech.beams]
    return np.concatenate(q), np.concatenate(v)
