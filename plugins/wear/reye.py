"""Reye's energy-dissipation wear hypothesis: the worn volume is proportional to the friction work.

Reye 1860 (Der Civilingenieur, "Zur Theorie der Zapfenreibung"); Wang & Liu (2015) §2.1.2 eq.
(11)-(12): ``V = k_R W_f`` with ``W_f`` the work of the friction force (eq. 11); per unit area, with
the local friction shear stress ``tau`` [Pa] acting over a slip ``ds`` [m], ``dh = k_R tau ds``
(eq. 12).  ``k_R`` [m^3/J] is Reye's coefficient, the volume worn per joule of friction work.

The shear is what the joint's own friction law does in the simulation: the wear loop passes, per
sample and node, ``tau = (|F_t| / F_n) p`` — the simulated friction force ``F_t`` spread over the
contact in proportion to the pressure — so the friction work Reye sees per cycle is the work the
dynamics dissipated in friction, ``sum |F_t| |v_t| dt``.  With a Coulomb law of constant ``mu``
(``|F_t| = mu F_n`` while sliding) it is Archard's law with ``k_d = mu k_R``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.plugin import WearLaw, WorkbenchError, hookimpl, parameter

from ._common import as_depth, wear_inputs


class Reye(WearLaw):
    """Reye / energy hypothesis ``dh = k_R tau ds`` (Wang & Liu (2015) eq. 11-12).

    One parameter, Reye's coefficient ``k_R`` = ``wear_coefficient`` [m^3/J]: worn volume per unit
    friction work.

    Inputs: ``pressure`` p [Pa] (negative clamped to 0; wear only where the surfaces press),
    ``slip`` ds [m] (used by magnitude), ``shear`` tau [Pa], the local friction shear stress
    (required: the wear loop gives the simulated one, ``(|F_t|/F_n) p``; taken by magnitude and
    zero where ``p = 0``); the total sliding distance is ignored.  Returns ``dh`` [m] >= 0.
    """
    name = "reye"
    uses_shear = True
    reference = "Reye 1860, Der Civilingenieur (Zapfenreibung); Wang & Liu (2015) eq. (11)-(12)"

    @dataclass(frozen=True)
    class Params:
        wear_coefficient: float = parameter(
            1e-13, unit="m^3/J", doc="Reye's coefficient k_R: worn volume per unit friction work",
            min=0.0)

    def depth(self, pressure, slip, sliding_distance=0.0, shear=None) -> np.ndarray:
        """Wear depth ``dh = k_R |tau| |ds|`` [m] where ``p > 0`` (Wang & Liu (2015) eq. 12)."""
        if shear is None:
            raise WorkbenchError("wear law 'reye' needs the local friction shear stress "
                                 "(keyword 'shear' [Pa]); the wear loop passes the simulated one")
        p, ds, s = wear_inputs(pressure, slip, sliding_distance)
        tau = np.where(p > 0.0, np.abs(np.asarray(shear, dtype=np.float64)), 0.0)
        dh = tau * ds
        dh *= self.params.wear_coefficient
        return as_depth(dh, p.shape, ds.shape, s.shape, tau.shape)


@hookimpl
def register_wear_laws(register):
    register(Reye)
