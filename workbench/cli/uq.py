"""``workbench uq``: uncertainty propagation of a UQ file (registered on :func:`workbench.cli.common.main`).

The UQ file (:mod:`workbench.uq.spec`) gives a base wear study and its uncertain parameters; the
Saltelli design (:mod:`workbench.uq.design`) runs as a sweep through :func:`workbench.sweeps.run.run_sweep`
(local processes, ``--dask``, or a cluster by ``--scheduler``), and :mod:`workbench.uq.analyze`
writes the bands and Sobol' indices to OUT.  The runs' summaries go to ``<OUT stem>_runs.nc``, their
wear stores to ``<OUT stem>_runs.cases/``.
"""
from __future__ import annotations

import time
from pathlib import Path

import click

from .common import _console, _friendly, _registry, _tagged, main
from .figures import figure_flags
from ..errors import WorkbenchError


def uq_sweep(spec, registry=None):
    """The runs of the UQ spec (``u``, ``x``, the number of design rows; :func:`workbench.uq.design.rows`)
    and the loaded sweep that runs them."""
    from ..sweeps.spec import load_sweep_text
    from ..uq.design import rows, sweep_text
    u, x, n_design = rows(spec)
    return (u, x, n_design), load_sweep_text(sweep_text(spec, x), file=spec.file, registry=registry)


def runs_path(out: Path) -> Path:
    """Where the runs' sweep summary goes: ``<OUT stem>_runs.nc`` beside OUT."""
    return Path(out).with_name(Path(out).stem + "_runs.nc")


def run_uq(spec, out: Path, *, registry=None, overwrite: bool = False, progress=True, **where):
    """Run the design of ``spec`` as a sweep (``where``: ``scheduler``, ``workers``, ``serial``,
    ``dask``, ``case_timeout`` of :func:`workbench.sweeps.run.run_sweep`), write the UQ dataset to
    ``out`` and return it."""
    from ..results.dataset import write_dataset
    from ..results.outputs import check_output, input_paths
    from ..sweeps.run import run_sweep
    from ..uq.analyze import analyze
    inputs = input_paths(spec.base_file, (spec.base_file).read_text()) + ([spec.file] if spec.file else [])
    check_output(out, kind="uq", inputs=inputs, overwrite=overwrite)
    (u, x, n_design), sw = uq_sweep(spec, registry)
    runs = run_sweep(sw, runs_path(out), registry=registry, overwrite=overwrite, progress=progress, **where)
    ds = analyze(spec, runs, x, u, n_design)
    for k in ("run_executor", "run_workers", "run_wall_time"):
        if k in runs.attrs:
            ds.attrs[k] = runs.attrs[k]
    write_dataset(ds, out)
    return ds


@main.command()
@click.argument("uq_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="the bands and Sobol' indices (netCDF4); the runs go to <OUT stem>_runs.nc and "
                   "<OUT stem>_runs.cases/")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="address of a running dask scheduler [default: local worker processes]")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="local worker processes [default: one per core]")
