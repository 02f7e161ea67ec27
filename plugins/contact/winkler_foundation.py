"""Elastic-foundation (Winkler) contact force of a journal in a lined bushing, with hysteresis.

Wang & Liu (2015) (Wang & Liu 2015) §1.3 item (3) and §2.3.3 eq. (23)-(24): the contact interface is a bed
of independent springs, ``p = (E_w / L) u`` with ``u`` the local penetration, and the contact
force is the pressure integrated over the contact area.  For a rigid journal of radial clearance
``c`` in a bore of radius ``R``, length ``b``, at approach ``d = c + delta`` the penetration at
angle ``theta`` from the line of centres is ``u = d cos(theta) - c`` on ``|theta| < eps``,
``cos(eps) = c / d``, and (``docs/validation.md``, "Rigid journal in a Winkler-lined bushing")

    F = b R k int_{-eps}^{eps} (d cos th - c) cos th dth = b R k c (eps - sin eps cos eps) / cos eps
      = b R k d (eps - sin eps cos eps),

with ``k = E_w / L`` [Pa/m].  The second form also holds at ``c = 0`` (``eps = pi/2``,
``F = (pi/2) b R k delta``).  For a small penetration ``eps ~ sqrt(2 delta / c)`` and
``F ~ (2/3) b R k c eps^3 ~ (4 sqrt 2 / 3) b R k delta^1.5 / sqrt(c)``: a Hertz-like 3/2 power at
first contact, turning linear in ``delta`` once the contact arc approaches a half circle.

Hysteresis damping as Lankarani & Nikravesh (J. Mech. Des. 112 (1990) 369; Machado et al.,
Mech. Mach. Theory 53 (2012) §4): ``F *= 1 + 3 (1 - e^2)/4 * delta_dot / delta_dot_minus``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.plugin import (ContactGeometry, ContactLaw, StudyError, choices_text, hookimpl,
                              kernel_slots, njit, parameter)

from workbench_plugins.pressure.winkler import layer_modulus

from ._common import check_restitution, min_impact_speed_field

#: below this half-angle [rad] ``eps - sin eps cos eps`` is summed as a series (the difference of
#: two nearly equal numbers loses ~ 1e-16/eps^2 relative precision); the first dropped term (n = 9)
#: is ~ 1e-19 relative at eps = 0.25
_SERIES_EPS = 0.25
#: layer-modulus rules of :func:`workbench_plugins.pressure.winkler.layer_modulus`
_RULES = ("unconstrained", "bonded")


@njit(cache=True)
def arc_factor(eps):
    """``g(eps) = eps - sin(eps) cos(eps)`` [1], accurate also for ``eps -> 0`` where
    ``g = sum_{n>=1} (-1)^(n+1) 2^(2n) eps^(2n+1) / (2n+1)! = (2/3) eps^3 - (2/15) eps^5 + ...``."""
    if eps < _SERIES_EPS:
        e2 = eps * eps
        # Horner form of the series up to n = 8 (coefficients 2^(2n)/(2n+1)!)
        s = 65536.0 / 355687428096000.0
        s = 16384.0 / 1307674368000.0 - e2 * s
        s = 4096.0 / 6227020800.0 - e2 * s
        s = 1024.0 / 39916800.0 - e2 * s
        s = 256.0 / 362880.0 - e2 * s
        s = 64.0 / 5040.0 - e2 * s
        s = 16.0 / 120.0 - e2 * s
        s = 4.0 / 6.0 - e2 * s
        return eps * e2 * s
    return eps - math.sin(eps) * math.cos(eps)


@njit(cache=True)
def winkler_foundation_force(delta, delta_dot, delta_dot_minus, p):
    """``F = b R k d g(eps) (1 + chi delta_dot / max(delta_dot_minus, v_floor))``, clamped at 0.

    ``p``: slots :data:`S` (b R k, c, chi, v_floor); ``d = c + delta``; ``eps = atan2(sqrt(delta (2c + delta)), c)``
    (the half-angle of the contact arc, ``cos eps = c/d``, without the cancellation of
    ``acos(c/d)`` at small ``delta``).  Zero for ``delta <= 0``; the damping term is clamped so the
    force never pulls (as :func:`workbench_plugins.contact._common.hysteresis_force`).
    """
    if delta <= 0.0:
        return 0.0
    c = p[S.clearance]
    d = c + delta
    eps = math.atan2(math.sqrt(delta * (c + d)), c)
    f = p[S.b_R_k] * d * arc_factor(eps)
    v_minus = delta_dot_minus
    if not v_minus > p[S.min_impact_speed]:  # also catches NaN
        v_minus = p[S.min_impact_speed]
    f *= 1.0 + p[S.chi] * delta_dot / v_minus
    if f > 0.0:
        return f
    return 0.0



def layer_thickness_field():
    """The elastic layer's thickness, shared by the Winkler laws (point and distributed)."""
    return parameter(1e-3, unit="m", doc="thickness L of the elastic layer of each elastic part (> 0)", gt=0.0)


def modulus_rule_field():
    """The layer modulus rule, shared by the Winkler laws (point and distributed)."""
    return parameter("unconstrained", unit="text", doc="layer modulus E_w: 'unconstrained' E or 'bonded' "
                     "(1-nu)E/((1+nu)(1-2nu))", choices=_RULES)


