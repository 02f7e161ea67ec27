"""Built-in models of the Joint Wear Workbench.

Each module holds one model and one ``hookimpl`` that registers it; the modules are declared in
``pyproject.toml`` under ``[project.entry-points.workbench]``, the same path a third-party package
uses.  The host package ``workbench`` never imports this package directly.
"""
# --- house: numba's cache of this package's compiled functions goes to the source-keyed folder of
# workbench.caches; it must be set before the first cache=True function is defined
from workbench.caches import use_numba_cache as _use_numba_cache

_use_numba_cache()
# --- house (end)
