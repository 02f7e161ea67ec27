"""Turning plugin kernels into first-class compiled functions for the integrator.

Contact and friction kernels are ``numba.njit`` functions written by plugin authors.  The
integrator is compiled (and cached on disk) once for *any* set of models: it receives a tuple of
C function pointers with a fixed signature, one per clearance joint, built here by wrapping each
plugin kernel in a ``numba.cfunc``.  A pointer call costs tens of nanoseconds and lets every
clearance joint use its own law without recompiling the solver.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..runtime.caches import cached_cfunc  # house: the C wrappers come from the on-disk cache when warm
from ..jit import njit  # house: numba is imported when a compiled function is first needed


# the C signatures are numba types, made when first needed
# first-class function types are what makes per-joint laws cheap; the feature is stable for
# the plain C signatures used here (workbench.jit.load silences numba's experimental warning)
@functools.lru_cache(maxsize=None)
def contact_sig():
    """F_n = contact(delta, delta_dot, delta_dot_minus, p, out) with out[RAISED] = 1.0 when the
    kernel raised (the numba signature :data:`CONTACT_SIG`)."""
    from numba import types
    return types.float64(types.float64, types.float64, types.float64, types.CPointer(types.float64),
                         types.CPointer(types.float64))


@functools.lru_cache(maxsize=None)
def friction_sig():
    """f_t = friction(v_t, f_n, z, p, out) with out[0] = z_dot, out[RAISED] = 1.0 when the kernel
    raised (the numba signature :data:`FRICTION_SIG`)."""
    from numba import types
    return types.float64(types.float64, types.float64, types.float64,
                         types.CPointer(types.float64), types.CPointer(types.float64))


@functools.lru_cache(maxsize=None)
def lubrication_sig():
    """f_x = lubrication(ex, ey, vx, vy, omega, p, out) with out[LUB_FY] = f_y, out[LUB_TJ] = t_j,
    out[RAISED] = 1.0 when the kernel raised (:class:`workbench.models.LubricationModel`)."""
    from numba import types
    f = types.float64
    return f(f, f, f, f, f, types.CPointer(f), types.CPointer(f))


def __getattr__(name: str):
    if name == "CONTACT_SIG":
        return contact_sig()
    if name == "FRICTION_SIG":
        return friction_sig()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
#: slot of the wrappers' ``out`` array flagging an exception raised inside the kernel
RAISED = 1
#: slots of the lubrication wrapper's ``out`` array: the force's y component, the moment
LUB_FY, LUB_TJ = 0, 2
#: length of the ``out`` array the wrappers write
N_OUT = 3
#: NaN columns appended to every packed parameter row (see :func:`pack_rows`)
N_SENTINEL = 8


@functools.lru_cache(maxsize=None)
def contact_cfunc(kernel):
    """C-callable wrapper of a contact kernel (memoised per kernel)."""
    k = kernel

    def wrapper(delta, delta_dot, delta_dot_minus, p, out):
        try:
            f = k(delta, delta_dot, delta_dot_minus, p)
            out[RAISED] = 0.0
            return f
        except Exception:  # noqa: BLE001 - reported by the integrator as a model error
            out[RAISED] = 1.0
            return math.nan
    res = cached_cfunc(contact_sig, wrapper, kernel)  # house: from the on-disk cache when warm
    res._workbench_kernel = kernel  # the kernel itself, for the specialised path (codegen)
    return res


@functools.lru_cache(maxsize=None)
def friction_cfunc(kernel):
    """C-callable wrapper of a friction kernel (memoised per kernel)."""
    k = kernel

    def wrapper(v_t, f_n, z, p, out):
        try:
            ft, dz = k(v_t, f_n, z, p)
            out[0] = dz
            out[RAISED] = 0.0
            return ft
        except Exception:  # noqa: BLE001 - reported by the integrator as a model error
            out[0] = 0.0
            out[RAISED] = 1.0
            return math.nan
    res = cached_cfunc(friction_sig, wrapper, kernel)  # house: from the on-disk cache when warm
    res._workbench_kernel = kernel  # the kernel itself, for the specialised path (codegen)
    return res


@functools.lru_cache(maxsize=None)
def lubrication_cfunc(kernel):
    """C-callable wrapper of a lubrication kernel (memoised per kernel)."""
    k = kernel

    def wrapper(ex, ey, vx, vy, omega, p, out):
        try:
            fx, fy, tj = k(ex, ey, vx, vy, omega, p)
            out[LUB_FY] = fy
            out[LUB_TJ] = tj
            out[RAISED] = 0.0
            return fx
        except Exception:  # noqa: BLE001 - reported by the integrator as a model error
            out[LUB_FY] = 0.0
            out[LUB_TJ] = 0.0
            out[RAISED] = 1.0
            return math.nan
    res = cached_cfunc(lubrication_sig, wrapper, kernel)
    res._workbench_kernel = kernel
    return res


@njit(cache=True)
def _no_lubrication(ex, ey, vx, vy, omega, p):
    return 0.0, 0.0, 0.0


def no_lubrication():
    """Wrapper used for clearance joints without a lubrication model."""
    return lubrication_cfunc(_no_lubrication)


@njit(cache=True)
def _no_friction(v_t, f_n, z, p):
    return 0.0, 0.0


@njit(cache=True)
def _no_contact(delta, delta_dot, delta_dot_minus, p):
    return 0.0


def no_friction():
    """Wrapper used for joints without a friction model."""
    return friction_cfunc(_no_friction)


def no_contact():
    """Placeholder used when a mechanism has no clearance joint."""
    return contact_cfunc(_no_contact)


def pack_rows(rows: list[np.ndarray], min_width: int = 1) -> np.ndarray:
    """Stack parameter vectors of different lengths into a C-contiguous 2-D array.

    Each row is padded with NaN up to the longest row plus :data:`N_SENTINEL` columns: a kernel
    reading past its own parameters gets NaN (caught as a non-finite model output), never a
    neighbour's value or a zero."""
    width = max([min_width] + [len(r) for r in rows]) + N_SENTINEL
    out = np.full((max(1, len(rows)), width), np.nan)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return np.ascontiguousarray(out)
