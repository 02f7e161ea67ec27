"""The installed version of the workbench (``0+unknown`` in a source tree that was not installed).

A foundation module, so that the provenance of a result (:mod:`workbench.results.dataset`) names
the version without importing the package's root, whose lazy names reach up to the Python API."""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("joint-wear-workbench")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"
