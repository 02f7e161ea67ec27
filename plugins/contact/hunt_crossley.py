"""Hunt-Crossley contact force law with hysteresis damping.

``F = K delta^n [1 + chi delta_dot / delta_dot_minus]``, ``chi = 3 (1 - e) / 2`` —
Hunt & Crossley, J. Appl. Mech. 42 (1975) 440-445; Machado et al., Mech. Mach. Theory 53 (2012)
§4; Wang & Liu (2015) Table 2.
"""
from __future__ import annotations

from workbench.plugin import ContactLaw, hookimpl

from ._common import HysteresisLaw, HysteresisParamsNearElastic


class HuntCrossley(HysteresisLaw, ContactLaw):
    """Hunt-Crossley dissipative law ``F = K delta^n (1 + chi delta_dot/delta_dot_minus)``,
    ``chi = 3 (1 - e) / 2``.

    Derived for restitution close to 1 (low impact speeds); the dissipated energy is
    underestimated for lower e.
    ``K`` [N/m^n] defaults to the geometric stiffness (Wang, Chen, Ma & Sun (2016) eq. 11 for a pin in a bore).
    The force is clamped to 0 when the damping term would make it negative (no tension);
    ``delta_dot_minus`` [m/s] is floored at ``min_impact_speed`` (grazing contacts).
    """
    name = "hunt_crossley"
    reference = ("Hunt & Crossley, J. Appl. Mech. 42 (1975) 440-445; Machado et al., Mech. Mach. "
                 "Theory 53 (2012) §4; Wang & Liu (2015) Table 2")
    restitution_range = (0.0, 1.0)

    Params = HysteresisParamsNearElastic

    @staticmethod
    def hysteresis_factor(e: float) -> float:
        """``chi(e) = 3 (1 - e) / 2`` [1]."""
        return 1.5 * (1.0 - e)


@hookimpl
def register_contact_laws(register):
    register(HuntCrossley)
