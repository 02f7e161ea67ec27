"""``workbench rerun RESULT -o OUT``: run again the study that made RESULT, from the file alone,
and say how the new result agrees with it (registered on :func:`workbench.cli.common.main`)."""
from __future__ import annotations

import time
from pathlib import Path

import click

from .common import _console, _friendly, _registry, main
from ..errors import WorkbenchError


@main.command()
@click.argument("result", type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), required=True,
              help="where the new result goes (a new path, or a result of ours with --overwrite)")
@click.option("--overwrite", is_flag=True, help="replace the workbench result already at OUT")
@click.option("--ignore-changed-inputs", is_flag=True,
              help="run even when an input file's contents differ from what the original run read")
@click.option("-k", "k", type=click.FloatRange(min=0.0, min_open=True), default=3.0, show_default=True,
              help="wear studies: agreement within k combined standard errors")
@_friendly
def rerun(result: Path, out: Path, overwrite: bool, ignore_changed_inputs: bool, k: float):
    """Run the study stored in RESULT again and write it to OUT; compare the two.

    The study text, the plugins and the hashes of the input files come from RESULT: a model
    whose plugin is not installed, or an input file that is missing or has changed, is named
    before anything runs.  A dynamics result must come back bit-identical; a wear result within
    k standard errors.  Exit status 3 when it does not.
    """
    from .. import kinds
    from ..jit import load as load_numba
    from ..results.dataset import open_results
    from ..results.outputs import check_output, input_paths
    from ..study.rerun import compare, study_of_result
    load_numba()
    try:
        orig = open_results(result)
    except (OSError, ValueError) as exc:
        raise WorkbenchError(f"{result}: cannot read it as a workbench results file: {exc}") from None
    registry = _registry()
    err = _console(stderr=True)
    rr = study_of_result(orig, registry=registry, where=str(result),
                         check_inputs=not ignore_changed_inputs)
    for note in rr.notes:
        err.print(f"[yellow]note:[/] {note}", markup=True)
    study = rr.study
    check_output(out, kind=study.kind, inputs=[Path(result).resolve(), *input_paths(study.file, study.text)],
                 overwrite=overwrite)
    kind = kinds.get(study.kind)
    options = dict(overwrite=overwrite) if kind.RESUMABLE else {}
    t0 = time.perf_counter()
    with err.status(f"rerunning {kind.describe(study)} ..."):
        new = kinds.run(study, registry=registry, out=out, **options)
    _console().print(f"[green]wrote[/] {out} in {time.perf_counter() - t0:.1f} s")
    ok, lines = compare(orig, new, k=k)
    for line in lines:
        _console().print(("  " if ok else "  [red]x[/] ") + line)
    _console().print("[green]reproduced[/]" if ok else "[red]not reproduced[/]")
    if not ok:
        raise SystemExit(3)
