"""The ``workbench`` command line: ``run``, ``validate``, ``sweep``, ``plugins``, ``plot``.

Every mistake a user can make (bad study file, unknown model, output path ...) is a
:class:`~workbench.errors.WorkbenchError`; the command prints its message, without a traceback,
and exits with status 2.  A computation that fails (the solver, or a model returning unusable
values) exits with status 3, Ctrl-C with 130, keeping what the run had finished (see ``run``).
Results and tables go to stdout; progress, notes and warnings to stderr.

Results are written only to a new path or over a result of ours, and replacing a result needs
``--overwrite`` (:mod:`workbench.results.outputs`); a run whose estimated size exceeds ``--max-output-gb``
is refused before it starts (``[checks] max_memory_gb``, :mod:`workbench.study.checks`).
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import click

from ..errors import WorkbenchError
from ..models import FAMILIES
from . import common
from .figures import figure_flags
from .common import (EXIT_CODES_HELP, EXIT_INTERRUPTED, EXIT_RUN_FAILED, EXIT_USER_ERROR,  # noqa: F401 (re-exported)
                     _console, _exit_code, _friendly, _plot, _plot_folder, _prefetch_results_libraries, _registry,
                     _tagged, main)


def entry() -> None:
    """The ``workbench`` console script (and ``python -m workbench.cli.main``): :func:`main` in a process
    of its own, the only case where a command may hide dask from the process
    (:func:`workbench.cli.startup.hide_dask`) and end it without the interpreter's tear-down
    (:func:`workbench.cli.startup.exit_now`); ``main`` called from Python changes nothing global."""
    common._OWN_PROCESS = True
    _stop_on_termination_signals()
    from ..runtime import watchdog
    watchdog.BACKSTOP = True   # a model call that holds the GIL past its budget ends the process
    try:
        main()
    except SystemExit as exc:   # click ends every command so, 0 included
        from .startup import exit_now
        exit_now(exc.code, common._COMMAND[0])
        raise


def _stop_on_termination_signals() -> None:
    """SIGTERM (a batch system's ``kill``, a container's stop) and SIGHUP (a closed terminal) stop a
    command as Ctrl-C does: within a second, keeping what it finished (a dynamics run's samples, a
    wear run's completed updates with the status ``interrupted``), exit status 130."""
    import signal

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), interrupt)


@main.command()
@click.argument("study_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--max-cases", type=click.IntRange(min=1), default=None, metavar="N",
              help="sweep file: the largest number of cases its grid may have [default: the file's "
                   "[sweep] max_cases, 10000]")
@_friendly
def validate(study_file: Path, max_cases: int | None = None):
    """Check STUDY_FILE (schema, models, mechanism, estimated size) without running it.

    A sweep file (one with a [sweep] table) is checked with every one of its cases (a grid of more
    cases than its limit is refused at once, without building them), a UQ file (one with a [uq]
    table) with every run of its design."""
    from ..study.load import load_study
    # a sweep file is validated case by case
    from ..study.input import is_sweep_file
    if is_sweep_file(study_file):
        from ..sweeps.spec import quick_size_check
        quick_size_check(study_file, max_cases)   # a huge grid is refused before the plugins load
        _validate_sweep(study_file, _registry(), max_cases)
        return
    registry = _registry()
    from ..uq.spec import is_uq_file
    if is_uq_file(study_file):
        from .uq import validate_uq
        _tagged("ok", "green", validate_uq(study_file, registry))
        return
    study = load_study(study_file, registry=registry)
    if study.kind == "pressure":  # checked by workbench.kinds.pressure_config inside load_study
        _tagged("ok", "green", f"{study_file}: pressure study '{study.title}'")
        return
    m, s = study.mechanism, study.solver
    for w in study.warnings:  # allowed by [checks]; the run writes them into the dataset too
        _tagged("warning:", "yellow", w, err=True)
    if study.kind == "wear":
        w = study.wear
        _tagged(
            "ok", "green", f"{study_file}: wear study '{study.title}': {len(m.bodies)} bodies, "
            f"{_clearance_count(m)} clearance joints ({len(w.joints) + len(w.guides)} wearing); {w.cycles:.6g} cycles "
            f"of {w.cycle_period:g} s; pressure '{w.pressure.name}', wear law '{w.law.name}'")
        return
    from ..engines import describe_run, select
    beams = getattr(m, "beams", ())
    sel = select(m, s)
    solver = f"engine '{sel.name}': {describe_run(sel.engine, s, m)} ({sel.reason})"
    _tagged(
        "ok", "green", f"{study_file}: dynamics study '{study.title}': {len(m.bodies)} bodies, "
        + (f"{len(beams)} beams, " if beams else "")
        + f"{len(m.joints)} ideal joints, {len(m.drivers)} drivers, {len(m.forces)} forces, "
        f"{_clearance_count(m)} clearance joints; t = {s.t_start:g} .. {s.t_end:g} s, "
        f"output every {s.output_step:g} s, {solver}")


