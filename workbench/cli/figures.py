"""The figure options every command that draws takes: ``--format pdf|svg|png``, ``--width``,
``--style paper|screen``, ``--dpi`` (:mod:`workbench.results.figures`).  :func:`figure_flags`
adds them to a command and draws its figures under them, so a command's own code is unchanged."""
from __future__ import annotations

import functools

import click


def figure_flags(func):
    """Decorate a click command: the figure options, consumed here, in force while it runs."""
    @functools.wraps(func)
    def wrapper(*args, fig_format: str = "png", fig_width=None, fig_style: str = "screen",
                fig_dpi=None, **kwargs):
        from ..results.figures import FigureOptions, figure_options
        with figure_options(FigureOptions(format=fig_format, width=fig_width, style=fig_style, dpi=fig_dpi)):
            return func(*args, **kwargs)
    for opt in reversed([
        click.option("--format", "fig_format", type=click.Choice(["png", "pdf", "svg"]), default="png",
                     show_default=True, help="file format of the figures (pdf, svg: vector, fonts embedded)"),
        click.option("--width", "fig_width", type=click.FloatRange(1.0, 30.0), default=None, metavar="INCHES",
                     help="figure width [in] (3.5: one journal column, 7.2: two); the height follows"),
        click.option("--style", "fig_style", type=click.Choice(["screen", "paper"]), default="screen",
                     show_default=True, help="paper: 8 pt text, thin lines, 300 dpi"),
        click.option("--dpi", "fig_dpi", type=click.FloatRange(min=30.0, max=1200.0), default=None,
                     help="resolution of PNG figures [dots per inch]"),
    ]):
        wrapper = opt(wrapper)
    return wrapper
