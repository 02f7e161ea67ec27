"""Hertz contact force law, ``F_n = K delta^n``.

Hertz (1881); in the review of Machado, Moreira, Flores & Lankarani, Mech. Mach. Theory 53
(2012) eq. (2); Wang & Liu (2015) Table 1.  Default stiffness for a pin in a bushing: Wang, Chen, Ma & Sun (2016) eq. 11.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.plugin import ContactGeometry, ContactLaw, hookimpl, kernel_slots, njit

from ._common import exponent_field, resolve_stiffness, stiffness_field


@njit(cache=True)
def hertz_force(delta, delta_dot, delta_dot_minus, p):
    """``F = K delta^n`` for ``delta > 0``; ``p``: slots :data:`S` (K, n)."""
    if delta <= 0.0:
        return 0.0
    return p[S.stiffness] * delta ** p[S.exponent]


class Hertz(ContactLaw):
    """Pure elastic Hertz law ``F_n = K delta^n`` (Machado et al. 2012, eq. 2).

    ``K`` [N/m^n] defaults to the geometry's stiffness (Wang, Chen, Ma & Sun (2016) eq. 11 for a pin in a bore,
    Hertz for spheres — both for ``n = 1.5`` —, Wang, Chen, Ma & Sun (2016) eq. 26 for planar contact with ``n = 1``);
    with another exponent ``stiffness`` must be given
    (:func:`workbench_plugins.contact._common.resolve_stiffness`).
    """
    name = "hertz"
    reference = "Hertz 1881; Machado et al., Mech. Mach. Theory 53 (2012) eq. (2); Wang & Liu (2015) Table 1"
    dissipative = False

    @dataclass(frozen=True)
    class Params:
        stiffness: float | None = stiffness_field()
        exponent: float = exponent_field()

    slots = kernel_slots(Params)
    kernel = hertz_force

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        n = float(self.params.exponent)
        K = resolve_stiffness(self.params.stiffness, n, geometry, self.name)
        return self.slots.pack(stiffness=K, exponent=n)


#: the named slots of the kernel's ``p`` (a compile-time index in :func:`hertz_force`)
S = Hertz.slots


@hookimpl
def register_contact_laws(register):
    register(Hertz)