def _clearance_count(m) -> int:
    """Clearance joints of a planar or a spatial mechanism (a spatial one keeps them apart)."""
    return len(m.clearance_joints) or len(getattr(m, "spatial_clearance_joints", ()))


# sweep validation and the JSON Schema command
def _validate_sweep(sweep_file: Path, registry, max_cases: int | None = None) -> None:
    """``validate`` of a sweep file: the file (its grid's size first), then every case's study as
    ``run`` will load it."""
    from ..sweeps.spec import check_cases, load_sweep
    sw = load_sweep(sweep_file, registry=registry, max_cases=max_cases)
    check_cases(sw, registry=registry)
    _tagged("ok", "green", f"{sweep_file}: sweep '{sw.title}': {len(sw.cases)} {sw.kind} cases over "
                     f"{' x '.join(f'{d} ({n})' for d, n in zip(sw.dims, sw.shape))}, base study {sw.base_file}")


@main.command("schema")
@click.option("--kind", type=click.Choice(("study", "dynamics", "wear", "pressure", "sweep")),
              default="study", show_default=True,
              help="which file: a study of any kind, of one kind, or a sweep file")
@_friendly
def schema_command(kind: str):
    """Print the JSON Schema of a study or sweep file (for editors), generated from the schema
    the loader checks; the models listed are the installed ones."""
    from ..schema.jsonschema import schema_text
    click.echo(schema_text(kind, _registry()), nl=False)


@main.command()
@click.argument("study_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), required=True,
              help="results to write: a netCDF4 file (dynamics, pressure; xarray.open_dataset) or, "
                   "for a wear study, a zarr store (xarray.open_zarr), e.g. results/wear.zarr")
@click.option("--plot/--no-plot", default=True, show_default=True, help="write the PNG plots too")
@click.option("--plot-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="where the plots go [default: <OUT without suffix>_plots]; a file there that the "
                   "workbench did not write is never replaced")
@click.option("--resume", is_flag=True, help="wear study: continue the run stored in OUT")
@click.option("--overwrite", is_flag=True,
              help="replace the workbench result already at OUT (never a file the workbench did not write)")
# wall-time limit
@click.option("--max-time", "max_time", type=click.FloatRange(min=0.0, min_open=True), default=None,
              metavar="SECONDS", help="stop the run after SECONDS of wall time, keeping what it "
              "computed (dynamics: the samples in <OUT>.partial.nc; wear: the completed updates)")
