"""Joint Wear Workbench: clearance, contact, friction and wear in the joints of planar mechanisms.

The host package: hook specifications, the plugin manager, the model base classes, the planar
multibody solver, the wear coupling, study files, results and the command line.  Built-in models
live in the separate ``plugins`` package and reach the host only through the ``workbench``
entry-point group, exactly like third-party models.

Importing the package has no side effects and imports nothing heavy: the caches are configured
when a compiled package is first imported (:mod:`workbench.runtime.caches`), and the API below is loaded
on first use.
"""
from .runtime.version import __version__

__all__ = ["__version__"]


# the Python API (workbench.api), exported lazily: importing workbench stays cheap
_API = ("load_study", "run", "sweep", "registry", "get_registry", "open_results", "plots", "calibrate",
        "change", "to_toml", "compare", "Progress", "FigureOptions")
# mechanisms built in Python (workbench.build)
_BUILD = ("Mechanism", "model")
__all__ += list(_API) + list(_BUILD)


def __getattr__(name: str):
    if name in _API:
        from . import api
        return getattr(api, name)
    if name in _BUILD:
        from . import build
        return getattr(build, name)
    raise AttributeError(f"module 'workbench' has no attribute '{name}'")


def __dir__():
    """The API, for ``dir(workbench)`` and tab completion (the names above are loaded lazily)."""
    return sorted(__all__)
