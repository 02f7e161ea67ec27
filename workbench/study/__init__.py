"""Study files: reading (:mod:`~workbench.study.input`), the schema of the dynamics and wear kinds
(:mod:`~workbench.study.schema`), loading into a :class:`~workbench.study.load.Study`
(:mod:`~workbench.study.load`) and the checks beyond the schema (:mod:`~workbench.study.checks`).

``load_study`` and ``Study`` are loaded on first use, so importing this package stays cheap.
"""
_LAZY = {"load_study": "load", "load_study_text": "load", "Study": "load"}
__all__ = list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module
        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