@figure_flags
@_friendly
def run(study_file: Path, out: Path, plot: bool, plot_dir: Path | None, resume: bool, overwrite: bool,
        max_time: float | None = None):
    """Run STUDY_FILE and write its results to OUT (and plots).

    OUT must be new or hold a workbench result (replaced only with --overwrite); it is never an
    input of the study.  Ctrl-C stops the run (exit status 130) and keeps what it finished: a wear
    run's completed updates (continue with --resume), a dynamics run's samples when the solver
    hands them back.  --max-time SECONDS stops it likewise at that wall time (exit status 2).
    """
    # wall-time limit
    import contextlib

    from ..mbs.solver import wall_time_limit
    with wall_time_limit(max_time) if max_time is not None else contextlib.nullcontext():
        _run(study_file, out, plot, plot_dir, resume, overwrite)


def _run(study_file: Path, out: Path, plot: bool, plot_dir: Path | None, resume: bool, overwrite: bool):
    # one dispatcher on the study kind (workbench.kinds)
    from .. import kinds
    from ..results.outputs import check_output, input_paths
    from ..jit import load as load_numba
    from ..study.load import load_study
    load_numba()   # numba first, in this thread: a run needs it, and the study's checks then run compiled
    if common.PREFETCH:
        _prefetch_results_libraries(plots=plot)
    console = _console()
    registry = _registry()
    study = load_study(study_file, registry=registry)
    kind = kinds.get(study.kind)
    if resume and not kind.RESUMABLE:
        raise WorkbenchError(f"{study_file}: --resume is for wear studies (this is a {study.kind} study)")
    if resume and _already_complete(out, study, console):
        return
    check_output(out, kind=study.kind, inputs=input_paths(study_file, study.text), overwrite=overwrite,
                 resume=resume)
    plot_dir, plot_option = _plot_folder(out, plot_dir)
    if plot:   # the plot folder follows the output rules too, checked before the run
        from ..results.plot_files import check_plot_dir
        check_plot_dir(plot_dir, kind=study.kind, overwrite=overwrite or resume, option=plot_option)
    options = dict(resume=resume, overwrite=overwrite, note=_note(_console(stderr=True))) if kind.RESUMABLE else {}
    from ..runtime import watchdog
    watchdog.set_note(_note(_console(stderr=True)))   # a long run's projected cost, told once
    what = kind.describe(study)
    key = _compile_notice(_console(stderr=True), study)
    t0 = time.perf_counter()
    ds = _with_progress(_console(stderr=True), kind.progress_total(study), what,
                        lambda progress: kinds.run(study, registry=registry, out=out, progress=progress,
                                                   **options))
    if key is not None:
        from ..runtime.caches import mark_compiled
        mark_compiled(key)      # this model type is compiled now: no notice next time
    console.print(f"[green]wrote[/] {out} in {time.perf_counter() - t0:.1f} s: {what}")
    twin = str(ds.attrs.get("ideal_twin_status", ""))
    if twin.startswith("failed"):
        from rich.markup import escape
        _console(stderr=True).print(f"[yellow]warning:[/] the ideal-joint twin {escape(twin)}; {out} "
                                    f"holds the clearance run without the ideal_* variables")
    for line in kinds.summary_lines(ds):
        console.print(line, markup=False)
    _validity(_console(stderr=True), ds)
    if plot:
        _plot(ds, plot_dir, console, result=out, overwrite=overwrite or resume, option=plot_option)


def _already_complete(out: Path, study, console) -> bool:
    """``run --resume`` of a store that holds the finished run of this study: say so, print its
    summary and change nothing (no lock, no attribute, no probe file, no plot)."""
    from .. import kinds
    from ..wear.session import already_complete
    n = already_complete(out, study)
    if not n:
        return False
    from ..results.dataset import open_results
    _console(stderr=True).print(f"[green]already complete:[/] {out} holds the finished run of this study "
                                f"({n} updates); nothing was run or written (its plots: `workbench plot {out}`)")
    for line in kinds.summary_lines(open_results(out)):
        console.print(line, markup=False)
    return True


def _note(console):
    def note(message):
        from rich.markup import escape
        console.print(f"[yellow]note:[/] {escape(message)}")
    return note


