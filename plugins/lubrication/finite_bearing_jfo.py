"""Finite-length journal bearing with mass-conserving (JFO) cavitation and an axial feed groove,
tabulated for the dynamics (:mod:`workbench.lubrication.jfo_table`).  A model of the
``lubrication`` family (why a family of its own: :mod:`workbench_plugins.lubrication.short_bearing`).

Why a plugin of its own and not ``finite_bearing`` with ``cavitation = "jfo"``: a model's kernel is
one compiled function per class, reading a packed parameter array by fixed offsets.  The JFO
film needs a groove fixed in the bushing, so its table has a third axis (the groove's angle from
the line of centres) and its pack carries the groove's bushing angle; giving ``finite_bearing``
both layouts would put a branch and a moved table offset into every Gümbel call and into the worn
reduction that reads the Gümbel layout (:mod:`workbench.lubrication.worn_finite`), and its groove
parameter would mean nothing for the Gümbel and Reynolds films, which have no feed."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from workbench.plugin import hookimpl
from workbench.plugin import jfo_table as jt
from workbench.plugin import ContactGeometry, LubricationModel, parameter

from ._common import bearing_dimensions, eps_cap_field, scar_validity, table_range, viscosity_field


class FiniteBearingJFO(LubricationModel):
    """Finite-length bearing with mass-conserving Jakobsson-Floberg-Olsson cavitation (the
    complementarity form of Giacopini et al. (2010): ``p >= 0``, void fraction ``>= 0``, their
    product zero, every cell's mass balanced), fed by an axial groove at ambient pressure fixed in
    the bushing at ``groove_angle``: the Reynolds equation on the unwrapped film (P1 FE, scikit-fem,
    :func:`workbench.lubrication.reynolds.solve_film`), its dimensionless forces tabulated over the
    eccentricity ratio, the squeeze angle and the groove's angle from the line of centres and
    interpolated tricubically.  The squeeze term is quasi-static; where the quasi-static JFO
    problem has no solution (strongly separating squeeze) the table holds the Swift-Stieber film
    of the same grooved bearing (workbench.lubrication.jfo_table; share and interpolation error in
    docs/lubrication.md).  Petrov-type shear moment.  On a worn bushing the reduced worn model of
    the finite bearing with the JFO table as its base (Hirani, Athre & Biswas (1999) harmonic film;
    its error against direct worn JFO solves in docs/lubrication.md), scars deeper than measured
    flagged."""
    name = "finite_bearing_jfo"
    reference = ("Reynolds equation, Pinkus & Sternlicht (1961) ch. 3; JFO cavitation in the "
                 "complementarity form of Giacopini et al. (2010); Hintermüller, Ito & Kunisch (2003)")

    @dataclass(frozen=True)
    class Params:
        viscosity: float = viscosity_field()
        eps_cap: float = eps_cap_field()
        groove_angle: float = parameter(
            math.pi / 2, unit="rad", min=-2.0 * math.pi, max=2.0 * math.pi,
            doc="bushing-frame angle of the axial feed groove (ambient pressure, flooded), from the "
                "bushing's x axis; default +y, a quarter turn from the line along which the shipped "
                "slider-crank's rod loads the joint")
        table_eps: int = parameter(13, unit="1", doc="table nodes in the eccentricity ratio", min=5, max=65)
        table_psi: int = parameter(24, unit="1", doc="table nodes in the squeeze angle", min=8, max=72)
        table_groove: int = parameter(16, unit="1", doc="table nodes in the groove's angle from the line of centres",
                                      min=8, max=72)
        mesh_theta: int = parameter(96, unit="1", doc="mesh divisions around the bore", min=24, max=1024)
        mesh_axial: int = parameter(17, unit="1", doc="mesh nodes along the length (odd)", min=5, max=257)

    kernel = jt.jfo_kernel

    def _table(self, geometry: ContactGeometry):
        R, L, c = bearing_dimensions(geometry, self.name)
        q = self.params
        grid = (round(L / (2.0 * R), 12), int(q.table_eps), int(q.table_psi), int(q.table_groove),
                int(q.mesh_theta), int(q.mesh_axial))
        if not jt.shipped_path(*grid).exists():
            warnings.warn(f"lubrication model '{self.name}': no shipped JFO table for L/D = {grid[0]:g} at "
                          f"{grid[1]}x{grid[2]}x{grid[3]} nodes on a {grid[4]}x{grid[5]} mesh; building it "
                          f"({grid[1] * grid[2] * grid[3]} FE solves, minutes; cached afterwards) unless cached",
                          stacklevel=3)
        tab, _ = jt.table(*grid)
        return R, L, c, tab

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        R, L, c, tab = self._table(geometry)
        q = self.params
        return jt.pack(q.viscosity, R, L, c, q.eps_cap, float(q.groove_angle), tab)

    def turn_bushing(self, p: np.ndarray, angle: float) -> np.ndarray:
        """The groove turned by ``angle`` [rad] with the bushing (slot 9 of the pack)."""
        q = np.array(p, float)
        q[9] += angle
        return q

    def pack_worn(self, geometry: ContactGeometry, bushing_wear: np.ndarray) -> np.ndarray:
        """The reduced worn model with the JFO table as its base (workbench.lubrication.jfo_table
        .jfo_kernel): the worn bore's harmonic short/long film times the ratio of the JFO table
        to the circular harmonic film; a uniform wear d is the clearance c + d (the table, exactly)."""
        R, L, c, tab = self._table(geometry)
        q = self.params
        return jt.pack_worn(q.viscosity, R, L, c, q.eps_cap, float(q.groove_angle), tab, bushing_wear)

    def worn_bore(self) -> str:
        return ("film on the worn bushing (grooved JFO table corrected by the worn bore's harmonic "
                "short/long film, a reduced model: error in docs/lubrication.md)")

    def worn_validity(self, geometry: ContactGeometry, bushing_wear: np.ndarray) -> str:
        return scar_validity(geometry, bushing_wear, self.name, jt.DEPTH_VALIDATED, what="the reduced worn JFO model")

    def range_validity(self, eps_max: float) -> str:
        return table_range(eps_max, jt.EPS_TABLE)


@hookimpl
def register_lubrication_models(register):
    register(FiniteBearingJFO)
