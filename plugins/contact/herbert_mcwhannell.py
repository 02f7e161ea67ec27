"""Herbert-McWhannell contact force law with hysteresis damping.

``F = K delta^n [1 + chi delta_dot / delta_dot_minus]``, ``chi = 6 (1 - e) / ((2 e - 1)^2 + 3)`` —
Herbert & McWhannell, J. Eng. Ind. 99 (1977) 513-518; Machado et al., Mech. Mach. Theory 53
(2012) §4; Wang & Liu (2015) Table 2.
"""
from __future__ import annotations

from workbench.plugin import ContactLaw, hookimpl

from ._common import HysteresisLaw, HysteresisParamsNearElastic


class HerbertMcWhannell(HysteresisLaw, ContactLaw):
    """Herbert-McWhannell dissipative law ``F = K delta^n (1 + chi delta_dot/delta_dot_minus)``,
    ``chi = 6 (1 - e) / ((2 e - 1)^2 + 3)``.

    Obtained by fitting the Hunt-Crossley hysteresis loop to impact tests (gear teeth); equals
    Hunt-Crossley as e -> 1.
    ``K`` [N/m^n] defaults to the geometric stiffness (Wang, Chen, Ma & Sun (2016) eq. 11 for a pin in a bore).
    The force is clamped to 0 when the damping term would make it negative (no tension);
    ``delta_dot_minus`` [m/s] is floored at ``min_impact_speed`` (grazing contacts).
    """
    name = "herbert_mcwhannell"
    reference = ("Herbert & McWhannell, J. Eng. Ind. 99 (1977) 513-518; Machado et al., Mech. Mach. "
                 "Theory 53 (2012) §4; Wang & Liu (2015) Table 2")
    restitution_range = (0.0, 1.0)

    Params = HysteresisParamsNearElastic

    @staticmethod
    def hysteresis_factor(e: float) -> float:
        """``chi(e) = 6 (1 - e) / ((2 e - 1)^2 + 3)`` [1]."""
        return 6.0 * (1.0 - e) / ((2.0 * e - 1.0) ** 2 + 3.0)


@hookimpl
def register_contact_laws(register):
    register(HerbertMcWhannell)
