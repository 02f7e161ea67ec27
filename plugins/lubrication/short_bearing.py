"""Short journal bearing (Ocvirk), the dynamic form of Flores et al. (2006) (short-bearing forces) after Pinkus &
Sternlicht (1961).

Why lubrication is its own plugin family (``register_lubrication_models``) and not a contact law:
the contact-law contract is a normal force ``F_n(delta, delta_dot, delta_dot_minus) >= 0`` that is
exactly zero without penetration (the conformance suite checks it).  A film carries the joint
*inside* the clearance, where ``delta < 0``; its force has a component normal to the eccentricity
(the attitude angle), and it depends on the whirl of the line of centres and on the rotation of
journal and bushing, which a contact kernel never receives.  Widening the contact signature
would change every contact law and the solver's C signature for a feature the dry laws do not
need; a family of its own keeps both contracts honest (:class:`workbench.models.LubricationModel`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.plugin import hookimpl
from workbench.plugin import short_bearing_kernel
from workbench.plugin import worn_film
from workbench.plugin import ContactGeometry, LubricationModel, parameter

from ._common import bearing_dimensions, eps_cap_field, viscosity_field


class ShortBearing(LubricationModel):
    """Ocvirk short-bearing film force with wedge and squeeze terms, Flores et al. (2006) (short-bearing forces)
    (after Pinkus & Sternlicht (1961) ch. 3): ``cavitation = "pi_film"`` is their form as
    published (pressure integrated over the fixed half 0..pi), ``"gumbel"`` (default) the same
    pressure with negative values set to zero (continuous, mirror-symmetric, equal at steady
    state; workbench.lubrication.short_bearing); Petrov-type Couette shear moment.  Valid for
    ``L/D <~ 0.5`` (within ~3 % of the finite-length Reynolds solution at ``L/D = 0.1`` and
    ``eps <= 0.7``, see docs/lubrication.md)."""
    name = "short_bearing"
    reference = ("Flores et al., Mech. Mach. Theory 41 (2006) 247-261, short-bearing forces; Pinkus & Sternlicht (1961) "
                 "ch. 3; Ocvirk (1952)")

    @dataclass(frozen=True)
    class Params:
        viscosity: float = viscosity_field()
        eps_cap: float = eps_cap_field()
        cavitation: str = parameter("gumbel", unit="text", doc="gumbel: p >= 0 on the half where the "
                                    "Ocvirk pressure is positive; pi_film: the fixed half 0..pi of Flores "
                                    "et al. (2006)", choices=("gumbel", "pi_film"))

    kernel = short_bearing_kernel

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        R, L, c = bearing_dimensions(geometry, self.name)
        return np.array([self.params.viscosity, R, L, c, self.params.eps_cap,
                         float(self.params.cavitation == "gumbel")], dtype=np.float64)

    def pack_worn(self, geometry: ContactGeometry, bushing_wear: np.ndarray) -> np.ndarray | None:
        """The film on the worn bore (quadrature: workbench.lubrication.worn_film for the Gümbel
        film, workbench.lubrication.worn_pi_film for the pi film; a uniform wear d is the clearance
        c + d, closed form)."""
        p = self.pack(geometry)
        p[3], block = worn_film.pack_bore(bushing_wear, p[3])
        if block is None:
            return p
        # the film on the bore's block (workbench.lubrication.short_bearing): 2 Gümbel, 3 pi film
        p[5] = 2.0 if self.params.cavitation == "gumbel" else 3.0
        return np.concatenate([p, block])

    def worn_bore(self) -> str:
        if self.params.cavitation == "gumbel":
            return "film on the worn bushing (Ocvirk pressure with the Gümbel condition over the worn bore)"
        return "film on the worn bushing (Ocvirk pressure over the fixed half 0..pi of the worn bore)"


@hookimpl
def register_lubrication_models(register):
    register(ShortBearing)
