"""A planar mechanism as data.

Bodies, joints, drivers, force elements and clearance joints are frozen dataclasses that refer to
each other by name, with anchor points in body coordinates (relative to the centre of mass, [m]).
The body named ``ground`` always exists, is fixed at the origin and carries its own named points.
:meth:`Mechanism.validate` reports every problem at once.  Compiling a mechanism to arrays for
the numerics is a separate step (:func:`workbench.mbs.compiled.compile_mechanism`); running it is
:func:`workbench.mbs.solver.simulate`.  A :class:`DriverFunction` is evaluated by the same compiled
code the integrator uses (:func:`workbench.mbs.kinematics.driver_value`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import MechanismError
from ..models import ContactGeometry, ContactLaw, FrictionLaw, Material

GROUND = "ground"
Vec2 = tuple[float, float]
#: shortest axis vector accepted [1] (axes are normalised; shorter ones lose precision or underflow)
MIN_AXIS_LENGTH = 1e-6


def axis_ok(axis) -> bool:
    """True when ``axis`` is a finite 2-vector of length >= :data:`MIN_AXIS_LENGTH`."""
    try:
        x, y = (float(a) for a in axis)
    except (TypeError, ValueError):
        return False
    return math.isfinite(x) and math.isfinite(y) and math.hypot(x, y) >= MIN_AXIS_LENGTH


def contact_geometry(joint) -> ContactGeometry:
    """The :class:`ContactGeometry` a clearance joint's contact law is packed with (nominal
    radii; :func:`workbench.mbs.compiled.compile_mechanism` uses it unless given another)."""
    if isinstance(joint, RevoluteClearanceJoint):
        return ContactGeometry("cylindrical", joint.journal_radius, joint.bushing_radius, joint.length,
                               joint.journal_material, joint.bushing_material)
    return ContactGeometry("planar", 0.0, 0.0, joint.width, joint.slider_material, joint.guide_material,
                           half_perimeter=joint.slider_length + joint.width)


@dataclass(frozen=True)
class Body:
    """A rigid body.

    Parameters
    ----------
    name : unique name.
    mass : mass [kg].
    inertia : moment of inertia about the centre of mass [kg m^2].
    position : initial (guess of the) centre-of-mass position [m], global frame.
    angle : initial (guess of the) orientation [rad].
    velocity : initial (guess of the) centre-of-mass velocity [m/s]; projected onto the
        constraints at assembly (a driven mechanism needs none).
    angular_velocity : initial (guess of the) angular velocity [rad/s].
    points : named points in body coordinates, relative to the centre of mass [m].
    """
    name: str
    mass: float
    inertia: float
    position: Vec2 = (0.0, 0.0)
    angle: float = 0.0
    points: dict = field(default_factory=dict)
    velocity: Vec2 = (0.0, 0.0)
    angular_velocity: float = 0.0


@dataclass(frozen=True)
class RevoluteJoint:
    """Ideal revolute joint: point ``point_i`` of ``body_i`` coincides with ``point_j`` of ``body_j``.

    ``friction`` (a memoryless :class:`FrictionLaw`, optional) acts on the friction circle of
    radius ``pin_radius`` [m] with the reaction as normal load
    (:mod:`workbench.mbs.joint_friction`)."""
    name: str
    body_i: str
    point_i: str
    body_j: str
    point_j: str
    #: friction law of the joint (None: frictionless); pin_radius [m] of the friction circle
    friction: FrictionLaw | None = None
    pin_radius: float = 0.0


@dataclass(frozen=True)
class TranslationalJoint:
    """Ideal translational joint: ``point_j`` of ``body_j`` slides along the line through
    ``point_i`` of ``body_i`` with direction ``axis`` (body-i coordinates, unit-normalised);
    the relative angle stays at its initial value."""
    name: str
    body_i: str
    point_i: str
    body_j: str
    point_j: str
    axis: Vec2 = (1.0, 0.0)
    #: a memoryless :class:`FrictionLaw` (optional) with the reactions split into two point
    #: contacts at the ends of the slider's contact, ``slider_length`` [m] long and centred at
    #: ``point_j`` (0: a particle slider; :mod:`workbench.mbs.joint_friction`)
    friction: FrictionLaw | None = None
    slider_length: float = 0.0


@dataclass(frozen=True)
class DriverFunction:
    """``f(t) = sum_k a_k t^k + sum_m A_m sin(w_m t + phi_m)``.

    Parameters
    ----------
    polynomial : coefficients ``a_k`` [unit/s^k], lowest order first.
    harmonics : triples ``(A_m [unit], w_m [rad/s], phi_m [rad])``.
    """
    polynomial: tuple = (0.0,)
    harmonics: tuple = ()

    def __call__(self, t, derivative: int = 0):
        """Value [unit] (``derivative`` 0), rate [unit/s] (1) or second rate [unit/s^2] (2) at time
        ``t`` [s] (a float or an array): the compiled drivers' own evaluation
        (:func:`workbench.mbs.kinematics.driver_value`), so that outputs and the integrator agree."""
        from .compiled import driver_row
        from .kinematics import driver_series
        if derivative not in (0, 1, 2):
            raise ValueError(f"derivative must be 0, 1 or 2, got {derivative!r}")
        tt = np.asarray(t, dtype=float)
        out = np.empty(tt.size)
        driver_series(driver_row(self), np.ascontiguousarray(tt.ravel()), derivative, out)
        return float(out[0]) if tt.ndim == 0 else out.reshape(tt.shape)


@dataclass(frozen=True)
class Driver:
    """Prescribed motion: coordinate ``coordinate`` (``x``, ``y`` or ``phi``) of ``body`` equals
    ``function(t)`` ([m] or [rad]); for ``phi`` relative to ``relative_to`` (default ground).
    Its load (the multiplier) is reported as ``driver_load`` [N] or [N m]."""
    name: str
    body: str
    function: DriverFunction
    coordinate: str = "phi"
    relative_to: str = GROUND


@dataclass(frozen=True)
class SpringDamper:
    """Translational spring-damper-actuator between two points.

    ``F = stiffness (l - free_length) + damping l_dot + force`` along the line (tension positive).
    stiffness [N/m], damping [N s/m], free_length [m], force [N]."""
    name: str
    body_i: str
    point_i: str
    body_j: str
    point_j: str
    stiffness: float = 0.0
    damping: float = 0.0
    free_length: float = 0.0
    force: float = 0.0


@dataclass(frozen=True)
class ConstantForce:
    """Constant force ``force`` [N] (global frame) applied at ``point`` of ``body``."""
    name: str
    body: str
    force: Vec2
    point: str | None = None


@dataclass(frozen=True)
class ConstantTorque:
    """Constant torque ``torque`` [N m] on ``body``, minus a rotational damping moment
    ``damping`` [N m s/rad] times the body's angular velocity (relative to ground)."""
    name: str
    body: str
    torque: float
    damping: float = 0.0


