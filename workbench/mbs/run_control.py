"""Stopping a run on request and explaining why it stopped.

* :func:`run_in_worker` runs the compiled integrator (which releases the GIL) in a worker thread
  and waits in short slices, so that Ctrl-C and the wall-time limit are answered: it sets the
  integrator's abort flag, which it reads every step.
* :func:`watch_time` lets a caller follow the simulated time of every run of a block (the
  integrator writes its time into ``ctl[CTL_TIME]`` at every step; the waiting thread reads it
  between its slices: the integration itself does nothing more).
* :class:`RunInterrupted` (Ctrl-C) and :class:`SolverTimeLimit` carry the samples integrated so
  far; :func:`wall_time_limit` limits every run of a block (``workbench run --max-time``).
* :func:`failure_message` says why a run failed, naming the joint, the model and the time, with
  advice that fits the cause.
"""
from __future__ import annotations

import contextlib
import math
import threading
import time as _time

from ..errors import SolverError
from ..runtime.scoped import scoped
from .clearance import (FAULT_CONTACT_NONFINITE, FAULT_CONTACT_RAISED, FAULT_CONTACT_TENSILE,
                        FAULT_FRICTION_BOUND, FAULT_FRICTION_NONFINITE, FAULT_FRICTION_RAISED,
                        FAULT_LUBRICATION, N_FAULT)
from .compiled import CL_FRICTION_BOUND
from .integrator import (CTL_ABORT, CTL_TIME, STATUS_BAD_MODEL, STATUS_MAX_STEPS, STATUS_NONFINITE,
                         STATUS_SINGULAR, STATUS_STEP_UNDERFLOW)

#: how often the calling thread looks at Ctrl-C and the wall-time limit while the compiled
#: integrator runs in its worker thread [s]
POLL = 0.1
#: how long to wait for the integrator to stop after an abort request [s] (it stops at its next
#: step; longer only while numba is still compiling it, and then there is nothing to keep)
ABORT_WAIT = 5.0
class SolverTimeLimit(SolverError):
    """The run reached its wall-time limit (``SolverSettings.max_wall_time`` or
    :func:`wall_time_limit`); ``partial`` holds the samples integrated so far."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run.  A :class:`KeyboardInterrupt` (so that it stops loops and sweeps like
    any Ctrl-C), carrying the samples integrated before it in ``partial`` (a
    :class:`Simulation` with ``status = "interrupted"``, or ``None``)."""

    def __init__(self, message: str, *, partial=None):
        super().__init__(message)
        self.partial = partial


_deadline = threading.local()


@contextlib.contextmanager
def wall_time_limit(seconds: float):
    """Within the block, every :func:`simulate` stops at ``seconds`` [s] of wall time from the
    block's start (:class:`SolverTimeLimit`), whatever its own ``max_wall_time``: the limit of
    a whole command (``workbench run --max-time``), e.g. of all dynamics runs of a wear study."""
    with scoped(_deadline, "value", min(current_deadline(), _time.monotonic() + float(seconds)), math.inf):
        yield


def current_deadline() -> float:
    """The :func:`time.monotonic` deadline of the enclosing :func:`wall_time_limit` (inf: none)."""
    return getattr(_deadline, "value", math.inf)


_cancel = threading.local()


@contextlib.contextmanager
def cancel_on(event: threading.Event):
    """Within the block (in this thread), every :func:`simulate` stops as if interrupted
    (:class:`RunInterrupted`) once ``event`` is set: how a run in a helper thread, which Ctrl-C
    does not reach, is stopped by the thread that got it (:mod:`workbench.wear.chains`)."""
    with scoped(_cancel, "event", event):
        yield


_watch = threading.local()


