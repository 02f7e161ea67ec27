"""A dynamics study run by the event-driven solver, and its dataset.

The dataset has the dynamics kind's variables and units where they apply (built by
:func:`workbench.results.dataset.simulation_to_dataset` from a :class:`~workbench.mbs.solution.Simulation`
with no clearance joints), plus the frictional joints' own variables on the dimension
``friction_joint`` and the event table on the dimension ``event`` (:mod:`.events`: friction
events and impacts in one table with an ``event_kind`` flag; the event-driven solver has no
clearance joints, so its rows are friction events and its ``impact`` table stays empty).
"""
from __future__ import annotations

import time as _time
from pathlib import Path

import numpy as np

from ..errors import SolverError
from .event_driven import MODE_NAMES, System
from .events import event_table
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


def to_dataset(sim, run, smp, *, study=None, registry=None):
    """The dynamics dataset of ``sim`` plus the frictional joints and the event table."""
    from ..results.dataset import _var, model_info, simulation_to_dataset
    ds = simulation_to_dataset(sim, study=study, registry=registry)
    s = run.system
    names = [f.name for f in s.fj]
    T = lambda a: np.asarray(a, float).T  # noqa: E731 - (time, joint) -> (joint, time)
    pin = np.arange(s.nf) >= s.nt
    radius = np.array([f.radius if k >= s.nt else np.nan for k, f in enumerate(s.fj)])
    ds = ds.assign_coords(friction_joint=_var(("friction_joint",), np.array(names, dtype=str), "1",
                                              "ideal joint with set-valued friction"))
    ds["friction_joint_type"] = _var(("friction_joint",),
                                     np.where(pin, "revolute", "translational").astype(str), "1",
                                     "type of the frictional joint (translational: guide and slider; "
                                     "revolute: friction circle)")
    ds["joint_normal_force"] = _var(("friction_joint", "time"), T(smp["N"]), "N",
                                    "normal load of the joint: translational, its normal multiplier "
                                    "lambda_N (the sign says which side of the guide touches; force "
                                    "on the slider is -lambda_N n); revolute, |lambda|")
    ds["joint_friction_force"] = _var(("friction_joint", "time"), T(smp["F"]), "N",
                                      "friction force: on the slider along the guide axis "
                                      "(translational); at the pin's surface on body_j (revolute)")
    ds["joint_friction_moment"] = _var(("friction_joint", "time"), T(smp["F"] * radius), "N m",
                                       "friction moment on body_j of a revolute joint, pin radius "
                                       "times friction force (NaN: translational joint)")
    ds["joint_slip_velocity"] = _var(("friction_joint", "time"), T(smp["v"]), "m/s",
                                     "slip velocity: slider relative to the guide along the axis "
                                     "(translational); pin radius times the relative rate (revolute)")
    ds["joint_mode"] = _var(("friction_joint", "time"), T(smp["mode"]).astype(np.int8), "1",
                            "friction mode of the joint", flag_values=np.arange(3, dtype=np.int8),
                            flag_meanings=" ".join(MODE_NAMES))
    ds = event_table(ds, run.events, names)
    ds.attrs["solver"] = "event_driven"
    ds.attrs["solver_events"] = len(run.events)
    if study is not None:
        from ..results.dataset import json_attr
        ds.attrs["friction_models"] = json_attr(
            {j.name: model_info(j.friction, registry) for j in study.mechanism.joints
             if getattr(j, "friction", None) is not None})
    return ds


def run_study(study, *, registry, out: str | Path | None = None, selection=None):
    """Run a dynamics study whose joints carry set-valued friction on the ``event_driven``
    engine (``selection``: the :class:`~workbench.engines.base.Selection` the dynamics kind
    made; default: the engine itself, asked for by name); write ``out`` when given."""
    from .. import engines
    if selection is None:
        selection = engines.Selection(engines.get("event_driven"), "the event-driven dataset route")
    try:
        sim = engines.run(selection, study.mechanism, study.solver)
    except SolverError as exc:
        where = f"{study.file}: " if getattr(study, "file", None) else ""
        raise SolverError(f"{where}event-driven run failed: {exc}") from None
    run, smp = sim.extras["event_run"], sim.extras["samples"]
    ds = to_dataset(sim, run, smp, study=study, registry=registry)
    ds.attrs["ideal_twin_status"] = "not requested"
    return write_result(ds, out, complete=run.status == "complete")


def write_result(ds, out, *, complete: bool):
    """Write ``ds`` to ``out`` (None: nothing) and return it; after Ctrl-C (``complete`` False)
    the samples finished before it go beside the output (``OUT.partial.nc``), never over it, and
    a ``KeyboardInterrupt`` carrying the dataset is raised."""
    from ..results.dataset import partial_path, write_dataset
    if not complete:
        intr = KeyboardInterrupt()
        if out is not None:
            ds.attrs["run_status"] = "interrupted"
            write_dataset(ds, partial_path(out))
            intr.kept = f"the samples computed before it stopped are in {partial_path(out)}"
        else:
            intr.kept = "nothing was written (no output path was given)"
        intr.dataset = ds
        raise intr
    if out is not None:
        write_dataset(ds, out)
    return ds