@click.option("--dask", "use_dask", is_flag=True, help="run the local workers as a dask LocalCluster")
@click.option("--serial", is_flag=True, help="run the runs one after another in this process")
@click.option("--plot/--no-plot", default=True, show_default=True, help="write the band and Sobol' plots")
@click.option("--plot-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="where the plots go [default: <OUT without suffix>_plots]")
@click.option("--overwrite", is_flag=True, help="replace an earlier result of ours at OUT and of its runs")
@figure_flags
@_friendly
def uq(uq_file: Path, out: Path, scheduler, workers, use_dask, serial, plot, plot_dir, overwrite):
    """Propagate the uncertain parameters of UQ_FILE through its base wear study.

    Runs the Saltelli design (N (d + 2) runs) as a sweep and writes the prediction bands of the worn
    volume and the deepest wear against the cycles (parameter uncertainty and chaotic scatter) and
    the Sobol' indices with their confidence intervals.  Format: docs/guide/uq.md.
    """
    if serial and (scheduler or workers or use_dask):
        raise WorkbenchError("--serial runs the cases in this process: drop --scheduler / --workers / --dask")
    from ..uq.spec import load_uq
    console = _console()
    registry = _registry()
    spec = load_uq(uq_file, registry=registry)
    folder = plot_dir or out.with_name(out.stem + "_plots")
    if plot:    # before the runs, not after: a folder we may not write into is said at once
        from ..results.plot_files import check_plot_dir
        check_plot_dir(folder, kind="uq", overwrite=overwrite, option="--plot-dir")
    n = spec.base_samples * (len(spec.parameters) + 2)
    extra = f" + {spec.held_back} held back to check the surrogate" if spec.held_back else ""
    console.print(f"uq '{spec.title}': {n} runs{extra} of {spec.base_file} to {spec.cycles:.6g} cycles; "
                  + "; ".join(p.describe() for p in spec.parameters))
    t0 = time.perf_counter()
    import warnings
    from ..uq.surrogate import SurrogateWarning
    with warnings.catch_warnings(record=True) as caught:   # the surrogate's flag as a warning line, not a traceback-like one
        warnings.simplefilter("always", SurrogateWarning)
        ds = run_uq(spec, out, registry=registry, overwrite=overwrite, scheduler=scheduler, workers=workers,
                    serial=serial, dask=use_dask)
    for w in caught:
        if issubclass(w.category, SurrogateWarning):
            _tagged("warning:", "yellow", str(w.message), err=True)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    a = 0.5 * (1 - spec.level)
    console.print(f"[green]wrote[/] {out} in {time.perf_counter() - t0:.1f} s ({ds.attrs['runs_ok']} of "
                  f"{ds.attrs['runs']} runs ok); after {spec.cycles:.6g} cycles, {100 * a:.3g}-{100 * (1 - a):.3g} %:")
    for key, scale, unit in (("wear_volume", 1e9, "mm^3"), ("deepest_wear", 1e6, "um")):
        b = scale * ds[f"{key}_band"].values[:, -1]
        console.print(f"  {key}: {b[1]:.4g} [{b[0]:.4g}, {b[2]:.4g}] {unit}")
    for line in summary_lines(ds):
        console.print(line)
    if plot:
        plot_uq(ds, folder, console, overwrite=overwrite)


def plot_uq(ds, folder: Path, console, *, overwrite: bool = False, option: str = "--plot-dir") -> list[Path]:
    """Draw the plots of a UQ result into ``folder`` (``workbench uq`` and ``workbench plot``):
    staged and moved in only over nothing but our own figures
    (:func:`workbench.results.plot_files.publish`).  A result of :func:`workbench.uq.propagate`
    (no cycle axis) gets its profile band and sample histograms."""
    from ..results.plot_files import publish
    from ..uq.plot import plots, study_plots
    draw = study_plots if "cycle" in ds.dims else plots
    files = publish(lambda staging: draw(ds, staging), folder, overwrite=overwrite, option=option)
    for f in files or []:
        console.print(f"[green]plot[/] {f}")
    return files


def summary_lines(ds) -> list[str]:
    """The Sobol' lines of the printed summary (SALib's with their 95 % half-widths; the polynomial
    chaos's beside them, as ``pce``) and the surrogate's held-back check."""
    out = []
    pce = "sobol_total_volume_pce" in ds
    for i, name in enumerate(ds["input"].values):
        parts = []
        for v, lab in (("sobol_first_volume", "S1 volume"), ("sobol_total_volume", "ST volume"),
                       ("sobol_first_deepest", "S1 deepest"), ("sobol_total_deepest", "ST deepest")):
            parts.append(f"{lab} {float(ds[v][i]):.3f} +- {float(ds[v + '_conf'][i]):.3f}"
                         + (f" (pce {float(ds[v + '_pce'][i]):.3f})" if pce else ""))
        out.append("  " + str(name) + ": " + ", ".join(parts))
    if "surrogate_summary" in ds.attrs:
        out.extend(str(ds.attrs["surrogate_summary"]).splitlines())
    return out


def validate_uq(uq_file: Path, registry) -> str:
    """``validate`` of a UQ file: the file, then every run's study as ``run`` will load it; the
    line to print."""
    from ..sweeps.spec import check_cases
    from ..uq.spec import load_uq
    spec = load_uq(uq_file, registry=registry)
    (_, x, n_design), sw = uq_sweep(spec, registry)
    check_cases(sw, registry=registry)
    extra = (f" + {len(x) - n_design} held back to check a polynomial chaos of order {spec.surrogate_order}"
             if spec.surrogate != "none" else "")
    return (f"{uq_file}: uq '{spec.title}': {n_design} runs{extra} (Saltelli N = {spec.base_samples}, "
            f"{len(spec.parameters)} parameters) of {spec.base_file} to {spec.cycles:.6g} cycles")
