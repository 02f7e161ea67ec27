"""A sweep's local workers as processes forked from the sweep's own, warm process.

:func:`run_forked` runs a sweep's cases on ``n`` worker processes of a
:class:`concurrent.futures.ProcessPoolExecutor` whose processes are *forked* from this one after
it has loaded everything a case needs (:func:`workbench.sweeps.run._warm`: the plugin registry, the
compiled kernels from numba's on-disk cache, the result writers, the reducers).  A forked worker
shares those pages with its parent, so it starts in milliseconds and warm: no interpreter, no
imports, no kernel loading of its own.  It is the default for a local sweep on Linux; elsewhere
(no ``fork``), with ``--dask`` or a scheduler address the cases go to dask.distributed
(:mod:`workbench.sweeps.on_dask`).

Why: on the 13 short cases of the contact-law comparison (4.8 s serially on 2 cores) the dask
:class:`~dask.distributed.LocalCluster` spent 1.6-1.8 s starting (import of ``distributed``,
scheduler, two spawned workers each importing numpy, numba, xarray and the workbench and loading
the kernels) and 0.4 s closing: the two workers took longer end to end than one process
(measured with ``tests/benchmarks/bench_sweep.py``).

Forking a process is safe when no other thread of it holds a lock the child will need: the
pool is made from the main thread after the sweep's background imports have ended
(:func:`_quiet_threads`), and nothing else of ours runs threads then.  A worker runs one case at a
time with one BLAS thread (as ``--serial`` and a dask nanny's workers); it ignores Ctrl-C between
cases and takes it while a case runs (a terminal sends SIGINT to every process of the command),
so an interrupted wear case keeps its finished updates like a serial one.  A worker that dies
(a model that ends its process, a crash in compiled code) breaks the pool: the cases not finished
go to a new pool, and a case that was running when two pools broke runs alone in a fresh
interpreter (:func:`workbench.sweeps.run.run_case_in_child`), so that only the case that kills its process is
recorded as failed.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
import warnings

#: seconds the workers get, after Ctrl-C, to end their interrupted cases (write what they finished)
GRACE = 10.0


def available() -> bool:
    """Whether this platform forks worker processes (Linux; macOS's system libraries are not
    fork-safe and Windows has no fork, so there the local workers are a dask cluster)."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def uses_dask(scheduler: str | None = None, serial: bool = False, dask: bool = False) -> bool:
    """Whether a sweep run so goes to dask.distributed: a scheduler address, ``dask``, or local
    workers where they cannot be forked (:func:`available`)."""
    return not serial and (scheduler is not None or dask or not available())


def n_workers(workers: int | None) -> int:
    """The number of local worker processes: ``workers``, default one per core."""
    from ..errors import WorkbenchError
    n = int(workers or os.cpu_count() or 1)
    if n < 1:
        raise WorkbenchError(f"--workers must be >= 1, got {n}")
    return n


def require_dask(scheduler: str | None) -> None:
    """A clear error, before anything is written, when a sweep that goes to dask cannot import it."""
    import importlib.util
    from ..errors import WorkbenchError
    try:
        found = importlib.util.find_spec("distributed") is not None
    except (ImportError, ValueError):   # dask hidden from this process (sys.modules["dask"] = None)
        found = False
    if found:
        return
    why = ("--scheduler needs" if scheduler is not None else
           "--dask needs" if available() else "local workers on this platform (no fork) need")
    other = "--serial" if scheduler is not None or not available() else "no --dask (forked workers) or --serial"
    raise WorkbenchError(f"{why} dask.distributed, which is not installed: pip install -e '.[sweep]' "
                         f"(or 'dask[distributed]'), or run with {other}")


