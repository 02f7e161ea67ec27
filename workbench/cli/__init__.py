"""The ``workbench`` command line: :mod:`~workbench.cli.main` (run, validate, plot, export,
converge, plugins), :mod:`~workbench.cli.sweep` (``workbench sweep``), the process start-up
(:mod:`~workbench.cli.startup`) and the model pages of ``workbench plugins NAME``
(:mod:`~workbench.cli.model_docs`)."""


def entry():
    """The ``workbench`` console script (see :func:`workbench.cli.main.entry`)."""
    from .main import entry as _entry
    return _entry()
