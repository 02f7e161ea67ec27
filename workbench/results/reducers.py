"""Summary quantities of one study result: the numbers a parameter sweep compares.

A *reducer* turns the results dataset of one run into a small :class:`xarray.DataArray` (a scalar,
or a few values along dimensions of the result such as ``joint``); :mod:`workbench.sweeps.run` stacks
them over the cases of a sweep, so every sweep parameter becomes a dimension of the summary.

Reducers are registered by name for one study kind with :func:`reducer`::

    @reducer("max_penetration", kind="dynamics", units="m",
             long_name="largest penetration of each clearance joint")
    def max_penetration(ds):
        return ds["penetration"].max("time")

A reducer gets the dataset the run returned (the one :func:`workbench.study.load.run_study` wrote) and
returns a DataArray whose dimensions are dimensions of that dataset (or none); the registry puts
the ``units`` and ``long_name`` on it.  The sweep file chooses reducers by name
(``[sweep] summary = [...]``); :func:`reducers_for` lists the valid names of a study kind.

Wear studies register their reducers here too (kind ``"wear"``); their datasets hold
``wear_volume(cycle, joint, surface)`` [m^3], ``wear_depth(cycle, joint, surface, theta)`` [m],
``peak_pressure(cycle, joint)`` [Pa] and ``max_contact_force(cycle, joint)`` [N].

Dynamics reducers (variables of :func:`workbench.kinds.dynamics_dataset.simulation_to_dataset`):

===========================  =====  ==========================================================
name                         units  meaning
===========================  =====  ==========================================================
first_impact_peak_force      N      peak normal force of the first contact of each joint
first_impact_time            s      start of the first contact of each joint
first_impact_velocity        m/s    approach speed at the first contact of each joint
n_impacts                    1      number of contact starts of each joint
max_penetration              m      largest penetration of each joint
max_contact_force            N      largest normal force of each joint
energy_dissipated            J      contact hysteresis + friction + damper losses
contact_energy_loss          J      contact hysteresis loss alone
crank_moment_peak            N m    largest magnitude of the crank driver's moment
crank_moment_peak_mean       N m    mean over revolutions of the per-revolution crank-moment peak
crank_moment_peak_se         N m    its standard error (std / sqrt(n))
===========================  =====  ==========================================================
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import xarray as xr

from ..errors import WorkbenchError


@dataclass(frozen=True)
class Reducer:
    """One named summary quantity of a study result.

    name : registry name (``snake_case``), also the variable name in the sweep dataset.
    kind : the study kind whose results it reads (``"dynamics"``, ``"wear"``, ...).
    units : SI unit of the value (``"1"`` for counts and ratios).
    long_name : what the value is, for the dataset and the plots.
    func : ``func(ds) -> xarray.DataArray``.
    """
    name: str
    kind: str
    units: str
    long_name: str
    func: Callable[[xr.Dataset], xr.DataArray]

    def __call__(self, ds: xr.Dataset) -> xr.DataArray:
        out = self.func(ds)
        if not isinstance(out, xr.DataArray):
            out = xr.DataArray(np.asarray(out, dtype=float))
        out = out.astype(float).drop_vars([c for c in out.coords if c not in out.dims])
        out.name = self.name
        out.attrs = {"units": self.units, "long_name": self.long_name}
        return out


REDUCERS: dict[str, Reducer] = {}


def reducer(name: str, *, kind: str, units: str, long_name: str):
    """Decorator registering ``func(ds) -> DataArray`` as the summary quantity ``name``."""
    def register(func):
        if name in REDUCERS:
            raise WorkbenchError(f"summary quantity '{name}' is registered twice "
                                 f"({REDUCERS[name].func.__module__} and {func.__module__})")
        REDUCERS[name] = Reducer(name, kind, units, long_name, func)
        return func
    return register


def reducers_for(kind: str) -> dict[str, Reducer]:
    """The reducers that apply to results of a study of ``kind``."""
    return {n: r for n, r in REDUCERS.items() if r.kind == kind}


# --------------------------------------------------------------------------------------------
# dynamics results
# --------------------------------------------------------------------------------------------
def _peak(values: np.ndarray) -> float:
    """Largest sample, refined by the vertex of the parabola through it and its neighbours.

    The output grid samples a contact pulse a few to a few tens of times; the vertex of the
    parabola recovers the peak of a smooth pulse to well under 1 % where the plain maximum can be
    off by a few per cent.
    """
    if values.size == 0:
        return float("nan")
    k = int(np.argmax(values))
    y = float(values[k])
    if 0 < k < values.size - 1:
        a, b, c = float(values[k - 1]), y, float(values[k + 1])
        den = a - 2.0 * b + c
        if den < 0.0:
            y = b - 0.125 * (c - a) ** 2 / den
    return y


def _per_joint(ds: xr.Dataset, func: Callable[[str], float]) -> xr.DataArray:
    joints = [str(j) for j in ds["joint"].values]
    return xr.DataArray(np.array([func(j) for j in joints], dtype=float), dims=("joint",),
                        coords={"joint": np.array(joints, dtype=str)})


def _impacts(ds: xr.Dataset, joint: str) -> np.ndarray:
    t = np.asarray(ds["impact_time"].values, dtype=float)
    return np.sort(t[np.asarray(ds["impact_joint"].values).astype(str) == joint])


def _first_contact(ds: xr.Dataset, joint: str) -> np.ndarray:
    """Contact-force samples of the first contact of ``joint`` (empty if it never touched).

    Between two consecutive contact starts of one joint there is exactly one contact period, so
    the first contact lies in ``[first start, second start)``.
    """
    starts = _impacts(ds, joint)
    if starts.size == 0:
        return np.empty(0)
    t = ds["time"].values
    end = starts[1] if starts.size > 1 else np.inf
    # the sample before the start (force 0) keeps a peak right after the start refinable
    i0 = max(int(np.searchsorted(t, starts[0])) - 1, 0)
    i1 = int(np.searchsorted(t, end))
    return np.asarray(ds["contact_force"].sel(joint=joint).values[i0:i1], dtype=float)


@reducer("first_impact_peak_force", kind="dynamics", units="N",
         long_name="peak normal contact force of the first contact")
def first_impact_peak_force(ds):
    # the solver's impact table locates the peak on its dense output; datasets without it
    # (older files, the reference path: NaN) fall back to the refined sampled peak
    def peak(j):
        if "impact_peak_force" in ds:
            t = np.asarray(ds["impact_time"].values, dtype=float)
            mine = np.asarray(ds["impact_joint"].values).astype(str) == j
            if mine.any():
                v = float(np.asarray(ds["impact_peak_force"].values, dtype=float)[mine][np.argmin(t[mine])])
                if np.isfinite(v):
                    return v
        return _peak(_first_contact(ds, j))
    return _per_joint(ds, peak)


@reducer("first_impact_time", kind="dynamics", units="s",
         long_name="start of the first contact")
def first_impact_time(ds):
    return _per_joint(ds, lambda j: s[0] if (s := _impacts(ds, j)).size else np.nan)


@reducer("first_impact_velocity", kind="dynamics", units="m/s",
         long_name="approach speed at the start of the first contact")
def first_impact_velocity(ds):
    t = np.asarray(ds["impact_time"].values, dtype=float)
    v = np.asarray(ds["impact_velocity"].values, dtype=float)
    names = np.asarray(ds["impact_joint"].values).astype(str)

    def first(j):
        mine = names == j
        return float(v[mine][np.argmin(t[mine])]) if mine.any() else np.nan
    return _per_joint(ds, first)


@reducer("n_impacts", kind="dynamics", units="1", long_name="number of contact starts (impacts)")
def n_impacts(ds):
    return _per_joint(ds, lambda j: float(_impacts(ds, j).size))


@reducer("max_penetration", kind="dynamics", units="m", long_name="largest penetration")
def max_penetration(ds):
    return ds["penetration"].max("time")


@reducer("max_contact_force", kind="dynamics", units="N", long_name="largest normal contact force")
def max_contact_force(ds):
    return _per_joint(ds, lambda j: _peak(np.asarray(ds["contact_force"].sel(joint=j).values)))


def _last_open_sample(ds: xr.Dataset) -> int:
    """Index of the last sample at which no clearance joint is in contact (0 if none)."""
    pen = np.asarray(ds["penetration"].values, dtype=float)
    open_ = np.all(pen <= 0.0, axis=0) if pen.size else np.ones(ds.sizes["time"], dtype=bool)
    idx = np.flatnonzero(open_)
    return int(idx[-1]) if idx.size else 0


@reducer("contact_energy_loss", kind="dynamics", units="J",
         long_name="energy lost in the contacts (hysteresis), up to the last instant all contacts "
                   "are open")
def contact_energy_loss(ds):
    if "contact_energy" not in ds:
        raise WorkbenchError("the result has no energies; set [output] energies = true")
    # with every contact open the elastic storage is zero: what the contacts absorbed is lost
    return xr.DataArray(float(ds["contact_energy"].values[_last_open_sample(ds)]))


@reducer("energy_dissipated", kind="dynamics", units="J",
         long_name="energy dissipated by contact hysteresis, friction and dampers, up to the last "
                   "instant all contacts are open")
def energy_dissipated(ds):
    if "contact_energy" not in ds or "dissipated_energy" not in ds:
        raise WorkbenchError("the result has no energies; set [output] energies = true")
    k = _last_open_sample(ds)
    return xr.DataArray(float(ds["contact_energy"].values[k] + ds["dissipated_energy"].values[k]))


@reducer("crank_moment_peak", kind="dynamics", units="N m",
         long_name="largest magnitude of the crank driver's moment")
def crank_moment_peak(ds):
    name = ds.attrs.get("crank_driver")
    if name is None:
        raise WorkbenchError("the mechanism has no angle driver (crank), so no crank moment")
    return xr.DataArray(float(np.max(np.abs(ds["driver_load"].sel(driver=name).values))))


def _per_revolution(ds, variable):
    """NaN when the result has no per-revolution statistics (only a flexible dynamics study driven
    at constant crank speed over at least 2 revolutions has them)."""
    return xr.DataArray(float(ds[variable]) if variable in ds else float("nan"))


@reducer("crank_moment_peak_mean", kind="dynamics", units="N m",
         long_name="mean over the revolutions after the start-up one of the per-revolution crank-moment peak")
def crank_moment_peak_mean(ds):
    return _per_revolution(ds, "crank_moment_peak_revolution_mean")


@reducer("crank_moment_peak_se", kind="dynamics", units="N m",
         long_name="standard error of the mean per-revolution crank-moment peak (std / sqrt(n))")
def crank_moment_peak_se(ds):
    return _per_revolution(ds, "crank_moment_peak_revolution_se")


@reducer("dominant_frequency_mean", kind="dynamics", units="Hz",
         long_name="mean over the revolutions after the start-up one of the per-revolution dominant "
                   "slider-acceleration frequency")
def dominant_frequency_mean(ds):
    return _per_revolution(ds, "dominant_frequency_revolution_mean")


@reducer("dominant_frequency_se", kind="dynamics", units="Hz",
         long_name="standard error of the mean per-revolution dominant frequency (std / sqrt(n))")
def dominant_frequency_se(ds):
    return _per_revolution(ds, "dominant_frequency_revolution_se")


# --------------------------------------------------------------------------------------------
# wear results (variables of workbench.wear.loop: one row per update along ``cycle``)
# --------------------------------------------------------------------------------------------
def _final(name: str, variable: str, units: str, long_name: str, **select) -> None:
    """Register the last update's value of a wear-result variable as summary ``name``."""
    reducer(name, kind="wear", units=units, long_name=long_name)(
        lambda ds: ds[variable].isel(cycle=-1).sel(**select))


_final("wear_volume", "wear_volume", "m^3", "worn volume of each surface at the end of the run")
_final("wear_volume_stderr", "wear_volume_stderr", "m^3",
       "standard error of the worn volume of each surface at the end of the run")
_final("max_wear_depth", "max_wear_depth", "m", "deepest wear of each surface at the end of the run")
_final("wear_profile", "wear_depth", "m",
       "bushing wear depth over the body-fixed node angle at the end of the run", surface="bushing")
_final("final_peak_pressure", "peak_pressure", "Pa", "peak contact pressure at the last update")
_final("final_output_deviation", "output_deviation_rms", "m or rad",
       "RMS deviation of the output from the ideal mechanism at the last update")


@reducer("updates", kind="wear", units="1", long_name="number of wear updates (cycle jumps + 1)")
def updates(ds):
    return xr.DataArray(float(ds.sizes["cycle"]))
