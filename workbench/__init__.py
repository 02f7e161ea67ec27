"""Joint Wear Workbench: clearance, contact, friction and wear in the joints of planar mechanisms.

The host package: hook specifications, the plugin manager, the model base classes, the planar
multibody solver, the wear coupling, study files, results and the command line.  Built-in models
live in the separate ``plugins`` package and reach the host only through the ``workbench``
entry-point group, exactly like third-party models.
"""
from importlib.metadata import PackageNotFoundError, version

from ._numba_cache import configure as _configure_numba_cache

_configure_numba_cache()

try:
    __version__ = version("joint-wear-workbench")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