#: the first compile of the solver [s]: the wall time of the Flores study's first run on an idle
#: machine with 2 cores, compiling in two processes (docs/performance.md; the notice says it)
FIRST_COMPILE_SECONDS = 40


def _compile_key(study) -> str | None:
    """The compiled model type ``study`` runs on: the engine's name, and for the planar compiled
    engine its feature set (``compiled-<friction><lubrication><distributed>``, each 0 or 1:
    :func:`workbench.mbs.compiled.model_features`; each set compiles its own integrator).  None
    when it cannot be told (the notice then goes by the cache's integrator alone)."""
    try:
        from ..engines import select
        sel = select(study.mechanism, study.solver)
        if sel.name != "compiled":
            return sel.name
        from ..mbs.compiled import compile_mechanism, model_features
        return "compiled-" + "".join("1" if f else "0" for f in model_features(compile_mechanism(study.mechanism)))
    except Exception:  # noqa: BLE001 - a notice, never a reason to fail
        return None


def _compile_notice(console, study) -> str | None:
    """Say so before a run compiles the solver: a fresh install (numba's cache holds no
    integrator), or a model type no run of this installation has finished yet (its marker,
    :func:`workbench.runtime.caches.compiled_marker`, is missing: e.g. a lubricated study after
    plain ones).  Returns the type's key for :func:`workbench.runtime.caches.mark_compiled`."""
    if study.kind not in ("dynamics", "wear"):
        return None
    from ..runtime.caches import compiled_marker, holds_compiled, numba_cache_dir
    if numba_cache_dir() is None:
        return None
    key = _compile_key(study)
    marker = compiled_marker(key) if key is not None else None
    if not holds_compiled() or (marker is not None and not marker.exists()):
        console.print(f"[yellow]note:[/] compiling the solver once for this installation, this takes "
                      f"about {FIRST_COMPILE_SECONDS} s (longer on a busy machine); later runs load it in seconds")
    return key


def _validity(console, ds) -> None:
    """Print the result's validity warnings and notes (they are also in the file's attributes)."""
    import json
    from rich.markup import escape
    for key, tag in (("warnings", "[yellow]warning:[/]"), ("validity_warnings", "[yellow]warning:[/]"),
                     ("validity_notes", "[cyan]validity:[/]")):
        value = ds.attrs.get(key)
        if not value:
            continue
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                value = value.splitlines()      # a dynamics run's "warnings": one per line
        for line in ([value] if isinstance(value, str) else list(value)):
            console.print(f"{tag} {escape(str(line))}")


#: on a stderr that is not a terminal, steps inside a wear update or a dynamics run print at most
#: one line per this many seconds [s] (every finished wear update prints its line)
PLAIN_EVERY = 30.0


def _count(p) -> str:
    """The amount done, as the bar and the log line show it."""
    if p.unit == "s":
        return f"{100 * p.fraction:.0f} % of simulated time"
    return f"{p.done:,.0f}/{p.total:,.0f}"


def _plain_progress(console, what: str):
    """One line per step on a stderr that is not a terminal (a cluster job's log): done/total,
    elapsed time and a rough time to go (from the fraction done so far); the steps within a
    wear update or a dynamics run at most every :data:`PLAIN_EVERY` s."""
    start = time.perf_counter()
    last = [-math.inf]
    console.print(f"running {what}", markup=False, highlight=False)

    def line(p):
        el = time.perf_counter() - start
        if p.phase not in ("update", "done") and el - last[0] < PLAIN_EVERY:
            return
        last[0] = el
        frac = p.fraction
        eta = f", about {el * (1 - frac) / frac:.0f} s to go" if 0 < frac < 1 else ""
        count = _count(p) + (f" ({100 * frac:.1f} %)" if p.unit != "s" else "")
        console.print(f"{count} {p.info}, {el:.0f} s{eta}", markup=False, highlight=False)
    return line


