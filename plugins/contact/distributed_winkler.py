"""Distributed Winkler contact of a revolute clearance joint: pressure over the worn bore.

The law of :mod:`workbench.mbs.distributed`: every direction of the bore carries the Winkler
pressure ``p = k u (1 + chi u_dot / delta_dot_minus)`` of its local overlap ``u`` between the worn
journal and the worn bushing (Wang & Liu (2015) §2.3.3 eq. 23), the resultant and its moment drive
the multibody equations, and the joint's friction law acts at every point of the patches.  On an
unworn joint it reproduces the closed form of :mod:`workbench_plugins.contact.winkler_foundation`
(``F = b R k d (eps - sin eps cos eps)``, ``cos eps = c/d``).

The foundation modulus ``k`` [Pa/m] is the ``winkler`` pressure model's: the layer rule
(:func:`workbench_plugins.pressure.winkler.layer_modulus`, two elastic layers in series), an explicit
``stiffness``, or ``calibrate = "persson"``: ``k`` such that the unworn closed form has Persson's
contact half-angle (Persson (1964); Ciavarella & Decuzzi (2001)) at ``calibration_load``
(:func:`workbench.fem.closed_forms.winkler_stiffness_for_half_angle`), the calibration the
``winkler`` pressure model uses.  A wear study calibrates on the joint geometry it is given
(``wear.stiffness = "nominal"`` keeps the unworn clearance, and so one ``k``, for the whole run).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.plugin import (DISTRIBUTED_SLOTS, MAX_GAUSS, ContactGeometry, ContactLaw, StudyError,
                              choices_text, hookimpl, kernel_slots, njit, parameter)

from workbench_plugins.contact.winkler_foundation import checked_modulus, layered_modulus

from ._common import check_restitution, min_impact_speed_field
from .winkler_foundation import _RULES, arc_factor, layer_thickness_field, modulus_rule_field



@njit(cache=True)
def unworn_force(delta, delta_dot, delta_dot_minus, p):
    """Resultant [N] on an unworn joint with the damping on the global rate: the closed form
    ``b R k d (eps - sin eps cos eps) (1 + chi delta_dot / delta_dot_minus)``, ``cos eps = c/d``
    (``p`` from :meth:`DistributedWinkler.pack`; the integrator does not call it: it integrates the
    local rates over the bore, :mod:`workbench.mbs.distributed`)."""
    if delta <= 0.0:
        return 0.0
    c = p[S.clearance]
    d = c + delta
    eps = math.atan2(math.sqrt(delta * (c + d)), c)
    f = p[S.length] * p[S.bushing_radius] * p[S.k] * d * arc_factor(eps)
    v_minus = delta_dot_minus
    if not v_minus > p[S.v_floor]:
        v_minus = p[S.v_floor]
    f *= 1.0 + p[S.chi] * delta_dot / v_minus
    if f > 0.0:
        return f
    return 0.0
_CALIBRATIONS = ("none", "persson")


class DistributedWinkler(ContactLaw):
    """Winkler foundation pressure over the worn bore of a revolute clearance joint, with local
    Lankarani-Nikravesh hysteresis and friction integrated over the contact patches
    (:mod:`workbench.mbs.distributed`)."""
    name = "distributed_winkler"
    reference = ("Winkler elastic foundation over the bore, Wang & Liu (2015) §2.3.3 eq. (23)-(24); "
                 "hysteresis on the local approach rate, Lankarani & Nikravesh (1990); calibration to "
                 "Persson (1964) as Ciavarella & Decuzzi (2001)")
    dissipative = True
    geometries = ("cylindrical",)
    #: the integrator evaluates this law over the bore (workbench.mbs.distributed), not by its kernel
    distributed = True

    @dataclass(frozen=True)
    class Params:
        # shared with winkler_foundation (the distributed law allowed L = 0 before: a division by zero)
        layer_thickness: float = layer_thickness_field()
        modulus_rule: str = modulus_rule_field()
        stiffness: float | None = parameter(
            None, unit="Pa/m", doc="foundation modulus k; default E_w/L from the materials (layers "
            "in series) or the calibration", min=0.0)
        calibrate: str = parameter(
            "none", unit="text", doc="'persson': k such that the unworn contact has Persson's "
            "half-angle at calibration_load; 'none': the layer rule or stiffness", choices=_CALIBRATIONS)
        calibration_load: float = parameter(
            100.0, unit="N", doc="load of the Persson calibration (> 0)", min=0.0)
        restitution: float = parameter(0.9, unit="1", doc="coefficient of restitution e of the "
                                       "local Lankarani-Nikravesh damping", min=0.0, max=1.0)
        min_impact_speed: float = min_impact_speed_field()
        gauss_points: int = parameter(4, unit="1", doc="Gauss-Legendre points per patch piece "
                                      "(1-8)", min=1, max=MAX_GAUSS)
        smooth_profile: bool = parameter(
            False, unit="1", doc="true: the contact sees each wear profile averaged over the point "
            "contact's window (workbench.mbs.clearance.PROFILE_SMOOTHING, 8 deg): an elastic contact "
            "presses waviness shorter than its width flat, a Winkler foundation alone does not")
        unworn_pieces: int = parameter(4, unit="1", doc="pieces of the contact arc of an unworn "
                                       "joint, each with gauss_points points (1-64)", min=1, max=64)

        def __post_init__(self):
            if self.modulus_rule not in _RULES:
                raise StudyError(f"distributed_winkler: modulus_rule {self.modulus_rule!r} is not valid. "
                                 f"Valid choices: {choices_text(_RULES)}", key="modulus_rule")
            if self.calibrate not in _CALIBRATIONS:
                raise StudyError(f"distributed_winkler: calibrate {self.calibrate!r} is not valid. "
                                 f"Valid choices: {choices_text(_CALIBRATIONS)}", key="calibrate")
            if not isinstance(self.smooth_profile, bool):
                raise StudyError(f"distributed_winkler: smooth_profile = {self.smooth_profile!r} must be "
                                 f"true or false", key="smooth_profile")
            for key, lo, hi in (("gauss_points", 1, MAX_GAUSS), ("unworn_pieces", 1, 64)):
                v = getattr(self, key)
                if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                    raise StudyError(f"distributed_winkler: {key} = {v!r} must be an integer in "
                                     f"[{lo}, {hi}]", key=key)

    #: the distributed engine's slots (:data:`workbench.plugin.DISTRIBUTED_SLOTS`), then the bushing
    #: radius R_b [m] and the clearance c [m] of the closed form :func:`unworn_force`
    slots = kernel_slots(Params, DISTRIBUTED_SLOTS._fields + ("bushing_radius", "clearance"))
    #: the unworn closed form (``force()``; the integrator does not call it)
    kernel = unworn_force

    def foundation_modulus(self, geometry: ContactGeometry) -> float:
        """``k`` [Pa/m]: ``stiffness``, the Persson calibration, or ``1 / sum(L / E_w)``."""
        prm = self.params
        if prm.stiffness is not None:
            k = float(prm.stiffness)
        elif prm.calibrate == "persson":
            P, c = float(prm.calibration_load), geometry.clearance
            if not (P > 0.0 and c > 0.0):
                raise StudyError(f"contact law '{self.name}': the Persson calibration needs "
                                 f"calibration_load > 0 N and a clearance > 0 m; got {P!r} N, {c!r} m",
                                 key="calibration_load")
            # lazily: the closed forms import scipy.optimize (0.5 s)
            from workbench.plugin import persson_half_angle, winkler_stiffness_for_half_angle
            eps = persson_half_angle(P / geometry.length, geometry.E_star, c)
            k = winkler_stiffness_for_half_angle(eps, P / geometry.length, geometry.radius_bushing, c)
        else:
            k = layered_modulus(self.name, prm, geometry)
        return checked_modulus(self.name, k)

    def pack(self, geometry: ContactGeometry) -> np.ndarray:
        """``p`` in the slots :data:`S`: the distributed engine's six (k, b, chi, v_floor,
        gauss_points, unworn_pieces: :data:`workbench.plugin.DISTRIBUTED_SLOTS`), then R_b and c for
        the closed form :func:`unworn_force`."""
        if geometry.kind != "cylindrical":
            raise StudyError(f"contact law '{self.name}' is for revolute (cylindrical) clearance "
                             f"joints, not '{geometry.kind}' contacts")
        b, R = geometry.length, geometry.radius_bushing
        if not (b > 0.0 and R > 0.0):
            raise StudyError(f"contact law '{self.name}': needs length > 0 and bushing radius > 0; "
                             f"got b = {b!r} m, R = {R!r} m")
        k = self.foundation_modulus(geometry)
        e = check_restitution(self.params.restitution, self.name, 0.0, 1.0)
        v_floor = float(self.params.min_impact_speed)
        if not v_floor > 0.0:
            raise StudyError(f"contact law '{self.name}': min_impact_speed must be > 0 m/s",
                             key="min_impact_speed")
        return self.slots.pack(k=k, length=b, chi=0.75 * (1.0 - e * e), v_floor=v_floor,
                               gauss_points=float(self.params.gauss_points),
                               unworn_pieces=float(self.params.unworn_pieces), bushing_radius=R,
                               clearance=float(geometry.clearance))


#: the named slots of ``p`` (compile-time indices in :func:`unworn_force`)
S = DistributedWinkler.slots


@hookimpl
def register_contact_laws(register):
    register(DistributedWinkler)
