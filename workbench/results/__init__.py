"""Results: the bottom layer every study kind writes through.

* :mod:`~workbench.results.variables` -- :func:`~workbench.results.variables.var`, the one builder
  of a variable with ``units`` and ``long_name``, and JSON attributes;
* :mod:`~workbench.results.dataset` -- CF attributes, provenance, reading and writing result files
  (:func:`open_results`);
* :mod:`~workbench.results.outputs` -- the output-path rules that keep a user's files safe, and the
  reader of a wear store;
* :mod:`~workbench.results.reducers` -- summary quantities of one result, compared by sweeps;
* :mod:`~workbench.results.plot` -- figure helpers and the dynamics plots;
  :mod:`~workbench.results.sweep_plot` -- the summary plot of a sweep.

A foundation: nothing here imports an engine, a study kind or an interface (the layer contract in
``pyproject.toml``); the run of a study and its dataset belong to its kind (:mod:`workbench.kinds`).

The names below are loaded on first use, so importing this package stays cheap.
"""
_LAZY = {"open_results": "dataset", "ENGINE": "dataset"}
__all__ = list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module
        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
