"""Built-in models of the Joint Wear Workbench.

Each module holds one model and one ``hookimpl`` that registers it; the modules are declared in
``pyproject.toml`` under ``[project.entry-points.workbench]``, the same path a third-party package
uses.  The host package ``workbench`` never imports this package directly.
"""
# numba's cache of this package's compiled functions goes to the source-keyed folder of
# workbench.runtime.caches: workbench.jit.load sets it before the first dispatcher is made (the functions
# are decorated with workbench.jit.njit, which makes them on first use)
