"""The planar multibody solver (numba-compiled)."""
# numba's cache of this package's compiled functions goes to the source-keyed folder of
# workbench.runtime.caches: workbench.jit.load sets it before the first dispatcher is made (the functions
# are decorated with workbench.jit.njit, which makes them on first use)