def _with_progress(console, total: float | None, what: str, job):
    """``job(progress)`` under a progress bar (a kind with countable work) or a spinner; on a
    stderr that is not a terminal, one plain line per step instead.  ``progress`` takes a
    :class:`~workbench.runtime.progress.Progress`."""
    import warnings
    if total is not None and not console.is_terminal:
        return job(_plain_progress(console, what))
    if total is None:
        with console.status(f"running {what} ..."), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="the ideal-joint twin", category=RuntimeWarning)
            return job(None)
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    with Progress(TextColumn("[bold]run[/]"), BarColumn(), TextColumn("{task.fields[count]}"),
                  TextColumn("{task.fields[info]}"), TimeElapsedColumn(), TextColumn("eta"),
                  TimeRemainingColumn(), console=console) as bar:
        task = bar.add_task("run", total=total, info="", count="")

        def show(p):
            bar.update(task, completed=p.done, info=p.info, count=_count(p))
        return job(show)


@main.command()
@click.argument("result", type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--out-dir", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="where the PNGs go [default: <RESULT without suffix>_plots]; a file "
                                 "there that the workbench did not write is never replaced")
@click.option("--overwrite", is_flag=True, help="replace the figures an earlier workbench run drew there "
                                                "(never a file the workbench did not write)")
@figure_flags
@_friendly
def plot(result: Path, out_dir: Path | None, overwrite: bool = False):
    """Write the PNG plots of a results file."""
    from ..results.dataset import open_results
    folder, option = _plot_folder(result, out_dir, option="-o")
    from ..results.plot_files import _check_folder
    from ..results.outputs import check_result
    check_result(result)   # a foreign netCDF file or zarr store: said so, nothing drawn
    _check_folder(folder, option)
    try:
        ds = open_results(result)
    except (OSError, ValueError) as exc:
        raise WorkbenchError(f"{result}: cannot read it as a workbench results file: {exc}") from None
    from ..kinds import kind_of
    from ..results.plot_files import check_plot_dir
    if ds.attrs.get("study_kind") == "uq":     # not a study kind: the result of `workbench uq`
        from .uq import plot_uq
        check_plot_dir(folder, kind="uq", overwrite=overwrite, option=option)
        plot_uq(ds, folder, _console(), overwrite=overwrite, option=option)
        return
    check_plot_dir(folder, kind=kind_of(ds), overwrite=overwrite, option=option)
    _plot(ds, folder, _console(), overwrite=overwrite, option=option)


# ParaView export
@main.command()
@click.argument("result", type=click.Path(exists=True, path_type=Path))
@click.option("--vtu", "vtu_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="directory for the VTU time series of the deformed beams and its .pvd index "
                   "(created if missing; existing files are never replaced)")
@_friendly
def export(result: Path, vtu_dir: Path):
    """Export the deformed beams of a dynamics result for ParaView (VTU + .pvd, SI units)."""
    from ..results.dataset import open_results
    from ..flex.export import export_vtu
    from ..results.outputs import check_result
    check_result(result)
    try:
        ds = open_results(result)
    except (OSError, ValueError) as exc:
        raise WorkbenchError(f"{result}: cannot read it as a workbench results file: {exc}") from None
    _console().print(f"[green]export[/] {export_vtu(ds, vtu_dir)}")


