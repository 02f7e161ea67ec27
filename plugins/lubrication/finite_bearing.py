"""Finite-length journal bearing: the Reynolds equation solved with scikit-fem on the unwrapped
film and tabulated for the dynamics (:mod:`workbench.lubrication.finite_bearing`,
:mod:`workbench.lubrication.reynolds`).  A model of the ``lubrication`` family (why a family of its
own: :mod:`workbench_plugins.lubrication.short_bearing`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.plugin import hookimpl
from workbench.plugin import finite_bearing as fb
from workbench.plugin import worn_finite as wfin
from workbench.plugin import ContactGeometry, LubricationModel, parameter

from ._common import bearing_dimensions, eps_cap_field, scar_validity, table_range, viscosity_field


class FiniteBearing(LubricationModel):
    """Finite-length bearing: Reynolds equation on the unwrapped film (P1 FE, periodic in theta),
    Gümbel (p >= 0 clipping) or Reynolds/Swift-Stieber (p >= 0 complementarity, the condition of
    Raimondi & Boyd (1958)) cavitation; dimensionless forces tabulated over the eccentricity ratio
    and the squeeze angle at the joint's L/D and interpolated bicubically (Pinkus & Sternlicht
    (1961) ch. 3 eq. of Reynolds; Raimondi & Boyd (1958) for the cavitation condition).  Mass-
    conserving JFO cavitation needs a feed groove and is offered by
    :func:`workbench.lubrication.reynolds.solve_film`, not tabulated.  On a worn bushing: the
    table corrected by the worn bore's harmonic-mean film of Hirani, Athre & Biswas (1999)
    (workbench.lubrication.worn_finite; its error against direct worn solves in
    docs/lubrication.md)."""
    name = "finite_bearing"
    reference = ("Reynolds equation, Pinkus & Sternlicht (1961) ch. 3; Raimondi & Boyd (1958); "
                 "Hintermüller, Ito & Kunisch (2003) for the LCP")

    @dataclass(frozen=True)
    class Params:
        viscosity: float = viscosity_field()
        eps_cap: float = eps_cap_field()
        cavitation: str = parameter("gumbel", unit="text", doc="cavitation condition of the tabulated film",
                                    choices=("gumbel", "reynolds"))
        table_eps: int = parameter(65, unit="1", doc="table nodes in the eccentricity ratio", min=9, max=257)
        table_psi: int = parameter(72, unit="1", doc="table nodes in the squeeze angle", min=12, max=360)
        mesh_theta: int = parameter(96, unit="1", doc="mesh divisions around the bore", min=24, max=1024)
        mesh_axial: int = parameter(17, unit="1", doc="mesh nodes along the length (odd)", min=5, max=257)

    kernel = wfin.kernel

    def _table(self, geometry: ContactGeometry):
        R, L, c = bearing_dimensions(geometry, self.name)
        q = self.params
        return R, L, c, fb.table(round(L / (2.0 * R), 12), q.cavitation, int(q.table_eps), int(q.table_psi),
                                 int(q.mesh_theta), int(q.mesh_axial))

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        R, L, c, tab = self._table(geometry)
        return fb.pack(self.params.viscosity, R, L, c, self.params.eps_cap, tab)

    def pack_worn(self, geometry: ContactGeometry, bushing_wear: np.ndarray) -> np.ndarray:
        """The reduced finite bearing on the worn bore (workbench.lubrication.worn_finite): the
        table times the ratio of the worn to the circular harmonic film; a uniform wear d is the
        clearance c + d (the table, exactly)."""
        R, L, c, tab = self._table(geometry)
        return wfin.pack_worn(self.params.viscosity, R, L, c, self.params.eps_cap, tab, bushing_wear)

    def worn_bore(self) -> str:
        return ("film on the worn bushing (finite-bearing table corrected by the worn bore's harmonic "
                "short/long film, a reduced model: error in docs/lubrication.md)")

    def worn_validity(self, geometry: ContactGeometry, bushing_wear: np.ndarray) -> str:
        return scar_validity(geometry, bushing_wear, self.name, wfin.DEPTH_VALIDATED, wfin.LD_VALIDATED)

    def range_validity(self, eps_max: float) -> str:
        return table_range(eps_max, fb.EPS_TABLE)


@hookimpl
def register_lubrication_models(register):
    register(FiniteBearing)
