"""Gonthier et al. contact force law with hysteresis damping.

``F = K delta^n [1 + chi delta_dot / delta_dot_minus]``, ``chi = (1 - e^2) / e`` —
Gonthier, McPhee, Lange & Piedboeuf, Multibody Syst. Dyn. 11 (2004) 209-233; Machado et al.,
Mech. Mach. Theory 53 (2012) §4; Wang & Liu (2015) Table 2.
"""
from __future__ import annotations

from workbench.plugin import ContactLaw, hookimpl

from ._common import HysteresisLaw, HysteresisParamsPositiveE


class Gonthier(HysteresisLaw, ContactLaw):
    """Gonthier et al. dissipative law ``F = K delta^n (1 + chi delta_dot/delta_dot_minus)``,
    ``chi = (1 - e^2) / e``.

    Approximation of Gonthier's exact relation for the whole range of restitution; diverges as e
    -> 0 (e >= 0.01 enforced).
    ``K`` [N/m^n] defaults to the geometric stiffness (Wang, Chen, Ma & Sun (2016) eq. 11 for a pin in a bore).
    The force is clamped to 0 when the damping term would make it negative (no tension);
    ``delta_dot_minus`` [m/s] is floored at ``min_impact_speed`` (grazing contacts).
    """
    name = "gonthier"
    reference = ("Gonthier, McPhee, Lange & Piedboeuf, Multibody Syst. Dyn. 11 (2004) 209-233; Machado"
                 " et al., Mech. Mach. Theory 53 (2012) §4; Wang & Liu (2015) Table 2")
    restitution_range = (0.01, 1.0)

    Params = HysteresisParamsPositiveE

    @staticmethod
    def hysteresis_factor(e: float) -> float:
        """``chi(e) = (1 - e^2) / e`` [1]."""
        return (1.0 - e * e) / e


@hookimpl
def register_contact_laws(register):
    register(Gonthier)