@dataclass(frozen=True)
class RevoluteClearanceJoint:
    """Revolute joint with radial clearance (Wang & Liu (2015) §3.1, Wang, Chen, Ma & Sun (2016) §1.1).

    The bushing of radius ``bushing_radius`` [m] is centred at ``bushing_point`` of
    ``bushing_body``; the journal of radius ``journal_radius`` [m] at ``journal_point`` of
    ``journal_body``.  ``length`` [m] is the axial length.  Contact and friction forces come from
    the chosen models; ``lubrication`` (a :class:`workbench.models.LubricationModel`, optional)
    adds the force and moment of a lubricant film (and asperities) at every instant, in or out of
    contact (:mod:`workbench.lubrication`); the contact law stays the backstop beyond the clearance.
    """
    name: str
    bushing_body: str
    bushing_point: str
    journal_body: str
    journal_point: str
    bushing_radius: float
    journal_radius: float
    contact: ContactLaw
    friction: FrictionLaw | None = None
    length: float = 0.01
    bushing_material: Material = Material()
    journal_material: Material = Material()
    lubrication: Any = None   # lubrication: a LubricationModel, or None for a dry joint

    @property
    def clearance(self) -> float:
        return self.bushing_radius - self.journal_radius


@dataclass(frozen=True)
class TranslationalClearanceJoint:
    """Translational joint with clearance (Wang, Chen, Ma & Sun (2016) §1.2): a rectangular slider of length
    ``slider_length`` L [m] (along the guide) and height ``slider_height`` W [m] centred at
    ``slider_point`` of ``slider_body`` and aligned with the slider's body x axis rotated by the
    guide axis angle at assembly; the guide of height ``guide_height`` H [m] has its centre line
    through ``guide_point`` of ``guide_body`` along ``axis`` (guide-body coordinates).
    Clearance ``C = (H - W)/2`` (Wang, Chen, Ma & Sun (2016) eq. 18).  The four slider corners are the contact
    points (states: free, one corner, one side, two opposite corners).  ``width`` [m] is the
    out-of-plane width (for the stiffness, Wang, Chen, Ma & Sun (2016) eq. 26 with ``a = (L + width)``)."""
    name: str
    guide_body: str
    guide_point: str
    slider_body: str
    slider_point: str
    slider_length: float
    slider_height: float
    guide_height: float
    contact: ContactLaw
    friction: FrictionLaw | None = None
    axis: Vec2 = (1.0, 0.0)
    width: float = 0.01
    guide_material: Material = Material()
    slider_material: Material = Material()

    @property
    def clearance(self) -> float:
        return 0.5 * (self.guide_height - self.slider_height)


