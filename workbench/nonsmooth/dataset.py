"""A dynamics study run by the event-driven solver: :func:`simulate` returns the
:class:`~workbench.mbs.solution.Simulation` of the dynamics kind, the event run and its samples.

The dataset (the dynamics kind's variables, the frictional joints' own variables on the dimension
``friction_joint`` and the event table of :mod:`.events`) is built by
:func:`workbench.kinds.dynamics_run.event_driven_dataset`; the event-driven solver has no
clearance joints, so its events are friction events and its ``impact`` table stays empty.
"""
from __future__ import annotations

import time as _time

import numpy as np

from .event_driven import System
from .phases import integrate, sample


def simulate(mech, settings, *, regularisation: float = 0.0):
    """Run ``mech`` with :class:`~workbench.mbs.solution.SolverSettings` ``settings`` by the
    event-driven solver; return ``(Simulation, EventRun, samples)``.

    ``settings`` gives t_start/t_end [s], output_step [s], rtol [1], atol, max_step [s], the
    Baumgarte factors [1/s] and the scipy ``method``.  ``regularisation`` [m/s] > 0 runs the
    regularised law instead (:class:`~workbench.nonsmooth.event_driven.System`).
    """
    from ..mbs.equations import mechanical_energy
    from ..mbs.solution import Simulation
    wall = _time.perf_counter()
    system = System(mech, alpha=settings.baumgarte_alpha, beta=settings.baumgarte_beta,
                    t0=settings.t_start, regularisation=regularisation)
    run = integrate(system, settings.t_end, t0=settings.t_start, rtol=settings.rtol,
                    atol=settings.atol, max_step=settings.max_step, method=settings.method)
    n_out = int(np.floor((settings.t_end - settings.t_start) / settings.output_step + 1e-9)) + 1
    times = settings.t_start + settings.output_step * np.arange(n_out)
    if run.status != "complete":                  # interrupted: the samples it reached
        times = times[times <= run.phases[-1].t1]
    smp = sample(run, times)
    cm = system.cm
    n, nb, nt = system.n, cm.nb, len(times)
    Y = smp["y"]
    KE, PE = np.zeros(nt), np.zeros(nt)
    for k in range(nt):
        KE[k], PE[k] = mechanical_energy(Y[k, :2 * n], n, cm.mass, cm.gravity, cm.frc_i, cm.frc_f)
    LAM = smp["lam"]
    from ..mbs.solver import joint_reactions
    reac = joint_reactions(cm, Y, LAM)
    empty = np.zeros((nt, 0))
    stats = dict(run.stats)
    stats["wall_time"] = _time.perf_counter() - wall
    sim = Simulation(
        body_names=[b.name for b in mech.bodies], driver_names=[d.name for d in mech.drivers],
        joint_names=[j.name for j in mech.joints], clearance_names=[], clearance_kinds=[],
        time=times, position=Y[:, :n].reshape(nt, nb, 3).copy(),
        velocity=Y[:, n:2 * n].reshape(nt, nb, 3).copy(), acceleration=smp["qdd"].reshape(nt, nb, 3),
        driver_load=-LAM[:, system.driver_rows] if len(system.driver_rows) else empty,
        joint_reaction=reac, contact_force=empty, friction_force=empty, penetration=empty,
        eccentricity=np.zeros((nt, 0, 2)), slip_velocity=empty, contact_angle=empty,
        relative_rotation=empty, kinetic_energy=KE, potential_energy=PE,
        contact_energy=np.zeros(nt), driver_work=Y[:, 2 * n].copy(),
        dissipated_energy=Y[:, 2 * n + 1] + Y[:, 2 * n + 2],
        drift_position=smp["drift_position"], drift_velocity=smp["drift_velocity"],
        impact_time=np.zeros(0), impact_velocity=np.zeros(0), impact_joint=np.zeros(0, np.int64),
        impact_point=np.zeros(0, np.int64), stats=stats, status=run.status)
    return sim, run, smp
