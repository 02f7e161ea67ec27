"""The run of a dynamics study: simulate, check, keep what finished, build and write the dataset.

:func:`run_dynamics` runs the compiled ODE path (or, with beams, generalised-alpha) and the ideal
twin; :func:`run_event_driven` a mechanism whose ideal joints carry set-valued friction (the
event-driven solver of :mod:`workbench.nonsmooth`); :func:`run_moreau_jean` ``[solver] method =
"moreau_jean"``.  Each builds the dataset of :mod:`workbench.kinds.dynamics_dataset` and writes it
through :mod:`workbench.results.dataset`; a failed or interrupted run's samples go beside the
output (:func:`~workbench.results.dataset.partial_path`), never over it.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from ..errors import SolverError, WorkbenchError
from ..nonsmooth.events import event_table
from ..results.dataset import json_attr, model_info, partial_path, write_dataset
from ..results.variables import var as _var
from .dynamics_dataset import simulation_to_dataset


def _keep_partial(sim, study, registry, out: Path | None, status: str) -> str:
    """Write the partial simulation ``sim`` beside ``out``; return a sentence saying where (or why not).

    Without ``out`` (a run from Python that writes nothing) the samples stay on the error only."""
    if out is None:
        return "nothing was written (no output path was given)"
    where = partial_path(out)
    try:
        ds = simulation_to_dataset(sim, study=study, registry=registry)
        ds.attrs["run_status"] = status
        write_dataset(ds, where)
    except Exception as exc:  # noqa: BLE001 - the run's own error is the one to report
        return f"the samples computed before could not be kept ({exc})"
    return f"the samples computed before it stopped are in {where}"


def _following(progress, study, phase: str, twin: bool):
    """A block in which the compiled runs report their simulated time to ``progress`` (a
    :class:`~workbench.runtime.progress.Progress` callback, or ``None``): ``done`` is simulated
    time from the start [s], the ideal twin's counted after the clearance run's."""
    import contextlib
    if progress is None:
        return contextlib.nullcontext()
    from ..mbs.run_control import watch_time
    from ..runtime.progress import Clock, Progress
    s, clock = study.solver, Clock()
    span = s.t_end - s.t_start
    total = span * (2 if study.mechanism.clearance_joints and study.output.compare_ideal else 1)
    offset = span if twin else 0.0
    label = "ideal-joint twin: " if twin else ""

    def report(t, t0, t1):
        progress(Progress(done=offset + (t - s.t_start), total=total, phase=phase, unit="s",
                          elapsed=clock.elapsed(), info=f"{label}t = {t:.4g} of {t1:.4g} s"))
    return watch_time(report)


def run_dynamics(study, *, registry, out: str | Path | None = None, selection=None,
                 progress=None) -> xr.Dataset:
    """Run a dynamics study and write its dataset to ``out`` (nothing when ``None``); return it.

    Simulates the mechanism and, when it has clearance joints and ``[output] compare_ideal`` is
    true, its ideal twin (:meth:`Mechanism.ideal`) on the same settings.  What a run finished is
    never thrown away by a later stage:

    * the main run fails (:class:`SolverError` with a partial simulation) or is interrupted
      (``KeyboardInterrupt`` carrying a ``partial`` attribute): its samples go to
      :func:`partial_path` with ``run_status`` ``failed: ...`` / ``interrupted``; the error is
      raised again, naming that file;
    * the ideal twin fails: the clearance run is written to ``out`` without the ``ideal_*``
      variables, with ``ideal_twin_status = "failed: ..."`` in the attrs and a RuntimeWarning;
      interrupted: the same with ``interrupted``, then the ``KeyboardInterrupt`` goes on.

    ``attrs["ideal_twin_status"]`` is ``ok``, ``not requested``, ``failed: ...`` or ``interrupted``.
    ``selection``: the engine that runs it (:func:`workbench.engines.select`, the default); the
    ideal twin runs on the engine the selector picks for the ideal mechanism.  ``progress(p)``
    follows the simulated time of the compiled runs (a
    :class:`~workbench.runtime.progress.Progress` with ``unit = "s"``, about every 0.1 s).
    """
    from .. import engines
    if selection is None:
        selection = engines.select(study.mechanism, study.solver)
    out = Path(out) if out is not None else None
    try:
        with _following(progress, study, "dynamics", twin=False):
            sim = engines.run(selection, study.mechanism, study.solver)
    except SolverError as exc:
        if exc.partial is None:
            raise
        kept = _keep_partial(exc.partial, study, registry, out, f"failed: {exc}")
        raise SolverError(f"{exc}; {kept}", partial=exc.partial) from None
    except BaseException as exc:
        from ..runtime.interrupts import as_interrupt
        intr = as_interrupt(exc)   # Ctrl-C inside compiled code can surface as a SystemError
        if not isinstance(intr, KeyboardInterrupt):
            raise
        partial = getattr(exc, "partial", None)
        if partial is not None:
            intr.kept = _keep_partial(partial, study, registry, out, "interrupted")
        if intr is exc:
            raise
        raise intr from exc
    # physical plausibility of the finished run ([checks], workbench.study.checks): stop, keeping
    # the samples beside the output marked rejected, or carry the findings as warnings
    from ..study.checks import Checks, ImplausibleResultError, film_range_findings, penetration_findings
    checks = study.checks if study.checks is not None else Checks()
    found = list(getattr(study, "warnings", ()) or ())
    findings = penetration_findings(sim, study.mechanism, checks)
    if findings and checks.on_implausible == "stop":
        kept = _keep_partial(sim, study, registry, out, "rejected: " + "; ".join(findings))
        where = f"{study.file}: " if study.file is not None else ""
        raise ImplausibleResultError(
            f"{where}the run finished but its results are implausible:\n  - " + "\n  - ".join(findings)
            + f"\n{kept} (marked rejected). Set [checks] on_implausible = \"warn\" to write them to "
              "the output with a warning instead")
    found += findings + film_range_findings(sim, study.mechanism)
    ideal, twin = None, "not requested"
    interrupted = None
    if study.mechanism.clearance_joints and study.output.compare_ideal:
        try:
            with _following(progress, study, "ideal twin", twin=True):
                ideal = engines.simulate(study.mechanism.ideal(), study.solver)
            twin = "ok"
        except BaseException as exc:  # a later stage: never lose the finished clearance run
            from ..runtime.interrupts import as_interrupt
            if isinstance(as_interrupt(exc), KeyboardInterrupt):
                twin, interrupted = "interrupted", as_interrupt(exc)
            elif not isinstance(exc, Exception):
                raise
            else:
                msg = str(exc) if isinstance(exc, WorkbenchError) else f"{type(exc).__name__}: {exc}"
                twin = f"failed: {msg}"
                where = f"written to {out}" if out is not None else "returned"
                warnings.warn(f"the ideal-joint twin of '{study.title}' failed ({msg}); the clearance run "
                              f"is {where} without the ideal_* variables", RuntimeWarning, stacklevel=2)
    ds = simulation_to_dataset(sim, ideal=ideal, study=study, registry=registry)
    ds.attrs["ideal_twin_status"] = twin
    if found:
        ds.attrs["warnings"] = "\n".join(found)
    if out is not None:
        write_dataset(ds, out)
    if interrupted is not None:
        interrupted.kept = (f"the clearance run is in {out}" if out is not None else
                            "the clearance run was finished") + " (its ideal-joint twin was interrupted)"
        interrupted.dataset = ds
        raise interrupted
    return ds


def event_driven_dataset(sim, run, smp, *, study=None, registry=None):
    """The dynamics dataset of ``sim`` plus the frictional joints and the event table."""
    from ..nonsmooth.event_driven import MODE_NAMES
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
        ds.attrs["friction_models"] = json_attr(
            {j.name: model_info(j.friction, registry) for j in study.mechanism.joints
             if getattr(j, "friction", None) is not None})
    return ds


def run_event_driven(study, *, registry, out: str | Path | None = None, selection=None):
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
    ds = event_driven_dataset(sim, run, smp, study=study, registry=registry)
    ds.attrs["ideal_twin_status"] = "not requested"
    return write_result(ds, out, complete=run.status == "complete")


def write_result(ds, out, *, complete: bool):
    """Write ``ds`` to ``out`` (None: nothing) and return it; after Ctrl-C (``complete`` False)
    the samples finished before it go beside the output (``OUT.partial.nc``), never over it, and
    a ``KeyboardInterrupt`` carrying the dataset is raised."""
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


def run_moreau_jean(study, *, registry, out=None, selection=None):
    """Run a dynamics study on the ``moreau_jean`` engine (``[solver] engine = "moreau_jean"``,
    or the older ``method = "moreau_jean"``; ``selection``: the
    :class:`~workbench.engines.base.Selection` the dynamics kind made); write ``out`` when given.
    Ctrl-C keeps the steps done, beside the output (never over it)."""
    from .. import engines
    s = study.solver
    if selection is None:
        selection = engines.Selection(engines.get("moreau_jean"), "the Moreau-Jean dataset route")
    try:
        sim = engines.run(selection, study.mechanism, s)
        fr = sim.extras["friction_events"]
    except SolverError as exc:
        where = f"{study.file}: " if getattr(study, "file", None) else ""
        raise SolverError(f"{where}Moreau-Jean run failed: {exc}") from None
    ds = simulation_to_dataset(sim, study=study, registry=registry)
    # its impacts and its contacts' friction events in one table (workbench.nonsmooth.events)
    ds = event_table(ds, fr, [c.name for c in study.mechanism.clearance_joints])
    ds.attrs.update(solver="moreau_jean", solver_step=s.step, solver_step_units="s",
                    solver_theta=0.5, ideal_twin_status="not requested")
    return write_result(ds, out, complete=sim.status == "complete")
