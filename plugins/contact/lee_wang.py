"""Lee-Wang contact force law with hysteresis damping.

``F = K delta^n [1 + chi delta_dot / delta_dot_minus]``, ``chi = 3 (1 - e) / 4`` —
Lee & Wang, J. Mech. Transm. Autom. Des. 105 (1983) 534-540; Machado et al., Mech. Mach. Theory
53 (2012) §4; Wang & Liu (2015) Table 2.
"""
from __future__ import annotations

from workbench.plugin import ContactLaw, hookimpl

from ._common import HysteresisLaw, HysteresisParams


class LeeWang(HysteresisLaw, ContactLaw):
    """Lee-Wang dissipative law ``F = K delta^n (1 + chi delta_dot/delta_dot_minus)``,
    ``chi = 3 (1 - e) / 4``.

    Half the Hunt-Crossley damping: it does not reproduce its nominal restitution (measured in
    tests/plugins/test_restitution.py).
    ``K`` [N/m^n] defaults to the geometric stiffness (Wang, Chen, Ma & Sun (2016) eq. 11 for a pin in a bore).
    The force is clamped to 0 when the damping term would make it negative (no tension);
    ``delta_dot_minus`` [m/s] is floored at ``min_impact_speed`` (grazing contacts).
    """
    name = "lee_wang"
    reference = ("Lee & Wang, J. Mech. Transm. Autom. Des. 105 (1983) 534-540; Machado et al., Mech. "
                 "Mach. Theory 53 (2012) §4; Wang & Liu (2015) Table 2")
    restitution_range = (0.0, 1.0)

    Params = HysteresisParams

    @staticmethod
    def hysteresis_factor(e: float) -> float:
        """``chi(e) = 3 (1 - e) / 4`` [1]."""
        return 0.75 * (1.0 - e)


@hookimpl
def register_contact_laws(register):
    register(LeeWang)
