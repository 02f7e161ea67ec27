"""Mixed lubrication: film (short or long bearing) plus Greenwood-Tripp asperity contact, friction
from both (:mod:`workbench.lubrication.mixed`).  A model of the ``lubrication`` family (why a
family of its own: :mod:`workbench_plugins.lubrication.short_bearing`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.plugin import hookimpl
from workbench.plugin import mixed_lubrication as mx
from workbench.plugin import ContactGeometry, LubricationModel, parameter

from ._common import bearing_dimensions, viscosity_field


class MixedLubrication(LubricationModel):
    """Load shared by a hydrodynamic film (Ocvirk or Sommerfeld, Flores et al. (2006) (short-bearing forces))
    and asperity contact (Greenwood & Tripp (1970) with the F_5/2 integral); friction =
    Petrov-type film shear + boundary friction mu_b |F_asperity|.  The Stribeck curve follows from
    the force balance (no regime is prescribed).  Not passive: the asperities store elastic energy."""
    name = "mixed_lubrication"
    reference = ("Greenwood & Tripp, Proc. IMechE 185 (1970) 625-633; Flores et al. (2006) (short-bearing forces); "
                 "Patir & Cheng (1979) for the load sharing")
    passive = False
    max_eccentricity_ratio = 1.02

    @dataclass(frozen=True)
    class Params:
        viscosity: float = viscosity_field()
        film: str = parameter("short_bearing", unit="text", doc="film model: short_bearing (Ocvirk, Gümbel), "
                              "long_bearing (Sommerfeld, pi film), long_bearing_gumbel (periodic Sommerfeld "
                              "film, Gümbel)", choices=mx.FILMS)
        eps_film_max: float = parameter(0.999, unit="1", doc="largest eccentricity ratio the film formula "
                                        "is evaluated at (the asperities carry the load beyond)", gt=0.0, lt=1.0)
        roughness: float = parameter(0.5e-6, unit="m", doc="composite RMS summit roughness sigma", gt=0.0,
                                     valid_range=(1e-8, 1e-5), range_source="ground to turned steel surfaces")
        asperity_density: float = parameter(4.0e9, unit="1/m^2", doc="asperity summit density eta", gt=0.0)
        asperity_radius: float = parameter(2.0e-5, unit="m", doc="asperity summit radius beta", gt=0.0)
        boundary_friction: float = parameter(0.12, unit="1", doc="boundary friction coefficient mu_b of the "
                                             "asperity contacts", min=0.0, max=2.0)
        slip_regularisation: float = parameter(1e-4, unit="m/s", doc="slip speed below which the boundary "
                                               "friction is regularised", gt=0.0)
        quadrature: int = parameter(96, unit="1", doc="quadrature points over the asperity contact arc",
                                    min=8, max=4096)

    kernel = mx.mixed_kernel
    #: the same force with its asperity part apart: the solver records that part as the joint's
    #: contact force, so the wear law acts on the asperity load only
    parts_kernel = mx.mixed_parts_kernel

    def max_coefficient(self) -> float:
        return float(self.params.boundary_friction)

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        R, L, c = bearing_dimensions(geometry, self.name)
        q = self.params
        return mx.pack(q.viscosity, R, L, c, q.eps_film_max, q.film, q.roughness, q.asperity_density,
                       q.asperity_radius, geometry.E_star, q.boundary_friction, q.slip_regularisation,
                       int(q.quadrature))

    def pack_worn(self, geometry: ContactGeometry, bushing_wear: np.ndarray) -> np.ndarray:
        """Film and asperities on the worn bore (workbench.lubrication.worn_film; the pi film of
        ``film = "long_bearing"`` by workbench.lubrication.worn_pi_film; a uniform wear d is the
        clearance c + d)."""
        R, L, c = bearing_dimensions(geometry, self.name)
        q = self.params
        return mx.pack(q.viscosity, R, L, c, q.eps_film_max, q.film, q.roughness, q.asperity_density,
                       q.asperity_radius, geometry.E_star, q.boundary_friction, q.slip_regularisation,
                       int(q.quadrature), bore=bushing_wear)

    def worn_bore(self) -> str:
        return "film and asperities on the worn bushing"


@hookimpl
def register_lubrication_models(register):
    register(MixedLubrication)
