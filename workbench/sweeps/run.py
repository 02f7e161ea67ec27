"""Parameter sweeps: run every case of a sweep file in parallel and combine the summaries.

:func:`run_sweep` takes a :class:`~workbench.sweeps.spec.Sweep` (see :mod:`workbench.sweeps.spec`
for the file format) and, for every case, on a worker:

1. deep-copies the base study's TOML document and sets the case's keys,
2. writes it back to TOML text (``tomli_w``) and loads it with
   :func:`workbench.study.load.load_study_text` (relative paths stay relative to the base study),
3. runs it with :func:`workbench.study.load.run_study`, which writes the case's full results to
   ``<OUT stem>.cases/case_NNNN.nc`` (``.zarr`` for a wear study) beside the sweep's output ``OUT``,
4. reduces the result to the sweep's summary quantities (:mod:`workbench.results.reducers`).

The summaries are combined into ONE dataset whose dimensions are the sweep parameters (string
coordinates for model names), plus per case ``status`` (``ok``, ``failed``: the run failed,
``summary_failed``: it ran but a summary could not be computed), ``error``, ``wall_time``, ``cpu_time``,
``worker`` and ``case_file``.  A failed case leaves NaN in its summaries and never stops the
others.

Safety: the summary file and the case results are written only where :mod:`workbench.results.outputs`
allows (new paths, or results of ours replaced with ``overwrite=True``).  With a per-case
timeout (``case_timeout`` [s], the sweep file's ``[sweep] case_timeout`` or ``--case-timeout``)
each case runs in its own process (with the installed plugins) that is killed when the time is
up; the case is recorded as ``timed_out`` and the sweep goes on.  Ctrl-C (``KeyboardInterrupt``)
stops the sweep but still writes the summary of the cases finished, the others recorded as
``interrupted`` and the dataset's ``run_status`` as ``interrupted``.

Where the cases run
-------------------
* default: one worker process per core, one case at a time each (the solver is single-threaded
  compiled code; processes avoid the GIL): on Linux forked from this process once it is warm
  (:mod:`workbench.sweeps.local`), elsewhere or with ``dask=True`` a
  :class:`dask.distributed.LocalCluster`;
* ``scheduler="tcp://host:8786"``: an existing cluster; its workers need the workbench and the
  same plugins installed and must see the output folder (a shared file system);
* ``serial=True``: one case after another in this process (no dask), the reference path.

Every worker is warmed once before the cases start (:func:`warm_worker`): it builds the plugin
registry (kept for the life of the worker process) and runs the first case cut short (two output
steps, or one wear update of two averaging cycles) into a temporary folder and reduces it, which
loads the numba-compiled kernels from their on-disk cache (``cache=True``), the result writers
and the reducers.  Forked workers inherit all that from the sweep's process, which warms itself
before it forks them (as a serial sweep does).  Before it starts a dask cluster, the sweep's
process warms itself only when that cache is cold (a new install, edited kernels), so that the
kernels are compiled once, not once per worker at the same time
(:func:`workbench.runtime.caches.holds_compiled`).  FE
compliances are memoised per worker process and cached on disk by :mod:`workbench.fem.compliance`
(written atomically, so workers never see a partial file).

How the local cluster is kept lean, and why a case's files are written under a process-local
lock on a worker, is told in :mod:`workbench.sweeps.on_dask`.

Scheduling: the cases go to the workers longest first, as measured by earlier sweeps over the
same settings (:mod:`workbench.sweeps.costs`; never measured ones first), each case writes its own
full results on its worker, and only the small summaries travel back to this process.
"""
from __future__ import annotations

import copy
import dataclasses
import logging
import os
import socket
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import xarray as xr

from ..errors import WorkbenchError
from ..results.reducers import REDUCERS
from .spec import Sweep, load_sweep, parse_path, set_path, unset_path  # noqa: F401 - load_sweep re-exported
from .combine import combine  # noqa: F401 - re-exported: the sweep's dataset builder