@contextlib.contextmanager
def watch_time(callback):
    """Within the block (in this thread), every compiled run calls ``callback(t, t_start, t_end)``
    [s] about every :data:`POLL` s while it integrates, and once when it has stopped, from the
    thread that waits for it: how far the simulated time has come.  Nothing runs inside the integrator (it writes its time into its
    control array at every step anyway), so following a run costs no integration time.
    ``None`` turns an outer watch off.  An exception the callback raises stops the run and is
    raised from it."""
    with scoped(_watch, "callback", callback):
        yield


def current_watch():
    """The callback of the enclosing :func:`watch_time` in this thread (``None``: none)."""
    return getattr(_watch, "callback", None)


def _report(callback, ctl, span) -> None:
    t0, t1 = span
    callback(min(max(float(ctl[CTL_TIME]), t0), t1), t0, t1)


def _compiled(func) -> bool:
    """Whether ``func`` (a numba dispatcher) has compiled code and numba is not compiling or
    loading anything now, i.e. a call of it runs, not compiles (a plain Python function: always,
    when numba is idle)."""
    from ..runtime.watchdog import numba_activity
    return bool(getattr(func, "signatures", True)) and numba_activity()[1] == 0


class RunTooSlow(SolverTimeLimit):
    """The run's pace projected a wall time beyond ``[checks] max_run_hours`` (exit status 2, a
    guard of ``[checks]``); ``partial`` holds the samples integrated so far."""


