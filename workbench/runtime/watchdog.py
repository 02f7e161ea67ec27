"""Nothing waits forever: the progress budget of a run and the alarm on a model call.

A run makes *progress* when its integrator advances the simulated time, or when a model call it
makes (a wear update's pressure model or wear law, a plugin's code) returns.  The budget is the
study's ``[checks] progress_timeout`` [s]: the longest wall time any one of these may take without
progress.  Two mechanisms enforce it (and the command's ``--max-time`` deadline), in this process:

* the compiled integrator runs in a worker thread without the GIL
  (:func:`workbench.mbs.run_control.run_in_worker`): the calling thread watches the simulated time
  the integrator publishes and stops it when the time stands still longer than the budget (a
  contact kernel that spins);
* a model call in Python (:func:`watch`, used by the wear loop around its pressure and wear-law
  calls) arms a ``SIGALRM`` timer in the main thread; its handler raises :class:`Stalled` (budget)
  or :class:`DeadlineReached` (``--max-time``) inside the model's own frame, so that the error
  names the model, the update and the joint, and the run ends as after any model fault (the
  completed updates kept).  A sleeping model (``time.sleep``), a Python loop or a numpy call is
  stopped so.  Compiled code that holds the GIL never lets the handler run: then, when the
  process runs as the ``workbench`` command (:data:`BACKSTOP`), Python's fault handler ends it
  :data:`GRACE` seconds later from a thread of its own, printing where it hung (exit status 1:
  the one case without a tidy message).

Every function here is cheap and a no-op outside the main thread (``SIGALRM`` is delivered there).
"""
from __future__ import annotations

import contextlib
import math
import signal
import sys
import threading
import time

from ..errors import SolverError, WorkbenchError

#: default ``[checks] progress_timeout`` [s]
DEFAULT_BUDGET = 60.0
#: seconds after a missed stop request before the fault handler ends the process (:data:`BACKSTOP`)
GRACE = 10.0
#: whether the fault handler may end the process when a stop request is not answered (set by the
#: ``workbench`` command's entry point; never inside a library user's own process)
BACKSTOP = False

#: default ``[checks] max_run_hours`` [h]
DEFAULT_MAX_RUN_HOURS = 24.0
#: wall time of compiled integration after which its pace is projected [s]
PACE_PROBE = 20.0

_state = {"budget": DEFAULT_BUDGET, "max_run": DEFAULT_MAX_RUN_HOURS * 3600.0, "armed": False, "note": None}


class Stalled(SolverError):
    """A run or a model call made no progress within the budget (exit status 3: a model fault)."""


class DeadlineReached(WorkbenchError):
    """A model call was still running at the command's ``--max-time`` (exit status 2)."""


def budget() -> float:
    """The progress budget in force [s] (``inf``: none)."""
    return _state["budget"]


def max_run() -> float:
    """The largest projected wall time of one integrator run [s] (``inf``: none)."""
    return _state["max_run"]


@contextlib.contextmanager
def progress_budget(seconds: float | None, max_run_hours: float | None = None):
    """Within the block, the progress budget is ``seconds`` [s] and the largest projected wall time
    of one integrator run ``max_run_hours`` [h] (``None``: the defaults)."""
    old = _state["budget"], _state["max_run"]
    _state["budget"] = DEFAULT_BUDGET if seconds is None else float(seconds)
    _state["max_run"] = 3600.0 * (DEFAULT_MAX_RUN_HOURS if max_run_hours is None else float(max_run_hours))
    try:
        yield
    finally:
        _state["budget"], _state["max_run"] = old


def set_note(callback) -> None:
    """``callback(text)`` tells the user, once, about a long run's projected cost (the command
    line prints a note); ``None``: silent."""
    _state["note"] = callback


def note(text: str) -> None:
    """Tell ``text`` through the callback of :func:`set_note`, the first time only."""
    cb, _state["note"] = _state["note"], None
    if cb is not None:
        try:
            cb(text)
        except Exception:  # noqa: BLE001 - a note never stops a run
            pass


