"""Joint Wear Workbench: clearance, contact, friction and wear in the joints of planar mechanisms.

The host package: hook specifications, the plugin manager, the model base classes, the planar
multibody solver, the wear coupling, study files, results and the command line.  Built-in models
live in the separate ``plugins`` package and reach the host only through the ``workbench``
entry-point group, exactly like third-party models.

Importing the package has no side effects and imports nothing heavy: the caches are configured
when a compiled package is first imported (:mod:`workbench.caches`), and the API below is loaded
on first use.
"""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("joint-wear-workbench")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
