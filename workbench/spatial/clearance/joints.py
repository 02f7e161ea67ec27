"""Spatial clearance joints as data, and their checks.

A clearance joint joins the outer part (socket or bushing, ``body_i``, centred at ``point_i``)
and the inner part (ball or journal, ``body_j``, centred at ``point_j``) with no constraint
equation: the parts touch when the radial clearance ``c = radius_i - radius_j`` is used up, and
the contact-force and friction plugins named in the study give the force.

* ``spherical``: a ball of radius ``radius_j`` in a spherical socket of radius ``radius_i``;
* ``cylindrical``: a journal of length ``length`` (between its two rims) in a bore; free to slide
  along and turn about the axis, and to tilt as far as the clearance lets it;
* ``revolute``: the cylindrical joint with an axial clearance ``axial_clearance`` (each side)
  against the bushing's two shoulders (Marques, Isaac, Dourado & Flores (2017)).

The bushing axis is ``axis_i`` (body-i coordinates) turned by the misalignment ``tilt`` [rad]
about ``tilt_axis`` (body i; default the body-i frame's x axis across ``axis_i``); the journal
axis is ``axis_j`` (body j) or, by default, the untilted bushing axis carried by body j from the
initial configuration.  A journal that starts aligned with the untilted axis therefore starts
misaligned by ``tilt`` with the bore.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import choices_text
from ...models import ContactLaw, FrictionLaw, Material

#: the clearance-joint types
CLEARANCE_TYPES = ("spherical", "revolute", "cylindrical")
#: largest misalignment [rad] (5 deg): the rim-contact model is the small-misalignment one of
#: Marques, Isaac, Dourado & Flores (2017); larger tilts are a different joint
MAX_TILT = math.radians(5.0)
#: memoryless regularised friction laws (the spatial engine's, :mod:`workbench.spatial.mechanism`)
FRICTION_LAWS = ("coulomb", "ambrosio", "bai_zhao")


@dataclass(frozen=True)
class ClearanceJoint:
    """A spatial clearance joint (module docstring).

    Parameters
    ----------
    name : unique name.
    type : ``spherical``, ``revolute`` or ``cylindrical``.
    body_i, point_i : the socket / bushing body and its centre point.
    body_j, point_j : the ball / journal body and its centre point (the journal's mid-length).
    radius_i : socket / bore radius [m].
    radius_j : ball / journal radius [m]; ``radius_i - radius_j`` is the radial clearance ``c``.
    contact : the normal contact law (a :class:`~workbench.models.ContactLaw`).
    friction : the friction law in the tangent plane (memoryless, regularised), or None.
    axis_i : bushing axis [1], body-i coordinates (revolute, cylindrical).
    axis_j : journal axis [1], body-j coordinates (default: ``axis_i`` carried by body j from the
        initial configuration, untilted).
    length : journal length [m] between its two rims (revolute, cylindrical).
    axial_clearance : axial clearance [m] on each side between the journal's end faces and the
        bushing's shoulders (revolute).
    tilt : misalignment of the bushing axis [rad], ``|tilt| <= 5 deg``.
    tilt_axis : axis [1] (body i) about which the bushing axis is tilted (default: the body-i
        x axis made perpendicular to ``axis_i``).
    material_i, material_j : materials of the socket/bushing and of the ball/journal.
    """
    name: str
    type: str
    body_i: str
    point_i: str
    body_j: str
    point_j: str
    radius_i: float
    radius_j: float
    contact: ContactLaw
    friction: FrictionLaw | None = None
    axis_i: tuple | None = None
    axis_j: tuple | None = None
    length: float = 0.0
    axial_clearance: float = 0.0
    tilt: float = 0.0
    tilt_axis: tuple | None = None
    material_i: Material = Material()
    material_j: Material = Material()

    @property
    def clearance(self) -> float:
        """Radial clearance ``c = radius_i - radius_j`` [m]."""
        return self.radius_i - self.radius_j


def _axis_ok(v) -> bool:
    try:
        a = np.asarray(v, float)
    except (TypeError, ValueError):
        return False
    return a.shape == (3,) and bool(np.all(np.isfinite(a))) and float(np.linalg.norm(a)) >= 1e-6


def problems(joint: ClearanceJoint, key: str, points_of, joint_names) -> list[tuple[str, str]]:
    """Every problem of one clearance joint as ``(key, message)`` (``key``: its table's path;
    ``points_of(body)``: the named points of a body or None; ``joint_names``: all joint names)."""
    out = []
    j = joint
    if j.type not in CLEARANCE_TYPES:
        return [(f"{key}.type", f"clearance joint '{j.name}': type '{j.type}' is not valid. Valid: "
                                f"{choices_text(CLEARANCE_TYPES)}")]
    if list(joint_names).count(j.name) > 1:
        out.append((f"{key}.name", f"joint name '{j.name}' is used twice"))
    for side in ("i", "j"):
        bn, pn = getattr(j, f"body_{side}"), getattr(j, f"point_{side}")
        pts = points_of(bn)
        if pts is None:
            out.append((f"{key}.body_{side}", f"clearance joint '{j.name}': unknown body '{bn}'"))
        elif pn not in pts:
            out.append((f"{key}.point_{side}", f"clearance joint '{j.name}': body '{bn}' has no point '{pn}'. "
                                               f"Valid: {choices_text(pts)}"))
    if j.body_i == j.body_j:
        out.append((f"{key}.body_j", f"clearance joint '{j.name}' joins body '{j.body_i}' to itself"))
    for attr in ("radius_i", "radius_j"):
        v = getattr(j, attr)
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            out.append((f"{key}.{attr}", f"clearance joint '{j.name}': {attr} = {v!r} must be > 0 [m]"))
    if not out and not j.clearance > 0:
        out.append((f"{key}.radius_i", f"clearance joint '{j.name}': radius_i = {j.radius_i!r} m must exceed "
                                       f"radius_j = {j.radius_j!r} m (the radial clearance radius_i - radius_j "
                                       f"= {j.clearance:.6g} m must be > 0)"))
    kinds = getattr(j.contact, "geometries", ())
    if j.type == "spherical":
        if "sphere" not in kinds or getattr(j.contact, "distributed", False):
            out.append((f"{key}.contact.model", f"clearance joint '{j.name}': contact law "
                                                f"'{getattr(j.contact, 'name', j.contact)}' is not a point-contact "
                                                f"law for a ball in a socket (its geometries: {choices_text(kinds)})"))
        for attr in ("axis_i", "axis_j", "tilt_axis"):
            if getattr(j, attr) is not None:
                out.append((f"{key}.{attr}", f"clearance joint '{j.name}': a spherical joint has no {attr}"))
        for attr in ("length", "axial_clearance", "tilt"):
            if getattr(j, attr) != 0.0:
                out.append((f"{key}.{attr}", f"clearance joint '{j.name}': a spherical joint has no {attr} "
                                             f"(got {getattr(j, attr)!r})"))
    else:
        if "cylindrical" not in kinds or getattr(j.contact, "distributed", False):
            out.append((f"{key}.contact.model", f"clearance joint '{j.name}': contact law "
                                                f"'{getattr(j.contact, 'name', j.contact)}' is not a point law of "
                                                f"a journal in a bore (the rims are point contacts)"))
        for attr in ("axis_i", "axis_j", "tilt_axis"):
            v = getattr(j, attr)
            if (v is not None or attr == "axis_i") and not _axis_ok(v):
                out.append((f"{key}.{attr}", f"clearance joint '{j.name}': {attr} = {v!r} must be a 3-vector "
                                             f"of length >= 1e-06"))
        if not (math.isfinite(j.length) and j.length > 0):
            out.append((f"{key}.length", f"clearance joint '{j.name}': length = {j.length!r} must be > 0 [m] "
                                         f"(journal length between its rims)"))
        if j.type == "revolute" and not (math.isfinite(j.axial_clearance) and j.axial_clearance > 0):
            out.append((f"{key}.axial_clearance", f"clearance joint '{j.name}': axial_clearance = "
                                                  f"{j.axial_clearance!r} must be > 0 [m] for a revolute "
                                                  f"clearance joint (use type = \"cylindrical\" for free axial "
                                                  f"sliding)"))
        if j.type == "cylindrical" and j.axial_clearance != 0.0:
            out.append((f"{key}.axial_clearance", f"clearance joint '{j.name}': a cylindrical clearance joint "
                                                  f"slides freely along its axis; axial_clearance = "
                                                  f"{j.axial_clearance!r} is for type = \"revolute\""))
        if not (math.isfinite(j.tilt) and abs(j.tilt) <= MAX_TILT):
            out.append((f"{key}.tilt", f"clearance joint '{j.name}': tilt = {j.tilt!r} rad is out of range; "
                                       f"valid: between {-MAX_TILT:.6g} and {MAX_TILT:.6g} rad (5 deg)"))
        elif (j.clearance > 0 and math.isfinite(j.length) and j.length > 0
              and 0.5 * j.length * abs(math.sin(j.tilt)) >= j.clearance):
            lim = math.asin(min(1.0, 2.0 * j.clearance / j.length))
            out.append((f"{key}.tilt", f"clearance joint '{j.name}': tilt = {j.tilt!r} rad does not fit the "
                                       f"clearance: a journal of length {j.length:g} m tilted by it cannot sit "
                                       f"in the bore (needs length/2 |sin tilt| < c = {j.clearance:.6g} m); "
                                       f"valid: |tilt| < {lim:.6g} rad"))
    if j.friction is not None:
        law = j.friction
        if getattr(law, "set_valued", False) or getattr(type(law), "n_states", 0) != 0:
            out.append((f"{key}.friction.model", f"clearance joint '{j.name}': friction law "
                                                 f"'{getattr(law, 'name', law)}' has internal states or is "
                                                 f"set-valued; the spatial clearance joints take memoryless "
                                                 f"regularised laws. Valid: {choices_text(FRICTION_LAWS)}"))
    return out
