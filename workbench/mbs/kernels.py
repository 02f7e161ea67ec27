"""Plugin kernels as first-class compiled functions for the integrator, and their parameter rows.

Contact and friction kernels are ``numba.njit`` functions written by plugin authors.  The
integrator is compiled (and cached on disk) once for *any* set of models: it receives a tuple of
C function pointers with a fixed signature, one per clearance joint, made by wrapping each plugin
kernel in a ``numba.cfunc``.  That calling convention is part of the plugin contract and lives in
:mod:`workbench.jit` (:func:`contact_cfunc`, :func:`friction_cfunc`, the ``out`` slots), where the
conformance suite compiles every kernel too; it is named here for the solver's modules.  Here: the
placeholder kernels of joints without a model and the packed parameter rows (:func:`pack_rows`).
"""
from __future__ import annotations

import numpy as np

from ..jit import njit  # house: numba is imported when a compiled function is first needed
from ..jit import (LUB_FA, LUB_FAT, LUB_FNT, LUB_FY, LUB_TJ, N_OUT, RAISED, contact_cfunc, contact_sig,  # noqa: F401
                   friction_cfunc, friction_sig, lubrication_cfunc, lubrication_model_cfunc, lubrication_sig)

#: NaN columns appended to every packed parameter row (see :func:`pack_rows`)
N_SENTINEL = 8


def __getattr__(name: str):
    if name == "CONTACT_SIG":
        return contact_sig()
    if name == "FRICTION_SIG":
        return friction_sig()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
