"""Kelvin-Voigt linear spring-damper contact law, ``F_n = K delta + D delta_dot``.

Machado, Moreira, Flores & Lankarani, Mech. Mach. Theory 53 (2012) §4 (Kelvin-Voigt, the first
dissipative model of the review); Wang & Liu (2015) Table 2.  ``D`` may be derived from a restitution
coefficient through the damped linear oscillator, ``e = exp(-zeta pi / sqrt(1 - zeta^2))``,
``D = 2 zeta sqrt(K m)`` (e.g. Flores & Lankarani, Contact Force Models for Multibody Dynamics,
Springer 2016, ch. on dissipative models).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.plugin import (ContactGeometry, ContactLaw, StudyError, hookimpl, kernel_slots, njit,
                              parameter)

from ._common import check_restitution, linear_stiffness


@njit(cache=True)
def kelvin_voigt_force(delta, delta_dot, delta_dot_minus, p):
    """``F = K delta + D delta_dot`` for ``delta > 0``, clamped at 0; ``p``: slots :data:`S` (K, D).

    The damper pulls during restitution; the force is clamped to 0 (no tension), so the bodies
    separate while ``delta`` is still positive.  The force also jumps from 0 to ``D v0`` at the
    first touch — the known flaw of this law (Machado et al. 2012 §4).
    """
    if delta <= 0.0:
        return 0.0
    f = p[S.stiffness] * delta + p[S.damping] * delta_dot
    if f > 0.0:
        return f
    return 0.0


def damping_from_restitution(e: float, K: float, m: float) -> float:
    """``D = 2 zeta sqrt(K m)`` [N s/m] with ``zeta = -ln e / sqrt(pi^2 + ln^2 e)``.

    Inverts ``e = exp(-zeta pi/sqrt(1-zeta^2))``, the rebound speed ratio of a damped linear
    oscillator *with* tension allowed (contact ends at ``delta = 0``).  With the no-tension clamp
    the effective restitution is higher; ``tests/plugins/test_restitution.py`` measures it.
    """
    if e >= 1.0:
        return 0.0
    ln_e = math.log(e)
    zeta = -ln_e / math.sqrt(math.pi ** 2 + ln_e ** 2)
    return 2.0 * zeta * math.sqrt(K * m)


class KelvinVoigt(ContactLaw):
    """Linear viscoelastic law ``F_n = K delta + D delta_dot`` (Machado et al. 2012 §4).

    ``K`` [N/m] as in :class:`workbench_plugins.contact.hooke.Hooke`.  ``D`` [N s/m]: ``damping`` if given,
    else derived from ``restitution`` and ``effective_mass`` (linear oscillator, see
    :func:`damping_from_restitution`); one of the two is required.  No tension: the force is
    clamped at 0.
    """
    name = "kelvin_voigt"
    reference = ("Machado, Moreira, Flores & Lankarani, Mech. Mach. Theory 53 (2012) §4 "
                 "(Kelvin-Voigt); Wang & Liu (2015) Table 2")
    dissipative = True

    @dataclass(frozen=True)
    class Params:
        stiffness: float | None = parameter(
            None, unit="N/m", doc="linear stiffness K; default from the geometry (as for hooke)",
            gt=0.0)
        damping: float | None = parameter(
            None, unit="N s/m", doc="damping coefficient D; default derived from restitution and "
            "effective_mass", min=0.0)
        restitution: float = parameter(
            0.9, unit="1", doc="coefficient of restitution used to derive D (linear oscillator)",
            min=1e-3, max=1.0)
        effective_mass: float | None = parameter(
            None, unit="kg", doc="effective mass m of the impact, for deriving D from restitution",
            min=0.0)
        reference_load: float = parameter(
            1000.0, unit="N", doc="load of the default secant stiffness (cylindrical/sphere)",
            min=1e-9)

    slots = kernel_slots(Params, ("stiffness", "damping"))
    kernel = kelvin_voigt_force

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        prm = self.params
        K = linear_stiffness(prm.stiffness, prm.reference_load, geometry, self.name)
        if prm.damping is not None:
            D = float(prm.damping)
            if not (math.isfinite(D) and D >= 0.0):
                raise StudyError(f"contact law '{self.name}': damping must be >= 0 N s/m, got {D!r}")
        elif prm.effective_mass is not None and prm.effective_mass > 0.0:
            e = check_restitution(prm.restitution, self.name, 1e-3, 1.0)
            D = damping_from_restitution(e, K, float(prm.effective_mass))
        else:
            raise StudyError(f"contact law '{self.name}' needs either 'damping' [N s/m] or "
                             "'effective_mass' [kg] (then D follows from 'restitution')")
        return self.slots.pack(stiffness=K, damping=D)


#: the named slots of the kernel's ``p`` (a compile-time index in :func:`kelvin_voigt_force`)
S = KelvinVoigt.slots


@hookimpl
def register_contact_laws(register):
    register(KelvinVoigt)
