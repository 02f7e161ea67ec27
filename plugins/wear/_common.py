"""Shared pieces of the built-in wear laws (not a plugin: no entry point, no hook).

* :func:`wear_inputs` — the input convention every built-in law follows: arrays of float64,
  negative pressure clamped to 0 (a gap carries no load), slip taken by magnitude (wear does not
  depend on the sliding direction), negative total sliding distance clamped to 0.
* :func:`require_positive` — strict ``> 0`` check for a parameter whose ``parameter(min=...)``
  bound cannot express it (``min`` is inclusive); raises :class:`StudyError` naming the key.
"""
from __future__ import annotations

import math

import numpy as np

from workbench.plugin import StudyError


def wear_inputs(pressure, slip, sliding_distance=0.0):
    """``(p, ds, s)`` as float64 arrays: ``p = max(pressure, 0)`` [Pa], ``ds = |slip|`` [m],
    ``s = max(sliding_distance, 0)`` [m].  Shapes are not broadcast here (numpy does it in the law's
    arithmetic); NaN passes through unchanged (the laws do not hide bad upstream numbers)."""
    p = np.maximum(np.asarray(pressure, dtype=np.float64), 0.0)
    ds = np.abs(np.asarray(slip, dtype=np.float64))
    s = np.maximum(np.asarray(sliding_distance, dtype=np.float64), 0.0)
    return p, ds, s


def as_depth(value, *shapes) -> np.ndarray:
    """``value`` as a float64 array of the broadcast shape of the inputs (a law whose result is a
    scalar expression still returns an array of the input shape)."""
    shape = np.broadcast_shapes(*shapes)
    out = np.asarray(value, dtype=np.float64)
    return out if out.shape == shape else np.broadcast_to(out, shape).copy()


def require_positive(value: float, key: str, law: str, unit: str) -> None:
    """Raise :class:`StudyError` unless ``value`` is a finite number > 0."""
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0.0):
        raise StudyError(f"wear law '{law}': {key} must be a finite number > 0 {unit}, got {value!r}",
                         key=key)