STATUS_OK, STATUS_FAILED, STATUS_SUMMARY_FAILED = "ok", "failed", "summary_failed"
STATUS_TIMED_OUT, STATUS_INTERRUPTED = "timed_out", "interrupted"
#: file suffix of a case's full results by study kind (a wear run writes a zarr store)
CASE_SUFFIX = {"wear": ".zarr"}


@dataclass(frozen=True)
class CaseTask:
    """Everything a worker needs to run one case (picklable, no open resources)."""
    index: int
    base_doc: dict
    base_file: str
    settings: tuple
    unset: tuple
    out: str
    summary: tuple
    timeout: float | None = None        # [s] wall time allowed; the case then runs in a child process
    overwrite: bool = False             # replace an earlier result of ours at ``out``


@dataclass
class CaseResult:
    """What a worker sends back for one case."""
    index: int
    status: str
    error: str = ""
    values: dict = field(default_factory=dict)   # summary name -> xarray.DataArray
    wall_time: float = float("nan")
    cpu_time: float = float("nan")
    worker: str = ""
    file: str = ""


# --------------------------------------------------------------------------------------------
# worker side
# --------------------------------------------------------------------------------------------
_REGISTRY = None


def _process_registry():
    """The plugin registry of this process, built once (entry points are read once per worker)."""
    global _REGISTRY
    if _REGISTRY is None:
        from ..plugins import build_registry
        _REGISTRY = build_registry()
    return _REGISTRY


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def case_text(base_doc: dict, settings, unset=()) -> str:
    """TOML text of a case: the base study's document without the ``unset`` keys, with the
    case's ``(path, value)`` settings applied in order."""
    import tomli_w
    doc = copy.deepcopy(base_doc)
    for path in unset:
        unset_path(doc, parse_path(path))
    for path, value in settings:
        set_path(doc, parse_path(path), value)
    return tomli_w.dumps(doc)


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, WorkbenchError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def run_case(task: CaseTask, registry=None) -> CaseResult:
    """Run one case and reduce it (never raises: a failure is recorded in the result).

    With ``task.timeout`` the case runs in a child process (:func:`run_case_in_child`).
    """
    if task.timeout is not None:
        return run_case_in_child(task)
    from ..study.load import load_study_text, run_study
    t0, c0 = time.perf_counter(), time.thread_time()
    res = CaseResult(index=task.index, status=STATUS_OK, worker=_worker_name(), file=task.out)
    try:
        registry = registry if registry is not None else _process_registry()
        study = load_study_text(case_text(task.base_doc, task.settings, task.unset), file=task.base_file,
                                registry=registry)
        if Path(task.out).exists():   # a result of an earlier sweep to the same output
            if not task.overwrite:
                raise WorkbenchError(f"{task.out} already holds a result; pass --overwrite to replace it")
            from ..results.outputs import remove_our_result
            remove_our_result(task.out)   # checks that it is ours first
        ds = run_study(study, registry=registry, out=task.out)
    except Exception as exc:  # noqa: BLE001 - a failed case is recorded, the sweep goes on
        from ..runtime.interrupts import as_interrupt
        if isinstance(as_interrupt(exc), KeyboardInterrupt):   # Ctrl-C inside compiled code
            raise as_interrupt(exc) from exc
        res.status, res.error = STATUS_FAILED, _error_text(exc)
        res.file = ""
        logging.getLogger("workbench.sweeps.run").debug("case %d failed:\n%s", task.index, traceback.format_exc())
        res.wall_time, res.cpu_time = time.perf_counter() - t0, time.thread_time() - c0
        return res
    errors = []
    for name in task.summary:
        try:
            res.values[name] = REDUCERS[name](ds)
        except Exception as exc:  # noqa: BLE001
            errors.append(f"summary '{name}': {_error_text(exc)}")
    if errors:
        res.status, res.error = STATUS_SUMMARY_FAILED, "; ".join(errors)
    res.wall_time, res.cpu_time = time.perf_counter() - t0, time.thread_time() - c0
    return res


