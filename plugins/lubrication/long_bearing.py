"""Long journal bearing (Sommerfeld) with the half-Sommerfeld (Gümbel) condition, dynamic form
(:mod:`workbench.lubrication.long_bearing`).  A model of the ``lubrication`` family (why a family
of its own: :mod:`workbench_plugins.lubrication.short_bearing`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.plugin import hookimpl
from workbench.plugin import long_bearing_kernel
from workbench.plugin import ContactGeometry, LubricationModel

from ._common import bearing_dimensions, eps_cap_field, viscosity_field


class LongBearing(LubricationModel):
    """Sommerfeld long-bearing film force on the pi film (``p(0) = p(pi) = 0``, half-Sommerfeld),
    wedge and squeeze terms (Flores et al. (2009) after Pinkus & Sternlicht (1961) ch. 3;
    Sommerfeld (1904)); Petrov-type Couette shear moment.  Valid for ``L/D >~ 2`` (within 10 % of
    the finite-length solution at ``L/D = 10``, the end leakage falling as ``D/L``)."""
    name = "long_bearing"
    reference = ("Sommerfeld (1904); Pinkus & Sternlicht (1961) ch. 3; Flores et al., Nonlinear Dyn. 56 "
                 "(2009) 277-295, long-bearing forces")

    @dataclass(frozen=True)
    class Params:
        viscosity: float = viscosity_field()
        eps_cap: float = eps_cap_field()

    kernel = long_bearing_kernel

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        R, L, c = bearing_dimensions(geometry, self.name)
        return np.array([self.params.viscosity, R, L, c, self.params.eps_cap], dtype=np.float64)


@hookimpl
def register_lubrication_models(register):
    register(LongBearing)
