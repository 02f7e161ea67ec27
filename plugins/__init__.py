"""Built-in models of the Joint Wear Workbench.

Each module holds one model and one ``hookimpl`` that registers it; the modules are declared in
``pyproject.toml`` under ``[project.entry-points.workbench]``, the same path a third-party package
uses.  The host package ``workbench`` never imports this package directly.
"""
