"""A ``kind = "wear"`` study on a spatial mechanism: the spatial wear loop
(:mod:`.spatial_loop`) fed by the mechanism's clearance dynamics on the current worn maps
(:func:`.spatial_samples.dynamics_source`)."""
from __future__ import annotations

from .spatial_loop import run_spatial_wear
from .spatial_samples import dynamics_source


def is_spatial_wear(study) -> bool:
    """Whether ``study`` is a wear study of a spatial mechanism (its ``wear`` has ``z_nodes``)."""
    return getattr(getattr(study, "wear", None), "z_nodes", None) is not None


def run_study(study, *, out, resume: bool = False, overwrite: bool = False, note=None, progress=None,
              max_updates=None, **_ignored):
    """Run the spatial wear loop of ``study`` into the zarr store ``out`` (the planar loop's
    ``registry``, ``stage`` and ``within`` callbacks are not used)."""
    src = dynamics_source(study.mechanism, study.solver, study.wear.cycle_period)
    return run_spatial_wear(study, out=out, resume=resume, overwrite=overwrite, note=note, source=src,
                            progress=progress, max_updates=max_updates)