# --- converge (pressure branch): re-run a study at tightened settings ---------------------------
@main.command()
@click.argument("study_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="also write the table (netCDF4) to OUT; an existing file is never overwritten")
@click.option("--cycles", type=float, default=None,
              help="wear study: simulate only this many cycles in every run (a quick check)")
@click.option("--tol", "tol", multiple=True, metavar="QUANTITY=VALUE",
              help="replace a default tolerance, e.g. --tol trajectory=1e-6 (repeatable)")
@click.option("--quantity", "quantity", multiple=True, metavar="NAME",
              help="judge only this quantity, e.g. --quantity crank_moment_lowpass_peak (repeatable; "
                   "default: every quantity the study reports)")
@click.option("--setting", "setting", multiple=True, metavar="LABEL",
              help="run only this tightened setting, e.g. --setting rtol/10 (repeatable; default: all)")
@click.option("--lowpass", type=float, default=None, metavar="HZ",
              help="cut-off [Hz] of the crank moment's zero-phase Butterworth low-pass (default 1000)")
@click.option("--markdown", is_flag=True, help="print the table as Markdown (for the docs)")
@_friendly
def converge(study_file: Path, out: Path | None, cycles: float | None, tol: tuple[str, ...],
             quantity: tuple[str, ...], setting: tuple[str, ...], lowpass: float | None, markdown: bool):
    """Re-run STUDY_FILE at tightened settings and print its convergence table."""
    from ..converge.runner import (check_output_path, converge_study, markdown_table, print_table,
                                   write_table)
    from ..converge.signals import LOWPASS_HZ
    from ..study.load import load_study
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
    with _console(stderr=True).status("converge ...") as status:
        ds = converge_study(study, registry=registry, cycles=cycles, tolerances=tolerances,
                            quantities=quantity, settings=setting,
                            lowpass=LOWPASS_HZ if lowpass is None else lowpass,
                            progress=lambda label: status.update(f"converge: {label} run ..."))
    if markdown:
        click.echo(markdown_table(ds))
    else:
        print_table(ds, console)
    if out is not None:
        write_table(ds, out)
        console.print(f"[green]wrote[/] {out}")
    console.print(f"{ds.sizes['setting'] + 1} runs in {time.perf_counter() - t0:.1f} s")
    if ds.attrs["run_status"] != "complete":
        console.print(f"[yellow]{ds.attrs['run_status']}[/] (Ctrl-C): the table holds the settings done")
        sys.exit(130)


# `workbench plugins`
@main.command()
@click.argument("name", required=False)
@click.option("--family", type=click.Choice(FAMILIES), default=None, help="only this model family")
@click.option("--json", "as_json", is_flag=True, help="print JSON (every fact of every model) instead")
@_friendly
def plugins(name: str | None, family: str | None, as_json: bool):
    """List the registered models by family, or show model NAME's parameters in full.

    Each model's line gives its summary and parameters (name = default unit); NAME shows every
    parameter's unit, default, allowed bounds, the range its source derives it for, and the
    model's reference.  --json prints the same facts for programs.
    """
    from . import model_docs
    registry = _registry()
    clashes = [(f, n) for f, n in registry.clashes if (family in (None, f)) and name in (None, n)]
    for f, n in clashes:   # a name two plugins register: listed, refused where a study uses it
        _tagged("warning:", "yellow", registry.clash_message(f, n), err=True)
    if name and clashes and not any(e.name == name for e in registry.entries(family)):
        raise WorkbenchError(registry.clash_message(*clashes[0]))
    entries = model_docs.find(registry, name, family) if name else registry.entries(family)
    if as_json:
        import json
        click.echo(json.dumps(model_docs.as_dicts(entries), indent=2, ensure_ascii=False))
        return
    if name:
        lines = []
        for e in entries:
            lines += model_docs.model_doc(e) + [""]
        click.echo("\n".join(lines[:-1]))
        return
    click.echo("\n".join(model_docs.listing(entries, family)))


from . import sweep as cli_sweep  # noqa: E402,F401 - registers `workbench sweep` on main
from . import calibrate as cli_calibrate  # noqa: E402,F401 - registers `workbench calibrate` on main
from . import rerun as cli_rerun  # noqa: E402,F401 - registers `workbench rerun` on main
from . import compare as cli_compare  # noqa: E402,F401 - registers `workbench compare` on main
from . import uq as cli_uq  # noqa: E402,F401 - registers `workbench uq` on main

if __name__ == "__main__":  # pragma: no cover - `python -m workbench.cli.main`: the package's module (where
    from workbench.cli.main import entry as _entry   # cli_sweep registered its command), not this copy
    _entry()
