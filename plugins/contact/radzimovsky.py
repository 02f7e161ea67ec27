"""Radzimovsky's internal-cylinder contact law (pin in a bore, implicit ``delta(F)``).

``delta = F/(pi L E*) [2/3 + ln(4 R_i/b) + ln(4 R_j/b)]``, ``b = 1.6 sqrt(F R/(L E*))``,
``R = R_i R_j/(R_i - R_j)`` — Radzimovsky, Univ. Illinois Eng. Exp. Station Bull. 408 (1953), as
tabulated by Pereira, Ramalho & Ambrosio, Nonlinear Dyn 63 (2011) 681-697 (Radzimovsky model);
Wang & Liu (2015) Table 1.
"""
from __future__ import annotations

from workbench.plugin import hookimpl

from ._cylinder_implicit import ImplicitCylinderLaw

#: contact width constant of ``b = 1.6 sqrt(F R/(L E*))`` (Pereira et al. 2011)
WIDTH_CONSTANT = 1.6


class Radzimovsky(ImplicitCylinderLaw):
    """Pure elastic Radzimovsky law for a journal in a bore (Pereira et al. 2011).

    ``delta = F/(pi L E*) [2/3 + ln(4 R_i/b) + ln(4 R_j/b)]``, ``b = 1.6 sqrt(F R/(L E*))`` [m],
    ``R = R_i R_j/dR`` [m]; ``R_i`` bore, ``R_j`` journal radius [m], ``L`` axial length [m],
    ``1/E* = h_i + h_j`` [1/Pa].  Since ``16 R_i R_j/b^2 = 6.25 L dR E*/F`` this is
    ``delta = F/(pi L E*) [ln(6.25 L dR E*/F) + 2/3]``.  Solved for ``F`` to ~1e-14 relative; no
    solution above ``delta = (6.25/pi) e^(-1/3) dR = 1.43 dR`` (linear continuation there).
    No parameters.
    """
    name = "radzimovsky"
    reference = ("Radzimovsky, Univ. Illinois Eng. Exp. Stn. Bull. 408 (1953); Pereira, Ramalho & "
                 "Ambrosio, Nonlinear Dyn 63 (2011) 681-697, Radzimovsky model; Wang & Liu (2015) Table 1")
    area_factor = 16.0 / WIDTH_CONSTANT ** 2
    offset = 2.0 / 3.0


@hookimpl
def register_contact_laws(register):
    register(Radzimovsky)