def run_case_in_child(task: CaseTask) -> CaseResult:
    """Run ``task`` in a child Python process, killed after ``task.timeout`` seconds.

    The child builds the registry from the installed plugins (entry points) and sees this
    process's ``sys.path``.  A case that does not finish in time is recorded as ``timed_out`` (a
    wear case keeps the updates it completed in its store); a child that dies is ``failed``
    with its last words on stderr.
    """
    from ..runtime.child import call_in_child
    t0 = time.perf_counter()
    how, value = call_in_child(run_case, (dataclasses.replace(task, timeout=None),), task.timeout)
    if how == "ok":
        return value
    res = CaseResult(index=task.index, status=STATUS_FAILED, worker=_worker_name(),
                     wall_time=time.perf_counter() - t0)
    if how == "timeout":
        res.status = STATUS_TIMED_OUT
        res.error = f"the case did not finish within its timeout of {task.timeout:g} s and was stopped"
        res.file = task.out if Path(task.out).exists() else ""
    else:
        res.error = f"the case's process ended without a result: {value}"
    return res


def _warm(args: tuple, timeout: float | None, registry=None) -> str:
    """Warm the on-disk compile cache: in this process (with ``registry``, default the
    process's), or -- with a case timeout, as the first case may be the one that never returns --
    in a child process killed after ``timeout``."""
    if timeout is None:
        return warm_worker(*args, registry=registry)
    from ..runtime.child import call_in_child
    how, value = call_in_child(warm_worker, args, timeout)
    return value if how == "ok" else f"warm-up {how}"


def warm_worker(base_doc: dict, base_file: str, settings=(), unset=(), summary=(), registry=None) -> str:
    """Build this process's registry and load what a case needs (the compiled kernels, the
    result writers, the ``summary`` reducers): the case ``base_doc`` with ``settings`` applied (the
    first case's), cut short -- a dynamics study to two output steps, a wear study to one update --
    run into a temporary folder of its own (removed after) and reduced."""
    try:
        from ..study.load import load_study_text, run_study
        registry = registry if registry is not None else _process_registry()
        study = load_study_text(case_text(base_doc, settings, unset), file=base_file, registry=registry)
        if study.kind not in ("dynamics", "wear"):
            return "ok"
        options = {}
        if study.kind == "dynamics":
            s = study.solver
            study = dataclasses.replace(study, solver=dataclasses.replace(
                s, t_end=s.t_start + 2.0 * s.output_step))
        else:
            # one update of the fewest cycles the loop takes: it loads what a full update does
            # (kernels, pressure and wear models, store writers); the first case's own 24-48
            # averaging cycles cost each worker 2-3 s of start-up on the wear comparison
            options["max_updates"] = 1
            study = dataclasses.replace(study, wear=dataclasses.replace(
                study.wear, settle_cycles=0, average_cycles=2, max_average_cycles=2))
        import tempfile
        with tempfile.TemporaryDirectory(prefix="workbench-warm-") as tmp:
            out = Path(tmp) / ("warm" + CASE_SUFFIX.get(study.kind, ".nc"))
            ds = run_study(study, registry=registry, out=out, **options)
            for name in summary:
                try:
                    REDUCERS[name](ds)
                except Exception:  # noqa: BLE001 - a summary of a cut-short run may not exist
                    pass
            if hasattr(ds, "close"):
                ds.close()
    except Exception as exc:  # noqa: BLE001 - the cases will report the problem themselves
        return f"warm-up failed: {_error_text(exc)}"
    return "ok"


# --------------------------------------------------------------------------------------------
# client side
# --------------------------------------------------------------------------------------------
def cases_dir(out: str | Path) -> Path:
    """Folder of the per-case results of a sweep written to ``out``: ``<OUT stem>.cases``."""
    out = Path(out)
    return out.with_name(out.stem + ".cases")


