"""Johnson's internal-cylinder contact law (pin in a bore, implicit ``delta(F)``).

``delta = F/(pi L E*) [ln(4 pi L dR E*/F) - 1]`` — Johnson, Contact Mechanics (1985) pp. 99-104,
in the form tabulated by Pereira, Ramalho & Ambrosio, Nonlinear Dyn 63 (2011) 681-697 (Johnson's
model for internal contact); Wang & Liu (2015) Table 1 / Machado et al., Mech. Mach. Theory 53 (2012) §3.
Solved for ``F`` inside the kernel (see :mod:`workbench_plugins.contact._cylinder_implicit`).
"""
from __future__ import annotations

import math

from workbench.plugin import hookimpl

from ._cylinder_implicit import ImplicitCylinderLaw


class Johnson(ImplicitCylinderLaw):
    """Pure elastic Johnson law for a journal in a bore (Pereira et al. 2011, Johnson model).

    ``delta = F/(pi L E*) [ln(4 pi L dR E*/F) - 1]`` with ``L`` the axial length [m],
    ``dR = R_bushing - R_journal`` [m] and ``1/E* = (1-nu_i^2)/E_i + (1-nu_j^2)/E_j`` [1/Pa], all
    taken from the :class:`~workbench.models.ContactGeometry`.  The force is found by a monotone
    Newton iteration to ~1e-14 relative.  Valid while the contact arc is small (line-contact
    theory); the formula has no solution above ``delta = 4 dR e^-2 = 0.54 dR``, where the kernel
    continues linearly (documented extrapolation).  No parameters.
    """
    name = "johnson"
    reference = ("Johnson, Contact Mechanics (1985) pp. 99-104; Pereira, Ramalho & Ambrosio, "
                 "Nonlinear Dyn 63 (2011) 681-697, Johnson model; Wang & Liu (2015) Table 1")
    area_factor = 4.0 * math.pi
    offset = -1.0


@hookimpl
def register_contact_laws(register):
    register(Johnson)
