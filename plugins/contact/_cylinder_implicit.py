"""Shared solver of the implicit internal-cylinder laws (Johnson, Radzimovsky, ESDU-78035).

Not a plugin (no entry point, no hook).  As tabulated by Pereira, Ramalho & Ambrosio, "A critical
overview of internal and external cylinder contact force models", Nonlinear Dyn 63 (2011) 681-697,
the three laws give the approach ``delta`` of a journal (radius ``R_j``) in a bore (radius
``R_i``, clearance ``dR = R_i - R_j``, axial length ``L``, ``1/E* = h_i + h_j``,
``h = (1-nu^2)/E``) as an explicit function of the force.  All three have the same shape

    delta(F) = c F [ln(A / F) + B],        c = 1/(pi L E*)

================  =====================  ======  =============================================
law               A                      B       original form
================  =====================  ======  =============================================
Johnson           4 pi L dR E*           -1      F/(pi L E*) [ln(4 pi L dR E*/F) - 1]
ESDU-78035        4 pi L dR E*           +1      F (s_i+s_j)/L [ln(4 L dR/(F (s_i+s_j))) + 1],
                                                 s_k = (1-nu_k^2)/(pi E_k)
Radzimovsky       6.25 L dR E*           2/3     F/(pi L E*) [2/3 + ln(4 R_i/b) + ln(4 R_j/b)],
                                                 b = 1.6 sqrt(F R/(L E*)), R = R_i R_j/dR
================  =====================  ======  =============================================

Inversion.  With ``t = delta/(c A)`` and ``w = ln(A/F) + B`` the law reads ``w - ln w = B - ln t``
(so ``F = A exp(B - w)``, ``-w = W_{-1}(-t e^{-B})``, the lower Lambert-W branch).  ``w - ln w``
is convex and increasing for ``w > 1``; Newton's method started to the right of the root
(``w0 = s + 2 ln s + 1`` with ``s = B - ln t``) converges monotonically, and the relative error of
``F`` equals the last Newton step in ``w`` (stopped below 1e-14).

Validity.  ``delta(F)`` grows only up to its maximum at ``F_max = A e^(B-1)``,
``delta_max = c A e^(B-1)`` (Johnson ``0.54 dR``, Radzimovsky ``1.43 dR``, ESDU ``4 dR``): the laws
have no solution beyond.  Far before that they leave their physical range — they are line-contact
(Hertz-strip) formulas, meant for a contact arc small compared with the radius; Pereira et al.
(2011) show they miss the conformal regime of small clearances and large loads.  For
``delta > delta_max`` the kernel continues linearly with the secant slope ``F_max/delta_max`` so
that the force stays finite, continuous and increasing (documented extrapolation, not physics).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.plugin import ContactGeometry, ContactLaw, StudyError, kernel_slots, njit

#: the slots of ``p`` of :func:`implicit_cylinder_force`: compliance c [m/N], area term A [N],
#: offset B [1], the end of the valid range delta_max [m] and its force F_max [N] (no parameters:
#: everything comes from the geometry)
S = kernel_slots(names=("c", "A", "B", "delta_max", "F_max"), name="ImplicitCylinderSlots")


def implicit_params(c: float, A: float, B: float) -> np.ndarray:
    """``p`` (slots :data:`S`: c, A, B, delta_max, F_max) for :func:`implicit_cylinder_force`."""
    F_max = A * math.exp(B - 1.0)
    return S.pack(c=c, A=A, B=B, delta_max=c * F_max, F_max=F_max)


def cylinder_numbers(geometry: ContactGeometry, law: str) -> tuple[float, float, float]:
    """``(L, dR, E*)`` of a pin-in-bore geometry, checked; raises :class:`StudyError` otherwise."""
    if geometry.kind != "cylindrical":
        raise StudyError(f"contact law '{law}' is an internal-cylinder law (pin in a bore); it needs "
                         f"geometry kind 'cylindrical', got {geometry.kind!r}")
    L, dR = float(geometry.length), float(geometry.clearance)
    if not (L > 0.0 and dR > 0.0):
        raise StudyError(f"contact law '{law}': needs length > 0 and clearance "
                         f"R_bushing - R_journal > 0, got length = {L:g} m, clearance = {dR:g} m")
    hsum = geometry.journal.h + geometry.bushing.h
    if not hsum > 0.0:
        raise StudyError(f"contact law '{law}': journal and bushing cannot both be rigid")
    return L, dR, 1.0 / hsum


def deflection(force: float, p) -> float:
    """Explicit ``delta(F) = c F [ln(A/F) + B]`` [m] (reference for tests and plots)."""
    if force <= 0.0:
        return 0.0
    return p[S.c] * force * (math.log(p[S.A] / force) + p[S.B])


@njit(cache=True)
def implicit_cylinder_force(delta, delta_dot, delta_dot_minus, p):
    """Force [N] solving ``delta = c F [ln(A/F) + B]``; ``p``: slots :data:`S`.

    Zero for ``delta <= 0``; linear secant continuation beyond ``delta_max`` (see module doc).
    Elastic: ``delta_dot`` and ``delta_dot_minus`` are not used.
    """
    if delta <= 0.0:
        return 0.0
    c = p[S.c]
    A = p[S.A]
    B = p[S.B]
    d_max = p[S.delta_max]
    f_max = p[S.F_max]
    if delta >= d_max:
        return f_max + f_max / d_max * (delta - d_max)
    s = B - math.log(delta / (c * A))  # >= 1 inside the valid range
    if s <= 1.0:
        return f_max
    w = s + 2.0 * math.log(s) + 1.0  # right of the root of psi(w) = w - ln w - s
    for _ in range(200):
        psi = w - math.log(w) - s
        step = psi / (1.0 - 1.0 / w)
        w -= step
        if w <= 1.0:
            w = 1.0
            break
        if abs(step) <= 1e-14 * w:
            break
    return A * math.exp(B - w)


class ImplicitCylinderLaw(ContactLaw):
    """Base of the three laws ``delta(F) = F/(pi L E*) [ln(A/F) + B]``, ``A = area_factor L dR E*``.

    A law sets ``name``, ``reference``, ``area_factor`` [1] and ``offset`` (``B``) [1]; the joint
    geometry supplies everything else, so the laws have no parameters.
    """
    dissipative = False
    geometries = ("cylindrical",)
    area_factor: float = 4.0 * math.pi
    offset: float = -1.0

    @dataclass(frozen=True)
    class Params:
        """The implicit cylinder laws have no parameters: everything comes from the geometry."""

    slots = S
    kernel = implicit_cylinder_force

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        L, dR, Es = cylinder_numbers(geometry, self.name)
        return implicit_params(1.0 / (math.pi * L * Es), self.area_factor * L * dR * Es, self.offset)
