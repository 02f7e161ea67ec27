"""CF-1.10 hygiene every result file gets where it is written (netCDF and the wear store).

* :func:`cf_clean` -- the ``time`` coordinate (seconds of simulated time) gets ``standard_name =
  "time"`` and ``axis = "T"``; a coordinate of strings (joint names, surfaces ...) carries no
  ``units`` (CF: units are for quantities; a plot then reads "joint = B", not "joint = B [1]");
  a unit per machine cycle is written as what pint and cf-units read it to mean (see
  :func:`per_cycle`);
* :func:`cf_encoding` -- no ``_FillValue`` on coordinate variables (CF §2.5.1: coordinates have
  no missing values), so xarray does not add one.
"""
from __future__ import annotations

#: the unit a per-cycle quantity's ``units`` attribute keeps of ``"m/cycle"``, and the note it gets
PER_CYCLE_NOTE = "per machine cycle (a cycle is a count: the units attribute is the unit per 1 cycle)"


def per_cycle(units: str) -> tuple[str, dict]:
    """``("m", {"units_per": "cycle", ...})`` for ``"m/cycle"``: pint reads "cycle" as 2 pi rad
    (``m/cycle`` would be 0.159 m/rad) and cf-units not at all; a cycle is a count, so the unit of
    a rate per cycle is its numerator's, and the attribute ``units_per`` says per what."""
    if units.endswith("/cycle"):
        return units[: -len("/cycle")] or "1", {"units_per": "cycle", "units_note": PER_CYCLE_NOTE}
    return units, {}


def _is_text(var) -> bool:
    return var.dtype.kind in "USO"


def cf_clean(ds):
    """``ds`` with the CF attributes of the module docstring (a shallow copy; data shared)."""
    ds = ds.copy(deep=False)
    for name in list(ds.variables):
        var = ds.variables[name]
        attrs = dict(var.attrs)
        if name in ds.coords and _is_text(var) and attrs.get("units") == "1":
            attrs.pop("units")
        if isinstance(attrs.get("units"), str) and attrs["units"].endswith("/cycle"):
            u, extra = per_cycle(attrs["units"])
            attrs["units"] = u
            attrs.update(extra)
        if name == "time" and name in ds.dims and attrs.get("units") == "s":
            attrs.setdefault("standard_name", "time")
            attrs.setdefault("axis", "T")
        var.attrs = attrs
    return ds


def cf_encoding(ds, encoding: dict | None = None) -> dict:
    """``encoding`` with ``_FillValue: None`` for every coordinate variable of ``ds``."""
    out = {k: dict(v) for k, v in (encoding or {}).items()}
    for name in ds.coords:
        out.setdefault(name, {})["_FillValue"] = None
    return out
