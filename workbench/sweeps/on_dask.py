"""The dask side of a sweep: a lean local cluster, warm workers, case files written without the scheduler.

:func:`run_distributed` runs a sweep's cases on dask.distributed (a :class:`~dask.distributed.LocalCluster`
of one single-threaded worker process per core, or a running cluster given by address) and hands
every :class:`~workbench.sweeps.run.CaseResult` to a callback as it arrives.  It is the path of a
cluster given by address, of ``--dask``, and of local workers where they cannot be forked
(:mod:`workbench.sweeps.local`, the default local workers on Linux).  What it does to keep the
workers on the cases (each measured with ``tests/benchmarks/bench_sweep.py`` and a per-thread CPU
count of the processes, 13-case contact-law comparison on 2 cores):

* **Case files are written under a process-local lock** (:func:`local_locks`).  xarray guards every
  netCDF write with a lock of the dask scheduler it finds, and on a dask worker that is a
  ``dask.distributed.Lock``: one round trip to the scheduler per acquire and per release, some 300
  per case file.  Those round trips cost the workers' event loops about as much CPU as the cases
  themselves, and the sweep's own process (where the scheduler runs) 1.2-2 s; the first write
  also opened a client of the worker to the scheduler.  A case writes its own file, alone, so the
  dask scheduler is ``synchronous`` while a case runs on a worker and xarray takes a threading
  lock (the bytes written are the same).
* **A lean local cluster** (:data:`LEAN_CONFIG`): no statistical profiler (it samples the case's
  thread every 10 ms), and slower health ticks and monitors.  Idle, a worker's event loop then
  uses 0.002 s of CPU per second instead of 0.03.
* **Batches** (:mod:`workbench.sweeps.batches`): many short cases go to the workers in batches
  of consecutive cases (some 16 batches per worker), so that the scheduler's round trip and the
  sending of the base study are paid per batch, not per case; a batch records each case it
  finishes, so a worker that dies (killed, walltime) loses none of them and dask re-runs the
  rest of its batch on another worker.
* **Warm workers**: every worker first runs the first case, shortened, through the whole path of a
  case (:func:`workbench.sweeps.run.warm_worker`), so that no case pays for loading the compiled kernels,
  the netCDF/zarr writers or the reducers.

Only the small summaries travel back; each case's full results are written by its worker.
"""
from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid

from ..errors import WorkbenchError

#: dask settings of the sweep's own local cluster (a cluster given by address keeps its own)
LEAN_CONFIG = {
    # the statistical profiler samples every thread of a worker every 10 ms: CPU taken from the case
    "distributed.worker.profile.enabled": False,
    # event-loop health tick (default 20 ms), system and memory monitors (500 ms, 100 ms): a case
    # runs for tenths of a second to minutes, so a second is soon enough for each of them
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "1s",
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
}


_locks = {"users": 0, "set": None}
_locks_guard = threading.Lock()


@contextlib.contextmanager
def local_locks():
    """While it is active, xarray takes process-local locks for its file writes, not a
    ``dask.distributed.Lock`` of the worker's scheduler: dask's scheduler is ``synchronous``.

    dask's configuration is process-wide, so the setting is counted: the first case of a process
    to enter sets it, the last to leave restores the worker's own (a worker of a cluster given by
    address may run several cases at a time in its threads)."""
    import dask
    with _locks_guard:
        if _locks["users"] == 0:
            _locks["set"] = dask.config.set(scheduler="synchronous")
        _locks["users"] += 1
    try:
        yield
    finally:
        with _locks_guard:
            _locks["users"] -= 1
            if _locks["users"] == 0:
                _locks["set"].__exit__(None, None, None)
                _locks["set"] = None


def run_on_worker(task):
    """:func:`workbench.sweeps.run.run_case` on a dask worker, its files written under local locks."""
    from .run import run_case
    with local_locks():
        return run_case(task)


def run_batch_on_worker(batch):
    """:func:`workbench.sweeps.batches.run_batch` on a dask worker, its files written under local locks."""
    from .batches import run_batch
    with local_locks():
        return run_batch(batch)


