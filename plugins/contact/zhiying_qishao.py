"""Zhiying-Qishao contact force law with hysteresis damping.

``F = K delta^n [1 + chi delta_dot / delta_dot_minus]``, ``chi = 3 (1 - e^2) exp(2 (1 - e)) / 4`` —
Zhiying & Qishao, J. Dyn. Control 4 (2006) 294-298; Machado et al., Mech. Mach. Theory 53 (2012)
§4; Wang & Liu (2015) Table 2.
"""
from __future__ import annotations

import math

from workbench.plugin import ContactLaw, hookimpl

from ._common import HysteresisLaw, HysteresisParams


class ZhiyingQishao(HysteresisLaw, ContactLaw):
    """Zhiying-Qishao dissipative law ``F = K delta^n (1 + chi delta_dot/delta_dot_minus)``,
    ``chi = 3 (1 - e^2) exp(2 (1 - e)) / 4``.

    Lankarani-Nikravesh corrected by exp(2(1 - e)) so that it holds for low restitution too.
    ``K`` [N/m^n] defaults to the geometric stiffness (Wang, Chen, Ma & Sun (2016) eq. 11 for a pin in a bore).
    The force is clamped to 0 when the damping term would make it negative (no tension);
    ``delta_dot_minus`` [m/s] is floored at ``min_impact_speed`` (grazing contacts).
    """
    name = "zhiying_qishao"
    reference = ("Zhiying & Qishao, J. Dyn. Control 4 (2006) 294-298; Machado et al., Mech. Mach. "
                 "Theory 53 (2012) §4; Wang & Liu (2015) Table 2")
    restitution_range = (0.0, 1.0)

    Params = HysteresisParams

    @staticmethod
    def hysteresis_factor(e: float) -> float:
        """``chi(e) = 3 (1 - e^2) exp(2 (1 - e)) / 4`` [1]."""
        return 0.75 * (1.0 - e * e) * math.exp(2.0 * (1.0 - e))


@hookimpl
def register_contact_laws(register):
    register(ZhiyingQishao)
