"""``workbench sweep``: a parameter sweep from the command line (registered on :func:`workbench.cli.common.main`, the group :mod:`workbench.cli.main` re-exports)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from . import common as cli
from .common import _console, _friendly, _plot, _prefetch_results_libraries, _registry, main
from .figures import figure_flags
from ..errors import WorkbenchError


@main.command()
@click.argument("sweep_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="combined summary dataset to write (netCDF4); every case's full results go to "
                   "<OUT without suffix>.cases/")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="address of a running dask scheduler, e.g. tcp://scheduler-host:8786 "
                   "[default: local worker processes]")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="local worker processes [default: one per core]")
@click.option("--dask", "use_dask", is_flag=True,
              help="run the local workers as a dask LocalCluster [default on Linux: processes "
                   "forked from this one once it is warm]")
@click.option("--serial", is_flag=True, help="run the cases one after another in this process")
@click.option("--plot/--no-plot", default=True, show_default=True, help="write the summary plot too")
@click.option("--plot-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="where the plot goes [default: <OUT without suffix>_plots]")
@click.option("--overwrite", is_flag=True,
              help="replace the results of an earlier sweep at OUT and in its case folder")
@click.option("--case-timeout", type=click.FloatRange(min=0.0, min_open=True), default=None, metavar="SECONDS",
              help="stop a case running longer than this and record it as timed_out (each case then "
                   "runs in its own process) [default: the sweep file's case_timeout, or none]")
@click.option("--max-cases", type=click.IntRange(min=1), default=None, metavar="N",
              help="the largest number of cases the grid may have; a larger one is refused before "
                   "any case runs [default: the sweep file's max_cases, 10000]")
@figure_flags
@_friendly
def sweep(sweep_file: Path, out: Path, scheduler: str | None, workers: int | None, use_dask: bool,
          serial: bool, plot: bool, plot_dir: Path | None, overwrite: bool, case_timeout: float | None,
          max_cases: int | None = None):
    """Run every case of the parameter sweep SWEEP_FILE and write the combined summaries to OUT.

    Ctrl-C stops the sweep and still writes the summary of the cases finished (exit status 130).
    """
    if serial and (scheduler or workers or use_dask):
        raise WorkbenchError("--serial runs the cases in this process: drop --scheduler / --workers / --dask")
    if scheduler and workers:
        raise WorkbenchError("--workers sizes the local cluster; with --scheduler the cluster's own "
                             "workers run the cases")
    from ..sweeps.local import uses_dask   # imports nothing heavy
    if cli._OWN_PROCESS and not uses_dask(scheduler, serial, use_dask):
        # --- startup: no dask in this process (xarray would import dask.array and
        # dask.distributed for every dataset: 0.5-0.9 s CPU, in every forked worker too), hidden
        # before xarray is imported (it remembers whether dask is installed)
        from .startup import hide_dask
        hide_dask(None)
    from ..sweeps.run import cases_dir, load_sweep, run_sweep
    from ..sweeps.spec import quick_size_check
    quick_size_check(sweep_file, max_cases)   # a huge grid is refused before anything loads
    console = _console()
    registry = _registry()
    sw = load_sweep(sweep_file, registry=registry, max_cases=max_cases)
    plot_dir, plot_option = cli._plot_folder(out, plot_dir)
    if plot:   # the plot folder follows the output rules too, checked before the cases run
        from ..results.plot_files import check_plot_dir
        check_plot_dir(plot_dir, kind="sweep", overwrite=overwrite, option=plot_option)
    if cli.PREFETCH and not serial:   # the results libraries (and matplotlib) while the sweep warms up
        _prefetch_results_libraries(plots=plot)
    grid = " x ".join(f"{d} ({n})" for d, n in zip(sw.dims, sw.shape))
    console.print(f"sweep '{sw.title}': {len(sw.cases)} cases over {grid}, base study {sw.base_file}")
    t0 = time.perf_counter()
    ds = run_sweep(sw, out, scheduler=scheduler, workers=workers, serial=serial, dask=use_dask,
                   registry=registry, overwrite=overwrite, case_timeout=case_timeout)
    n_failed = int((ds["status"].values != "ok").sum())
    console.print(f"[green]wrote[/] {out} in {time.perf_counter() - t0:.1f} s "
                  f"({ds.attrs.get('run_executor')}, {ds.attrs.get('run_workers')} workers); "
                  f"case results in {cases_dir(out)}"
                  + (f"; [red]{n_failed} of {ds['status'].size} cases failed[/]" if n_failed else ""))
    _sweep_table(console, ds, sw)
    if plot and n_failed < ds["status"].size:
        _plot(ds, plot_dir, console, result=out, overwrite=overwrite, option=plot_option)
    _no_case_finished(ds, out)


def _no_case_finished(ds, out: Path) -> None:
    """A sweep in which no case finished is not a result: exit status 2 when every case stopped at
    the time limit the user set (as ``--max-time`` does), 3 when cases failed; the summary file,
    with each case's status and error, is written all the same."""
    import collections
    status = [str(s) for s in ds["status"].values.ravel()]
    if not status or "ok" in status:
        return
    counts = collections.Counter(status)
    text = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    limit = ds.attrs.get("run_case_timeout")
    hint = (f"; every case reached the case time limit{f' of {limit} s' if limit not in (None, '') else ''}: "
            f"raise --case-timeout (or case_timeout in the sweep file)" if set(counts) == {"timed_out"} else "")
    from rich.markup import escape
    _console(stderr=True).print(f"[bold red]error:[/] no case of the sweep finished ({escape(text)}){escape(hint)}; "
                                f"the statuses and errors are in {escape(str(out))}")
    sys.exit(cli.EXIT_USER_ERROR if set(counts) == {"timed_out"} else cli.EXIT_RUN_FAILED)


def _sweep_table(console, ds, sw, max_rows: int = 60) -> None:
    from rich.markup import escape
    from rich.table import Table
    table = Table(show_lines=False)
    for d in sw.dims:
        table.add_column(d)
    for name in sw.summary:
        table.add_column(escape(f"{name} [{ds[name].attrs.get('units', '')}]"), justify="right")
    table.add_column("status")
    flat = ds[["status", "error", *sw.summary]].stack(case=sw.dims) if sw.dims else ds
    for k in range(min(flat.sizes["case"], max_rows)):
        row = flat.isel(case=k)
        cells = [escape(str(row[d].values.item())) for d in sw.dims]
        cells += [", ".join(f"{v:.4g}" for v in row[n].values.ravel()) for n in sw.summary]
        status = str(row["status"].values.item())
        cells.append(status if status == "ok" else f"[red]{status}[/]: {escape(str(row['error'].values.item()))}")
        table.add_row(*cells)
    console.print(table)
    if flat.sizes["case"] > max_rows:
        console.print(f"({flat.sizes['case'] - max_rows} more cases in {ds.attrs.get('sweep_file', 'the dataset')})")
