"""The ``workbench`` command line: ``run``, ``validate``, ``sweep``, ``plugins``, ``plot``.

Every mistake a user can make (bad study file, unknown model, failed integration ...) is a
:class:`~workbench.errors.WorkbenchError`; the command prints its message, without a traceback,
and exits with status 2.  Ctrl-C stops a command with a message and exit status 130, keeping
what the run had finished (see ``run``).

Results are written only to a new path or over a result of ours, and replacing a result needs
``--overwrite`` (:mod:`workbench.outputs`); a run whose estimated size exceeds ``--max-output-gb``
is refused before it starts (``[checks] max_memory_gb``, :mod:`workbench.study_checks`).
"""
from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

import numpy as np

import click

from . import __version__
from .errors import WorkbenchError
from .models import FAMILIES

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130   # 128 + SIGINT, the shell's convention for Ctrl-C


def _console(stderr: bool = False):
    from rich.console import Console
    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def _friendly(func):
    """Turn a WorkbenchError into a message on stderr and exit status 2."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except WorkbenchError as exc:
            from rich.markup import escape
            _console(stderr=True).print(f"[bold red]error:[/] {escape(str(exc))}")
            sys.exit(EXIT_USER_ERROR)
        except (KeyboardInterrupt, Exception) as exc:
            from .interrupts import is_interrupt
            if not is_interrupt(exc):   # Ctrl-C in compiled code may surface as a SystemError
                raise
            from rich.markup import escape
            kept = getattr(exc, "kept", None)
            _console(stderr=True).print("[bold red]interrupted[/]" + (f": {escape(kept)}" if kept else ""))
            sys.exit(EXIT_INTERRUPTED)
    return wrapper


def _registry():
    from .plugins import build_registry
    return build_registry()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="workbench")
def main():
    """Joint Wear Workbench: clearance, contact, friction and wear in planar mechanisms."""


@main.command()
@click.argument("study_file", type=click.Path(dir_okay=False, path_type=Path))
@_friendly
def validate(study_file: Path):
    """Check STUDY_FILE (schema, models, mechanism, estimated size) without running it."""
    from .study import load_study
    registry = _registry()
    study = load_study(study_file, registry=registry)
    if study.kind == "pressure":  # checked by workbench.fem.study_config inside load_study
        _console().print(f"[green]ok[/] {study_file}: pressure study '{study.title}'")
        return
    m, s = study.mechanism, study.solver
    from rich.markup import escape
    for w in study.warnings:  # allowed by [checks]; the run writes them into the dataset too
        _console(stderr=True).print(f"[yellow]warning:[/] {escape(w)}")
    if study.kind == "wear":
        w = study.wear
        _console().print(
            f"[green]ok[/] {study_file}: wear study '{study.title}': {len(m.bodies)} bodies, "
            f"{len(m.clearance_joints)} clearance joints ({len(w.joints) + len(w.guides)} wearing); {w.cycles:.6g} cycles "
            f"of {w.cycle_period:g} s; pressure '{w.pressure.name}', wear law '{w.law.name}'")
        return
    _console().print(
        f"[green]ok[/] {study_file}: dynamics study '{study.title}': {len(m.bodies)} bodies, "
        f"{len(m.joints)} ideal joints, {len(m.drivers)} drivers, {len(m.forces)} forces, "
        f"{len(m.clearance_joints)} clearance joints; t = {s.t_start:g} .. {s.t_end:g} s, "
        f"output every {s.output_step:g} s, {s.path} path")


@main.command()
@click.argument("study_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), required=True,
              help="results to write: a netCDF4 file (dynamics, pressure; xarray.open_dataset) or, "
                   "for a wear study, a zarr store (xarray.open_zarr), e.g. results/wear.zarr")
@click.option("--plot/--no-plot", default=True, show_default=True, help="write the PNG plots too")
@click.option("--plot-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="where the plots go [default: <OUT without suffix>_plots]")
@click.option("--resume", is_flag=True, help="wear study: continue the run stored in OUT")
@click.option("--overwrite", is_flag=True,
              help="replace the workbench result already at OUT (never a file the workbench did not write)")
# --- solver: wall-time limit (begin)
@click.option("--max-time", "max_time", type=click.FloatRange(min=0.0, min_open=True), default=None,
              metavar="SECONDS", help="stop the run after SECONDS of wall time, keeping what it "
              "computed (dynamics: the samples in <OUT>.partial.nc; wear: the completed updates)")
# --- solver: wall-time limit (end)
@_friendly
def run(study_file: Path, out: Path, plot: bool, plot_dir: Path | None, resume: bool, overwrite: bool,
        max_time: float | None = None):
    """Run STUDY_FILE and write its results to OUT (and plots).

    OUT must be new or hold a workbench result (replaced only with --overwrite); it is never an
    input of the study.  Ctrl-C stops the run (exit status 130) and keeps what it finished: a wear
    run's completed updates (continue with --resume), a dynamics run's samples when the solver
    hands them back.  --max-time SECONDS stops it likewise at that wall time (exit status 2).
    """
    # --- solver: wall-time limit (begin)
    import contextlib

    from .mbs.solver import wall_time_limit
    with wall_time_limit(max_time) if max_time is not None else contextlib.nullcontext():
        _run(study_file, out, plot, plot_dir, resume, overwrite)


def _run(study_file: Path, out: Path, plot: bool, plot_dir: Path | None, resume: bool, overwrite: bool):
    # --- solver: wall-time limit (end)
    from .outputs import check_output, input_paths
    from .study import load_study, run_study
    console = _console()
    registry = _registry()
    study = load_study(study_file, registry=registry)
    if resume and study.kind != "wear":
        raise WorkbenchError(f"{study_file}: --resume is for wear studies (this is a {study.kind} study)")
    check_output(out, kind=study.kind, inputs=input_paths(study_file, study.text), overwrite=overwrite,
                 resume=resume)
    if study.kind == "wear":
        ds = _run_wear(study, registry, out, resume, console, overwrite=overwrite)
        if plot:
            _plot(ds, plot_dir or out.with_name(out.stem + "_plots"), console, result=out)
        return
    what = (f"{study.kind} study '{study.title}'" if study.kind != "dynamics" else
            f"'{study.title}': t = {study.solver.t_start:g} .. {study.solver.t_end:g} s"
            + (" (and the ideal-joint twin)" if study.mechanism.clearance_joints
               and study.output.compare_ideal else ""))
    t0 = time.perf_counter()
    import warnings
    with console.status(f"running {what} ..."), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="the ideal-joint twin", category=RuntimeWarning)
        ds = run_study(study, registry=registry, out=out)
    console.print(f"[green]wrote[/] {out} in {time.perf_counter() - t0:.1f} s: {what}")
    twin = str(ds.attrs.get("ideal_twin_status", ""))
    if twin.startswith("failed"):
        from rich.markup import escape
        console.print(f"[yellow]warning:[/] the ideal-joint twin {escape(twin)}; {out} holds the "
                      f"clearance run without the ideal_* variables")
    if study.kind == "dynamics":
        _summary(console, ds)
    if plot:
        _plot(ds, plot_dir or out.with_name(out.stem + "_plots"), console, result=out)


def _run_wear(study, registry, out: Path, resume: bool, console, overwrite: bool = False):
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
    from .wear.loop import run_wear_study
    w = study.wear
    t0 = time.perf_counter()
    with Progress(TextColumn("[bold]wear[/]"), BarColumn(), TextColumn("{task.completed:,.0f}/{task.total:,.0f} cycles"),
                  TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task("wear", total=w.cycles, info="")

        def progress(done, total, dN, depth):
            bar.update(task, completed=done, info=f"dN {dN:,.0f}  max depth {depth * 1e6:.3g} um")

        def note(message):
            from rich.markup import escape
            console.print(f"[yellow]note:[/] {escape(message)}")

        try:
            ds = run_wear_study(study, registry=registry, out=out, resume=resume, overwrite=overwrite,
                                progress=progress, note=note)
        except (KeyboardInterrupt, Exception) as exc:
            from .interrupts import is_interrupt
            if not is_interrupt(exc):
                raise
            from .wear.store import completed_updates
            n = completed_updates(out) if out.is_dir() else 0
            exc.kept = (f"{out} keeps its {n} completed updates (run_status 'interrupted'); continue "
                        f"with --resume" if n else f"no update was completed; nothing was kept")
            raise
    console.print(f"[green]wrote[/] {out} in {time.perf_counter() - t0:.1f} s: wear study '{study.title}', "
                  f"{ds.sizes['cycle']} updates, {float(ds.cycle.values[-1]):,.0f} cycles")
    for j in ds["joint"].values:
        vol = ds["wear_volume"].sel(joint=j).isel(cycle=-1)
        depth = ds["max_wear_depth"].sel(joint=j).isel(cycle=-1)
        console.print(f"  joint {j}: wear volume bushing {float(vol.sel(surface='bushing')):.4g} m^3, "
                      f"journal {float(vol.sel(surface='journal')):.4g} m^3; deepest "
                      f"{float(depth.max()) * 1e6:.4g} um")
    return ds


def _summary(console, ds) -> None:
    for j in ds["joint"].values:
        f = float(ds["contact_force"].sel(joint=j).max())
        mine = ds["impact_joint"] == j
        n = int(mine.sum())
        if n and "impact_peak_force" in ds:   # the impact table's peaks, located on the dense output
            peaks = ds["impact_peak_force"].where(mine).values
            if np.isfinite(peaks).any():
                f = max(f, float(np.nanmax(peaks)))
        console.print(f"  joint {j}: {n} impacts, peak contact force {f:.5g} N")
    if "driver" in ds.dims and ds.sizes["driver"]:
        load = ds["driver_load"].isel(driver=0)
        console.print(f"  driver {ds['driver'].values[0]}: peak |load| {float(abs(load).max()):.4g} "
                      f"{ds['driver_unit'].values[0]}")
    steps = ds.attrs.get("solver_steps")
    if steps is not None:
        console.print(f"  solver: {steps} steps, {ds.attrs.get('solver_wall_time', float('nan')):.2f} s")


def _is_pressure(ds) -> bool:
    kind = ds.attrs.get("study_kind")
    return kind == "pressure" or (kind is None and "contact_force" not in ds and "pressure" in ds)


def _plot(ds, outdir: Path, console, result: Path | None = None) -> list[Path]:
    """Write the plots of ``ds`` (already on disk at ``result``, which a failure never touches)."""
    kept = f"the results are in {result}; " if result is not None else ""
    try:
        if _is_pressure(ds):
            from .fem.pressure_study import plot_pressure_study
            paths = plot_pressure_study(ds, outdir)
        elif ds.attrs.get("study_kind") == "wear":
            from .wear.plot import plot_wear
            paths = plot_wear(ds, outdir)
        else:
            from .plot import plot_results
            paths = plot_results(ds, outdir)
    except OSError as exc:
        raise WorkbenchError(f"{kept}cannot write the plots to {outdir}: {exc}") from exc
    except (WorkbenchError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - a failing plot never costs the user the dataset
        raise WorkbenchError(f"{kept}the plots failed ({type(exc).__name__}: {exc}); "
                             f"try again with `workbench plot`") from exc
    for p in paths or []:
        console.print(f"[green]plot[/] {p}")
    return paths


@main.command()
@click.argument("result", type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--out-dir", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="where the PNGs go [default: <RESULT without suffix>_plots]")
@_friendly
def plot(result: Path, out_dir: Path | None):
    """Write the PNG plots of a results file."""
    from .results import open_results
    try:
        ds = open_results(result)
    except (OSError, ValueError) as exc:
        raise WorkbenchError(f"{result}: cannot read it as a workbench results file: {exc}") from None
    _plot(ds, out_dir or result.with_name(result.stem + "_plots"), _console())


@main.command()
@click.argument("sweep_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="combined summary dataset to write (netCDF4); every case's full results go to "
                   "<OUT without suffix>.cases/")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="address of a running dask scheduler, e.g. tcp://scheduler-host:8786 "
                   "[default: start a local cluster]")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="worker processes of the local cluster [default: one per core]")
@click.option("--serial", is_flag=True, help="run the cases one after another in this process, without dask")
@click.option("--plot/--no-plot", default=True, show_default=True, help="write the summary plot too")
@click.option("--plot-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="where the plot goes [default: <OUT without suffix>_plots]")
@click.option("--overwrite", is_flag=True,
              help="replace the results of an earlier sweep at OUT and in its case folder")
@click.option("--case-timeout", type=click.FloatRange(min=0.0, min_open=True), default=None, metavar="SECONDS",
              help="stop a case running longer than this and record it as timed_out (each case then "
                   "runs in its own process) [default: the sweep file's case_timeout, or none]")
@_friendly
def sweep(sweep_file: Path, out: Path, scheduler: str | None, workers: int | None, serial: bool,
          plot: bool, plot_dir: Path | None, overwrite: bool, case_timeout: float | None):
    """Run every case of the parameter sweep SWEEP_FILE and write the combined summaries to OUT.

    Ctrl-C stops the sweep and still writes the summary of the cases finished (exit status 130).
    """
    from .sweep import cases_dir, load_sweep, run_sweep
    if serial and (scheduler or workers):
        raise WorkbenchError("--serial runs the cases in this process: drop --scheduler / --workers")
    if scheduler and workers:
        raise WorkbenchError("--workers sizes the local cluster; with --scheduler the cluster's own "
                             "workers run the cases")
    console = _console()
    registry = _registry()
    sw = load_sweep(sweep_file, registry=registry)
    grid = " x ".join(f"{d} ({n})" for d, n in zip(sw.dims, sw.shape))
    console.print(f"sweep '{sw.title}': {len(sw.cases)} cases over {grid}, base study {sw.base_file}")
    t0 = time.perf_counter()
    ds = run_sweep(sw, out, scheduler=scheduler, workers=workers, serial=serial, registry=registry,
                   overwrite=overwrite, case_timeout=case_timeout)
    n_failed = int((ds["status"].values != "ok").sum())
    console.print(f"[green]wrote[/] {out} in {time.perf_counter() - t0:.1f} s "
                  f"({ds.attrs.get('run_executor')}, {ds.attrs.get('run_workers')} workers); "
                  f"case results in {cases_dir(out)}"
                  + (f"; [red]{n_failed} of {ds['status'].size} cases failed[/]" if n_failed else ""))
    _sweep_table(console, ds, sw)
    if plot:
        _plot(ds, plot_dir or out.with_name(out.stem + "_plots"), console, result=out)


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


# --- converge (pressure branch): re-run a study at tightened settings ---------------------------
@main.command()
@click.argument("study_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="also write the table (netCDF4) to OUT; an existing file is never overwritten")
@click.option("--cycles", type=float, default=None,
              help="wear study: simulate only this many cycles in every run (a quick check)")
@click.option("--tol", "tol", multiple=True, metavar="QUANTITY=VALUE",
              help="replace a default tolerance, e.g. --tol trajectory=1e-6 (repeatable)")
@_friendly
def converge(study_file: Path, out: Path | None, cycles: float | None, tol: tuple[str, ...]):
    """Re-run STUDY_FILE at tightened settings and print its convergence table."""
    from .converge import check_output_path, converge_study, print_table, write_table
    from .study import load_study
    if out is not None:
        check_output_path(out)          # before hours of runs, not after
    tolerances = {}
    for item in tol:
        name, _, value = item.partition("=")
        try:
            tolerances[name.strip()] = float(value)
        except ValueError:
            raise WorkbenchError(f"--tol {item!r}: expected QUANTITY=VALUE with a number, "
                                 f"e.g. --tol trajectory=1e-6") from None
    registry = _registry()
    study = load_study(study_file, registry=registry)
    console = _console()
    t0 = time.perf_counter()
    with console.status("converge ...") as status:
        ds = converge_study(study, registry=registry, cycles=cycles, tolerances=tolerances,
                            progress=lambda label: status.update(f"converge: {label} run ..."))
    print_table(ds, console)
    if out is not None:
        write_table(ds, out)
        console.print(f"[green]wrote[/] {out}")
    console.print(f"{ds.sizes['setting'] + 1} runs in {time.perf_counter() - t0:.1f} s")
    if ds.attrs["run_status"] != "complete":
        console.print(f"[yellow]{ds.attrs['run_status']}[/] (Ctrl-C): the table holds the settings done")
        sys.exit(130)
# --- end converge -------------------------------------------------------------------------------


@main.command()
@click.option("--family", type=click.Choice(FAMILIES), default=None, help="only this model family")
@_friendly
def plugins(family: str | None):
    """List every registered model: family, name, provider, parameters, reference."""
    from rich.table import Table
    registry = _registry()
    table = Table(title="workbench models", show_lines=True)
    for col in ("family", "name"):
        table.add_column(col, no_wrap=True)
    for col in ("distribution", "version", "parameters", "reference"):
        table.add_column(col, overflow="fold")
    entries = registry.entries(family)
    for e in entries:
        params = "\n".join(_param_line(p) for p in e.cls.parameters()) or "(none)"
        table.add_row(e.family, e.name, e.distribution, e.version, params, e.cls.reference)
    console = _console()
    console.print(table)
    console.print(f"{len(entries)} models" + (f" in family '{family}'" if family else ""))


def _param_line(p) -> str:
    if p.default is None:
        default = "derived"
    elif isinstance(p.default, float):
        default = f"{p.default:g}"
    else:
        default = str(p.default)
    unit = "" if p.unit in ("1", "text", "") else f" {p.unit}"
    return f"{p.name} = {default}{unit}"


if __name__ == "__main__":  # pragma: no cover
    main()
