"""``workbench calibrate``: the posterior of the wear coefficient from measured wear (registered on
:func:`workbench.cli.main.main`; the work is :func:`workbench.calibration.calibrate`)."""
from __future__ import annotations

from pathlib import Path

import click

from .common import _console, _friendly, _registry, main
from .figures import figure_flags


@main.command()
@click.argument("study_file", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("data_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="the posterior (netCDF4, .nc)")
@click.option("--prior", default=None, metavar="KIND:A:B",
              help="prior on k [1/Pa]: lognormal:MEDIAN:SIGMA_LN, loguniform:LO:HI, normal:MEAN:SD, "
                   "uniform:LO:HI [default: lognormal, the study's k, sigma of ln k 1]")
@click.option("--method", type=click.Choice(["scaled", "linear"]), default="scaled", show_default=True,
              help="scaled: the reference run read at N k/k0 (exact for Archard and Reye, nonlinear wear "
                   "included); linear: (k/k0) h(N), small wear only")
@click.option("--simulation", type=click.Path(exists=True, path_type=Path), default=None,
              help="an existing wear result of this study (zarr store or netCDF) instead of running it")
@click.option("--keep-simulation", type=click.Path(path_type=Path), default=None,
              help="keep the reference run in this new zarr store")
@click.option("--k-max-factor", type=click.FloatRange(min=1.0), default=4.0, show_default=True,
              help="the reference run covers k up to this multiple of the study's k")
@click.option("--level", type=click.FloatRange(0.5, 0.999), default=0.95, show_default=True,
              help="credible level of the interval")
@click.option("--plot/--no-plot", default=True, show_default=True, help="write the posterior and profile plots")
@click.option("--plot-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="where the plots go [default: <OUT without suffix>_plots]")
@click.option("--overwrite", is_flag=True, help="replace an earlier result of ours at OUT")
@figure_flags
@_friendly
def calibrate(study_file: Path, data_file: Path, out: Path, prior, method, simulation, keep_simulation,
              k_max_factor, level, plot, plot_dir, overwrite):
    """Fit the wear coefficient of STUDY_FILE to the measured wear in DATA_FILE (CSV or netCDF).

    The data file holds worn profiles and/or worn volumes at given cycles with their standard
    errors (format: docs/guide/calibration.md).  Writes the posterior of k with its credible
    interval, and the posterior predictive against the data.
    """
    from ..calibration import calibrate as _calibrate, read_measurements
    from ..calibration.plot import plots
    from ..results.dataset import write_dataset
    from ..results.outputs import check_output, input_paths
    from ..study.load import load_study
    registry = _registry()
    study = load_study(study_file, registry=registry)
    inputs = input_paths(study.file, study.text) + [data_file] + ([simulation] if simulation else [])
    check_output(out, kind="calibration", inputs=inputs, overwrite=overwrite)
    data = read_measurements(data_file)
    ds = _calibrate(study, data, prior=prior, method=method, simulation=simulation,
                    keep_simulation=keep_simulation, k_max_factor=k_max_factor, level=level, registry=registry)
    write_dataset(ds, out)
    console = _console()
    console.print(f"k = {float(ds.k_median):.4g} 1/Pa (median; mean {float(ds.k_mean):.4g} +- {float(ds.k_sd):.3g}), "
                  f"{level:.0%} credible interval [{float(ds.k_lower):.4g}, {float(ds.k_upper):.4g}] 1/Pa "
                  f"from {len(data)} observations; wrote {out}")
    if plot:
        for f in plots(ds, plot_dir or out.with_name(out.stem + "_plots")):
            console.print(f"[green]plot[/] {f}")