def _hours(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "forever"
    return f"{seconds / 3600.0:.3g} h" if seconds >= 3600.0 else f"{seconds / 60.0:.3g} min"


def pace_text(span: tuple, ctl_time: float, elapsed: float) -> tuple[float, str]:
    """The projected wall time [s] of a run over ``span`` = (t0, t1) [s] that reached ``ctl_time``
    after ``elapsed`` s of integration, and the sentence saying so."""
    t0, t1 = span
    done = ctl_time - t0
    total = elapsed * (t1 - t0) / done if done > 0.0 else math.inf
    return total, (f"{t1 - t0:.6g} s of motion to integrate (t = {t0:g} .. {t1:g} s): after {elapsed:.0f} s "
                   f"of wall time it had reached t = {ctl_time:.6g} s, a pace that needs about "
                   f"{_hours(total)} for the run")


def run_in_worker(func, args, ctl, deadline, span: tuple | None = None, info: dict | None = None):
    """``func(*args)`` in a worker thread (it releases the GIL), so that this thread can answer
    Ctrl-C, the wall-time limit and the progress budget
    (:func:`workbench.runtime.watchdog.budget`): either sets ``ctl[CTL_ABORT]`` and the
    integrator stops at its next step.  Returns ``(result, reason)`` with reason ``None``,
    ``"interrupted"``, ``"time_limit"``, ``"stalled"`` (the simulated time ``ctl[CTL_TIME]``
    stood still longer than the budget once the code was compiled) or ``"too_slow"`` (with
    ``span = (t0, t1)``: after :data:`~workbench.runtime.watchdog.PACE_PROBE` s of compiled
    integration, its pace projects the run beyond ``[checks] max_run_hours``; the sentence goes to
    ``info["pace"]``).  A projection beyond ten probes is told once per command as a note
    (:func:`workbench.runtime.watchdog.note`).  ``result`` is None when the worker did not stop in
    time.  ``span`` also feeds the callback of :func:`watch_time`."""
    from ..runtime.watchdog import PACE_PROBE, budget, max_run, note, numba_activity
    box = {}
    # the worker signals its end with an Event: Thread.join interrupted by Ctrl-C can mark a
    # running thread as stopped (Python 3.11, the bpo-45274 clean-up), Event.wait cannot
    done = threading.Event()

    def work():
        try:
            box["out"] = func(*args)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
            box["exc"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name="workbench-integrator", daemon=True)
    reason, failed = None, None
    stall, longest = budget(), max_run()
    watch = current_watch() if span is not None else None
    try:
        worker.start()
        cancel = getattr(_cancel, "event", None)
        seen, since = ctl[CTL_TIME], _time.monotonic()
        started = None   # when the compiled integration began (numba done)
        mark = numba_activity()
        while not done.wait(POLL):
            now = _time.monotonic()
            if now >= deadline:
                reason = "time_limit"
                break
            if cancel is not None and cancel.is_set():
                reason = "interrupted"
                break
            if watch is not None:
                try:
                    _report(watch, ctl, span)
                except Exception as exc:  # noqa: BLE001 - raised once the worker has stopped
                    reason, failed = "interrupted", exc
                    break
            # numba compiling (a new signature of a compiled function too) or loading from its
            # cache, here or in any thread: progress, and not yet the integrator's own pace
            act = numba_activity()
            busy = not _compiled(func) or act[1] > 0 or act[0] != mark[0]
            mark = act
            if ctl[CTL_TIME] != seen or busy:
                seen, since = ctl[CTL_TIME], now
                if busy:
                    started = None
            elif now - since > stall:
                reason = "stalled"
                break
            if not busy and started is None:
                started = now
            if (span is not None and started is not None and now - started >= PACE_PROBE
                    and ctl[CTL_TIME] > span[0]):   # no step at all is the stall budget's to judge
                total, text = pace_text(span, float(ctl[CTL_TIME]), now - started)
                if total > longest:
                    reason = "too_slow"
                    if info is not None:
                        info["pace"] = (f"{text}, above the limit of {_hours(longest)} ([checks] "
                                        f"max_run_hours; raise it to run anyway, or make the run shorter "
                                        f"or less stiff)")
                    break
                if total > 10.0 * PACE_PROBE:
                    note(f"{text} (limit {_hours(longest)}, [checks] max_run_hours)")
    except KeyboardInterrupt:
        reason = "interrupted"
    if reason is not None:
        ctl[CTL_ABORT] = 1.0
        stop = _time.monotonic() + ABORT_WAIT
        while not done.is_set() and _time.monotonic() < stop:
            try:
                done.wait(POLL)
            except KeyboardInterrupt:  # a second Ctrl-C: the worker is already stopping
                pass
    if failed is not None:
        raise failed
    if "exc" in box:
        raise box["exc"]
    if watch is not None and reason is None:
        _report(watch, ctl, span)   # the last word: where the run ended (its end, unless it failed)
    return box.get("out"), reason


def not_returning(cm, reason: str, t: float) -> str:
    """Why a worker that did not stop within :data:`ABORT_WAIT` of the stop request hangs: inside
    one step, i.e. in a model's compiled kernel, naming the models of the clearance joints."""
    models = [f"'{c.name}' ({_models(c)})" for c in cm.mechanism.clearance_joints]
    return (f"the integrator did not stop within {ABORT_WAIT:g} s of the stop request ({reason}): it "
            f"hangs inside one step at t = {t:.9g} s, i.e. in a model's compiled kernel that does not "
            f"return" + (f"; the models it calls: {', '.join(models)}" if models else "")
            + ". Nothing of this run could be kept")


def settings_limit(settings, deadline) -> str:
    """The wall-time limit in force, for messages."""
    if math.isfinite(settings.max_wall_time):
        return f"{settings.max_wall_time:g} s (solver.max_wall_time)"
    return "the command's --max-time"


def _models(c) -> str:
    return f"contact model '{c.contact.name}'" + (
        f" / friction model '{c.friction.name}'" if c.friction is not None else "")


def _in_contact(cm, partial) -> list[str]:
    """Clearance joints in contact at the last sample of ``partial``, with their penetration."""
    if partial is None or not len(partial.time):
        return []
    out = []
    for j, c in enumerate(cm.mechanism.clearance_joints):
        pen = float(partial.penetration[-1, j])
        if pen > 0.0:
            out.append(f"'{c.name}' ({_models(c)}, penetration {pen:.3g} m, force "
                       f"{float(partial.contact_force[-1, j]):.4g} N)")
    return out


def failure_message(cm, status, t_fail, fault, k_out, n_out, partial=None):
    mech = cm.mechanism
    done = f" (the run had produced {k_out} of {n_out} output samples)"
    from .joint_friction import FAULT_BASE, fault_message
    if status == STATUS_BAD_MODEL and fault <= FAULT_BASE:
        return fault_message(mech, fault, t_fail) + done
    if status == STATUS_BAD_MODEL:
        c = mech.clearance_joints[fault // N_FAULT]
        cause = fault % N_FAULT
        if cause in (FAULT_FRICTION_NONFINITE, FAULT_FRICTION_RAISED, FAULT_FRICTION_BOUND):
            m = f"friction model '{c.friction.name if c.friction is not None else '?'}'"
        elif cause == FAULT_LUBRICATION:
            m = f"lubrication model '{getattr(getattr(c, 'lubrication', None), 'name', '?')}'"
        else:
            m = f"contact model '{c.contact.name}'"
        text = {
            FAULT_CONTACT_RAISED: "raised an exception inside its compiled kernel (the exception "
                                  "is caught; call the kernel's Python version, kernel.py_func, "
                                  "at that state to see it)",
            FAULT_CONTACT_NONFINITE: "returned a non-finite force (NaN or inf); a kernel that reads "
                                     "past the parameters its pack() returns gets NaN",
            FAULT_CONTACT_TENSILE: "returned a tensile (negative) normal force; a contact law must "
                                   "return F >= 0 (clip its damping term so that it never pulls)",
            FAULT_FRICTION_RAISED: "raised an exception inside its compiled kernel (the exception "
                                   "is caught; call the kernel's Python version, kernel.py_func, "
                                   "at that state to see it)",
            FAULT_FRICTION_NONFINITE: "returned a non-finite friction force or state rate (NaN or "
                                      "inf); a kernel that reads past the parameters its pack() "
                                      "returns gets NaN",
            FAULT_LUBRICATION: "raised an exception or returned a non-finite force or moment inside "
                               "its compiled kernel (call kernel.py_func at that state to see it)",
            FAULT_FRICTION_BOUND: (f"returned a friction force larger than its own largest "
                                   f"coefficient ({cm.clr_f[fault // N_FAULT, CL_FRICTION_BOUND]:g}) "
                                   f"times the normal force"),
        }.get(cause, "returned an invalid value")
        return (f"clearance joint '{c.name}': the {m}, at t = {t_fail:.9g} s, {text}. This is a fault "
                f"of the model, not of the solver tolerances{done}")
    contact = _in_contact(cm, partial)
    touching = (f"; at the last sample, in contact: {', '.join(contact)}" if contact else "")
    if status == STATUS_SINGULAR:
        return (f"the constraint equations became singular at t = {t_fail:.9g} s: redundant or "
                f"degenerate joints/drivers, or the mechanism reached a locked (dead-centre) "
                f"position; check link lengths and driver definitions{touching}{done}")
    if status == STATUS_NONFINITE:
        return (f"the state became non-finite (inf/NaN) at t = {t_fail:.9g} s: the motion "
                f"diverged (check masses, inertias, spring and contact stiffnesses, Baumgarte "
                f"factors){touching}{done}")
    if status == STATUS_STEP_UNDERFLOW:
        return (f"the step size fell below 1e-15 s at t = {t_fail:.9g} s: the motion there is too "
                f"stiff or not smooth enough to resolve (a very stiff contact, a force that jumps, "
                f"or a lock-up of the mechanism){touching}; check the models' parameters, or "
                f"loosen solver.rtol/atol only if the run is not meant to resolve that{done}")
    if status == STATUS_MAX_STEPS:
        return (f"solver.max_steps was reached at t = {t_fail:.9g} s (a long run, or a contact "
                f"that chatters){touching}; raise solver.max_steps or shorten the run{done}")
    return f"integration failed with status {status} at t = {t_fail:.9g} s{done}"
