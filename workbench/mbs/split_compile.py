"""A first run compiles the planar integrator's parts in two processes, one per core.

On a cold numba cache (a fresh install, or any edit of the sources: the cache is keyed by their
hash) the first run of a planar study compiles :func:`.integrator.integrate` and the functions it
calls, one after another, for about 45 s of CPU (the Flores study, 2 cores, quiet machine).  numba
compiles under one lock per process, so a second thread cannot help; a second *process* can,
because numba's disk cache is shared: what one process compiles and writes, the other loads.

So, when the cache does not hold this model's right-hand side yet, :func:`start` launches one
helper process (``python -m workbench.mbs.split_compile``) and hands it the numba type of the
model (a pickle of types, never of data).  The two processes then compile disjoint groups of the
integrator's callees, each group closed under its own calls:

* here (:meth:`Split.compile_here`, in the thread that then runs the integrator): the work
  arrays, the right-hand side (with the clearance forces it calls) and the dense output;
* the helper (:func:`_compile_helper`): the contact gaps (with the worn-bore and slider-guide
  geometry they call), the impact table, the probes of the contact records at dense states and
  Brent's peak search (which call the clearance forces compiled here), then, once the right-hand
  side is on disk, the output sampler :func:`.solver._evaluate_samples`.

When :func:`.integrator.integrate` is then compiled here, numba finds the helper's functions in
the disk cache and loads them instead of compiling them; its own body (the largest single part) is
compiled here as before.  The machine code is the same as with one process (the same functions,
the same types); only who compiles what changes.  If the helper is late, or fails, or types
differ, this process compiles what it needs itself, as without the helper: the split can cost
time, never a result.  ``WORKBENCH_SPLIT_COMPILE=0`` turns it off.

The signatures below restate how :func:`.integrator.integrate` calls its parts (argument kinds,
not values).  ``tests/mbs/test_split_compile.py`` checks them against the ones numba recorded
when it compiled the integrator for the Flores study (the test suite's warm-up): a signature
that drifts from the integrator's calls fails there, not silently here.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
import time

#: environment switch: ``0`` compiles in this process only
ENV = "WORKBENCH_SPLIT_COMPILE"
#: environment: a file the helper writes its timeline to (for measuring the split)
LOG_ENV = "WORKBENCH_SPLIT_COMPILE_LOG"
#: how long the helper waits for the right-hand side to appear on disk before it stops [s]
WAIT_FOR_RHS = 300.0
#: how long the run waits for the helper after the integrator returned [s]: the helper's last part,
#: the output sampler, compiles in about 3 s; a helper later than that is stopped, and this process
#: compiles what it still needs itself
WAIT_FOR_HELPER = 5.0

_LOCK = threading.Lock()
_STARTED: set = set()   # model types a helper was started for in this process


def _types():
    from numba.core import types
    f8, i8 = types.float64, types.int64
    return f8, i8, types.Array(f8, 1, "C"), types.Array(f8, 2, "C")


def _fields(model_type) -> dict:
    return dict(zip(model_type.fields, model_type.types))


def rhs_signature(model_type, work_type) -> tuple:
    """The right-hand side's argument types (``t, y, dm, ydot, lam, rec, ws, alpha, beta, model``)."""
    f8, _, A1, A2 = _types()
    return (f8, A1, A1, A1, A1, A2, work_type, f8, f8, model_type)


def signatures_here(model_type, work_type) -> list:
    """``(function, argument types)`` compiled in the running process, in this order."""
    from .dense import dense
    from .equations import rhs
    f8, i8, A1, A2 = _types()
    return [(rhs, rhs_signature(model_type, work_type)), (dense, (A1, A2, f8, f8, A1))]


def signatures_helper(model_type, table_type) -> list:
    """``(function, argument types)`` the helper compiles, in this order (the output sampler comes
    after them, :func:`signature_samples`)."""
    from .clearance import contact_gaps
    from .dense import brent_max, probe, probe_value
    from .integrator import _grown
    f8, i8, A1, A2 = _types()
    fld = _fields(model_type)
    scratch = table_type.types[-1]          # Table.scratch: (ys, Qs, zds, recs, tmps, count)
    return [(contact_gaps, (A1, i8, fld["clr_i"], fld["clr_f"], A1, A1, fld["dist"])),
            (_grown, (table_type, i8)),
            (probe, (A1, A2, f8, f8, A1, model_type) + tuple(scratch.types[:5])),
            (probe_value, (A1, A2, f8, f8, A1, model_type, scratch, i8, i8)),
            (brent_max, (A1, A2, f8, A1, model_type, scratch, i8, i8, f8, f8, f8, f8))]