def warm_on_worker(*args) -> str:
    """:func:`workbench.sweeps.run.warm_worker` on a dask worker, its files written under local locks."""
    from .run import warm_worker
    with local_locks():
        return warm_worker(*args)


def _start_local(n: int, warm: tuple, timeout: float | None):
    """A lean :class:`LocalCluster` of ``n`` single-threaded worker processes and its client."""
    from dask import config
    from dask.distributed import Client, LocalCluster
    from .run import _warm
    # fill the on-disk numba cache here first: with a cold cache (new install, edited kernels)
    # the workers would otherwise each compile the same kernels at the same time; with a warm
    # one this process needs no kernel at all (off the critical path)
    from ..runtime.caches import holds_compiled
    if not holds_compiled():
        _warm(warm, timeout)
    with config.set(LEAN_CONFIG):   # the nannies hand this configuration to their workers
        # no dashboard; the scheduler's small HTTP server (health, metrics) on loopback, any port
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR,
                               scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"})
        return cluster, Client(cluster)


def run_distributed(todo: list, sweep, scheduler: str | None, workers: int | None, on_result) -> dict:
    """Run the cases ``todo`` (:class:`~workbench.sweeps.run.CaseTask`) of ``sweep`` on dask, longest
    first (:mod:`workbench.sweeps.costs`), calling ``on_result(CaseResult)`` as each one ends.

    ``scheduler``: address of a running scheduler (default: a local cluster of ``workers``
    processes, one per core by default).  Returns where the cases ran and the start-up and
    cases' wall times [s] (``startup_time``, ``cases_time``)."""
    try:
        from dask.distributed import Client, as_completed
    except ImportError as exc:  # the optional extra 'sweep'
        raise WorkbenchError(f"sweeps need dask.distributed ({exc}); pip install -e '.[sweep]' (or 'dask[distributed]') "
                             "or run with --serial") from None
    from .run import STATUS_FAILED, CaseResult, _error_text, _warm_args
    cluster, t0 = None, time.perf_counter()
    timeout = todo[0].timeout if todo else None
    if scheduler is None:
        from .local import n_workers
        n = n_workers(workers)
        cluster, client = _start_local(n, _warm_args(sweep), timeout)
        where = {"executor": "dask LocalCluster", "workers": n}
    else:
        try:
            client = Client(scheduler, timeout="15s")
        except (OSError, ValueError, TypeError) as exc:   # unreachable, timed out, bad address
            raise WorkbenchError(f"cannot connect to the dask scheduler at {scheduler}: {exc}") from None
        where = {"executor": f"dask scheduler {scheduler}",
                 "workers": len(client.scheduler_info().get("workers", {}))}
    try:
        if timeout is None:   # with a timeout every case runs in a child process: nothing to warm here
            client.run(warm_on_worker, *_warm_args(sweep))
        t1 = time.perf_counter()
        tag = uuid.uuid4().hex[:8]   # task keys unique per sweep: a shared cluster may run several
        # longest first (dask runs the higher priority first), in batches of consecutive cases
        from .batches import batches, finished, forget
        ordered = batches(todo, where["workers"] or 1)
        futures = [client.submit(run_batch_on_worker, b, pure=False, key=f"sweep-{tag}-batch-{rank}",
                                 priority=len(ordered) - rank) for rank, b in enumerate(ordered)]
        batch_of = {f.key: b for f, b in zip(futures, ordered)}
        for fut in as_completed(futures):
            try:
                got = fut.result()
            except Exception as exc:  # noqa: BLE001 - e.g. the batch's workers kept dying
                # the cases of the batch that finished before are kept (their records), the others failed
                kept = finished(batch_of[fut.key])
                got = [kept.get(t.index) or CaseResult(index=t.index, status=STATUS_FAILED,
                                                       error=f"the case's worker failed: {_error_text(exc)}")
                       for t in batch_of[fut.key]]
            for res in got:
                on_result(res)
            forget(batch_of[fut.key])
            fut.release()
        where.update(startup_time=t1 - t0, cases_time=time.perf_counter() - t1)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return where