def budget_text(seconds: float | None = None) -> str:
    s = budget() if seconds is None else seconds
    return (f"{s:g} s ([checks] progress_timeout; raise it for a model that legitimately takes "
            f"longer per call)")


@contextlib.contextmanager
def watch(label: str, *, deadline: float = math.inf):
    """Stop the block when it runs longer than the progress budget without progress (a
    :func:`beat`, or numba compiling; then stopped between one and two budgets after the last)
    (:class:`Stalled`) or past the :func:`time.monotonic` ``deadline`` (:class:`DeadlineReached`),
    raised in the main thread where the block then is.  ``label`` says what runs (``"wear update 3, joint 'B'"``).  Not nested (an
    inner block runs under the outer one's alarm); a no-op outside the main thread."""
    if (_state["armed"] or threading.current_thread() is not threading.main_thread()
            or not hasattr(signal, "setitimer")):
        yield
        return
    now = time.monotonic()
    b = budget()
    when = min(now + b, deadline)
    if not math.isfinite(when):
        yield
        return
    _listen_to_numba()
    seen = _progress["count"]

    def alarm(signum, frame):
        nonlocal seen
        now = time.monotonic()
        if now >= deadline - 1e-3:
            raise DeadlineReached(f"{label}: stopped at the command's --max-time")
        if _progress["compiling"] or _progress["count"] != seen:
            # a beat, or numba compiling (a first run) meanwhile: progress, not a hang
            seen = _progress["count"]
            rest = min(b, deadline - now)
            signal.setitimer(signal.ITIMER_REAL, max(rest, 1e-3))
            if BACKSTOP:
                _start_backstop(rest + GRACE)
            return
        raise Stalled(f"{label}: no progress within {budget_text(b)}")

    old = signal.signal(signal.SIGALRM, alarm)
    _state["armed"] = True
    backstop = BACKSTOP and _start_backstop(when - now + GRACE)
    try:
        signal.setitimer(signal.ITIMER_REAL, max(when - now, 1e-3))
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, old)
        _state["armed"] = False
        if backstop:
            import faulthandler
            faulthandler.cancel_dump_traceback_later()


_progress = {"count": 0, "compiling": 0, "listening": False}


def beat() -> None:
    """Progress inside a watched call (e.g. one of an update's averaging cycles evaluated): the
    alarm, when it fires, re-arms for another budget instead of stopping the call.  Cheap."""
    _progress["count"] += 1


def _listen_to_numba() -> None:
    """Count numba's compilations (``numba:compile`` events), once numba is imported: a model call
    that compiles its kernels on a first run (minutes on a busy machine) is making progress."""
    if _progress["listening"] or "numba" not in sys.modules:
        return
    try:
        from numba.core import event
    except ImportError:
        return

    class _Compiles(event.Listener):
        def on_start(self, ev):
            _progress["compiling"] += 1
            _progress["count"] += 1

        def on_end(self, ev):
            # an end whose start came before this listener was registered (the first
            # numba_activity() of a process can be called while another thread -- the integrator's
            # worker loading its code -- is inside a compiler-lock event) is not counted: the count
            # fell to -1 for good, and "numba is busy" held forever, which switched off the pace
            # and stall guards of every later run in the process
            _progress["compiling"] = max(0, _progress["compiling"] - 1)

    # a compilation, and numba's compiler lock (taken to compile a new signature of a compiled
    # function or to load one from the on-disk cache, minutes on a busy machine)
    event.register("numba:compile", _Compiles())
    event.register("numba:compiler_lock", _Compiles())
    _progress["listening"] = True


def numba_activity() -> tuple[int, int]:
    """``(compilations and beats so far, compilations running now)``: numba compiling or loading
    compiled code anywhere in the process is progress, not a hang."""
    _listen_to_numba()
    return _progress["count"], _progress["compiling"]


def _start_backstop(seconds: float) -> bool:
    import faulthandler
    try:
        sys.stderr.flush()
        faulthandler.dump_traceback_later(seconds, exit=True, file=sys.stderr)
    except (ValueError, OSError, AttributeError):   # no usable stderr
        return False
    return True