def tasks(sweep: Sweep, out: str | Path, **options) -> list[CaseTask]:
    """One task per case; paths are absolute (a remote worker has its own working directory).
    ``options`` : ``timeout``, ``overwrite`` of every :class:`CaseTask`."""
    folder = cases_dir(Path(out).resolve())
    width = max(4, len(str(len(sweep.cases) - 1)))
    suffix = CASE_SUFFIX.get(sweep.kind, ".nc")
    return [CaseTask(index=c.index, base_doc=sweep.base_doc, base_file=str(sweep.base_file.resolve()),
                     settings=c.settings, unset=sweep.unset,
                     out=str(folder / f"case_{c.index:0{width}d}{suffix}"),
                     summary=sweep.summary, **options) for c in sweep.cases]


def _warm_args(sweep: Sweep) -> tuple:
    return (sweep.base_doc, str(sweep.base_file.resolve()), sweep.cases[0].settings, sweep.unset,
            sweep.summary)


def _run_serial(todo: list[CaseTask], sweep: Sweep, registry, on_result):
    from threadpoolctl import threadpool_limits
    t0 = time.perf_counter()
    _warm(_warm_args(sweep), todo[0].timeout if todo else None, registry)
    t1 = time.perf_counter()
    # one BLAS/OpenMP thread per case, as on a dask worker (its nanny sets OPENBLAS_NUM_THREADS=1
    # etc.): the same computation in both modes.  Measured on the 9-case wear comparison (20 000
    # cycles per case, 2 cores): OpenBLAS's second thread spun for 28 s of CPU beside the case
    # (106 s CPU for 77 s of wall time) to save 2 s of wall time (79 s with one thread)
    with threadpool_limits(limits=1):
        for t in todo:
            on_result(run_case(t, registry))
    return {"executor": "serial", "workers": 1, "startup_time": t1 - t0,
            "cases_time": time.perf_counter() - t1}


def _run_parallel(todo: list[CaseTask], sweep: Sweep, scheduler: str | None,
                  workers: int | None, to_dask: bool, registry, on_result):
    if not to_dask:
        from .local import run_forked
        return run_forked(todo, sweep, workers, registry, on_result)
    from .on_dask import run_distributed   # dask is imported only by a sweep that uses it
    return run_distributed(todo, sweep, scheduler, workers, on_result)


def check_outputs(sweep: Sweep, out: str | Path, todo: list[CaseTask], *, overwrite: bool = False) -> None:
    """Before any case runs: the summary ``out`` and every case result may be written
    (:func:`workbench.results.outputs.check_output`); results of an earlier sweep need ``overwrite``."""
    from ..results.outputs import OutputError, check_output, input_paths, is_our_dataset, is_our_store
    inputs = input_paths(sweep.base_file, sweep.base_text)
    if sweep.file is not None:
        inputs.append(Path(sweep.file).resolve())
    check_output(out, kind="sweep", inputs=inputs, overwrite=overwrite)
    folder = cases_dir(out)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder} (the folder of the case results) is an existing file; it is never "
                          f"written over: choose another output name")
    for t in todo:
        p = Path(t.out)
        if not p.exists():
            continue
        if not (is_our_store(p) if p.is_dir() else is_our_dataset(p)):
            raise OutputError(f"{p} (case {t.index}) exists and is not a workbench result; it is never "
                              f"written over: choose another output name")
        if not overwrite:
            raise OutputError(f"{folder} already holds case results of an earlier sweep (e.g. {p.name}); "
                              f"pass --overwrite to replace them, or choose another output name")


