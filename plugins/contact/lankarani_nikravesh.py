"""Lankarani-Nikravesh contact force law with hysteresis damping.

``F = K delta^n [1 + chi delta_dot / delta_dot_minus]``, ``chi = 3 (1 - e^2) / 4`` —
Lankarani & Nikravesh, J. Mech. Des. 112 (1990) 369-376; Machado et al., Mech. Mach. Theory 53
(2012) §4; Wang & Liu (2015) Table 2; Wang, Chen, Ma & Sun (2016) eq. 10.
"""
from __future__ import annotations

from workbench.plugin import ContactLaw, hookimpl

from ._common import HysteresisLaw, HysteresisParamsNearElastic


class LankaraniNikravesh(HysteresisLaw, ContactLaw):
    """Lankarani-Nikravesh dissipative law ``F = K delta^n (1 + chi delta_dot/delta_dot_minus)``,
    ``chi = 3 (1 - e^2) / 4``.

    Derived from an energy balance that assumes little dissipation: meant for restitution close
    to 1 (e >~ 0.8); it dissipates too little for low e.
    ``K`` [N/m^n] defaults to the geometric stiffness (Wang, Chen, Ma & Sun (2016) eq. 11 for a pin in a bore).
    The force is clamped to 0 when the damping term would make it negative (no tension);
    ``delta_dot_minus`` [m/s] is floored at ``min_impact_speed`` (grazing contacts).
    """
    name = "lankarani_nikravesh"
    reference = ("Lankarani & Nikravesh, J. Mech. Des. 112 (1990) 369-376; Machado et al., Mech. Mach."
                 " Theory 53 (2012) §4; Wang & Liu (2015) Table 2; Wang, Chen, Ma & Sun (2016) eq. 10")
    restitution_range = (0.0, 1.0)

    Params = HysteresisParamsNearElastic

    @staticmethod
    def hysteresis_factor(e: float) -> float:
        """``chi(e) = 3 (1 - e^2) / 4`` [1]."""
        return 0.75 * (1.0 - e * e)


@hookimpl
def register_contact_laws(register):
    register(LankaraniNikravesh)
