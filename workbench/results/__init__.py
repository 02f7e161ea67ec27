"""Results: the bottom layer every study kind writes through.

* :mod:`~workbench.results.dataset` -- variables with units and long names, CF attributes,
  provenance, reading and writing result files (:func:`open_results`);
* :mod:`~workbench.results.outputs` -- the output-path rules that keep a user's files safe;
* :mod:`~workbench.results.reducers` -- summary quantities of one result, compared by sweeps;
* :mod:`~workbench.results.plot` -- figure helpers and the dynamics plots.

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