def run_sweep(sweep: Sweep, out: str | Path, *, scheduler: str | None = None,
              workers: int | None = None, serial: bool = False, dask: bool = False, registry=None,
              progress: bool | Callable[[CaseResult, int, int], None] = True,
              overwrite: bool = False, case_timeout: float | None = None) -> xr.Dataset:
    """Run every case of ``sweep``, write the combined summary dataset to ``out``, return it.

    ``scheduler`` : address of a running dask scheduler (default: ``workers`` local processes,
    one per core by default, forked from this one on Linux (:mod:`workbench.sweeps.local`), a dask
    LocalCluster elsewhere or with ``dask``).  ``serial`` : one case after another in this
    process.  ``progress`` : a rich progress bar (True), none (False), or a
    callback ``f(result, n_done, n_total)``.  The dataset's ``run_*`` attrs say where the cases
    ran and how long the start-up (cluster, warm-up) and the cases took [s].

    ``overwrite`` : replace the results of an earlier sweep at ``out`` (only results of ours).
    ``case_timeout`` [s] : stop a case after this wall time (default: the sweep file's
    ``case_timeout``; none).  A case whose estimated size exceeds its study's
    ``[checks] max_memory_gb`` is refused when it is loaded.  On Ctrl-C the summary of the finished cases is written
    (``run_status = "interrupted"``) before the ``KeyboardInterrupt`` goes on.
    """
    from ..results.dataset import write_dataset
    out = Path(out)
    if registry is None:
        registry = _process_registry()
    timeout = case_timeout if case_timeout is not None else sweep.case_timeout
    if timeout is not None and not timeout > 0:
        raise WorkbenchError(f"the case timeout must be a positive number of seconds, got {timeout!r}")
    from .local import require_dask, uses_dask
    to_dask = uses_dask(scheduler, serial, dask)
    if to_dask:
        require_dask(scheduler)    # before any file or folder is made
    todo = tasks(sweep, out, timeout=timeout, overwrite=overwrite)
    check_outputs(sweep, out, todo, overwrite=overwrite)
    try:
        cases_dir(out).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WorkbenchError(f"cannot create the folder of the case results {cases_dir(out)}: {exc}") from exc
    results: dict[int, CaseResult] = {}
    t0 = time.perf_counter()
    bar = _Progress(len(todo), progress)
    interrupted = None
    executor = "serial" if serial else "dask" if to_dask else "forked processes"
    where: dict = {"executor": executor, "workers": 1 if serial else (workers or 0)}   # until they report
    try:
        with bar:
            def on_result(res: CaseResult) -> None:
                results[res.index] = res
                bar.advance(res, len(results))
            if serial:
                where = _run_serial(todo, sweep, registry, on_result)
            else:
                where = _run_parallel(todo, sweep, scheduler, workers, to_dask, registry, on_result)
    except KeyboardInterrupt as exc:
        interrupted = exc
    from .costs import record   # calibrates the order of the next sweep over these cases
    record(todo, {i: r.wall_time for i, r in results.items() if r.status == STATUS_OK})
    wall = time.perf_counter() - t0
    final = [results.get(t.index) or CaseResult(index=t.index, status=STATUS_INTERRUPTED,
                                                error="not finished: the sweep was interrupted")
             for t in todo]
    info = {**where, "wall_time": wall}
    if timeout is not None:
        info["case_timeout"] = timeout
    ds = combine(sweep, final, registry=registry, run_info=info)
    ds.attrs["run_status"] = "interrupted" if interrupted is not None else "complete"
    if interrupted is not None:
        write_dataset(ds, out)
        interrupted.kept = (f"the summary of the {len(results)} finished of {len(todo)} cases is in {out} "
                            f"(the others are marked interrupted)")
        raise interrupted
    write_dataset(ds, out)
    return ds


class _Progress:
    """A rich progress bar over the cases, a user callback, or nothing."""

    def __init__(self, total: int, how):
        self.total, self.how, self._bar = total, how, None

    def __enter__(self):
        if self.how is True:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
            self._bar = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[failed]} failed"), TimeElapsedColumn(),
                                 transient=False, console=Console(stderr=True))  # progress: stderr
            self._bar.__enter__()
            self._task = self._bar.add_task("sweep", total=self.total, failed=0)
            self._failed = 0
        return self

    def advance(self, res: CaseResult, done: int) -> None:
        if callable(self.how) and self.how is not True:
            self.how(res, done, self.total)
        elif self._bar is not None:
            self._failed += res.status == STATUS_FAILED
            self._bar.update(self._task, advance=1, failed=self._failed)

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.__exit__(*exc)
        return False
