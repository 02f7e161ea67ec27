"""Hooke's linear contact law, ``F_n = K delta``.

Machado, Moreira, Flores & Lankarani, Mech. Mach. Theory 53 (2012) §3 (Hooke's law, the simplest
pure elastic model); Wang & Liu (2015) Table 1.  Default stiffness: Wang, Chen, Ma & Sun (2016) eq. 26 for a planar
(translational-joint) contact; for a pin in a bore the secant of Johnson's line-contact law at a
reference load (see :func:`workbench_plugins.contact._common.linear_stiffness`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.plugin import ContactGeometry, ContactLaw, hookimpl, kernel_slots, njit, parameter

from ._common import linear_stiffness


@njit(cache=True)
def hooke_force(delta, delta_dot, delta_dot_minus, p):
    """``F = K delta`` for ``delta > 0``; ``p``: slots :data:`S` (K)."""
    if delta <= 0.0:
        return 0.0
    return p[S.stiffness] * delta


class Hooke(ContactLaw):
    """Pure elastic linear law ``F_n = K delta`` (Machado et al. 2012 §3; Wang & Liu (2015) Table 1).

    Default ``K`` [N/m]: ``planar`` Wang, Chen, Ma & Sun (2016) eq. 26 ``K_s = a/(0.475 (h_i+h_j))``;
    ``cylindrical`` the secant stiffness of Johnson's plane-strain pin-in-bore law
    (Pereira et al. 2011) at ``reference_load``; ``sphere`` the Hertz secant at ``reference_load``.
    """
    name = "hooke"
    reference = ("Machado, Moreira, Flores & Lankarani, Mech. Mach. Theory 53 (2012) §3 (Hooke); "
                 "Wang & Liu (2015) Table 1; default stiffness Wang, Chen, Ma & Sun (2016) eq. 26 (planar)")
    dissipative = False

    @dataclass(frozen=True)
    class Params:
        stiffness: float | None = parameter(
            None, unit="N/m", doc="linear stiffness K; default from the geometry (Wang, Chen, Ma & Sun (2016) eq. 26 "
            "planar, Johnson secant at reference_load for a pin in a bore)", gt=0.0)
        reference_load: float = parameter(
            1000.0, unit="N", doc="load at which the default secant stiffness of a cylindrical or "
            "sphere contact is taken (unused when stiffness is given or the contact is planar)",
            min=1e-9)

    slots = kernel_slots(Params, ("stiffness",))
    kernel = hooke_force

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        K = linear_stiffness(self.params.stiffness, self.params.reference_load, geometry, self.name)
        return self.slots.pack(stiffness=K)


#: the named slots of the kernel's ``p`` (a compile-time index in :func:`hooke_force`)
S = Hooke.slots


@hookimpl
def register_contact_laws(register):
    register(Hooke)
