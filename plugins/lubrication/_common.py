"""Shared parameters of the built-in lubrication models (not a plugin: no entry point, no hook)."""
from __future__ import annotations

import numpy as np

from workbench.plugin import StudyError
from workbench.plugin import ContactGeometry, parameter


def viscosity_field():
    return parameter(0.04, unit="Pa s", doc="dynamic viscosity of the lubricant (isoviscous film)", gt=0.0,
                     valid_range=(1e-4, 10.0), range_source="Newtonian oils from light spindle oil to heavy gear oil")


def eps_cap_field():
    return parameter(0.99, unit="1", doc="largest eccentricity ratio the film formula is evaluated at "
                     "(the formulas are singular at 1; beyond it the force stays at its value there)",
                     gt=0.0, lt=1.0)


def bearing_dimensions(geometry: ContactGeometry, model: str) -> tuple[float, float, float]:
    """``(R, L, c)`` [m]: journal radius, length and radial clearance of a revolute joint."""
    if geometry.kind != "cylindrical":
        raise StudyError(f"lubrication model '{model}': a film needs a journal in a bushing "
                         f"(a 'cylindrical' geometry), got '{geometry.kind}'")
    R, L, c = geometry.radius_journal, geometry.length, geometry.clearance
    if not (R > 0.0 and L > 0.0 and c > 0.0):
        raise StudyError(f"lubrication model '{model}': radius {R}, length {L} and clearance {c} m "
                         "must all be > 0")
    return R, L, c


def table_range(eps_max: float, eps_table: float) -> str:
    """A tabulated film's :meth:`~workbench.models.LubricationModel.range_validity`: beyond the
    table's last eccentricity ratio ``eps_table`` [1] its scaled force is held, continued by the
    short and long bearings' growth ``(1 - eps^2)^(-5/2)``, not solved."""
    if eps_max > eps_table:
        return (f"the eccentricity ratio reached {eps_max:.4g}, beyond the film table's {eps_table:g}; "
                f"there the force is the table's last value continued by (1 - eps^2)^(-5/2), not a "
                f"Reynolds solution")
    return ""


def scar_validity(geometry, bushing_wear, name: str, depth_limit: float, ld_limit: float | None = None,
                  what: str = "the reduced worn model") -> str:
    """A reduced worn film's :meth:`~workbench.models.LubricationModel.worn_validity`: the scar
    (largest minus least wear depth [m]) deeper than ``depth_limit`` clearances, or (``ld_limit``)
    a worn bore at an L/D above it, the range ``what``'s error was measured on."""
    R, L, c = bearing_dimensions(geometry, name)
    h = np.asarray(bushing_wear, float)
    depth = float(h.max() - h.min()) if h.size else 0.0
    out = []
    if depth > depth_limit * c:
        out.append(f"the scar is {depth / c:.3g} of the radial clearance deep (largest minus least wear "
                   f"depth); {what} was measured up to {depth_limit:g}")
    if ld_limit is not None and depth > 0.0 and L / (2.0 * R) > ld_limit:
        out.append(f"L/D = {L / (2.0 * R):.3g}; {what} was measured at L/D <= {ld_limit:g}")
    return "; ".join(out)
