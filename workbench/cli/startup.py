"""Start-up of the ``workbench`` command: what its process imports, and when.

A warm ``workbench run`` of the Flores study spends most of its time importing libraries (numba,
xarray and pandas, matplotlib) rather than simulating; ``tests/benchmarks/bench_startup.py``
prints each phase.  Two things here cut or hide that time; neither changes a result:

* :func:`hide_dask`: the command's own process makes dask unimportable (every command but
  ``sweep``), since xarray imports ``dask.array`` and ``dask.distributed`` whenever dask is
  installed, to find out that a dataset holds no dask array (0.5-0.9 s CPU);
* :func:`prefetch_results_libraries`: ``run`` imports xarray, the netCDF engine and matplotlib in a
  background thread while the study is loaded and simulated.

* :func:`exit_now`: once a command has finished, its process ends without tearing down the
  interpreter (0.2-0.3 s of CPU with numba, xarray and netCDF4 loaded: freeing every module's
  objects, which the operating system reclaims at once anyway).

Only :func:`workbench.cli.main.entry` (the console script) calls :func:`hide_dask` and
:func:`exit_now`: a library never changes a process it does not own.
"""
from __future__ import annotations

import os
import sys
import threading

#: the commands that use dask (a sweep's cluster); every other command hides it (:func:`hide_dask`)
NEEDS_DASK = ("sweep",)
#: environment variable: ``1`` leaves dask importable in every command (for a third-party model
#: that uses dask itself)
DASK_ENV = "WORKBENCH_DASK"


def hide_dask(command: str | None) -> bool:
    """Make ``import dask`` fail in this process (``sys.modules["dask"] = None``) for the command
    ``command``, unless it is a sweep (:data:`NEEDS_DASK`), dask is already imported or
    ``$WORKBENCH_DASK`` is ``1``; return whether dask is now hidden.

    Whenever dask is installed (the ``sweep`` extra) xarray imports ``dask.array`` on a dataset's
    first variable, to check whether it is a dask array, and ``dask.distributed`` before it writes a
    file, to find the scheduler: 0.5-0.9 s CPU at every ``run``, ``plot`` or ``converge``, which
    never make a dask array.  xarray treats a dask it cannot import as not installed, and its
    datasets and files are the same (``importlib.util.find_spec`` returns ``None`` for a module
    that ``sys.modules`` maps to ``None``)."""
    if command in NEEDS_DASK or os.environ.get(DASK_ENV) == "1":
        return False
    if "dask" in sys.modules:
        return sys.modules["dask"] is None
    sys.modules["dask"] = None
    return True


def prefetch_results_libraries(plots: bool = False) -> threading.Thread:
    """Start importing what every study kind's dataset needs (xarray, pandas, the netCDF engine,
    and what xarray imports on first use: dask's array and distributed modules when dask is
    installed and not hidden), then, with ``plots``, matplotlib's figure and Agg canvas, in a
    daemon thread; return the thread.

    Their import holds the GIL, but the run's longest stretches do not (the compiled integrator,
    numba linking its cached machine code), so on a machine with a free core part of the import
    overlaps the run.  Nothing here is needed for correctness: a failure is ignored, and the run
    imports the module itself (Python's import locks make a module the thread is still importing
    wait rather than load twice)."""
    def work():
        try:
            import numpy as np
            import xarray as xr
            import netCDF4  # noqa: F401 - workbench.results.dataset.ENGINE
            # xarray's imports on first use: its duck-array check (dask.array, if importable) and
            # pandas' index machinery for a coordinate; the write lock (dask.distributed)
            xr.Dataset({"v": ("x", np.zeros(2))}, coords={"x": ["a", "b"]})
            from xarray.backends.locks import get_dask_scheduler
            get_dask_scheduler()
            if plots:
                import matplotlib.figure  # noqa: F401 - workbench.results.plot.new_figure
                from matplotlib.backends import backend_agg  # noqa: F401
        except Exception:  # noqa: BLE001 - a prefetch only: the run imports these and reports its own errors
            pass
    thread = threading.Thread(target=work, name="workbench-prefetch", daemon=True)
    thread.start()
    return thread


# the end of a command's process
#: the commands whose process may end without the interpreter's tear-down (:func:`exit_now`):
#: they start no process or thread that outlives them (``sweep`` only without dask: its cluster)
FAST_EXIT = ("run", "validate", "plot", "plugins", "schema", None)
#: environment variable: ``0`` ends every command with the interpreter's normal tear-down
FAST_EXIT_ENV = "WORKBENCH_FAST_EXIT"


def exit_now(code, command: str | None) -> None:
    """End this process with exit status ``code`` (``SystemExit.code``: None, an int or a message)
    after the command ``command`` returned: run the ``atexit`` functions, flush stdout and
    stderr, then ``os._exit``, skipping the interpreter's tear-down of every module, which costs
    0.2-0.3 s of CPU after a run (numba's and llvmlite's objects, xarray, netCDF4) and changes
    nothing on disk: every file the workbench writes is closed before its command returns.
    Returns without doing anything (the caller then exits normally) for a command not in
    :data:`FAST_EXIT` (a ``sweep`` is, when it did not use dask: serial or on forked workers, which
    it has joined), with ``$WORKBENCH_FAST_EXIT`` = ``0``, or while another non-daemon thread is
    alive (its end would be cut short).  mypy ends its command line the same way."""
    no_dask_sweep = command == "sweep" and sys.modules.get("dask", "") is None   # hidden: no cluster
    if (command not in FAST_EXIT and not no_dask_sweep) or os.environ.get(FAST_EXIT_ENV) == "0":
        return
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:   # sys.exit("message"): Python prints it to stderr and exits with 1
        print(code, file=sys.stderr)
        status = 1
    import atexit
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed pipe: nothing left to write to
                pass
        os._exit(status)
