"""The planar multibody solver (numba-compiled)."""
# --- house: numba's cache of this package's compiled functions goes to the source-keyed folder of
# workbench.caches; it must be set before the first cache=True function below is defined
from ..caches import use_numba_cache as _use_numba_cache

_use_numba_cache()
# --- house (end)