def layered_modulus(law: str, prm, geometry: ContactGeometry) -> float:
    """Foundation modulus ``1 / sum(L / E_w)`` [Pa/m] over the elastic parts of ``geometry``, with the
    layer thickness ``prm.layer_thickness`` [m] and rule ``prm.modulus_rule`` of the law ``law``
    (shared by the point law here and the distributed contact)."""
    L = float(prm.layer_thickness)
    if not (math.isfinite(L) and L > 0.0):
        raise StudyError(f"contact law '{law}': layer_thickness must be > 0 m, got "
                         f"{prm.layer_thickness!r}", key="layer_thickness")
    parts = [m for m in (geometry.bushing, geometry.journal) if not m.rigid]
    if not parts:
        raise StudyError(f"contact law '{law}': both parts are rigid; give 'stiffness' "
                         "in Pa/m or make one part elastic")
    return 1.0 / sum(L / layer_modulus(m, prm.modulus_rule) for m in parts)


def checked_modulus(law: str, k: float) -> float:
    """``k`` [Pa/m] if finite and positive, else a StudyError naming the law and the key."""
    if not (math.isfinite(k) and k > 0.0):
        raise StudyError(f"contact law '{law}': foundation modulus must be > 0 Pa/m, got {k!r}",
                         key="stiffness")
    return k

class WinklerFoundation(ContactLaw):
    """Winkler elastic-foundation contact force of a pin in a bore, with Lankarani-Nikravesh
    hysteresis (Wang & Liu (2015) §2.3.3 eq. 23-24; closed form in docs/validation.md).

    ``F = b R k c (eps - sin eps cos eps)/cos eps * (1 + 3(1-e^2)/4 delta_dot/delta_dot_minus)``,
    ``cos eps = c/(c + delta)``; ``b`` the contact length, ``R`` the bushing radius, ``c`` the
    radial clearance of the joint geometry, ``k = E_w / L`` the foundation modulus.  ``k`` defaults
    to the lining rule of the ``winkler`` pressure model: each elastic part is a layer of thickness
    ``layer_thickness`` with modulus ``E_w`` from ``modulus_rule``
    (:func:`workbench_plugins.pressure.winkler.layer_modulus`), and two elastic layers act in series; so the
    dynamics and the ``winkler`` pressure model see the same foundation.

    The damping factor is Lankarani-Nikravesh's.  In a free impact of this damping form the
    rebound speed depends on ``chi`` only, not on the elastic law (with ``u = delta_dot / v0``,
    ``m v0^2 u du / (1 + chi u) = -F_el(delta) d delta`` separates), so the law restitutes exactly
    as Lankarani-Nikravesh does with Hertz: ``e`` is reproduced for ``e`` near 1 (``e = 0.9`` gives
    0.913, ``e = 0.5`` gives 0.725).
    """
    name = "winkler_foundation"
    reference = ("Winkler elastic foundation, Wang & Liu (2015) (Wang & Liu 2015) §1.3 and §2.3.3 eq. (23)-(24), "
                 "integrated over the contact arc (docs/validation.md); hysteresis: Lankarani & Nikravesh, "
                 "J. Mech. Des. 112 (1990) 369-376")
    dissipative = True
    geometries = ("cylindrical",)

    @dataclass(frozen=True)
    class Params:
        layer_thickness: float = layer_thickness_field()
        modulus_rule: str = modulus_rule_field()
        stiffness: float | None = parameter(
            None, unit="Pa/m", doc="foundation modulus k; default E_w/L from the materials (layers "
            "in series)", gt=0.0)
        restitution: float = parameter(0.9, unit="1", doc="coefficient of restitution e of the "
                                       "Lankarani-Nikravesh damping", min=0.0, max=1.0)
        min_impact_speed: float = min_impact_speed_field()

        def __post_init__(self):
            if self.modulus_rule not in _RULES:
                raise StudyError(f"winkler_foundation: modulus_rule {self.modulus_rule!r} is not valid. "
                                 f"Valid choices: {choices_text(_RULES)}", key="modulus_rule")

    #: b R k [N/m^2], the clearance c [m], chi(e) [1], the impact-speed floor [m/s]
    slots = kernel_slots(Params, ("b_R_k", "clearance", "chi", "min_impact_speed"))
    kernel = winkler_foundation_force

    def foundation_modulus(self, geometry: ContactGeometry) -> float:
        """``k`` [Pa/m]: the ``stiffness`` parameter, or ``1 / sum(L / E_w)`` over the elastic parts."""
        prm = self.params
        k = float(prm.stiffness) if prm.stiffness is not None else layered_modulus(self.name, prm, geometry)
        return checked_modulus(self.name, k)

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        """``p`` in the slots :data:`S` (b R k, c, chi, v_floor) with ``R`` the bushing radius, ``c``
        the clearance."""
        if geometry.kind != "cylindrical":
            raise StudyError(f"contact law '{self.name}' is for revolute (cylindrical) clearance "
                             f"joints, not '{geometry.kind}' contacts")
        b, R, c = geometry.length, geometry.radius_bushing, geometry.clearance
        if not (b > 0.0 and R > 0.0 and c >= 0.0):
            raise StudyError(f"contact law '{self.name}': needs length > 0, bushing radius > 0 and "
                             f"clearance >= 0; got b = {b!r} m, R = {R!r} m, c = {c!r} m")
        k = self.foundation_modulus(geometry)
        e = check_restitution(self.params.restitution, self.name, 0.0, 1.0)
        v_floor = float(self.params.min_impact_speed)
        if not v_floor > 0.0:
            raise StudyError(f"contact law '{self.name}': min_impact_speed must be > 0 m/s",
                             key="min_impact_speed")
        return self.slots.pack(b_R_k=b * R * k, clearance=float(c), chi=0.75 * (1.0 - e * e),
                               min_impact_speed=v_floor)


#: the named slots of the kernel's ``p`` (a compile-time index in :func:`winkler_foundation_force`)
S = WinklerFoundation.slots


@hookimpl
def register_contact_laws(register):
    register(WinklerFoundation)
