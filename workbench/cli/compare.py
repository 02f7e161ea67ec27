"""``workbench compare A B ... -o DIR``: the same quantities of several results in one figure each
(:mod:`workbench.results.compare`; registered on :func:`workbench.cli.common.main`)."""
from __future__ import annotations

from pathlib import Path

import click

from .common import _console, _friendly, main
from .figures import figure_flags
from ..errors import WorkbenchError


@main.command()
@click.argument("results", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--out-dir", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="folder for the overlay figures (files already there are never replaced)")
@figure_flags
@_friendly
def compare(results: tuple[Path, ...], out_dir: Path):
    """Overlay the same quantities of RESULTS (dynamics: contact forces, driver load; wear: worn
    profiles and volumes with their ±2 standard-error bands), the legend from the studies' titles."""
    from ..results.compare import compare as _compare
    from ..results.dataset import open_results
    datasets = []
    for r in results:
        try:
            datasets.append(open_results(r))
        except (OSError, ValueError) as exc:
            raise WorkbenchError(f"{r}: cannot read it as a workbench results file: {exc}") from None
    for p in _compare(datasets, [str(r) for r in results], out_dir):
        _console().print(f"[green]figure[/] {p}")
