"""Flores et al. contact force law with hysteresis damping.

``F = K delta^n [1 + chi delta_dot / delta_dot_minus]``, ``chi = 8 (1 - e) / (5 e)`` —
Flores, Machado, Silva & Martins, Multibody Syst. Dyn. 25 (2011) 357-375; Machado et al., Mech.
Mach. Theory 53 (2012) §4; Wang & Liu (2015) Table 2.
"""
from __future__ import annotations

from workbench.plugin import ContactLaw, hookimpl

from ._common import HysteresisLaw, HysteresisParamsPositiveE


class Flores(HysteresisLaw, ContactLaw):
    """Flores et al. dissipative law ``F = K delta^n (1 + chi delta_dot/delta_dot_minus)``,
    ``chi = 8 (1 - e) / (5 e)``.

    Derived from the energy dissipated over the whole (compression + restitution) hysteresis
    loop, meant for any restitution incl. soft materials; diverges as e -> 0 (e >= 0.01
    enforced).
    ``K`` [N/m^n] defaults to the geometric stiffness (Wang, Chen, Ma & Sun (2016) eq. 11 for a pin in a bore).
    The force is clamped to 0 when the damping term would make it negative (no tension);
    ``delta_dot_minus`` [m/s] is floored at ``min_impact_speed`` (grazing contacts).
    """
    name = "flores"
    reference = ("Flores, Machado, Silva & Martins, Multibody Syst. Dyn. 25 (2011) 357-375; Machado et"
                 " al., Mech. Mach. Theory 53 (2012) §4; Wang & Liu (2015) Table 2")
    restitution_range = (0.01, 1.0)

    Params = HysteresisParamsPositiveE

    @staticmethod
    def hysteresis_factor(e: float) -> float:
        """``chi(e) = 8 (1 - e) / (5 e)`` [1]."""
        return 8.0 * (1.0 - e) / (5.0 * e)


@hookimpl
def register_contact_laws(register):
    register(Flores)