def _joint_friction_problems(j) -> list[str]:
    """Problems of an ideal joint's friction settings (pin radius, slider length, law)."""
    from .joint_friction import check_law
    out = []
    if isinstance(j, RevoluteJoint):
        if j.friction is not None and not (math.isfinite(j.pin_radius) and j.pin_radius > 0):
            out.append(f"joint '{j.name}': friction needs pin_radius > 0 m (the friction-circle "
                       f"radius), got {j.pin_radius}")
    elif not (math.isfinite(j.slider_length) and j.slider_length >= 0):
        out.append(f"joint '{j.name}': slider_length must be >= 0 m, got {j.slider_length}")
    why = check_law(j.friction, j.name, set_valued_ok=True)  # set-valued: the solver decides
    if why:
        out.append(why)
    return out


@dataclass(frozen=True)
class Mechanism:
    """A planar mechanism: everything the solver needs except the numerical settings.

    Parameters
    ----------
    bodies : moving bodies (ground is implicit).
    ground_points : named points of the ground [m].
    gravity : gravitational acceleration vector [m/s^2].
    """
    bodies: tuple[Body, ...]
    joints: tuple = ()
    drivers: tuple[Driver, ...] = ()
    forces: tuple = ()
    clearance_joints: tuple = ()
    ground_points: dict = field(default_factory=dict)
    gravity: Vec2 = (0.0, -9.81)
    #: flexible bodies (:class:`workbench.flex.beam_body.BeamBody`); joints, clearance joints and
    #: forces name them like bodies and their points by name (arc lengths); a mechanism with beams
    #: runs on :func:`workbench.flex.solver.simulate`
    beams: tuple = ()

    # ---------------------------------------------------------------- lookups
    def first_angle_driver(self) -> Driver | None:
        """The first driver of an angle (``phi``), or ``None`` (the crank of a crank mechanism)."""
        return next((d for d in self.drivers if d.coordinate == "phi"), None)

    def body_index(self, name: str) -> int:
        """Index of a moving body, -1 for ground."""
        if name == GROUND:
            return -1
        for i, b in enumerate(self.bodies):
            if b.name == name:
                return i
        raise MechanismError(f"unknown body '{name}'")

    def point(self, body: str, point: str | None) -> np.ndarray:
        """Body coordinates of a named point [m] (``None`` = centre of mass)."""
        if point is None:
            return np.zeros(2)
        pts = self.ground_points if body == GROUND else self.bodies[self.body_index(body)].points
        return np.asarray(pts[point], dtype=float)

    # ---------------------------------------------------------------- validation
    def problems(self) -> list[str]:
        """Every inconsistency found, as messages (empty when the mechanism is valid)."""
        out: list[str] = []
        names = [b.name for b in self.bodies]
        bodies = {b.name: b for b in self.bodies}
        for bm in self.beams:
            out.extend(bm.problems())
            if bm.name == GROUND:
                out.append("'ground' is reserved for the fixed frame; rename the beam")
            if bm.name in names:
                out.append(f"the name '{bm.name}' is used by more than one body or beam")
            names.append(bm.name)
            bodies[bm.name] = bm
        for b in self.bodies:
            if names.count(b.name) > 1:
                out.append(f"body '{b.name}' is defined more than once")
            if b.name == GROUND:
                out.append("'ground' is reserved for the fixed frame; rename the body")
            if not b.mass > 0:
                out.append(f"body '{b.name}': mass must be > 0 kg, got {b.mass}")
            if not b.inertia > 0:
                out.append(f"body '{b.name}': inertia must be > 0 kg m^2, got {b.inertia}")
        valid_bodies = sorted(set(names) | {GROUND})

        def check_ref(owner: str, body: str, point: str | None):
            if body not in valid_bodies:
                out.append(f"{owner}: unknown body '{body}' (valid: {', '.join(valid_bodies)})")
                return
            if point is None:
                return
            pts = self.ground_points if body == GROUND else bodies[body].points
            if point not in pts:
                out.append(f"{owner}: body '{body}' has no point '{point}' "
                           f"(valid: {', '.join(sorted(pts)) or 'none defined'})")

        all_names: list[str] = []
        for j in self.joints:
            all_names.append(j.name)
            check_ref(f"joint '{j.name}'", j.body_i, j.point_i)
            check_ref(f"joint '{j.name}'", j.body_j, j.point_j)
            if j.body_i == j.body_j:
                out.append(f"joint '{j.name}' connects body '{j.body_i}' to itself")
            out.extend(_joint_friction_problems(j))
        for d in self.drivers:
            all_names.append(d.name)
            check_ref(f"driver '{d.name}'", d.body, None)
            check_ref(f"driver '{d.name}'", d.relative_to, None)
            if d.coordinate not in ("x", "y", "phi"):
                out.append(f"driver '{d.name}': coordinate '{d.coordinate}' is not one of 'x', 'y', 'phi'")
        for f in self.forces:
            all_names.append(f.name)
            if isinstance(f, SpringDamper):
                check_ref(f"force '{f.name}'", f.body_i, f.point_i)
                check_ref(f"force '{f.name}'", f.body_j, f.point_j)
            elif isinstance(f, ConstantForce):
                check_ref(f"force '{f.name}'", f.body, f.point)
            else:
                check_ref(f"force '{f.name}'", f.body, None)
        for c in self.clearance_joints:
            all_names.append(c.name)
            if isinstance(c, RevoluteClearanceJoint):
                check_ref(f"clearance joint '{c.name}'", c.bushing_body, c.bushing_point)
                check_ref(f"clearance joint '{c.name}'", c.journal_body, c.journal_point)
                if not c.bushing_radius > c.journal_radius > 0:
                    out.append(f"clearance joint '{c.name}': need bushing_radius > journal_radius > 0 m, "
                               f"got {c.bushing_radius} and {c.journal_radius}")
            else:
                check_ref(f"clearance joint '{c.name}'", c.guide_body, c.guide_point)
                check_ref(f"clearance joint '{c.name}'", c.slider_body, c.slider_point)
                if not c.guide_height > c.slider_height > 0:
                    out.append(f"clearance joint '{c.name}': need guide_height > slider_height > 0 m, "
                               f"got {c.guide_height} and {c.slider_height}")
                if not c.slider_length > 0:
                    out.append(f"clearance joint '{c.name}': slider_length must be > 0 m")
        for n in set(all_names):
            if all_names.count(n) > 1:
                out.append(f"the name '{n}' is used by more than one joint/driver/force")
        for owner, axis in self._axes():
            if not axis_ok(axis):
                out.append(f"{owner}: axis {list(axis)} is not a direction: its length must be at "
                           f"least {MIN_AXIS_LENGTH:g} (it is normalised), e.g. [1.0, 0.0]")
        if not out:  # zero-length links only make sense to look for in a well-formed mechanism
            out.extend(self._zero_length_links())
        return out

    def _axes(self):
        for j in self.joints:
            if isinstance(j, TranslationalJoint):
                yield f"joint '{j.name}'", j.axis
        for c in self.clearance_joints:
            if isinstance(c, TranslationalClearanceJoint):
                yield f"clearance joint '{c.name}'", c.axis

    def _zero_length_links(self) -> list[str]:
        """A body held only by pin joints (ideal or with clearance) that all sit on one point, to
        two or more other bodies, is a link of zero length: its angle is not determined by the
        mechanism (a free rotation about the pin) and the bodies it joins are pinned directly."""
        anchors: dict[str, list[tuple[str, str, object]]] = {b.name: [] for b in self.bodies}
        other_constraint = set()
        for j in self.joints:
            if isinstance(j, RevoluteJoint):
                for b, pt, o in ((j.body_i, j.point_i, j.body_j), (j.body_j, j.point_j, j.body_i)):
                    if b in anchors:
                        anchors[b].append((j.name, pt, o))
            else:
                other_constraint.update((j.body_i, j.body_j))
        for c in self.clearance_joints:
            if isinstance(c, RevoluteClearanceJoint):
                for b, pt, o in ((c.bushing_body, c.bushing_point, c.journal_body),
                                 (c.journal_body, c.journal_point, c.bushing_body)):
                    if b in anchors:
                        anchors[b].append((c.name, pt, o))
            else:
                other_constraint.update((c.guide_body, c.slider_body))
        for d in self.drivers:
            if d.coordinate == "phi":
                other_constraint.update((d.body, d.relative_to))
        for f in self.forces:
            if isinstance(f, SpringDamper):
                other_constraint.update((f.body_i, f.body_j))
        out = []
        for b in self.bodies:
            pins = anchors[b.name]
            if len(pins) < 2 or b.name in other_constraint or len({o for _, _, o in pins}) < 2:
                continue
            pts = np.array([self.point(b.name, pt) for _, pt, _ in pins])
            size = max(float(np.abs(pts).max()), 1e-3)
            if float(np.ptp(pts, axis=0).max()) <= 1e-9 * size:
                names = ", ".join(f"'{n}' (point '{pt}')" for n, pt, _ in pins)
                out.append(f"body '{b.name}' is a zero-length link: its joints {names} all sit at "
                           f"{list(map(float, pts[0]))} m in body coordinates, so its angle is not "
                           f"determined; give the points their real positions (e.g. the rod's "
                           f"length apart)")
        return out

    def validate(self) -> Mechanism:
        """Raise :class:`MechanismError` listing every problem; return ``self`` when valid."""
        probs = self.problems()
        if probs:
            raise MechanismError("the mechanism has problems:\n  - " + "\n  - ".join(probs))
        return self

    def ideal(self) -> Mechanism:
        """The same mechanism with every clearance joint replaced by its ideal joint."""
        joints = list(self.joints)
        for c in self.clearance_joints:
            if isinstance(c, RevoluteClearanceJoint):
                joints.append(RevoluteJoint(c.name, c.bushing_body, c.bushing_point,
                                            c.journal_body, c.journal_point))
            else:
                joints.append(TranslationalJoint(c.name, c.guide_body, c.guide_point,
                                                 c.slider_body, c.slider_point, c.axis))
        return Mechanism(self.bodies, tuple(joints), self.drivers, self.forces, (),
                         self.ground_points, self.gravity,
                         beams=self.beams)  # flexible beams (owner: workbench.flex)


def guided_slider(mechanism) -> tuple[str, tuple[float, float]] | None:
    """The slider body and its guide direction (global frame) when the guide is on the ground."""
    for c in mechanism.clearance_joints:
        if isinstance(c, TranslationalClearanceJoint):
            axis = c.axis if c.guide_body == GROUND else (1.0, 0.0)
            return c.slider_body, axis
    for j in mechanism.joints:
        if isinstance(j, TranslationalJoint):
            if j.body_i == GROUND:
                return j.body_j, j.axis
            if j.body_j == GROUND:
                return j.body_i, j.axis
    return None
