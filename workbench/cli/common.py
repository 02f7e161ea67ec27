"""What every ``workbench`` command shares: the command group :func:`main`, exit codes, the error
wrapper :func:`_friendly`, the console, the registry, the plots of a result, and the state of the
command's own process (set by :func:`workbench.cli.main.entry`).

The commands register on :func:`main` from :mod:`workbench.cli.main` and :mod:`workbench.cli.sweep`;
both import this module and neither imports the other at module level.
"""
from __future__ import annotations

import functools
import sys
from pathlib import Path

import click

from ..runtime.version import __version__
from ..errors import WorkbenchError

# exit codes
EXIT_USER_ERROR = 2      # usage error, bad input, output refused, a run stopped by --max-time or [checks]
EXIT_RUN_FAILED = 3      # the computation failed: solver failure, a model returned unusable values
EXIT_INTERRUPTED = 130   # 128 + SIGINT, the shell's convention for Ctrl-C
EXIT_CODES_HELP = """\b
Exit status:
  0    done
  1    an internal error (a bug: please report it with the traceback)
  2    usage error or bad input (study file, options, output path), or a
       run stopped by --max-time or by a [checks] guard
  3    the computation failed (the solver, or a model's unusable output)
  130  interrupted (Ctrl-C); what the run had finished is kept"""


def _exit_code(exc) -> int:
    """EXIT_RUN_FAILED for a failed computation, EXIT_USER_ERROR for every other WorkbenchError."""
    from ..errors import ModelFault, SolverError
    limit = getattr(sys.modules.get("workbench.mbs.run_control"), "SolverTimeLimit", ())
    model = ModelFault   # a model's bad output or exception (wear.increment.ModelOutputError is one)
    chain, e = [], exc
    while e is not None and len(chain) < 20:   # a run re-raises the solver's error with the file it kept
        chain.append(e)
        e = e.__cause__ or e.__context__
    if any(isinstance(e, limit) for e in chain):   # stopped at the limit the user set: not a failure
        return EXIT_USER_ERROR
    if isinstance(exc, (SolverError, model)) or any(isinstance(e, model) for e in chain):
        return EXIT_RUN_FAILED
    return EXIT_USER_ERROR


def _console(stderr: bool = False):
    from rich.console import Console
    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def _tagged(tag: str, color: str, text: str, *, err: bool = False) -> None:
    """Print ``tag`` in ``color`` (on a terminal) and ``text`` as is, without importing rich
    (start-up: ``validate`` prints only such lines)."""
    click.echo(f"{click.style(tag, fg=color)} {text}", err=err)


def _friendly(func):
    """Turn a WorkbenchError into a message on stderr and exit status 2 or 3 (see _exit_code)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except WorkbenchError as exc:
            from rich.markup import escape
            _console(stderr=True).print(f"[bold red]error:[/] {escape(str(exc))}")
            sys.exit(_exit_code(exc))
        except OSError as exc:   # the system refused (disk full, read-only, name too long ...): a
            from ..runtime.interrupts import is_interrupt   # message naming the cause and the path
            if is_interrupt(exc):
                raise
            from rich.markup import escape
            from ..runtime.files import os_error_text
            _console(stderr=True).print(f"[bold red]error:[/] {escape(os_error_text(exc))}")
            sys.exit(EXIT_USER_ERROR)
        except (KeyboardInterrupt, Exception) as exc:
            from ..runtime.interrupts import is_interrupt
            if not is_interrupt(exc):   # Ctrl-C in compiled code may surface as a SystemError
                raise
            from rich.markup import escape
            kept = getattr(exc, "kept", None)
            _console(stderr=True).print("[bold red]interrupted[/]" + (f": {escape(kept)}" if kept else ""))
            sys.exit(EXIT_INTERRUPTED)
    return wrapper


def _registry():
    from ..plugins import build_registry
    return build_registry()


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES_HELP)
@click.version_option(__version__, prog_name="workbench")
@click.pass_context
def main(ctx):
    """Joint Wear Workbench: clearance, contact, friction and wear in planar mechanisms.

    Results and tables go to stdout; progress, notes and warnings to stderr.
    """
    if _OWN_PROCESS:   # --- startup: every command but a sweep leaves dask unimported
        from .startup import hide_dask
        hide_dask(ctx.invoked_subcommand)
        _COMMAND[0] = ctx.invoked_subcommand


# the command's own process leaves dask unimported
_OWN_PROCESS = False
_COMMAND: list = [None]   # the command this process runs (None: --help, --version)


# the results libraries are imported beside the run
#: import xarray and the netCDF engine (and matplotlib, for the plots) in a background thread while
#: ``run`` simulates or a sweep's workers run (False: when first used); see :mod:`workbench.cli.startup`
PREFETCH = True


def _prefetch_results_libraries(plots: bool = False) -> None:
    from .startup import prefetch_results_libraries
    prefetch_results_libraries(plots=plots)


def _plot_folder(out: Path, plot_dir: Path | None, option: str = "--plot-dir") -> tuple[Path, str]:
    """The plot folder (given, or ``<OUT without suffix>_plots``) and how to name it in messages."""
    if plot_dir is not None:
        return plot_dir, option
    return out.with_name(out.stem + "_plots"), f"the default plot folder; choose one with {option}"


def _plot(ds, outdir: Path, console, result: Path | None = None, overwrite: bool = False,
          option: str = "--plot-dir") -> list[Path]:
    """Write the plots of ``ds`` (already on disk at ``result``, which a failure never touches),
    chosen by the dataset's study kind (:func:`workbench.kinds.plots`): never over a file the
    workbench did not write, over a figure of ours only with ``overwrite``."""
    from .. import kinds
    from ..results.outputs import OutputError
    kept = f"the results are in {result}; " if result is not None else ""
    try:
        paths = kinds.plots(ds, outdir, overwrite=overwrite, option=option)
    except OutputError as exc:
        raise OutputError(f"{kept}{exc}") from None
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
