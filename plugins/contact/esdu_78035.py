"""ESDU-78035 internal-cylinder contact law (pin in a bore, implicit ``delta(F)``).

``delta = F (s_i + s_j)/L [ln(4 L dR/(F (s_i + s_j))) + 1]``, ``s_k = (1 - nu_k^2)/(pi E_k)`` —
ESDU Item 78035 (1978), as tabulated by Pereira, Ramalho & Ambrosio, Nonlinear Dyn 63 (2011)
681-697 (ESDU-78035 model for internal contact); Wang & Liu (2015) Table 1.
"""
from __future__ import annotations

import math

from workbench.plugin import hookimpl

from ._cylinder_implicit import ImplicitCylinderLaw


class Esdu78035(ImplicitCylinderLaw):
    """Pure elastic ESDU-78035 law for a journal in a bore (Pereira et al. 2011).

    ``delta = F (s_i+s_j)/L [ln(4 L dR/(F (s_i+s_j))) + 1]`` with ``s_k = (1-nu_k^2)/(pi E_k)``
    [1/Pa], ``L`` the axial length [m], ``dR = R_bushing - R_journal`` [m], i.e.
    ``delta = F/(pi L E*) [ln(4 pi L dR E*/F) + 1]`` — Johnson's form with ``+1`` instead of
    ``-1`` (more compliant).  Solved for ``F`` to ~1e-14 relative; no solution above
    ``delta = 4 dR`` (linear continuation there).  No parameters.
    """
    name = "esdu_78035"
    reference = ("ESDU Item 78035 (1978); Pereira, Ramalho & Ambrosio, Nonlinear Dyn 63 (2011) "
                 "681-697, ESDU-78035 model; Wang & Liu (2015) Table 1")
    area_factor = 4.0 * math.pi
    offset = 1.0


@hookimpl
def register_contact_laws(register):
    register(Esdu78035)
