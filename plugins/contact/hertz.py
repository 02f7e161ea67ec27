"""Hertz contact force law, ``F_n = K delta^n``.

Hertz (1881); in the review of Machado, Moreira, Flores & Lankarani, Mech. Mach. Theory 53
(2012) eq. (2); seed 000 Table 1.  Default stiffness for a pin in a bushing: seed 004 eq. 11.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from workbench.hookspecs import hookimpl
from workbench.models import ContactGeometry, ContactLaw, parameter


@njit(cache=True)
def hertz_force(delta, delta_dot, delta_dot_minus, p):
    """``F = K delta^n`` for ``delta > 0``; ``p = [K, n]``."""
    if delta <= 0.0:
        return 0.0
    return p[0] * delta ** p[1]


class Hertz(ContactLaw):
    """Pure elastic Hertz law ``F_n = K delta^n`` (Machado et al. 2012, eq. 2)."""
    name = "hertz"
    reference = "Hertz 1881; Machado et al., Mech. Mach. Theory 53 (2012) eq. (2); seed 000 Table 1"
    dissipative = False

    @dataclass(frozen=True)
    class Params:
        stiffness: float | None = parameter(
            None, unit="N/m^n", doc="generalized stiffness K; default from the geometry (seed 004 eq. 11)", min=0.0)
        exponent: float = parameter(1.5, unit="1", doc="force exponent n", min=1.0, max=3.0)

    kernel = hertz_force

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        K = self.params.stiffness if self.params.stiffness is not None else geometry.default_stiffness()
        return np.array([K, self.params.exponent], dtype=np.float64)


@hookimpl
def register_contact_laws(register):
    register(Hertz)
