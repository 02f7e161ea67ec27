"""Reye's energy-dissipation wear hypothesis ``dh/ds = mu p / tau``.

Reye 1860 (Der Civilingenieur, "Zur Theorie der Zapfenreibung"); seed 000 (Wang & Liu 2015)
§2.1.2 eq. (11)-(12): the worn volume is proportional to the work of the friction force,
``V/s = F_T / tau`` (eq. 11), which per unit area and with ``F_T = mu F_n`` is
``dh/ds = mu p / tau`` (eq. 12).  ``tau`` [Pa = J/m^3]
is the friction energy dissipated per unit worn volume (the review calls it the shear stress of
the sliding pair; its unit is the same).  With ``mu / tau = k_d`` it is Archard's law (seed 000:
"the two models are consistent in joint-wear prediction because normal and friction force can be
converted into each other").
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.hookspecs import hookimpl
from workbench.models import WearLaw, parameter

from ._common import as_depth, require_positive, wear_inputs


class Reye(WearLaw):
    """Reye / energy hypothesis ``dh = mu p ds / tau`` (seed 000 eq. 11-12).

    ``friction_coefficient`` mu [1] is the coefficient that turns the contact pressure into the
    friction shear stress ``mu p``; ``tau`` [Pa = J/m^3] the friction energy per worn volume.
    The wear depth equals Archard's with ``k_d = mu / tau`` (the defaults give ``k_d = 1e-14``).

    Inputs as for ``archard``: ``pressure`` [Pa] (negative clamped to 0), ``slip`` ds [m] (used
    by magnitude); the total sliding distance is ignored.  Returns ``dh`` [m] >= 0.
    """
    name = "reye"
    reference = "Reye 1860, Der Civilingenieur (Zapfenreibung); seed 000 (Wang & Liu 2015) eq. (11)-(12)"

    @dataclass(frozen=True)
    class Params:
        friction_coefficient: float = parameter(
            0.1, unit="1", doc="friction coefficient mu of the pair (friction shear stress mu p)",
            min=0.0)
        tau: float = parameter(
            1e13, unit="Pa", doc="friction energy dissipated per unit worn volume, J/m^3 (> 0)",
            min=0.0)

        def __post_init__(self):
            require_positive(self.tau, "tau", "reye", "Pa")

    def depth(self, pressure, slip, sliding_distance=0.0) -> np.ndarray:
        """Wear depth ``dh = (mu / tau) max(p, 0) |ds|`` [m] (seed 000 eq. 12)."""
        p, ds, s = wear_inputs(pressure, slip, sliding_distance)
        dh = p * ds
        dh *= self.params.friction_coefficient / self.params.tau
        return as_depth(dh, p.shape, ds.shape, s.shape)


@hookimpl
def register_wear_laws(register):
    register(Reye)
