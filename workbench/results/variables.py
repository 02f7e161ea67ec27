"""The one builder of a dataset variable: data with ``units`` and ``long_name`` (CF attributes).

Every module that builds an ``xarray`` dataset -- the study kinds, the engines' own dataset parts
(beams, events, wear records), sweeps and convergence checks -- makes its variables with
:func:`var`, so each carries a unit pint and cf-units parse and a long name.  Structured
attributes go through :func:`json_attr` (netCDF rejects dicts).

xarray is imported where it is used, so that a run's simulation does not wait for the background
import of the results libraries (:func:`workbench.cli.startup.prefetch_results_libraries`).
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

__all__ = ["var", "json_attr"]


def var(dims, data, units: str, long_name: str, *, dtype=None, **extra) -> "xr.Variable":
    """An ``xarray.Variable`` of ``data`` (``numpy.asarray(data, dtype)``) on ``dims`` with the
    attributes ``units``, ``long_name`` and ``extra`` (e.g. ``flag_values``, ``flag_meanings``)."""
    import xarray as xr
    return xr.Variable(dims, np.asarray(data, dtype=dtype),
                       attrs={"units": units, "long_name": long_name, **extra})


def json_attr(obj: Any) -> str:
    """``obj`` as strict JSON text, for a netCDF/zarr attribute (keys sorted; unknown types as
    str; a non-finite float as the string ``"inf"``, ``"-inf"`` or ``"nan"``: JSON has no
    Infinity or NaN, see :func:`workbench.results.provenance.strict`)."""
    from .provenance import strict
    return json.dumps(strict(obj), sort_keys=True, default=str, allow_nan=False)
