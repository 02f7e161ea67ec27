"""Long journal bearing (Sommerfeld) with the half-Sommerfeld (Gümbel) condition, dynamic form
(:mod:`workbench.lubrication.long_bearing`).  A model of the ``lubrication`` family (why a family
of its own: :mod:`workbench_plugins.lubrication.short_bearing`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.plugin import hookimpl
from workbench.plugin import long_bearing_kernel
from workbench.plugin import worn_film
from workbench.plugin import ContactGeometry, LubricationModel, parameter

from ._common import bearing_dimensions, eps_cap_field, viscosity_field


class LongBearing(LubricationModel):
    """Sommerfeld long-bearing film force, wedge and squeeze terms: ``cavitation = "pi_film"``
    (default) on the fixed pi film (``p(0) = p(pi) = 0``, half-Sommerfeld; Flores et al. (2009)
    after Pinkus & Sternlicht (1961) ch. 3; Sommerfeld (1904)), ``"gumbel"`` the periodic film
    with its negative pressure set to zero wherever the squeeze puts it (quadrature, circular or
    worn bore, workbench.lubrication.worn_film); Petrov-type Couette shear moment.  Valid for
    ``L/D >~ 2`` (within 10 % of the finite-length solution at ``L/D = 10``, the end leakage
    falling as ``D/L``)."""
    name = "long_bearing"
    reference = ("Sommerfeld (1904); Pinkus & Sternlicht (1961) ch. 3; Flores et al., Nonlinear Dyn. 56 "
                 "(2009) 277-295, long-bearing forces")

    @dataclass(frozen=True)
    class Params:
        viscosity: float = viscosity_field()
        eps_cap: float = eps_cap_field()
        cavitation: str = parameter("pi_film", unit="text", doc="pi_film: the fixed half 0..pi of the "
                                    "line of centres, p(0) = p(pi) = 0 (Flores et al. (2009)); gumbel: the "
                                    "periodic film, p >= 0 wherever the squeeze and wedge put it "
                                    "(quadrature)", choices=("pi_film", "gumbel"))

    kernel = long_bearing_kernel

    def _head(self, geometry: ContactGeometry) -> np.ndarray:
        R, L, c = bearing_dimensions(geometry, self.name)
        return np.array([self.params.viscosity, R, L, c, self.params.eps_cap], dtype=np.float64)

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        p = self._head(geometry)
        if self.params.cavitation == "pi_film":
            return np.concatenate([p, [0.0]])
        return np.concatenate([p, [1.0], worn_film.bore_block(np.zeros(worn_film.QUAD_NODES))])

    def pack_worn(self, geometry: ContactGeometry, bushing_wear: np.ndarray) -> np.ndarray | None:
        """The film on the worn bore (a uniform wear d is the clearance c + d): the Gümbel film by
        quadrature (workbench.lubrication.worn_film), the pi film by quadrature on a profile
        (workbench.lubrication.worn_pi_film) and in closed form on a uniform wear."""
        p = self._head(geometry)
        p[3], block = worn_film.pack_bore(bushing_wear, p[3])
        if self.params.cavitation == "pi_film":
            return np.concatenate([p, [0.0]]) if block is None else np.concatenate([p, [2.0], block])
        if block is None:
            block = worn_film.bore_block(np.zeros(worn_film.QUAD_NODES))
        return np.concatenate([p, [1.0], block])

    def worn_bore(self) -> str:
        if self.params.cavitation == "gumbel":
            return "film on the worn bushing (periodic Sommerfeld film with the Gümbel condition over the worn bore)"
        return "film on the worn bushing (Sommerfeld film over the fixed half 0..pi of the worn bore)"


@hookimpl
def register_lubrication_models(register):
    register(LongBearing)
