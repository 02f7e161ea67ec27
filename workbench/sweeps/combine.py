"""Combining the cases of a sweep into one dataset (the parameter grid as dimensions).

Split from :mod:`workbench.sweeps.run` (which runs the cases): :func:`combine` stacks every case's
summary variables (:mod:`workbench.results.reducers`) along the sweep's dimensions, NaN where a case
failed, with the provenance of :func:`workbench.results.dataset.provenance`.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from ..results.reducers import REDUCERS
from ..results.variables import json_attr

if TYPE_CHECKING:
    from .run import CaseResult
    from .spec import Sweep


# --------------------------------------------------------------------------------------------
# combining
# --------------------------------------------------------------------------------------------
def _stack(name: str, results: list[CaseResult], dims: tuple, shape: tuple) -> xr.DataArray | None:
    """One summary over all cases: (sweep dims..., the reducer's own dims...), NaN where missing."""
    have = [r.values[name] for r in results if name in r.values]
    if not have:
        return None
    cases = [r.index for r in results if name in r.values]
    stacked = xr.concat(have, dim="case", join="outer", fill_value=np.nan, coords="minimal",
                        compat="override", combine_attrs="override")
    stacked = stacked.assign_coords(case=cases).reindex(case=[r.index for r in results],
                                                        fill_value=np.nan)
    own = [d for d in stacked.dims if d != "case"]
    data = stacked.transpose("case", *own).values.reshape(shape + tuple(stacked.sizes[d] for d in own))
    # a reducer's own coordinate (e.g. joint) keeps units and long_name
    coords = {d: xr.Variable((d,), stacked[d].values, attrs={
        "units": stacked[d].attrs.get("units", "1"), "long_name": stacked[d].attrs.get("long_name", d)})
        for d in own if d in stacked.coords}
    return xr.DataArray(data, dims=dims + tuple(own), coords=coords, name=name,
                        attrs={"units": REDUCERS[name].units, "long_name": REDUCERS[name].long_name})


def combine(sweep: Sweep, results: list[CaseResult], *, registry=None, run_info: dict | None = None) -> xr.Dataset:
    """The sweep dataset from the case results (in case order)."""
    from .run import STATUS_OK
    dims, shape = sweep.dims, sweep.shape
    by_index = sorted(results, key=lambda r: r.index)
    coords: dict[str, xr.Variable] = {}
    for g in sweep.groups:
        for name in g:
            p = sweep.parameter(name)
            labels = np.array(p.labels, dtype=float if p.numeric else str)
            coords[name] = xr.Variable((g[0],), labels, attrs={
                "units": p.units if p.numeric else "1", "long_name": p.long_name,
                "study_key": p.path, "values": json_attr(list(p.values))})

    def per_case(values, units, long_name, dtype):
        return xr.Variable(dims, np.array(values, dtype=dtype).reshape(shape),
                           attrs={"units": units, "long_name": long_name})

    data = {
        "status": per_case([r.status for r in by_index], "1", "case status: ok, failed (the run "
                           "failed), summary_failed (a summary quantity could not be computed), "
                           "timed_out (stopped at the case timeout), interrupted (not finished: "
                           "the sweep was interrupted)", str),
        "error": per_case([r.error for r in by_index], "1", "error message of the case ('' if none)", str),
        "wall_time": per_case([r.wall_time for r in by_index], "s", "wall time of the case on its worker", float),
        "cpu_time": per_case([r.cpu_time for r in by_index], "s",
                             "CPU time of the thread that ran the case (below wall_time when the "
                             "machine is shared)", float),
        "worker": per_case([r.worker for r in by_index], "1", "worker (host:pid) that ran the case", str),
        "case_file": per_case([r.file for r in by_index], "1", "full results of the case", str),
    }
    for name in sweep.summary:
        da = _stack(name, by_index, dims, shape)
        if da is None:  # no case produced it: all NaN, sweep dimensions only
            da = xr.DataArray(np.full(shape, np.nan), dims=dims,
                              attrs={"units": REDUCERS[name].units, "long_name": REDUCERS[name].long_name})
        data[name] = da
    n_failed = sum(r.status != STATUS_OK for r in by_index)
    # provenance from the one builder of workbench.results.dataset
    from ..results.dataset import provenance
    attrs = {
        **provenance(kind="sweep", registry=registry, title=sweep.title, description=sweep.description),
        "base_study_kind": sweep.kind,
        "sweep_text": sweep.text,
        "sweep_file": str(sweep.file) if sweep.file is not None else "",
        "base_study_file": str(sweep.base_file),
        "base_study_text": sweep.base_text,
        "sweep_parameters": json_attr([{"name": p.name, "key": p.path, "units": p.units,
                                         "dimension": next(g[0] for g in sweep.groups if p.name in g)}
                                        for p in sweep.parameters]),
        "sweep_set": json_attr({path: value for path, _, value in sweep.fixed}),
        "sweep_unset": json.dumps(list(sweep.unset)),
        "summary": json.dumps(list(sweep.summary)),
        "n_cases": len(by_index),
        "n_failed": n_failed,
    }
    for k, v in (run_info or {}).items():
        attrs[f"run_{k}"] = v
    from ..results.cf import cf_clean
    return cf_clean(xr.Dataset(data, coords=coords, attrs=attrs))   # as the file will hold it