def _init_worker(started, registry, parent: int) -> None:
    """In each new worker: one BLAS thread per case, Ctrl-C ignored between cases; ``started``:
    the flags (shared memory) a case sets when it starts; ``registry``: the sweep's plugin
    registry (inherited, not sent: the worker is a fork); ``parent``: the sweep's pid -- the
    worker ends with it, even after a ``kill -9`` of the sweep
    (:func:`workbench.runtime.child.die_with_parent`)."""
    from threadpoolctl import threadpool_limits
    from ..runtime.child import die_with_parent
    die_with_parent(parent)
    global _LIMITS, _CASE_SIGINT, _STARTED, _REGISTRY
    _STARTED, _REGISTRY = started, registry
    _LIMITS = threadpool_limits(limits=1)   # kept for the life of the worker
    _CASE_SIGINT = signal.getsignal(signal.SIGINT)   # the sweep's own: KeyboardInterrupt, or ignored
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_on_forked_worker(task, slot: int):
    """:func:`workbench.sweeps.run.run_case` in a forked worker, Ctrl-C taken (as the sweep's own
    process takes it) while the case runs; the case's flag ``slot`` is set first."""
    from .run import run_case
    _STARTED[slot] = 1
    signal.signal(signal.SIGINT, _CASE_SIGINT)
    try:
        return run_case(task, _REGISTRY)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _quiet_threads(timeout: float = 30.0) -> None:
    """Wait for this process's other threads (the background imports of the command line) to end
    before forking: a thread importing a module holds that module's lock, which the child would
    inherit held and never see released."""
    for t in threading.enumerate():
        if t is not threading.current_thread() and t.name.startswith("workbench-"):
            t.join(timeout)


def _pool(n: int, started, registry):
    from concurrent.futures import ProcessPoolExecutor
    _quiet_threads()
    return ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("fork"),
                               initializer=_init_worker, initargs=(started, registry, os.getpid()))


def _stop(pool, grace: float) -> None:
    """Cancel what has not started, give the running cases ``grace`` seconds, then kill."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)

    deadline = time.monotonic() + grace
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    for p in procs:
        if p.is_alive():
            p.kill()
            p.join(1.0)


def run_forked(todo: list, sweep, workers: int | None, registry, on_result) -> dict:
    """Run the cases ``todo`` (:class:`~workbench.sweeps.run.CaseTask`) of ``sweep`` on ``workers``
    forked processes (one per core by default) with the plugin ``registry``, longest first
    (:mod:`workbench.sweeps.costs`), calling ``on_result(CaseResult)`` as each one ends.  Returns where the cases ran and the
    start-up (warm-up, fork) and cases' wall times [s]."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool
    from .run import STATUS_FAILED, CaseResult, _error_text, _warm, _warm_args, run_case_in_child
    from .costs import order
    n = n_workers(workers)
    t0 = time.perf_counter()
    # with a case timeout every case runs in a child interpreter: the warm-up then only fills
    # the on-disk cache (in a child, as the first case may never return)
    _warm(_warm_args(sweep), todo[0].timeout if todo else None, registry)
    pending, isolate = order(todo), []
    slot = {t.index: k for k, t in enumerate(todo)}
    started = multiprocessing.get_context("fork").RawArray("b", max(1, len(todo)))  # shared with the workers
    broken = dict.fromkeys(slot, 0)   # pools that broke while the case ran
    pool, t1 = _pool(n, started, registry), time.perf_counter()
    try:
        while pending:
            for t in pending:
                started[slot[t.index]] = 0
            with warnings.catch_warnings():   # the first submit forks; Python >= 3.12 warns about a
                warnings.simplefilter("ignore", DeprecationWarning)   # fork beside threads (above)
                running = {pool.submit(run_on_forked_worker, t, slot[t.index]): t for t in pending}
            pending = []
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    task = running.pop(fut)
                    try:
                        res = fut.result()
                    except BrokenProcessPool:     # a worker died: in this case, or in another one
                        broken[task.index] += started[slot[task.index]]   # if it had started
                        (isolate if broken[task.index] >= 2 else pending).append(task)
                        continue
                    except KeyboardInterrupt:
                        raise
                    except Exception as exc:  # noqa: BLE001 - e.g. a result that cannot be sent back
                        res = CaseResult(index=task.index, status=STATUS_FAILED,
                                         error=f"the case's worker failed: {_error_text(exc)}")
                    on_result(res)
            if pending or isolate:
                pool.shutdown(wait=True)
                for task in isolate:   # alone, in a fresh interpreter (with the case timeout if any)
                    on_result(run_case_in_child(task))
                pool, pending, isolate = _pool(n, started, registry), order(pending), []
        where = {"executor": "forked processes", "workers": n, "startup_time": t1 - t0,
                 "cases_time": time.perf_counter() - t1}
    except BaseException:
        _stop(pool, GRACE)
        raise
    pool.shutdown(wait=True)
    return where