def signature_samples(model_type) -> tuple:
    """The output sampler's argument types (``times, Y, DM, alpha, beta, model``)."""
    f8, _, A1, A2 = _types()
    return (A1, A2, A2, f8, f8, model_type)


def _work_type():
    """numba type of :data:`.equations.Work` (compiles :func:`.equations.workspace` once, as the
    integrator's first call would)."""
    import numpy as np
    from numba import typeof
    from .equations import workspace
    return typeof(workspace(np.ones(3), 1, 1))


def _table_type():
    from numba import typeof
    from .integrator import _make_table
    return typeof(_make_table(3, 1, 1, 1, 4))


def cache_holds(func, sig) -> bool | None:
    """Whether numba's disk cache holds ``func`` (a workbench ``njit`` function) for ``sig``; None
    when it cannot tell (numba's cache index is internal API: a numba that changed it turns the
    split off rather than guessing)."""
    try:
        disp = func.dispatcher()
        cache = disp._cache
        key = cache._index_key(sig, disp.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception as exc:  # noqa: BLE001 - internal API
        _say(f"cannot read the cache index of {getattr(func, '__name__', func)}: {exc!r}")
        return None


def in_cache(func, sig) -> bool:
    """:func:`cache_holds`, unknown read as no."""
    return bool(cache_holds(func, sig))


_T0 = time.monotonic()


def _say(what: str) -> None:
    if os.environ.get(LOG_ENV):
        print(f"split_compile[{os.getpid()}] {time.monotonic() - _T0:7.2f} s {what}", file=sys.stderr, flush=True)


def _compile(func, sig) -> None:
    try:
        func.dispatcher().compile(sig)
        _say(f"compiled {func.__name__}")
    except Exception as exc:  # noqa: BLE001 - the integrator compiles what it needs itself
        _say(f"failed {func.__name__}: {exc!r}")


class Split:
    """A started split: :meth:`compile_here` before the integrator, :meth:`close` after it."""

    def __init__(self, proc, model_type, work_type):
        self.proc, self.model_type, self.work_type = proc, model_type, work_type

    def compile_here(self) -> None:
        for func, sig in signatures_here(self.model_type, self.work_type):
            _compile(func, sig)

    def then(self, run):
        """``run`` (the integrator) preceded by this process's share of the compile, in the
        thread that calls it."""
        def go(*args):
            self.compile_here()
            return run(*args)
        return go

    def close(self, wait: bool = True) -> None:
        """Wait for the helper (at most :data:`WAIT_FOR_HELPER` s, ``wait``) or stop it."""
        if self.proc.poll() is None and wait:
            try:
                self.proc.wait(timeout=WAIT_FOR_HELPER)
            except subprocess.TimeoutExpired:
                pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def start(model) -> Split | None:
    """Start the split compile for ``model`` (a :data:`.compiled.Model`) when the disk cache lacks
    its right-hand side, once per model type and process; None when there is nothing to split (a
    warm cache, ``WORKBENCH_SPLIT_COMPILE=0``, no numba cache folder, a helper already started)."""
    if os.environ.get(ENV, "1") == "0":
        return None
    from ..runtime.caches import numba_cache_dir
    if numba_cache_dir() is None:
        return None
    from numba import typeof
    from .equations import rhs
    model_type = typeof(model)
    with _LOCK:
        if model_type in _STARTED:
            return None
        _STARTED.add(model_type)
    work_type = _work_type()
    if cache_holds(rhs, rhs_signature(model_type, work_type)) is not False:
        return None
    try:
        payload = pickle.dumps(model_type)
        log = os.environ.get(LOG_ENV)
        err = open(log, "a") if log else subprocess.DEVNULL
        proc = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=err)
        if log:
            err.close()
        proc.stdin.write(payload)
        proc.stdin.close()
    except Exception:  # noqa: BLE001 - no helper: one process compiles all, as before
        return None
    return Split(proc, model_type, work_type)


def _compile_helper(model_type) -> None:
    """The helper's share (module docstring)."""
    from .equations import rhs
    from .solver import _evaluate_samples
    table_type = _table_type()
    for func, sig in signatures_helper(model_type, table_type):
        _compile(func, sig)
    rhs_sig = rhs_signature(model_type, _work_type())
    stop = time.monotonic() + WAIT_FOR_RHS
    _say("waiting for the right-hand side")
    while not in_cache(rhs, rhs_sig):
        if time.monotonic() > stop or os.getppid() == 1:   # too long, or the run is gone
            _say("gave up waiting")
            return
        time.sleep(0.2)
    _compile(_evaluate_samples, signature_samples(model_type))


def main() -> None:
    model_type = pickle.loads(sys.stdin.buffer.read())
    _compile_helper(model_type)


if __name__ == "__main__":
    main()
